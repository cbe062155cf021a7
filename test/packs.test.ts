/**
 * Reading packed objects through file handles (packs too large to be read whole): readers of one
 * pack at once share one open file, so none is left for the garbage collector to close; and a
 * reader that saw a merged pack before its old packs were deleted still finds their objects.
 */
import assert from 'node:assert/strict';
import { readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PackSet } from '../src/store/packs.js';
import { git, removeTempDirs, tempDir } from './helpers.js';

after(removeTempDirs);

/** The file descriptors of this process open on `path`. */
function openOn(path: string): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) count++;
    } catch {
      // closed meanwhile
    }
  }
  return count;
}

describe('packs read through file handles', () => {
  it('opens a pack once however many readers ask for it at the same time', async () => {
    const dir = tempDir('packs');
    git(dir, 'init', '-q', '-b', 'main');
    for (let i = 0; i < 20; i++) writeFileSync(join(dir, `f${i}.txt`), `file ${i}\n`);
    git(dir, 'add', '.');
    git(dir, '-c', 'user.name=t', '-c', 'user.email=t@t.invalid', 'commit', '-q', '-m', 'files');
    git(dir, 'gc', '-q');
    const ids = git(dir, 'ls-tree', 'HEAD').trim().split('\n').map((line) => line.split(/\s+/)[2]!);
    const packDir = join(dir, '.git', 'objects', 'pack');
    const pack = join(packDir, readdirSync(packDir).find((name) => name.endsWith('.pack'))!);
    const packs = new PackSet(join(dir, '.git'), { wholePackBytes: 0 });
    try {
      await packs.rescan();
      const read = await Promise.all(ids.map((id) => packs.read(id)));
      assert.ok(read.every((object) => typeof object === 'object' && object.type === 'blob'), 'every blob is read from the pack');
      assert.equal(openOn(pack), 1, 'one file descriptor on the pack, whatever the number of readers at once');
    } finally {
      await packs.close();
    }
    assert.equal(openOn(pack), 0, 'closed with the pack set');
  });
});

describe('a reader while another merges packs', () => {
  it('finds an object in the merged pack once the pack it was located in is deleted', async () => {
    const dir = tempDir('packs-merged');
    git(dir, 'init', '-q', '-b', 'main');
    for (let i = 0; i < 3; i++) {
      writeFileSync(join(dir, `f${i}.txt`), `file ${i}\n`);
      git(dir, 'add', '.');
      git(dir, '-c', 'user.name=t', '-c', 'user.email=t@t.invalid', 'commit', '-q', '-m', `file ${i}`);
      git(dir, 'repack', '-q', '-d'); // a pack per commit, as a writer makes them
    }
    const packDir = join(dir, '.git', 'objects', 'pack');
    const oldPacks = readdirSync(packDir).filter((name) => name.endsWith('.pack'));
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const packs = new PackSet(join(dir, '.git'), { wholePackBytes: 0 });
    try {
      await packs.rescan();
      // the writer merges (the new pack first, the old ones deleted after), and this reader rescans in between
      git(dir, 'repack', '-q', '-a', '--window=0');
      await packs.rescan();
      for (const name of oldPacks) for (const ext of ['.pack', '.idx']) rmSync(join(packDir, name.replace(/\.pack$/, ext)), { force: true });
      const commit = await packs.read(head);
      assert.ok(typeof commit === 'object' && commit.type === 'commit', 'the commit is read from the merged pack');
    } finally {
      await packs.close();
    }
  });
});
