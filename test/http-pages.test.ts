/**
 * Pages over HTTP (issue 22) without a browser: negotiation (a browser's Accept gets HTML, curl's
 * gets Turtle, ?accept= overrides), ETag and 304 per language, the static files' caching, a large
 * document drawn in part, a CONSTRUCT answer as a document view, error pages where no dataspace is.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { removeTempDirs, waitFor } from './helpers.js';
import { header, startServer, turtle, type TestServer } from './http-helpers.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

let s: TestServer;
before(async () => {
  s = await startServer();
  assert.equal((await s.request('PUT', 'page/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "A page" .' })).status, 201);
});
after(async () => {
  await s?.close();
  removeTempDirs();
});

describe('pages over HTTP', () => {
  it('gives a browser HTML, curl Turtle, and ?accept= the type it names', async () => {
    const page = await s.request('GET', 'page/', { headers: { Accept: BROWSER } });
    assert.equal(page.status, 200);
    assert.match(header(page, 'content-type')!, /^text\/html; charset=utf-8$/);
    assert.match(page.body, /<h1>A page<\/h1>/);
    assert.match(header(page, 'vary')!, /Accept-Language/);
    assert.match(header(await s.request('GET', 'page/', { headers: { Accept: '*/*' } }), 'content-type')!, /^text\/turtle/);
    assert.match(header(await s.request('GET', 'page/?accept=text/turtle', { headers: { Accept: BROWSER } }), 'content-type')!, /^text\/turtle/);
    const head = await s.request('HEAD', 'page/', { headers: { Accept: BROWSER } });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
  });

  it('tags a page per language and answers a matching If-None-Match with 304', async () => {
    const english = await s.request('GET', 'page/', { headers: { Accept: 'text/html' } });
    const spanish = await s.request('GET', 'page/', { headers: { Accept: 'text/html', 'Accept-Language': 'es' } });
    assert.equal(header(spanish, 'content-language'), 'es');
    assert.notEqual(header(english, 'etag'), header(spanish, 'etag'));
    const again = await s.request('GET', 'page/', { headers: { Accept: 'text/html', 'If-None-Match': header(english, 'etag')! } });
    assert.equal(again.status, 304);
  });

  it('serves the static files under digest names for a year, and 404 for any other name', async () => {
    const page = await s.request('GET', 'page/', { headers: { Accept: 'text/html' } });
    const css = /href="([^"]+\/static\/lodestone\.[0-9a-f]+\.css)"/.exec(page.body)![1]!;
    const res = await s.request('GET', css);
    assert.equal(res.status, 200);
    assert.equal(header(res, 'cache-control'), 'public, max-age=31536000, immutable');
    assert.match(header(res, 'content-type')!, /^text\/css/);
    assert.equal((await s.request('GET', 'static/lodestone.0000000000.css')).status, 404);
    assert.equal((await s.request('GET', '/admin/static/' + css.split('/').pop())).status, 200, 'every dataspace serves them');
  });

  it('names properties with the labels of the namespace ontology and of the shipped vocabularies', async () => {
    const ontology = '<#this> a <http://www.w3.org/2002/07/owl#Ontology> . <https://example.org/ns#colour> <http://www.w3.org/2000/01/rdf-schema#label> "favourite colour"@en .';
    assert.equal((await s.request('PUT', '/admin/ontologies/colours/', { headers: turtle, body: ontology })).status, 201);
    assert.equal((await s.request('GET', 'ns', { headers: { Accept: 'text/turtle' } })).status, 200, 'the namespace ontology is built');
    assert.equal((await s.request('PUT', 'coloured/', { headers: turtle, body: '<#this> <https://example.org/ns#colour> "blue" ; <http://xmlns.com/foaf/0.1/homepage> <https://example.org/> .' })).status, 201);
    const page = await s.request('GET', 'coloured/', { headers: { Accept: 'text/html' } });
    assert.match(page.body, />favourite colour<\/a>/, 'from the ontology');
    await waitFor(async () => /> ?homepage<\/a>/.test((await s.request('GET', 'coloured/', { headers: { Accept: 'text/html' } })).body));
  });

  it('draws the first 3,000 triples of a larger document and says so', async () => {
    const lines = Array.from({ length: 3500 }, (_, i) => `<#t${String(i).padStart(4, '0')}> <http://purl.org/dc/terms/title> "triple ${i}" .`);
    assert.equal((await s.request('PUT', 'large/', { headers: turtle, body: lines.join('\n') })).status, 201);
    const page = await s.request('GET', 'large/', { headers: { Accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(page.body, /the first 3,000 of 3,50\d triples/);
  });

  it('shows a CONSTRUCT answer as a document view, and a page for a host no dataspace is at', async () => {
    const query = encodeURIComponent('CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s <http://purl.org/dc/terms/title> ?o . ?s ?p ?o } } LIMIT 5');
    const answer = await s.request('GET', `sparql?query=${query}`, { headers: { Accept: 'text/html' } });
    assert.equal(answer.status, 200, answer.body);
    assert.match(answer.body, /<section class="resource"><h3>/);
    const nowhere = await s.request('GET', 'page/', { headers: { Accept: 'text/html', Host: 'elsewhere.example' } });
    assert.equal(nowhere.status, 404);
    assert.match(header(nowhere, 'content-type')!, /^text\/html/);
    assert.match(nowhere.body, /no dataspace is served at/);
  });
});
