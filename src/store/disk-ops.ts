/**
 * The disk side of writes, done synchronously in the disk worker (disk-worker.ts): a batch's
 * objects compressed into one pack, the pack and its pack index made durable, a ref moved under its
 * lock, packs merged, a log appended to. On the main thread each of these took a few dozen
 * thread-pool round trips (every one of them a thread woken, on a 2-core machine a request
 * preempted); here they are plain system calls on a thread of their own, one message each way.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { LodestoneError } from '../errors.js';
import { blobObject } from '../git/objects.js';
import { decodePackIndex, encodePackIndex } from '../git/pack-index.js';
import { encodePack, isDeltaEntry, packEntry, packHeader, packName } from '../git/packs.js';
import { encodeLooseRef, looseRef, packedRef } from '../git/refs.js';
import { stageEntryFromStats, statMatches } from '../git/stage-file.js';
import type { LockOptions, PackObject, RefUpdate, WorkingFile, WorkingOutcome, WrittenPack } from './disk-protocol.js';

/** Bytes a merge reads and writes at a time. */
const MERGE_CHUNK = 4 * 1024 * 1024;

/** Durability calls made so far (for the benchmark's count per commit). */
export const syncCalls = { fdatasync: 0, fsync: 0 };

function fdatasync(fd: number): void {
  syncCalls.fdatasync++;
  fs.fdatasyncSync(fd);
}

export function fsyncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    syncCalls.fsync++;
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function writeAll(fd: number, bytes: Uint8Array, position: number): void {
  for (let done = 0; done < bytes.length; ) done += fs.writeSync(fd, bytes, done, bytes.length - done, position + done);
}

/** Writes `bytes` to a new file in `tmpdir` and fsyncs it; returns its path. */
function durableFile(tmpdir: string, name: string, bytes: Uint8Array): string {
  const tmp = join(tmpdir, `${name}-${randomBytes(4).toString('hex')}`);
  const fd = fs.openSync(tmp, 'wx', 0o444);
  try {
    writeAll(fd, bytes, 0);
    fdatasync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return tmp;
}

/** Moves a durable pack and its pack index into place, the pack first: git uses a pack once its .idx is there. */
function install(packDir: string, name: string, packTmp: string, idxTmp: string): string {
  fs.mkdirSync(packDir, { recursive: true });
  const pack = join(packDir, `${name}.pack`);
  fs.renameSync(packTmp, pack);
  fs.renameSync(idxTmp, join(packDir, `${name}.idx`));
  fsyncDirectory(packDir);
  return pack;
}

/**
 * Compresses `objects` into one pack of whole objects and makes it durable (pack, pack index,
 * directory), then moves `then`'s ref if given: a commit's objects and its ref in one call.
 * Trees are stored, not compressed (zlib level 0, a stream git reads as any other): each commit
 * writes its folder's whole tree, mostly 20-byte ids that do not compress (a tree of 3,000 entries:
 * 95 KB stored, 75 KB at level 1), and deflating them was the disk worker's largest cost under HTTP
 * creates (4.6 s of its 17 s: bench --only scale, cpu profile); git's own repack deltas them later.
 */
export function writePack(packDir: string, tmpdir: string, objects: readonly PackObject[], then?: RefUpdate): WrittenPack {
  const entries = objects.map((object) => packEntry(object, deflateSync(object.content, { level: object.type === 'tree' ? 0 : 1 })));
  const { pack, idx, name, offsets } = encodePack(entries);
  const packTmp = durableFile(tmpdir, name, pack);
  const idxTmp = durableFile(tmpdir, name, idx);
  const written = { pack: install(packDir, name, packTmp, idxTmp), size: pack.length, ids: entries.map((entry) => entry.id), offsets };
  if (then) updateRef(then.gitdir, then.ref, then.next, then.expected, then.lock);
  return written;
}

/**
 * Copies the entries of `packs` into one new durable pack, a run of adjacent entries (up to a few
 * MiB) at a time; an object in two of them is copied once. The merged packs are left in place for
 * the caller to remove once it reads from the new one. A pack holding delta entries (git's own
 * repacking) stops the merge, changing nothing: its path is returned to be left alone from then on.
 */
export function mergePacks(packDir: string, tmpdir: string, packs: readonly string[]): WrittenPack | { deltaPack: string } {
  const seen = new Set<string>();
  const plans: Array<{ pack: string; entries: Array<{ id: string; offset: number; end: number }> }> = [];
  for (const pack of packs) {
    const { ids, offsets } = decodePackIndex(fs.readFileSync(pack.slice(0, -5) + '.idx'));
    const size = fs.statSync(pack).size;
    const order = ids.map((_, k) => k).sort((a, b) => offsets[a]! - offsets[b]!);
    const entries = order.map((k, i) => ({ id: ids[k]!, offset: offsets[k]!, end: i + 1 < order.length ? offsets[order[i + 1]!]! : size - 20 }));
    const fresh = entries.filter((entry) => !seen.has(entry.id));
    for (const entry of fresh) seen.add(entry.id);
    plans.push({ pack, entries: fresh });
  }
  const header = packHeader(seen.size);
  const hash = createHash('sha1').update(header);
  const ids: string[] = [];
  const crcs: number[] = [];
  const offsets: number[] = [];
  const tmp = join(tmpdir, `merge-${randomBytes(4).toString('hex')}`);
  const output = fs.openSync(tmp, 'wx', 0o444);
  let checksum: Buffer;
  let position = 12;
  try {
    writeAll(output, header, 0);
    for (const { pack, entries } of plans) {
      const input = fs.openSync(pack, 'r');
      try {
        for (let first = 0; first < entries.length; ) {
          let last = first; // a run of entries adjacent in the pack
          while (last + 1 < entries.length && entries[last + 1]!.offset === entries[last]!.end && entries[last + 1]!.end - entries[first]!.offset <= MERGE_CHUNK) last++;
          const start = entries[first]!.offset;
          const run = Buffer.allocUnsafe(entries[last]!.end - start);
          for (let done = 0; done < run.length; ) {
            const read = fs.readSync(input, run, done, run.length - done, start + done);
            if (read === 0) throw new LodestoneError('Corrupt', `${pack} ends inside an entry`);
            done += read;
          }
          for (let k = first; k <= last; k++) {
            const raw = run.subarray(entries[k]!.offset - start, entries[k]!.end - start);
            if (isDeltaEntry(raw)) {
              fs.closeSync(output);
              fs.rmSync(tmp, { force: true });
              return { deltaPack: pack };
            }
            ids.push(entries[k]!.id);
            crcs.push(crc32(raw));
            offsets.push(position + entries[k]!.offset - start);
          }
          hash.update(run);
          writeAll(output, run, position);
          position += run.length;
          first = last + 1;
        }
      } finally {
        fs.closeSync(input);
      }
    }
    checksum = hash.digest();
    writeAll(output, checksum, position);
    fdatasync(output);
    fs.closeSync(output);
  } catch (error) {
    try {
      fs.closeSync(output);
    } catch {
      // already closed
    }
    fs.rmSync(tmp, { force: true });
    throw error;
  }
  const name = packName(checksum);
  const idxTmp = durableFile(tmpdir, name, encodePackIndex(ids, crcs, offsets, checksum));
  return { pack: install(packDir, name, tmp, idxTmp), size: position + 20, ids, offsets };
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Creates `path` exclusively (a lock file), waiting for a live holder and breaking a stale lock. */
export function acquireLock(path: string, options: LockOptions): number {
  const deadline = Date.now() + options.waitMs;
  let delay = 1;
  for (;;) {
    try {
      return fs.openSync(path, 'wx', 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') fs.mkdirSync(dirname(path), { recursive: true });
      else if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      else {
        const stat = fs.statSync(path, { throwIfNoEntry: false });
        if (stat && Date.now() - stat.mtimeMs > options.staleMs) fs.rmSync(path, { force: true });
        else if (Date.now() > deadline) throw new LodestoneError('LockTimeout', 'another process is writing this repository; try again in a moment', { path }); // the path is the server's own: not told to a client
        else {
          Atomics.wait(sleeper, 0, 0, delay);
          delay = Math.min(delay * 2, 50);
        }
      }
    }
  }
}

function readText(path: string): string | undefined {
  try {
    return fs.readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function readRef(gitdir: string, ref: string): string | undefined {
  return looseRef(readText(join(gitdir, ref))) ?? packedRef(ref, readText(join(gitdir, 'packed-refs')));
}

/**
 * Points `ref` at `next` if it still points at `expected` (undefined: the ref must not exist), as
 * git does: `<ref>.lock` taken with O_EXCL, the new id written and fsynced, the ref compared, the
 * lock renamed over the ref and the directory fsynced. Throws RefConflict, leaving the ref as it
 * was, when someone else moved it.
 */
export function updateRef(gitdir: string, ref: string, next: string, expected: string | undefined, options: LockOptions): void {
  const path = join(gitdir, ref);
  const lockPath = path + '.lock';
  const fd = acquireLock(lockPath, options);
  let closed = false;
  let renamed = false;
  try {
    writeAll(fd, Buffer.from(encodeLooseRef(next)), 0);
    fdatasync(fd);
    fs.closeSync(fd);
    closed = true;
    const current = readRef(gitdir, ref);
    if (current !== expected) {
      throw new LodestoneError('RefConflict', `${ref} moved to ${current ?? 'nothing'} (expected ${expected ?? 'nothing'})`, { current, expected });
    }
    fs.renameSync(lockPath, path);
    renamed = true;
    fsyncDirectory(dirname(path));
  } finally {
    if (!closed) fs.closeSync(fd);
    if (!renamed) fs.rmSync(lockPath, { force: true });
  }
}

/** Deletes packs that a merge replaced, each pack index before its pack (git's order: a pack without its .idx is never looked at). */
export function removePacks(packs: readonly string[]): void {
  for (const pack of packs) {
    fs.rmSync(pack.slice(0, -5) + '.idx', { force: true });
    fs.rmSync(pack, { force: true });
  }
}

export function removeFile(path: string): void {
  fs.rmSync(path, { force: true });
}

/** Appends `text` to a file, creating it (and its folder) when absent. */
export function append(path: string, text: string): void {
  try {
    fs.appendFileSync(path, text);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    fs.mkdirSync(dirname(path), { recursive: true });
    fs.appendFileSync(path, text);
  }
}

/**
 * Replaces `path` through `<path>.lock` and a rename, as git does for its index file (the stage).
 * `content` runs once the lock is held, so it may read `path` knowing no git command is replacing
 * it meanwhile. Returns the new file's stat data (its inode, size and mtime are kept through the
 * rename).
 */
export function replaceLocked(path: string, content: () => Uint8Array, options: LockOptions): fs.Stats {
  const lockPath = path + '.lock';
  const fd = acquireLock(lockPath, options);
  let renamed = false;
  try {
    writeAll(fd, content(), 0);
    const stats = fs.fstatSync(fd);
    fs.closeSync(fd);
    fs.renameSync(lockPath, path);
    renamed = true;
    return stats;
  } finally {
    if (!renamed) {
      try {
        fs.closeSync(fd);
      } catch {
        // closed before the rename failed
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
}

/** A journal line: a path and the blob a round writes there (`-`: it removes the file). */
export function journalLine(path: string, blob: string | null): string {
  return `${path}\t${blob ?? '-'}\n`;
}

function readIfThere(path: string): Buffer | undefined {
  try {
    return fs.readFileSync(path);
  } catch {
    return undefined;
  }
}

/**
 * One working-tree sync round (worktree.ts), in one call rather than a thread-pool round trip per
 * step: what the round may write is journalled (appended: the journal goes only once the stage,
 * git's index, records every file written since it began), then each file replaced by HEAD's bytes
 * through a rename, or removed with the folders it leaves empty. A file already as synced and at HEAD's blob
 * is left alone, and so is one someone edited since it was synced (its stat data and content differ).
 */
export function syncWorkingFiles(dir: string, prefix: string, tmpdir: string, journal: string, files: readonly WorkingFile[]): WorkingOutcome[] {
  fs.mkdirSync(dirname(journal), { recursive: true });
  fs.appendFileSync(journal, files.map((file) => journalLine(file.path, file.head)).join(''));
  return files.map(({ path, head, bytes, synced }): WorkingOutcome => {
    const target = join(dir, path);
    const stats = fs.statSync(target, { throwIfNoEntry: false });
    if (stats && synced && statMatches(synced, stats)) {
      if (synced.id === head) return { path, outcome: 'current' };
    } else if (stats && synced) {
      const content = readIfThere(target);
      if (content && blobObject(content).id !== synced.id) return { path, outcome: 'edited' };
    }
    if (bytes && head) {
      fs.mkdirSync(dirname(target), { recursive: true });
      const tmp = join(tmpdir, `wt-${randomBytes(6).toString('hex')}`);
      fs.writeFileSync(tmp, bytes, { mode: 0o644 });
      fs.renameSync(tmp, target);
      return { path, outcome: 'written', entry: stageEntryFromStats(path, head, fs.statSync(target)) };
    }
    fs.rmSync(target, { force: true });
    for (let folder = dirname(path); folder.startsWith(prefix + '/'); folder = dirname(folder)) {
      try {
        fs.rmdirSync(join(dir, folder));
      } catch {
        break; // not empty
      }
    }
    return { path, outcome: 'removed' };
  });
}
