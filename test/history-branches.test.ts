import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { git } from './helpers.js';
import { assertRdfError, turtle, type TestServer, serverForFile, signUp, type Stranger } from './http-helpers.js';
import { ns } from '../src/rdf/namespaces.js';

let s: TestServer;
let dir: string;
let stranger: Stranger;
let reader: Stranger;
const NT = { Accept: 'application/n-triples' };
const asNT = { format: 'application/n-triples' };
const titled = (title: string) => `<#this> <http://purl.org/dc/terms/title> "${title}" .`;
const rev = (ref: string) => {
  try {
    return git(dir, 'rev-parse', '--verify', '--quiet', ref).trim();
  } catch {
    return ''; // no such ref
  }
};

serverForFile(async (server, repo) => {
  s = server;
  dir = repo;
  for (let i = 0; i < 10; i++) assert.equal((await s.request('PUT', `/d${i}/`, { headers: turtle, body: titled(`main ${i}`) })).status, 201);
  [stranger, reader] = [await signUp(s, 'Stranger'), await signUp(s, 'Reader')];
  // the reader may read d0 only (and write nothing)
  const acl = ns.acl;
  const rule = `<#this> a <${acl}Authorization> ; <${acl}agent> <${reader.webId}> ; <${acl}mode> <${acl}Read> ; <${acl}accessTo> <${s.base}d0/> .`;
  assert.equal((await s.request('PUT', '/admin/acl/authorizations/branch-reader/', { headers: turtle, body: rule })).status, 201);
});

/** PUTs `title` into document d<i> on branch `draft`, quoting the branch's ETag of it. */
async function putOnBranch(i: number, title: string, branch = 'draft'): Promise<void> {
  const head = await s.request('HEAD', `/d${i}/?branch=${branch}`);
  const etag = head.status === 200 ? String(head.headers.etag) : String((await s.request('HEAD', `/d${i}/`)).headers.etag);
  const res = await s.request('PUT', `/d${i}/?branch=${branch}`, { headers: { ...turtle, 'If-Match': etag }, body: titled(title) });
  assert.equal(res.status, 200, res.body);
}

describe('branches: propose, review, merge (issue 30)', () => {
  it('writes ten documents on a branch, each a commit there, leaving main, its index and its files as they were', async () => {
    const main = rev('main');
    assertRdfError(await s.request('GET', '/d0/?branch=draft', { headers: NT }), 404, asNT); // no such branch yet
    for (let i = 0; i < 10; i++) await putOnBranch(i, `branch ${i}`);
    assert.equal(rev('main'), main, 'main did not move');
    assert.equal(git(dir, 'rev-list', '--count', 'main..draft').trim(), '10');
    assert.equal(git(dir, 'merge-base', 'main', 'draft').trim(), main, 'the branch started at main’s HEAD');
    assert.match(git(dir, 'show', 'draft:graphs/d4.nt'), /"branch 4"/);
    assert.match(git(dir, 'show', 'main:graphs/d4.nt'), /"main 4"/);
    assert.match((await s.request('GET', '/d4/?branch=draft', { headers: NT })).body, /"branch 4"/);
    assert.match((await s.request('GET', '/d4/', { headers: NT })).body, /"main 4"/);
    const ask = await s.request('GET', `/sparql?query=${encodeURIComponent('ASK { ?s ?p "branch 4" }')}`, { headers: { Accept: 'application/sparql-results+json' } });
    assert.equal(JSON.parse(ask.body).boolean, false, 'the index follows main only');
    git(dir, 'fsck', '--strict', '--no-dangling');
  });

  it('checks preconditions against the branch’s version', async () => {
    const onMain = String((await s.request('HEAD', '/d1/')).headers.etag);
    const onBranch = String((await s.request('HEAD', '/d1/?branch=draft')).headers.etag);
    assert.notEqual(onMain, onBranch);
    const before = rev('draft');
    assertRdfError(await s.request('PUT', '/d1/?branch=draft', { headers: { ...turtle, 'If-Match': onMain }, body: titled('stale') }), 412);
    assertRdfError(await s.request('PUT', '/d1/?branch=draft', { headers: turtle, body: titled('no precondition') }), 428);
    assert.equal(rev('draft'), before);
  });

  it('refuses names outside the safe subset with a 400, making no ref', async () => {
    const refs = git(dir, 'for-each-ref');
    for (const name of ['main', 'a..b', 'x.lock', '-x', '.hidden', 'a/b', 'a b', 'x'.repeat(65), '', 'ü']) {
      const res = await s.request('PUT', `/d1/?branch=${encodeURIComponent(name)}`, { headers: { ...turtle, 'If-Match': '*' }, body: titled('bad') });
      assertRdfError(res, 400);
      assertRdfError(await s.request('GET', `/?branch=${encodeURIComponent(name)}&changes`), 400);
    }
    assert.equal(git(dir, 'for-each-ref'), refs);
  });

  it('shows the branch’s diff against main, triple by triple, with the branch’s HEAD as its ETag', async () => {
    const res = await s.request('GET', '/?branch=draft&changes');
    assert.equal(res.status, 200, res.body);
    assert.equal(res.headers.etag, `"${rev('draft')}"`);
    for (let i = 0; i < 10; i++) {
      assert.match(res.body, new RegExp(`^# ${s.base}d${i}/$`, 'm'));
      assert.match(res.body, new RegExp(`^- <${s.base}d${i}/#this> <http://purl.org/dc/terms/title> "main ${i}" \\.$`, 'm'));
      assert.match(res.body, new RegExp(`^\\+ <${s.base}d${i}/#this> <http://purl.org/dc/terms/title> "branch ${i}" \\.$`, 'm'));
    }
  });

  it('reports a conflicting edit on main with a 409 listing the triples, committing nothing', async () => {
    const etag = String((await s.request('HEAD', '/d3/')).headers.etag);
    assert.equal((await s.request('PUT', '/d3/', { headers: { ...turtle, 'If-Match': etag }, body: titled('main changed 3') })).status, 200);
    const main = rev('main');
    const head = `"${rev('draft')}"`;
    assertRdfError(await s.request('POST', '/?branch=draft&changes'), 428);
    assertRdfError(await s.request('POST', '/?branch=draft&changes', { headers: { 'If-Match': '"0000000000000000000000000000000000000000"' } }), 412);
    const res = await s.request('POST', '/?branch=draft&changes', { headers: { 'If-Match': head, Accept: 'application/n-triples' } });
    assertRdfError(res, 409, asNT);
    assert.match(res.body, new RegExp(`<${s.base}d3/#this>`));
    assert.match(res.body, /"main changed 3"/);
    assert.match(res.body, /"branch 3"/);
    assert.doesNotMatch(res.body, /d5\/#this/, 'documents that merge cleanly are not listed');
    assert.equal(rev('main'), main, 'nothing was committed');
  });

  it('merges once the branch is fixed: one commit on main (one parent, as the mirror replays it), a merge commit on the branch, every change', async () => {
    await putOnBranch(3, 'main changed 3'); // the branch agrees with main
    const main = rev('main');
    const draft = rev('draft');
    const res = await s.request('POST', '/?branch=draft&changes', { headers: { 'If-Match': `"${draft}"` } });
    assert.equal(res.status, 204, res.body);
    assert.equal(git(dir, 'log', '-1', '--format=%P', 'main').trim(), main, 'main stays a first-parent chain');
    assert.equal(git(dir, 'rev-list', '--count', `${main}..main`).trim(), '1', 'one commit on main');
    assert.match(git(dir, 'log', '-1', '--format=%s%n%b', 'main'), new RegExp(`^MERGE .*\\?branch=draft\n+The changes of the branch draft at ${draft}`));
    assert.equal(git(dir, 'log', '-1', '--format=%P', 'draft').trim(), `${draft} ${rev('main')}`, 'the branch records the merge');
    assert.equal(git(dir, 'rev-parse', 'draft^{tree}').trim(), git(dir, 'rev-parse', 'main^{tree}').trim());
    assert.equal(git(dir, 'merge-base', 'main', 'draft').trim(), rev('main'));
    assert.match(git(dir, 'log', '--graph', '--oneline', '-3', 'draft'), /^\*\s+\S+ MERGE main into draft\n\|\\/);
    assert.equal(res.headers['lodestone-commit'], rev('main'));
    for (let i = 0; i < 10; i++) assert.match((await s.request('GET', `/d${i}/`, { headers: NT })).body, new RegExp(`"${i === 3 ? 'main changed 3' : `branch ${i}`}"`));
    const ask = await s.request('GET', `/sparql?query=${encodeURIComponent('ASK { ?s ?p "branch 7" }')}`, { headers: { Accept: 'application/sparql-results+json' } });
    assert.equal(JSON.parse(ask.body).boolean, true, 'the index follows main after a merge');
    // nothing left to review, but the change request stays, as merged: what the merge changed on main
    const merged = await s.request('GET', '/?branch=draft&changes', { headers: { Accept: 'text/plain' } });
    assert.equal(merged.status, 200, merged.body);
    assert.deepEqual(merged.body.split('\n').filter((line) => line.startsWith('# ')), Array.from({ length: 10 }, (_, i) => `# ${s.base}d${i}/`), 'the ten documents the merge changed on main');
    git(dir, 'fsck', '--strict', '--no-dangling');
  });

  it('applies the same access control as on main, and a refusal says nothing of what exists', async () => {
    await putOnBranch(0, 'second draft', 'review');
    await putOnBranch(5, 'second draft 5', 'review');
    const before = rev('review');
    const write = await s.request('PUT', '/d0/?branch=review', { as: { pem: reader.pem }, headers: { ...turtle, 'If-Match': '*' }, body: titled('reader') });
    assertRdfError(write, 403);
    assert.equal(rev('review'), before);
    // the reader sees the documents it may read, and only those
    const diff = await s.request('GET', '/?branch=review&changes', { as: { pem: reader.pem } });
    assert.equal(diff.status, 200, diff.body);
    assert.match(diff.body, /second draft"/);
    assert.doesNotMatch(diff.body, /d5|second draft 5/);
    assertRdfError(await s.request('POST', '/?branch=review&changes', { as: { pem: reader.pem }, headers: { 'If-Match': `"${before}"` } }), 403);
    assertRdfError(await s.request('DELETE', '/?branch=review&changes', { as: { pem: reader.pem } }), 403);
    // a stranger: a branch that exists and one that does not are refused alike
    const existing = await s.request('GET', '/?branch=review&changes', { as: { pem: stranger.pem } });
    const missing = await s.request('GET', '/?branch=nothing-here&changes', { as: { pem: stranger.pem } });
    assertRdfError(existing, 403);
    assertRdfError(missing, 403);
    assert.equal(existing.body.replace(/review/g, 'X'), missing.body.replace(/nothing-here/g, 'X'));
    assertRdfError(await s.request('GET', '/d0/?branch=review', { as: { pem: stranger.pem }, headers: NT }), 403, asNT);
    assertRdfError(await s.request('GET', '/d0/?branch=review', { as: 'anonymous', headers: NT }), 403, asNT);
    assert.equal(rev('review'), before);
  });

  it('serialises writes to main and to branches of the same repository: every one lands, once, and the repository stays whole', async () => {
    const [main, before] = [Number(git(dir, 'rev-list', '--count', 'main')), rev('busy')];
    assert.equal(before, '');
    const writes = Array.from({ length: 12 }, (_, i) => {
      const branch = i % 3 === 0 ? '' : `?branch=busy${i % 3}`;
      return s.request('PUT', `/busy-${i}/${branch}`, { headers: turtle, body: titled(`busy ${i}`) });
    });
    for (const res of await Promise.all(writes)) assert.ok(res.status === 201 || res.status === 200, `${res.status} ${res.body}`);
    assert.equal(Number(git(dir, 'rev-list', '--count', 'main')), main + 4);
    assert.equal(git(dir, 'rev-list', '--count', 'main..busy1').trim(), '4');
    assert.equal(git(dir, 'rev-list', '--count', 'main..busy2').trim(), '4');
    git(dir, 'fsck', '--strict', '--no-dangling');
  });

  it('discards a branch (its ref) with DELETE', async () => {
    await putOnBranch(2, 'to be thrown away', 'scrap');
    assertRdfError(await s.request('DELETE', '/?branch=scrap&changes', { headers: { 'If-Match': '"0000000000000000000000000000000000000000"' } }), 412);
    assert.equal((await s.request('DELETE', '/?branch=scrap&changes', { headers: { 'If-Match': `"${rev('scrap')}"` } })).status, 204);
    assert.equal(rev('scrap'), '');
    assertRdfError(await s.request('GET', '/d2/?branch=scrap', { headers: NT }), 404, asNT);
    assert.match((await s.request('GET', '/d2/', { headers: NT })).body, /"branch 2"/);
  });
});
