/**
 * `<admin>clear` (SPEC §4.7, issue 21) over real HTTPS: an ontology imported from an origin on the
 * loopback interface is kept in memory until a POST clears it, then fetched again; with `uri=` the
 * proxy caches' purge hooks hear of that ontology (the proxy's own cache drops it) and the
 * namespace ontology is rebuilt at once;
 * 303 to a Referer of this server, else 200; owners only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ns } from '../src/rdf/namespaces.js';
import { assertRdfError, header, putTurtle, serverForFile, type TestServer } from './http-helpers.js';
import { startRdfOrigin, type RdfOrigin } from './rdf-origin.js';

let s: TestServer;
let origin: RdfOrigin;
before(async () => {
  origin = await startRdfOrigin();
});
after(() => origin.close());
serverForFile(async (server) => {
  s = server;
  origin.serve('vocab', `<${origin.base}vocab#> a <${ns.owl}Ontology> ; <${ns.rdfs}label> "version 1" .`);
  await putTurtle(s, '/admin/ontologies/', `<> a <${ns.dh}Container> .`);
  await putTurtle(s, '/admin/ontologies/main/', `<#> a <${ns.owl}Ontology> ; <${ns.owl}imports> <${origin.base}vocab> .`);
}, ['--allow-internal-urls']);

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const label = async () => {
  const res = await s.request('GET', '/ns', { headers: { Accept: 'application/n-triples' }, as: 'anonymous' });
  return /"(version \d)"/.exec(res.body)?.[1];
};

describe('admin/clear', () => {
  it('forgets every cached ontology: the import is fetched again', async () => {
    assert.equal(await label(), 'version 1');
    origin.serve('vocab', `<${origin.base}vocab#> a <${ns.owl}Ontology> ; <${ns.rdfs}label> "version 2" .`);
    assert.equal(await label(), 'version 1', 'kept in memory');
    const res = await s.request('POST', '/admin/clear', { headers: FORM, body: '' });
    assert.equal(res.status, 200, res.body);
    assert.equal(await label(), 'version 2');
    assert.equal(origin.hits('vocab'), 2);
  });

  it('with uri=, purges that ontology from the proxy caches and rebuilds at once; 303 to a Referer of this server', async () => {
    const purged: string[] = [];
    const stop = s.running.runtimes[1]!.ontology!.onPurge((uri) => {
      purged.push(uri);
    });
    try {
      origin.serve('vocab', `<${origin.base}vocab#> a <${ns.owl}Ontology> ; <${ns.rdfs}label> "version 3" .`);
      const hits = origin.hits('vocab');
      const page = `${s.admin}ontologies/main/`;
      const res = await s.request('POST', '/admin/clear', { headers: { ...FORM, Referer: page }, body: `uri=${encodeURIComponent(`${origin.base}vocab#`)}` });
      assert.equal(res.status, 303, res.body);
      assert.equal(header(res, 'location'), page);
      assert.deepEqual(purged, [`${origin.base}vocab#`]);
      assert.equal(origin.hits('vocab'), hits + 1, 'fetched again by the rebuild, before the answer');
      assert.equal(await label(), 'version 3');
      const foreign = await s.request('POST', '/admin/clear', { headers: { ...FORM, Referer: 'https://example.org/page' }, body: `uri=${encodeURIComponent(`${origin.base}vocab`)}` });
      assert.equal(foreign.status, 200, 'no redirect to another site');
    } finally {
      stop();
    }
  });

  it('with uri=, drops the proxy’s cached copies of that ontology', async () => {
    origin.serve('vocab', `<${origin.base}vocab#> a <${ns.owl}Ontology> ; <${ns.rdfs}label> "version 4" .`, 'text/turtle', { 'Cache-Control': 'max-age=600' });
    const proxied = () => s.request('GET', `/?uri=${encodeURIComponent(`${origin.base}vocab`)}`, { headers: { Accept: 'application/n-triples' } });
    assert.match((await proxied()).body, /version 4/);
    const hits = origin.hits('vocab');
    assert.match((await proxied()).body, /version 4/);
    assert.equal(origin.hits('vocab'), hits, 'the proxy answers from its cache');
    assert.equal((await s.request('POST', '/admin/clear', { headers: FORM, body: `uri=${encodeURIComponent(`${origin.base}vocab#`)}` })).status, 200);
    assert.equal(origin.hits('vocab'), hits + 1, 'the namespace ontology fetched it again');
    await proxied();
    assert.equal(origin.hits('vocab'), hits + 2, 'and so did the proxy: its copies were dropped');
  });

  it('is refused to everybody but the owners, answers 405 to other methods, and 400 or 415 to a bad form', async () => {
    assertRdfError(await s.request('POST', '/admin/clear', { headers: FORM, body: '', as: 'secretary' }), 403);
    assertRdfError(await s.request('POST', '/admin/clear', { headers: FORM, body: '', as: 'anonymous' }), 403);
    const get = await s.request('GET', '/admin/clear');
    assertRdfError(get, 405);
    assert.equal(header(get, 'allow'), 'POST, OPTIONS');
    assertRdfError(await s.request('POST', '/admin/clear', { headers: FORM, body: 'uri=not%20a%20url' }), 400);
    assertRdfError(await s.request('POST', '/admin/clear', { headers: { 'Content-Type': 'text/turtle' }, body: '<a> <b> <c> .' }), 415);
  });
});
