/**
 * A read replica (issue 29, `serve --replica-of <primary>`): one follower per dataspace, each
 * fetching from the primary's repository of the same dataspace (its base under the primary's
 * instead of the replica's own). At start each catches up once; a dataspace that has never been
 * fetched stops the start when the primary cannot be reached, one fetched before is served as it is
 * while the primary is away.
 */
import { readFileSync } from 'node:fs';
import type { GitStore } from '../store/git-store.js';
import { Follower } from './follower.js';

export interface ReplicaOptions {
  /** The primary's end-user base URL, and the replica's own (`--base`: usually the same, behind one name). */
  primary: string;
  base: string;
  caFile?: string;
  /** The secretary's certificate and key (PEM file). */
  credentialsFile: string;
  log: (line: string) => void;
  /** How long it waits (tests shorten them): for a commit a request asks for, and before trying the primary again. */
  timings?: Partial<ReplicaTimings>;
}

export interface ReplicaTimings {
  /** How long a read that asks for a commit (`Lodestone-Min-Commit`) waits for it before it is sent to the primary. */
  minCommitWaitMs: number;
  /** The first wait after a failed round, doubled after each failure up to the most. */
  retryFirstMs: number;
  retryMostMs: number;
}

const TIMINGS: ReplicaTimings = { minCommitWaitMs: 2000, retryFirstMs: 250, retryMostMs: 5000 };

/** What a replica tells of a dataspace (the status resource). */
export interface ReplicaStatus {
  primary: string;
  /** The primary's HEAD as last heard, and when. */
  primaryHead: string | null;
  heardAt: string | null;
  /** Whether this replica holds the primary's HEAD as last heard (commits on their way are not counted: they are not here yet). */
  caughtUp: boolean;
  /** Seconds since this replica last held the primary's HEAD (null: never yet). */
  lagSeconds: number | null;
  /** Commits the primary holds beyond this copy, as it last said (null: it did not say how many). */
  lagCommits: number | null;
  /** How the commits came since the start: rounds that took in the primary's pack, and fetches with git. */
  rounds: { packed: number; fetched: number };
}

export class Replica {
  private readonly followers = new Map<string, Follower>();
  private readonly timings: ReplicaTimings;

  constructor(
    private readonly options: ReplicaOptions,
    dataspaces: ReadonlyArray<{ base: string; store: GitStore }>,
  ) {
    this.timings = { ...TIMINGS, ...options.timings };
    const pem = readFileSync(options.credentialsFile, 'utf8');
    const ca = options.caFile ? readFileSync(options.caFile, 'utf8') : undefined;
    for (const { base, store } of dataspaces) {
      const url = `${this.primaryUrl(base)}.git`;
      this.followers.set(base, new Follower({ store, url, credentials: { file: options.credentialsFile, pem }, caFile: options.caFile, ca, log: options.log, retryMs: { first: this.timings.retryFirstMs, most: this.timings.retryMostMs } }));
    }
  }

  /** The primary's URL for a URL of this replica (a write is sent there). */
  primaryUrl(url: string): string {
    if (url.startsWith(this.options.base)) return this.options.primary + url.slice(this.options.base.length);
    const at = new URL(url);
    return new URL(at.pathname + at.search, this.options.primary).href;
  }

  /** Catches every dataspace up once. */
  async catchUp(): Promise<void> {
    await Promise.all(
      [...this.followers.values()].map((follower) =>
        follower.catchUp().catch((error: Error) => {
          if (follower.store.head === undefined) throw new Error(`cannot reach the primary to copy ${follower.store.dir}: ${error.message}`);
          this.options.log(`replica: the primary cannot be reached (${error.message}); serving ${follower.store.dir} as last fetched`);
        }),
      ),
    );
  }

  start(): void {
    for (const follower of this.followers.values()) follower.start();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.followers.values()].map((f) => f.stop()));
  }

  /** Whether the dataspace at `base` holds `commit`, waiting a little for it (`minCommitWaitMs`). */
  reached(base: string, commit: string): Promise<boolean> {
    return this.followers.get(base)?.reached(commit, this.timings.minCommitWaitMs) ?? Promise.resolve(false);
  }

  status(base: string): ReplicaStatus | undefined {
    const follower = this.followers.get(base);
    if (!follower) return undefined;
    const current = follower.primaryHead === undefined || follower.primaryHead === follower.store.head;
    return {
      primary: this.primaryUrl(base),
      primaryHead: follower.primaryHead ?? null,
      heardAt: follower.heardAt?.toISOString() ?? null,
      caughtUp: current,
      lagSeconds: current ? 0 : follower.caughtUpAt ? (Date.now() - follower.caughtUpAt.getTime()) / 1000 : null,
      lagCommits: current ? 0 : (follower.commitsBehind ?? null),
      rounds: { ...follower.rounds },
    };
  }
}
