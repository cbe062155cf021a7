/**
 * Hostile request bodies and paths over real HTTPS (DESIGN.md, "Quality bars": every bad input
 * gets a clear 4xx with an RDF error body, and nothing is lost or half-written): entity expansion
 * and external entities in RDF/XML, deep and remote-context JSON-LD, blank-node explosions and
 * canonicalisation bombs, invalid UTF-8, oversized bodies (chunked and declared), and path
 * traversal. Each test checks that the end-user repository did not move.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname, join, relative, sep } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { git, removeTempDirs, unchangedRepository } from './helpers.js';
import { assertRdfError, startServer, turtle, rawRequest, type TestServer } from './http-helpers.js';

const RDF_HEAD = '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/ns#"><rdf:Description rdf:about="#this"><ex:p>';
const RDF_TAIL = '</ex:p></rdf:Description></rdf:RDF>';
const MiB = 1024 * 1024;

let s: TestServer;
let dir: string;

before(async () => {
  // internal URLs allowed, so that only the parser's refusal keeps the remote @context from being fetched;
  // deep labelling stopped after 2.5 s, not the production 5 s (src/threads.ts), so a blank-node cycle is refused sooner
  s = await startServer(['--allow-internal-urls'], undefined, undefined, { poolDeadlinesMs: { labelling: 2500 } });
  dir = s.running.runtimes[0]!.dataspace.store.dir;
});
after(async () => {
  await s?.close();
  removeTempDirs();
});

/** Runs `attempt` and checks that the end-user repository did not move. */
const nothingChanges = <T>(attempt: () => Promise<T>): Promise<T> => unchangedRepository(dir, attempt);

async function absent(path: string): Promise<void> {
  assertRdfError(await s.request('GET', path), 404);
}

const raw = (method: string, path: string, headers: Record<string, string>, send: Parameters<typeof rawRequest>[4]) => rawRequest(s, method, path, headers, send);

describe('RDF/XML entities', () => {
  it('billion laughs (nested entity declarations) is a 400, and nothing changes', { timeout: 30_000 }, async () => {
    let declarations = '<!ENTITY lol "lol">';
    declarations += '<!ENTITY lol1 "' + '&lol;'.repeat(10) + '">';
    for (let i = 2; i <= 9; i++) declarations += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`;
    const body = `<?xml version="1.0"?>\n<!DOCTYPE lolz [\n${declarations}\n]>\n${RDF_HEAD}&lol9;${RDF_TAIL}`;
    await nothingChanges(async () => {
      assertRdfError(await s.request('PUT', 'laughs/', { headers: { 'Content-Type': 'application/rdf+xml' }, body }), 400, { title: /entit/i });
    });
    await absent('laughs/');
  });

  it('a flat entity referenced until it expands past 1 MiB is a 400', { timeout: 30_000 }, async () => {
    const body = `<!DOCTYPE r [<!ENTITY big "${'x'.repeat(10_000)}">]>${RDF_HEAD}${'&big;'.repeat(200)}${RDF_TAIL}`;
    await nothingChanges(async () => {
      assertRdfError(await s.request('PUT', 'laughs-flat/', { headers: { 'Content-Type': 'application/rdf+xml' }, body }), 400, { title: /expand/ });
    });
    await absent('laughs-flat/');
  });

  it('an external SYSTEM entity (XXE) is a 400 that does not leak the file', async () => {
    const passwd = existsSync('/etc/passwd') ? readFileSync('/etc/passwd', 'utf8').split('\n')[0]! : 'root:x:0:0';
    for (const [path, doctype] of [
      ['xxe/', '<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'],
      ['xxe-public/', '<!DOCTYPE r [<!ENTITY xxe PUBLIC "-//X//Y" "file:///etc/passwd">]>'],
      ['xxe-parameter/', '<!DOCTYPE r [<!ENTITY % xxe SYSTEM "file:///etc/passwd"> %xxe;]>'],
    ] as const) {
      const body = `<?xml version="1.0"?>\n${doctype}\n${RDF_HEAD}&xxe;${RDF_TAIL}`;
      const res = await nothingChanges(() => s.request('PUT', path, { headers: { 'Content-Type': 'application/rdf+xml' }, body }));
      assertRdfError(res, 400, { title: /external|parameter/ });
      assert.ok(!res.body.includes(passwd) && !res.body.includes('root:'), res.body);
      await absent(path);
    }
  });
});

describe('JSON-LD', () => {
  it('100,000 nested arrays, or objects, are a 400 and the server still answers', { timeout: 30_000 }, async () => {
    const arrays = `{"@id": "#this", "http://example.org/ns#p": ${'['.repeat(100_000)}1${']'.repeat(100_000)}}`;
    const objects = `{"@context": {"p": "http://example.org/ns#p"}, "@id": "#this", "p": ${'{"p": '.repeat(99_999)}1${'}'.repeat(100_000)}`;
    assert.ok(Buffer.byteLength(objects) < 2 * MiB, 'under the body limit, so the parser has to cope');
    for (const [path, body] of [['deep-arrays/', arrays], ['deep-objects/', objects]] as const) {
      await nothingChanges(async () => {
        assertRdfError(await s.request('PUT', path, { headers: { 'Content-Type': 'application/ld+json' }, body }), 400, { title: /ld\+json/ });
      });
      await absent(path);
    }
    assert.equal((await s.request('GET', '')).status, 200);
  });

  describe('a remote @context', () => {
    let origin: Server;
    let hits: string[];
    let url: string;
    before(async () => {
      hits = [];
      origin = createServer((req, res) => {
        hits.push(`${req.method} ${req.url}`);
        res.writeHead(200, { 'Content-Type': 'application/ld+json' });
        res.end(JSON.stringify({ '@context': { title: 'http://purl.org/dc/terms/title' } }));
      });
      origin.listen(0, '127.0.0.1');
      await once(origin, 'listening');
      url = `http://127.0.0.1:${(origin.address() as { port: number }).port}/ctx.jsonld`;
    });
    after(() => new Promise<void>((resolve) => origin.close(() => resolve())));

    it('is a 400 saying remote contexts are not fetched, and no request reaches the context URL', async () => {
      const bodies: Array<[string, unknown]> = [
        ['remote-context/', { '@context': url, '@id': '#this', title: 'x' }],
        ['remote-context-array/', { '@context': [{ ex: 'http://example.org/ns#' }, url], '@id': '#this', title: 'x' }],
        ['remote-context-import/', { '@context': { '@import': url }, '@id': '#this', title: 'x' }],
        ['remote-context-scoped/', { '@context': { ex: 'http://example.org/ns#', 'ex:q': { '@context': url } }, '@id': '#this', 'ex:q': { title: 'x' } }],
        ['remote-context-nested/', { '@id': '#this', 'http://example.org/ns#q': { '@context': url, title: 'x' } }],
      ];
      for (const [path, json] of bodies) {
        await nothingChanges(async () => {
          assertRdfError(await s.request('PUT', path, { headers: { 'Content-Type': 'application/ld+json' }, body: JSON.stringify(json) }), 400, { title: /remote JSON-LD @context documents are not fetched/ });
        });
        await absent(path);
      }
      assert.deepEqual(hits, [], 'the server made no request for the context');
    });
  });
});

describe('blank nodes', () => {
  it('a Turtle body with 100,000 distinct blank nodes is a 422, and nothing changes', { timeout: 30_000 }, async () => {
    const body = `<#this> <http://example.org/ns#p> ${Array.from({ length: 100_000 }, () => '[]').join(',')} .`;
    await nothingChanges(async () => {
      assertRdfError(await s.request('PUT', 'blank-explosion/', { headers: turtle, body }), 422, { title: /100000 blank nodes; at most 10000/ });
    });
    await absent('blank-explosion/');
  });

  it('a 5,000-node blank-node cycle, beyond the labelling work bound, is a 422, also when appended to an existing document', { timeout: 30_000 }, async () => {
    let body = '';
    for (let i = 0; i < 5000; i++) body += `_:n${i} <http://example.org/ns#p> _:n${(i + 1) % 5000} .\n`;
    await nothingChanges(async () => {
      assertRdfError(await s.request('PUT', 'blank-cycles/', { headers: turtle, body }), 422, { title: /too alike.*give these blank nodes IRIs/ });
    });
    await absent('blank-cycles/');
    const created = await s.request('PUT', 'blank-cycles-post/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "Intact" .' });
    assert.equal(created.status, 201);
    const file = git(dir, 'show', 'HEAD:graphs/blank-cycles-post.nt');
    await nothingChanges(async () => {
      assertRdfError(await s.request('POST', 'blank-cycles-post/', { headers: { ...turtle, 'If-Match': String(created.headers.etag) }, body }), 422, { title: /too alike/ });
    });
    assert.equal(git(dir, 'show', 'HEAD:graphs/blank-cycles-post.nt'), file);
  });
});

describe('encoding and size', () => {
  it('invalid UTF-8 in a Turtle body is a 400', async () => {
    const body = Buffer.concat([Buffer.from('<#this> <http://purl.org/dc/terms/title> "'), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('" .\n')]);
    await nothingChanges(async () => {
      assertRdfError(await s.request('PUT', 'bad-utf8/', { headers: turtle, body }), 400, { title: /UTF-8/ });
    });
    await absent('bad-utf8/');
    const overlong = Buffer.concat([Buffer.from('<#this> <http://purl.org/dc/terms/title> "'), Buffer.from([0xc0, 0xaf]), Buffer.from('" .\n')]);
    await nothingChanges(async () => {
      assertRdfError(await s.request('PUT', 'bad-utf8/', { headers: turtle, body: overlong }), 400, { title: /UTF-8/ });
    });
  });

  it('a 3 MiB chunked body (no Content-Length) is a 413, and the server answers the next request', { timeout: 30_000 }, async () => {
    const line = Buffer.from('<#this> <http://example.org/ns#p> "' + 'x'.repeat(200) + '" .\n');
    const chunk = Buffer.concat(Array.from({ length: Math.ceil((64 * 1024) / line.length) }, () => line));
    const res = await nothingChanges(() =>
      raw('PUT', '/too-big-chunked/', { 'Content-Type': 'text/turtle', 'Transfer-Encoding': 'chunked' }, async (req, answered) => {
        let sent = 0;
        while (sent < 3 * MiB && !answered() && !req.destroyed) {
          await new Promise<void>((resolve) => req.write(chunk, () => resolve()));
          sent += chunk.length;
        }
        if (!answered() && !req.destroyed) req.end();
      }),
    );
    assertRdfError(res, 413);
    await absent('too-big-chunked/');
    assert.equal((await s.request('GET', '')).status, 200, 'the server still answers');
  });

  it('a declared Content-Length over the limit is a 413 before any of the body is sent', { timeout: 30_000 }, async () => {
    const res = await nothingChanges(() =>
      raw('PUT', '/too-big-declared/', { 'Content-Type': 'text/turtle', 'Content-Length': String(3 * MiB) }, (req) => {
        req.flushHeaders(); // headers only: a server waiting for the body would never answer
      }),
    );
    assertRdfError(res, 413, { title: /3145728/ });
    await absent('too-big-declared/');
    assert.equal((await s.request('GET', '')).status, 200, 'the server still answers');
  });
});

describe('path traversal', () => {
  /** Every file under `root`, skipping git's own objects, as paths relative to `root`. */
  function files(root: string): Set<string> {
    const out = new Set<string>();
    const walk = (at: string) => {
      for (const entry of readdirSync(at, { withFileTypes: true })) {
        const full = join(at, entry.name);
        if (entry.isDirectory()) {
          if (entry.name === '.git') {
            // a traversal into .git would leave a .nt file there
            for (const f of readdirSync(full, { recursive: true, encoding: 'utf8' })) if (f.endsWith('.nt')) out.add(relative(root, join(full, f)));
            continue;
          }
          walk(full);
        } else out.add(relative(root, full));
      }
    };
    walk(root);
    return out;
  }

  it('encoded dot segments are refused (400) or stay one harmless document inside graphs/', async () => {
    const created = await s.request('PUT', 'a/', { headers: turtle, body: '<> a <https://w3id.org/atomgraph/linkeddatahub/document-hierarchy#Container> .' });
    assert.equal(created.status, 201, created.body);
    const marker = `escape-${process.pid}-${Date.now()}`;
    const outside = dirname(s.data);
    const paths = [
      '/a/..%2F..%2F/',
      '/%2e%2e/',
      '/%2E%2E/',
      '/.%2e/',
      '/a/%2e%2e/',
      '/a/../',
      `/a/%2e%2e/%2e%2e/${marker}/`,
      `/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2f${marker}/`,
      `/a/..%2F..%2F..%2F..%2F..%2F${marker}/`,
      `/..%5C..%5C${marker}/`,
      '/a/%2e%2e%2f.git%2fconfig/',
      '/.git/',
      '/%2egit/',
    ];
    const filesBefore = files(s.data);
    const treeBefore = new Set(git(dir, 'ls-tree', '-r', '-z', '--name-only', 'HEAD').split('\0').filter(Boolean));
    const outcomes: string[] = [];
    for (const path of paths) {
      const res = await raw('PUT', path, { 'Content-Type': 'text/turtle' }, (req) => {
        req.end('<#this> <http://purl.org/dc/terms/title> "Traversal" .');
      });
      outcomes.push(`${path} → ${res.status}`);
      if (res.status === 400) {
        assertRdfError(res, 400);
        continue;
      }
      assert.equal(res.status, 201, `${path}: 400 or a harmless document, not ${res.status}: ${res.body}`);
      const location = String(res.headers.location);
      assert.ok(location.startsWith(s.base), location);
      // a harmless document: it reads back at the URL the server gave it
      const back = await raw('GET', new URL(location).pathname, {}, (req) => {
        req.end();
      });
      assert.equal(back.status, 200, `${location} reads back`);
      assert.match(back.body, /"Traversal"/);
    }
    const treeAfter = git(dir, 'ls-tree', '-r', '-z', '--name-only', 'HEAD').split('\0').filter(Boolean);
    for (const name of treeAfter) {
      assert.ok(name.startsWith('graphs/'), `${name} is inside graphs/`);
      assert.ok(!name.split('/').some((segment) => segment === '..' || segment === '.'), name);
    }
    const added = treeAfter.filter((name) => !treeBefore.has(name));
    const graphs = relative(s.data, join(dir, 'graphs')) + sep;
    for (const file of files(s.data)) {
      if (!filesBefore.has(file)) assert.ok(file.startsWith(graphs), `${file} was written outside ${graphs} (${outcomes.join(', ')})`);
    }
    for (const name of readdirSync(outside)) assert.ok(!name.includes(marker), `${join(outside, name)} escaped the data directory`);
    assert.ok(!existsSync(join(s.data, `${marker}.nt`)) && !existsSync(join(dir, `${marker}.nt`)));
    console.log(`# ${outcomes.join('; ')}; added to git: ${added.join(', ')}`);
  });
});
