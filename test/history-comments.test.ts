import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import jsonld from 'jsonld';
import { Parser } from 'n3';
import { git } from './helpers.js';
import { assertRdfError, header, turtle, type TestServer, serverForFile, signUp, type Stranger } from './http-helpers.js';
import { ns } from '../src/rdf/namespaces.js';

let s: TestServer;
let dir: string;
let stranger: Stranger;
let reader: Stranger;
let commenter: Stranger;
const PLAIN = { 'Content-Type': 'text/plain; charset=utf-8' };
const titled = (title: string) => `<#this> <http://purl.org/dc/terms/title> "${title}" .`;
const rev = (ref: string) => {
  try {
    return git(dir, 'rev-parse', '--verify', '--quiet', ref).trim();
  } catch {
    return ''; // no such ref
  }
};
const THREAD = 'refs/lodestone/comments/review';

serverForFile(async (server, repo) => {
  s = server;
  dir = repo;
  for (let i = 0; i < 2; i++) assert.equal((await s.request('PUT', `/c${i}/`, { headers: turtle, body: titled(`main ${i}`) })).status, 201);
  for (const [branch, doc] of [['review', 'c0'], ['scrap', 'c0'], ['open', 'c1']]) {
    const etag = String((await s.request('HEAD', `/${doc}/`)).headers.etag);
    assert.equal((await s.request('PUT', `/${doc}/?branch=${branch}`, { headers: { ...turtle, 'If-Match': etag }, body: titled(`on ${branch}`) })).status, 200);
  }
  [stranger, reader, commenter] = [await signUp(s, 'Stranger'), await signUp(s, 'Reader'), await signUp(s, 'Commenter')];
  // the reader may read c0; the commenter may read and append to it
  const acl = ns.acl;
  const rule = (agent: string, modes: string[]) => `<#this> a <${acl}Authorization> ; <${acl}agent> <${agent}> ; ${modes.map((m) => `<${acl}mode> <${acl}${m}>`).join(' ; ')} ; <${acl}accessTo> <${s.base}c0/> .`;
  assert.equal((await s.request('PUT', '/admin/acl/authorizations/comment-reader/', { headers: turtle, body: rule(reader.webId, ['Read']) })).status, 201);
  assert.equal((await s.request('PUT', '/admin/acl/authorizations/comment-appender/', { headers: turtle, body: rule(commenter.webId, ['Read', 'Append']) })).status, 201);
  // anyone, signed in or not, may read and append to c1 (the branch "open" changes it)
  const open = `<#this> a <${acl}Authorization> ; <${acl}agentClass> <http://xmlns.com/foaf/0.1/Agent> ; <${acl}mode> <${acl}Read>, <${acl}Append> ; <${acl}accessTo> <${s.base}c1/> .`;
  assert.equal((await s.request('PUT', '/admin/acl/authorizations/comment-open/', { headers: turtle, body: open })).status, 201);
});

/** The triples of an RDF body, parsed with n3 (JSON-LD through jsonld's N-Quads). */
async function triples(body: string, type: string) {
  const text = type === 'application/ld+json' ? ((await jsonld.toRDF(JSON.parse(body), { format: 'application/n-quads' })) as unknown as string) : body;
  return new Parser({ format: type === 'application/ld+json' ? 'application/n-quads' : type }).parse(text);
}

describe('comments on a change request (issue 30)', () => {
  const thread = () => `${s.base}?branch=review&comments`;
  const changes = () => `${s.base}?branch=review&changes`;

  it('adds a comment as a sioc:Post, one commit on a ref of its own, leaving the branch and main as they were', async () => {
    const [main, branch] = [rev('main'), rev('review')];
    const res = await s.request('POST', '/?branch=review&comments', { headers: PLAIN, body: 'Looks good,\r\nbut <script>alert(1)</script> the "title"?\t\n' });
    assert.equal(res.status, 201, res.body);
    assert.equal(header(res, 'location'), `${thread()}#comment-1`);
    assert.equal(rev('main'), main, 'main did not move');
    assert.equal(rev('review'), branch, 'the branch did not move');
    assert.equal(git(dir, 'rev-list', '--count', THREAD).trim(), '1');
    const log = git(dir, 'log', '-1', '--format=%an%n%s', THREAD).trim().split('\n');
    assert.equal(log[1], `POST ${changes()}`);
    assert.ok(log[0]!.startsWith(`${s.admin}acl/agents/`), `the author is the agent’s WebID: ${log[0]}`);
    assert.equal(git(dir, 'ls-tree', '--name-only', THREAD).trim(), 'comments.nt');
    const stored = git(dir, 'show', `${THREAD}:comments.nt`);
    assert.match(stored, /"Looks good,\\nbut <script>alert\(1\)<\/script> the \\"title\\"\?"/);
    assert.doesNotMatch(git(dir, 'ls-tree', '-r', '--name-only', 'review'), /comments/);
    git(dir, 'fsck', '--strict', '--no-dangling');
  });

  it('serves the thread in Turtle, JSON-LD and N-Triples, with an ETag, 304 and HEAD', async () => {
    for (const type of ['text/turtle', 'application/ld+json', 'application/n-triples']) {
      const res = await s.request('GET', '/?branch=review&comments', { headers: { Accept: type } });
      assert.equal(res.status, 200, res.body);
      assert.equal(header(res, 'content-type')?.split(';')[0], type);
      const quads = await triples(res.body, type);
      const post = `${thread()}#comment-1`;
      const of = (p: string) => quads.filter((q) => q.subject.value === post && q.predicate.value === p).map((q) => q.object);
      assert.deepEqual(of(ns.rdf + 'type').map((o) => o.value), [ns.sioc + 'Post']);
      assert.equal(of(ns.sioc + 'content')[0]?.value, 'Looks good,\nbut <script>alert(1)</script> the "title"?');
      assert.equal((of(ns.sioc + 'content')[0] as { datatype?: { value: string } }).datatype?.value, ns.xsd + 'string', 'a plain literal');
      assert.equal((of(ns.dct + 'created')[0] as { datatype?: { value: string } }).datatype?.value, ns.xsd + 'dateTime');
      const [creator] = of(ns.sioc + 'has_creator').map((o) => o.value);
      assert.ok(creator?.startsWith(`${s.admin}acl/agents/`), `the creator is the owner’s WebID: ${creator}`);
      assert.deepEqual(of(ns.foaf + 'maker').map((o) => o.value), [creator]);
      assert.deepEqual(of(ns.sioc + 'has_container').map((o) => o.value), [changes()]);
      const etag = String(res.headers.etag);
      assert.equal((await s.request('GET', '/?branch=review&comments', { headers: { Accept: type, 'If-None-Match': etag } })).status, 304);
      const head = await s.request('HEAD', '/?branch=review&comments', { headers: { Accept: type } });
      assert.equal(head.status, 200);
      assert.equal(head.body, '');
      assert.equal(head.headers.etag, etag);
    }
  });

  it('lets a reader of the change request read the thread, but not comment without Append; the commenter comments', async () => {
    assert.equal((await s.request('GET', '/?branch=review&comments', { as: { pem: reader.pem }, headers: { Accept: 'text/turtle' } })).status, 200);
    const before = rev(THREAD);
    assertRdfError(await s.request('POST', '/?branch=review&comments', { as: { pem: reader.pem }, headers: PLAIN, body: 'from a reader' }), 403);
    assert.equal(rev(THREAD), before);
    const res = await s.request('POST', '/?branch=review&comments', { as: { pem: commenter.pem }, headers: PLAIN, body: 'from the commenter' });
    assert.equal(res.status, 201, res.body);
    assert.match(git(dir, 'show', `${THREAD}:comments.nt`), new RegExp(`#comment-2> <${ns.sioc}has_creator> <${commenter.webId.replace(/[.?#]/g, '\\$&')}> \\.`));
  });

  it('refuses a stranger and anonymous agents with the 403 of a branch that does not exist, writing nothing', async () => {
    const before = git(dir, 'for-each-ref');
    for (const as of [{ pem: stranger.pem }, 'anonymous' as const]) {
      for (const method of ['GET', 'POST']) {
        const options = { as, headers: PLAIN, body: method === 'POST' ? 'spam' : undefined };
        const existing = await s.request(method, '/?branch=review&comments', options);
        const missing = await s.request(method, '/?branch=nothing-here&comments', options);
        assertRdfError(existing, 403);
        assertRdfError(missing, 403);
        assert.equal(existing.body.replace(/review/g, 'X'), missing.body.replace(/nothing-here/g, 'X'));
      }
    }
    assert.equal(git(dir, 'for-each-ref'), before);
  });

  it('refuses an anonymous comment where anonymous agents may append: a comment has an author', async () => {
    assert.equal((await s.request('GET', '/?branch=open&comments', { as: 'anonymous', headers: { Accept: 'text/turtle' } })).status, 200, 'anonymous may read it');
    const refused = await s.request('POST', '/?branch=open&comments', { as: 'anonymous', headers: PLAIN, body: 'who am I' });
    assertRdfError(refused, 403);
    const missing = await s.request('POST', '/?branch=nothing-here&comments', { as: 'anonymous', headers: PLAIN, body: 'who am I' });
    assert.equal(refused.body.replace(/open/g, 'X'), missing.body.replace(/nothing-here/g, 'X'), 'refused as a branch that does not exist is');
    assert.equal(rev('refs/lodestone/comments/open'), '');
    assert.equal((await s.request('POST', '/?branch=open&comments', { as: { pem: stranger.pem }, headers: PLAIN, body: 'a signed-in stranger may, here' })).status, 201);
  });

  it('refuses empty text, text over 10,000 characters, control characters and other media types, writing nothing', async () => {
    const before = rev(THREAD);
    for (const body of ['', ' \n\t ', 'x'.repeat(10_001), 'bell\u0007', 'nul\u0000', 'escape\u001b[31m', 'c1\u0085']) assertRdfError(await s.request('POST', '/?branch=review&comments', { headers: PLAIN, body }), 400);
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    assertRdfError(await s.request('POST', '/?branch=review&comments', { headers: form, body: 'other=field' }), 400);
    assertRdfError(await s.request('POST', '/?branch=review&comments', { headers: form, body: 'content=%ZZ' }), 400);
    assertRdfError(await s.request('POST', '/?branch=review&comments', { headers: turtle, body: '<a> <b> <c> .' }), 415);
    assert.equal(rev(THREAD), before);
    // 10,000 characters, astral ones counted once, are accepted
    assert.equal((await s.request('POST', '/?branch=review&comments', { headers: form, body: `content=${encodeURIComponent('😀'.repeat(10_000))}` })).status, 201);
  });

  it('keeps every one of concurrent comments, each its own commit', async () => {
    const count = Number(git(dir, 'rev-list', '--count', THREAD));
    const posts = await Promise.all(Array.from({ length: 8 }, (_, i) => s.request('POST', '/?branch=review&comments', { headers: PLAIN, body: `at once ${i}` })));
    for (const res of posts) assert.equal(res.status, 201, res.body);
    assert.equal(new Set(posts.map((res) => header(res, 'location'))).size, 8, 'each comment its own IRI');
    assert.equal(Number(git(dir, 'rev-list', '--count', THREAD)), count + 8);
    const stored = git(dir, 'show', `${THREAD}:comments.nt`);
    for (let i = 0; i < 8; i++) assert.match(stored, new RegExp(`"at once ${i}"`));
  });

  it('a page form sends the browser back to the change request, at its comment', async () => {
    const res = await s.request('POST', '/?branch=review&comments', { headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'text/html' }, body: 'content=From+the+page' });
    assert.equal(res.status, 303, res.body);
    assert.match(header(res, 'location') ?? '', /\?branch=review&changes#comment-\d+$/);
    const page = await s.request('GET', '/?branch=review&changes', { headers: { Accept: 'text/html' } });
    assert.match(page.body, /From the page/);
    assert.match(page.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.doesNotMatch(page.body, /<script>alert/);
  });

  it('still serves a merged change request, as merged, with what the merge changed on main and its comments; a stranger is still refused', async () => {
    assert.equal((await s.request('POST', '/?branch=open&comments', { headers: PLAIN, body: 'Ready to merge' })).status, 201);
    const before = await s.request('GET', '/?branch=open&changes', { headers: { Accept: 'text/plain' } });
    assert.equal(before.status, 200);
    const merge = await s.request('POST', '/?branch=open&changes', { headers: { 'If-Match': String(before.headers.etag) } });
    assert.equal(merge.status, 204, merge.body);
    const commit = header(merge, 'lodestone-commit')!;
    assert.equal(git(dir, 'rev-parse', 'main').trim(), commit);
    // before this, the branch equal to main was "no branch with changes": 404, and its comments with it
    const plain = await s.request('GET', '/?branch=open&changes', { headers: { Accept: 'text/plain' } });
    assert.equal(plain.status, 200, plain.body);
    assert.equal(plain.body, before.body, 'what was merged: the changes reviewed');
    const page = await s.request('GET', '/?branch=open&changes', { headers: { Accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(page.body, new RegExp(`Merged into main as ${commit.slice(0, 7)}`));
    assert.doesNotMatch(page.body, /<form class="change-request"/, 'nothing left to merge');
    assert.match(page.body, /Ready to merge/);
    const thread = await s.request('GET', '/?branch=open&comments', { headers: { Accept: 'text/turtle' } });
    assert.equal(thread.status, 200);
    assert.match(thread.body, /Ready to merge/);
    assert.equal((await s.request('POST', '/?branch=open&changes', { headers: { 'If-Match': `"${rev('open')}"` } })).status, 204, 'merging again changes nothing');
    assert.equal(git(dir, 'rev-parse', 'main').trim(), commit);
    assert.equal((await s.request('GET', '/?branch=review&changes', { as: { pem: stranger.pem }, headers: { Accept: 'text/plain' } })).status, 403);
  });

  it('discarding the branch removes its comments', async () => {
    assert.equal((await s.request('POST', '/?branch=scrap&comments', { headers: PLAIN, body: 'to go' })).status, 201);
    assert.notEqual(rev('refs/lodestone/comments/scrap'), '');
    assert.equal((await s.request('DELETE', '/?branch=scrap&changes', { headers: { 'If-Match': `"${rev('scrap')}"` } })).status, 204);
    assert.equal(rev('refs/lodestone/comments/scrap'), '');
    assert.notEqual(rev(THREAD), '', 'another branch’s thread stays');
  });
});
