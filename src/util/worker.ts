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
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, niceness);
  } catch {
    // not Linux, or not allowed: run at the normal priority
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
