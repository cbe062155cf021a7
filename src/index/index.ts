/**
 * The main thread's handle on a dataspace's index. The index lives in query lanes: replicas of it,
 * each in its own worker (index-lane.ts), so that index builds and SPARQL queries never block
 * HTTP and a slow query holds up only its own lane. One lane is one worker, as before lanes.
 *
 * - Following HEAD: `follow(commit)` sets the target, the newest HEAD. Lane 0 follows it, with
 *   the changed files' bytes carried from the main thread (recordHead); `syncTo` waits for it.
 *   The other lanes load once lane 0 has, then sync only by diffing trees in their worker: when a
 *   query is given to them, and when idle `catchUpMs` (5 s) after lane 0 last moved (at most 60 s
 *   behind while writes go on: scheduleCatchUps). So extra lanes
 *   cost no main-thread work per write, and a document rewritten many times is replaced in them
 *   once per catch-up.
 * - Queries: a query runs on a free, loaded lane at the target when `query` was called or later
 *   (a lane behind syncs first), so it sees every write made before. A lane already at the target
 *   is preferred; one that is only syncing toward it is waited for rather than another synced.
 *   With every lane busy, queries wait in order.
 * - Slow queries and fairness (issue 27; the rules: lane-slots.ts): a query that outlives
 *   `slowAfterMs` (500 ms) makes its lane slow; when slow lanes leave fewer than `lanes` (N) for
 *   quick queries, a fresh lane loads from git, up to `extraLanes` (E, 1) more, stopped once idle
 *   for `spareMs` (60 s). One holder holds at most N − 1 lanes with quick queries, N − 1 + E in all.
 * - A query past its time limit stops its lane alone: the worker is terminated (a warning line is
 *   logged) and the lane reloads, taking no query until it is back. It reloads at the target, not
 *   at the commit it reflected: one load rather than a load and then a sync.
 * - `dump` and `size` run on lane 0 at the target; `rebuild` reloads every lane; `close` stops all.
 * - `onFirstUse` (the admin dataspaces): no lane starts before the first query, `dump`, `size` or
 *   `rebuild`; until then following HEAD only moves the target. Saves a worker and a copy of the
 *   index per admin dataspace (~35 MB and ~0.2 s of a core at start) that most servers never query.
 * - Queries of the past (issue 30): a query may name a commit `at`. It runs on a free lane already
 *   there, else on one other than lane 0 (which follows HEAD for writers' reads), moved there by
 *   IndexCore.syncTo, the tree diff from the commit it holds: only the documents that differ are
 *   loaded, in the lane's worker. The lane stays there for the next query at `at` until a query at
 *   HEAD takes it or it catches up after lane 0 moves. With one lane, lane 0 goes there and back.
 *   Chosen over a fresh store per commit (a whole load: ~20 s per million triples here) and over a
 *   copy of a HEAD store (Oxigraph copies by dump and load, as slow as a load): no memory beyond the
 *   lanes, and the cost follows the documents that differ, not the size of the dataspace or the
 *   commits between. Measured (bench --only history, 1,000,000 triples, a commit 10,000 back, 100
 *   documents differ, 2 cores under a load of 9-20): first answer 0.75-1.0 s; then queries there
 *   p50 16.5 ms against 13.0 ms at HEAD, alternating; a move to a commit 5,000 back 0.9 s.
 *
 * Memory: each lane is a whole copy. Measured (bench/lane-memory.ts: RSS of a process with 1, 2
 * and 3 lanes, each loaded and having answered a query), a lane beyond the first costs ~35 MB
 * empty (a worker, its tsx loader and an Oxigraph store) and ~90 MB holding 100k triples in 1,000
 * documents: about 35 MB plus Oxigraph's 0.55–0.9 GB per million triples. N copies are kept;
 * N + E while slow queries run and for `spareMs` after (bench --only index, 100k triples, two
 * runs: a peak RSS of 528–567 MB with the extra lane, 468–480 MB without). Latency: a fresh lane
 * is ready after a load from git: 2.9–3.0 s for 100k triples, 0.75 s of it the worker's start, on
 * 2 cores under a load of 10–20, so ~22 s per million, near the default timeout; meanwhile the
 * other N − 1 lanes answer quick queries, the slow query's agent's too (its selective queries
 * beside its expensive ones: p99 16–26 ms, against 3.9–5.9 s with `extraLanes: 0`, where as before
 * issue 27 they wait for its expensive ones).
 */
import { isLodestoneError } from '../errors.js';
import type { DataspaceIndex } from './engine.js';
import type { FileDiff } from '../store/trees.js';
import type { IndexConfig, QueryRequest, SyncReport } from './index-core.js';
import { Lane } from './index-lane.js';
import { ANONYMOUS, assignQueries, lanesToStop, needsLane, reflects, slowRefusal, stoppedQuery, unusedNumber, type Goal, type Job, type Query, type Share, type Slot } from './lane-slots.js';
import { RecordedChanges } from './recorded-changes.js';

/** How many `catchUpMs` a lane other than lane 0 stays behind at most while writes go on. */
const CATCH_UP_BOUND = 12;

export interface IndexOptions extends IndexConfig {
  /** Replicas of the index that queries run on, each in its own worker (default 1). */
  lanes?: number;
  /** Lanes that may start beyond `lanes` while queries are slow (default 1). */
  extraLanes?: number;
  /** How long a query runs before its lane counts as slow (default 500 ms). */
  slowAfterMs?: number;
  /** How long a lane beyond `lanes` stays idle before it stops (default 60,000 ms). */
  spareMs?: number;
  /**
   * No lane starts before the first query, `dump`, `size` or `rebuild` (an admin dataspace's, which
   * its owners alone query, if ever): until then the index holds no worker and no copy, records no
   * changes, and a sync is done at once; the first lane then loads from git at the target.
   */
  onFirstUse?: boolean;
  /** How long after lane 0 last moved an idle lane other than lane 0 catches up (default 5,000 ms; at most 12× that while lane 0 keeps moving). */
  catchUpMs?: number;
  /** Called with each file at a synced commit that failed to parse. */
  onInvalid?: (path: string, message: string) => void;
  log?: (line: string) => void;
  /**
   * A blob's bytes if the main thread holds them: a sync to a commit whose changes were recorded
   * (recordHead) then carries the changed files, and the worker reads nothing from the packs.
   */
  cachedBlob?: (id: string) => Uint8Array | undefined;
}

export class Index implements DataspaceIndex {
  readonly kind = 'embedded';
  private slots: Slot[];
  private readonly pending: Query[] = [];
  private target: Goal | undefined;
  /** Who waits for lane 0 to reach a goal. */
  private waiters: Array<{ seq: number; resolve: () => void; reject: (error: Error) => void }> = [];
  private readonly base: number;
  private readonly most: number;
  private readonly share: Share;
  private readonly catchUpMs: number;
  private readonly slowAfterMs: number;
  private readonly spareMs: number;
  private spareTimer: NodeJS.Timeout | undefined;
  private readonly config: IndexConfig;
  private closed = false;
  private readonly onInvalid: IndexOptions['onInvalid'];
  private readonly log: (line: string) => void;
  private readonly recorded: RecordedChanges;
  /** Whether the lanes have started (at once, unless `onFirstUse`). */
  private started: boolean;

  constructor(options: IndexOptions) {
    const { lanes = 1, extraLanes = 1, catchUpMs = 5000, slowAfterMs = 500, spareMs = 60_000, onFirstUse = false, onInvalid, log, cachedBlob, ...config } = options;
    this.config = config;
    this.onInvalid = onInvalid;
    this.recorded = new RecordedChanges(cachedBlob);
    this.log = log ?? ((line) => console.error(line));
    [this.catchUpMs, this.slowAfterMs, this.spareMs] = [catchUpMs, slowAfterMs, spareMs];
    this.base = Math.max(1, lanes);
    this.most = this.base + Math.max(0, extraLanes);
    this.share = { quick: Math.max(1, this.base - 1), all: Math.max(1, this.base - 1) + this.most - this.base };
    this.started = !onFirstUse;
    this.slots = this.started ? Array.from({ length: this.base }, (_, n) => this.newSlot(n)) : [];
  }

  /** Starts the lanes of an index that waited for its first use; lane 0 loads at the target. */
  private start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.slots = Array.from({ length: this.base }, (_, n) => this.newSlot(n));
    if (this.target) this.slots[0]!.goal = this.target;
  }

  private newSlot(number: number): Slot {
    const lane = new Lane(number, this.config, (reason) => {
      if (!isLodestoneError(reason, 'QueryTimeout')) this.log(`${reason.message}; starting a new one`);
      this.pump();
    });
    const idleSince = performance.now();
    return { lane, busy: false, goal: undefined, at: 0, failed: undefined, jobs: [], query: undefined, slow: false, budget: undefined, deadline: 0, idleSince, catchUp: undefined };
  }

  /** The commit lane 0 reflects. */
  get indexedCommit(): string | undefined {
    const lane = this.slots[0]?.lane;
    return lane?.loaded ? lane.current : undefined;
  }

  /** Lanes, those loaded, queries on a lane (running, or syncing it first), those past the budget and queries waiting for one. */
  get status(): { lanes: number; loaded: number; onLanes: number; slow: number; waiting: number } {
    const count = (test: (slot: Slot) => unknown) => this.slots.filter(test).length;
    return { lanes: this.slots.length, loaded: count((s) => s.lane.loaded), onLanes: count((s) => s.query), slow: count((s) => s.slow), waiting: this.pending.length };
  }

  /**
   * Records a new HEAD of the store (its tree and the files that changed), for lane 0's next sync
   * to carry; returns how many files the recorded changes now hold.
   */
  recordHead(before: string | undefined, after: string, tree: string, files: readonly FileDiff[]): number {
    return this.started ? this.recorded.record(before, after, tree, files) : 0;
  }

  /** Makes `commit` (the store's HEAD) the target without waiting: queries from now on run at it or later. */
  follow(commit: string | undefined): void {
    if (this.closed) return;
    if (!this.target || this.target.commit !== commit) this.target = { commit, seq: (this.target?.seq ?? 0) + 1 };
    if (!this.started) return;
    for (const slot of this.slots) slot.failed = undefined;
    this.slots[0]!.goal = this.target;
    this.pump();
  }

  /** Brings lane 0 to `commit`; resolves once it reflects `commit` or a later target. */
  syncTo(commit: string | undefined): Promise<void> {
    this.follow(commit);
    if (this.closed) return Promise.reject(new Error('the index is closed'));
    const seq = this.target!.seq;
    if (!this.started || reflects(this.slots[0]!) >= seq) return Promise.resolve(); // an index not yet used loads at the target when it is
    return new Promise((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
  }

  /**
   * Runs a SPARQL query on a free lane at the target; throws QueryTimeout past `timeoutMs`.
   * `holder` names who asks (a WebID; undefined: anonymous), for the lanes it may hold; throws Busy
   * at once when its own slow queries hold them all.
   * Before any target, the query runs over an empty index.
   */
  query(request: QueryRequest, timeoutMs: number, holder?: string, at?: string): Promise<string | boolean> {
    if (this.closed) return Promise.reject(new Error('the index is closed'));
    if (!this.target) this.follow(undefined);
    this.start();
    const refusal = slowRefusal(this.slots, holder ?? ANONYMOUS, this.share, performance.now());
    if (refusal) return Promise.reject(refusal);
    return new Promise((resolve, reject) => {
      this.pending.push({ request, seq: this.target?.seq ?? 0, timeoutMs, holder: holder ?? ANONYMOUS, resolve, reject, ...(at === undefined ? {} : { at }) });
      this.pump();
    });
  }

  /** Throws every replica away and loads it again from `commit` (`lodestone reindex`); resolves once lane 0 has. */
  async rebuild(commit: string | undefined): Promise<void> {
    this.start();
    this.follow(commit);
    await Promise.all(this.slots.map((slot) => this.onLane<void>(slot, 'reset')));
    await this.syncTo(commit);
  }

  dump(): Promise<string> {
    this.start();
    return this.onLane(this.slots[0]!, 'dump');
  }

  size(): Promise<number> {
    this.start();
    return this.onLane(this.slots[0]!, 'size');
  }

  private onLane<T>(slot: Slot, op: Job['op']): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the index is closed'));
    return new Promise<T>((resolve, reject) => {
      slot.jobs.push({ op, resolve: resolve as (value: never) => void, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.closed || !this.started) return;
    this.resize();
    assignQueries(this.pending, this.slots, this.share, this.target);
    for (const slot of this.slots) this.advance(slot);
  }

  /** Stops the lanes no longer needed and starts one if slow lanes leave too few (the module comment). */
  private resize(): void {
    for (const slot of lanesToStop(this.slots, this.base, performance.now() - this.spareMs)) {
      this.slots = this.slots.filter((s) => s !== slot);
      clearTimeout(slot.catchUp);
      void slot.lane.close();
    }
    if (needsLane(this.slots, this.base, this.most)) this.slots.push(this.newSlot(unusedNumber(this.slots)));
    if (this.slots.length > this.base && !this.spareTimer) {
      this.spareTimer = setTimeout(() => {
        this.spareTimer = undefined;
        this.pump();
      }, this.spareMs);
      this.spareTimer.unref();
    }
  }

  /**
   * Starts a free lane's next call: the query it is held for once the lane has reached the query's
   * target, else the sync its goal needs (a failed one only for a query), else its jobs.
   */
  private advance(slot: Slot): void {
    const lane = slot.lane;
    if (slot.busy || this.closed) return;
    if (!lane.loaded) slot.at = 0;
    if (!lane.loaded && this.target) {
      if (lane.number > 0 && !this.slots[0]!.lane.loaded) return; // lane 0 loads first
      slot.goal = this.target;
    }
    const goal = slot.goal;
    if (goal && lane.loaded && lane.current === goal.commit) this.reach(slot, goal.seq);
    const query = slot.query;
    if (query?.at !== undefined) return lane.loaded && lane.current === query.at ? this.run(slot, query) : this.visit(slot, query, query.at);
    if (query && reflects(slot) >= query.seq) return this.run(slot, query);
    if (goal && (!lane.loaded || lane.current !== goal.commit)) {
      if (slot.failed !== goal.seq || query) this.sync(slot, goal);
      return;
    }
    const job = slot.jobs.shift();
    if (job) this.call(slot, lane.run<never>({ op: job.op }), job.resolve, job.reject);
  }

  /** Makes `promise` the slot's call: the slot is busy until its outcome is handled. */
  private call<T>(slot: Slot, promise: Promise<T>, onValue: (value: T) => void, onError: (error: Error) => void): void {
    slot.busy = true;
    void promise.then(onValue, onError).finally(() => {
      slot.busy = false;
      this.pump();
    });
  }

  private sync(slot: Slot, goal: Goal): void {
    const { lane } = slot;
    const first = lane.number === 0;
    const replacements = lane.replacements;
    const request = lane.run<SyncReport>({ op: 'sync', commit: goal.commit, delta: first ? this.recorded.take(goal.commit) : undefined });
    this.call(
      slot,
      request,
      (report) => {
        slot.idleSince = performance.now();
        this.reach(slot, goal.seq);
        if (!first) return;
        for (const bad of report.invalid) this.onInvalid?.(bad.path, bad.message);
        this.scheduleCatchUps();
      },
      (error) => {
        if (this.closed || lane.replacements !== replacements) return; // a replaced worker: the lane reloads
        slot.failed = goal.seq;
        this.log(`index lane ${lane.number} could not sync to ${goal.commit ?? 'an empty branch'}: ${error.message}`);
        if (first) this.waiters = this.waiters.filter((w) => (w.seq <= goal.seq ? (w.reject(error), false) : true));
        slot.query?.reject(error);
        slot.query = undefined;
        if (!this.slots.some((s) => s.lane.loaded)) for (const query of this.pending.splice(0)) query.reject(error);
      },
    );
  }

  /**
   * Moves a lane to the past commit `at` for a query there, by the tree diff from the commit it
   * holds (index-core.ts syncTo): the lane then reflects no goal. Lane 0 goes back to the target
   * once the query is answered; another lane stays, for the next query at `at`, until a query at
   * HEAD takes it or it catches up after lane 0 moves. The move counts in the query's time limit:
   * past it the lane stops, as for a query (a commit that differs in millions of triples, say).
   */
  private visit(slot: Slot, query: Query, at: string): void {
    const { lane } = slot;
    const replacements = lane.replacements;
    slot.at = 0;
    if (lane.number > 0) slot.goal = undefined;
    const started = performance.now();
    this.call(
      slot,
      lane.run<SyncReport>({ op: 'sync', commit: at }, query.timeoutMs),
      () => {
        slot.idleSince = performance.now();
        query.timeoutMs = Math.max(1, query.timeoutMs - (slot.idleSince - started)); // what is left of the limit
      },
      (error) => {
        const overTime = isLodestoneError(error, 'QueryTimeout');
        if (this.closed || (lane.replacements !== replacements && !overTime)) return; // a replaced worker: the lane reloads, then visits again
        this.log(`index lane ${lane.number} could not move to ${at} for a query there: ${error.message}`);
        if (slot.query === query) slot.query = undefined;
        query.reject(error);
      },
    );
  }

  private run(slot: Slot, query: Query): void {
    slot.deadline = performance.now() + query.timeoutMs;
    slot.budget = setTimeout(() => {
      slot.slow = true;
      this.pump();
    }, this.slowAfterMs);
    const release = () => {
      clearTimeout(slot.budget);
      [slot.budget, slot.slow, slot.idleSince] = [undefined, false, performance.now()];
      if (slot.query === query) slot.query = undefined;
    };
    const request = slot.lane.run<string | boolean>({ op: 'query', request: query.request }, query.timeoutMs);
    this.call(
      slot,
      request,
      (value) => (release(), query.resolve(value)),
      (error) => {
        release();
        if (isLodestoneError(error, 'QueryTimeout')) this.log(stoppedQuery(query, slot.lane.number));
        query.reject(error);
      },
    );
  }

  /** The lane reflects the goal numbered `seq`; for lane 0, whoever waits for it or an earlier one is done. */
  private reach(slot: Slot, seq: number): void {
    if (seq <= slot.at) return;
    slot.at = seq;
    if (slot.lane.number === 0) this.waiters = this.waiters.filter((w) => (w.seq <= seq ? (w.resolve(), false) : true));
  }

  /**
   * Lets each other lane behind the target catch up once lane 0 has not moved for `catchUpMs`, and
   * at the latest `CATCH_UP_BOUND` × `catchUpMs` after it fell behind. A timer per lane set once and
   * not pushed back made it sync every `catchUpMs` through a burst of writes, doubling the index's
   * work while the writes needed the CPU (bench --only scale, HTTP creates); a query given to it
   * still syncs it first, so it answers at the target as before.
   */
  private scheduleCatchUps(): void {
    const now = performance.now();
    for (const slot of this.slots.slice(1)) {
      if (!slot.lane.loaded || slot.lane.current === this.target?.commit) continue;
      slot.behindSince ??= now;
      clearTimeout(slot.catchUp);
      slot.catchUp = setTimeout(
        () => {
          slot.catchUp = undefined;
          slot.behindSince = undefined;
          if (slot.query || !slot.lane.loaded || !this.target || slot.lane.current === this.target.commit) return;
          slot.goal = this.target;
          this.pump();
        },
        Math.max(0, Math.min(this.catchUpMs, slot.behindSince + CATCH_UP_BOUND * this.catchUpMs - now)),
      );
      slot.catchUp.unref();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const closed = new Error('the index is closed');
    for (const query of this.pending.splice(0)) query.reject(closed);
    for (const waiter of this.waiters.splice(0)) waiter.reject(closed);
    clearTimeout(this.spareTimer);
    for (const slot of this.slots) {
      clearTimeout(slot.catchUp);
      clearTimeout(slot.budget);
      for (const job of slot.jobs.splice(0)) job.reject(closed);
      slot.query?.reject(closed);
    }
    await Promise.all(this.slots.map((slot) => slot.lane.close()));
  }
}
