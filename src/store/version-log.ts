/**
 * The versions of every document of a dataspace, from the first-parent history of its branch:
 * for each file, the commits that changed it, oldest first, with their time and author, and the
 * blob they left (null for a deletion). Built once by walking the history, then extended at every
 * new HEAD by walking back to the commit it last saw, so a TimeMap or TimeGate costs work in
 * proportion to that document's versions, never to the repository's history (issue 5). It is kept
 * on disk as an append-only log (`.git/lodestone/versions`): a restart reads the log and walks only
 * the commits made since. The log is derived data: when it does not fit the repository, it is
 * rebuilt, and it may lag: appends wait a moment to go down together, and whatever a crash loses
 * of them is walked again at the next start.
 */
import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { isObjectId } from '../git/objects.js';
import { TREE_MODE } from '../git/trees.js';
import type { CommitSummary, GitStore, HeadChange } from './git-store.js';
import { lookupPath } from './trees.js';
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

/** Whether a version's author is a WebID (a write over HTTP), not `anonymous` or a git user's name. */
export const isWebIdAuthor = (author: string): boolean => /^https?:\/\/\S+$/.test(author);

interface Change {
  path: string;
  version: Version;
}

const ZERO = '0'.repeat(40);

/** How long the log's appends wait to go down together (one disk-worker call, not one per commit). */
const LOG_DELAY_MS = 200;

/**
 * The changes to files under `prefix` along the first-parent history of `head`, oldest first, from
 * `git log --raw` (NUL-separated, so any path is read as is); undefined when the git CLI is not
 * installed or fails (the caller then walks the objects itself).
 */
export function gitLogChanges(dir: string, head: string, prefix: string): Promise<Change[] | undefined> {
  return new Promise((resolve) => {
    const child = spawn('git', ['-C', dir, '-c', 'core.quotePath=false', 'log', '--first-parent', '--reverse', '--raw', '--no-abbrev', '--no-renames', '-z', '--format=%x01%H %ct %an', head], { stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', () => resolve(undefined));
    child.on('close', (code) => {
      if (code !== 0) return resolve(undefined);
      const changes: Change[] = [];
      const folder = prefix + '/';
      for (const record of Buffer.concat(chunks).toString('utf8').split('\x01')) {
        if (record === '') continue;
        const fields = record.split('\0');
        const header = fields[0]!;
        const [commit, time] = header.split(' ', 2) as [string, string];
        const author = header.slice(commit.length + time.length + 2);
        const version = (blob: string | null) => ({ commit, time: Number(time), author, blob });
        // then pairs: ':<mode> <mode> <old> <new> <status>' and the path
        for (let i = 1; i + 1 < fields.length; i += 2) {
          const raw = fields[i]!.replace(/^\n/, '');
          if (!raw.startsWith(':')) break;
          const path = fields[i + 1]!;
          if (!path.startsWith(folder)) continue;
          const after = raw.split(' ')[3]!;
          changes.push({ path, version: version(after === ZERO ? null : after) });
        }
      }
      resolve(changes);
    });
  });
}

export class VersionLog {
  private readonly versions = new Map<string, Version[]>();
  private indexed: string | undefined;
  private work: Promise<void> = Promise.resolve();
  /** Log records not yet appended, and the timer that appends them. */
  private unwritten = '';
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: GitStore,
    /** Read the history with the git CLI when building from nothing (when it is installed). */
    private readonly useGit = true,
  ) {
    store.on('head', (change: HeadChange) => {
      this.work = this.work.then(() => (change.commits && change.before === this.indexed ? this.recordCommits(change.after, change.commits) : this.extendTo(change.after))).catch(() => undefined);
    });
  }

  private get logPath(): string {
    return join(this.store.gitdir, 'lodestone', 'versions');
  }

  /** Loads the log left by the last run, then indexes the commits made since (at startup). */
  async build(): Promise<void> {
    await this.load();
    await this.extendTo(this.store.head);
    await this.idle();
  }

  /** Replays the log up to its last complete `#head` record; anything after it is a torn write. */
  private async load(): Promise<void> {
    const text = await fsp.readFile(this.logPath, 'utf8').catch(() => '');
    const end = text.lastIndexOf('#head ');
    if (end < 0) {
      await fsp.rm(this.logPath, { force: true });
      return;
    }
    const headLine = text.slice(end, text.indexOf('\n', end));
    const head = headLine.slice(6).trim();
    if (!isObjectId(head) || !(await this.store.objects.read(head))) {
      await fsp.rm(this.logPath, { force: true }); // not this repository's: rebuilt from nothing
      return;
    }
    const decoded = new Map<string, string>(); // authors and paths repeat: decode each once
    const decode = (value: string) => {
      let out = decoded.get(value);
      if (out === undefined) decoded.set(value, (out = value.includes('%') ? decodeURIComponent(value) : value));
      return out;
    };
    for (const line of text.slice(0, end).split('\n')) {
      if (line === '' || line.charCodeAt(0) === 35 /* # */) continue;
      const [commit, time, author, encodedPath, blob] = line.split('\t');
      if (!commit || !encodedPath || blob === undefined) continue;
      const path = decode(encodedPath);
      const version = { commit, time: Number(time), author: decode(author ?? ''), blob: blob === '-' ? null : blob };
      const list = this.versions.get(path);
      if (list) list.push(version);
      else this.versions.set(path, [version]);
    }
    this.indexed = head;
  }

  /** Resolves once every HEAD seen so far is indexed and in the log on disk. */
  async idle(): Promise<void> {
    await this.work;
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    await this.flush();
  }

  private async flush(): Promise<void> {
    const text = this.unwritten;
    this.unwritten = '';
    if (text) await this.store.disk.append(this.logPath, text);
  }

  /** The versions of a file, oldest first (an empty list when it never existed). */
  of(path: string): readonly Version[] {
    return this.versions.get(path) ?? [];
  }

  /** Walks back from `head` to the last indexed commit (first parents) and records the changes. */
  private async extendTo(head: string | undefined): Promise<void> {
    if (!head || head === this.indexed) return;
    if (this.indexed === undefined && this.useGit) {
      // From nothing, the whole history: git's own log walks it several times faster than reading
      // objects from JavaScript, when the git CLI is installed.
      const log = await gitLogChanges(this.store.dir, head, this.store.prefix);
      if (log !== undefined) return this.record(head, log);
    }
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
      this.unwritten = '';
      await fsp.rm(this.logPath, { force: true });
      parentTree = chain[0]?.parent ? (await this.store.objects.readCommit(chain[0].parent)).tree : undefined;
    }
    const changes: Change[] = [];
    for (const commit of chain) {
      for (const file of await diffTrees(this.store.trees, parentTree, commit.tree, this.store.prefix)) {
        changes.push({ path: file.path, version: { commit: commit.id, time: commit.time, author: commit.author, blob: file.after ?? null } });
      }
      parentTree = commit.tree;
    }
    await this.record(head, changes);
  }

  /** The store's own commits, as it made them: nothing to read back from git. */
  private recordCommits(head: string, commits: readonly CommitSummary[]): void {
    const changes: Change[] = [];
    for (const commit of commits) {
      for (const file of commit.files) changes.push({ path: file.path, version: { commit: commit.id, time: commit.time, author: commit.author, blob: file.after ?? null } });
    }
    this.record(head, changes);
  }

  /** Adds `changes` (oldest first) to the index and to the log, which then ends at `head`. */
  private record(head: string, changes: readonly Change[]): void {
    let log = '';
    for (const { path, version } of changes) {
      const list = this.versions.get(path);
      if (list) list.push(version);
      else this.versions.set(path, [version]);
      log += `${version.commit}\t${version.time}\t${encodeURIComponent(version.author)}\t${encodeURIComponent(path)}\t${version.blob ?? '-'}\n`;
    }
    this.indexed = head;
    this.unwritten += `${log}#head ${head}\n`;
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      this.work = this.work.then(() => this.flush()).catch(() => undefined);
    }, LOG_DELAY_MS).unref(); // Dataspace.close() appends what is left; a crash loses nothing the next start does not walk again
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
