/**
 * The stage (git's index file, `.git/index`) of the repositories a disk worker serves, as the
 * worker keeps it, one per gitdir: each entry encoded once, when it is set, with its path bytes;
 * their order by path bytes, sorted again only when paths come or go; and the stat data of the file
 * as the worker last wrote it. A file whose stat data differs was rewritten by someone else
 * (`git add`, a refreshing `git status`), or the worker restarted: the file is read again, and is
 * the truth. The main thread only reads the file, at startup (readStage).
 */
import type { Stats } from 'node:fs';
import * as fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { decodeStage, encodeStage, encodeStageEntry, stageEntryName, type StageEntry } from '../git/stage-file.js';
import { mergeSorted } from '../util/sorted.js';
import { replaceLocked } from './disk-ops.js';
import type { LockOptions, StageUpdate } from './disk-protocol.js';

/** The stage of the repository at `gitdir`, by path; empty when there is none. */
export async function readStage(gitdir: string): Promise<Map<string, StageEntry>> {
  try {
    return decodeStage(await fsp.readFile(join(gitdir, 'index')));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw error;
  }
}

/** An entry as it stands in the file, and its path bytes (a view into them). */
interface Slot {
  name: Buffer;
  bytes: Buffer;
}

interface KeptStage {
  slots: Map<string, Slot>;
  /** The slots by path bytes, as of the last write; undefined until first sorted. */
  sorted: Slot[] | undefined;
  /** Slots of paths that came since `sorted` was made (merged in, not sorted again with the rest). */
  added: Slot[];
  /** Slots of paths that went since `sorted` was made. */
  removed: Set<Slot>;
  /** The file as last written or read; undefined when there was none. */
  stamp: Pick<Stats, 'ino' | 'size' | 'mtimeMs'> | undefined;
}

/** The stages a disk worker keeps, by gitdir (built once by the worker, disk-worker.ts). */
export class Stages {
  private readonly kept = new Map<string, KeptStage>();

  /**
   * Applies `update` to the stage of the repository at `gitdir` and writes the whole file through
   * `index.lock`. Entries outside the prefix are kept as the file has them.
   */
  update(gitdir: string, prefix: string, update: StageUpdate, lock: LockOptions): void {
    const file = join(gitdir, 'index');
    try {
      const stats = replaceLocked(
        file,
        () => {
          const stage = this.current(gitdir, file);
          apply(stage, prefix + '/', update);
          return encodeStage(ordered(stage).map((slot) => slot.bytes));
        },
        lock,
      );
      this.kept.get(gitdir)!.stamp = stats;
    } catch (error) {
      this.kept.delete(gitdir); // memory may be ahead of the file now: read the file next time
      throw error;
    }
  }

  /** The stage in memory if the file is still as the worker left it, else the file as read now. */
  private current(gitdir: string, file: string): KeptStage {
    const stats = fs.statSync(file, { throwIfNoEntry: false });
    const known = this.kept.get(gitdir);
    if (known && sameFile(known.stamp, stats)) return known;
    const stage: KeptStage = { slots: new Map(), sorted: undefined, added: [], removed: new Set(), stamp: stats };
    if (stats) for (const entry of decodeStage(fs.readFileSync(file)).values()) set(stage, entry);
    this.kept.set(gitdir, stage);
    return stage;
  }
}

function sameFile(stamp: KeptStage['stamp'], stats: Stats | undefined): boolean {
  if (!stamp || !stats) return stamp === stats;
  return stamp.ino === stats.ino && stamp.size === stats.size && stamp.mtimeMs === stats.mtimeMs;
}

function apply(stage: KeptStage, prefix: string, update: StageUpdate): void {
  if (update.replacePrefix) {
    for (const path of stage.slots.keys()) if (path.startsWith(prefix)) remove(stage, path);
  }
  for (const path of update.remove) remove(stage, path);
  for (const entry of update.set) set(stage, entry);
}

function set(stage: KeptStage, entry: StageEntry): void {
  const bytes = encodeStageEntry(entry);
  const slot = stage.slots.get(entry.path);
  if (slot) {
    slot.name = stageEntryName(bytes); // same path: same place in the order
    slot.bytes = bytes;
  } else {
    const added = { name: stageEntryName(bytes), bytes };
    stage.slots.set(entry.path, added);
    stage.added.push(added);
  }
}

function remove(stage: KeptStage, path: string): void {
  const slot = stage.slots.get(path);
  if (!slot) return;
  stage.slots.delete(path);
  stage.removed.add(slot);
}

const byName = (a: Slot, b: Slot) => Buffer.compare(a.name, b.name);

/**
 * The slots in git's order: by the bytes of their paths. The paths that came since the last time
 * are sorted among themselves and merged in, so a round of a few new files costs a pass over the
 * stage, not a sort of it (a million entries took seconds to sort).
 */
function ordered(stage: KeptStage): Slot[] {
  if (!stage.sorted) {
    stage.sorted = [...stage.slots.values()].sort(byName);
    stage.added = [];
    stage.removed.clear();
    return stage.sorted;
  }
  const { removed } = stage;
  const kept = removed.size > 0 ? stage.sorted.filter((slot) => !removed.has(slot)) : stage.sorted;
  const added = removed.size > 0 ? stage.added.filter((slot) => !removed.has(slot)) : stage.added;
  stage.sorted = added.length > 0 ? mergeSorted(kept, added.sort(byName), byName) : kept;
  stage.added = [];
  removed.clear();
  return stage.sorted;
}

