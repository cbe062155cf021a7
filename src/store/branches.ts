/**
 * Drafts of a dataspace kept as git branches `refs/heads/<name>` of its repository (DESIGN
 * "Branches"). A branch is written through the dataspace's own store (GitStore.exclusive: one
 * writer of the objects, packs and disk worker), one commit per write, its ref moved by
 * compare-and-swap and fsynced like the main branch's; it starts at the main branch's HEAD when
 * first written. Only names of a safe subset are branches (`branchName`).
 */
import { LodestoneError } from '../errors.js';
import { commitObject } from '../git/commits.js';
import type { GitObject } from '../git/objects.js';
import { BatchView } from './batch-view.js';
import { SERVICE_IDENTITY, type GitStore, type Identity, type Transaction, type TransactionResult } from './git-store.js';
import { runGit } from './git-cli.js';
import { readRef } from './refs.js';
import { buildTree, diffTrees, lookupPath, type FileDiff } from './trees.js';

/** The trailer of a commit on the main branch that took a branch's changes: `Lodestone-Merged: <branch> <its HEAD>` (git interpret-trailers). */
export const MERGED_TRAILER = 'Lodestone-Merged';

/** Main's last commits looked at for merges left unrecorded (by a kill between main's commit and the branch's record). */
const RECENT_MERGES = 300;

/** What a branch name may be: letters, digits, `.`, `_`, `-`; 1 to 64 of them. */
const NAME = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * `name` if it names a branch a client may write, else a BadRequest: the safe subset above, not the
 * dataspace's own branch, no `..`, not starting with `.` or `-` nor ending in `.lock` (git's
 * check-ref-format refuses those, and `-` reads as an option to git's commands).
 */
/** The first line of the merge commit that records on the branch `name` that main took its changes (recordMerge). */
export function mergeRecordSubject(name: string): string {
  return `MERGE main into ${name}`;
}

export function branchName(name: string, own: string): string {
  const why = !NAME.test(name)
    ? 'use 1 to 64 letters, digits, ".", "_" or "-"'
    : name === own || name === 'main' || name === 'HEAD'
      ? `"${name}" is the dataspace itself; write without ?branch= to change it`
      : name.includes('..') || name.startsWith('.') || name.startsWith('-') || name.endsWith('.lock')
        ? 'it may not contain "..", start with "." or "-", or end in ".lock"'
        : undefined;
  if (why) throw new LodestoneError('BadRequest', `"${name.slice(0, 70)}" is not a branch name: ${why}`);
  return name;
}

/** A commit's files under the prefix, kept for reads and writes on a branch. */
interface BranchFiles {
  head: string | undefined;
  tree: string | undefined;
  files: Map<string, string>;
  folderCounts: Map<string, number>;
  /** The branch whose write made this state (its maps are that branch's alone, to change in place). */
  owner?: string;
}

/** The changes of a branch since it parted from the main branch. */
export interface BranchChanges {
  /** The branch's HEAD. */
  head: string;
  /** The merge base with the main branch (`git merge-base`). */
  base: string | undefined;
  /** The main branch's HEAD the base was taken against. */
  main: string | undefined;
  /** Each file the branch changed, from the base's blob to the branch's. */
  files: FileDiff[];
}

/** How many merge bases a dataspace keeps (a change request's GET and merge ask for one). */
const MERGE_BASES_KEPT = 1024;

export class Branches {
  /** The files of the commits last read or written on branches, by commit (a few branches at a time). */
  private readonly states = new Map<string, BranchFiles>();
  /** The merge bases found, by their two commits: commits never change, so neither does their merge base (a change request's GET asked git twice, once to authorize and once to answer). */
  private readonly mergeBases = new Map<string, string | undefined>();

  constructor(private readonly store: GitStore) {}

  /** A branch's HEAD, or undefined when there is no such branch. */
  head(name: string): Promise<string | undefined> {
    return readRef(this.store.gitdir, `refs/heads/${name}`);
  }

  /** The files of a branch as its HEAD has them (undefined: no such branch). */
  async files(name: string): Promise<ReadonlyMap<string, string> | undefined> {
    const head = await this.head(name);
    return head === undefined ? undefined : (await this.stateOf(head)).files;
  }

  /** Runs `run` against the branch (the main branch's HEAD when it does not exist yet); its intent becomes one commit on the branch. */
  transact<T>(name: string, txn: Transaction<T>): Promise<TransactionResult<T>> {
    const ref = `refs/heads/${name}`;
    return this.store.exclusive(async () => {
      const current = await readRef(this.store.gitdir, ref);
      const start = current ?? this.store.head;
      const state = await this.stateOf(start);
      const view = new BatchView({ files: state.files, folderCounts: state.folderCounts, readBlob: (id) => this.store.readBlob(id) });
      const { intent, result } = await txn(view);
      const objects: GitObject[] = [];
      const { changes, blobIds } = view.hashChanges(intent?.changes ?? [], objects);
      if (!intent || changes.size === 0) return { commit: undefined, result, blobIds };
      const tree = await buildTree(this.store.trees, state.tree, changes, objects);
      const commit = commitAt(tree, start ? [start] : [], intent.author, intent.committer ?? SERVICE_IDENTITY, intent.message);
      objects.push(commit);
      await this.store.writeObjects(objects, ref, commit.id, current);
      // a branch's own state moves with it (a write costs its changes, not the branch's size); one read from git, or shared (main's HEAD a new branch starts from), is copied
      const own = current !== undefined && state.owner === name;
      if (own) this.states.delete(current);
      this.remember({ ...withChanges(state, changes, own), head: commit.id, tree, owner: name });
      return { commit: commit.id, result, blobIds };
    });
  }

  /**
   * Records on the branch that the main branch took its changes at `head` as the commit `merged`
   * (a single-parent commit there, so the mirror replays it as it is, SHA-identical): a merge
   * commit ON THE BRANCH, parents [its HEAD, merged], so the branch keeps its own history and its
   * next merge base is `merged`. Its tree is merged's; when the branch moved on from `head` since
   * (a write slipped in before the record, or came before a record a kill left undone), merged's
   * with the files the branch changed after `head`, if main's commit left each of those as it was
   * at `head`. Nothing (false) when the branch is gone, holds `merged` already, no longer descends
   * from `head`, or changed a file main's commit changed too: that merge is a person's to make.
   */
  recordMerge(name: string, head: string, merged: string, author: Identity): Promise<boolean> {
    const ref = `refs/heads/${name}`;
    return this.store.exclusive(async () => {
      const current = await readRef(this.store.gitdir, ref);
      if (current === undefined) return false;
      const { tree: mergedTree } = await this.store.objects.readCommit(merged);
      const objects: GitObject[] = [];
      let tree = mergedTree;
      if (current !== head) {
        if ((await this.isAncestor(merged, current)) || !(await this.isAncestor(head, current))) return false;
        const treeOf = async (commit: string) => (await this.store.objects.readCommit(commit)).tree;
        const changes = new Map<string, string | null>();
        for (const file of await diffTrees(this.store.trees, await treeOf(head), await treeOf(current))) {
          if ((await lookupPath(this.store.trees, mergedTree, file.path))?.id !== file.before) return false;
          changes.set(file.path, file.after ?? null);
        }
        tree = await buildTree(this.store.trees, mergedTree, changes, objects);
      }
      const commit = commitAt(tree, [current, merged], author, SERVICE_IDENTITY, `${mergeRecordSubject(name)}\n\nmain took this branch's changes at ${head} as ${merged}.`);
      objects.push(commit);
      await this.store.writeObjects(objects, ref, commit.id, current);
      return true;
    });
  }

  /** Whether `ancestor` is `commit` or one of its ancestors (git merge-base --is-ancestor). */
  private async isAncestor(ancestor: string, commit: string): Promise<boolean> {
    const { code } = await runGit(this.store.gitdir, ['merge-base', '--is-ancestor', ancestor, commit]);
    if (code > 1) throw new Error(`git merge-base --is-ancestor ${ancestor} ${commit} exited ${code}`);
    return code === 0;
  }

  /**
   * The merges that main's last first-parent commits name in their MERGED_TRAILER, newest first:
   * the commit on main, the branch and the branch's HEAD it took (git log reads them, in its process).
   */
  async recentMerges(): Promise<Array<{ commit: string; branch: string; head: string }>> {
    const main = this.store.head;
    if (main === undefined) return [];
    const format = `--format=%H %(trailers:key=${MERGED_TRAILER},valueonly,separator=%x20)`;
    const { code, out } = await runGit(this.store.gitdir, ['log', '--first-parent', `--max-count=${RECENT_MERGES}`, format, main]);
    if (code !== 0) throw new Error(`git log ${main} exited ${code}`);
    return out.split('\n').flatMap((line) => {
      const [commit, branch, head] = line.trim().split(' ');
      return commit && branch && head && /^[0-9a-f]{40}$/.test(head) && NAME.test(branch) ? [{ commit, branch, head }] : [];
    });
  }

  /** The merge base of two commits (git merge-base), undefined when they share no history. */
  async mergeBase(a: string, b: string): Promise<string | undefined> {
    const key = `${a} ${b}`;
    if (this.mergeBases.has(key)) return this.mergeBases.get(key);
    const { code, out } = await runGit(this.store.gitdir, ['merge-base', a, b]);
    if (code !== 0 && code !== 1) throw new Error(`git merge-base ${a} ${b} exited ${code}`);
    const base = (code === 0 && out) || undefined; // 1: no common ancestor
    if (this.mergeBases.size >= MERGE_BASES_KEPT) this.mergeBases.clear();
    this.mergeBases.set(key, base);
    return base;
  }

  /** What the branch changed since it parted from the main branch as it is now; undefined when there is no such branch. */
  async changes(name: string): Promise<BranchChanges | undefined> {
    const head = await this.head(name);
    if (head === undefined) return undefined;
    const main = this.store.head;
    const base = main === undefined ? undefined : await this.mergeBase(main, head);
    const treeOf = async (commit: string | undefined) => (commit === undefined ? undefined : (await this.store.objects.readCommit(commit)).tree);
    const files = await diffTrees(this.store.trees, await treeOf(base), await treeOf(head), this.store.prefix);
    return { head, base, main, files };
  }

  /** Deletes the branch if its HEAD is still `expected` (a Conflict when it moved, NotFound when it is gone). */
  discard(name: string, expected: string): Promise<void> {
    return this.store.exclusive(async () => {
      const current = await this.head(name);
      if (current === undefined) throw new LodestoneError('NotFound', `there is no branch ${name}`);
      if (current !== expected) throw new LodestoneError('PreconditionFailed', `the branch ${name} moved to ${current}`);
      // git's own compare-and-swap deletion, which also removes a packed ref
      const { code } = await runGit(this.store.gitdir, ['update-ref', '-d', `refs/heads/${name}`, expected]);
      if (code !== 0) throw new Error(`git update-ref -d refs/heads/${name} exited ${code}`);
    });
  }

  private async stateOf(head: string | undefined): Promise<BranchFiles> {
    const key = head ?? '';
    const known = this.states.get(key);
    if (known) return known;
    const tree = head === undefined ? undefined : (await this.store.objects.readCommit(head)).tree;
    const state = withChanges({ head, tree, files: new Map(), folderCounts: new Map() }, new Map((await diffTrees(this.store.trees, undefined, tree, this.store.prefix)).map((f) => [f.path, f.after ?? null])));
    this.remember(state);
    return state;
  }

  private remember(state: BranchFiles): void {
    if (this.states.size >= 8) this.states.delete(this.states.keys().next().value!);
    this.states.set(state.head ?? '', state);
  }
}

/** A commit object made now, timezone +0000 (DESIGN "Commits"). */
export function commitAt(tree: string, parents: string[], author: Identity, committer: Identity, message: string): GitObject {
  const now = Math.floor(Date.now() / 1000);
  const signature = (who: Identity) => ({ ...who, timestamp: now, timezone: '+0000' });
  return commitObject({ tree, parents, author: signature(author), committer: signature(committer), message: message.endsWith('\n') ? message : message + '\n' });
}

/** `state` with `changes` applied (null: deleted): in its own maps when `inPlace`, else in new ones. */
function withChanges(state: BranchFiles, changes: ReadonlyMap<string, string | null>, inPlace = false): BranchFiles {
  const files = inPlace ? state.files : new Map(state.files);
  const folderCounts = inPlace ? state.folderCounts : new Map(state.folderCounts);
  for (const [path, id] of changes) {
    const existed = files.has(path);
    if (id) files.set(path, id);
    else files.delete(path);
    if (existed === files.has(path)) continue;
    for (let at = path.lastIndexOf('/'); at > 0; at = path.lastIndexOf('/', at - 1)) {
      const folder = path.slice(0, at);
      const count = (folderCounts.get(folder) ?? 0) + (existed ? -1 : 1);
      if (count === 0) folderCounts.delete(folder);
      else folderCounts.set(folder, count);
    }
  }
  return { ...state, files, folderCounts };
}
