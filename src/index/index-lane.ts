/**
 * One lane of a dataspace's index: an index worker holding its own replica of the index, running
 * one call at a time (util/worker.ts WorkerCalls). A call given a time limit that runs past it
 * stops the lane: the worker is terminated, an empty one takes its place, and the call fails with
 * QueryTimeout; a worker that fails or exits is replaced the same way. The lane knows the commit
 * its replica reflects; after a replacement it reflects nothing until the Index loads it again.
 */
import { LodestoneError } from '../errors.js';
import { THREADS, workerEntry } from '../threads.js';
import { WorkerCalls } from '../util/worker.js';
import type { IndexConfig } from './index-core.js';
import type { IndexRequest } from './index-worker.js';

export class Lane {
  /** The commit the replica reflects, once `loaded`. */
  current: string | undefined;
  /** Whether the replica has been synced since its worker started (a fresh worker holds nothing). */
  loaded = false;
  /** Workers replaced so far: a call made before a replacement failed because of it. */
  replacements = 0;
  private readonly calls: WorkerCalls<IndexRequest>;
  private busy = false;
  private closed = false;

  constructor(
    readonly number: number,
    config: IndexConfig,
    onReplaced: (reason: Error) => void,
  ) {
    this.calls = new WorkerCalls<IndexRequest>(workerEntry(THREADS.indexLane), {
      workerData: config,
      name: `index worker ${number}`,
      onRestart: (reason) => {
        [this.current, this.loaded] = [undefined, false];
        this.replacements++;
        onReplaced(reason);
      },
    });
    this.calls.start();
  }

  /** Runs one request in the worker (the caller makes one call at a time); past `timeoutMs` the lane is stopped. */
  async run<T>(request: IndexRequest, timeoutMs?: number): Promise<T> {
    if (this.closed) throw new Error('the index is closed');
    if (this.busy) throw new Error(`index lane ${this.number} is busy`);
    const overTime = () => new LodestoneError('QueryTimeout', `the query ran past its ${timeoutMs} ms limit and was stopped`);
    this.busy = true;
    try {
      const value = await this.calls.call<T>(request, [], timeoutMs === undefined ? undefined : { timeoutMs, overTime });
      if (request.op === 'sync') [this.current, this.loaded] = [request.commit, true];
      if (request.op === 'reset') [this.current, this.loaded] = [undefined, false];
      return value;
    } finally {
      this.busy = false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.calls.close(new Error('the index is closed'));
  }
}
