/**
 * The pusher (SPEC §9.1, issue 5): mirrors a dataspace's commit chain (first parents) to its
 * hosted repository. Each local commit is replayed as a commit with the same tree change, author,
 * committer, dates and message; while the remote branch is where the pusher left it, the replay is
 * byte-identical and the remote SHA equals the local one (checked), so memento URLs stay valid on
 * a clone of the mirror. If somebody else moved the remote branch, the remaining changes are
 * replayed onto its new head (the local→remote pairs are recorded), never dropped.
 *
 * Progress is kept in `.git/lodestone/mirror.json` (written atomically after every ref update), so
 * a restart resumes where it stopped; its status (lag in commits, last error, next attempt) is
 * there too, and in the log. The transport is replaceable: GitHub's REST API here, `git push` over
 * smart HTTP in git-push.ts.
 */
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import type { Commit, Signature } from '../git/commits.js';
import type { GitStore } from '../store/git-store.js';
import { diffTrees, lookupPath } from '../store/trees.js';

export interface MirrorState {
  /** The last local commit the remote branch holds (or a replay of it). */
  local: string;
  /** The remote commit it became. */
  remote: string;
  /** A first commit the pusher made in an empty repository, to be replaced by the real chain. */
  placeholder?: string;
}

export interface MirrorStatus {
  location: string;
  transport: string;
  branch: string;
  state: 'starting' | 'idle' | 'pushing' | 'waiting' | 'failing';
  /** Local commits not on the remote yet. */
  lag: number;
  pushed?: MirrorState;
  /** Local→remote pairs of replays whose SHA differs (the remote had moved), newest last. */
  diverged: number;
  lastError?: string;
  retryAt?: string;
  updated: string;
}

/** One local commit to replay, with what changed against its first parent. */
export interface Replay {
  id: string;
  commit: Commit;
  parentTree: string | undefined;
  changes: { path: string; mode: string; blob: Buffer | null }[];
}

export interface Transport {
  readonly name: string;
  /** The remote branch head: undefined when there is no branch, 'empty' for an empty repository. */
  head(): Promise<string | undefined | 'empty'>;
  /**
   * Puts `replays` (oldest first) on the remote branch after `from` (the state the pusher left it
   * in, undefined at the start). Returns the new state and the replays whose remote SHA differs.
   * Throws NotFastForward when the branch moved meanwhile (the pusher then tries again).
   */
  push(replays: readonly Replay[], from: MirrorState | undefined): Promise<{ state: MirrorState; diverged: [string, string][] }>;
  /** Gives up the request under way and the waits before its retries (the server is stopping). */
  abort?(): void;
}

export class NotFastForward extends Error {}

export interface PusherOptions {
  location: string;
  branch: string;
  transport: Transport;
  log: (line: string) => void;
  /** Commits per ref update. */
  batch?: number;
  /** Milliseconds before retrying after a failure (doubled per failure, capped at 10 minutes). */
  retryMs?: number;
}

const STATE_FILE = 'mirror.json';
const MAP_FILE = 'mirror-map';

export class Pusher {
  private state: MirrorState | undefined;
  private current: MirrorStatus;
  private stopped = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private failures = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(
    private readonly store: GitStore,
    private readonly options: PusherOptions,
  ) {
    this.current = { location: options.location, transport: options.transport.name, branch: options.branch, state: 'starting', lag: 0, diverged: 0, updated: new Date().toISOString() };
  }

  private get dir(): string {
    return join(this.store.gitdir, 'lodestone');
  }

  status(): MirrorStatus {
    return { ...this.current };
  }

  /** Loads the saved progress and starts mirroring; every new HEAD wakes it. */
  async start(): Promise<void> {
    const saved = await fsp.readFile(join(this.dir, STATE_FILE), 'utf8').catch(() => undefined);
    if (saved) {
      const parsed = JSON.parse(saved) as { location?: string; pushed?: MirrorState; diverged?: number };
      // progress belongs to one remote: a new location starts over
      if (parsed.location === this.options.location) {
        this.state = parsed.pushed;
        this.current.diverged = parsed.diverged ?? 0;
      }
    }
    this.store.on('head', () => this.wake?.());
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.options.transport.abort?.();
    this.wake?.();
    await this.loop;
  }

  /** Resolves once the remote holds HEAD (for tests and for a clean shutdown). */
  settled(): Promise<void> {
    if (this.current.state === 'idle' && this.state?.local === this.store.head) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const head = this.store.head;
      if (!head || head === this.state?.local) {
        this.update({ state: 'idle', lag: 0, lastError: undefined, retryAt: undefined });
        for (const resolve of this.waiters.splice(0)) resolve();
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      try {
        await this.pushOnce(head);
        this.failures = 0;
      } catch (error) {
        if (this.stopped) break; // the server is stopping: the push under way was given up
        if (error instanceof NotFastForward) {
          this.options.log(`mirror ${this.options.location}: the remote branch moved; replaying onto its new head`);
          continue;
        }
        this.failures++;
        const wait = Math.min(600_000, (this.options.retryMs ?? 5000) * 2 ** (this.failures - 1));
        const message = (error as Error).message;
        this.update({ state: 'failing', lastError: message, retryAt: new Date(Date.now() + wait).toISOString() });
        this.options.log(`mirror ${this.options.location}: ${message}; ${this.current.lag} commits behind, retrying in ${Math.round(wait / 1000)} s`);
        await Promise.race([new Promise((resolve) => setTimeout(resolve, wait).unref()), new Promise<void>((resolve) => (this.wake = resolve))]);
      }
    }
  }

  /** Replays the commits after the saved state up to `head`, a batch per ref update. */
  private async pushOnce(head: string): Promise<void> {
    const chain = await this.pending(head);
    this.update({ state: 'pushing', lag: chain.length });
    const batch = this.options.batch ?? 100;
    for (let start = 0; start < chain.length && !this.stopped; start += batch) {
      const replays = await Promise.all(chain.slice(start, start + batch).map((id) => this.replayOf(id)));
      const { state, diverged } = await this.options.transport.push(replays, this.state);
      await this.save(state, diverged);
      if (diverged.length > 0) this.options.log(`mirror ${this.options.location}: ${diverged.length} commits replayed onto a moved branch (remote SHAs differ; see .git/lodestone/${MAP_FILE})`);
      this.update({ lag: chain.length - start - replays.length });
    }
  }

  /** First-parent commits after the saved state, oldest first (all of them when it is not an ancestor). */
  private async pending(head: string): Promise<string[]> {
    let stopAt = this.state?.local;
    if (!this.state) {
      // no saved progress: the remote may hold our commits already (same SHAs)
      const remote = await this.options.transport.head();
      if (remote !== undefined && remote !== 'empty') stopAt = remote;
    }
    const out: string[] = [];
    let id: string | undefined = head;
    while (id && id !== stopAt) {
      out.push(id);
      id = (await this.store.objects.readCommit(id)).parents[0];
    }
    if (id && !this.state) this.state = { local: id, remote: id };
    if (!id && this.state) {
      // local history was rewritten under the mirror: replay all of it on top of what is there
      this.options.log(`mirror ${this.options.location}: ${this.state.local} is no longer in the history of ${this.options.branch}; replaying the whole chain`);
      this.state = { ...this.state, local: '' };
    }
    return out.reverse();
  }

  private async replayOf(id: string): Promise<Replay> {
    const commit = await this.store.objects.readCommit(id);
    const parent = commit.parents[0];
    const parentTree = parent ? (await this.store.objects.readCommit(parent)).tree : undefined;
    const diffs = await diffTrees(this.store.trees, parentTree, commit.tree);
    const changes = await Promise.all(
      diffs.map(async (d) => ({
        path: d.path,
        mode: d.after ? ((await lookupPath(this.store.trees, commit.tree, d.path))?.mode ?? '100644') : '100644',
        blob: d.after ? await this.store.objects.readTyped(d.after, 'blob') : null,
      })),
    );
    return { id, commit, parentTree, changes };
  }

  private async save(state: MirrorState, diverged: [string, string][]): Promise<void> {
    this.state = state;
    this.current.diverged += diverged.length;
    await fsp.mkdir(this.dir, { recursive: true });
    if (diverged.length > 0) {
      const handle = await fsp.open(join(this.dir, MAP_FILE), 'a');
      await handle.appendFile(diverged.map(([local, remote]) => `${local} ${remote}\n`).join(''));
      await handle.sync();
      await handle.close();
    }
    const file = join(this.dir, STATE_FILE);
    const temporary = `${file}.tmp`;
    const handle = await fsp.open(temporary, 'w');
    await handle.writeFile(JSON.stringify({ location: this.options.location, branch: this.options.branch, pushed: state, diverged: this.current.diverged, updated: new Date().toISOString() }, null, 2) + '\n');
    await handle.sync();
    await handle.close();
    await fsp.rename(temporary, file);
    this.update({ pushed: state });
  }

  private update(change: Partial<MirrorStatus>): void {
    this.current = { ...this.current, ...change, updated: new Date().toISOString() };
  }
}

/** A signature's date in ISO 8601 with its own offset (git's `+0130` → `+01:30`). */
export function isoDate(signature: Signature): string {
  const sign = signature.timezone.startsWith('-') ? -1 : 1;
  const hours = Number(signature.timezone.slice(1, 3));
  const minutes = Number(signature.timezone.slice(3, 5));
  const offset = sign * (hours * 60 + minutes);
  const local = new Date((signature.timestamp + offset * 60) * 1000).toISOString().slice(0, 19);
  return offset === 0 ? `${local}Z` : `${local}${signature.timezone.slice(0, 3)}:${signature.timezone.slice(3, 5)}`;
}
