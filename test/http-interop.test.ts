/**
 * What common RDF clients trip on (issue 19), over real HTTPS: characters outside the BMP in
 * Turtle, Accept-Patch on reads, charset on every textual type, weak If-None-Match, SELECT *
 * column order, empty 201 bodies, whole SPARQL syntax errors, and a 412 that says why.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { removeTempDirs } from './helpers.js';
import { assertRdfError, header, startServer, turtle, type TestServer } from './http-helpers.js';

let s: TestServer;
const UNICORN = '\u{1F984} unicorn';
let etagTurtle = '';

before(async () => {
  s = await startServer();
  const res = await s.request('PUT', 'interop/', { headers: turtle, body: `<#this> <http://purl.org/dc/terms/title> "${UNICORN}" ; <http://example.org/n> 1 .` });
  assert.equal(res.status, 201, res.body);
  etagTurtle = String(res.headers.etag);
});
after(async () => {
  await s?.close();
  removeTempDirs();
});

const sparql = (query: string, accept: string) => s.request('GET', `sparql?${new URLSearchParams({ query })}`, { headers: { Accept: accept } });

describe('interoperability', () => {
  it('sends a character outside the BMP in Turtle as UTF-8, not as a \\U escape', async () => {
    const res = await s.request('GET', 'interop/', { headers: { Accept: 'text/turtle' } });
    assert.equal(res.status, 200);
    assert.ok(res.body.includes(UNICORN), res.body);
    assert.ok(!res.body.includes('\\U'), res.body);
  });

  it('says charset=utf-8 on every RDF and results type, and carries Accept-Patch on GET and HEAD', async () => {
    for (const type of ['text/turtle', 'application/n-triples', 'application/rdf+xml', 'application/ld+json']) {
      for (const method of ['GET', 'HEAD']) {
        const res = await s.request(method, 'interop/', { headers: { Accept: type } });
        assert.equal(res.status, 200);
        assert.equal(header(res, 'content-type'), `${type}; charset=utf-8`);
        assert.equal(header(res, 'accept-patch'), 'application/sparql-update');
      }
    }
    for (const type of ['application/sparql-results+json', 'application/sparql-results+xml', 'text/csv', 'text/tab-separated-values']) {
      const res = await sparql('ASK {}', type);
      assert.equal(header(res, 'content-type'), `${type}; charset=utf-8`);
    }
  });

  it('sends compacted JSON-LD, with a context of the prefixes the document uses, when the profile asks for it', async () => {
    const accept = 'application/ld+json;profile="http://www.w3.org/ns/json-ld#compacted"';
    const res = await s.request('GET', 'interop/', { headers: { Accept: accept } });
    assert.equal(res.status, 200, res.body);
    assert.equal(header(res, 'content-type'), 'application/ld+json; profile="http://www.w3.org/ns/json-ld#compacted"; charset=utf-8');
    const json = JSON.parse(res.body) as Record<string, unknown>;
    assert.equal((json['@context'] as Record<string, string>).dct, 'http://purl.org/dc/terms/');
    assert.ok(res.body.includes('"dct:title"') && res.body.includes(UNICORN), res.body);
    const expanded = await s.request('GET', 'interop/', { headers: { Accept: 'application/ld+json' } });
    assert.ok(Array.isArray(JSON.parse(expanded.body)), 'plain JSON-LD stays expanded');
    assert.notEqual(res.headers.etag, expanded.headers.etag, 'each representation has its own ETag');
    const again = await s.request('GET', 'interop/', { headers: { Accept: accept, 'If-None-Match': String(res.headers.etag) } });
    assert.equal(again.status, 304);
  });

  it('answers a weak If-None-Match with 304 (weak comparison)', async () => {
    const res = await s.request('GET', 'interop/', { headers: { Accept: 'text/turtle', 'If-None-Match': `W/${etagTurtle}` } });
    assert.equal(res.status, 304);
  });

  it('lists the columns of SELECT * in order of appearance', async () => {
    const res = await sparql('SELECT * WHERE { GRAPH ?g { ?z <http://example.org/n> ?a } }', 'text/csv');
    assert.equal(res.status, 200, res.body);
    assert.equal(res.body.split('\r\n')[0], 'g,z,a');
    const json = JSON.parse((await sparql('SELECT * WHERE { GRAPH ?g { ?z <http://example.org/n> ?a } }', 'application/sparql-results+json')).body) as { head: { vars: string[] } };
    assert.deepEqual(json.head.vars, ['g', 'z', 'a']);
  });

  it('reads and writes N-Quads and TriG (the document as the default graph, or as the graph named by its URL), and answers text/plain as N-Triples', async () => {
    const url = `${s.base}interop-quads/`;
    const quads = `<${url}#this> <http://example.org/n> "${UNICORN}" <${url}> .\n<${url}#this> <http://example.org/m> "2" .\n`;
    const created = await s.request('PUT', url, { headers: { 'Content-Type': 'application/n-quads' }, body: quads });
    assert.equal(created.status, 201, created.body);
    const nquads = await s.request('GET', url, { headers: { Accept: 'application/n-quads' } });
    assert.equal(header(nquads, 'content-type'), 'application/n-quads; charset=utf-8');
    assert.ok(nquads.body.includes(`<${url}#this> <http://example.org/n> "${UNICORN}" .`), nquads.body);
    const trig = await s.request('GET', url, { headers: { Accept: 'application/trig' } });
    assert.equal(header(trig, 'content-type'), 'application/trig; charset=utf-8');
    assert.ok(trig.body.includes(UNICORN));
    const plain = await s.request('GET', url, { headers: { Accept: 'text/plain' } });
    assert.equal(header(plain, 'content-type'), 'text/plain; charset=utf-8');
    assert.equal(plain.body, (await s.request('GET', url, { headers: { Accept: 'application/n-triples' } })).body);
    const other = await s.request('PUT', url, { headers: { 'Content-Type': 'application/trig', Accept: 'application/trig', 'If-Match': String(trig.headers.etag) }, body: '<http://example.org/g> { <#a> <#b> <#c> }' });
    assertRdfError(other, 422, { title: /a document is one graph: this application\/trig body names the graph <http:\/\/example.org\/g>/, format: 'application/trig' });
  });

  it('reads a character outside the BMP escaped as a UTF-16 surrogate pair (as rdflib.js writes it) alike in N-Triples, Turtle, N-Quads and TriG; a lone surrogate is a 400', async () => {
    for (const [type, slug] of [['application/n-triples', 'nt'], ['text/turtle', 'ttl'], ['application/n-quads', 'nq'], ['application/trig', 'trig']] as const) {
      const url = `${s.base}interop-surrogates-${slug}/`;
      // an escaped backslash before "u" is a backslash in the text, not an escape
      const body = `<${url}#this> <http://example.org/n> "\\ud83e\\udd84 unicorn, \\\\ud83e\\\\udd84" .\n`;
      const created = await s.request('PUT', url, { headers: { 'Content-Type': type }, body });
      assert.equal(created.status, 201, `${type}: ${created.body}`);
      const stored = await s.request('GET', url, { headers: { Accept: 'application/n-triples' } });
      assert.ok(stored.body.includes(`"\u{1F984} unicorn, \\\\ud83e\\\\udd84"`), `${type}: ${stored.body}`);
      const lone = await s.request('PUT', url, { headers: { 'Content-Type': type, Accept: 'application/n-triples', 'If-Match': String(stored.headers.etag) }, body: `<${url}#this> <http://example.org/n> "\\ud83e alone" .\n` });
      assertRdfError(lone, 400, { format: 'application/n-triples', title: type === 'application/n-triples' || type === 'text/turtle' ? /^invalid [^:]+: a \\u escape of half a UTF-16 surrogate pair/ : /D83E/ });
    }
  });

  it('answers GET /sparql without a query with a SPARQL 1.1 Service Description', async () => {
    const res = await s.request('GET', 'sparql', { headers: { Accept: 'application/n-triples' } });
    assert.equal(res.status, 200, res.body);
    const endpoint = `${s.base}sparql`;
    const SD = 'http://www.w3.org/ns/sparql-service-description#';
    assert.ok(res.body.includes(`<${endpoint}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${SD}Service> .`), res.body);
    assert.ok(res.body.includes(`<${endpoint}> <${SD}endpoint> <${endpoint}> .`));
    for (const format of ['SPARQL_Results_JSON', 'SPARQL_Results_CSV', 'Turtle', 'N-Quads']) assert.ok(res.body.includes(`<${SD}resultFormat> <http://www.w3.org/ns/formats/${format}>`), format);
    const probe = await s.request('GET', 'sparql', { headers: { Accept: 'application/sparql-results+json' } });
    assert.equal(probe.status, 200);
    assert.match(String(header(probe, 'content-type')), /^text\/turtle/);
    assertRdfError(await s.request('POST', 'sparql', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'default-graph-uri=x' }), 400, { title: /the query parameter is missing/ });
  });

  it('answers a 201 with no body and no Content-Type', async () => {
    const res = await s.request('PUT', 'interop-created/', { headers: turtle, body: '<#this> <http://example.org/n> 2 .' });
    assert.equal(res.status, 201);
    assert.equal(res.body, '');
    assert.equal(header(res, 'content-type'), undefined);
  });

  it('keeps the position and what was expected in a SPARQL syntax error', async () => {
    const query = await sparql('SELECT * WHERE {\n  ?s ?p ?o\n} LIMIT x', 'application/sparql-results+json');
    assertRdfError(query, 400, { title: /line 3, column \d+: expected INTEGER, got "x"/ });
    const update = await s.request('PATCH', 'interop/', { headers: { 'Content-Type': 'application/sparql-update', 'If-Match': etagTurtle }, body: 'INSERT DATA { <#a> <#b> }' });
    assertRdfError(update, 422, { title: /line 1, column \d+: expected .*got "}"/ });
  });

  describe('a 412 says why the ETag did not match', () => {
    const patch = (ifMatch: string, accept = 'text/turtle') =>
      s.request('PATCH', 'interop/', { headers: { 'Content-Type': 'application/sparql-update', 'If-Match': ifMatch, Accept: accept }, body: 'INSERT { <#a> <#b> <#c> } WHERE {}' });

    it('unquoted', async () => {
      assertRdfError(await patch(etagTurtle.replace(/"/g, '')), 412, { title: /is not an ETag: send the ETag exactly as the server sent it, double quotes included/ });
    });
    it('weak', async () => {
      assertRdfError(await patch(`W/${etagTurtle}`), 412, { title: /weak ETag/ });
    });
    it('read in another representation', async () => {
      assertRdfError(await patch(etagTurtle, 'application/n-triples'), 412, { title: /is the one of the text\/turtle representation/, format: 'application/n-triples' });
    });
    it('a placeholder', async () => {
      assertRdfError(await patch('"<etag>"'), 412, { title: /not one this server makes/ });
    });
    it('outdated', async () => {
      const read = await s.request('GET', 'interop/', { headers: { Accept: 'text/turtle' } });
      const current = String(read.headers.etag);
      assert.equal((await patch(current)).status, 204);
      assertRdfError(await patch(current), 412, { title: /the document has changed since the ETag in If-Match was read/ });
    });
  });
});
