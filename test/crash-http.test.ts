/**
 * A write storm over HTTPS against a real `lodestone serve` process, SIGKILLed mid-storm and
 * restarted, round after round (CRASH_ROUNDS, default 4). Writers rewrite the same documents
 * several times a round (conditional PUT and PATCH, back to back) and create new ones. After each
 * restart every document holds exactly its last acknowledged content (or the write that was in
 * flight at the kill), the restart made no commit unless the test edited a file itself while the
 * server was down, and `git status` is clean once the server is idle. At the end: `git fsck
 * --strict` clean and the index equal to HEAD.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Dataspace } from '../src/dataspace.js';
import { freePort, sendRequest, type Response } from './http-helpers.js';
import { git, graphsAtHead, graphsInIndex, inStoreForm, removeTempDirs, tempDir } from './helpers.js';

const live = new Set<ChildProcess>();
after(() => {
  for (const child of live) process.kill(-child.pid!, 'SIGKILL'); // a failed round leaves its server running
  removeTempDirs();
});

const rounds = Number(process.env.CRASH_ROUNDS ?? 4);
const writers = Number(process.env.CRASH_WRITERS ?? 6);
const EX = 'http://example.org/ns#';
let acknowledged = 0;

interface Doc {
  path: string;
  /** The value of the last acknowledged write; undefined before the first. */
  acked: string | undefined;
  /** A write sent and not answered when the server died: the document may hold either. */
  pending: string | undefined;
  etag: string | undefined;
}

interface Server {
  child: ChildProcess;
  base: string;
  output: () => string;
}

function startServe(data: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/lodestone.js', 'serve', '--data', data, '--port', String(port), '--host', 'localhost'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    live.add(child);
    child.once('exit', () => live.delete(child));
    let out = '';
    const collect = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('listening on ')) resolve({ child, base: `https://localhost:${port}/`, output: () => out });
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.on('exit', (code, signal) => reject(new Error(`serve stopped (${code ?? signal}) before it listened:\n${out}`)));
  });
}

async function kill(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  process.kill(-server.child.pid!, 'SIGKILL'); // the whole process group, as a crash would
  await exited;
}

function body(doc: Doc, value: string, base: string): string {
  const lines = [`<#this> <${EX}value> "${value}" .`, `<#this> <http://purl.org/dc/terms/title> "${doc.path} ${value}" .`];
  for (let i = 0; i < 8; i++) lines.push(`<#this> <${EX}item> [ <${EX}n> ${i} ; <${EX}of> "${value}" ] .`);
  return `@base <${base}${doc.path}> .\n${lines.join('\n')}\n`;
}

/** The value a document holds, from its canonical N-Triples (undefined: no such document). */
function valueIn(res: Response): string | undefined {
  if (res.status === 404) return undefined;
  assert.equal(res.status, 200, res.body);
  return /<http:\/\/example\.org\/ns#value> "([^"]*)"/.exec(res.body)?.[1];
}

class Client {
  private readonly agent: Agent;
  constructor(
    private readonly base: string,
    pem: string,
  ) {
    this.agent = new Agent({ keepAlive: true, rejectUnauthorized: false, cert: pem, key: pem, maxSockets: 1 });
  }
  send(method: string, path: string, headers: Record<string, string> = {}, content?: string): Promise<Response> {
    return sendRequest(new URL(path, this.base), { method, headers, agent: this.agent }, content);
  }
  close(): void {
    this.agent.destroy();
  }
}

/** Checks that each document holds its last acknowledged value (or the one in flight), and takes its ETag. */
async function verify(client: Client, docs: Doc[]): Promise<void> {
  for (const doc of docs) {
    const res = await client.send('GET', doc.path, { Accept: 'application/n-triples' });
    const value = valueIn(res);
    const allowed = [doc.acked, doc.pending];
    assert.ok(allowed.includes(value), `${doc.path} holds ${value ?? 'nothing'}; its last acknowledged write was ${doc.acked ?? 'none'}${doc.pending ? `, ${doc.pending} was in flight` : ''}`);
    doc.acked = value;
    doc.pending = undefined;
    doc.etag = res.status === 200 ? String(res.headers.etag) : undefined;
  }
}

/** One writer: rewrites its documents back to back (PUT and PATCH with If-Match) and creates new ones, until `stop`. */
async function write(client: Client, base: string, own: Doc[], created: Doc[], tag: string, stop: () => boolean): Promise<void> {
  for (let seq = 0; !stop(); seq++) {
    const fresh = seq % 5 === 4;
    const doc: Doc = fresh ? { path: `storm/${tag}-n${seq}/`, acked: undefined, pending: undefined, etag: undefined } : own[seq % own.length]!;
    if (fresh) created.push(doc);
    const value = `${tag}-${seq}`;
    doc.pending = value;
    let res: Response;
    try {
      if (doc.etag === undefined) res = await client.send('PUT', doc.path, { 'Content-Type': 'text/turtle', 'If-None-Match': '*', Accept: 'application/n-triples' }, body(doc, value, base));
      else if (seq % 2 === 0) res = await client.send('PUT', doc.path, { 'Content-Type': 'text/turtle', 'If-Match': doc.etag, Accept: 'application/n-triples' }, body(doc, value, base));
      else {
        const update = `PREFIX ex: <${EX}> DELETE { <#this> ex:value ?v } INSERT { <#this> ex:value "${value}" } WHERE { <#this> ex:value ?v }`;
        res = await client.send('PATCH', doc.path, { 'Content-Type': 'application/sparql-update', 'If-Match': doc.etag, Accept: 'application/n-triples' }, update);
      }
    } catch {
      return; // the server is gone: this write stays pending
    }
    assert.ok(res.status >= 200 && res.status < 300, `${doc.path}: ${res.status} ${res.body}`);
    doc.acked = value;
    doc.pending = undefined;
    doc.etag = String(res.headers.etag);
    acknowledged++;
  }
}

/** Waits until the server has synced its working trees: `git status` clean in both repositories. */
async function quiet(repos: string[]): Promise<void> {
  for (let waited = 0; ; waited += 100) {
    const dirty = repos.map((dir) => git(dir, 'status', '--porcelain')).join('');
    if (dirty === '') return;
    if (waited > 20_000) assert.fail(`git status is not clean 20 s after the restart:\n${dirty}`);
    await sleep(100);
  }
}

describe('crash recovery over HTTP', () => {
  it('never reverts an acknowledged write, and a restart commits only what someone edited', { timeout: 60_000 + rounds * 20_000 }, async () => {
    const data = tempDir('crash-http');
    const port = await freePort();
    const repos = ['end-user', 'admin'].map((id) => join(data, 'dataspaces', id));
    const own = Array.from({ length: writers }, (_, w) => [0, 1].map((k): Doc => ({ path: `storm/c${w}-d${k}/`, acked: undefined, pending: undefined, etag: undefined })));
    const created: Doc[] = [];
    let edits = 0;
    let server = await startServe(data, port);
    const pem = readFileSync(join(data, 'secrets', 'owner.pem'), 'utf8');
    let client = new Client(server.base, pem);
    for (const path of ['storm/', 'manual/']) {
      const res = await client.send('PUT', path, { 'Content-Type': 'text/turtle' }, `<> a <https://w3id.org/atomgraph/linkeddatahub/document-hierarchy#Container> .`);
      assert.equal(res.status, 201, res.body);
    }
    for (let round = 0; round < rounds; round++) {
      const before = created.length;
      let stopped = false;
      let failure: unknown;
      const storm = own.map((docs, w) => write(client, server.base, docs, created, `r${round}-c${w}`, () => stopped).catch((error: unknown) => (failure ??= error)));
      await sleep(300 + ((round * 397) % 1500));
      await kill(server); // mid-storm
      stopped = true;
      await Promise.all(storm);
      if (failure) throw failure;
      client.close();

      // while the server is down, someone edits a document by hand (every other round)
      const heads = repos.map((dir) => git(dir, 'rev-parse', 'HEAD').trim());
      const editing = round % 2 === 1;
      const edited = `hand-edit-${round}`;
      if (editing) appendFileSync(join(repos[0]!, 'graphs', 'manual.nt'), `<${server.base}manual/#this> <${EX}value> "${edited}" .\n`);

      server = await startServe(data, port);
      client = new Client(server.base, pem);
      await quiet(repos);
      const moved = repos.map((dir, i) => git(dir, 'rev-list', '--count', `${heads[i]}..HEAD`).trim());
      assert.deepEqual(moved, [editing ? '1' : '0', '0'], `the restart made commits:\n${server.output()}`);
      if (editing) {
        edits++;
        assert.match(git(repos[0]!, 'log', '-1', '--format=%an %s').trim(), /^hand edit PUT .*\/manual\/$/);
        assert.match(git(repos[0]!, 'show', 'HEAD:graphs/manual.nt'), new RegExp(`"${edited}"`));
      }
      assert.doesNotMatch(server.output().replace(/graphs\/manual\.nt was edited[^\n]*/g, ''), /was edited|was deleted/, 'no file the server wrote was taken for an edit');
      await verify(client, [...own.flat(), ...created.slice(before)]);
    }
    client.close();
    await kill(server);
    git(repos[0]!, 'fsck', '--strict', '--no-dangling');
    git(repos[1]!, 'fsck', '--strict', '--no-dangling');
    // the last round's state, read from the repository itself, and the index rebuilt from it
    const ds = await Dataspace.open({ id: 'end-user', base: server.base, dir: repos[0]!, log: () => undefined });
    try {
      await ds.settled();
      for (const doc of [...own.flat(), ...created]) {
        const stored = await ds.read(doc.path);
        const value = stored && /<http:\/\/example\.org\/ns#value> "([^"]*)"/.exec(stored.bytes.toString())?.[1];
        assert.ok([doc.acked, doc.pending].includes(value), `${doc.path} holds ${value ?? 'nothing'}, acknowledged ${doc.acked ?? 'none'}`);
      }
      const [index, truth] = await Promise.all([ds.index.dump().then(graphsInIndex), graphsAtHead(repos[0]!, server.base).then(inStoreForm)]);
      assert.deepEqual([...index].sort(), [...truth].sort());
      assert.equal(git(repos[0]!, 'status', '--porcelain'), '');
    } finally {
      await ds.close();
    }
    console.log(`# ${rounds} SIGKILLs mid-storm, ${acknowledged} acknowledged writes, ${own.flat().length + created.length} documents, ${edits} hand edits: every document at its last acknowledged content`);
  });
});
