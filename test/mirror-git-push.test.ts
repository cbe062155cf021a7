/**
 * The pusher's second transport, `git push` over smart HTTP with the token (isomorphic-git),
 * against Debian's `git http-backend` on loopback (test/fixtures/git-http-server.ts): the bare
 * repository's branch is the local chain, SHA for SHA; a foreign commit pushed meanwhile is kept
 * and the local changes are replayed onto it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startGitHttpServer, type GitHttpServer } from './fixtures/git-http-server.js';
import { firstParentShas, git, removeTempDirs, tempDir } from './helpers.js';
import { freePort, mirroredDataDir, putTurtle, startServer, type TestServer } from './http-helpers.js';

const TOKEN = 'push-token-SECRET-77';

after(removeTempDirs);



describe('the git push transport (smart HTTP, git http-backend)', () => {
  let bare: string;
  let remote: GitHttpServer;
  let s: TestServer;
  const logs: string[] = [];

  before(async () => {
    bare = join(tempDir('bare'), 'mirror.git');
    execFileSync('git', ['init', '--bare', '--quiet', '--initial-branch=main', bare]);
    remote = await startGitHttpServer({ bareRepo: bare, token: TOKEN });
    const port = await freePort();
    const data = mirroredDataDir(port, remote.url, TOKEN);
    s = await startServer(['--port', String(port)], data, (line) => logs.push(line));
  });

  after(async () => {
    await s?.close();
    await remote?.close();
  });

  const repo = () => s.running.runtimes[0]!.dataspace.store.dir;
  const mirror = () => s.running.runtimes[0]!.mirror!;

  it('pushes the local chain with the same SHAs', async () => {
    await putTurtle(s, '/a/', '<#this> <http://purl.org/dc/terms/title> "A" .');
    await putTurtle(s, '/b/', '<#this> <http://purl.org/dc/terms/title> "B" .');
    await mirror().settled();
    assert.deepEqual(firstParentShas(bare), firstParentShas(repo()));
    git(bare, 'fsck', '--strict');
  });

  it('replays onto a foreign commit and keeps it', async () => {
    const other = join(tempDir('other'), 'o');
    execFileSync('git', ['clone', '--quiet', bare, other]);
    writeFileSync(join(other, 'NOTE'), 'foreign\n');
    git(other, 'add', 'NOTE');
    execFileSync('git', ['-C', other, '-c', 'user.name=Other', '-c', 'user.email=other@example.org', 'commit', '--quiet', '-m', 'foreign']);
    git(other, 'push', '--quiet', 'origin', 'main');
    const foreign = git(other, 'rev-parse', 'HEAD').trim();
    await putTurtle(s, '/c/', '<#this> <http://purl.org/dc/terms/title> "C" .');
    await mirror().settled();
    const clone = join(tempDir('clone'), 'c');
    execFileSync('git', ['clone', '--quiet', bare, clone]);
    assert.equal(git(clone, 'merge-base', '--is-ancestor', foreign, 'HEAD'), '');
    assert.equal(readFileSync(join(clone, 'NOTE'), 'utf8'), 'foreign\n');
    assert.equal(readFileSync(join(clone, 'graphs/c.nt'), 'utf8'), git(repo(), 'show', 'HEAD:graphs/c.nt'));
    git(bare, 'fsck', '--strict');
    for (const line of logs) assert.doesNotMatch(line, /SECRET-77/);
  });
});
