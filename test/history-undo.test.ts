/**
 * Undo at scale (issue 30): a container and every document under it restored as of a date (a
 * nested document, one created since and one deleted since), a revert of a commit, a conflicting
 * revert refused with its triples, access control refused as a whole, bad input. Each change is
 * one commit, checked with the git CLI; a refusal commits nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ns } from '../src/rdf/namespaces.js';
import { commitCount, git, headOf, unchangedRepository } from './helpers.js';
import { assertRdfError, certifiedAgent, putTurtle, serverForFile, type TestServer } from './http-helpers.js';

let s: TestServer;
let dir: string;
let before: string; // a date and time when the container was as first written
let beforeCommit: string;

const title = (t: string) => `<#this> <http://purl.org/dc/terms/title> "${t}" .`;
const etagOf = async (path: string) => String((await s.request('HEAD', path)).headers.etag);
const titleOf = async (path: string) => {
  const res = await s.request('GET', path, { headers: { Accept: 'application/n-triples' } });
  return res.status === 200 ? /title> "([^"]*)"/.exec(res.body)?.[1] : res.status;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const post = async (path: string, headers: Record<string, string> = {}) => s.request('POST', path, { headers: { 'If-Match': await etagOf(path.replace(/\?.*/, '')), ...headers } });
const ask = async (query: string) => JSON.parse((await s.request('GET', `/sparql?query=${encodeURIComponent(query)}`, { headers: { Accept: 'application/sparql-results+json' } })).body).boolean as boolean;

serverForFile(async (server, repo) => {
  s = server;
  dir = repo;
  await putTurtle(s, '/u/', `<> a <${ns.dh}Container> . ${title('container then')}`);
  await putTurtle(s, '/u/a/', title('a then'));
  await putTurtle(s, '/u/sub/', `<> a <${ns.dh}Container> . ${title('sub')}`);
  await putTurtle(s, '/u/sub/c/', title('c then'));
  await putTurtle(s, '/outside/', title('outside then'));
  beforeCommit = headOf(dir);
  await sleep(1100); // commit times are in seconds
  before = new Date().toISOString();
  await sleep(1100);
  await putTurtle(s, '/u/', `<> a <${ns.dh}Container> . ${title('container now')}`);
  await putTurtle(s, '/u/a/', title('a now'));
  assert.equal((await s.request('DELETE', '/u/sub/c/', { headers: { 'If-Match': await etagOf('/u/sub/c/') } })).status, 204);
  await putTurtle(s, '/u/new/', `<> a <${ns.dh}Container> . ${title('new since')}`);
  await putTurtle(s, '/u/new/deeper/', title('deeper since'));
  await putTurtle(s, '/outside/', title('outside now'));
});

describe('undo at scale: a container restored', () => {
  it('refuses without If-Match (428) or with a stale one (412), a malformed target (400), an unknown one (404), committing nothing', async () => {
    await unchangedRepository(dir, async () => {
      assertRdfError(await s.request('POST', `/u/?restore=${before}&recursive`), 428);
      assertRdfError(await s.request('POST', `/u/?restore=${before}&recursive`, { headers: { 'If-Match': '"stale"' } }), 412);
      assertRdfError(await post(`/u/?restore=yesterday&recursive`), 400);
      assertRdfError(await post(`/u/?restore=${'f'.repeat(40)}&recursive`), 404);
      assertRdfError(await post(`/u/?restore=1990-01-01T00:00:00Z&recursive`), 404);
    });
  });

  it('refuses as a whole an agent that may write the container but not every document under it, saying none', async () => {
    const writer = await certifiedAgent(s, 'Container Writer');
    await putTurtle(s, '/admin/acl/authorizations/undo-writer/', `<#this> a <${ns.acl}Authorization> ; <${ns.acl}agent> <${writer.webId}> ; <${ns.acl}mode> <${ns.acl}Read>, <${ns.acl}Write> ; <${ns.acl}accessTo> <${s.base}u/> .`);
    const etag = await etagOf('/u/');
    await unchangedRepository(dir, async () => {
      const res = await s.request('POST', `/u/?restore=${before}&recursive`, { as: { pem: writer.pem }, headers: { 'If-Match': etag } });
      const body = assertRdfError(res, 403);
      assert.doesNotMatch(body, /u\/a\/|u\/sub|u\/new/, 'the refusal names no document');
    });
  });

  it('restores the container and all under it as of a date, as one commit: changed ones back, deleted ones again, created ones gone; the index follows', async () => {
    const count = commitCount(dir);
    const res = await post(`/u/?restore=${encodeURIComponent(before)}&recursive`, { 'Lodestone-Message': 'Undo%20the%20afternoon' });
    assert.equal(res.status, 204, res.body);
    assert.ok(res.headers.etag, 'the container’s new ETag');
    assert.equal(commitCount(dir), count + 1, 'one commit');
    assert.match(git(dir, 'log', '-1', '--format=%B'), new RegExp(`^POST ${s.base}u/\\n\\nRestores ${s.base}u/ and the documents under it as of ${beforeCommit}: 5 documents\\.\\n\\nUndo the afternoon`));
    assert.deepEqual(git(dir, 'show', '--name-status', '--format=', 'HEAD').trim().split('\n').sort(), ['A\tgraphs/u/sub/c.nt', 'D\tgraphs/u/new.nt', 'D\tgraphs/u/new/deeper.nt', 'M\tgraphs/u.nt', 'M\tgraphs/u/a.nt']);
    assert.equal(await titleOf('/u/'), 'container then');
    assert.equal(await titleOf('/u/a/'), 'a then');
    assert.equal(await titleOf('/u/sub/c/'), 'c then');
    assert.equal(await titleOf('/u/new/'), 404);
    assert.equal(await titleOf('/outside/'), 'outside now', 'nothing outside the container');
    assert.match(git(dir, 'show', 'HEAD:graphs/u/a.nt'), new RegExp(`<${ns.dct}modified> "${new Date().getUTCFullYear()}`));
    assert.equal(git(dir, 'show', 'HEAD:graphs/u/a.nt').match(/dc\/terms\/modified/g)?.length, 1);
    assert.equal(await ask(`ASK { GRAPH <${s.base}u/new/> { ?s ?p ?o } }`), false, 'the index follows');
    assert.equal(await ask(`ASK { GRAPH <${s.base}u/sub/c/> { ?s ?p "c then" } }`), true);
    git(dir, 'fsck', '--strict');
  });
});

describe('undo at scale: a commit reverted', () => {
  it('reverts a commit across the documents it touched, as one commit', async () => {
    await putTurtle(s, '/r/', `<> a <${ns.dh}Container> . ${title('r')}`);
    await putTurtle(s, '/r/x/', `${title('x')} <#this> <http://purl.org/dc/terms/subject> "kept" .`);
    const etag = await etagOf('/r/x/');
    const patch = await s.request('PATCH', '/r/x/', { headers: { 'Content-Type': 'application/sparql-update', 'If-Match': etag }, body: `DELETE { <${s.base}r/x/#this> <http://purl.org/dc/terms/title> "x" } INSERT { <${s.base}r/x/#this> <http://purl.org/dc/terms/title> "x by mistake" ; <http://purl.org/dc/terms/description> "oops" } WHERE {}` });
    assert.equal(patch.status, 204, patch.body);
    const mistake = headOf(dir);
    await putTurtle(s, '/r/y/', title('y, later')); // a later commit elsewhere
    const count = commitCount(dir);
    const res = await post(`/?revert=${mistake.slice(0, 10)}`);
    assert.equal(res.status, 204, res.body);
    assert.equal(commitCount(dir), count + 1);
    assert.match(git(dir, 'log', '-1', '--format=%B'), new RegExp(`^POST ${s.base}\\n\\nReverts ${mistake}: 1 document\\.`));
    const x = git(dir, 'show', 'HEAD:graphs/r/x.nt');
    assert.match(x, /title> "x" \./);
    assert.doesNotMatch(x, /mistake|oops/);
    assert.match(x, /"kept"/);
    assert.equal(await titleOf('/r/y/'), 'y, later');
  });

  it('reverts the commit that created a document by deleting it', async () => {
    await putTurtle(s, '/r/made/', title('made'));
    const made = headOf(dir);
    const res = await post(`/r/?revert=${made}`);
    assert.equal(res.status, 204, res.body);
    assert.equal(await titleOf('/r/made/'), 404);
    assert.equal(git(dir, 'show', '--name-status', '--format=', 'HEAD').trim(), 'D\tgraphs/r/made.nt');
  });

  it('refuses with 409 naming the triples a later commit changed, committing nothing', async () => {
    await putTurtle(s, '/r/z/', title('z1'));
    await putTurtle(s, '/r/z/', title('z2'));
    const second = headOf(dir);
    await putTurtle(s, '/r/z/', title('z3'));
    const etag = String((await s.request('HEAD', '/', { headers: { Accept: 'application/n-triples' } })).headers.etag);
    await unchangedRepository(dir, async () => {
      const res = await s.request('POST', `/?revert=${second}`, { headers: { 'If-Match': etag, Accept: 'application/n-triples' } });
      assert.match(assertRdfError(res, 409, { format: 'application/n-triples' }), /later commits changed 1 of the triples/);
      const body = res.body;
      assert.match(body, /rdf-syntax-ns#object> "z2"/, 'the triple the later commit changed, reified');
      assert.match(body, new RegExp(`isPartOf> <${s.base}r/z/>`));
    });
    // an agent that may write the container but not the document is told nothing of its triples
    const writer = await certifiedAgent(s, 'Container Only');
    await putTurtle(s, '/admin/acl/authorizations/undo-r-writer/', `<#this> a <${ns.acl}Authorization> ; <${ns.acl}agent> <${writer.webId}> ; <${ns.acl}mode> <${ns.acl}Read>, <${ns.acl}Write> ; <${ns.acl}accessTo> <${s.base}r/> .`);
    const containerTag = await etagOf('/r/');
    await unchangedRepository(dir, async () => {
      const res = await s.request('POST', `/r/?revert=${second}`, { as: { pem: writer.pem }, headers: { 'If-Match': containerTag } });
      assertRdfError(res, 403);
      assert.doesNotMatch(res.body, /z2|r\/z\//, 'neither the triples nor the document');
    });
  });

  it('refuses a bad commit id (400), an unknown one (404), and an agent without Write on the documents (403)', async () => {
    const outsider = await certifiedAgent(s, 'Outsider');
    await unchangedRepository(dir, async () => {
      assertRdfError(await post('/?revert=HEAD'), 400);
      assertRdfError(await post(`/?revert=${'0'.repeat(40)}`), 404);
      assertRdfError(await s.request('POST', `/?revert=${beforeCommit}`, { as: { pem: outsider.pem }, headers: { 'If-Match': '*' } }), 403);
    });
  });
});
