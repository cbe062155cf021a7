/**
 * Writes to disk, done by one worker thread for the whole process (disk-worker.ts). Every call
 * returns once its data is durable; calls run one at a time, in the order they were made.
 */
import { WorkerCalls } from '../util/worker.js';
import type { LockOptions, PackObject, RefUpdate, WrittenPack } from './disk-ops.js';
import type { IndexUpdate } from './index-state.js';

export type { IndexUpdate, LockOptions, PackObject, RefUpdate, WrittenPack };

export type DiskRequest =
  | { op: 'writePack'; packDir: string; tmpdir: string; objects: PackObject[]; then?: RefUpdate }
  | { op: 'mergePacks'; packDir: string; tmpdir: string; packs: string[] }
  | { op: 'removePacks'; packs: string[] }
  | { op: 'updateRef'; gitdir: string; ref: string; next: string; expected: string | undefined; lock: LockOptions }
  | { op: 'append'; path: string; text: string }
  | { op: 'updateIndex'; gitdir: string; prefix: string; update: IndexUpdate; lock: LockOptions }
  | { op: 'ping' }
  | { op: 'syncCalls' };

const calls = new WorkerCalls<DiskRequest>(new URL('./disk-worker.js', import.meta.url));

/**
 * Objects as the worker receives them: their contents copied into one buffer that is transferred,
 * not cloned (a Buffer's clone would copy the whole pool slab it lives in, for each object).
 */
function transferable(objects: readonly PackObject[]): { objects: PackObject[]; buffer: ArrayBuffer } {
  const buffer = new ArrayBuffer(objects.reduce((sum, object) => sum + object.content.length, 0));
  let offset = 0;
  const moved = objects.map((object) => {
    const content = new Uint8Array(buffer, offset, object.content.length);
    content.set(object.content);
    offset += content.length;
    return { id: object.id, type: object.type, content };
  });
  return { objects: moved, buffer };
}

export const disk = {
  writePack: (packDir: string, tmpdir: string, objects: readonly PackObject[], then?: RefUpdate) => {
    const moved = transferable(objects);
    return calls.call<WrittenPack>({ op: 'writePack', packDir, tmpdir, objects: moved.objects, ...(then ? { then } : {}) }, [moved.buffer]);
  },
  mergePacks: (packDir: string, tmpdir: string, packs: string[]) => calls.call<WrittenPack | { deltaPack: string }>({ op: 'mergePacks', packDir, tmpdir, packs }),
  removePacks: (packs: string[]) => calls.call<void>({ op: 'removePacks', packs }),
  updateRef: (gitdir: string, ref: string, next: string, expected: string | undefined, lock: LockOptions) => calls.call<void>({ op: 'updateRef', gitdir, ref, next, expected, lock }),
  append: (path: string, text: string) => calls.call<void>({ op: 'append', path, text }),
  /** Applies what changed under `prefix` to the git index the worker keeps for `gitdir`, and writes it (index-state.ts). */
  updateIndex: (gitdir: string, prefix: string, update: IndexUpdate, lock: LockOptions) => calls.call<void>({ op: 'updateIndex', gitdir, prefix, update, lock }),
  /** Resolves once the worker answers: started before a store takes writes, not by the first one. */
  ready: () => calls.call<void>({ op: 'ping' }),
  /** How many fdatasync and fsync calls the worker has made (benchmarks count them per commit). */
  syncCalls: () => calls.call<{ fdatasync: number; fsync: number }>({ op: 'syncCalls' }),
};
