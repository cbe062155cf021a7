/**
 * WorkerPool (src/util/worker-pool.ts): a job past its deadline is stopped by terminating its worker and
 * refused with WorkLimit, while other jobs keep being answered by the other workers and by the
 * replacement; a costly job's worker leaves the pool after demoteAfterMs; a full queue is refused
 * at once with Busy; a plain failure replaces the worker.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLodestoneError } from '../src/errors.js';
import { WorkerPool } from '../src/util/worker-pool.js';
import type { TestCall } from './fixtures/pool-worker.js';

const entry = new URL('./fixtures/pool-worker.js', import.meta.url);

describe('WorkerPool', () => {
  it('stops a job at its deadline without holding up the others, and keeps serving', async () => {
    const pool = new WorkerPool<TestCall>(entry, { size: 2, deadlineMs: 1500 });
    try {
      const stuck = pool.call({ op: 'spin' });
      // the other worker answers while the first one spins
      for (let i = 0; i < 5; i++) assert.equal(await pool.call<string>({ op: 'echo', value: `v${i}` }), `v${i}`);
      await assert.rejects(stuck, (error) => isLodestoneError(error, 'WorkLimit') && /1\.5 s/.test(error.message));
      assert.equal(await pool.call<string>({ op: 'echo', value: 'after' }), 'after');
      // two stuck jobs take both workers; a third job waits for a replacement and is answered
      const both = [pool.call({ op: 'spin' }), pool.call({ op: 'spin' })];
      const waiting = pool.call<string>({ op: 'echo', value: 'queued' });
      for (const job of both) await assert.rejects(job, (error) => isLodestoneError(error, 'WorkLimit'));
      assert.equal(await waiting, 'queued');
    } finally {
      await pool.close();
    }
  });

  it('lets a costly job hold the pool for demoteAfterMs at most: its worker leaves to finish it, a fresh one takes the next jobs', async () => {
    const pool = new WorkerPool<TestCall>(entry, { size: 1, deadlineMs: 4000, demoteAfterMs: 300, maxDemoted: 1 });
    try {
      const stuck = pool.call({ op: 'spin' });
      let settled = false;
      void stuck.catch(() => (settled = true));
      assert.equal(await pool.call<string>({ op: 'echo', value: 'meanwhile' }), 'meanwhile');
      assert.equal(settled, false, 'answered while the costly job still ran, in the worker that left the pool');
      // a second costly job finds no room for another worker leaving: refused with Busy
      await assert.rejects(pool.call({ op: 'spin' }), (error) => isLodestoneError(error, 'Busy'));
      await assert.rejects(stuck, (error) => isLodestoneError(error, 'WorkLimit'));
      assert.equal(await pool.call<string>({ op: 'echo', value: 'after' }), 'after');
    } finally {
      await pool.close();
    }
  });

  it('refuses at once when its queue is full, and replaces a worker after a plain failure', async () => {
    const pool = new WorkerPool<TestCall>(entry, { size: 1, deadlineMs: 1000, maxQueue: 1 });
    try {
      const stuck = pool.call({ op: 'spin' });
      const queued = pool.call<string>({ op: 'echo', value: 'next' });
      await assert.rejects(pool.call({ op: 'echo', value: 'over' }), (error) => isLodestoneError(error, 'Busy'));
      await assert.rejects(stuck, (error) => isLodestoneError(error, 'WorkLimit'));
      assert.equal(await queued, 'next');
      await assert.rejects(pool.call({ op: 'fail' }), /broken/);
      assert.equal(await pool.call<string>({ op: 'echo', value: 'fresh' }), 'fresh');
    } finally {
      await pool.close();
    }
  });
});
