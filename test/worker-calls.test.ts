/**
 * The worker call protocol (src/util/worker.ts) through WorkerCalls: a LodestoneError thrown in the
 * worker comes back with its code, message and data, and a plain error with its message; a call
 * past its time limit fails with the limit's error, its worker is replaced and the next call is
 * answered; a worker that exits fails its call and is restarted. A worker started from dist/ is
 * given the process's Node options without those that load tsx.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { LodestoneError, isLodestoneError } from '../src/errors.js';
import { WorkerCalls, withoutTsx } from '../src/util/worker.js';
import type { TestCall } from './fixtures/pool-worker.js';

const entry = new URL('./fixtures/pool-worker.js', import.meta.url);

describe('WorkerCalls', () => {
  it('brings back a LodestoneError with its code, message and data, and a plain error with its message', async () => {
    const calls = new WorkerCalls<TestCall>(entry);
    try {
      await assert.rejects(calls.call({ op: 'refuse', value: 'this' }), (error) => {
        assert.ok(isLodestoneError(error, 'BadQuery'));
        assert.equal(error.message, 'refused this');
        assert.deepEqual(error.data, { line: 3, column: 7 });
        return true;
      });
      await assert.rejects(calls.call({ op: 'fail' }), (error) => !(error instanceof LodestoneError) && error instanceof Error && error.message === 'broken');
      assert.equal(await calls.call<string>({ op: 'echo', value: 'still here' }), 'still here');
    } finally {
      await calls.close();
    }
  });

  it('stops a call past its time limit with the limit\'s error, replaces the worker, and answers the next call', async () => {
    const restarts: Error[] = [];
    const calls = new WorkerCalls<TestCall>(entry, { name: 'test worker', onRestart: (reason) => restarts.push(reason) });
    try {
      assert.equal(await calls.call<string>({ op: 'echo', value: 'first' }), 'first');
      await assert.rejects(calls.call({ op: 'spin' }, [], { timeoutMs: 500 }), (error) => isLodestoneError(error, 'WorkLimit') && /0\.5 s/.test(error.message));
      const overTime = (ms: number) => new LodestoneError('QueryTimeout', `past ${ms} ms`);
      await assert.rejects(calls.call({ op: 'spin' }, [], { timeoutMs: 300, overTime }), (error) => isLodestoneError(error, 'QueryTimeout') && error.message === 'past 300 ms');
      assert.equal(await calls.call<string>({ op: 'echo', value: 'after' }), 'after');
      assert.deepEqual(restarts.map((r) => r.message), ['the request needed more than 0.5 s of work and was stopped', 'past 300 ms']);
    } finally {
      await calls.close();
    }
  });

  it('fails the call of a worker that exits, and restarts it', async () => {
    const restarts: Error[] = [];
    const calls = new WorkerCalls<TestCall>(entry, { name: 'test worker', onRestart: (reason) => restarts.push(reason) });
    try {
      assert.equal(await calls.call<string>({ op: 'echo', value: 'before' }), 'before');
      await assert.rejects(calls.call({ op: 'exit' }), { message: 'test worker failed: it exited with code 3' });
      assert.deepEqual(restarts.map((r) => r.message), ['test worker failed: it exited with code 3']);
      assert.equal(await calls.call<string>({ op: 'echo', value: 'after' }), 'after');
    } finally {
      await calls.close();
    }
    await assert.rejects(calls.call({ op: 'echo' }), { message: 'test worker was closed' });
  });
});

describe('withoutTsx', () => {
  it('drops the options that load tsx, in each spelling, and keeps the others in order', () => {
    const tsxLoader = '/repo/node_modules/tsx/dist/loader.mjs';
    assert.deepEqual(withoutTsx(['--import', 'tsx', '--max-old-space-size=512']), ['--max-old-space-size=512']);
    assert.deepEqual(withoutTsx(['--import=tsx', '--require', '/repo/node_modules/tsx/dist/preflight.cjs', '--import', `file://${tsxLoader}`, '--cpu-prof']), ['--cpu-prof']);
    assert.deepEqual(withoutTsx(['-r', 'tsx/cjs', '--loader=tsx/esm', '--inspect']), ['--inspect']);
    // others that only look alike stay
    assert.deepEqual(withoutTsx(['--import', './tsxish.mjs', '--require', 'my-tsx-helper']), ['--import', './tsxish.mjs', '--require', 'my-tsx-helper']);
  });

  it('starts a worker from dist/ in a process run with an option a worker cannot be given (--max-old-space-size)', () => {
    const script = `(async () => { const { startWorker } = await import('./src/util/worker.ts'); const { THREADS, workerEntry } = await import('./src/threads.ts');
      const worker = startWorker(workerEntry(THREADS.disk)); worker.once('message', async () => { console.log('ready'); await worker.terminate(); }); })();`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--max-old-space-size=256', '-e', script], { env: { ...process.env, LODESTONE_WORKERS: 'dist' }, encoding: 'utf8' });
    assert.equal(out, 'ready\n');
  });
});
