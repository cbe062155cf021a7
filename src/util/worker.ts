/**
 * Worker threads started the same way from compiled JavaScript and from the TypeScript sources.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { Worker, parentPort, type Transferable } from 'node:worker_threads';
import { LodestoneError, type ErrorCode } from '../errors.js';

/**
 * Starts a worker. Run from source (under tsx) a worker does not inherit the TypeScript loader,
 * so it starts from a two-line bootstrap that registers tsx and then imports the `.ts` entry.
 */
export function startWorker(entry: URL, workerData?: unknown): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(entry, { workerData });
  const source = entry.href.replace(/\.js$/, '.ts');
  const code = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); })`;
  return new Worker(code, { eval: true, workerData });
}

/**
 * Lowers the scheduling priority of the calling thread (Linux: a thread is a task with its own
 * nice value, named by /proc/thread-self). Background work in workers (index syncs, composing
 * writes) then yields the CPU to the main thread that answers requests. Elsewhere, a no-op.
 */
export function lowerThreadPriority(niceness: number): void {
  const tid = threadId();
  if (tid !== undefined) lowerPriorityOf(tid, niceness);
}

/** The calling thread's id as the kernel knows it (Linux), or undefined. */
function threadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined; // not Linux
  }
}

function lowerPriorityOf(tid: number, niceness: number): void {
  try {
    setPriority(tid, niceness);
  } catch {
    // not allowed: run at the priority it has
  }
}

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; code?: string; message: string; data?: Record<string, unknown> };

/**
 * Calls into a worker started on first use: each call resolves to what the worker's handler
 * returned, or rejects with the error it threw (a LodestoneError keeps its code and data). A
 * crashed worker fails the calls it had in hand and is started again by the next call. An idle
 * worker does not keep the process alive.
 */
export class WorkerCalls<Request> {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve: (value: never) => void; reject: (error: Error) => void }>();
  private nextId = 1;

  constructor(
    private readonly entry: URL,
    private readonly workerData?: unknown,
  ) {}

  call<T>(request: Request, transfer: readonly Transferable[] = []): Promise<T> {
    const worker = (this.worker ??= this.spawn());
    if (this.pending.size === 0) worker.ref();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: never) => void, reject });
      worker.postMessage({ id, request }, transfer);
    });
  }

  /** Starts the worker now rather than on the first call. */
  start(): void {
    this.worker ??= this.spawn();
  }

  private spawn(): Worker {
    const worker = startWorker(this.entry, this.workerData);
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.ok) waiter.resolve(reply.value as never);
      else waiter.reject(reply.code ? new LodestoneError(reply.code as ErrorCode, reply.message, reply.data) : new Error(reply.message));
    });
    const fail = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`worker exited (${code})`)));
    return worker;
  }

  /** Stops the worker; calls still in hand are failed, not left waiting. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    for (const waiter of this.pending.values()) waiter.reject(new Error('the worker was closed'));
    this.pending.clear();
    await worker?.terminate();
  }
}

/** The worker side of WorkerCalls: answers each request, in the order they come, with `handle`'s value or error. */
export function serveCalls<Request>(handle: (request: Request) => unknown): void {
  const port = parentPort!;
  // a WorkerPool starts a job's deadline only once its worker can take it, and lowers the priority
  // of a worker that leaves the pool with a costly job (by its thread id)
  port.postMessage({ ready: true, tid: threadId() });
  let chain: Promise<void> = Promise.resolve();
  port.on('message', ({ id, request }: { id: number; request: Request }) => {
    chain = chain.then(async () => {
      let reply: Reply;
      try {
        reply = { id, ok: true, value: await handle(request) };
      } catch (error) {
        reply =
          error instanceof LodestoneError
            ? { id, ok: false, code: error.code, message: error.message, data: error.data }
            : { id, ok: false, message: error instanceof Error ? error.message : String(error) };
      }
      port.postMessage(reply);
    });
  });
}

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
  request: unknown;
  transfer: readonly Transferable[];
  resolve: (value: never) => void;
  reject: (error: Error) => void;
}

interface PoolSlot {
  worker: Worker;
  /** The worker has started and can take a job (it said so). */
  ready: boolean;
  /** Its thread id, where the kernel has one (Linux). */
  tid?: number;
  job: PoolJob | undefined;
  timers: NodeJS.Timeout[];
}

function busy(message: string): LodestoneError {
  return new LodestoneError('Busy', message, { retryAfter: 5 });
}

/**
 * Workers of one entry that share a queue, for work whose cost the request decides (parsing a
 * body, labelling blank nodes, a PATCH's WHERE): no job runs on the thread that answers requests,
 * a costly job holds the pool for `demoteAfterMs` at most (then its worker leaves the pool to
 * finish it), and none runs past its deadline, since terminating a worker is the one way to stop
 * synchronous JavaScript or WebAssembly. A job's time counts from when a started worker takes it.
 * A worker that failed, was stopped or left is replaced at once; idle workers do not keep the
 * process alive.
 */
export class WorkerPool<Request> {
  private readonly slots: PoolSlot[] = [];
  /** Workers that left the pool to finish a costly job. */
  private readonly demoted: PoolSlot[] = [];
  private readonly queue: PoolJob[] = [];
  private nextId = 1;
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
      const slot = this.slots.find((s) => s.ready && s.job === undefined);
      if (!slot) {
        const starting = this.slots.filter((s) => !s.ready).length;
        if (starting < this.queue.length && this.slots.length < this.options.size && !this.closed) this.slots.push(this.spawn());
        return; // a job waits for a worker to start: its time counts only its own work
      }
      this.run(slot, this.queue.shift()!);
    }
  }

  private run(slot: PoolSlot, job: PoolJob): void {
    slot.job = job;
    slot.worker.ref();
    const { deadlineMs, demoteAfterMs } = this.options;
    slot.timers.push(
      setTimeout(() => this.drop(slot, this.options.overDeadline?.(deadlineMs) ?? new LodestoneError('WorkLimit', `the request needed more than ${deadlineMs / 1000} s of work and was stopped`)), deadlineMs),
    );
    if (demoteAfterMs !== undefined && demoteAfterMs < deadlineMs) slot.timers.push(setTimeout(() => this.demote(slot), demoteAfterMs));
    slot.worker.postMessage({ id: this.nextId++, request: job.request }, job.transfer);
  }

  /** The slot's worker leaves the pool to finish its job, and a fresh one takes its place. */
  private demote(slot: PoolSlot): void {
    if (!this.slots.includes(slot) || !slot.job) return;
    if (this.demoted.length >= (this.options.maxDemoted ?? 1)) {
      return this.drop(slot, busy('the server is busy with other costly requests of this kind; try again in a few seconds'));
    }
    this.slots.splice(this.slots.indexOf(slot), 1);
    this.demoted.push(slot);
    if (slot.tid !== undefined) lowerPriorityOf(slot.tid, 19); // it yields the CPU to every ordinary job
    if (!this.closed) this.slots.push(this.spawn());
    this.pump();
  }

  private spawn(): PoolSlot {
    const worker = startWorker(this.entry);
    worker.unref();
    const slot: PoolSlot = { worker, ready: false, job: undefined, timers: [] };
    worker.on('message', (reply: Reply | { ready: true; tid?: number }) => {
      if ('ready' in reply) {
        slot.ready = true;
        slot.tid = reply.tid;
        return this.pump();
      }
      const job = slot.job;
      if (!job) return;
      for (const timer of slot.timers.splice(0)) clearTimeout(timer);
      slot.job = undefined;
      worker.unref();
      if (reply.ok) job.resolve(reply.value as never);
      else job.reject(reply.code ? new LodestoneError(reply.code as ErrorCode, reply.message, reply.data) : new Error(reply.message));
      // a worker that left the pool is done; one whose failure is not a refusal may be broken (a WebAssembly trap)
      if (this.demoted.includes(slot) || (!reply.ok && !reply.code)) this.drop(slot, new Error(reply.ok ? 'done' : reply.message));
      else this.pump();
    });
    worker.on('error', (error) => this.drop(slot, error));
    worker.on('exit', (code) => this.drop(slot, new Error(`worker exited (${code})`)));
    return slot;
  }

  /** Fails the slot's job with `reason` and terminates its worker; a pool worker is replaced at once. */
  private drop(slot: PoolSlot, reason: Error): void {
    const inPool = this.slots.indexOf(slot);
    const left = this.demoted.indexOf(slot);
    if (inPool < 0 && left < 0) return;
    if (inPool >= 0) this.slots.splice(inPool, 1);
    else this.demoted.splice(left, 1);
    for (const timer of slot.timers.splice(0)) clearTimeout(timer);
    void slot.worker.terminate();
    slot.job?.reject(reason);
    slot.job = undefined;
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
      for (const timer of slot.timers.splice(0)) clearTimeout(timer);
      slot.job?.reject(failure);
    }
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }
}
