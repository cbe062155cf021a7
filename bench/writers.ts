/**
 * The three ways of committing a one-document change that the write benchmark compares:
 * Lodestone's GitStore (fsynced, group-committed), isomorphic-git's low-level object API (no
 * fsync), and the git CLI's plumbing (git's default fsync settings). Each makes the same tree
 * change per write: a new blob, the rebuilt subtree(s) and root tree, a commit, the branch ref.
 */
import * as fs from 'node:fs';
import git from 'isomorphic-git';
import { GitStore } from '../src/store/git-store.js';
import type { DocumentFile } from './documents.js';
import { BENCH_AUTHOR, git as gitCli, gitdirOf } from './repos.js';

export interface Writer {
  /** Commits one document's new bytes; resolves once the commit is the branch head. */
  write(update: DocumentFile): Promise<void>;
  /** True if concurrent writes are safe (otherwise the runner serialises them). */
  readonly concurrent: boolean;
}

export class LodestoneWriter implements Writer {
  readonly concurrent = true;
  /** Writes that made no commit (should stay 0: every update is new content). */
  noops = 0;
  private constructor(readonly store: GitStore) {}

  static async open(dir: string): Promise<LodestoneWriter> {
    return new LodestoneWriter(await GitStore.open({ dir }));
  }

  async write(update: DocumentFile): Promise<void> {
    const commit = await this.store.write({
      changes: [{ path: update.path, bytes: update.bytes }],
      author: BENCH_AUTHOR,
      message: `PUT https://example.org/${update.document}`,
    });
    if (!commit) this.noops++;
  }
}

type IsoEntry = { mode: string; path: string; oid: string; type: 'blob' | 'tree' | 'commit' };

/**
 * isomorphic-git's writeBlob / writeTree / writeCommit / writeRef. Trees it has read or written
 * are kept in memory (as Lodestone does), so the baseline pays only for building and writing.
 */
export class IsoGitWriter implements Writer {
  readonly concurrent = false;
  private readonly trees = new Map<string, IsoEntry[]>();
  private constructor(
    private readonly gitdir: string,
    private head: string,
    private tree: string,
  ) {}

  static async open(dir: string): Promise<IsoGitWriter> {
    const gitdir = gitdirOf(dir);
    const head = await git.resolveRef({ fs, gitdir, ref: 'refs/heads/main' });
    const { commit } = await git.readCommit({ fs, gitdir, oid: head });
    return new IsoGitWriter(gitdir, head, commit.tree);
  }

  private async entries(oid: string): Promise<IsoEntry[]> {
    let entries = this.trees.get(oid);
    if (!entries) {
      entries = (await git.readTree({ fs, gitdir: this.gitdir, oid })).tree as IsoEntry[];
      this.trees.set(oid, entries);
    }
    return entries;
  }

  /** Writes the tree `oid` with `parts` set to `blob`, and every tree above it; returns the new id. */
  private async rebuild(oid: string, parts: string[], blob: string): Promise<string> {
    const [name, ...rest] = parts;
    const entries = [...(await this.entries(oid))];
    const at = entries.findIndex((e) => e.path === name);
    const current = entries[at];
    if (!current || !name) throw new Error(`no ${parts.join('/')} in tree ${oid}`);
    const id = rest.length === 0 ? blob : await this.rebuild(current.oid, rest, blob);
    entries[at] = { ...current, oid: id };
    const written = await git.writeTree({ fs, gitdir: this.gitdir, tree: entries });
    this.trees.set(written, entries);
    return written;
  }

  async write(update: DocumentFile): Promise<void> {
    const blob = await git.writeBlob({ fs, gitdir: this.gitdir, blob: update.bytes });
    const tree = await this.rebuild(this.tree, update.path.split('/'), blob);
    const signature = { ...BENCH_AUTHOR, timestamp: Math.floor(Date.now() / 1000), timezoneOffset: 0 };
    const commit = await git.writeCommit({
      fs,
      gitdir: this.gitdir,
      commit: { tree, parent: [this.head], author: signature, committer: signature, message: `PUT https://example.org/${update.document}\n` },
    });
    await git.writeRef({ fs, gitdir: this.gitdir, ref: 'refs/heads/main', value: commit, force: true });
    this.head = commit;
    this.tree = tree;
  }
}

/**
 * The git CLI, five spawns per commit: `hash-object -w --stdin`, `update-index --cacheinfo`,
 * `write-tree` (the index's cache-tree rebuilds only the changed subtrees), `commit-tree`,
 * `update-ref` (compare-and-swap against the previous head). No working tree is touched.
 */
export class GitCliWriter implements Writer {
  readonly concurrent = false;
  private constructor(
    private readonly dir: string,
    private head: string,
  ) {}

  static async open(dir: string): Promise<GitCliWriter> {
    await gitCli(dir, ['read-tree', 'HEAD']);
    return new GitCliWriter(dir, await gitCli(dir, ['rev-parse', 'HEAD']));
  }

  async write(update: DocumentFile): Promise<void> {
    const blob = await gitCli(this.dir, ['hash-object', '-w', '--stdin'], update.bytes);
    await gitCli(this.dir, ['update-index', '--add', '--cacheinfo', `100644,${blob},${update.path}`]);
    const tree = await gitCli(this.dir, ['write-tree']);
    const commit = await gitCli(this.dir, ['commit-tree', tree, '-p', this.head, '-m', `PUT https://example.org/${update.document}`]);
    await gitCli(this.dir, ['update-ref', 'refs/heads/main', commit, this.head]);
    this.head = commit;
  }
}

/**
 * Runs `updates` through `writer` from `writers` concurrent loops that share one queue of work,
 * and returns the seconds it took. A writer that is not safe concurrently gets a mutex: its
 * "16 writers" are 16 callers taking turns.
 */
export async function runWrites(writer: Writer, updates: readonly DocumentFile[], writers: number): Promise<number> {
  let lock: Promise<void> = Promise.resolve();
  const write = writer.concurrent
    ? (u: DocumentFile) => writer.write(u)
    : (u: DocumentFile) => {
        const done = lock.then(() => writer.write(u));
        lock = done.catch(() => undefined);
        return done;
      };
  let next = 0;
  const loop = async () => {
    while (next < updates.length) await write(updates[next++]!);
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: writers }, loop));
  return (performance.now() - start) / 1000;
}
