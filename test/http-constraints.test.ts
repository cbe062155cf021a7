/**
 * Built-in constraints and the URI rules (SPEC §7, §4.1, §2.1, §2.3; DESIGN.md "Document ↔ file",
 * "Indirect graph identification", "Dataspaces"): 405 for the root and the agents' documents, 422
 * for a missing or non-container parent, 409 for a container with children, 404, 308 to the
 * trailing slash, 400 for malformed paths and ?graph=, 403 for anonymous writes, OPTIONS, CORS and
 * unknown methods. Every refusal is the RDF error of SPEC §2.4 and leaves git as it was.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ns } from '../src/rdf/namespaces.js';
import { commitCount, git, headOf } from './helpers.js';
import { assertRdfError, header, rawRequest as pathAsIs, turtle, type RequestOptions, type Response, type TestServer, serverForFile } from './http-helpers.js';


const SPARQL_UPDATE = { 'Content-Type': 'application/sparql-update' };
const READABLE = ['text/turtle', 'application/n-triples', 'application/rdf+xml', 'application/ld+json', 'application/x-www-form-urlencoded'];
const WRITE_METHODS = ['PUT', 'POST', 'PATCH', 'DELETE'];

let s: TestServer;
let dir: string;
let adminDir: string;

serverForFile(async (server, repo) => {
  s = server;
  dir = repo;
  adminDir = s.running.runtimes[1]!.dataspace.store.dir;
});

function methodsOf(allow: string | undefined): string[] {
  return (allow ?? '').split(',').map((m) => m.trim()).filter(Boolean);
}

/** A request whose path is sent byte for byte (the WHATWG URL parser would resolve `%2E%2E` and `//x`). */
function rawRequest(method: string, path: string, options: Omit<RequestOptions, 'as' | 'localAddress'> = {}): Promise<Response> {
  return pathAsIs(s, method, path, options.headers ?? {}, (req) => void req.end(options.body));
}

async function etagOf(path: string): Promise<string> {
  const res = await s.request('HEAD', path);
  assert.equal(res.status, 200, `HEAD ${path}`);
  return header(res, 'etag')!;
}

async function create(path: string, container = false): Promise<void> {
  const res = await s.request('PUT', path, { headers: turtle, body: container ? `<> a <${ns.dh}Container> .` : `<#this> <${ns.dct}title> "t" .` });
  assert.equal(res.status, 201, `PUT ${path}: ${res.body}`);
}

/** A valid write of `method`, with an optional precondition. */
function write(method: string, ifMatch?: string): Omit<RequestOptions, 'as'> {
  const precondition: Record<string, string> = ifMatch ? { 'If-Match': ifMatch } : {};
  if (method === 'PUT' || method === 'POST') return { headers: { ...turtle, ...precondition }, body: `<#this> <${ns.dct}title> "changed" .` };
  if (method === 'PATCH') return { headers: { ...SPARQL_UPDATE, ...precondition }, body: `INSERT { <#this> <${ns.dct}title> "changed" } WHERE {}` };
  return { headers: precondition };
}

function lsTree(repo: string, ...paths: string[]): string[] {
  return git(repo, '-c', 'core.quotePath=false', 'ls-tree', '-r', '--name-only', 'HEAD', '--', ...paths).split('\n').filter(Boolean);
}

describe('SPEC §7.1: the root document cannot be deleted', () => {
  it('answers 405 with an Allow header without DELETE, with or without a precondition, and HEAD did not move', async () => {
    const before = headOf(dir);
    for (const options of [write('DELETE'), write('DELETE', await etagOf('/'))]) {
      const res = await s.request('DELETE', '/', options);
      assertRdfError(res, 405);
      const allow = methodsOf(header(res, 'allow'));
      assert.ok(allow.includes('GET'), `Allow: ${header(res, 'allow')}`);
      assert.ok(!allow.includes('DELETE'), `Allow: ${header(res, 'allow')}`);
    }
    assert.equal(headOf(dir), before, 'HEAD did not move');
    assert.deepEqual(lsTree(dir, 'graphs/root.nt'), ['graphs/root.nt']);
  });
});

describe('SPEC §7.2: the owner’s and secretary’s agent documents cannot be modified or deleted', () => {
  for (const agent of ['owner', 'secretary'] as const) {
    it(`answers 405 with Allow to PUT, POST, PATCH and DELETE of the ${agent}’s document, and nothing is committed in the admin repository`, async () => {
      const path = `/admin/${s.running.agents[agent].documentPath}`;
      const file = `graphs/${s.running.agents[agent].documentPath.slice(0, -1)}.nt`;
      const stored = git(adminDir, 'cat-file', 'blob', `HEAD:${file}`);
      const before = headOf(adminDir);
      const count = commitCount(adminDir);
      const tag = await etagOf(path);
      for (const method of WRITE_METHODS) {
        // the owner may write everything and the secretary its own document: both meet the constraint
        for (const as of agent === 'owner' ? (['owner'] as const) : (['owner', 'secretary'] as const)) {
          for (const options of [write(method, tag), write(method)]) {
            const res = await s.request(method, path, { ...options, as });
            assertRdfError(res, 405);
            const allow = methodsOf(header(res, 'allow'));
            assert.ok(allow.includes('GET'), `Allow: ${header(res, 'allow')}`);
            for (const refused of WRITE_METHODS) assert.ok(!allow.includes(refused), `Allow: ${header(res, 'allow')} lists ${refused}`);
          }
        }
      }
      if (agent === 'owner') assertRdfError(await s.request('PUT', path, { ...write('PUT', tag), as: 'secretary' }), 403); // not authorized at all
      assert.equal(headOf(adminDir), before, 'HEAD of the admin repository did not move');
      assert.equal(commitCount(adminDir), count);
      assert.equal(git(adminDir, 'cat-file', 'blob', `HEAD:${file}`), stored);
      assert.equal(await etagOf(path), tag);
    });
  }
});

describe('SPEC §2.1, §7.3: a document is created only in an existing container', () => {
  it('answers 422 naming the missing parent, and creates nothing', async () => {
    const before = headOf(dir);
    const res = await s.request('PUT', '/missing/child/', { headers: turtle, body: '' });
    const title = assertRdfError(res, 422);
    assert.ok(title.includes(`${s.base}missing/`), `the error names the missing parent: ${title}`);
    assert.equal(headOf(dir), before, 'HEAD did not move');
    assert.deepEqual(lsTree(dir, 'graphs/missing', 'graphs/missing.nt'), []);
    assert.equal((await s.request('GET', '/missing/child/')).status, 404);
  });

  it('answers 422 to a child of an item (not a container), and creates nothing', async () => {
    await create('/an-item/');
    const before = headOf(dir);
    const res = await s.request('PUT', '/an-item/child/', { headers: turtle, body: '' });
    const title = assertRdfError(res, 422);
    assert.ok(title.includes(`${s.base}an-item/`), `the error names the parent: ${title}`);
    assert.equal(headOf(dir), before, 'HEAD did not move');
    assert.deepEqual(lsTree(dir, 'graphs/an-item'), []);
  });

  it('accepts a child of a container (201)', async () => {
    await create('/a-container/', true);
    const res = await s.request('PUT', '/a-container/child/', { headers: turtle, body: '' });
    assert.equal(res.status, 201, res.body);
    assert.deepEqual(lsTree(dir, 'graphs/a-container'), ['graphs/a-container/child.nt']);
  });
});

describe('deleting a container that still has children', () => {
  it('answers 409 and changes nothing; deleting the child and then the container works', async () => {
    await create('/parent/', true);
    await create('/parent/kid/');
    const before = headOf(dir);
    const conflict = await s.request('DELETE', '/parent/', { headers: { 'If-Match': await etagOf('/parent/') } });
    assertRdfError(conflict, 409);
    assert.equal(headOf(dir), before, 'HEAD did not move');
    assert.deepEqual(lsTree(dir, 'graphs/parent.nt', 'graphs/parent'), ['graphs/parent.nt', 'graphs/parent/kid.nt']);

    const count = commitCount(dir);
    const kid = await s.request('DELETE', '/parent/kid/', { headers: { 'If-Match': await etagOf('/parent/kid/') } });
    assert.equal(kid.status, 204, kid.body);
    assert.deepEqual(lsTree(dir, 'graphs/parent.nt', 'graphs/parent'), ['graphs/parent.nt']);
    const parent = await s.request('DELETE', '/parent/', { headers: { 'If-Match': await etagOf('/parent/') } });
    assert.equal(parent.status, 204, parent.body);
    assert.deepEqual(lsTree(dir, 'graphs/parent.nt', 'graphs/parent'), []);
    assert.equal(commitCount(dir), count + 2, 'one commit per delete');
    assert.equal((await s.request('GET', '/parent/')).status, 404);
    assert.equal((await s.request('GET', '/parent/kid/')).status, 404);
  });
});

describe('SPEC §7: missing documents', () => {
  it('answers 404 to GET, DELETE, POST and PATCH of a missing document, and commits nothing', async () => {
    const before = headOf(dir);
    for (const method of ['GET', 'DELETE', 'POST', 'PATCH']) {
      const res = await s.request(method, '/nowhere/', write(method));
      assertRdfError(res, 404);
    }
    for (const method of ['DELETE', 'POST', 'PATCH']) {
      const res = await s.request(method, '/nowhere/', write(method, '"some-etag"'));
      assertRdfError(res, 404);
    }
    assert.equal(headOf(dir), before, 'HEAD did not move');
    assert.deepEqual(lsTree(dir, 'graphs/nowhere.nt'), []);
  });
});

describe('SPEC §4.1: trailing slashes are enforced with 308', () => {
  it('redirects GET, HEAD, PUT, POST, PATCH and DELETE to the slashed URL, keeping the query string, and commits nothing', async () => {
    await create('/slashed/', true);
    const before = headOf(dir);
    for (const method of ['GET', 'HEAD', ...WRITE_METHODS]) {
      for (const [path, target] of [
        ['/slashed?x=1&y=a%20b', `${s.base}slashed/?x=1&y=a%20b`],
        ['/slashed/deeper', `${s.base}slashed/deeper/`],
        ['/absent', `${s.base}absent/`],
      ] as const) {
        const res = await s.request(method, path, write(method));
        assert.equal(res.status, 308, `${method} ${path}: ${res.body}`);
        assert.equal(header(res, 'location'), target, `${method} ${path}`);
      }
    }
    assert.equal(headOf(dir), before, 'HEAD did not move');
    assert.deepEqual(lsTree(dir, 'graphs/absent.nt', 'graphs/slashed'), []);
  });

  it('redirects the admin dataspace base without its slash', async () => {
    const res = await s.request('GET', '/admin');
    assert.equal(res.status, 308);
    assert.equal(header(res, 'location'), s.admin);
  });
});

describe('malformed document URIs (DESIGN.md, "Document ↔ file")', () => {
  const malformed = [
    '/a//b/', // empty segment
    '//a/', // empty first segment
    '/%ZZ/', // malformed percent-encoding
    '/a%/',
    '/%C0%AF/', // not UTF-8
    '/%ED%A0%80/', // a lone surrogate
    '/.git/', // the repository itself
    '/.GIT/',
    '/a/.git/',
    '/%2Egit/',
    '/a/%2E%2E/', // dot segments, sent raw
    '/a/../',
    '/a/./',
    '/%2E/',
    '/a%00b/', // control characters
    '/a%0Ab/',
    '/a%7F/',
    `/${'x'.repeat(300)}/`, // longer than a file name may be
  ];

  it('answers 400 to GET and PUT of each, and commits nothing', async () => {
    const before = headOf(dir);
    for (const path of malformed) {
      for (const method of ['GET', 'PUT']) {
        const res = await rawRequest(method, path, method === 'PUT' ? { headers: turtle, body: '' } : {});
        assertRdfError(res, 400);
      }
    }
    assert.equal(headOf(dir), before, 'HEAD did not move');
  });

  it('answers 400 to a // path in the admin dataspace too', async () => {
    const before = headOf(adminDir);
    const res = await s.request('PUT', '/admin/acl//x/', { headers: turtle, body: '' });
    assertRdfError(res, 400);
    assert.equal(headOf(adminDir), before);
  });

  it('still accepts percent-encoded characters that make a safe name, and maps them to one file', async () => {
    const res = await rawRequest('PUT', '/caf%C3%A9%20au%20lait/', { headers: turtle, body: '' });
    assert.equal(res.status, 201, res.body);
    assert.deepEqual(lsTree(dir, 'graphs/café au lait.nt'), ['graphs/café au lait.nt']);
  });
});

describe('indirect graph identification (DESIGN.md) is not supported', () => {
  it('answers 400 to ?graph=<uri> on GET, PUT, POST and DELETE, telling the client to use the graph’s URL, and commits nothing', async () => {
    await create('/direct/');
    const before = headOf(dir);
    const graph = encodeURIComponent(`${s.base}direct/`);
    for (const method of ['GET', 'PUT', 'POST', 'DELETE']) {
      for (const path of [`/?graph=${graph}`, `/direct/?graph=${graph}`]) {
        const res = await s.request(method, path, write(method, await etagOf('/direct/')));
        const title = assertRdfError(res, 400);
        assert.match(title, /graph/i, title);
      }
    }
    assert.equal(headOf(dir), before, 'HEAD did not move');
  });
});

describe('anonymous agents may read but not write (until access control lands)', () => {
  it('answers 403 with the RDF body to anonymous PUT, POST, PATCH and DELETE, and commits nothing', async () => {
    await create('/guarded/');
    const before = headOf(dir);
    const tag = await etagOf('/guarded/');
    for (const method of WRITE_METHODS) {
      for (const path of ['/guarded/', '/anonymous-new/']) {
        const res = await s.request(method, path, { ...write(method, path === '/guarded/' ? tag : undefined), as: 'anonymous' });
        assertRdfError(res, 403);
      }
    }
    assert.equal(headOf(dir), before, 'HEAD did not move');
    assert.deepEqual(lsTree(dir, 'graphs/anonymous-new.nt'), []);
  });
});

describe('DESIGN.md "Dataspaces": an unknown host', () => {
  it('answers 404 with an RDF error body', async () => {
    const res = await s.request('GET', '/', { headers: { Host: 'unknown.example' } });
    assertRdfError(res, 404);
  });
});

describe('OPTIONS, CORS and unknown methods', () => {
  it('OPTIONS on a document lists Allow, Accept-Post and Accept-Patch', async () => {
    await create('/options/');
    const res = await s.request('OPTIONS', '/options/');
    assert.ok(res.status === 200 || res.status === 204, String(res.status));
    const allow = methodsOf(header(res, 'allow'));
    for (const method of ['GET', 'HEAD', 'PUT', 'POST', 'PATCH', 'DELETE', 'OPTIONS']) assert.ok(allow.includes(method), `Allow: ${header(res, 'allow')}`);
    const acceptPost = (header(res, 'accept-post') ?? '').split(',').map((t) => t.trim());
    for (const type of READABLE) assert.ok(acceptPost.includes(type), `Accept-Post: ${header(res, 'accept-post')}`);
    assert.equal(header(res, 'accept-patch'), 'application/sparql-update');
  });

  it('answers a cross-origin request with Access-Control-Allow-Origin and exposes ETag and Location; credentials only for trusted origins (test/http-origins.test.ts)', async () => {
    const origin = { Origin: 'https://example.org' };
    const got = await s.request('GET', '/options/', { headers: origin });
    assertRdfError(got, 403); // the owner's certificate, from an origin not trusted: anonymous, who may not read it
    assert.equal(header(got, 'access-control-allow-origin'), '*', 'an origin not trusted: any page may read what anonymous may');
    assert.equal(header(got, 'access-control-allow-credentials'), undefined);
    const exposed = (header(got, 'access-control-expose-headers') ?? '').toLowerCase().split(',').map((h) => h.trim());
    for (const name of ['etag', 'location', 'allow']) assert.ok(exposed.includes(name), `Access-Control-Expose-Headers: ${header(got, 'access-control-expose-headers')}`);

    // from an origin not trusted, the owner's certificate does not count: the PUT is anonymous's, refused
    const before = headOf(dir);
    const refused = await s.request('PUT', '/cors-created/', { headers: { ...origin, ...turtle }, body: '' });
    assertRdfError(refused, 403);
    assert.equal(header(refused, 'access-control-allow-origin'), '*', 'errors keep the CORS headers');
    assert.equal(headOf(dir), before);

    const own = { Origin: new URL(s.base).origin };
    const created = await s.request('PUT', '/cors-created/', { headers: { ...own, ...turtle }, body: '' });
    assert.equal(created.status, 201, created.body);
    assert.equal(header(created, 'access-control-allow-origin'), own.Origin);
    assert.equal(header(created, 'access-control-allow-credentials'), 'true');
    assert.equal(header(created, 'location'), `${s.base}cors-created/`);
    const again = await s.request('PUT', '/cors-created/', { headers: { ...own, ...turtle }, body: '' });
    assertRdfError(again, 428);
    assert.equal(header(again, 'access-control-allow-origin'), own.Origin, 'errors keep the CORS headers');
  });

  it('answers a CORS preflight for a conditional PUT (without credentials for an origin not trusted)', async () => {
    const res = await s.request('OPTIONS', '/options/', {
      headers: { Origin: 'https://example.org', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'if-match, content-type' },
    });
    assert.ok(res.status === 200 || res.status === 204, String(res.status));
    assert.equal(header(res, 'access-control-allow-origin'), '*');
    assert.equal(header(res, 'access-control-allow-credentials'), undefined);
    assert.ok(methodsOf(header(res, 'access-control-allow-methods')).includes('PUT'), header(res, 'access-control-allow-methods'));
    assert.match(header(res, 'access-control-allow-headers') ?? '', /if-match/i);
  });

  it('answers 405 with Allow to an unsupported method, and commits nothing', async () => {
    const before = headOf(dir);
    for (const method of ['PROPFIND', 'MKCOL', 'COPY']) {
      const res = await s.request(method, '/options/');
      assertRdfError(res, 405);
      const allow = methodsOf(header(res, 'allow'));
      for (const m of ['GET', 'PUT', 'POST', 'PATCH', 'DELETE']) assert.ok(allow.includes(m), `${method}: Allow: ${header(res, 'allow')}`);
      assert.ok(!allow.includes(method));
    }
    assert.equal(headOf(dir), before);
  });
});

describe('SPEC §7: errors are RDF in the requested format (SPEC §2.4)', () => {
  it('serialises an error as N-Triples when asked', async () => {
    const res = await s.request('GET', '/nowhere/', { headers: { Accept: 'application/n-triples' } });
    assertRdfError(res, 404, { format: 'application/n-triples' });
  });

  it('falls back to Turtle when the Accept is not an RDF type (406 for a document)', async () => {
    await create('/negotiated/');
    const res = await s.request('GET', '/negotiated/', { headers: { Accept: 'image/png' } });
    assertRdfError(res, 406);
  });

  for (const format of ['application/rdf+xml', 'application/ld+json']) {
    it(`keeps http:statusCodeValue an xsd:long in ${format}`, async () => {
      const res = await s.request('GET', '/nowhere/', { headers: { Accept: format } });
      assertRdfError(res, 404, { format });
    });
  }
});
