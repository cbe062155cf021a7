/**
 * The pusher (SPEC §9.1, issue 5) against the GitHub stand-in (test/fixtures/github-standin.ts):
 * a real bare repository behind GitHub's documented git database endpoints, status codes and
 * rate-limit headers. Checked with the git CLI: a clone of the mirror has the local commits with
 * the same SHAs; a foreign commit pushed meanwhile keeps every local change; rate limits are
 * waited out; progress survives a restart; the token appears in no log and no file.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startGitHubStandin, type GitHubStandin } from './fixtures/github-standin.js';
import { firstParentShas, git, removeTempDirs, tempDir } from './helpers.js';
import { freePort, mirroredDataDir, putTurtle, startServer, type TestServer } from './http-helpers.js';

const TOKEN = 'github_pat_MIRROR_TEST_TOKEN_42';

after(removeTempDirs);



/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}


describe('the GitHub pusher', () => {
  let bare: string;
  let standin: GitHubStandin;
  let s: TestServer;
  let data: string;
  let port: number;
  const logs: string[] = [];

  before(async () => {
    bare = join(tempDir('bare'), 'mirror.git');
    execFileSync('git', ['init', '--bare', '--quiet', '--initial-branch=main', bare]);
    standin = await startGitHubStandin({ bareRepo: bare, owner: 'lodestone', repo: 'mirror', token: TOKEN });
    port = await freePort();
    data = mirroredDataDir(port, 'https://github.com/lodestone/mirror', TOKEN);
    s = await startServer(['--port', String(port), '--github-api', standin.url, '--mirror-pacing', '0'], data, (line) => logs.push(line));
  });

  after(async () => {
    await s?.close();
    await standin?.close();
  });

  const repo = () => s.running.runtimes[0]!.dataspace.store.dir;
  const mirror = () => s.running.runtimes[0]!.mirror!;

  it('mirrors an empty repository with the same SHAs as the local chain', async () => {
    await putTurtle(s, '/a/', '<#this> <http://purl.org/dc/terms/title> "A" .');
    await putTurtle(s, '/b/', '<#this> <http://purl.org/dc/terms/title> "B" .');
    await putTurtle(s, '/a/', '<#this> <http://purl.org/dc/terms/title> "A2" .');
    assert.equal((await s.request('DELETE', '/b/', { headers: { 'If-Match': String((await s.request('HEAD', '/b/')).headers.etag) } })).status, 204);
    await mirror().settled();
    assert.deepEqual(firstParentShas(bare), firstParentShas(repo()), 'the remote branch is the local chain, SHA for SHA');
    git(bare, 'fsck', '--strict');
    const clone = join(tempDir('clone'), 'c');
    execFileSync('git', ['clone', '--quiet', bare, clone]);
    assert.deepEqual(firstParentShas(clone), firstParentShas(repo()));
    assert.equal(git(clone, 'status', '--porcelain'), '');
    assert.equal(readFileSync(join(clone, 'graphs/a.nt'), 'utf8'), git(repo(), 'show', 'HEAD:graphs/a.nt'));
    const status = mirror().status();
    assert.equal(status.lag, 0);
    assert.equal(status.state, 'idle');
    assert.equal(status.pushed?.remote, firstParentShas(repo())[0]);
  });

  it('replays local changes onto a foreign commit pushed meanwhile, and drops none', async () => {
    // somebody else commits to the mirror
    const other = join(tempDir('other'), 'o');
    execFileSync('git', ['clone', '--quiet', bare, other]);
    writeFileSync(join(other, 'README.md'), 'A note from somebody else.\n');
    git(other, 'add', 'README.md');
    execFileSync('git', ['-C', other, '-c', 'user.name=Other', '-c', 'user.email=other@example.org', 'commit', '--quiet', '-m', 'A foreign commit']);
    git(other, 'push', '--quiet', 'origin', 'main');
    const foreign = git(other, 'rev-parse', 'HEAD').trim();

    await putTurtle(s, '/c/', '<#this> <http://purl.org/dc/terms/title> "C" .');
    await putTurtle(s, '/a/', '<#this> <http://purl.org/dc/terms/title> "A3" .');
    await mirror().settled();
    const clone = join(tempDir('clone'), 'c2');
    execFileSync('git', ['clone', '--quiet', bare, clone]);
    assert.ok(git(clone, 'merge-base', '--is-ancestor', foreign, 'HEAD') === '', 'the foreign commit is kept');
    assert.equal(readFileSync(join(clone, 'README.md'), 'utf8'), 'A note from somebody else.\n');
    for (const file of ['graphs/a.nt', 'graphs/c.nt', 'graphs/root.nt']) assert.equal(readFileSync(join(clone, file), 'utf8'), git(repo(), 'show', `HEAD:${file}`), file);
    const messages = git(clone, 'log', '--format=%s', '-3').trim().split('\n');
    assert.deepEqual(messages.slice(0, 2), [`PUT ${s.base}a/`, `PUT ${s.base}c/`]);
    const map = readFileSync(join(repo(), '.git/lodestone/mirror-map'), 'utf8').trim().split('\n');
    assert.equal(map.length, 2, 'both replays are recorded local → remote');
    assert.ok(mirror().status().diverged >= 2);
    git(bare, 'fsck', '--strict');
  });

  it('waits out a secondary rate limit (Retry-After) and a primary one (x-ratelimit-reset)', async () => {
    standin.rateLimit('secondary', 1, { retryAfterSeconds: 1 });
    const started = Date.now();
    await putTurtle(s, '/d/', '<#this> <http://purl.org/dc/terms/title> "D" .');
    await mirror().settled();
    assert.ok(Date.now() - started >= 1000, 'waited for Retry-After');
    standin.rateLimit('primary', 1, { resetSeconds: 1 });
    await putTurtle(s, '/e/', '<#this> <http://purl.org/dc/terms/title> "E" .');
    await mirror().settled();
    const limited = standin.requests.filter((r) => r.status === 403 || r.status === 429);
    assert.equal(limited.length, 2);
    const clone = join(tempDir('clone'), 'c3');
    execFileSync('git', ['clone', '--quiet', bare, clone]);
    assert.equal(readFileSync(join(clone, 'graphs/e.nt'), 'utf8'), git(repo(), 'show', 'HEAD:graphs/e.nt'));
  });

  it('resumes after a restart without pushing again what the remote has', async () => {
    await s.close();
    const commitsBefore = standin.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/git/commits')).length;
    s = await startServer(['--port', String(port), '--github-api', standin.url, '--mirror-pacing', '0'], data, (line) => logs.push(line));
    await putTurtle(s, '/f/', '<#this> <http://purl.org/dc/terms/title> "F" .');
    await mirror().settled();
    const commitsAfter = standin.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/git/commits')).length;
    assert.equal(commitsAfter - commitsBefore, 1, 'only the new commit was replayed');
    const saved = JSON.parse(readFileSync(join(repo(), '.git/lodestone/mirror.json'), 'utf8')) as { pushed: { local: string } };
    assert.equal(saved.pushed.local, firstParentShas(repo())[0]);
  });

  it('mirrors an uploaded file byte for byte, binary as it is, beside its description', async () => {
    const bytes = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256))]);
    const res = await s.request('POST', '/uploads/', { headers: { 'Content-Type': 'image/png' }, body: bytes });
    assert.equal(res.status, 201, res.body);
    const sha1 = String(res.headers.location).split('/').pop()!;
    await mirror().settled();
    const clone = join(tempDir('clone'), 'c4');
    execFileSync('git', ['clone', '--quiet', bare, clone]);
    assert.deepEqual(readFileSync(join(clone, `graphs/uploads/${sha1}`)), bytes);
    assert.equal(readFileSync(join(clone, `graphs/uploads/${sha1}.nt`), 'utf8'), git(repo(), 'show', `HEAD:graphs/uploads/${sha1}.nt`));
  });

  it('never writes the token into a log line, a commit or a file of the repository', () => {
    for (const line of logs) assert.doesNotMatch(line, /MIRROR_TEST_TOKEN/);
    for (const file of filesUnder(join(repo(), '.git'))) assert.doesNotMatch(readFileSync(file).toString('latin1'), /MIRROR_TEST_TOKEN/, file);
    assert.doesNotMatch(git(bare, 'log', '--all', '-p'), /MIRROR_TEST_TOKEN/);
  });
});
