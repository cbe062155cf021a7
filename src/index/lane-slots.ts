/**
 * What the Index (index.ts) keeps for each of its lanes, a Slot, and for each query waiting for
 * one; the rule that gives waiting queries to free lanes (in order, to a lane at the query's target
 * where there is one, within the holder's share), and the refusal of a holder whose slow queries
 * fill its share; the rules that size the pool (a lane starts when slow queries leave fewer than
 * the base count for quick ones; an extra lane idle long enough, or empty, stops); and the warning
 * line for a query stopped at its limit. The design and its costs: src/index/index.ts.
 *
 * - Slow queries (issue 27): a query cannot be moved off its lane once it runs (WebAssembly stops
 *   only with its worker), and its cost is known only by running it. So a query that outlives
 *   `slowAfterMs` (500 ms) makes its lane slow, and when slow lanes leave fewer than `lanes` (N)
 *   others, a fresh lane starts and loads from git in its worker, up to `extraLanes` (E, default
 *   1) beyond N: the others' quick queries keep N lanes. A lane beyond N stops once free with N
 *   quick lanes left: at once if empty (a stopped query's), else after `spareMs` (60 s) idle, so
 *   a run of slow queries does not load a copy for each one. A slow query is not stopped at the
 *   budget: its work would be lost and its lane would reload (seconds per 100k triples), nor is a
 *   lane started per query (each is a whole copy): the extra lanes are few, and shared.
 * - Fairness: one holder (an agent, or all anonymous clients together) holds at most
 *   max(1, N − 1) lanes running queries within the budget, and max(1, N − 1) + E lanes in all; its
 *   further queries wait, others' do not, and once its slow queries hold all it may, the next is
 *   refused at once (Busy: 503, Retry-After until the first reaches its limit) rather than held
 *   for up to the timeout. So an agent's cheap query does not wait behind its own runaway one, and
 *   one agent's slow queries never hold every lane (N ≥ 2).
 */
import { LodestoneError } from '../errors.js';
import type { QueryRequest } from './index-core.js';
import type { Lane } from './index-lane.js';

/** The holder of every query without an agent: anonymous clients share one share of the lanes. */
export const ANONYMOUS = 'anonymous';

/** A commit to reach, numbered in the order `follow` was given targets. */
export interface Goal {
  commit: string | undefined;
  seq: number;
}

export interface Job {
  op: 'dump' | 'size' | 'reset';
  resolve: (value: never) => void;
  reject: (error: Error) => void;
}

export interface Query {
  request: QueryRequest;
  /** The target when it was asked: it runs on a lane at this goal or a later one. */
  seq: number;
  /** A past commit the query runs at instead (issue 30): on a lane moved there by tree diff. */
  at?: string;
  timeoutMs: number;
  /** Who asks: a WebID, or anonymous. */
  holder: string;
  resolve: (value: string | boolean) => void;
  reject: (error: Error) => void;
}

/** What the index asks of one lane. */
export interface Slot {
  lane: Lane;
  /** A call is in flight (cleared once its outcome is recorded here). */
  busy: boolean;
  /** The commit the lane syncs to next; lane 0's is always the target. */
  goal: Goal | undefined;
  /** The `seq` of the newest goal the lane reached (0 while it is not loaded). */
  at: number;
  /** The `seq` of a goal whose sync failed: not tried again until `follow` or a query asks. */
  failed: number | undefined;
  jobs: Job[];
  /** The query the lane is held for, syncing for it or running it. */
  query: Query | undefined;
  /** The query has run past the budget (`slowAfterMs`): the lane is slow until it ends. */
  slow: boolean;
  /** Fires when the running query's budget is spent. */
  budget: NodeJS.Timeout | undefined;
  /** When the running query reaches its time limit (performance.now()). */
  deadline: number;
  /** When the lane last finished a query or a load (performance.now()), for stopping extra lanes. */
  idleSince: number;
  catchUp: NodeJS.Timeout | undefined;
  /** Since when (performance.now()) the lane has waited to catch up with lane 0, if it does. */
  behindSince?: number;
}

/** How many lanes one holder may hold: `quick` of them running queries still within the budget, `all` in total. */
export interface Share {
  quick: number;
  all: number;
}

/**
 * Gives waiting queries, in order, to free loaded lanes: one that has reached the query's target,
 * else, unless a lane heading for the target will soon be free, one that syncs first (toward
 * `target`). A holder gets at most `share.quick` lanes whose queries are within the budget and
 * `share.all` lanes in all; its further queries wait, and the ones behind them go ahead. Queries
 * given a lane leave `pending`.
 */
export function assignQueries(pending: Query[], slots: readonly Slot[], share: Share, target: Goal | undefined): void {
  const quick = new Map<string, number>();
  const all = new Map<string, number>();
  const count = (map: Map<string, number>, holder: string) => map.set(holder, (map.get(holder) ?? 0) + 1);
  for (const slot of slots) {
    if (!slot.query) continue;
    count(all, slot.query.holder);
    if (!slot.slow) count(quick, slot.query.holder);
  }
  let soon = slots.filter(heading).length;
  for (let i = 0; i < pending.length; ) {
    const query = pending[i]!;
    const free = slots.filter(isFree);
    if (free.length === 0) return;
    if ((quick.get(query.holder) ?? 0) >= share.quick || (all.get(query.holder) ?? 0) >= share.all) {
      i++;
      continue;
    }
    if (query.at !== undefined) {
      const past = pastLane(slots, free, query.at);
      if (!past) {
        i++;
        continue;
      }
      pending.splice(i, 1);
      past.query = query;
      count(quick, query.holder);
      count(all, query.holder);
      continue;
    }
    let slot = free.find((s) => reflects(s) >= query.seq);
    if (!slot && soon > 0) {
      soon--;
      i++;
      continue;
    }
    slot ??= free.find((s) => s.lane.number > 0) ?? free[0]!;
    pending.splice(i, 1);
    slot.query = query;
    if (slot.lane.number > 0 && reflects(slot) < query.seq) slot.goal = target;
    count(quick, query.holder);
    count(all, query.holder);
  }
}

/**
 * The lane a query at the past commit `at` takes (issue 30): a free one already there, else a free
 * one other than lane 0, which follows HEAD for writers' reads; lane 0 only when it is the only
 * lane. None: the query waits.
 */
function pastLane(slots: readonly Slot[], free: readonly Slot[], at: string): Slot | undefined {
  return free.find((s) => s.lane.current === at) ?? free.find((s) => s.lane.number > 0) ?? (slots.length === 1 ? free[0] : undefined);
}

/**
 * The refusal of a new query of `holder` when slow queries of its own hold every lane its share
 * allows: it would wait for one of them to end, up to the SPARQL timeout, so it is told at once
 * (503) when to try again, when the first of them reaches its limit at the latest.
 */
export function slowRefusal(slots: readonly Slot[], holder: string, share: Share, now: number): LodestoneError | undefined {
  const own = slots.filter((s) => s.query?.holder === holder);
  if (own.length < share.all || !own.every((s) => s.slow)) return undefined;
  const retryAfter = Math.max(1, Math.ceil((Math.min(...own.map((s) => s.deadline)) - now) / 1000));
  const queries = own.length === 1 ? 'a slow SPARQL query' : `${own.length} slow SPARQL queries`;
  const whose = holder === ANONYMOUS ? `of clients that are not signed in already run on this dataspace, as many as they may run at once together; sign in, or try again` : `of yours already run on this dataspace, as many as one agent may run at once; try again`;
  return new LodestoneError('Busy', `${queries} ${whose} when one has ended`, { retryAfter });
}

/**
 * Whether a lane should start: slow queries leave fewer than `base` lanes for quick ones (loading
 * lanes count: they are coming), and the pool has fewer than `most` lanes.
 */
export function needsLane(slots: readonly Slot[], base: number, most: number): boolean {
  return slots.length < most && slots.filter((s) => !s.slow).length < base;
}

/**
 * The lanes beyond the `base` count that may stop (any but lane 0, which follows HEAD): free, with
 * `base` quick lanes left without them, each either empty (a stopped query's lane: not worth
 * loading again while another is loaded) or idle since `idleBefore`.
 */
export function lanesToStop(slots: readonly Slot[], base: number, idleBefore: number): Slot[] {
  const spare = slots.filter((s) => s.lane.number > 0 && !s.busy && !s.query && s.jobs.length === 0 && (!s.lane.loaded || s.idleSince <= idleBefore));
  spare.sort((x, y) => Number(x.lane.loaded) - Number(y.lane.loaded)); // the empty ones first
  const quick = slots.filter((s) => !s.slow).length;
  return spare.slice(0, Math.max(0, Math.min(slots.length - base, quick - base)));
}

/** The smallest lane number no lane has. */
export function unusedNumber(slots: readonly Slot[]): number {
  const taken = new Set(slots.map((s) => s.lane.number));
  let number = 1;
  while (taken.has(number)) number++;
  return number;
}

/** A loaded lane that takes a query now. */
function isFree(slot: Slot): boolean {
  return slot.lane.loaded && !slot.busy && !slot.query && slot.jobs.length === 0;
}

/** The `seq` of the goal a lane reflects; 0 while it is not loaded. */
export function reflects(slot: Slot): number {
  return slot.lane.loaded ? slot.at : 0;
}

/** A loaded lane not held by a query that is syncing, or about to sync, toward its goal (lane 0: the target). */
function heading(slot: Slot): boolean {
  const { lane, goal } = slot;
  if (!lane.loaded || slot.query) return false;
  return slot.busy || (goal !== undefined && lane.current !== goal.commit && slot.failed !== goal.seq);
}

/** The warning for a query stopped at its limit: one line, with the start of the query. */
export function stoppedQuery(query: Query, lane: number): string {
  const text = query.request.asSent ?? query.request.query;
  const start = text.slice(0, 100).replace(/[\s\x00-\x1f\x7f]+/g, ' ');
  return `SPARQL query stopped at its ${query.timeoutMs} ms limit (lane ${lane} restarts), agent ${query.holder}, ${text.length} characters: ${start}${text.length > 100 ? '…' : ''}`;
}
