/**
 * HTTP compression (issue 28; src/http/compression.ts): pages, static scripts, RDF and SPARQL results
 * decode to the identity bytes in gzip and Brotli; Accept-Encoding's q-values; Vary kept and merged;
 * an ETag per encoded variant, its 304 and a write's If-Match taking it; HEAD as GET; small bodies
 * and another site's credentialed navigations go uncompressed; a huge body is streamed. Chromium
 * getting pages and scripts compressed is test/system/http-compression-page.test.ts.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createServer, request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Koa from 'koa';
import { Compressor } from '../src/http/compression.js';
import { ns } from '../src/rdf/namespaces.js';
import { collect, header, putTurtle, startServer, turtle, type TestServer } from './http-helpers.js';
import { removeTempDirs, tempDir } from './helpers.js';

const EX = 'https://example.org/ns#';

let s: TestServer;
before(async () => {
  s = await startServer([], tempDir('compression'));
  const lines = Array.from({ length: 80 }, (_, i) => `<#item-${i}> <${ns.dct}title> "Item number ${i} of the long document" ; <${EX}rank> ${i} .`);
  await putTurtle(s, 'long/', `<#this> <${ns.dct}title> "A long document" .\n${lines.join('\n')}`);
  await putTurtle(s, 'short/', `<#this> <${ns.dct}title> "Short" .`);
});
after(async () => {
  await s?.close();
  removeTempDirs();
});

const decode = { gzip: gunzipSync, br: brotliDecompressSync } as const;

/** The identity bytes of `path` and its gzip and br answers, which must decode to them. */
async function roundTrip(path: string, accept?: string): Promise<void> {
  const base: Record<string, string> = accept ? { Accept: accept } : {};
  const plain = await s.requestBytes('GET', path, { headers: base });
  assert.equal(plain.status, 200, plain.body);
  assert.equal(header(plain, 'content-encoding'), undefined);
  assert.ok(plain.bytes.length >= 1024, `${path} is large enough to compress (${plain.bytes.length})`);
  for (const coding of ['gzip', 'br'] as const) {
    const res = await s.requestBytes('GET', path, { headers: { ...base, 'Accept-Encoding': coding } });
    assert.equal(res.status, 200);
    assert.equal(header(res, 'content-encoding'), coding, `${path} in ${coding}`);
    assert.equal(Number(header(res, 'content-length') ?? res.bytes.length), res.bytes.length);
    assert.ok(res.bytes.length < plain.bytes.length, 'smaller than identity');
    assert.ok(decode[coding](res.bytes).equals(plain.bytes), `${path} in ${coding} decodes to the identity bytes`);
    assert.match(header(res, 'vary')!, /Accept-Encoding/);
    assert.equal(header(res, 'content-type'), header(plain, 'content-type'));
  }
}

describe('compressed answers decode to the identity bytes', () => {
  it('a page, a static script, a Turtle document and SPARQL JSON results, in gzip and br', async () => {
    const page = await s.request('GET', 'long/', { headers: { Accept: 'text/html' } });
    await roundTrip('long/', 'text/html');
    const script = /src="([^"]+\/static\/lodestone\.[0-9a-f]+\.js)"/.exec(page.body)![1]!;
    await roundTrip(new URL(script).pathname);
    await roundTrip('long/', 'text/turtle');
    await roundTrip(`sparql?${new URLSearchParams({ query: `SELECT ?s ?t WHERE { GRAPH ?g { ?s <${ns.dct}title> ?t } } ORDER BY ?s` })}`, 'application/sparql-results+json');
  });

  it('a huge body is streamed (chunked, no length) and decodes whole', async () => {
    const app = new Koa();
    app.use(new Compressor().middleware());
    const big = Buffer.from('<a> <b> "some text to squeeze" .\n'.repeat(70_000)); // over 2 MB
    app.use((ctx) => {
      ctx.type = 'application/n-triples';
      ctx.body = big;
    });
    const server = createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await new Promise<Awaited<ReturnType<typeof collect>>>((resolve, reject) => {
        httpRequest({ port, host: '127.0.0.1', headers: { 'Accept-Encoding': 'gzip' } }, (r) => collect(r).then(resolve, reject)).on('error', reject).end();
      });
      assert.equal(header(res, 'content-encoding'), 'gzip');
      assert.equal(header(res, 'content-length'), undefined);
      assert.equal(header(res, 'transfer-encoding'), 'chunked');
      assert.ok(gunzipSync(res.bytes).equals(big));
    } finally {
      server.close();
    }
  });
});

describe('liveness', () => {
  it('while huge bodies are compressed for clients that read slowly, another GET is answered within 1 s', async () => {
    const app = new Koa();
    app.use(new Compressor().middleware());
    const big = Buffer.from(Array.from({ length: 400_000 }, (_, i) => `<https://example.org/s${i}> <https://example.org/p> "${(i * 7919) % 100_003} ${i}" .\n`).join('')); // ~30 MB
    const small = Buffer.from('<a> <b> "c" .\n'.repeat(200));
    app.use((ctx) => {
      ctx.type = 'application/n-triples';
      ctx.body = ctx.path === '/big' ? big : small;
    });
    const server = createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const slow: ReturnType<typeof httpRequest>[] = [];
    try {
      for (const coding of ['gzip', 'br', 'gzip', 'br']) {
        const req = httpRequest({ port, host: '127.0.0.1', path: '/big', headers: { 'Accept-Encoding': coding } }, (res) => res.pause()); // reads nothing
        req.on('error', () => undefined);
        req.end();
        slow.push(req);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        const res = await new Promise<Awaited<ReturnType<typeof collect>>>((resolve, reject) => {
          httpRequest({ port, host: '127.0.0.1', path: '/small', headers: { 'Accept-Encoding': 'gzip' } }, (r) => collect(r).then(resolve, reject)).on('error', reject).end();
        });
        assert.equal(res.status, 200);
        assert.ok(gunzipSync(res.bytes).equals(small));
        assert.ok(performance.now() - started < 1000, `a small GET took ${Math.round(performance.now() - started)} ms beside the huge ones`);
      }
    } finally {
      for (const req of slow) req.destroy();
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('RFC 9110 §12.5.3: Accept-Encoding', () => {
  const codingFor = async (acceptEncoding: string) => header(await s.request('GET', 'long/', { headers: { Accept: 'text/turtle', 'Accept-Encoding': acceptEncoding } }), 'content-encoding') ?? 'identity';

  it('prefers Brotli when as acceptable as gzip, follows q-values and *', async () => {
    assert.equal(await codingFor('gzip, deflate, br'), 'br');
    assert.equal(await codingFor('br;q=0.5, gzip'), 'gzip');
    assert.equal(await codingFor('*'), 'br');
    assert.equal(await codingFor('gzip;q=0, *'), 'br');
    assert.equal(await codingFor('br;q=0, *'), 'gzip');
    assert.equal(await codingFor('deflate'), 'identity');
    assert.equal(await codingFor(''), 'identity');
  });

  it('identity;q=0 with nothing else acceptable: the field is disregarded (RFC 9110 §12.1), identity, not 406', async () => {
    for (const refusal of ['identity;q=0', 'deflate, identity;q=0', '*;q=0']) {
      const res = await s.request('GET', 'long/', { headers: { Accept: 'text/turtle', 'Accept-Encoding': refusal } });
      assert.equal(res.status, 200);
      assert.equal(header(res, 'content-encoding'), undefined, refusal);
    }
  });

  it('Vary keeps Accept and Origin and adds Accept-Encoding, on identity answers too; a small body is not compressed', async () => {
    for (const acceptEncoding of [undefined, 'gzip']) {
      const res = await s.request('GET', 'short/', { headers: { Accept: 'text/turtle', ...(acceptEncoding && { 'Accept-Encoding': acceptEncoding }) } });
      assert.equal(res.status, 200);
      assert.equal(header(res, 'content-encoding'), undefined, 'a body under 1 KiB goes as it is');
      const vary = header(res, 'vary')!.split(',').map((v) => v.trim());
      for (const field of ['Accept', 'Accept-Encoding', 'Origin']) assert.ok(vary.includes(field), `Vary ${vary.join(', ')} has ${field}`);
    }
  });
});

describe('RFC 9110 §8.8.3: an ETag per encoded variant', () => {
  const get = (path: string, headers: Record<string, string>) => s.request('GET', path, { headers: { Accept: 'text/turtle', ...headers } });

  it('each variant has its own ETag, and If-None-Match answers 304 for the matching variant only', async () => {
    const identity = header(await get('long/', {}), 'etag')!;
    const gzip = header(await get('long/', { 'Accept-Encoding': 'gzip' }), 'etag')!;
    const br = header(await get('long/', { 'Accept-Encoding': 'br' }), 'etag')!;
    assert.equal(gzip, identity.slice(0, -1) + '-gzip"');
    assert.equal(br, identity.slice(0, -1) + '-br"');
    const notModified = await get('long/', { 'Accept-Encoding': 'gzip', 'If-None-Match': gzip });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.body, '');
    assert.equal(header(notModified, 'etag'), gzip);
    assert.match(header(notModified, 'vary')!, /Accept-Encoding/);
    const otherVariant = await get('long/', { 'Accept-Encoding': 'gzip', 'If-None-Match': br });
    assert.equal(otherVariant.status, 200, 'the br variant is not the one a gzip-only request gets');
    assert.equal(header(otherVariant, 'etag'), gzip);
    assert.equal((await get('long/', { 'Accept-Encoding': 'br', 'If-None-Match': br })).status, 304);
    for (let i = 0; i < 2; i++) {
      const identity304 = await get('long/', { 'If-None-Match': identity }); // the read fast path's, once it knows the answer
      assert.equal(identity304.status, 304);
      assert.match(header(identity304, 'vary')!, /Accept-Encoding/, 'a 304 varies as its 200 would');
    }
    assert.equal((await get('long/', { 'If-None-Match': gzip })).status, 200, 'no Accept-Encoding: identity, which the gzip ETag does not name');
    assert.equal((await get('long/', { 'Accept-Encoding': 'gzip', 'If-Match': gzip })).status, 200, 'If-Match on GET takes the variant');
  });

  it('pages: the variant ETag and its 304', async () => {
    const page = await s.request('GET', 'long/', { headers: { Accept: 'text/html', 'Accept-Encoding': 'br' } });
    const tag = header(page, 'etag')!;
    assert.match(tag, /-br"$/);
    assert.equal((await s.request('GET', 'long/', { headers: { Accept: 'text/html', 'Accept-Encoding': 'br', 'If-None-Match': tag } })).status, 304);
  });

  it('a write with If-Match holding the ETag of a compressed GET succeeds (the same content); a stale one is 412', async () => {
    const notes = Array.from({ length: 40 }, (_, i) => `<#n${i}> <${ns.dct}title> "note ${i} with enough text to pass a kilobyte" .`).join('\n');
    await putTurtle(s, 'edited/', `<#this> <${ns.dct}title> "Edited" .\n${notes}`);
    const gzip = header(await get('edited/', { 'Accept-Encoding': 'gzip' }), 'etag')!;
    assert.match(gzip, /-gzip"$/);
    const put = await s.request('PUT', 'edited/', { headers: { ...turtle, 'If-Match': gzip }, body: `<#this> <${ns.dct}title> "Edited again" .\n${notes}` });
    assert.equal(put.status, 200, put.body);
    const br = header(await get('edited/', { 'Accept-Encoding': 'br' }), 'etag')!;
    assert.match(br, /-br"$/);
    const patch = await s.request('PATCH', 'edited/', { headers: { 'Content-Type': 'application/sparql-update', 'If-Match': br }, body: `INSERT { <#this> <${ns.dct}description> "patched" } WHERE {}` });
    assert.equal(patch.status, 204, patch.body);
    const stale = await s.request('PUT', 'edited/', { headers: { ...turtle, 'If-Match': gzip }, body: `<#this> <${ns.dct}title> "lost" .` });
    assert.equal(stale.status, 412);
    assert.match(stale.body, /changed since/);
  });

  it('the read fast path sends the encoding Koa made: the same headers and bytes, GET and HEAD', async () => {
    await putTurtle(s, 'repeated/', `<#this> <${ns.dct}title> "Repeated" .\n${Array.from({ length: 40 }, (_, i) => `<#n${i}> <${ns.dct}title> "a note of the repeated document, number ${i}" .`).join('\n')}`);
    for (const coding of ['gzip', 'br'] as const) {
      const headers = { Accept: 'text/turtle', 'Accept-Encoding': coding };
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await s.requestBytes('GET', 'repeated/', { headers })); // Koa, then the fast path
      const head = await s.request('HEAD', 'repeated/', { headers });
      for (const res of [...answers, head]) {
        for (const name of ['content-encoding', 'etag', 'content-length', 'vary', 'content-type', 'cache-control']) assert.equal(header(res, name), header(answers[0]!, name), `${coding}: ${name}`);
      }
      for (const res of answers) assert.ok(res.bytes.equals(answers[0]!.bytes));
      assert.equal(header(answers[0]!, 'content-encoding'), coding);
    }
  });

  it('HEAD answers the headers GET does', async () => {
    for (const accept of ['text/turtle', 'text/html']) {
      const headers = { Accept: accept, 'Accept-Encoding': 'gzip' };
      const got = await s.request('GET', 'long/', { headers });
      const head = await s.request('HEAD', 'long/', { headers });
      for (const name of ['content-encoding', 'etag', 'content-length', 'vary', 'content-type']) assert.equal(header(head, name), header(got, name), `${accept}: ${name}`);
      assert.equal(head.body, '');
    }
  });
});

describe('BREACH (docs/security.md, "Compression")', () => {
  it("another site's credentialed navigation is answered uncompressed; the site's own requests compressed", async () => {
    const navigation = { Accept: 'text/html', 'Accept-Encoding': 'gzip, br', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' };
    const crossSite = await s.request('GET', 'long/', { headers: { ...navigation, 'Sec-Fetch-Site': 'cross-site' } });
    assert.equal(crossSite.status, 200);
    assert.equal(header(crossSite, 'content-encoding'), undefined);
    const own = await s.request('GET', 'long/', { headers: { ...navigation, 'Sec-Fetch-Site': 'same-origin' } });
    assert.equal(header(own, 'content-encoding'), 'br');
  });
});

describe('error bodies', () => {
  it('an error page of 1 KiB or more is compressed too, and decodes to the identity bytes', async () => {
    const headers = { Accept: 'text/html' };
    const plain = await s.requestBytes('GET', 'nothing-here/', { headers });
    assert.equal(plain.status, 404);
    const encoded = await s.requestBytes('GET', 'nothing-here/', { headers: { ...headers, 'Accept-Encoding': 'gzip' } });
    assert.equal(encoded.status, 404);
    assert.equal(header(encoded, 'content-encoding'), 'gzip');
    assert.ok(gunzipSync(encoded.bytes).equals(plain.bytes));
  });
});
