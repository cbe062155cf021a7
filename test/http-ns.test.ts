/**
 * `<base>ns`, the namespace ontology (SPEC §4.7, issue 21), over real HTTPS: the asserted graph of
 * the admin dataspace's ontology documents and of what they import from an origin on the loopback
 * interface (the server runs with --allow-internal-urls), in RDF formats with an ETag and 304;
 * `?query=` by GET and POST answered over the ontology with RDFS entailment; 405 for every way of
 * sending an update; a query past the SPARQL timeout stopped while documents are read; readable by
 * anyone on the end-user dataspace, not on the admin one; a deleted ontology document leaves it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ns } from '../src/rdf/namespaces.js';
import { parseRdf } from '../src/rdf/ntriples.js';
import { assertRdfError, header, putTurtle, serverForFile, type TestServer } from './http-helpers.js';
import { startRdfOrigin, type RdfOrigin } from './rdf-origin.js';

let s: TestServer;
let origin: RdfOrigin;
before(async () => {
  origin = await startRdfOrigin();
});
after(() => origin.close());
serverForFile((server) => {
  s = server;
}, ['--allow-internal-urls', '--sparql-timeout', '3000']);

const ex = () => `${s.admin}ontologies/things/#`;
const PREFIXES = `@prefix owl: <${ns.owl}> . @prefix rdfs: <${ns.rdfs}> .\n`;
const query = (text: string, options: { accept?: string; as?: 'owner' | 'anonymous'; path?: string } = {}) =>
  s.request('GET', `${options.path ?? '/ns'}?query=${encodeURIComponent(text)}`, { headers: { Accept: options.accept ?? 'application/sparql-results+json' }, as: options.as ?? 'anonymous' });
const bindings = (body: string) => (JSON.parse(body) as { results: { bindings: Record<string, { value: string }>[] } }).results.bindings;

describe('the namespace ontology', () => {
  it('is the asserted graph of the ontology documents and their imports, read by anyone, with an ETag', async () => {
    origin.serve('vocab', `${PREFIXES}<${origin.base}vocab#> a owl:Ontology . <${origin.base}vocab#Work> a rdfs:Class ; rdfs:label "Work" .`);
    await putTurtle(s, '/admin/ontologies/', `<> a <${ns.dh}Container> ; <${ns.dct}title> "Ontologies" .`);
    await putTurtle(s, '/admin/ontologies/things/', `${PREFIXES}
      <#> a owl:Ontology ; rdfs:label "Things" ; owl:imports <${origin.base}vocab> .
      <#Thing> a rdfs:Class ; rdfs:subClassOf <${origin.base}vocab#Work> .
      <#Book> rdfs:subClassOf <#Thing> .
      <#Novel> rdfs:subClassOf <#Book> .
      <#creator> a rdf:Property .
      <#author> rdfs:subPropertyOf <#creator> ; rdfs:domain <#Book> .
      <#dune> a <#Novel> ; <#author> <#herbert> .`.replace('a rdf:Property', `a <${ns.rdf}Property>`));
    const res = await s.request('GET', '/ns', { headers: { Accept: 'application/n-triples' }, as: 'anonymous' });
    assert.equal(res.status, 200, res.body);
    const graph = parseRdf(res.body);
    assert.ok(graph.some((q) => q.subject.value === `${ex()}Novel` && q.predicate.value === ns.rdfs + 'subClassOf' && q.object.value === `${ex()}Book`));
    assert.ok(graph.some((q) => q.subject.value === `${origin.base}vocab#Work` && q.object.value === 'Work'), 'the import is in it');
    assert.ok(!graph.some((q) => q.subject.value === `${ex()}Novel` && q.object.value === `${ex()}Thing`), 'asserted: nothing entailed');
    assert.ok(!graph.some((q) => q.subject.value.startsWith(`${s.admin}acl/`)), 'documents that are no ontology are not in it');
    const tag = String(header(res, 'etag'));
    assert.equal((await s.request('GET', '/ns', { headers: { Accept: 'application/n-triples', 'If-None-Match': tag }, as: 'anonymous' })).status, 304);
    for (const type of ['text/turtle', 'application/rdf+xml', 'application/ld+json']) {
      const other = await s.request('GET', '/ns', { headers: { Accept: type }, as: 'anonymous' });
      assert.equal(other.status, 200);
      assert.equal(String(header(other, 'content-type')).split(';')[0], type);
      assert.notEqual(header(other, 'etag'), tag);
    }
    assert.equal(origin.hits('vocab'), 1, 'an import is fetched once');
  });

  it('answers queries with RDFS entailment, by GET and by POST, to anyone', async () => {
    const supers = await query(`SELECT ?c WHERE { <${ex()}Novel> <${ns.rdfs}subClassOf> ?c }`);
    assert.equal(supers.status, 200, supers.body);
    assert.deepEqual(bindings(supers.body).map((b) => b.c!.value).sort(), [`${ex()}Book`, `${ex()}Thing`, `${origin.base}vocab#Work`].sort(), 'subClassOf is transitive');
    const ask = await query(`ASK { <${ex()}dune> a <${origin.base}vocab#Work> ; <${ex()}creator> <${ex()}herbert> }`);
    assert.equal(JSON.parse(ask.body).boolean, true, 'types through the class hierarchy, triples through superproperties');
    const domain = await query(`ASK { <${ex()}dune> a <${ex()}Book> }`, { accept: 'text/csv' });
    assert.equal(domain.body, '_askResult\r\ntrue\r\n');
    const form = await s.request('POST', '/ns', { headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/sparql-results+json' }, body: `query=${encodeURIComponent(`SELECT ?s WHERE { ?s a <${ex()}Thing> }`)}`, as: 'anonymous' });
    assert.equal(form.status, 200, form.body);
    assert.deepEqual(bindings(form.body).map((b) => b.s!.value), [`${ex()}dune`]);
    const direct = await s.request('POST', '/ns', { headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/n-triples' }, body: `CONSTRUCT { <${ex()}dune> a ?c } WHERE { <${ex()}dune> a ?c }`, as: 'anonymous' });
    assert.equal(direct.status, 200, direct.body);
    assert.equal(parseRdf(direct.body).length, 4, 'Novel, Book, Thing, Work');
    assertRdfError(await query('SELECT nonsense'), 400);
    assertRdfError(await query('SELECT * WHERE { ?s ?p ?o }', { accept: 'image/png' }), 406);
  });

  it('stops a query past the SPARQL timeout (503) while other requests are answered', async () => {
    const answered: number[] = [];
    let running = true;
    const loop = (async () => {
      while (running) {
        const res = await s.request('GET', '/', { headers: { Accept: 'application/n-triples' } });
        assert.equal(res.status, 200);
        answered.push(Date.now());
      }
    })();
    const cross = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n2 ?o . ?p ?q ?r . ?s ?t ?u }';
    const hostile = await query(cross);
    const done = Date.now();
    running = false;
    await loop;
    assertRdfError(hostile, 503, { title: /timeout/ });
    assert.ok(answered.some((at) => at < done), 'documents were read while the query ran');
    const after = await query(`ASK { <${ex()}Novel> <${ns.rdfs}subClassOf> <${ex()}Thing> }`);
    assert.equal(JSON.parse(after.body).boolean, true, 'the next query is answered');
  });

  it('answers 405 to updates, however they are sent', async () => {
    const update = `INSERT DATA { <${ex()}x> a <${ex()}Thing> }`;
    const refusals = [
      await s.request('POST', '/ns', { headers: { 'Content-Type': 'application/sparql-update' }, body: update }),
      await s.request('POST', '/ns', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `update=${encodeURIComponent(update)}` }),
      await s.request('GET', `/ns?update=${encodeURIComponent(update)}`),
      await s.request('GET', `/ns?query=${encodeURIComponent(update)}`),
      await s.request('PUT', '/ns', { headers: { 'Content-Type': 'text/turtle' }, body: '' }),
      await s.request('PATCH', '/ns', { headers: { 'Content-Type': 'application/sparql-update' }, body: update }),
      await s.request('DELETE', '/ns'),
    ];
    for (const res of refusals) {
      assertRdfError(res, 405);
      assert.equal(header(res, 'allow'), 'GET, HEAD, POST, OPTIONS');
    }
  });

  it('is the admin dataspace’s too, for the agents its authorizations allow', async () => {
    assertRdfError(await s.request('GET', '/admin/ns', { as: 'anonymous' }), 403);
    const res = await query(`ASK { <${ex()}Book> <${ns.rdfs}subClassOf> <${origin.base}vocab#Work> }`, { path: '/admin/ns', as: 'owner' });
    assert.equal(JSON.parse(res.body).boolean, true);
  });

  it('follows its documents: a deleted ontology document leaves it', async () => {
    const tag = String(header(await s.request('HEAD', '/admin/ontologies/things/'), 'etag'));
    assert.equal((await s.request('DELETE', '/admin/ontologies/things/', { headers: { 'If-Match': tag } })).status, 204);
    const res = await s.request('GET', '/ns', { headers: { Accept: 'application/n-triples' }, as: 'anonymous' });
    assert.equal(res.status, 200);
    assert.equal(res.body, '', 'nothing is left: the import went with the document that made it');
    assert.equal(JSON.parse((await query(`ASK { <${ex()}Novel> ?p ?o }`)).body).boolean, false);
  });
});
