/**
 * The versions of every document of a dataspace, from the first-parent history of its branch:
 * for each file, the commits that changed it, oldest first, with their time and author, and the
 * blob they left (null for a deletion). Built once by walking the history, then extended at every
 * new HEAD by walking back to the commit it last saw, so a TimeMap or TimeGate costs work in
 * proportion to that document's versions, never to the repository's history (issue 5).
 */
import type { GitStore, HeadChange } from './git-store.js';
import { lookupPath } from './trees.js';
import { TREE_MODE } from './objects.js';
import { diffTrees } from './trees.js';

export interface Version {
  commit: string;
  /** Commit time, seconds since the epoch. */
  time: number;
  /** The commit's author name: the writing agent's WebID, or `anonymous`. */
  author: string;
  /** The file's blob after the commit; null when the commit deleted it. */
  blob: string | null;
}

export class VersionIndex {
  private readonly versions = new Map<string, Version[]>();
  private indexed: string | undefined;
  private work: Promise<void> = Promise.resolve();

  constructor(private readonly store: GitStore) {
    store.on('head', (change: HeadChange) => {
      this.work = this.work.then(() => this.extendTo(change.after)).catch(() => undefined);
    });
  }

  /** Builds the index from the whole history (at startup). */
  async build(): Promise<void> {
    await this.extendTo(this.store.head);
  }

  /** Resolves once every HEAD seen so far is indexed. */
  async idle(): Promise<void> {
    await this.work;
  }

  /** The versions of a file, oldest first (an empty list when it never existed). */
  of(path: string): readonly Version[] {
    return this.versions.get(path) ?? [];
  }

  /** Walks back from `head` to the last indexed commit (first parents) and records the changes. */
  private async extendTo(head: string | undefined): Promise<void> {
    if (!head || head === this.indexed) return;
    const chain: Array<{ id: string; parent: string | undefined; tree: string; time: number; author: string }> = [];
    for (let id: string | undefined = head; id && id !== this.indexed; ) {
      const commit = await this.store.objects.readCommit(id);
      chain.push({ id, parent: commit.parents[0], tree: commit.tree, time: commit.committer.timestamp, author: commit.author.name });
      id = commit.parents[0];
    }
    chain.reverse();
    let parentTree = this.indexed ? (await this.store.objects.readCommit(this.indexed)).tree : undefined;
    if (chain[0]?.parent !== this.indexed) {
      // The branch was rewritten (reset, forced pull): start again from nothing.
      this.versions.clear();
      parentTree = chain[0]?.parent ? (await this.store.objects.readCommit(chain[0].parent)).tree : undefined;
    }
    for (const commit of chain) {
      for (const file of await diffTrees(this.store.trees, parentTree, commit.tree, this.store.prefix)) {
        const list = this.versions.get(file.path) ?? [];
        list.push({ commit: commit.id, time: commit.time, author: commit.author, blob: file.after ?? null });
        this.versions.set(file.path, list);
      }
      parentTree = commit.tree;
    }
    this.indexed = head;
  }

  /** The blob of `path` at any commit of the repository; undefined when absent or unknown. */
  async blobAt(path: string, commit: string): Promise<{ blob: string; time: number } | undefined> {
    let tree: string;
    let time: number;
    try {
      const parsed = await this.store.objects.readCommit(commit);
      tree = parsed.tree;
      time = parsed.committer.timestamp;
    } catch {
      return undefined;
    }
    const entry = await lookupPath(this.store.trees, tree, path);
    return entry && entry.mode !== TREE_MODE ? { blob: entry.id, time } : undefined;
  }
}
