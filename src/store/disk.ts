/**
 * Writes to disk, done by one worker thread for the whole process (disk-worker.ts); calls run one
 * at a time, in the order they were made. Packs and refs are durable (fsynced) when their call
 * returns; the working tree, the git index and the version log are derived from them and are
 * written without fsync, as git writes its index.
 */
import { WorkerCalls } from '../util/worker.js';
import type { LockOptions, PackObject, RefUpdate, WorkingFile, WorkingOutcome, WrittenPack } from './disk-ops.js';
import type { IndexUpdate } from './index-state.js';

export type { IndexUpdate, LockOptions, PackObject, RefUpdate, WorkingFile, WorkingOutcome, WrittenPack };

export type DiskRequest =
  | { op: 'writePack'; packDir: string; tmpdir: string; objects: PackObject[]; then?: RefUpdate }
  | { op: 'mergePacks'; packDir: string; tmpdir: string; packs: string[] }
  | { op: 'removePacks'; packs: string[] }
  | { op: 'updateRef'; gitdir: string; ref: string; next: string; expected: string | undefined; lock: LockOptions }
  | { op: 'append'; path: string; text: string }
  | { op: 'updateIndex'; gitdir: string; prefix: string; update: IndexUpdate; lock: LockOptions; journal?: string }
  | { op: 'syncWorkingFiles'; dir: string; prefix: string; tmpdir: string; journal: string; files: WorkingFile[] }
  | { op: 'ping' }
  | { op: 'syncCalls' };

const calls = new WorkerCalls<DiskRequest>(new URL('./disk-worker.js', import.meta.url));

/**
 * Items as the worker receives them: their `key` bytes copied into one buffer that is transferred,
 * not cloned (a Buffer's clone would copy the whole pool slab it lives in, for each item).
 */
function transferable<K extends string, T extends { [key in K]: Uint8Array | null }>(items: readonly T[], key: K): { items: T[]; buffer: ArrayBuffer } {
  const buffer = new ArrayBuffer(items.reduce((sum, item) => sum + (item[key]?.length ?? 0), 0));
  let offset = 0;
  const moved = items.map((item): T => {
    const bytes = item[key];
    if (!bytes) return item;
    const copy = new Uint8Array(buffer, offset, bytes.length);
    copy.set(bytes);
    offset += bytes.length;
    return { ...item, [key]: copy };
  });
  return { items: moved, buffer };
}

export const disk = {
  writePack: (packDir: string, tmpdir: string, objects: readonly PackObject[], then?: RefUpdate) => {
    const moved = transferable(objects, 'content');
    return calls.call<WrittenPack>({ op: 'writePack', packDir, tmpdir, objects: moved.items, ...(then ? { then } : {}) }, [moved.buffer]);
  },
  mergePacks: (packDir: string, tmpdir: string, packs: string[]) => calls.call<WrittenPack | { deltaPack: string }>({ op: 'mergePacks', packDir, tmpdir, packs }),
  removePacks: (packs: string[]) => calls.call<void>({ op: 'removePacks', packs }),
  updateRef: (gitdir: string, ref: string, next: string, expected: string | undefined, lock: LockOptions) => calls.call<void>({ op: 'updateRef', gitdir, ref, next, expected, lock }),
  append: (path: string, text: string) => calls.call<void>({ op: 'append', path, text }),
  /**
   * Applies what changed under `prefix` to the git index the worker keeps for `gitdir`, and writes
   * it (index-state.ts); then removes `journal`, a sync round's, if given.
   */
  updateIndex: (gitdir: string, prefix: string, update: IndexUpdate, lock: LockOptions, journal?: string) => calls.call<void>({ op: 'updateIndex', gitdir, prefix, update, lock, ...(journal ? { journal } : {}) }),
  /** One working-tree sync round's files (disk-ops.ts, syncWorkingFiles). */
  syncWorkingFiles: (dir: string, prefix: string, tmpdir: string, journal: string, files: WorkingFile[]) => {
    const moved = transferable(files, 'bytes');
    return calls.call<WorkingOutcome[]>({ op: 'syncWorkingFiles', dir, prefix, tmpdir, journal, files: moved.items }, [moved.buffer]);
  },
  /** Resolves once the worker answers: started before a store takes writes, not by the first one. */
  ready: () => calls.call<void>({ op: 'ping' }),
  /** How many fdatasync and fsync calls the worker has made (benchmarks count them per commit). */
  syncCalls: () => calls.call<{ fdatasync: number; fsync: number }>({ op: 'syncCalls' }),
};
