/**
 * Tree walking over an ObjectStore: listing the files under a folder, diffing two trees (equal
 * subtrees are skipped, so the work follows the size of the change, not of the repository), and
 * building a new tree from a base tree and a set of file changes. The tree format is src/git/trees.ts.
 */
import { LodestoneError } from '../errors.js';
import type { GitObject } from '../git/objects.js';
import { FILE_MODE, TREE_MODE, compareTreeEntries, treeObject, type TreeEntry } from '../git/trees.js';
import type { ObjectStore } from './objects.js';
import { mergeSorted } from '../util/sorted.js';

/**
 * A cache of parsed trees, bounded by the entries it holds (a 20k-entry folder counts 20k), least
 * recently used first out. Tree ids are content hashes, so entries never go stale.
 */
export class TreeCache {
  private readonly entries = new Map<string, TreeEntry[]>();
  private size = 0;
  constructor(
    private readonly objects: ObjectStore,
    private readonly capacity = 200_000,
  ) {}

  async get(id: string): Promise<TreeEntry[]> {
    const cached = this.entries.get(id);
    if (cached) {
      this.entries.delete(id);
      this.entries.set(id, cached);
      return cached;
    }
    const entries = await this.objects.readTree(id);
    this.put(id, entries);
    return entries;
  }

  put(id: string, entries: TreeEntry[]): void {
    if (this.entries.has(id)) return;
    this.entries.set(id, entries);
    this.size += entries.length + 1;
    for (const [oldest, value] of this.entries) {
      if (this.size <= this.capacity) break;
      this.entries.delete(oldest);
      this.size -= value.length + 1;
    }
  }
}

export interface FileDiff {
  path: string;
  before: string | undefined;
  after: string | undefined;
}

/** The blob id of one path in a tree, or undefined. */
export async function lookupPath(trees: TreeCache, treeId: string | undefined, path: string): Promise<TreeEntry | undefined> {
  let entry: TreeEntry | undefined;
  let current = treeId;
  for (const name of path.split('/')) {
    if (!current) return undefined;
    const entries = await trees.get(current);
    const at = findEntry(entries, name);
    if (at < 0) return undefined;
    entry = entries[at]!;
    current = entry.mode === TREE_MODE ? entry.id : undefined;
  }
  return entry;
}

/** Files (blobs) that differ between two trees, below `folder` ('' for everything). */
export async function diffTrees(
  trees: TreeCache,
  before: string | undefined,
  after: string | undefined,
  folder = '',
): Promise<FileDiff[]> {
  const out: FileDiff[] = [];
  const start = async (root: string | undefined) => {
    if (!root || folder === '') return root;
    const entry = await lookupPath(trees, root, folder);
    return entry?.mode === TREE_MODE ? entry.id : undefined;
  };
  await walk(trees, await start(before), await start(after), folder, out);
  return out;
}

async function walk(trees: TreeCache, a: string | undefined, b: string | undefined, folder: string, out: FileDiff[]): Promise<void> {
  if (a === b) return;
  const left = a ? await trees.get(a) : [];
  const right = b ? await trees.get(b) : [];
  // Both lists are in git's tree order: walk them side by side (a blob and a tree of one name sort
  // apart, and come out as one removed and one added, which is what happened).
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    const l = left[i];
    const r = right[j];
    const order = !l ? 1 : !r ? -1 : compareTreeEntries(l, r);
    const before = order <= 0 ? l : undefined;
    const after = order >= 0 ? r : undefined;
    if (order <= 0) i++;
    if (order >= 0) j++;
    if (before && after && before.id === after.id) continue;
    const path = folder ? `${folder}/${(before ?? after)!.name}` : (before ?? after)!.name;
    const beforeTree = before?.mode === TREE_MODE ? before.id : undefined;
    const afterTree = after?.mode === TREE_MODE ? after.id : undefined;
    if (beforeTree || afterTree) await walk(trees, beforeTree, afterTree, path, out);
    const beforeBlob = before && before.mode !== TREE_MODE ? before.id : undefined;
    const afterBlob = after && after.mode !== TREE_MODE ? after.id : undefined;
    if (beforeBlob !== afterBlob) out.push({ path, before: beforeBlob, after: afterBlob });
  }
}

/**
 * Applies file changes (path → blob id, or null to delete) to a base tree, appending every new
 * tree object to `out`, and returns the new root tree id. Folders left empty disappear, as in git.
 */
export async function buildTree(
  trees: TreeCache,
  base: string | undefined,
  changes: ReadonlyMap<string, string | null>,
  out: GitObject[],
): Promise<string> {
  const root = await buildFolder(trees, base, [...changes].map(([path, id]) => ({ parts: path.split('/'), id })), out);
  if (root) return root;
  const empty = treeObject([]);
  out.push(empty);
  return empty.id;
}

interface PendingChange {
  parts: string[];
  id: string | null;
}

async function buildFolder(trees: TreeCache, base: string | undefined, changes: PendingChange[], out: GitObject[]): Promise<string | undefined> {
  const before = base ? await trees.get(base) : [];
  const entries = [...before];
  const removed = new Set<number>();
  const added = new Map<string, TreeEntry>();
  let reordered = false;
  const set = (entry: TreeEntry | undefined, name: string) => {
    const at = findEntry(before, name);
    if (at >= 0 && !removed.has(at)) {
      if (!entry) removed.add(at);
      else {
        reordered ||= entry.mode !== entries[at]!.mode; // a file became a folder: it sorts elsewhere
        entries[at] = entry;
      }
    } else if (entry) added.set(name, entry);
    else added.delete(name);
  };
  const folders = new Map<string, PendingChange[]>();
  for (const change of changes) {
    const [name, ...rest] = change.parts;
    if (name === undefined || name === '') throw new LodestoneError('InvalidPath', 'empty path segment in a tree change');
    if (rest.length === 0) set(change.id === null ? undefined : { name, mode: FILE_MODE, id: change.id }, name);
    else {
      const list = folders.get(name);
      if (list) list.push({ parts: rest, id: change.id });
      else folders.set(name, [{ parts: rest, id: change.id }]);
    }
  }
  for (const [name, sub] of folders) {
    const at = findEntry(before, name);
    const current = added.get(name) ?? (at >= 0 && !removed.has(at) ? entries[at] : undefined);
    const subBase = current?.mode === TREE_MODE ? current.id : undefined;
    const id = await buildFolder(trees, subBase, sub, out);
    set(id ? { name, mode: TREE_MODE, id } : undefined, name);
  }
  let result = removed.size > 0 ? entries.filter((_, i) => !removed.has(i)) : entries;
  if (reordered) result = [...result, ...added.values()].sort(compareTreeEntries);
  // new names are sorted among themselves and merged in: a create in a folder of 100,000 entries
  // is a pass over them, not a sort of them all (issue 29)
  else if (added.size > 0) result = mergeSorted(result, [...added.values()].sort(compareTreeEntries), compareTreeEntries);
  if (result.length === 0) return undefined;
  const object = treeObject(result, before);
  trees.put(object.id, result);
  out.push(object);
  return object.id;
}


/** Where the entry named `name` (a file or a folder) is in a list in git's order, or -1. */
function findEntry(entries: readonly TreeEntry[], name: string): number {
  for (const mode of [FILE_MODE, TREE_MODE]) {
    const probe = { name, mode, id: '' };
    let low = 0;
    let high = entries.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const order = compareTreeEntries(entries[middle]!, probe);
      if (order === 0) return middle;
      if (order < 0) low = middle + 1;
      else high = middle - 1;
    }
  }
  return -1;
}
