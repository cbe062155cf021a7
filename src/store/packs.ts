/**
 * The packs of one repository, read: PackSet knows where every object of every pack lies (from the
 * pack indexes, rescanned when an object is not found) and reads whole objects itself; delta
 * entries, which only git's own repacking writes, are left to the caller's fallback. A write batch
 * becomes one pack of whole objects, so group commit costs one fsync per file for the batch rather
 * than one per object; packs are written, and merged geometrically so that their number stays
 * small, by the disk worker (disk-ops.ts). The formats are in src/git/packs.ts and pack-index.ts.
 */
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import type { ObjectType } from '../git/objects.js';
import { decodePackIndex } from '../git/pack-index.js';
import { decodePackEntry } from '../git/packs.js';
import { ByteCache } from '../util/byte-cache.js';
import type { WrittenPack } from './disk-protocol.js';

interface Location {
  pack: string;
  offset: number;
  end: number;
}

const WHOLE_PACK_BYTES = 32 * 1024 * 1024;
/** Each pack of a merge is at most this many times the size of all smaller packs together. */
const GEOMETRIC_FACTOR = 2;

export class PackSet {
  private readonly dir: string;
  // id → pack number × 2^32 + offset: a number per object, not an object (a long history has
  // millions, and they are all read in at startup)
  private readonly locations = new Map<string, number>();
  private readonly packNumbers = new Map<string, number>();
  private readonly packNames: string[] = [];

  private packNumber(pack: string): number {
    let n = this.packNumbers.get(pack);
    if (n === undefined) {
      n = this.packNames.push(pack) - 1;
      this.packNumbers.set(pack, n);
    }
    return n;
  }

  private locate(id: string): Location | undefined {
    const code = this.locations.get(id);
    if (code === undefined) return undefined;
    const offset = code % 2 ** 32;
    return { pack: this.packNames[(code - offset) / 2 ** 32]!, offset, end: -1 };
  }
  private readonly loaded = new Map<string, string[]>(); // pack path → its object ids
  /** Open packs, as promises: two readers of one pack at once share one open (each its own would leak one). */
  private readonly handles = new Map<string, Promise<fsp.FileHandle>>();
  private readonly packBytes = new ByteCache<Buffer>(128 * 1024 * 1024, (b) => b.length, 32 * 1024 * 1024);

  private readonly wholePackBytes: number;

  /** `wholePackBytes`: packs up to this size are read whole (tests lower it to read through file handles). */
  constructor(gitdir: string, options: { wholePackBytes?: number } = {}) {
    this.dir = join(gitdir, 'objects', 'pack');
    this.wholePackBytes = options.wholePackBytes ?? WHOLE_PACK_BYTES;
  }

  /** The ids of the packed objects that start with `prefix` (a scan of the ids in memory: for the odd abbreviated id, not for every read). */
  withPrefix(prefix: string): string[] {
    const found: string[] = [];
    for (const id of this.locations.keys()) if (id.startsWith(prefix)) found.push(id);
    return found;
  }

  has(id: string): boolean {
    return this.locations.has(id);
  }

  /** Loads the indexes of packs not seen yet (and forgets packs that are gone). */
  async rescan(): Promise<void> {
    const names = new Set((await fsp.readdir(this.dir).catch(() => [] as string[])).filter((n) => n.endsWith('.idx')).map((n) => join(this.dir, n.slice(0, -4) + '.pack')));
    const unlocated = new Set<string>();
    for (const pack of [...this.loaded.keys()]) if (!names.has(pack)) for (const id of this.forget(pack)) unlocated.add(id);
    for (const pack of names) {
      if (this.loaded.has(pack)) continue;
      try {
        const { ids, offsets } = decodePackIndex(await fsp.readFile(pack.slice(0, -5) + '.idx'));
        // where each entry ends is worked out when the pack is first read from (endOf)
        const base = this.packNumber(pack) * 2 ** 32;
        for (let k = 0; k < ids.length; k++) if (!this.locations.has(ids[k]!)) this.locations.set(ids[k]!, base + offsets[k]!);
        this.loaded.set(pack, ids);
        this.indexOffsets.set(pack, offsets);
      } catch {
        // a pack being replaced under us: the next rescan sees the new state
      }
    }
    // objects of a pack gone (merged) that a pack seen by an earlier rescan also holds (the merged
    // pack, seen before the old one was deleted): found there again, not lost
    for (const id of unlocated) if (this.locations.has(id)) unlocated.delete(id);
    for (const [pack, ids] of unlocated.size ? this.loaded : []) {
      if (!ids.some((id) => unlocated.has(id))) continue;
      const index = await fsp.readFile(pack.slice(0, -5) + '.idx').then(decodePackIndex, () => undefined);
      const base = this.packNumber(pack) * 2 ** 32;
      index?.ids.forEach((id, k) => {
        if (unlocated.delete(id)) this.locations.set(id, base + index.offsets[k]!);
      });
    }
  }

  /** Forgets a pack; returns the ids it was where to find. */
  private forget(pack: string): string[] {
    const located: string[] = [];
    for (const id of this.loaded.get(pack) ?? []) {
      if (this.locate(id)?.pack !== pack) continue;
      this.locations.delete(id);
      located.push(id);
    }
    this.loaded.delete(pack);
    this.sortedOffsets.delete(pack);
    this.indexOffsets.delete(pack);
    this.packBytes.delete(pack);
    this.sizes.delete(pack);
    const handle = this.handles.get(pack);
    this.handles.delete(pack);
    void closeQuietly(handle);
    return located;
  }

  async close(): Promise<void> {
    const handles = [...this.handles.values()];
    this.handles.clear();
    await Promise.all(handles.map(closeQuietly));
  }

  private handle(pack: string): Promise<fsp.FileHandle> {
    let handle = this.handles.get(pack);
    if (!handle) {
      if (this.handles.size >= 64) {
        const [oldest, old] = this.handles.entries().next().value as [string, Promise<fsp.FileHandle>];
        this.handles.delete(oldest);
        void closeQuietly(old); // a read under way on it finishes first (FileHandle.close waits for it)
      }
      handle = fsp.open(pack, 'r');
      handle.catch(() => this.handles.get(pack) === handle && this.handles.delete(pack)); // a failed open is not kept
      this.handles.set(pack, handle);
    }
    return handle;
  }

  /** Each pack's size in bytes: packs never change once written, so it is read once. */
  private readonly sizes = new Map<string, number>();

  private async sizeOf(pack: string): Promise<number> {
    let size = this.sizes.get(pack);
    if (size === undefined) this.sizes.set(pack, (size = (await fsp.stat(pack)).size));
    return size;
  }

  /** Entry offsets of each pack as its pack index lists them, then sorted once the pack is read from. */
  private readonly indexOffsets = new Map<string, Float64Array>();
  private readonly sortedOffsets = new Map<string, Float64Array>();

  /** Where the entry at `location` ends: the next entry's offset, or the pack's trailing checksum. */
  private async endOf(location: Location): Promise<number> {
    let sorted = this.sortedOffsets.get(location.pack);
    if (!sorted) {
      const offsets = this.indexOffsets.get(location.pack) ?? new Float64Array(0);
      sorted = new Float64Array(offsets.length + 1);
      sorted.set(offsets);
      sorted[offsets.length] = (await this.sizeOf(location.pack)) - 20;
      sorted.sort();
      this.sortedOffsets.set(location.pack, sorted);
      this.indexOffsets.delete(location.pack);
    }
    let low = 0;
    let high = sorted.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (sorted[middle]! <= location.offset) low = middle + 1;
      else high = middle;
    }
    return sorted[low]!;
  }

  private async rawEntry(location: Location): Promise<Buffer> {
    if (location.end < 0) location.end = await this.endOf(location);
    const whole = await this.wholePack(location.pack);
    if (whole) return whole.subarray(location.offset, location.end);
    const buffer = Buffer.alloc(location.end - location.offset);
    const handle = await this.handle(location.pack);
    await handle.read(buffer, 0, buffer.length, location.offset);
    return buffer;
  }

  /**
   * Packs up to 32 MiB are read whole, once, and kept (up to 128 MiB in all): walking history
   * reads thousands of small entries, and one read per pack beats one per entry (measured: a
   * 1 MiB limit made a 20k-commit walk twice as slow). Pack files never change once written, so a
   * kept copy never goes stale.
   */
  private async wholePack(pack: string): Promise<Buffer | undefined> {
    const kept = this.packBytes.get(pack);
    if (kept) return kept;
    if ((await this.sizeOf(pack)) > this.wholePackBytes) return undefined;
    const bytes = await fsp.readFile(pack);
    this.packBytes.put(pack, bytes);
    return bytes;
  }

  /** A whole object; 'delta' for an entry only git's delta resolution can read; undefined if absent. */
  async read(id: string): Promise<{ type: ObjectType; content: Buffer } | 'delta' | undefined> {
    let location = this.locate(id);
    if (!location) return undefined;
    let raw: Buffer;
    try {
      raw = await this.rawEntry(location);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'EBADF') throw error;
      await this.rescan(); // merged away while we looked: look again
      location = this.locate(id);
      if (!location) return undefined;
      raw = await this.rawEntry(location);
    }
    return decodePackEntry(raw);
  }

  /** Knows the objects of a pack just written (see disk-ops.ts). */
  register(written: WrittenPack): void {
    this.sizes.set(written.pack, written.size);
    const base = this.packNumber(written.pack) * 2 ** 32;
    written.ids.forEach((id, i) => this.locations.set(id, base + written.offsets[i]!));
    this.indexOffsets.set(written.pack, Float64Array.from(written.offsets));
    this.loaded.set(written.pack, [...written.ids]);
  }

  /** Packs found to hold delta entries (git's own repacking): never merged. */
  private readonly deltaPacks = new Set<string>();

  /**
   * The packs to merge, chosen as `git repack --geometric=2` does: the smallest packs, while the
   * next one is at most twice the size of all of them together. After the merge every pack is more
   * than twice the size of all smaller ones, so their number grows with the logarithm of the
   * history and each object is copied a logarithmic number of times. The merged size has no cap:
   * the packs small enough to be read whole then add up to less than 1.5 × WHOLE_PACK_BYTES and
   * all fit in the cache of whole packs (a 32 MiB cap, tried, left a 100k-commit history in
   * packs of just under 32 MiB that thrashed it). Fewer than two: nothing to do.
   */
  async mergeCandidates(): Promise<string[]> {
    await this.rescan(); // the directory as it is now: `git gc` may have replaced packs
    const sized: Array<{ pack: string; size: number }> = [];
    for (const pack of this.loaded.keys()) {
      if (this.deltaPacks.has(pack)) continue;
      const size = await this.sizeOf(pack).catch(() => undefined);
      if (size !== undefined) sized.push({ pack, size });
    }
    sized.sort((a, b) => a.size - b.size);
    let total = 0;
    let count = 0;
    while (count < sized.length && (count < 2 || sized[count]!.size <= GEOMETRIC_FACTOR * total)) total += sized[count++]!.size;
    return count < 2 ? [] : sized.slice(0, count).map((s) => s.pack);
  }

  /**
   * Takes in the outcome of merging `packs` (disk-ops.ts mergePacks): the merged pack replaces
   * them, and the packs it replaced are returned, for the caller to delete; or a pack that held
   * deltas is left alone from then on.
   */
  merged(packs: readonly string[], outcome: WrittenPack | { deltaPack: string }): string[] {
    if ('deltaPack' in outcome) {
      this.deltaPacks.add(outcome.deltaPack);
      return [];
    }
    this.register(outcome);
    const replaced = packs.filter((pack) => pack !== outcome.pack);
    for (const pack of replaced) this.forget(pack);
    return replaced;
  }
}

/** Closes a pack's handle, if it opened. */
async function closeQuietly(handle: Promise<fsp.FileHandle> | undefined): Promise<void> {
  await handle?.then((h) => h.close()).catch(() => undefined);
}
