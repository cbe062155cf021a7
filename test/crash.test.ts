import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { Dataspace } from '../src/dataspace.js';
import { git, graphsAtHead, graphsInIndex, removeTempDirs, tempDir } from './helpers.js';

after(removeTempDirs);

const rounds = Number(process.env.CRASH_ROUNDS ?? 6);
const base = 'https://localhost:4443/';

/** Runs the writer until it has been writing for `ms`, then SIGKILLs it; returns its `send` and `ack` lines. */
function writeThenKill(dir: string, round: number, ms: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/crash-writer.ts', dir, String(round)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const ready = !out.includes('ready\n');
      out += chunk.toString();
      if (ready && out.includes('ready\n')) setTimeout(() => child.kill('SIGKILL'), ms);
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`the writer stopped by itself:\n${err}`));
      else resolve(out.split('\n').filter((l) => l.startsWith('ack ') || l.startsWith('send ')));
    });
  });
}

/**
 * Each document's last acknowledged value, and the values of the writes sent after it and never
 * acknowledged (one per round at most: a write in flight at a kill may or may not have landed, and a
 * round that does not reach the document leaves the last one standing).
 */
function lastWrites(lines: string[]): Map<string, { acked: string | undefined; pending: string[] }> {
  const docs = new Map<string, { acked: string | undefined; pending: string[] }>();
  for (const line of lines) {
    const [kind, doc, value] = line.split(' ') as [string, string, string];
    const state = docs.get(doc) ?? { acked: undefined, pending: [] };
    if (kind === 'send') state.pending.push(value);
    else if (state.pending.includes(value)) {
      state.acked = value;
      state.pending = [];
    }
    docs.set(doc, state);
  }
  return docs;
}

describe('crash recovery', () => {
  it('keeps every document at exactly its last acknowledged write through repeated SIGKILLs, with git fsck clean and the index at HEAD', async () => {
    const dir = tempDir('crash');
    const lines: string[] = [];
    let acks = 0;
    for (let round = 0; round < rounds; round++) {
      const round_ = await writeThenKill(dir, round, 100 + ((round * 137) % 400));
      acks += round_.filter((l) => l.startsWith('ack ')).length;
      lines.push(...round_);
      // a restart (the next round's writer) must leave every document where the last one left it
    }
    assert.ok(acks > rounds, `the writers acknowledged ${acks} writes`);
    git(dir, 'fsck', '--strict', '--no-dangling');
    const ds = await Dataspace.open({ id: 'crash', base, dir, log: () => undefined });
    try {
      await ds.settled();
      for (const [doc, { acked, pending }] of lastWrites(lines)) {
        const document = await ds.read(doc);
        const value = document && /"([^"]*)"/.exec(document.bytes.toString())![1];
        assert.ok(value !== undefined ? [acked, ...pending].includes(value) : acked === undefined, `${doc} holds ${value ?? 'nothing'}; its last acknowledged write was ${acked ?? 'none'}${pending.length ? `, ${pending.join(' and ')} in flight since` : ''}`);
      }
      const [index, truth] = await Promise.all([ds.index.dump().then(graphsInIndex), graphsAtHead(dir, base)]);
      assert.deepEqual([...index].sort(), [...truth].sort());
      assert.equal(git(dir, 'status', '--porcelain'), '');
      console.log(`# ${rounds} SIGKILLs, ${acks} acknowledged writes, every document at its last one`);
    } finally {
      await ds.close();
    }
  });
});
