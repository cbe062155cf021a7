import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { Dataspace } from '../src/dataspace.js';
import { git, graphsAtHead, graphsInIndex, removeTempDirs, tempDir } from './helpers.js';

after(removeTempDirs);

const rounds = Number(process.env.CRASH_ROUNDS ?? 6);
const base = 'https://localhost:4443/';

/** Runs the writer until it has been writing for `ms`, then SIGKILLs it; returns what it acknowledged. */
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
      else resolve(out.split('\n').filter((l) => l.startsWith('ack ') || l.startsWith('shared ')));
    });
  });
}

describe('crash recovery', () => {
  it('keeps every acknowledged write through repeated SIGKILLs, with git fsck clean and the index at HEAD', async () => {
    const dir = tempDir('crash');
    const acks: string[] = [];
    for (let round = 0; round < rounds; round++) acks.push(...(await writeThenKill(dir, round, 100 + ((round * 137) % 400))));
    const written = acks.filter((l) => l.startsWith('ack ')).map((l) => l.split(' ') as [string, string, string]);
    assert.ok(written.length > rounds, `the writers acknowledged ${written.length} writes`);
    git(dir, 'fsck', '--strict', '--no-dangling');
    const ds = await Dataspace.open({ id: 'crash', base, dir, log: () => undefined });
    try {
      await ds.settled();
      for (const [, doc, value] of written) {
        const document = await ds.read(doc);
        assert.ok(document, `${doc} was acknowledged but is not at HEAD`);
        assert.match(document.bytes.toString(), new RegExp(`"${value}"`));
      }
      // Writers of one round race on the shared document, so only the round is ordered: HEAD holds
      // a value from the last round that had a write of it acknowledged, or a later one.
      const sharedRounds = acks.filter((l) => l.startsWith('shared ')).map((l) => Math.floor(Number(l.split(' ')[1]) / 1_000_000));
      const shared = (await ds.read('shared/'))!.bytes.toString();
      assert.ok(Math.floor(Number(/"(\d+)"/.exec(shared)![1]) / 1_000_000) >= Math.max(...sharedRounds), 'the shared document is at least at its last acknowledged round');
      const [index, truth] = await Promise.all([ds.index.dump().then(graphsInIndex), graphsAtHead(dir, base)]);
      assert.deepEqual([...index].sort(), [...truth].sort());
      assert.equal(git(dir, 'status', '--porcelain'), '');
      console.log(`# ${rounds} SIGKILLs, ${written.length} acknowledged writes, all at HEAD`);
    } finally {
      await ds.close();
    }
  });
});
