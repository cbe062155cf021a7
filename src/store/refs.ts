/**
 * Branch refs, read and updated the way git itself does it, so the server and a git client on the
 * same repository never lose each other's commits: an update (DiskClient.updateRef, made by the
 * disk worker in disk-ops.ts) takes `<ref>.lock` with O_EXCL, writes and fsyncs the new id, checks
 * the ref still holds the expected id (compare-and-swap), renames the lock over the ref and fsyncs
 * the directory. Refs may also live in `packed-refs`. Their text is read by src/git/refs.ts.
 */
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { looseRef, packedRef } from '../git/refs.js';
import type { LockOptions } from './disk-protocol.js';

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
  return looseRef(await readText(join(gitdir, ref))) ?? packedRef(ref, await readText(join(gitdir, 'packed-refs')));
}

export const defaultLockOptions: LockOptions = { waitMs: 5_000, staleMs: 10_000 };

/** The folders of refs beside the served one, whose lock files a kill can leave: the branches of change requests, and their comment threads. */
const LOCKED_REF_FOLDERS = [['refs', 'heads'], ['refs', 'lodestone', 'comments']];

/**
 * Lock files a crashed writer may have left, removed at startup when they stay put: the served
 * ref's, git's own, and those of the refs beside it (`refs/heads/*.lock`,
 * `refs/lodestone/comments/*.lock`: a kill while a change request's branch or comment thread was
 * moved would leave it unwritable until the lock went stale).
 */
export async function clearStaleLocks(gitdir: string, ref: string, settleMs = 1_000): Promise<string[]> {
  const locksIn = async (folder: string) => (await fsp.readdir(folder).catch(() => [] as string[])).filter((name) => name.endsWith('.lock')).map((name) => join(folder, name));
  const besideLocks = (await Promise.all(LOCKED_REF_FOLDERS.map((parts) => locksIn(join(gitdir, ...parts))))).flat();
  const candidates = [...new Set([join(gitdir, ref + '.lock'), join(gitdir, 'index.lock'), join(gitdir, 'packed-refs.lock'), join(gitdir, 'HEAD.lock'), ...besideLocks])];
  const present = async () => (await Promise.all(candidates.map(async (p) => ((await fsp.stat(p).catch(() => undefined)) ? p : undefined)))).filter((p): p is string => !!p);
  let found = await present();
  if (found.length === 0) return [];
  await sleep(settleMs); // a live git command finishes within this; a crashed one never does
  found = await present();
  await Promise.all(found.map((p) => fsp.rm(p, { force: true })));
  return found;
}
