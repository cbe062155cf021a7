/**
 * Branches survive a kill (issue 30): a branch ref's lock file a kill left behind is cleared at
 * startup, as main's is, so the branch takes writes at once; and a merge whose commit on main was
 * made but whose record on the branch was not (a kill between the two, simulated by moving the
 * branch back) is recorded at startup or at the branch's next merge, which then reports no false
 * conflict. The server restarts in process on the same data directory.
 */
import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { git, removeTempDirs } from './helpers.js';
import { assertRdfError, startServer, turtle, type TestServer } from './http-helpers.js';

let s: TestServer;
let dir: string;
const NT = { Accept: 'application/n-triples' };
const titled = (title: string) => `<#this> <http://purl.org/dc/terms/title> "${title}" .`;
const rev = (ref: string) => git(dir, 'rev-parse', ref).trim();

before(async () => {
  s = await startServer();
  dir = s.running.runtimes[0]!.dataspace.store.dir;
});
after(async () => {
  await s?.close();
  removeTempDirs();
});

async function restart(): Promise<void> {
  await s.close();
  s = await startServer([], s.data);
}

/** PUTs `title` into `path`, on `branch` when given, quoting the ETag of the version it replaces. */
async function put(path: string, title: string, branch?: string): Promise<void> {
  const onBranch = branch === undefined ? undefined : await s.request('HEAD', `${path}?branch=${branch}`);
  const current = onBranch?.status === 200 ? onBranch : await s.request('HEAD', path);
  const headers = { ...turtle, ...(current.status === 200 ? { 'If-Match': String(current.headers.etag) } : { 'If-None-Match': '*' }) };
  const res = await s.request('PUT', branch === undefined ? path : `${path}?branch=${branch}`, { headers, body: titled(title) });
  assert.ok(res.status === 200 || res.status === 201, `${res.status} ${res.body}`);
}

async function merge(branch: string): Promise<{ status: number; body: string }> {
  const changes = await s.request('GET', `/?branch=${branch}&changes`, { headers: { Accept: 'text/plain' } });
  assert.equal(changes.status, 200, changes.body);
  return s.request('POST', `/?branch=${branch}&changes`, { headers: { 'If-Match': String(changes.headers.etag) } });
}

/**
 * A branch changes `first`, is merged, and the kill is simulated: the branch is moved back to the
 * HEAD main took, as if its merge commit was never made. Gives that HEAD and main's merge commit.
 */
async function mergeLeftUnrecorded(branch: string, first: string): Promise<{ head: string; merged: string }> {
  await put(first, 'as it was');
  await put(first, 'as the branch has it', branch);
  const head = rev(branch);
  assert.equal((await merge(branch)).status, 204);
  const [merged, record] = [rev('main'), rev(branch)];
  assert.equal(git(dir, 'log', '-1', '--format=%(trailers:key=Lodestone-Merged,valueonly)', merged).trim(), `${branch} ${head}`, 'main’s commit names the branch and the HEAD it took');
  git(dir, 'update-ref', `refs/heads/${branch}`, head, record);
  return { head, merged };
}

/** After a merge left unrecorded: main changes `first` again, the branch changes `second`; the merge takes both, with no conflict. */
async function mergeAgain(branch: string, first: string, second: string): Promise<void> {
  await put(first, 'changed on main since');
  await put(second, 'new on the branch', branch);
  const res = await merge(branch);
  assert.equal(res.status, 204, `a false conflict: ${res.body.slice(0, 400)}`);
  assert.match((await s.request('GET', first, { headers: NT })).body, /"changed on main since"/);
  assert.match((await s.request('GET', second, { headers: NT })).body, /"new on the branch"/);
}

describe('branches survive a kill (issue 30)', () => {
  it('clears a branch ref’s lock file a kill left, at startup, so the branch takes writes', async () => {
    await put('/locked-doc/', 'on the branch', 'locked');
    await s.close();
    const lock = join(dir, '.git', 'refs', 'heads', 'locked.lock');
    writeFileSync(lock, rev('locked') + '\n'); // what a writer killed between taking the lock and renaming it leaves
    s = await startServer([], s.data);
    assert.equal(existsSync(lock), false, 'the stale lock is gone');
    await put('/locked-doc/', 'again on the branch', 'locked');
    assert.match((await s.request('GET', '/locked-doc/?branch=locked', { headers: NT })).body, /"again on the branch"/);
  });

  it('clears a comment thread’s lock file a kill left, at startup, so the thread takes comments', async () => {
    await put('/thread-doc/', 'on the branch', 'thread');
    const comment = (text: string) => s.request('POST', '/?branch=thread&comments', { headers: { 'Content-Type': 'text/plain' }, body: text });
    const first = await comment('before the kill');
    assert.equal(first.status, 201, first.body);
    await s.close();
    const lock = join(dir, '.git', 'refs', 'lodestone', 'comments', 'thread.lock');
    writeFileSync(lock, rev('refs/lodestone/comments/thread') + '\n');
    s = await startServer([], s.data);
    assert.equal(existsSync(lock), false, 'the stale lock is gone');
    const second = await comment('after the restart');
    assert.equal(second.status, 201, second.body);
    assert.equal(git(dir, 'rev-list', '--count', 'refs/lodestone/comments/thread').trim(), '2', 'both comments are on the thread');
  });

  it('answers a write that finds the branch’s lock held (by a live git, say) with a 503 that names no file of the server', async () => {
    const lock = join(dir, '.git', 'refs', 'heads', 'locked.lock');
    writeFileSync(lock, rev('locked') + '\n');
    try {
      const etag = String((await s.request('HEAD', '/locked-doc/?branch=locked')).headers.etag);
      const res = await s.request('PUT', '/locked-doc/?branch=locked', { headers: { ...turtle, 'If-Match': etag }, body: titled('while locked') });
      assertRdfError(res, 503);
      assert.equal(res.headers['retry-after'], '1');
      assert.ok(!res.body.includes(s.data) && !res.body.includes('.lock'), res.body);
    } finally {
      rmSync(lock, { force: true });
    }
  });

  it('records at startup a merge a kill left unrecorded, and the next merge reports no false conflict', async () => {
    const { head, merged } = await mergeLeftUnrecorded('late', '/late-1/');
    await restart();
    assert.equal(git(dir, 'log', '-1', '--format=%P', 'late').trim(), `${head} ${merged}`, 'the branch records main’s merge commit');
    await mergeAgain('late', '/late-1/', '/late-2/');
  });

  it('records it at the branch’s next merge too, without a restart', async () => {
    await mergeLeftUnrecorded('later', '/later-1/');
    await mergeAgain('later', '/later-1/', '/later-2/');
    git(dir, 'fsck', '--strict', '--no-dangling');
  });
});
