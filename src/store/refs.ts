/**
 * Branch refs, read and updated the way git itself does it, so the server and a git client on the
 * same repository never lose each other's commits: an update takes `<ref>.lock` with O_EXCL,
 * writes and fsyncs the new id, checks the ref still holds the expected id (compare-and-swap),
 * renames the lock over the ref and fsyncs the directory. Refs may also live in `packed-refs`.
 */
import { promises as fsp } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LodestoneError } from '../errors.js';
import { fsyncDirectory } from './objects.js';

const SHA = /^[0-9a-f]{40}$/;

async function readText(path: string): Promise<string | undefined> {
  try {
    return await fsp.readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The id a ref points to, from its loose file or from packed-refs; undefined if unborn. */
export async function readRef(gitdir: string, ref: string): Promise<string | undefined> {
  const loose = (await readText(join(gitdir, ref)))?.trim();
  if (loose && SHA.test(loose)) return loose;
  const packed = await readText(join(gitdir, 'packed-refs'));
  if (!packed) return undefined;
  for (const line of packed.split('\n')) {
    if (line.endsWith(' ' + ref) && SHA.test(line.slice(0, 40))) return line.slice(0, 40);
  }
  return undefined;
}

export interface LockOptions {
  /** How long to wait for another process's lock before giving up. */
  waitMs: number;
  /** A lock file older than this is taken to be left by a crash, and removed. */
  staleMs: number;
}

export const defaultLockOptions: LockOptions = { waitMs: 5_000, staleMs: 10_000 };

/** Creates `path` exclusively, waiting for a live holder and breaking a stale lock. */
export async function acquireLock(path: string, options: LockOptions = defaultLockOptions): Promise<fsp.FileHandle> {
  const deadline = Date.now() + options.waitMs;
  let delay = 1;
  for (;;) {
    try {
      return await fsp.open(path, 'wx', 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const stat = await fsp.stat(path).catch(() => undefined);
    if (stat && Date.now() - stat.mtimeMs > options.staleMs) {
      await fsp.rm(path, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new LodestoneError('LockTimeout', `${path} is held by another process`, { path });
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 50);
  }
}

/**
 * Points `ref` at `next` if it still points at `expected` (undefined: the ref must not exist).
 * Throws RefConflict, leaving the ref as it was, when someone else moved it.
 */
export async function updateRef(
  gitdir: string,
  ref: string,
  next: string,
  expected: string | undefined,
  options: LockOptions = defaultLockOptions,
): Promise<void> {
  const path = join(gitdir, ref);
  await fsp.mkdir(dirname(path), { recursive: true });
  const lockPath = path + '.lock';
  const handle = await acquireLock(lockPath, options);
  let renamed = false;
  try {
    await handle.writeFile(next + '\n');
    await handle.datasync();
    await handle.close();
    const current = await readRef(gitdir, ref);
    if (current !== expected) {
      throw new LodestoneError('RefConflict', `${ref} moved to ${current ?? 'nothing'} (expected ${expected ?? 'nothing'})`, {
        current,
        expected,
      });
    }
    await fsp.rename(lockPath, path);
    renamed = true;
    await fsyncDirectory(dirname(path));
  } finally {
    await handle.close().catch(() => undefined);
    if (!renamed) await fsp.rm(lockPath, { force: true });
  }
}

/** Lock files a crashed writer may have left; removed at startup when they stay put. */
export async function clearStaleLocks(gitdir: string, ref: string, settleMs = 1_000): Promise<string[]> {
  const candidates = [join(gitdir, ref + '.lock'), join(gitdir, 'index.lock'), join(gitdir, 'packed-refs.lock'), join(gitdir, 'HEAD.lock')];
  const present = async () => (await Promise.all(candidates.map(async (p) => ((await fsp.stat(p).catch(() => undefined)) ? p : undefined)))).filter((p): p is string => !!p);
  let found = await present();
  if (found.length === 0) return [];
  await sleep(settleMs); // a live git command finishes within this; a crashed one never does
  found = await present();
  await Promise.all(found.map((p) => fsp.rm(p, { force: true })));
  return found;
}
