/**
 * `<base>settings` over real HTTPS (SPEC §4.7, issue 21): the dataspace's description from
 * system.ttl in every RDF format, with ETags that digest the URL and the content and a 304 for a
 * matching If-None-Match; PATCH by the owner seen by the next request and written into the file
 * people keep; 422 for an admin dataspace, for each forbidden removal and for the update forms
 * document PATCH refuses; 403 for everybody but the owners.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import oxigraph from 'oxigraph';
import type { Quad } from '@rdfjs/types';
import { JSONLD_COMPACTED, writableTypes } from '../src/rdf/formats.js';
import { ns } from '../src/rdf/namespaces.js';
import { parseRdf } from '../src/rdf/ntriples.js';
import { readDataspaces, systemConfigFile } from '../src/system-config.js';
import { SystemFile } from '../src/system-file.js';
import { assertRdfError, header, serverForFile, type TestServer } from './http-helpers.js';

let s: TestServer;
serverForFile((server) => {
  s = server;
});

const UPDATE = { 'Content-Type': 'application/sparql-update' };
const patch = (body: string, options: { headers?: Record<string, string>; path?: string; as?: 'owner' | 'secretary' | 'anonymous' } = {}) =>
  s.request('PATCH', options.path ?? '/settings', { headers: { ...UPDATE, ...options.headers }, body, as: options.as });
const systemTtl = () => readFileSync(join(s.data, 'system.ttl'), 'utf8');

function parse(body: string, type: string): Quad[] {
  const format = type === 'text/plain' ? 'application/n-triples' : type.split(';')[0]!;
  return oxigraph.parse(body, { format, base_iri: s.base }) as unknown as Quad[];
}

describe('GET settings', () => {
  it('answers the dataspace’s description in every RDF format, each with its own ETag, and 304 for a matching If-None-Match', async () => {
    const tags = new Set<string>();
    for (const type of [...writableTypes, JSONLD_COMPACTED]) {
      const res = await s.request('GET', '/settings', { headers: { Accept: type } });
      assert.equal(res.status, 200, `${type}: ${res.body}`);
      assert.equal(String(header(res, 'content-type')).split(';')[0], type.split(';')[0]);
      const quads = parse(res.body, type);
      assert.ok(quads.some((q) => q.subject.value === s.base && q.predicate.value === ns.rdf + 'type' && q.object.value === ns.lapp + 'EndUserApplication'), `${type}: ${res.body}`);
      assert.ok(quads.some((q) => q.subject.value === s.base && q.predicate.value === ns.lapp + 'adminApplication' && q.object.value === s.admin));
      assert.ok(!quads.some((q) => q.subject.value === s.admin), 'the admin dataspace is described in its own settings');
      const tag = String(header(res, 'etag'));
      assert.match(tag, /^"[A-Za-z0-9_-]{27}"$/);
      tags.add(tag);
      const again = await s.request('GET', '/settings', { headers: { Accept: type, 'If-None-Match': tag } });
      assert.equal(again.status, 304);
      assert.equal(again.body, '');
      assert.equal(header(again, 'etag'), tag);
    }
    assert.equal(tags.size, writableTypes.length + 1, 'one ETag per representation');
    const head = await s.request('HEAD', '/settings', { headers: { Accept: 'text/turtle' } });
    assert.equal(head.status, 200);
    assertRdfError(await s.request('GET', '/settings', { headers: { Accept: 'image/png' } }), 406);
  });

  it('describes an admin dataspace in its own settings', async () => {
    const res = await s.request('GET', '/admin/settings', { headers: { Accept: 'application/n-triples' } });
    assert.equal(res.status, 200, res.body);
    const quads = parseRdf(res.body);
    assert.ok(quads.some((q) => q.subject.value === s.admin && q.object.value === ns.lapp + 'AdminApplication'));
    assert.ok(quads.some((q) => q.subject.value === 'urn:lodestone:oidc:google'), 'with the resources it leads to');
  });

  it('is refused to agents without access (403), and 405 for methods it has not', async () => {
    assertRdfError(await s.request('GET', '/settings', { as: 'anonymous' }), 403);
    assertRdfError(await s.request('GET', '/settings', { as: 'secretary' }), 403);
    const put = await s.request('PUT', '/settings', { headers: { 'Content-Type': 'text/turtle' }, body: '' });
    assertRdfError(put, 405);
    assert.equal(header(put, 'allow'), 'GET, HEAD, PATCH, OPTIONS');
  });
});

describe('PATCH settings', () => {
  it('changes the description, seen by the next request, written into system.ttl with its comments kept', async () => {
    const before = await s.request('GET', '/settings', { headers: { Accept: 'application/n-triples' } });
    const fileBefore = systemTtl();
    const res = await patch(`PREFIX dct: <${ns.dct}>\nINSERT { <> dct:title "My data" } WHERE {}`, { headers: { Accept: 'application/n-triples' } });
    assert.equal(res.status, 204, res.body);
    const after = await s.request('GET', '/settings', { headers: { Accept: 'application/n-triples' } });
    assert.ok(parseRdf(after.body).some((q) => q.subject.value === s.base && q.predicate.value === ns.dct + 'title' && q.object.value === 'My data'), after.body);
    assert.notEqual(header(after, 'etag'), header(before, 'etag'), 'the ETag follows the content');
    assert.equal(header(res, 'etag'), header(after, 'etag'), 'the PATCH answers the new ETag');
    const file = systemTtl();
    assert.match(file, /dct:title "My data"/);
    for (const line of fileBefore.split('\n')) assert.ok(file.includes(line), `kept: ${line}`);
    // LinkedDataHub's form: variables bound by the WHERE
    const renamed = await patch(`PREFIX dct: <${ns.dct}>\nDELETE { ?app dct:title ?title } INSERT { ?app dct:title "Renamed" } WHERE { ?app dct:title ?title }`);
    assert.equal(renamed.status, 204, renamed.body);
    assert.doesNotMatch(systemTtl(), /My data/);
    assert.match(systemTtl(), /"Renamed"/);
    assert.deepEqual((await readDataspaces(new SystemFile(systemConfigFile(s.data), s.base))).map((p) => [p.endUser.base, p.admin.base]), [[s.base, s.admin]], 'the file still declares the dataspaces');
    // If-Match, when sent, must be current
    const stale = await patch(`PREFIX dct: <${ns.dct}>\nDELETE WHERE { <> dct:title ?t }`, { headers: { 'If-Match': String(header(before, 'etag')), Accept: 'application/n-triples' } });
    assertRdfError(stale, 412, { format: 'application/n-triples' });
    const current = String(header(await s.request('HEAD', '/settings', { headers: { Accept: 'application/n-triples' } }), 'etag'));
    const removed = await patch(`PREFIX dct: <${ns.dct}>\nDELETE WHERE { <> dct:title ?t }`, { headers: { 'If-Match': current, Accept: 'application/n-triples' } });
    assert.equal(removed.status, 204, removed.body);
    assert.equal(systemTtl().trim(), fileBefore.trim(), 'the file is as it was');
  });

  it('lets one of several PATCHes quoting the same ETag in If-Match win, the others 412 (judged where the edits run one at a time)', async () => {
    const nt = { Accept: 'application/n-triples' };
    const tag = String(header(await s.request('HEAD', '/settings', { headers: nt }), 'etag'));
    const fileBefore = systemTtl();
    const answers = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((n) => patch(`PREFIX dct: <${ns.dct}>\nINSERT { <> dct:alternative "edit ${n}" } WHERE {}`, { headers: { ...nt, 'If-Match': tag } })));
    assert.deepEqual(answers.map((r) => r.status).sort(), [204, 412, 412, 412, 412], answers.map((r) => `${r.status} ${r.body.slice(0, 200)}`).join('\n'));
    assert.equal((systemTtl().match(/"edit [a-e]"/g) ?? []).length, 1, 'one edit is in the file');
    const current = String(header(await s.request('HEAD', '/settings', { headers: nt }), 'etag'));
    assert.equal((await patch(`PREFIX dct: <${ns.dct}>\nDELETE WHERE { <> dct:alternative ?a }`, { headers: { ...nt, 'If-Match': current } })).status, 204);
    assert.equal(systemTtl().trim(), fileBefore.trim(), 'the file is as it was');
  });

  it('answers 422 for each forbidden removal, for updates outside the dataspace and for the forms PATCH refuses, changing nothing', async () => {
    const file = systemTtl();
    const refused: Array<[string, RegExp]> = [
      ['DELETE WHERE { ?s ?p ?o }', /removes the dataspace/],
      [`DELETE WHERE { <> a <${ns.lapp}EndUserApplication> }`, /removes the type/],
      [`DELETE WHERE { <> <${ns.dct}identifier> ?id }`, /identifier/],
      [`DELETE { <> <${ns.lapp}adminApplication> ?a } INSERT { <> <${ns.lapp}adminApplication> <${s.base}other/> } WHERE { <> <${ns.lapp}adminApplication> ?a }`, /adminApplication/],
      ['DELETE { ?s ?p ?o } INSERT { <https://example.org/moved/> ?p ?o } WHERE { ?s ?p ?o }', /removes the dataspace/],
      [`INSERT { <https://example.org/x> <${ns.dct}title> "x" } WHERE {}`, /do not lead to/],
      [`INSERT DATA { <> <${ns.dct}title> "x" }`, /INSERT DATA is not allowed/],
      [`INSERT { GRAPH <${s.base}> { <> <${ns.dct}title> "x" } } WHERE {}`, /GRAPH/],
      ['not an update', /not a SPARQL update/],
    ];
    for (const [update, title] of refused) assertRdfError(await patch(update), 422, { title });
    assert.equal(systemTtl(), file, 'nothing was written');
  });

  it('answers 422 on an admin dataspace’s settings, 415 for another media type, 403 for other agents', async () => {
    assertRdfError(await patch(`INSERT { <> <${ns.dct}title> "x" } WHERE {}`, { path: '/admin/settings' }), 422, { title: /admin dataspace/ });
    assertRdfError(await s.request('PATCH', '/settings', { headers: { 'Content-Type': 'text/turtle' }, body: '<> <a> <b> .' }), 415);
    const update = `INSERT { <> <${ns.dct}title> "x" } WHERE {}`;
    assertRdfError(await patch(update, { as: 'secretary' }), 403);
    assertRdfError(await patch(update, { as: 'anonymous' }), 403);
    assert.doesNotMatch(systemTtl(), /dct:title/);
  });
});
