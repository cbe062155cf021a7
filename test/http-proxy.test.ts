/**
 * The Linked Data proxy (SPEC §4.5), reads: `?uri=` of the dataspace's own documents answered as
 * a direct request would be (its access control, its 404, its writes in git), and of origins on
 * loopback (the server runs with --allow-internal-urls): RDF in every format Lodestone reads,
 * re-serialised in every format it writes (the origin's bytes as they came when they are already
 * what was asked for); ETag, Last-Modified and Link (sd:endpoint) forwarded; the client's Accept and
 * preconditions sent on unchanged; the origin's error statuses and bodies passed through; bad
 * URLs, a body past 2 MiB, an origin that does not answer, a non-RDF answer each refused with the
 * RDF error body.
 */
import assert from 'node:assert/strict';
import type { Quad } from '@rdfjs/types';
import { after, before, describe, it } from 'node:test';
import oxigraph from 'oxigraph';
import { ns } from '../src/rdf/namespaces.js';
import { writableTypes } from '../src/rdf/formats.js';
import { git, removeTempDirs, tempDir } from './helpers.js';
import { assertRdfError, freePort, header, startServer, turtle, type Response, type TestServer } from './http-helpers.js';
import { Origin, type Reply } from './origin-server.js';

after(removeTempDirs);

const dct = ns.dct;
const EX = 'http://example.org/';
const proxied = (url: string, extra = '') => `/?uri=${encodeURIComponent(url)}${extra}`;

/** The triples of an RDF response as sorted N-Triples lines (text/plain read as N-Triples; graphs dropped). */
function triplesOf(res: Response, base: string): string[] {
  const type = (header(res, 'content-type') ?? '').split(';')[0]!.trim();
  const format = type === 'text/plain' ? 'application/n-triples' : type;
  const quads = oxigraph.parse(res.body, { format, base_iri: base }) as unknown as Quad[];
  return [...new Set(quads.map((q) => oxigraph.triple(q.subject as oxigraph.Quad['subject'], q.predicate as oxigraph.Quad['predicate'], q.object as oxigraph.Quad['object']).toString()))].sort();
}

/** One graph in each RDF format Lodestone reads, relative IRIs against the document's URL. */
function book(url: string): Record<string, string> {
  const triples = `<${url}#this> <${dct}title> "Le Petit Prince"@fr .\n<${url}#this> <${dct}creator> <${EX}people/saint-exupery> .\n<${url}#this> <${EX}pages> "96"^^<${ns.xsd}integer> .\n`;
  return {
    'text/turtle': `@prefix dct: <${dct}> .\n<#this> dct:title "Le Petit Prince"@fr ; dct:creator <${EX}people/saint-exupery> ; <${EX}pages> 96 .\n`,
    'application/n-triples': triples,
    'application/rdf+xml': `<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="${ns.rdf}" xmlns:dct="${dct}" xmlns:ex="${EX}">\n<rdf:Description rdf:about="#this"><dct:title xml:lang="fr">Le Petit Prince</dct:title><dct:creator rdf:resource="${EX}people/saint-exupery"/><ex:pages rdf:datatype="${ns.xsd}integer">96</ex:pages></rdf:Description>\n</rdf:RDF>\n`,
    'application/ld+json': JSON.stringify({ '@context': { dct, ex: EX }, '@id': '#this', 'dct:title': { '@value': 'Le Petit Prince', '@language': 'fr' }, 'dct:creator': { '@id': `${EX}people/saint-exupery` }, 'ex:pages': 96 }),
    // a dataset: the proxy reads its graphs as one
    'application/n-quads': triples.replace(/ \.\n/g, ` <${EX}graph> .\n`),
    'application/trig': `@prefix dct: <${dct}> .\n<${EX}graph> { <#this> dct:title "Le Petit Prince"@fr ; dct:creator <${EX}people/saint-exupery> }\n<#this> <${EX}pages> 96 .\n`,
  };
}

describe('the Linked Data proxy: reads', () => {
  let s: TestServer;
  const origin = new Origin();
  let expected: string[];

  before(async () => {
    await origin.listen();
    s = await startServer(['--allow-internal-urls'], tempDir('proxy'), () => undefined, { limits: { timeoutMs: 2_000 } });
    for (const [type, text] of Object.entries(book(origin.url('/book')))) origin.on(`/book.${type.split('/')[1]}`, { headers: { 'Content-Type': type }, body: text.replaceAll('<#this>', `<${origin.url('/book')}#this>`).replace('rdf:about="#this"', `rdf:about="${origin.url('/book')}#this"`).replace('"@id":"#this"', `"@id":"${origin.url('/book')}#this"`) });
    origin.on('/book', { headers: { 'Content-Type': 'text/turtle; charset=utf-8' }, body: book(origin.url('/book'))['text/turtle'] });
    expected = triplesOf({ status: 200, headers: { 'content-type': 'application/n-triples' }, body: book(origin.url('/book'))['application/n-triples']! }, origin.url('/book'));
  });
  after(async () => {
    await s?.close();
    await origin.close();
  });

  describe('URLs of the dataspace itself', () => {
    before(async () => {
      assert.equal((await s.request('PUT', '/local/', { headers: turtle, body: `<#this> <${dct}title> "Local" .` })).status, 201);
    });

    it('answers as a direct request would: the same body and ETag, the same 404, the same 403', async () => {
      for (const accept of ['text/turtle', 'application/n-triples', 'application/ld+json']) {
        const direct = await s.request('GET', '/local/', { headers: { Accept: accept } });
        const through = await s.request('GET', proxied(`${s.base}local/`), { headers: { Accept: accept } });
        assert.equal(through.status, 200, through.body);
        assert.equal(through.body, direct.body, accept);
        assert.equal(header(through, 'etag'), header(direct, 'etag'));
        assert.equal(header(through, 'content-type'), header(direct, 'content-type'));
      }
      const viaQuery = await s.request('GET', proxied(`${s.base}local/`, '&accept=application%2Fn-triples'));
      assert.equal(header(viaQuery, 'content-type'), 'application/n-triples; charset=utf-8', '?accept= still overrides');
      assert.equal((await s.request('GET', proxied(`${s.base}local`))).status, 200, 'a path without its slash is the document it redirects to');
      assertRdfError(await s.request('GET', proxied(`${s.base}nothing-here/`)), 404);
      assertRdfError(await s.request('GET', proxied(`${s.base}local/`), { as: 'anonymous' }), 403);
      // the agent is decided as for a direct request: the owner's certificate from a page of an origin the dataspace does not trust counts for nothing
      const elsewhere = { headers: { Origin: 'https://elsewhere.example' } };
      assertRdfError(await s.request('GET', '/local/', elsewhere), 403);
      assertRdfError(await s.request('GET', proxied(`${s.base}local/`), elsewhere), 403);
      assertRdfError(await s.request('GET', proxied(`${s.base}?uri=${encodeURIComponent(origin.url('/book'))}`)), 400, { title: /itself a proxy request/ });
    });

    it('writes through the document routes, preconditions and git included', async () => {
      const repo = s.running.runtimes[0]!.dataspace.store.dir;
      const created = await s.request('PUT', proxied(`${s.base}written/`), { headers: turtle, body: `<#this> <${dct}title> "Written" .` });
      assert.equal(created.status, 201, created.body);
      assert.equal(header(created, 'location'), `${s.base}written/`);
      assert.match(git(repo, 'show', 'HEAD:graphs/written.nt'), /"Written"/);
      assertRdfError(await s.request('PUT', proxied(`${s.base}written/`), { headers: turtle, body: '' }), 428);
      const etag = String(header(created, 'etag'));
      const patched = await s.request('PATCH', proxied(`${s.base}written/`), { headers: { 'Content-Type': 'application/sparql-update', 'If-Match': etag }, body: `INSERT { <#this> <${dct}description> "patched" } WHERE {}` });
      assert.equal(patched.status, 204, patched.body);
      assert.match(git(repo, 'show', 'HEAD:graphs/written.nt'), /"patched"/);
      assert.equal(git(repo, 'log', '-1', '--format=%s').trim(), `PATCH ${s.base}written/`);
      assertRdfError(await s.request('DELETE', proxied(s.base)), 405);
      assert.equal(header(await s.request('DELETE', proxied(s.base)), 'allow'), header(await s.request('DELETE', '/'), 'allow'), 'the route table’s own Allow');
    });

    it('refuses ?graph= in a URL of the dataspace as a direct request does (DESIGN.md: no indirect graph identification)', async () => {
      const indirect = `${s.base}?graph=${encodeURIComponent(`${s.base}local/`)}`;
      assertRdfError(await s.request('GET', `/?graph=${encodeURIComponent(`${s.base}local/`)}`), 400, { title: /indirect graph identification/ });
      assertRdfError(await s.request('GET', proxied(indirect)), 400, { title: /indirect graph identification/ });
      assertRdfError(await s.request('GET', proxied(`${s.base}local/?graph=x`)), 400, { title: /indirect graph identification/ });
    });
  });

  describe('origins', () => {
    it(`reads RDF in every format and writes it in every format (${writableTypes.join(', ')})`, async () => {
      for (const type of Object.keys(book(''))) {
        const url = origin.url(`/book.${type.split('/')[1]}`);
        for (const accept of writableTypes) {
          const res = await s.request('GET', proxied(url), { headers: { Accept: accept } });
          assert.equal(res.status, 200, `${type} as ${accept}: ${res.body}`);
          assert.equal((header(res, 'content-type') ?? '').split(';')[0], accept);
          assert.deepEqual(triplesOf(res, url), expected, `${type} as ${accept}`);
          assert.equal(header(res, 'vary'), 'Accept, Accept-Encoding, Origin'); // Origin: every answer (http/origins.ts); Accept-Encoding: every compressible one (http/compression.ts)
        }
      }
    });

    it('sends the origin’s bytes as they came when they are what the client asked for, and the ETag, Last-Modified and Link', async () => {
      const link = `<${origin.url('/sparql')}>; rel="${ns.sd}endpoint", <${origin.url('/meta')}>; rel="describedby"`;
      const body = book(origin.url('/tagged'))['text/turtle']!;
      origin.on('/tagged', { headers: { 'Content-Type': 'text/turtle', ETag: '"v1"', 'Last-Modified': 'Tue, 01 Apr 2025 10:00:00 GMT', Link: link }, body });
      const res = await s.request('GET', proxied(origin.url('/tagged')), { headers: { Accept: 'text/turtle' } });
      assert.equal(res.body, body);
      assert.equal(header(res, 'etag'), '"v1"');
      assert.equal(header(res, 'last-modified'), 'Tue, 01 Apr 2025 10:00:00 GMT');
      assert.equal(header(res, 'link'), link, 'Link, sd:endpoint included');
      const head = await s.request('HEAD', proxied(origin.url('/tagged')), { headers: { Accept: 'application/ld+json' } });
      assert.equal(head.status, 200);
      assert.equal(head.body, '');
      assert.equal(header(head, 'content-type'), 'application/ld+json; charset=utf-8', 'HEAD names what GET would send');
      assert.equal(header(head, 'etag'), '"v1"');
    });

    it('sends the client’s Accept and preconditions to the origin unchanged, and passes its 304 and 412 back', async () => {
      origin.on('/conditional', (request): Reply => {
        if (request.headers['if-none-match'] === '"v2"') return { status: 304, headers: { ETag: '"v2"' } };
        if (request.headers['if-match'] && request.headers['if-match'] !== '"v2"') return { status: 412, headers: { 'Content-Type': 'text/plain', ETag: '"v2"' }, body: 'stale validator' };
        return { headers: { 'Content-Type': 'text/turtle', ETag: '"v2"' }, body: '' };
      });
      const accept = 'application/rdf+xml;q=0.9, text/turtle;q=1.0, */*;q=0.1';
      const headers = { Accept: accept, 'If-None-Match': '"v2"', 'If-Modified-Since': 'Tue, 01 Apr 2025 10:00:00 GMT', 'If-Unmodified-Since': 'Wed, 02 Apr 2025 10:00:00 GMT' };
      const notModified = await s.request('GET', proxied(origin.url('/conditional')), { headers });
      assert.equal(notModified.status, 304);
      assert.equal(header(notModified, 'etag'), '"v2"');
      const seen = origin.requests('/conditional').at(-1)!;
      assert.equal(seen.headers.accept, accept);
      assert.equal(seen.headers['if-none-match'], '"v2"');
      assert.equal(seen.headers['if-modified-since'], headers['If-Modified-Since']);
      assert.equal(seen.headers['if-unmodified-since'], headers['If-Unmodified-Since']);
      const failed = await s.request('GET', proxied(origin.url('/conditional')), { headers: { 'If-Match': '"v1"' } });
      assert.equal(failed.status, 412);
      assert.equal(failed.body, 'stale validator');
      assert.equal(header(failed, 'etag'), '"v2"');
    });

    it('an answer it compressed has the variant of the origin’s ETag, and a precondition holding it reaches the origin with the origin’s own', async () => {
      const body = Array.from({ length: 40 }, (_, i) => `<#n${i}> <${dct}title> "a note long enough to be compressed, number ${i}" .`).join('\n');
      origin.on('/large', (request): Reply => {
        if (request.headers['if-none-match']?.split(', ').includes('"v3"')) return { status: 304, headers: { ETag: '"v3"' } };
        return { headers: { 'Content-Type': 'text/turtle', ETag: '"v3"' }, body };
      });
      const first = await s.request('GET', proxied(origin.url('/large')), { headers: { Accept: 'text/turtle', 'Accept-Encoding': 'gzip' } });
      assert.equal(first.status, 200);
      assert.equal(header(first, 'content-encoding'), 'gzip');
      assert.equal(header(first, 'etag'), '"v3-gzip"');
      const again = await s.request('GET', proxied(origin.url('/large')), { headers: { Accept: 'text/turtle', 'Accept-Encoding': 'gzip', 'If-None-Match': '"v3-gzip"' } });
      assert.equal(origin.requests('/large').at(-1)!.headers['if-none-match'], '"v3-gzip", "v3"');
      assert.equal(again.status, 304);
      assert.equal(header(again, 'etag'), '"v3-gzip"');
    });

    it('passes the origin’s error statuses and bodies through, markup as text', async () => {
      const cases = [
        ['/gone', 410, 'text/html', '<h1>Gone</h1><script>alert(1)</script>', 'text/plain; charset=utf-8'],
        ['/svg', 400, 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', 'text/plain; charset=utf-8'],
        ['/missing', 404, 'text/turtle', `[] <${dct}title> "not here" .`, 'text/turtle'],
        ['/broken', 500, 'application/json', '{"error":"boom"}', 'application/json'],
      ] as const;
      for (const [path, status, type, body, served] of cases) {
        origin.on(path, { status, headers: { 'Content-Type': type }, body });
        const res = await s.request('GET', proxied(origin.url(path)), { headers: { Accept: 'application/ld+json' } });
        assert.equal(res.status, status, path);
        assert.equal(header(res, 'content-type'), served, 'another origin’s markup is never served as markup here');
        assert.equal(res.body, body);
        assert.equal(header(res, 'content-security-policy'), 'sandbox', 'another origin’s page never runs as this origin’s');
      }
    });

    it('shows a browser an origin’s error inside Lodestone’s own error page, its body as text, with the origin’s status', async () => {
      const fake = '<!doctype html><title>Log in</title><form action="https://evil.example/steal"><input type="password" name="pw"></form>';
      origin.on('/fake-login', { status: 500, headers: { 'Content-Type': 'text/html' }, body: fake });
      const res = await s.request('GET', proxied(origin.url('/fake-login')), { headers: { Accept: 'text/html' } });
      assert.equal(res.status, 500);
      assert.match(header(res, 'content-type')!, /^text\/html; charset=utf-8$/);
      assert.match(res.body, /<pre class="foreign-body"[^>]*>&lt;!doctype html&gt;&lt;title&gt;Log in/, 'the body is text on the page');
      assert.ok(!res.body.includes('<form action="https://evil.example'), 'none of the origin’s markup');
      assert.ok(!/<input[^>]+password/.test(res.body));
      assert.match(res.body, /<script type="application\/ld\+json" id="error-resource">/, 'the RDF error is embedded, as on any error page');
      assert.match(header(res, 'content-security-policy')!, /script-src 'self'/, 'Lodestone’s own page, under its own policy');
    });

    it('reads an HTML page’s JSON-LD blocks with the page URL as base and the shipped schema.org context, fetching no context', async () => {
      const contexts = await new Origin().listen(); // counts requests for a remote context: there must be none
      contexts.on('/context.jsonld', { headers: { 'Content-Type': 'application/ld+json' }, body: '{"@context":{"name":"http://example.org/name"}}' });
      try {
        const page = `<!DOCTYPE html><html><head><title>Le Petit Prince</title>
          <script type="application/ld+json">{"@context":"https://schema.org","@id":"#book","@type":"Book","name":"Le Petit Prince","author":{"@type":"Person","name":"Antoine de Saint-Exupéry"}}</script>
          <script type="application/ld+json">{"@context":"http://schema.org/","@id":"#book","url":"/books/prince","sameAs":"https://www.wikidata.org/wiki/Q25338"}</script>
          <script type="application/ld+json">{"@context":"${contexts.url('/context.jsonld')}","name":"never read"}</script>
          </head><body><h1>Le Petit Prince</h1></body></html>`;
        origin.on('/page', { headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: page });
        origin.on('/moved', { status: 301, headers: { Location: '/page' } });
        const pageUrl = origin.url('/page');
        const res = await s.request('GET', proxied(origin.url('/moved')), { headers: { Accept: 'application/n-triples' } });
        assert.equal(res.status, 200, res.body);
        assert.equal(header(res, 'content-type'), 'application/n-triples; charset=utf-8');
        const lines = triplesOf(res, pageUrl);
        for (const line of [
          `<${pageUrl}#book> <${ns.rdf}type> <http://schema.org/Book>`,
          `<${pageUrl}#book> <http://schema.org/name> "Le Petit Prince"`,
          `<${pageUrl}#book> <http://schema.org/url> <${origin.url('/books/prince')}>`,
          `<${pageUrl}#book> <http://schema.org/sameAs> <https://www.wikidata.org/wiki/Q25338>`,
        ]) assert.ok(lines.includes(line), `${line}\n${lines.join('\n')}`);
        assert.ok(lines.some((l) => l.endsWith('<http://schema.org/name> "Antoine de Saint-Exupéry"')));
        assert.ok(!res.body.includes('never read'), 'the block with a remote context is left out');
        // a browser gets Lodestone's page of the RDF read from the page's JSON-LD, never the remote page
        const browser = await s.request('GET', proxied(pageUrl), { headers: { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
        assert.equal(header(browser, 'content-type'), 'text/html; charset=utf-8');
        assert.match(browser.body, /Le Petit Prince/);
        assert.ok(!browser.body.includes('never read'), 'nothing of the remote page but its JSON-LD');
        assert.match(header(browser, 'content-security-policy')!, /script-src 'self'/);
        assert.ok(browser.body.includes(`href="${s.base}?uri=${encodeURIComponent(pageUrl)}&amp;accept=text%2Fturtle"`), 'its formats through the proxy');
        // a JSON-LD document naming a remote context: refused, not fetched
        origin.on('/remote-context.jsonld', { headers: { 'Content-Type': 'application/ld+json' }, body: `{"@context":"${contexts.url('/context.jsonld')}","@id":"#x","name":"x"}` });
        assertRdfError(await s.request('GET', proxied(origin.url('/remote-context.jsonld'))), 502, { title: /remote JSON-LD @context/ });
        assert.equal(contexts.seen.length, 0, 'no remote context was requested');
        assert.equal(contexts.connections, 0);
      } finally {
        await contexts.close();
      }
    });

    it('answers 502 with the RDF error body for an HTML page without JSON-LD', async () => {
      origin.on('/plain-page', { headers: { 'Content-Type': 'text/html' }, body: '<html><body><script>var x = 1;</script><p>nothing to read</p></body></html>' });
      assertRdfError(await s.request('GET', proxied(origin.url('/plain-page'))), 502, { title: /has no <script type="application\/ld\+json"> block/ });
    });

    it('refuses what it may not or cannot proxy, with the RDF error body', async () => {
      const before = origin.seen.length;
      assertRdfError(await s.request('GET', '/?uri='), 400, { title: /empty/ });
      assertRdfError(await s.request('GET', `/?uri=${encodeURIComponent('not a url')}`), 400, { title: /absolute URL/ });
      assertRdfError(await s.request('GET', `/?uri=a&uri=b`), 400, { title: /one uri/ });
      for (const url of ['file:///etc/passwd', 'ftp://example.org/x', `gopher://127.0.0.1:${origin.port}/`, `http://user:secret@127.0.0.1:${origin.port}/book`]) {
        assertRdfError(await s.request('GET', proxied(url)), 400);
      }
      assertRdfError(await s.request('GET', proxied(origin.url('/book')), { as: 'anonymous' }), 403, { title: /anonymous/ });
      assert.equal(origin.seen.length, before, 'the origin was not asked');

      origin.on('/image', { headers: { 'Content-Type': 'image/png' }, body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) });
      assertRdfError(await s.request('GET', proxied(origin.url('/image'))), 502, { title: /image\/png/ });
      origin.on('/bad-turtle', { headers: { 'Content-Type': 'text/turtle' }, body: '<#a> <#b> "unclosed .' });
      assertRdfError(await s.request('GET', proxied(origin.url('/bad-turtle')), { headers: { Accept: 'application/ld+json' } }), 502, { title: /could not be read/, format: 'application/ld+json' });
      origin.on('/entities', { headers: { 'Content-Type': 'application/rdf+xml' }, body: '<!DOCTYPE r [<!ENTITY a SYSTEM "file:///etc/passwd">]><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>' });
      assertRdfError(await s.request('GET', proxied(origin.url('/entities'))), 502, { title: /external/ });
      assert.match(header(await s.request('GET', proxied(origin.url('/book.turtle')), { headers: { Accept: 'text/html' } }), 'content-type')!, /^text\/html/);
      assertRdfError(await s.request('GET', proxied(origin.url('/book.turtle')), { headers: { Accept: 'image/png' } }), 406);
    });

    it('answers 502 past 2 MiB, 504 for an origin that does not answer in time, 502 for one that cannot be reached', async () => {
      const big = `<#s> <#p> "${'x'.repeat(2 * 1024 * 1024)}" .`;
      origin.on('/big', { headers: { 'Content-Type': 'text/turtle' }, body: big });
      assertRdfError(await s.request('GET', proxied(origin.url('/big'))), 502, { title: /2 MiB/ });
      origin.on('/hang', () => undefined);
      assertRdfError(await s.request('GET', proxied(origin.url('/hang'))), 504);
      const closed = await freePort();
      assertRdfError(await s.request('GET', proxied(`http://127.0.0.1:${closed}/x`)), 502, { title: /ECONNREFUSED/ });
    });
  });
});
