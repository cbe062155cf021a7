/**
 * The changes to the store's HEAD since lane 0's last sync was sent (src/index/index.ts), as paths
 * to their new blob ids (null: deleted), so that its next sync carries the changed files' bytes
 * from the main thread and the worker reads nothing from the packs. Only an unbroken run of HEADs
 * is kept: a HEAD that does not follow the last one recorded starts the run again.
 */
import type { FileDiff } from '../store/trees.js';
import type { SyncDelta } from './index-core.js';

interface Run {
  from: string | undefined;
  to: string;
  tree: string;
  files: Map<string, string | null>;
}

export class RecordedChanges {
  private run: Run | undefined;

  /** @param cachedBlob a blob's bytes if the main thread holds them */
  constructor(private readonly cachedBlob: ((id: string) => Uint8Array | undefined) | undefined) {}

  /** Records a new HEAD (its tree and the files that changed); returns how many files the run now holds. */
  record(before: string | undefined, after: string, tree: string, files: readonly FileDiff[]): number {
    const run = this.run && this.run.to === before ? this.run : { from: before, to: after, tree, files: new Map<string, string | null>() };
    run.to = after;
    run.tree = tree;
    for (const file of files) run.files.set(file.path, file.after ?? null);
    this.run = run;
    return run.files.size;
  }

  /** Takes the run up to `commit` with its bytes, or undefined when it does not end there or they are not all in hand. */
  take(commit: string | undefined): SyncDelta | undefined {
    const run = this.run;
    this.run = undefined;
    if (!run || run.to !== commit || !this.cachedBlob) return undefined;
    const files: SyncDelta['files'] = [];
    for (const [path, id] of run.files) {
      if (!path.endsWith('.nt')) continue; // no document's file (an uploaded file's bytes): nothing to index, nothing to copy to the worker
      const bytes = id === null ? null : this.cachedBlob(id);
      if (bytes === undefined) return undefined;
      files.push({ path, bytes });
    }
    return { from: run.from, tree: run.tree, files };
  }
}
