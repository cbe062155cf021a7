import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { commitCount, git, headOf } from './helpers.js';
import { assertRdfError, turtle, type TestServer, serverForFile } from './http-helpers.js';

const run = promisify(execFile);
let s: TestServer;
let dir: string;
const versions: string[] = [];

serverForFile(async (server, repo) => {
  s = server;
  dir = repo;
  let etag: string | undefined;
  for (const title of ['first', 'second', 'third']) {
    const res = await s.request('PUT', '/doc/', { headers: { ...turtle, ...(etag ? { 'If-Match': etag } : {}) }, body: `<#this> <http://purl.org/dc/terms/title> "${title}" .` });
    etag = res.headers.etag as string;
    versions.push(headOf(dir));
  }
}, [], { tls: true }); // the command line client is among its clients

const title = async () => /title> "(\w+)"/.exec((await s.request('GET', '/doc/', { headers: { Accept: 'application/n-triples' } })).body)?.[1];

describe('restore and diff', () => {
  it('lists the triples added and removed between two versions', async () => {
    const res = await s.request('GET', `/doc/?diff=${versions[0]}&to=${versions[2]}`);
    assert.equal(res.status, 200);
    assert.match(res.body, /^- <[^>]+#this> <http:\/\/purl.org\/dc\/terms\/title> "first" \.$/m);
    assert.match(res.body, /^\+ <[^>]+#this> <http:\/\/purl.org\/dc\/terms\/title> "third" \.$/m);
    assert.match(res.body, /dct|modified/); // dct:modified changed too
    assertRdfError(await s.request('GET', '/doc/?diff=nope'), 400);
  });

  it('restores a version as one new commit, honouring preconditions and keeping the history', async () => {
    const commits = commitCount(dir);
    assertRdfError(await s.request('POST', `/doc/?restore=${versions[0]}`), 428);
    assert.equal(commitCount(dir), commits);
    assertRdfError(await s.request('POST', `/doc/?restore=${versions[0]}`, { headers: { 'If-Match': '"stale"' } }), 412);
    const etag = (await s.request('HEAD', '/doc/')).headers.etag as string;
    const res = await s.request('POST', `/doc/?restore=${versions[0]}`, { headers: { 'If-Match': etag } });
    assert.equal(res.status, 204, res.body);
    assert.ok(res.headers.etag);
    assert.equal(commitCount(dir), commits + 1);
    assert.equal(await title(), 'first');
    assert.match(git(dir, 'log', '-1', '--format=%B'), /^POST https:\/\/[^ ]+\/doc\/\n\nRestores the version of [0-9a-f]{40}\./);
    const timemap = await s.request('GET', '/doc/?timemap', { headers: { Accept: 'application/link-format' } });
    assert.equal(timemap.body.match(/rel="[^"]*memento"/g)?.length, 4, 'every version stays in the TimeMap');
    assertRdfError(await s.request('GET', `/doc/?restore=${versions[1]}`), 405);
  });

  it('works from the command line', async () => {
    const cert = s.running.agents.owner.credentialsFile;
    const cli = (...args: string[]) => run(process.execPath, ['bin/lodestone.js', ...args, '--cert', cert, '--insecure']);
    const diff = await cli('diff', `${s.base}doc/`, versions[1]!);
    assert.match(diff.stdout, /^- .*"second"/m);
    assert.match(diff.stdout, /^\+ .*"first"/m);
    const restored = await cli('restore', `${s.base}doc/`, versions[2]!);
    assert.match(restored.stderr, /^204 restored/);
    assert.equal(await title(), 'third');
  });
});
