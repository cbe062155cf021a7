/**
 * A dataspace's repository over git's smart HTTP protocol (issue 29: what replicas follow), with the
 * git CLI over real TLS and client certificates: the secretary clones and fetches each dataspace's
 * history, SHA for SHA; the owner, a signed-up stranger and anonymous clients are refused; nothing
 * can be pushed; a malformed request is a 4xx and changes nothing.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { git, headOf, tempDir, removeTempDirs } from './helpers.js';
import { assertRdfError, putTurtle, signUp, startServer, type TestServer } from './http-helpers.js';

let s: TestServer;
let work: string;
let ca: string;
before(async () => {
  s = await startServer([], undefined, undefined, {}, { tls: true });
  work = tempDir('git-clients');
  ca = join(work, 'server.pem');
  writeFileSync(ca, s.running.agents.server.certPem);
  await putTurtle(s, '/git-a/', '<#this> <http://purl.org/dc/terms/title> "a" .');
});
after(async () => {
  await s.close();
  removeTempDirs();
});

/** The git CLI as a client holding `pem` (none: anonymous), trusting the server's certificate and nothing of the user's configuration. */
function gitAs(pem: string | undefined, ...args: string[]): Promise<{ status: number | null; stderr: string }> {
  const cert = pem ? ['-c', `http.sslCert=${pem}`, '-c', `http.sslKey=${pem}`] : [];
  // not spawnSync: the server answers on this thread
  const child = spawn('git', ['-c', `http.sslCAInfo=${ca}`, ...cert, ...args], { env: { PATH: process.env.PATH, HOME: work, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stderr })));
}

const endUserRepo = () => s.running.runtimes[0]!.dataspace.store.dir;
const adminRepo = () => s.running.runtimes[1]!.dataspace.store.dir;

describe('the repository over smart HTTP', () => {
  it('lets the secretary clone each dataspace, with the server’s commits SHA for SHA', async () => {
    const secretary = s.running.agents.secretary.credentialsFile;
    for (const [url, repo, name] of [[`${s.base}.git`, endUserRepo(), 'end-user'], [`${s.admin}.git`, adminRepo(), 'admin']] as const) {
      const clone = await gitAs(secretary, 'clone', '--quiet', '--bare', url, join(work, name));
      assert.equal(clone.status, 0, clone.stderr);
      assert.equal(git(join(work, name), 'rev-parse', 'main').trim(), headOf(repo));
      assert.equal(git(join(work, name), 'rev-list', '--count', 'main').trim(), git(repo, 'rev-list', '--count', 'HEAD').trim());
      assert.equal(spawnSync('git', ['-C', join(work, name), 'fsck', '--strict'], { encoding: 'utf8' }).status, 0);
    }
  });

  it('fetches what was written since, over protocol v2 and v0 alike', async () => {
    const secretary = s.running.agents.secretary.credentialsFile;
    await putTurtle(s, '/git-b/', '<#this> <http://purl.org/dc/terms/title> "b" .');
    for (const version of ['2', '0']) {
      const fetched = await gitAs(secretary, '-c', `protocol.version=${version}`, '-C', join(work, 'end-user'), 'fetch', '--quiet', 'origin', '+main:main');
      assert.equal(fetched.status, 0, fetched.stderr);
      assert.equal(git(join(work, 'end-user'), 'rev-parse', 'main').trim(), headOf(endUserRepo()));
    }
    assert.match(git(join(work, 'end-user'), 'show', 'main:graphs/git-b.nt'), /"b"/);
  });

  it('refuses the owner, a signed-up stranger and anonymous clients, with the 403 of any refusal', async () => {
    const stranger = await signUp(s, 'Git Stranger');
    const strangerPem = join(work, 'stranger.pem');
    writeFileSync(strangerPem, stranger.pem);
    for (const pem of [s.running.agents.owner.credentialsFile, strangerPem, undefined]) {
      const clone = await gitAs(pem, 'clone', '--quiet', '--bare', `${s.base}.git`, join(work, `refused-${Math.random()}`));
      assert.notEqual(clone.status, 0);
      assert.match(clone.stderr, /403/);
    }
    for (const as of ['owner', 'anonymous', { pem: stranger.pem }] as const) {
      assertRdfError(await s.request('GET', '/.git/info/refs?service=git-upload-pack', { as }), 403);
      assertRdfError(await s.request('POST', '/.git/git-upload-pack', { as, headers: { 'Content-Type': 'application/x-git-upload-pack-request' }, body: '0000' }), 403);
    }
  });

  it('takes no push, and answers malformed requests with a 4xx that changes nothing', async () => {
    const secretary = s.running.agents.secretary.credentialsFile;
    const head = headOf(endUserRepo());
    const repo = join(work, 'end-user');
    git(repo, 'update-ref', 'refs/heads/main', git(repo, 'commit-tree', '-m', 'pushed', git(repo, 'rev-parse', 'main^{tree}').trim()).trim());
    const push = await gitAs(secretary, '-C', repo, 'push', '--quiet', 'origin', 'main');
    assert.notEqual(push.status, 0);
    assert.equal(headOf(endUserRepo()), head);
    const as = 'secretary' as const;
    assertRdfError(await s.request('GET', '/.git/info/refs?service=git-receive-pack', { as }), 403);
    assertRdfError(await s.request('GET', '/.git/info/refs', { as }), 400);
    assertRdfError(await s.request('POST', '/.git/git-upload-pack', { as, headers: { 'Content-Type': 'text/plain' }, body: '0000' }), 415);
    assertRdfError(await s.request('POST', '/.git/git-upload-pack', { as, headers: { 'Content-Type': 'application/x-git-upload-pack-request', 'Content-Encoding': 'br' }, body: '0000' }), 415);
    assertRdfError(await s.request('POST', '/.git/info/refs', { as }), 405);
    assertRdfError(await s.request('GET', '/.git/git-upload-pack', { as }), 405);
    // garbage for git: git says so and stops; the answer is no pack, and the server goes on
    const garbage = await s.request('POST', '/.git/git-upload-pack', { as, headers: { 'Content-Type': 'application/x-git-upload-pack-request' }, body: 'not pkt-lines at all' });
    assert.ok(garbage.status < 500);
    assert.equal((await s.request('GET', '/git-a/', { headers: { Accept: 'text/turtle' } })).status, 200);
    assert.equal(headOf(endUserRepo()), head);
  });
});
