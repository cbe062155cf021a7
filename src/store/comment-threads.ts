/**
 * The comment thread of a branch's change request (issue 30), kept beside the branch, not in it:
 * the ref `refs/lodestone/comments/<name>` of the dataspace's repository, whose commits each hold
 * one file, `comments.nt`, the whole thread as canonical N-Triples; one commit per comment, written
 * through the store (GitStore.exclusive: one writer of the objects; the ref moved by
 * compare-and-swap and fsynced like a branch's). Neither main nor the branch sees it, so a merge
 * never carries it and the mirror, which pushes main only, stays SHA-identical.
 */
import { blobObject } from '../git/objects.js';
import { FILE_MODE, treeObject } from '../git/trees.js';
import { commitAt } from './branches.js';
import { SERVICE_IDENTITY, type GitStore, type Identity } from './git-store.js';
import { runGit } from './git-cli.js';
import { readRef } from './refs.js';
import { lookupPath } from './trees.js';

/** The one file of a thread's commits. */
export const THREAD_FILE = 'comments.nt';

export class CommentThreads {
  constructor(private readonly store: GitStore) {}

  /** The ref of the thread of the branch `name` (a name branchName has checked). */
  static refOf(name: string): string {
    return `refs/lodestone/comments/${name}`;
  }

  /** The thread's last commit and its N-Triples; undefined when nobody has commented. */
  async read(name: string): Promise<{ head: string; ntriples: string } | undefined> {
    const head = await readRef(this.store.gitdir, CommentThreads.refOf(name));
    if (head === undefined) return undefined;
    const entry = await lookupPath(this.store.trees, (await this.store.objects.readCommit(head)).tree, THREAD_FILE);
    return { head, ntriples: entry ? (await this.store.readBlob(entry.id)).toString('utf8') : '' };
  }

  /**
   * Adds to the thread: `next` makes the new thread from the current one (a second post waits for
   * the first, and sees it); one commit by `author`, fsynced, the ref moved only from what was read.
   */
  append<T>(name: string, next: (ntriples: string) => { ntriples: string; result: T }, author: Identity, message: string): Promise<{ commit: string; result: T }> {
    const ref = CommentThreads.refOf(name);
    return this.store.exclusive(async () => {
      const current = await this.read(name);
      const { ntriples, result } = next(current?.ntriples ?? '');
      const blob = blobObject(Buffer.from(ntriples, 'utf8'));
      const tree = treeObject([{ name: THREAD_FILE, mode: FILE_MODE, id: blob.id }]);
      const commit = commitAt(tree.id, current ? [current.head] : [], author, SERVICE_IDENTITY, message);
      await this.store.writeObjects([blob, tree, commit], ref, commit.id, current?.head);
      return { commit: commit.id, result };
    });
  }

  /** Deletes the thread (its ref; git's own deletion, which also removes a packed ref); nothing when there is none. */
  remove(name: string): Promise<void> {
    const ref = CommentThreads.refOf(name);
    return this.store.exclusive(async () => {
      const head = await readRef(this.store.gitdir, ref);
      if (head === undefined) return;
      const { code } = await runGit(this.store.gitdir, ['update-ref', '-d', ref, head]);
      if (code !== 0) throw new Error(`git update-ref -d ${ref} exited ${code}`);
    });
  }
}
