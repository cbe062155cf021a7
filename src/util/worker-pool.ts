/**
 * Workers of one entry that share a queue, for work whose cost the request decides (parsing a
 * body, labelling blank nodes, a PATCH's WHERE): no job runs on the thread that answers requests,
 * a costly job holds the pool for `demoteAfterMs` at most (then its worker leaves the pool to
 * finish it), and none runs past its deadline (its worker is terminated). A job's time counts from
 * when a started worker takes it. A worker that failed, was stopped or left is replaced at once;
 * idle workers do not keep the process alive. The workers answer the call protocol of worker.ts.
 */
import type { Transferable } from 'node:worker_threads';
import { LodestoneError } from '../errors.js';
import { WorkerThread, lowerPriorityOf, type CallRequest } from './worker.js';

export interface WorkerPoolOptions {
  /** Workers taking new jobs at most; each runs one job at a time. */
  size: number;
  /** A job still running after this long is stopped: its worker is terminated. */
  deadlineMs: number;
  /**
   * A job still running after this long leaves the pool with its worker, which finishes it (up to
   * the deadline) while a fresh worker takes its place: a costly job holds the pool this long at
   * most. Without it, a job holds its worker to the end.
   */
  demoteAfterMs?: number;
  /** Workers that may be finishing such jobs at once; past that, a job running that long is refused with Busy. */
  maxDemoted?: number;
  /** The refusal a stopped job rejects with (a WorkLimit by default). */
  overDeadline?: (deadlineMs: number) => Error;
  /** Jobs that may wait for a worker; more are refused with Busy (503) at once. */
  maxQueue?: number;
}

interface PoolJob {
  request: CallRequest;
  transfer: readonly Transferable[];
  resolve: (value: never) => void;
  reject: (error: Error) => void;
}

interface PoolSlot {
  thread: WorkerThread;
  job: PoolJob | undefined;
  demotion: NodeJS.Timeout | undefined;
}

function busy(message: string): LodestoneError {
  return new LodestoneError('Busy', message, { retryAfter: 5 });
}

export class WorkerPool<Request extends CallRequest> {
  private readonly slots: PoolSlot[] = [];
  /** Workers that left the pool to finish a costly job. */
  private readonly demoted: PoolSlot[] = [];
  private readonly queue: PoolJob[] = [];
  private closed = false;

  constructor(
    private readonly entry: URL,
    private readonly options: WorkerPoolOptions,
  ) {}

  call<T>(request: Request, transfer: readonly Transferable[] = []): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the worker pool is closed'));
    const free = this.options.size - this.slots.filter((s) => s.job).length;
    if (this.queue.length - Math.max(free, 0) >= (this.options.maxQueue ?? Infinity)) {
      return Promise.reject(busy('the server has too much of this work waiting; try again in a few seconds'));
    }
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ request, transfer, resolve: resolve as (value: never) => void, reject });
      this.pump();
    });
  }

  /** Starts one worker now rather than on the first job. */
  start(): void {
    if (this.slots.length === 0) this.slots.push(this.spawn());
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => s.thread.ready && s.job === undefined);
      if (!slot) {
        const starting = this.slots.filter((s) => !s.thread.ready).length;
        if (starting < this.queue.length && this.slots.length < this.options.size && !this.closed) this.slots.push(this.spawn());
        return; // a job waits for a worker to start: its time counts only its own work
      }
      this.run(slot, this.queue.shift()!);
    }
  }

  private run(slot: PoolSlot, job: PoolJob): void {
    slot.job = job;
    const { deadlineMs, demoteAfterMs, overDeadline } = this.options;
    if (demoteAfterMs !== undefined && demoteAfterMs < deadlineMs) slot.demotion = setTimeout(() => this.demote(slot), demoteAfterMs);
    slot.thread.call(job.request, job.transfer, { timeoutMs: deadlineMs, overTime: overDeadline }).then(
      (value) => this.settle(slot, job, () => job.resolve(value as never), true),
      // a failure that is not a refusal may have left the worker broken (a WebAssembly trap)
      (error: Error) => this.settle(slot, job, () => job.reject(error), error instanceof LodestoneError),
    );
  }

  /** The slot's job is done: a worker that left the pool, or may be broken, goes; one in the pool takes the next job. */
  private settle(slot: PoolSlot, job: PoolJob, outcome: () => void, healthy: boolean): void {
    if (slot.job !== job) return; // the slot was dropped, and the job failed with it
    clearTimeout(slot.demotion);
    slot.job = undefined;
    outcome();
    if (this.demoted.includes(slot) || !healthy) this.drop(slot, new Error('done'));
    else this.pump();
  }

  /** The slot's worker leaves the pool to finish its job, and a fresh one takes its place. */
  private demote(slot: PoolSlot): void {
    if (!this.slots.includes(slot) || !slot.job) return;
    if (this.demoted.length >= (this.options.maxDemoted ?? 1)) {
      return this.drop(slot, busy('the server is busy with other costly requests of this kind; try again in a few seconds'));
    }
    this.slots.splice(this.slots.indexOf(slot), 1);
    this.demoted.push(slot);
    if (slot.thread.tid !== undefined) lowerPriorityOf(slot.thread.tid, 19); // it yields the CPU to every ordinary job
    if (!this.closed) this.slots.push(this.spawn());
    this.pump();
  }

  private spawn(): PoolSlot {
    const slot: PoolSlot = { thread: undefined!, job: undefined, demotion: undefined };
    slot.thread = new WorkerThread(this.entry, undefined, { name: 'a pool worker', onReady: () => this.pump(), onEnd: (reason) => this.drop(slot, reason) });
    return slot;
  }

  /** Fails the slot's job with `reason` and terminates its worker; a pool worker is replaced at once. */
  private drop(slot: PoolSlot, reason: Error): void {
    const inPool = this.slots.indexOf(slot);
    const left = this.demoted.indexOf(slot);
    if (inPool < 0 && left < 0) return;
    if (inPool >= 0) this.slots.splice(inPool, 1);
    else this.demoted.splice(left, 1);
    clearTimeout(slot.demotion);
    const job = slot.job;
    slot.job = undefined;
    job?.reject(reason);
    void slot.thread.stop(reason);
    // a worker takes a while to start (under tsx, to compile): the next job should not wait for that
    if (inPool >= 0 && !this.closed && this.slots.length < this.options.size) this.slots.push(this.spawn());
    this.pump();
  }

  /** Stops every worker; jobs running or waiting are failed, not left waiting. */
  async close(): Promise<void> {
    this.closed = true;
    const failure = new Error('the worker pool was closed');
    for (const job of this.queue.splice(0)) job.reject(failure);
    const slots = [...this.slots.splice(0), ...this.demoted.splice(0)];
    for (const slot of slots) {
      clearTimeout(slot.demotion);
      slot.job?.reject(failure);
      slot.job = undefined;
    }
    await Promise.all(slots.map((slot) => slot.thread.stop(failure)));
  }
}
