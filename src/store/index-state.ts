/**
 * The git index as the disk worker keeps it, one per gitdir (the worker serves every repository of
 * the process): each entry encoded once, when it is set, with its path bytes; their order by path
 * bytes, sorted again only when paths come or go; and the stat data of the file as the worker last
 * wrote it. An index file whose stat data differs was rewritten by someone else (`git add`, a
 * refreshing `git status`), or the worker restarted: the file is read again, and is the truth.
 */
import type { Stats } from 'node:fs';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { replaceLocked, type LockOptions } from './disk-ops.js';
import { encodeEntry, encodeIndex, entryName, parseIndex, type IndexEntry } from './index-file.js';

/** What changed in the index under a prefix (a dataspace's folder) since the last update. */
export interface IndexUpdate {
  /** Entries to add or replace. */
  set: IndexEntry[];
  /** Paths whose entries are dropped. */
  remove: string[];
  /** `set` holds every entry under the prefix: any other entry under it is dropped. */
  replacePrefix?: boolean;
}

/** An entry as it stands in the file, and its path bytes (a view into them). */
interface Slot {
  name: Buffer;
  bytes: Buffer;
}

interface KeptIndex {
  slots: Map<string, Slot>;
  /** The slots by path bytes; undefined once a path came or went. */
  sorted: Slot[] | undefined;
  /** The file as last written or read; undefined when there was none. */
  stamp: Pick<Stats, 'ino' | 'size' | 'mtimeMs'> | undefined;
}

const kept = new Map<string, KeptIndex>();

/**
 * Applies `update` to the index of the repository at `gitdir` and writes the whole file through
 * `index.lock`. Entries outside the prefix are kept as the file has them.
 */
export function updateIndex(gitdir: string, prefix: string, update: IndexUpdate, lock: LockOptions): void {
  const file = join(gitdir, 'index');
  try {
    const stats = replaceLocked(
      file,
      () => {
        const index = current(gitdir, file);
        apply(index, prefix + '/', update);
        return encodeIndex(ordered(index).map((slot) => slot.bytes));
      },
      lock,
    );
    kept.get(gitdir)!.stamp = stats;
  } catch (error) {
    kept.delete(gitdir); // memory may be ahead of the file now: read the file next time
    throw error;
  }
}

/** The index in memory if the file is still as the worker left it, else the file as read now. */
function current(gitdir: string, file: string): KeptIndex {
  const stats = fs.statSync(file, { throwIfNoEntry: false });
  const known = kept.get(gitdir);
  if (known && sameFile(known.stamp, stats)) return known;
  const index: KeptIndex = { slots: new Map(), sorted: undefined, stamp: stats };
  if (stats) for (const entry of parseIndex(fs.readFileSync(file)).values()) set(index, entry);
  kept.set(gitdir, index);
  return index;
}

function sameFile(stamp: KeptIndex['stamp'], stats: Stats | undefined): boolean {
  if (!stamp || !stats) return stamp === stats;
  return stamp.ino === stats.ino && stamp.size === stats.size && stamp.mtimeMs === stats.mtimeMs;
}

function apply(index: KeptIndex, prefix: string, update: IndexUpdate): void {
  if (update.replacePrefix) {
    for (const path of index.slots.keys()) if (path.startsWith(prefix)) remove(index, path);
  }
  for (const path of update.remove) remove(index, path);
  for (const entry of update.set) set(index, entry);
}

function set(index: KeptIndex, entry: IndexEntry): void {
  const bytes = encodeEntry(entry);
  const slot = index.slots.get(entry.path);
  if (slot) {
    slot.name = entryName(bytes); // same path: same place in the order
    slot.bytes = bytes;
  } else {
    index.slots.set(entry.path, { name: entryName(bytes), bytes });
    index.sorted = undefined;
  }
}

function remove(index: KeptIndex, path: string): void {
  if (index.slots.delete(path)) index.sorted = undefined;
}

/** The slots in git's order: by the bytes of their paths. */
function ordered(index: KeptIndex): Slot[] {
  return (index.sorted ??= [...index.slots.values()].sort((a, b) => Buffer.compare(a.name, b.name)));
}
