/**
 * Accept ranges with parameters (issue 19, item 1): `charset` (Jena, rdflib, requests) and a
 * JSON-LD `profile` are negotiated like the bare type, on documents (the fast read path and Koa's)
 * and on the SPARQL endpoint; `q` still orders the ranges.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { header, serverForFile, turtle, type Response, type TestServer } from './http-helpers.js';

let s: TestServer;
serverForFile(async (server) => {
  s = server;
  assert.equal((await s.request('PUT', 'params/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "params" .' })).status, 201);
});

const type = (res: Response) => (header(res, 'content-type') ?? '').split(';')[0];

describe('Accept with parameters', () => {
  it('gets the document in the type named, whatever its charset or profile', async () => {
    for (const [accept, expected] of [
      ['text/turtle; charset=UTF-8', 'text/turtle'],
      ['application/n-triples;charset=utf-8', 'application/n-triples'],
      ['application/ld+json;profile="http://www.w3.org/ns/json-ld#compacted"', 'application/ld+json'],
      ['application/rdf+xml;q=0.5, application/n-triples; charset=utf-8;q=0.9', 'application/n-triples'],
    ] as const) {
      for (let twice = 0; twice < 2; twice++) {
        // the second GET of a document is answered by the fast read path
        const res = await s.request('GET', 'params/', { headers: { Accept: accept } });
        assert.equal(res.status, 200, `${accept}: ${res.body}`);
        assert.equal(type(res), expected);
      }
    }
    assert.equal((await s.request('GET', 'params/', { headers: { Accept: 'image/png' } })).status, 406);
    const page = await s.request('GET', 'params/', { headers: { Accept: 'text/html;charset=utf-8' } });
    assert.equal(page.status, 200, 'a page for a browser (issue 22)');
    assert.match(String(page.headers['content-type']), /^text\/html/);
  });

  it('gets SPARQL results in the type named, whatever its charset', async () => {
    const res = await s.request('POST', 'sparql', { headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json;charset=utf-8' }, body: 'ASK {}' });
    assert.equal(res.status, 200, res.body);
    assert.equal(type(res), 'application/sparql-results+json');
  });
});
