/**
 * The kept ordered listing of every container's children: the relative paths of the documents
 * directly below each document, sorted by path, built once from the files at HEAD (on first use)
 * and then updated from each commit's file diff (the store's `head` event), so a page of a
 * container of a million documents is a slice, not a sort. Paths, not data: who may read a child
 * is decided by the caller, which passes the documents the viewer may read.
 */
import { fileDocument, parentDocumentPath } from '../document-paths.js';
import type { GitStore, HeadChange } from '../store/git-store.js';
import { ReadableUrls, type Readable } from './readable-urls.js';

/** The index of `path` in sorted `list`, or where it would go. */
function place(list: readonly string[], path: string): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (list[middle]! < path) low = middle + 1;
    else high = middle;
  }
  return low;
}

export interface ChildPage {
  /** Relative paths of the children on the page, in path order. */
  paths: string[];
  /** Whether a further page has children. */
  more: boolean;
  /** How many children there are in all (readable ones), when asked for. */
  total?: number;
}

/** Files read between two turns of the event loop while the listing is built (a million take seconds). */
const CHUNK = 5_000;

export class ChildListing {
  private byParent: Map<string, string[]> | undefined;
  private building: Promise<void> | undefined;
  private readonly readable = new ReadableUrls();

  constructor(
    private readonly store: Pick<GitStore, 'listFiles' | 'prefix' | 'on'>,
    private readonly base: string,
  ) {}

  /** Builds the listing from HEAD's files (once; other requests are answered meanwhile), then follows commits. */
  ready(): Promise<void> {
    this.building ??= this.build();
    return this.building;
  }

  private async build(): Promise<void> {
    const pending: HeadChange[] = [];
    this.store.on('head', (change) => (this.byParent ? this.apply(change) : pending.push(change)));
    const byParent = new Map<string, string[]>();
    let read = 0;
    // a Map iterated while commits change it visits what they add and skips what they delete; the commits met meanwhile are applied after, which changes nothing twice
    for (const file of this.store.listFiles().keys()) {
      if (++read % CHUNK === 0) await new Promise((resolve) => setImmediate(resolve));
      const path = fileDocument(file, this.store.prefix);
      const parent = path === undefined ? undefined : parentDocumentPath(path);
      if (parent === undefined) continue;
      const list = byParent.get(parent);
      if (list) list.push(path!);
      else byParent.set(parent, [path!]);
    }
    for (const list of byParent.values()) list.sort();
    this.byParent = byParent;
    for (const change of pending) this.apply(change);
  }

  /** The listing once built (callers await `ready()` first). */
  private listing(): Map<string, string[]> {
    if (!this.byParent) throw new Error('the child listing is not built yet: await ready()');
    return this.byParent;
  }

  private apply(change: HeadChange): void {
    const byParent = this.byParent!;
    for (const file of change.files) {
      const path = fileDocument(file.path, this.store.prefix);
      const parent = path === undefined ? undefined : parentDocumentPath(path);
      if (parent === undefined) continue;
      let list = byParent.get(parent);
      if (!list) byParent.set(parent, (list = []));
      const at = place(list, path!);
      const present = list[at] === path;
      if (file.after && !present) list.splice(at, 0, path!);
      else if (!file.after && present) list.splice(at, 1);
      if (list.length === 0) byParent.delete(parent);
    }
  }

  /**
   * The children of `parent` from the `offset`th, at most `limit`, of those whose URL is in
   * `readable` (undefined: every one). Without a readable set it is a slice; with one, a walk
   * from the start that stops once the page is full (unless `counted`: then it counts them all).
   * In path order, or as `arrange` orders the kept list (search.ts: newest first, by title).
   */
  page(parent: string, offset: number, limit: number, readable?: Readable, counted = false, arrange?: (paths: readonly string[]) => readonly string[]): ChildPage {
    const kept = this.listing().get(parent) ?? [];
    const list = arrange ? arrange(kept) : kept;
    if (!readable) return { paths: list.slice(offset, offset + limit), more: list.length > offset + limit, total: list.length };
    const paths: string[] = [];
    let seen = 0;
    for (const path of list) {
      if (!this.readable.has(readable, this.base + path)) continue;
      if (seen++ < offset) continue;
      if (paths.length < limit) paths.push(path);
      else if (!counted) return { paths, more: true };
    }
    return { paths, more: seen > offset + paths.length, total: seen };
  }
}
