/**
 * A read replica killed (SIGKILL, with the `git fetch` it may be running) while it follows a
 * primary under a stream of writes, and again in the middle of the `git fetch` it starts with,
 * restarts from its copy and catches up: the same HEAD as the primary, the same files, `git fsck
 * --strict` clean, every write readable. And its status tells how far behind it is, in commits and
 * seconds, while commits it has heard of are not in yet (an in-process replica whose store is held).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { git, headOf, removeTempDirs, tempDir } from './helpers.js';
import { freePort, header, sendRequest, startServer, type TestServer } from './http-helpers.js';

const TURTLE = { 'Content-Type': 'text/turtle' };
let primary: TestServer;
let ca: string;
const live = new Set<ChildProcess>();

before(async () => {
  primary = await startServer([], undefined, undefined, {}, { tls: true });
  const dir = tempDir('replica-crash-ca');
  mkdirSync(dir, { recursive: true });
  ca = join(dir, 'server.pem');
  writeFileSync(ca, primary.running.agents.server.certPem);
});
after(async () => {
  for (const child of live) process.kill(-child.pid!, 'SIGKILL');
  await primary.close();
  removeTempDirs();
});

function replicaData(): string {
  const dir = tempDir('replica-crash');
  cpSync(join(primary.data, 'system.ttl'), join(dir, 'system.ttl'));
  cpSync(join(primary.data, 'secrets'), join(dir, 'secrets'), { recursive: true });
  return dir;
}

const endUserRepo = (data: string) => join(data, 'dataspaces', 'end-user');

/** `lodestone serve --replica-of` as a process of its own (a group: a kill takes its git fetch with it); resolves once it listens, or at once with `listening: false`. */
function startReplica(data: string, port: number, waitForListening = true): Promise<ChildProcess> {
  const args = ['bin/lodestone.js', 'serve', '--data', data, '--port', String(port), '--host', 'localhost', '--base', primary.base, '--replica-of', primary.base, '--replica-ca', ca, '--no-watch', '--access-log', 'off', '--query-lanes', '1'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!waitForListening) return Promise.resolve(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const collect = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('listening on ')) resolve(child);
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.once('exit', (code, signal) => reject(new Error(`the replica stopped (${code ?? signal}) before it listened:\n${out}`)));
  });
}

/** Resolves true once the replica runs `git fetch` (a child process of its own), false if it does not within 30 s. */
async function fetching(child: ChildProcess): Promise<boolean> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline && child.exitCode === null; ) {
    try {
      if (execFileSync('ps', ['-o', 'args=', '--ppid', String(child.pid)], { encoding: 'utf8' }).includes(' fetch ')) return true;
    } catch {
      // no child yet: ps says so with its exit code
    }
    await sleep(5);
  }
  return false;
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid!, 'SIGKILL');
  await exited;
}

/** A GET of the replica on `port`, as the primary's base (one name): with the owner's certificate. */
function replicaGet(data: string, port: number, path: string, headers: Record<string, string> = {}) {
  const pem = readFileSync(join(data, 'secrets', 'owner.pem'), 'utf8');
  return sendRequest({ protocol: 'https:', hostname: 'localhost', port, path, method: 'GET', headers: { Host: new URL(primary.base).host, ...headers }, cert: pem, key: pem, rejectUnauthorized: false, agent: false });
}

describe('a replica killed while it fetches', () => {
  it('restarts from its copy and catches up, nothing lost or corrupt (git fsck)', async () => {
    const data = replicaData();
    const port = await freePort();
    let replica = await startReplica(data, port);
    let written = 0;
    let writing = true;
    const writer = (async () => {
      while (writing) {
        const res = await primary.request('PUT', `/storm-${written}/`, { headers: TURTLE, body: `<#this> <http://purl.org/dc/terms/title> "storm ${written}" .` });
        assert.equal(res.status, 201, res.body);
        written++;
      }
    })();
    // killed while following (a pack being written, or a question open)
    await sleep(400);
    await kill(replica);
    replica = await startReplica(data, port);
    await sleep(300);
    // killed while it starts, in the middle of its `git fetch` of what was written while it was down
    await kill(replica);
    await sleep(500);
    let caught = 0;
    for (let round = 0; round < 2; round++) {
      const starting = await startReplica(data, port, false);
      if (await fetching(starting)) caught++;
      await kill(starting);
    }
    assert.ok(caught > 0, 'a replica was killed while its git fetch ran');
    writing = false;
    await writer;
    const last = header(await primary.request('PUT', '/storm-last/', { headers: TURTLE, body: '<#this> <http://purl.org/dc/terms/title> "last" .' }), 'lodestone-commit')!;
    replica = await startReplica(data, port);
    const read = await replicaGet(data, port, '/storm-last/', { Accept: 'text/turtle', 'Lodestone-Min-Commit': last });
    assert.equal(read.status, 200, read.body);
    assert.equal(headOf(endUserRepo(data)), headOf(endUserRepo(primary.data)));
    git(endUserRepo(data), 'fsck', '--strict', '--no-dangling');
    assert.equal(git(endUserRepo(data), 'ls-tree', '-r', 'HEAD'), git(endUserRepo(primary.data), 'ls-tree', '-r', 'HEAD'));
    for (const n of [0, Math.floor(written / 2), written - 1]) {
      const res = await replicaGet(data, port, `/storm-${n}/`, { Accept: 'text/turtle' });
      assert.equal(res.status, 200, `storm-${n}: ${res.body}`);
      assert.match(res.body, new RegExp(`"storm ${n}"`));
    }
    await kill(replica);
  });

  it('says in its status how many commits and seconds behind it is while they are not in yet', async () => {
    const replica = await startServer(['--replica-of', primary.base, '--replica-ca', ca, '--base', primary.base], replicaData());
    try {
      const store = replica.running.runtimes[0]!.dataspace.store;
      // the store held, as a slow disk would hold it: what is heard of waits
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const receive = store.receive.bind(store);
      store.receive = async (...args: Parameters<typeof store.receive>) => {
        await held;
        return receive(...args);
      };
      let commit = '';
      for (let n = 0; n < 3; n++) commit = header(await primary.request('PUT', `/behind-${n}/`, { headers: TURTLE, body: '<#this> <http://purl.org/dc/terms/title> "behind" .' }), 'lodestone-commit')!;
      type Status = { dataspaces: { replica: { caughtUp: boolean; lagCommits: number | null; lagSeconds: number | null; primaryHead: string } }[] };
      const statusOf = async () => (JSON.parse((await replica.request('GET', '/status')).body) as Status).dataspaces[0]!.replica;
      let status = await statusOf();
      for (let tries = 0; status.caughtUp && tries < 100; tries++) {
        await sleep(50);
        status = await statusOf();
      }
      await sleep(1100);
      status = await statusOf();
      assert.equal(status.caughtUp, false);
      assert.ok(status.lagCommits !== null && status.lagCommits >= 1 && status.lagCommits <= 3, JSON.stringify(status));
      assert.ok(status.lagSeconds !== null && status.lagSeconds >= 1, JSON.stringify(status));
      const turtle = await replica.request('GET', '/status', { headers: { Accept: 'text/turtle' } });
      assert.match(turtle.body, /lagCommits/);
      release();
      const read = await replica.request('GET', '/behind-2/', { headers: { Accept: 'text/turtle', 'Lodestone-Min-Commit': commit } });
      assert.equal(read.status, 200);
      for (let tries = 0; (await statusOf()).lagCommits !== 0 && tries < 100; tries++) await sleep(50);
      status = await statusOf();
      assert.equal(status.lagCommits, 0);
      assert.equal(status.lagSeconds, 0);
    } finally {
      await replica.close();
    }
  });
});
