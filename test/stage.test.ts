/**
 * The stage (git's index file) as the disk worker keeps it (src/store/stage.ts): after updates that
 * add, replace and remove paths in any order, the file lists every entry once, in git's order, and
 * git reads it as its own (`git ls-files -s`). New paths are merged into the kept order rather than
 * sorted with every other entry again (issue 29: a million entries took seconds to sort per round).
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { StageEntry } from '../src/git/stage-file.js';
import { GitStore } from '../src/store/git-store.js';
import { defaultLockOptions } from '../src/store/refs.js';
import { Stages, readStage } from '../src/store/stage.js';
import { ANONYMOUS, WorkingTree } from '../src/store/worktree.js';
import { git, removeTempDirs, tempDir, waitFor } from './helpers.js';

after(removeTempDirs);

const BLOB = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'; // the empty blob

function entry(path: string, size = 0): StageEntry {
  return { path, id: BLOB, ctimeMs: 1, mtimeMs: 1, dev: 1, ino: 1, mode: 0o100644, uid: 0, gid: 0, size };
}

test('paths added, replaced and removed over many updates are written in git\'s order, each once', async () => {
  const dir = tempDir('stage');
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  const gitdir = join(dir, '.git');
  const stages = new Stages();
  const expected = new Map<string, number>();
  // names chosen so that byte order differs from insertion order and from UTF-16 order
  const names = ['b', 'a', 'a-b', 'a/b', 'a.b', 'z', 'é', 'Z', '\u{1F600}', 'ﬀ', 'm/n/o', 'm-n', 'm'];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 40; round++) {
    const set: StageEntry[] = [];
    const remove: string[] = [];
    for (let k = 0; k < 5; k++) {
      const path = `graphs/${names[Math.floor(next() * names.length)]}${Math.floor(next() * 30)}.nt`;
      if (next() < 0.3 && expected.has(path)) {
        remove.push(path);
        expected.delete(path);
      } else {
        set.push(entry(path, round));
        expected.set(path, round);
      }
    }
    // a path removed and added back in one update stays, once
    const again = set[0]?.path;
    if (again) {
      remove.push(again);
      set.push(entry(again, round));
    }
    stages.update(gitdir, 'graphs', { set, remove }, defaultLockOptions);
  }
  const listed = git(dir, 'ls-files', '-s', '-z').split('\0').filter(Boolean).map((line) => line.split('\t')[1]!);
  const byBytes = [...expected.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  assert.deepEqual(listed, byBytes, 'git reads every entry, in its order');
  const read = await readStage(gitdir);
  assert.deepEqual([...read.keys()], byBytes, 'the file holds the entries in byte order');
  for (const [path, size] of expected) assert.equal(read.get(path)!.size, size, path);
});

test('a write whose stage entry waits (the stage is written at most a tenth of the time) is never taken for an edit after a crash', async () => {
  const dir = tempDir('stage-wait');
  const write = (store: GitStore, text: string) =>
    store.write({ changes: [{ path: 'graphs/a.nt', bytes: Buffer.from(`<https://example.org/a> <https://example.org/p> "${text}" .\n`) }], author: ANONYMOUS, message: 'PUT https://example.org/a/' });
  const first = await GitStore.open({ dir });
  const tree = new WorkingTree({ store: first, base: 'https://example.org/', delayMs: 5, stageWaitFactor: 1e6, log: () => undefined });
  await tree.reconcile();
  await write(first, 'one');
  await tree.idle(); // the stage records "one"; the next stage write waits (for the cap: 10 s)
  await write(first, 'two');
  await waitFor(() => readFileSync(join(dir, 'graphs/a.nt'), 'utf8').includes('"two"'));
  await new Promise((resolve) => setTimeout(resolve, 50)); // the round's stage write would be done by now, were it not waiting
  assert.match(git(dir, 'ls-files', '-s', 'graphs/a.nt'), new RegExp(git(dir, 'rev-parse', 'HEAD~1:graphs/a.nt').trim()), 'the stage still names the write before');
  tree.close(); // a crash: the waiting stage write never happens, nor the round of the next write
  const acknowledged = await write(first, 'three');
  await first.close();

  const second = await GitStore.open({ dir });
  const again = new WorkingTree({ store: second, base: 'https://example.org/', log: () => undefined });
  assert.deepEqual(await again.reconcile(), [], 'the file the round wrote ("two") is the server\'s, known from the journal');
  await again.idle();
  assert.match(readFileSync(join(dir, 'graphs/a.nt'), 'utf8'), /"three"/);
  assert.equal(second.head, acknowledged, 'no commit reverted the acknowledged write');
  assert.equal(git(dir, 'status', '--porcelain'), '');
  again.close();
  await second.close();
});
