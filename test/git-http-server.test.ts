/**
 * Tests of the smart HTTP git server fixture (`git http-backend` behind token Basic auth): the git CLI clones and pushes
 * through it with the token in the URL and is refused with a wrong one, and isomorphic-git's `push` (the transport under
 * test elsewhere) pushes to it, fast-forward and, only when forced, non-fast-forward.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs, { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import git, { Errors } from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { startGitHttpServer, type GitHttpServer } from './fixtures/git-http-server.js';

const execFileAsync = promisify(execFile);
const TOKEN = 'ghs_0123456789abcdefTESTTOKEN';
const root = mkdtempSync(join(tmpdir(), 'git-http-server-'));
const servers: GitHttpServer[] = [];

/** The environment of the git CLI: nothing from the caller's git settings, no prompts, a fixed identity. */
const cliEnv: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('GIT_') && key !== 'SSH_ASKPASS')),
  HOME: root,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Tester',
  GIT_AUTHOR_EMAIL: 'tester@example.org',
  GIT_COMMITTER_NAME: 'Tester',
  GIT_COMMITTER_EMAIL: 'tester@example.org',
};

/** Runs the git CLI asynchronously (the server runs in this process, so a synchronous child would block it). */
async function cli(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', args, { cwd, env: cliEnv, encoding: 'utf8' });
  return stdout;
}

/** Runs the git CLI expecting it to fail; returns its standard error. */
async function cliFails(cwd: string, ...args: string[]): Promise<string> {
  try {
    await execFileAsync('git', args, { cwd, env: cliEnv, encoding: 'utf8' });
  } catch (error) {
    return String((error as { stderr?: unknown }).stderr ?? error);
  }
  assert.fail(`git ${args.join(' ')} succeeded but should have failed`);
}

let counter = 0;

/** A fresh empty bare repository (stored under a name other than the served one) and a server for it. */
async function setup(): Promise<{ dir: string; bare: string; server: GitHttpServer; authedUrl: (token: string) => string }> {
  const dir = join(root, `case-${++counter}`);
  const bare = join(dir, 'srv', 'data.git');
  mkdirSync(bare, { recursive: true });
  await cli(bare, 'init', '--quiet', '--bare', '--initial-branch=main');
  const server = await startGitHttpServer({ bareRepo: bare, token: TOKEN });
  servers.push(server);
  const authedUrl = (token: string): string => {
    const url = new URL(server.url);
    url.username = 'x-access-token';
    url.password = token;
    return url.href;
  };
  return { dir, bare, server, authedUrl };
}

/** A local repository made with the git CLI, with one commit on `main`. */
async function localRepo(dir: string): Promise<string> {
  const work = join(dir, 'work');
  mkdirSync(join(work, 'graphs', 'a'), { recursive: true });
  await cli(work, 'init', '--quiet', '--initial-branch=main');
  writeFileSync(join(work, 'graphs', 'a', 'b.nt'), '<http://ex/s> <http://ex/p> "1" .\n');
  writeFileSync(join(work, 'blob.bin'), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)));
  await cli(work, 'add', '-A');
  await cli(work, 'commit', '--quiet', '-m', 'first');
  return work;
}

async function commitFile(work: string, file: string, text: string, message: string): Promise<string> {
  writeFileSync(join(work, file), text);
  await cli(work, 'add', '-A');
  await cli(work, 'commit', '--quiet', '-m', message);
  return (await cli(work, 'rev-parse', 'HEAD')).trim();
}

async function refOf(repo: string, ref: string): Promise<string> {
  return (await cli(repo, 'rev-parse', '--verify', ref)).trim();
}

async function assertFsckClean(bare: string): Promise<void> {
  const { stdout, stderr } = await execFileAsync('git', ['fsck', '--strict', '--no-progress'], { cwd: bare, env: cliEnv, encoding: 'utf8' });
  assert.doesNotMatch(stdout + stderr, /error|warning|missing|broken/i);
}

function isoPush(work: string, url: string, options: { force?: boolean; token?: string } = {}): ReturnType<typeof git.push> {
  return git.push({
    fs,
    http,
    dir: work,
    url,
    ref: 'main',
    remoteRef: 'main',
    force: options.force ?? false,
    onAuth: () => ({ username: 'x-access-token', password: options.token ?? TOKEN }),
  });
}

after(async () => {
  await Promise.all(servers.map((server) => server.close()));
  rmSync(root, { recursive: true, force: true });
});

describe('git smart HTTP server fixture', () => {
  it('lets the git CLI push and clone with the token in the URL and refuses a wrong or missing token', async () => {
    const { dir, bare, server, authedUrl } = await setup();
    const work = await localRepo(dir);
    await cli(work, 'push', '--quiet', authedUrl(TOKEN), 'main');
    assert.equal(await refOf(bare, 'refs/heads/main'), await refOf(work, 'HEAD'));
    assert.ok(server.requests.some((r) => r.method === 'POST' && r.path === '/mirror.git/git-receive-pack' && r.status === 200));

    await cli(dir, 'clone', '--quiet', authedUrl(TOKEN), 'clone');
    const clone = join(dir, 'clone');
    assert.equal(await refOf(clone, 'HEAD'), await refOf(work, 'HEAD'));
    assert.equal(readFileSync(join(clone, 'graphs', 'a', 'b.nt'), 'utf8'), '<http://ex/s> <http://ex/p> "1" .\n');

    const before = await refOf(bare, 'refs/heads/main');
    await commitFile(clone, 'c.txt', 'second\n', 'second');
    const seen = server.requests.length;
    const stderr = await cliFails(clone, 'push', authedUrl('wrong-token'), 'main');
    assert.match(stderr, /Authentication failed|401/);
    const refused = server.requests.slice(seen);
    assert.ok(refused.some((r) => r.status === 401));
    assert.ok(refused.every((r) => r.status === 401), JSON.stringify(refused));
    assert.equal(await refOf(bare, 'refs/heads/main'), before);

    await cliFails(dir, 'ls-remote', server.url);
    await cliFails(dir, 'clone', '--quiet', authedUrl('wrong-token'), 'clone-refused');

    const anonymous = await fetch(`${server.url}/info/refs?service=git-upload-pack`);
    await anonymous.arrayBuffer();
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers.get('www-authenticate'), 'Basic realm="git"');
    const tokenAsUser = await fetch(`${server.url}/info/refs?service=git-upload-pack`, {
      headers: { Authorization: `Basic ${Buffer.from(`${TOKEN}:x-oauth-basic`).toString('base64')}` },
    });
    await tokenAsUser.arrayBuffer();
    assert.equal(tokenAsUser.status, 200);
    assert.equal(tokenAsUser.headers.get('content-type'), 'application/x-git-upload-pack-advertisement');
    const elsewhere = await fetch(server.url.replace('/mirror.git', '/other.git/info/refs?service=git-upload-pack'), {
      headers: { Authorization: `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}` },
    });
    await elsewhere.arrayBuffer();
    assert.equal(elsewhere.status, 404);

    await cli(clone, 'push', '--quiet', authedUrl(TOKEN), 'main');
    assert.equal(await refOf(bare, 'refs/heads/main'), await refOf(clone, 'HEAD'));
    await assertFsckClean(bare);
  });

  it('takes a push from isomorphic-git with the token from onAuth', async () => {
    const { dir, bare, server } = await setup();
    const work = await localRepo(dir);
    await commitFile(work, 'graphs/a/c.nt', '<http://ex/s> <http://ex/p> "2" .\n', 'second');

    await assert.rejects(isoPush(work, server.url, { token: 'wrong-token' }), (error: unknown) => error instanceof Errors.HttpError && error.data.statusCode === 401);
    await assert.rejects(refOf(bare, 'refs/heads/main'));

    let asked = 0;
    const result = await git.push({
      fs,
      http,
      dir: work,
      url: server.url,
      ref: 'main',
      remoteRef: 'main',
      onAuth: () => {
        asked++;
        return { username: 'x-access-token', password: TOKEN };
      },
    });
    assert.equal(result.ok, true);
    assert.equal(result.refs['refs/heads/main']?.ok, true);
    assert.equal(asked, 1);
    assert.equal(await refOf(bare, 'refs/heads/main'), await refOf(work, 'HEAD'));
    await assertFsckClean(bare);
    assert.ok(server.requests.some((r) => r.method === 'GET' && r.path === '/mirror.git/info/refs?service=git-receive-pack' && r.status === 200));
    assert.ok(server.requests.some((r) => r.method === 'POST' && r.path === '/mirror.git/git-receive-pack' && r.status === 200));
  });

  it('takes a fast-forward push and refuses a non-fast-forward one unless forced', async () => {
    const { dir, bare, server, authedUrl } = await setup();
    const work = await localRepo(dir);
    await isoPush(work, server.url);
    const first = await refOf(work, 'HEAD');
    assert.equal(await refOf(bare, 'refs/heads/main'), first);

    await commitFile(work, 'x.txt', 'x\n', 'x');
    const second = await commitFile(work, 'y.txt', 'y\n', 'y');
    const forward = await isoPush(work, server.url);
    assert.equal(forward.refs['refs/heads/main']?.ok, true);
    assert.equal(await refOf(bare, 'refs/heads/main'), second);

    await cli(work, 'reset', '--quiet', '--hard', first);
    const rewritten = await commitFile(work, 'z.txt', 'z\n', 'rewritten');
    await assert.rejects(isoPush(work, server.url), (error: unknown) => error instanceof Errors.PushRejectedError && error.data.reason === 'not-fast-forward');
    assert.match(await cliFails(work, 'push', authedUrl(TOKEN), 'main'), /non-fast-forward|rejected/);
    assert.equal(await refOf(bare, 'refs/heads/main'), second);

    const forced = await isoPush(work, server.url, { force: true });
    assert.equal(forced.refs['refs/heads/main']?.ok, true);
    assert.equal(await refOf(bare, 'refs/heads/main'), rewritten);
    await assertFsckClean(bare);
  });
});
