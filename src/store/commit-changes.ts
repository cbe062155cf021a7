/**
 * What each commit of a run received from elsewhere changed (a replica's pack: GitStore.receive),
 * from a diff of each commit's tree with its parent's, so that the run is taken in as the commits
 * the primary made: each file's last change named by its own commit, the version log fed without a
 * walk of its own. The commits must lead from `before` to `head`, one parent each.
 */
import { parseCommit, type Commit } from '../git/commits.js';
import type { GitObject } from '../git/objects.js';
import { diffTrees, type FileDiff, type TreeCache } from './trees.js';

export interface CommitChange {
  id: string;
  /** Committer time, in seconds since the epoch. */
  time: number;
  author: string;
  files: FileDiff[];
}

/** Oldest first; undefined when the commits among `objects` do not lead from `before` to `head`. */
export async function commitChanges(trees: TreeCache, objects: readonly GitObject[], before: { id: string | undefined; tree: string | undefined }, head: string, prefix: string): Promise<CommitChange[] | undefined> {
  const commits = new Map<string, Commit>();
  for (const object of objects) if (object.type === 'commit') commits.set(object.id, parseCommit(object.content));
  const chain: Array<{ id: string; commit: Commit }> = [];
  for (let id = head; id !== before.id; ) {
    const commit = commits.get(id);
    if (!commit || commit.parents.length !== 1 || chain.length >= commits.size) return undefined;
    chain.push({ id, commit });
    id = commit.parents[0]!;
  }
  const out: CommitChange[] = [];
  let parentTree = before.tree;
  for (const { id, commit } of chain.reverse()) {
    out.push({ id, time: commit.committer.timestamp, author: commit.author.name, files: await diffTrees(trees, parentTree, commit.tree, prefix) });
    parentTree = commit.tree;
  }
  return out;
}
