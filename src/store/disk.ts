/**
 * The client of a disk worker (disk-worker.ts), a thread that makes the writes of every repository
 * handed to it; calls run one at a time, in the order they were made. Packs and refs are durable
 * (fsynced) when their call returns; the working tree, the stage (git's index) and the version log
 * are derived from them and are written without fsync, as git writes its index. The composition
 * root builds one for the process and passes it to every store; a store opened without one builds
 * its own.
 */
import { THREADS, workerEntry } from '../threads.js';
import { WorkerCalls } from '../util/worker.js';
import type { DiskRequest, LockOptions, PackObject, RefUpdate, StageUpdate, WorkingFile, WorkingOutcome, WrittenPack } from './disk-protocol.js';

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

export class DiskClient {
  private readonly calls = new WorkerCalls<DiskRequest>(workerEntry(THREADS.disk));

  writePack(packDir: string, tmpdir: string, objects: readonly PackObject[], then?: RefUpdate): Promise<WrittenPack> {
    const moved = transferable(objects, 'content');
    return this.calls.call({ op: 'writePack', packDir, tmpdir, objects: moved.items, ...(then ? { then } : {}) }, [moved.buffer]);
  }

  mergePacks(packDir: string, tmpdir: string, packs: string[]): Promise<WrittenPack | { deltaPack: string }> {
    return this.calls.call({ op: 'mergePacks', packDir, tmpdir, packs });
  }

  removePacks(packs: string[]): Promise<void> {
    return this.calls.call({ op: 'removePacks', packs });
  }

  /**
   * Points `ref` at `next` if it still points at `expected` (undefined: the ref must not exist), as
   * git does (disk-ops.ts). Throws RefConflict, leaving the ref as it was, when someone else moved it.
   */
  updateRef(gitdir: string, ref: string, next: string, expected: string | undefined, lock: LockOptions): Promise<void> {
    return this.calls.call({ op: 'updateRef', gitdir, ref, next, expected, lock });
  }

  append(path: string, text: string): Promise<void> {
    return this.calls.call({ op: 'append', path, text });
  }

  /**
   * Applies what changed under `prefix` to the stage the worker keeps for `gitdir`, and writes it
   * (stage.ts); then removes `journal`, a sync round's, if given.
   */
  updateStage(gitdir: string, prefix: string, update: StageUpdate, lock: LockOptions, journal?: string): Promise<void> {
    return this.calls.call({ op: 'updateStage', gitdir, prefix, update, lock, ...(journal ? { journal } : {}) });
  }

  /** One working-tree sync round's files (disk-ops.ts, syncWorkingFiles). */
  syncWorkingFiles(dir: string, prefix: string, tmpdir: string, journal: string, files: WorkingFile[]): Promise<WorkingOutcome[]> {
    const moved = transferable(files, 'bytes');
    return this.calls.call({ op: 'syncWorkingFiles', dir, prefix, tmpdir, journal, files: moved.items }, [moved.buffer]);
  }

  /** Resolves once the worker answers: started before a store takes writes, not by the first one. */
  ready(): Promise<void> {
    return this.calls.call({ op: 'ping' });
  }

  /** How many fdatasync and fsync calls the worker has made (benchmarks count them per commit). */
  syncCalls(): Promise<{ fdatasync: number; fsync: number }> {
    return this.calls.call({ op: 'syncCalls' });
  }

  /** Stops the worker, once the calls made so far are answered. */
  async close(): Promise<void> {
    await this.ready().catch(() => undefined);
    await this.calls.close();
  }
}
