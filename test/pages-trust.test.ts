/**
 * The pages as an attacker meets them (issue 25): a stranger who signed up a minute ago and owns its
 * profile, and anyone with a query string. Its IRIs of other schemes are never links, its huge
 * values are drawn off the thread that answers requests, a container never counts or orders what
 * the viewer cannot read, a thousand query strings draw a page once, and the labels of a
 * dataspace's ontology are replaced, not kept, when it changes.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ns } from '../src/rdf/namespaces.js';
import { header, putTurtle, serverForFile, signUp, turtle, type Response, type Stranger, type TestServer } from './http-helpers.js';

const HTML = { Accept: 'text/html' };

let s: TestServer;
serverForFile((server) => {
  s = server;
});

/** Signs up as anyone on the web can (http-helpers.ts), and speaks with its certificate. */
async function signUpAs(name: string): Promise<Stranger & { as: (method: string, path: string, headers?: Record<string, string>, body?: string) => Promise<Response> }> {
  const stranger = await signUp(s, name);
  const as = (method: string, path: string, headers: Record<string, string> = {}, body?: string) => s.request(method, path, { as: { pem: stranger.pem }, headers, body });
  return { ...stranger, as };
}

describe('pages, as a stranger who signed up sees and shapes them', () => {
  let stranger: Awaited<ReturnType<typeof signUpAs>>;
  before(async () => {
    stranger = await signUpAs('Mallory');
  });

  it('draws the IRIs of other schemes in its profile as text, never as links or images, and its huge value off the thread that answers requests', async () => {
    const read = await stranger.as('GET', stranger.profile, { Accept: 'text/turtle' });
    assert.equal(read.status, 200, read.body);
    const huge = 'x'.repeat(60_000); // a profile holds 64 KiB at most; past 16 K characters a page is drawn in the worker
    const update = `INSERT { <${stranger.webId}> <${ns.foaf}homepage> <javascript:alert(document.cookie)> ; <${ns.foaf}img> <data:image/svg+xml,%3Csvg%20onload%3Dalert(1)%3E> ; <${ns.rdfs}seeAlso> <data:text/html,%3Cscript%3Ealert(1)%3C/script%3E> ; <javascript:alert(2)> "a predicate" ; <${ns.rdfs}comment> "${huge}" } WHERE {}`;
    const patched = await stranger.as('PATCH', stranger.profile, { 'Content-Type': 'application/sparql-update', Accept: 'text/turtle', 'If-Match': header(read, 'etag')! }, update);
    assert.equal(patched.status, 204, patched.body);
    const drawn = { ...s.running.pages.draws };
    const page = await s.request('GET', stranger.profile, { headers: HTML });
    assert.equal(page.status, 200);
    for (const [, attribute, value] of page.body.matchAll(/\b(href|src|action)="([^"]*)"/g)) assert.match(value!, /^(https?:|\/|#|\?)/, `${attribute}="${value!.slice(0, 80)}"`);
    assert.ok(page.body.includes('title="javascript:alert(document.cookie)"'), 'the IRI is shown, as text');
    assert.ok(page.body.includes(huge), 'the huge value is drawn');
    assert.equal(s.running.pages.draws.worker, drawn.worker + 1, 'in the page worker');
    assert.equal(s.running.pages.draws.main, drawn.main);
  });

  it('shows a container’s count, order and pages over the children the viewer may read only', async () => {
    await putTurtle(s, 'shelf/', `<> a <${ns.dh}Container> ; <${ns.dct}title> "Shelf" .`);
    for (const [slug, title] of [['a-secret', 'AAA secret plans'], ['b-open', 'BBB open notes'], ['c-open', 'CCC open list'], ['d-secret', 'DDD secret list']]) await putTurtle(s, `shelf/${slug}/`, `<#this> <${ns.dct}title> "${title}" .`);
    await putTurtle(s, '/admin/acl/authorizations/mallory-shelf/', `<#this> a <${ns.acl}Authorization> ; <${ns.acl}agent> <${stranger.webId}> ; <${ns.acl}mode> <${ns.acl}Read> ; <${ns.acl}accessTo> <${s.base}shelf/>, <${s.base}shelf/b-open/>, <${s.base}shelf/c-open/> .`);
    const owner = await s.request('GET', 'shelf/?order=title', { headers: HTML });
    assert.match(owner.body, /\(4 documents\)/, 'the owner reads all');
    for (const order of ['title', 'newest']) {
      const page = await stranger.as('GET', `/shelf/?order=${order}`, HTML);
      assert.equal(page.status, 200);
      assert.match(page.body, /\(2 documents\)/, 'the count is of readable children');
      assert.deepEqual([...page.body.matchAll(/<li><a href="[^"]*shelf\/([^"/]+)\/">/g)].map((m) => m[1]).sort(), ['b-open', 'c-open']);
      assert.doesNotMatch(page.body, /secret/);
    }
    const second = await stranger.as('GET', '/shelf/?order=title&page=2', HTML);
    assert.match(second.body, /\(2 documents\)[^]*<p>Nothing here yet\.<\/p>/, 'no second page of what cannot be read');
    assert.doesNotMatch(second.body, /rel="prev"/, 'one page of readable children: no pager');
  });
});

describe('the page cache, against a thousand query strings', () => {
  it('draws a 3,000-triple page once for any query string a page does not read, and echoes none of them', async () => {
    const lines = Array.from({ length: 3_000 }, (_, i) => `<#t${String(i).padStart(4, '0')}> <${ns.dct}title> "triple ${i}" .`);
    assert.equal((await s.request('PUT', 'big/', { headers: turtle, body: lines.join('\n') })).status, 201);
    const first = await s.request('GET', 'big/?junk=0', { headers: HTML });
    assert.equal(first.status, 200);
    assert.ok(!first.body.includes('junk'), 'the language switch does not echo what the page does not read');
    const drawn = s.running.pages.draws.main + s.running.pages.draws.worker;
    for (let i = 1; i <= 1_000; i++) {
      // HEAD is answered as GET is, page and all (without sending its 1.6 MB a thousand times)
      const page = await s.request(i % 100 === 0 ? 'GET' : 'HEAD', `big/?junk=${i}&utm_source=${i}x`, { headers: HTML });
      assert.equal(page.status, 200);
      assert.equal(header(page, 'etag'), header(first, 'etag'), 'the same page');
    }
    assert.equal(s.running.pages.draws.main + s.running.pages.draws.worker, drawn, 'not one page drawn again');
    const spanish = await s.request('GET', 'big/?lang=es&junk=x', { headers: HTML });
    assert.equal(header(spanish, 'content-language'), 'es');
    assert.equal(s.running.pages.draws.main + s.running.pages.draws.worker, drawn + 1, 'a language the page reads is a page of its own');
  });

  it('keeps a container’s page by the children it shows: its order and page only, not other parameters', async () => {
    await putTurtle(s, 'box/', `<> a <${ns.dh}Container> .`);
    await putTurtle(s, 'box/one/', `<#this> <${ns.dct}title> "One" .`);
    await s.request('GET', 'box/?order=title&x=1', { headers: HTML });
    const drawn = s.running.pages.draws.main + s.running.pages.draws.worker;
    for (let i = 0; i < 50; i++) await s.request('GET', `box/?order=title&x=${i}`, { headers: HTML });
    assert.equal(s.running.pages.draws.main + s.running.pages.draws.worker, drawn);
    await putTurtle(s, 'box/two/', `<#this> <${ns.dct}title> "Two" .`);
    const after = await s.request('GET', 'box/?order=title', { headers: HTML });
    assert.match(after.body, /\(2 documents\)/, 'a new child is a new page');
  });
});

describe('labels of the namespace ontology', () => {
  it('are replaced when the ontology changes, not kept until restart', async () => {
    const colour = (label: string) => `<#this> a <${ns.owl}Ontology> . <https://example.org/ns#colour> <${ns.rdfs}label> "${label}"@en .`;
    await putTurtle(s, '/admin/ontologies/', `<> a <${ns.dh}Container> .`);
    await putTurtle(s, '/admin/ontologies/colours/', colour('favourite colour'));
    await putTurtle(s, 'coloured/', `<#this> <https://example.org/ns#colour> "blue" .`);
    const label = async () => {
      assert.equal((await s.request('GET', 'ns', { headers: { Accept: 'text/turtle' } })).status, 200); // the ontology is built
      return />([^<]*)<\/a><\/th><td><span class="literal">blue/.exec((await s.request('GET', 'coloured/', { headers: HTML })).body)?.[1];
    };
    assert.equal(await label(), 'favourite colour');
    const read = await s.request('GET', '/admin/ontologies/colours/', { headers: { Accept: 'text/turtle' } });
    assert.equal((await s.request('PUT', '/admin/ontologies/colours/', { headers: { ...turtle, Accept: 'text/turtle', 'If-Match': header(read, 'etag')! }, body: colour('preferred colour') })).status, 200);
    assert.equal(await label(), 'preferred colour');
    const again = await s.request('GET', '/admin/ontologies/colours/', { headers: { Accept: 'text/turtle' } });
    assert.equal((await s.request('DELETE', '/admin/ontologies/colours/', { headers: { Accept: 'text/turtle', 'If-Match': header(again, 'etag')! } })).status, 204);
    assert.equal(await label(), 'colour', 'an ontology removed names nothing');
  });
});
