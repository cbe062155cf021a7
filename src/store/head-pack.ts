/**
 * What a replica lacks, packed by the primary itself (issue 29: a round without a process spawned):
 * the commits from one it holds (`after`) to HEAD, each with the trees and blobs it made, found by
 * walking each commit's tree beside its parent's (equal subtrees skipped: the work follows the size
 * of the writes, not of the repository). A walk that meets a merge or a root, or passes its limits,
 * gives up (undefined): git's own upload-pack answers that replica (store/upload-pack.ts).
 */
import { promisify } from 'node:util';
import { deflate } from 'node:zlib';
import { parseCommit } from '../git/commits.js';
import type { GitObject } from '../git/objects.js';
import { packEntry, packStream } from '../git/packs.js';
import { TREE_MODE, compareTreeEntries } from '../git/trees.js';
import type { GitStore } from './git-store.js';

const deflating = promisify(deflate);

/** Past these a replica fetches with git: a long way behind is a clone's work, not a round's. */
export interface HeadPackLimits {
  maxCommits: number;
  maxBytes: number;
}

const DEFAULT_LIMITS: HeadPackLimits = { maxCommits: 1000, maxBytes: 32 * 1024 * 1024 };
/** Git's mode of a submodule's commit: an entry whose object is in another repository. */
const GITLINK_MODE = '160000';

/** The commits from `after` (excluded) to `head`, oldest first; undefined past the limit, at a merge or a root. */
async function chainTo(store: GitStore, head: string, after: string, maxCommits: number): Promise<Array<{ id: string; content: Buffer; tree: string; parent: string }> | undefined> {
  const chain: Array<{ id: string; content: Buffer; tree: string; parent: string }> = [];
  for (let id = head; id !== after; ) {
    if (chain.length >= maxCommits) return undefined;
    const content = await store.objects.readTyped(id, 'commit');
    const commit = parseCommit(content);
    if (commit.parents.length !== 1) return undefined;
    chain.push({ id, content, tree: commit.tree, parent: commit.parents[0]! });
    id = commit.parents[0]!;
  }
  return chain.reverse();
}

/**
 * The objects of the commits from `after` to `head` that `after` does not hold, each once: the
 * commits, their trees and blobs that differ from their parents'.
 */
export async function objectsSince(store: GitStore, head: string, after: string, limits = DEFAULT_LIMITS): Promise<GitObject[] | undefined> {
  const kept = store.recent.between(after, head);
  if (kept) return kept;
  const chain = await chainTo(store, head, after, limits.maxCommits).catch(() => undefined);
  if (!chain) return undefined;
  const out: GitObject[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  const take = async (id: string, type: GitObject['type']): Promise<boolean> => {
    if (seen.has(id)) return false;
    seen.add(id);
    const content = await store.objects.readTyped(id, type);
    out.push({ id, type, content });
    bytes += content.length;
    return true;
  };
  const walk = async (before: string | undefined, after: string): Promise<void> => {
    if (before === after || !(await take(after, 'tree'))) return;
    const left = before ? await store.trees.get(before) : [];
    const right = await store.trees.get(after);
    // both lists in git's order: side by side, as diffTrees walks them (store/trees.ts)
    let i = 0;
    for (const entry of right) {
      while (i < left.length && compareTreeEntries(left[i]!, entry) < 0) i++;
      const old = i < left.length && compareTreeEntries(left[i]!, entry) === 0 ? left[i] : undefined;
      if (old && old.id === entry.id && old.mode === entry.mode) continue;
      if (entry.mode === TREE_MODE) await walk(old?.mode === TREE_MODE ? old.id : undefined, entry.id);
      else if (entry.mode !== GITLINK_MODE) await take(entry.id, 'blob');
    }
  };
  let parentTree: string | undefined = (await store.objects.readCommit(chain[0]!.parent)).tree;
  for (const commit of chain) {
    seen.add(commit.id);
    out.push({ id: commit.id, type: 'commit', content: commit.content });
    await walk(parentTree, commit.tree);
    parentTree = commit.tree;
    if (bytes > limits.maxBytes) return undefined;
  }
  return out;
}

/** `objects` as a pack stream of whole objects, deflated off the thread that answers requests. */
export async function packObjects(objects: readonly GitObject[]): Promise<Buffer> {
  const entries = await Promise.all(objects.map(async (object) => packEntry(object, await deflating(object.content, { level: 1 }))));
  return packStream(entries);
}
