/**
 * The paged RDF listing of a container's children (issue 29, http/child-listing.ts): `?page=&limit=`
 * on a container's RDF GET gives a page of its children's membership triples in path order, with
 * Link rel first/prev/next; bad values are 400 with the RDF error body; writes (and deletes) are
 * in the next page asked for; a signed-up stranger sees only the children it may read.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ns } from '../src/rdf/namespaces.js';
import { assertRdfError, header, serverForFile, signUp, turtle, type Stranger, type TestServer } from './http-helpers.js';

const NT = { Accept: 'application/n-triples' };
let s: TestServer;
let stranger: Stranger;
serverForFile(async (server) => {
  s = server;
  const put = async (path: string, body: string) => assert.equal((await s.request('PUT', path, { headers: turtle, body })).status, 201, path);
  await put('box/', `<> a <${ns.dh}Container> .`);
  for (const name of ['c', 'a', 'e', 'b', 'd']) await put(`box/${name}/`, `<#this> <${ns.dct}title> "${name.toUpperCase()}" .`);
  await put('box/sub/', `<> a <${ns.dh}Container> .`);
  stranger = await signUp(s, 'Mallory');
  const acl = ns.acl;
  const rule = `<#this> a <${acl}Authorization> ; <${acl}agent> <${stranger.webId}> ; <${acl}mode> <${acl}Read> ; <${acl}accessTo> <${s.base}box/>, <${s.base}box/b/>, <${s.base}box/d/> .`;
  assert.equal((await s.request('PUT', '/admin/acl/authorizations/mallory-box/', { headers: turtle, body: rule })).status, 201);
  // a drop box: the stranger may add to it, not read it
  await put('drop/', `<> a <${ns.dh}Container> .`);
  for (const name of ['x', 'y']) await put(`drop/${name}/`, `<#this> <${ns.dct}title> "${name}" .`);
  const append = `<#this> a <${acl}Authorization> ; <${acl}agent> <${stranger.webId}> ; <${acl}mode> <${acl}Append> ; <${acl}accessTo> <${s.base}drop/> .`;
  assert.equal((await s.request('PUT', '/admin/acl/authorizations/mallory-drop/', { headers: turtle, body: append })).status, 201);
});

const subjects = (body: string) => [...body.matchAll(/^<([^>]*)> /gm)].map((m) => m[1]!.slice(s.base.length));

describe('the paged listing of a container', () => {
  it('gives a page of children in path order with first, prev and next links', async () => {
    const first = await s.request('GET', 'box/?limit=2', { headers: NT });
    assert.equal(first.status, 200);
    assert.match(header(first, 'content-type')!, /^application\/n-triples/);
    assert.deepEqual(subjects(first.body), ['box/a/', 'box/b/']);
    assert.match(first.body, new RegExp(`^<${s.base}box/a/> <${ns.sioc}has_container> <${s.base}box/> \\.$`, 'm'));
    const links = header(first, 'link')!;
    assert.match(links, new RegExp(`<${s.base}box/\\?page=2&limit=2>; rel="next"`));
    assert.match(links, new RegExp(`<${s.base}box/\\?page=1&limit=2>; rel="first"`));
    assert.doesNotMatch(links, /rel="prev"/);
    const last = await s.request('GET', 'box/?page=3&limit=2', { headers: NT });
    assert.deepEqual(subjects(last.body), ['box/e/', 'box/sub/']);
    assert.match(last.body, new RegExp(`<${s.base}box/sub/> <${ns.sioc}has_parent> <${s.base}box/>`), 'a child container says sioc:has_parent');
    assert.match(header(last, 'link')!, /page=2&limit=2>; rel="prev"/);
    assert.doesNotMatch(header(last, 'link')!, /rel="next"/);
    // the default limit holds them all; Turtle is negotiated as for the document
    const all = await s.request('GET', 'box/?page=1', { headers: { Accept: 'text/turtle' } });
    assert.equal(all.status, 200);
    assert.match(header(all, 'content-type')!, /^text\/turtle/);
    assert.match(header(all, 'link')!, /page=1&limit=100>; rel="first"/);
    // without ?page or ?limit the container is the document, as before
    assert.doesNotMatch((await s.request('GET', 'box/', { headers: NT })).body, /box\/a\/>/);
  });

  it('answers 400 with the RDF error body for a bad page or limit', async () => {
    for (const query of ['limit=0', 'limit=1001', 'page=0', 'page=-1', 'page=abc', 'limit=2.5', 'page=1e3', 'limit=']) {
      assertRdfError(await s.request('GET', `box/?${query}`, { headers: { Accept: 'text/turtle' } }), 400, { title: /page=|limit=/ });
    }
  });

  it('follows writes: a new child and a deleted one are in the next listing', async () => {
    assert.equal((await s.request('PUT', 'box/aa/', { headers: turtle, body: '<#this> a <http://example.org/T> .' })).status, 201);
    const head = await s.request('HEAD', 'box/e/');
    assert.equal((await s.request('DELETE', 'box/e/', { headers: { 'If-Match': String(head.headers.etag) } })).status, 204);
    const page = await s.request('GET', 'box/?limit=10', { headers: NT });
    assert.deepEqual(subjects(page.body), ['box/a/', 'box/aa/', 'box/b/', 'box/c/', 'box/d/', 'box/sub/']);
  });

  it('shows a signed-up stranger only the children it may read, paged over those', async () => {
    const page = await s.request('GET', 'box/?limit=1', { headers: NT, as: { pem: stranger.pem } });
    assert.equal(page.status, 200);
    assert.deepEqual(subjects(page.body), ['box/b/']);
    assert.match(header(page, 'link')!, /page=2&limit=1>; rel="next"/);
    const second = await s.request('GET', 'box/?page=2&limit=1', { headers: NT, as: { pem: stranger.pem } });
    assert.deepEqual(subjects(second.body), ['box/d/']);
    assert.doesNotMatch(header(second, 'link')!, /rel="next"/, 'no next page tells of children it cannot read');
    // no Read on the container: 403, and nothing of the children
    const refused = await s.request('GET', '?limit=5', { headers: NT, as: { pem: stranger.pem } });
    assertRdfError(refused, 403, { format: 'application/n-triples' });
    assert.doesNotMatch(refused.body, /box/);
    assertRdfError(await s.request('GET', 'box/?limit=5', { headers: NT, as: 'anonymous' }), 403, { format: 'application/n-triples' });
    // HEAD is open to any mode (SPEC §4.6.7), but a listing's Link would tell of a next page: Append alone learns nothing
    const head = await s.request('HEAD', 'drop/?limit=1', { headers: NT, as: { pem: stranger.pem } });
    assert.equal(head.status, 403);
    assert.doesNotMatch(String(header(head, 'link') ?? ''), /rel="next"/);
  });
});
