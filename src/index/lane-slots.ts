/**
 * What the Index (index.ts) keeps for each of its lanes, a Slot, and for each query waiting for
 * one; and the rule that gives waiting queries to free lanes: in order, to a lane at the query's
 * target where there is one, with at most N − 1 lanes held by one holder (src/index/index.ts).
 */
import type { QueryRequest } from './index-core.js';
import type { Lane } from './index-lane.js';

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
  catchUp: NodeJS.Timeout | undefined;
}

/**
 * Gives waiting queries, in order, to free loaded lanes: one that has reached the query's target,
 * else, unless a lane heading for the target will soon be free, one that syncs first (toward
 * `target`). A holder gets at most `perHolder` lanes; its further queries wait, and the ones
 * behind them go ahead. Queries given a lane leave `pending`.
 */
export function assignQueries(pending: Query[], slots: readonly Slot[], perHolder: number, target: Goal | undefined): void {
  const held = new Map<string, number>();
  for (const slot of slots) if (slot.query) held.set(slot.query.holder, (held.get(slot.query.holder) ?? 0) + 1);
  let soon = slots.filter(heading).length;
  for (let i = 0; i < pending.length; ) {
    const query = pending[i]!;
    const free = slots.filter((s) => s.lane.loaded && !s.busy && !s.query && s.jobs.length === 0);
    if (free.length === 0) return;
    if ((held.get(query.holder) ?? 0) >= perHolder) {
      i++;
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
    held.set(query.holder, (held.get(query.holder) ?? 0) + 1);
  }
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
