/**
 * Worker threads, and the one protocol every Lodestone worker answers calls with (the disk worker,
 * the pools of worker-pool.ts, the index lanes). A worker says `{ ready, tid }` once it
 * can take calls; a call is `{ id, op, args }` and its reply `{ id, ok, value }` or `{ id, ok, error }`,
 * where a LodestoneError keeps its code, message and data across the thread boundary (any other
 * error keeps its message). A call may have a time limit: past it the worker is terminated, since
 * that is the one way to stop synchronous JavaScript or WebAssembly.
 */
import { existsSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { Worker, parentPort, type Transferable } from 'node:worker_threads';
import { LodestoneError, type ErrorCode } from '../errors.js';

/**
 * Starts a worker. Run from source (under tsx) a worker does not inherit the TypeScript loader,
 * so it starts from a two-line bootstrap that registers tsx and then imports the `.ts` entry, which
 * compiles its whole import graph again (about 0.4 s of a core a worker). `npm test` builds `dist/`
 * first and sets LODESTONE_WORKERS=dist: its workers start from the build of the same sources,
 * without the `--import tsx` they would otherwise inherit from the process's Node options (which
 * loads and registers tsx in every worker, for nothing: ~0.2 s of a core each).
 */
export function startWorker(entry: URL, workerData?: unknown): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(entry, { workerData });
  if (process.env.LODESTONE_WORKERS === 'dist') {
    const built = new URL(entry.href.replace(/\/src\/(?!.*\/src\/)/, '/dist/'));
    if (built.href !== entry.href && existsSync(built)) return startBuilt(built, workerData);
  }
  const source = entry.href.replace(/\.js$/, '.ts');
  const code = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); })`;
  return new Worker(code, { eval: true, workerData });
}

/** A worker from dist/, given the process's Node options without tsx; with a process-wide one among them (such as --max-old-space-size), which a worker cannot be given, it inherits them all as before. */
function startBuilt(built: URL, workerData: unknown): Worker {
  const execArgv = withoutTsx(process.execArgv);
  if (execArgv.length === process.execArgv.length) return new Worker(built, { workerData });
  try {
    return new Worker(built, { workerData, execArgv });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw error;
    return new Worker(built, { workerData });
  }
}

/** Node options without those that load tsx (`--import tsx`, `--require …/tsx/…`, `--loader=tsx`); the others (an inspector, a profiler) are kept. */
export function withoutTsx(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    const separate = /^(--import|--require|-r|--loader|--experimental-loader)$/.test(arg);
    const value = separate ? execArgv[i + 1] : /^--(?:import|require|loader|experimental-loader)=(.*)$/.exec(arg)?.[1];
    if (value !== undefined && /(^|[/\\])tsx([/\\]|$)/.test(value)) {
      if (separate) i++;
      continue;
    }
    kept.push(arg);
  }
  return kept;
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

/** Lowers the priority of the thread `tid` (a worker's, from its ready message). */
export function lowerPriorityOf(tid: number, niceness: number): void {
  try {
    setPriority(tid, niceness);
  } catch {
    // not allowed: run at the priority it has
  }
}

/** What a worker's calls are: each names its operation. */
export interface CallRequest {
  op: string;
}

type Ready = { ready: true; tid?: number };
type CallMessage = { id: number; op: string; args: Record<string, unknown> };
type Failure = { code?: ErrorCode; message: string; data?: Record<string, unknown> };
type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: Failure };

function failure(error: unknown): Failure {
  if (error instanceof LodestoneError) return { code: error.code, message: error.message, data: error.data };
  return { message: error instanceof Error ? error.message : String(error) };
}

function revived(failure: Failure): Error {
  return failure.code ? new LodestoneError(failure.code, failure.message, failure.data) : new Error(failure.message);
}

/** The worker side: says it is ready, then answers each call, in the order they come, with `handle`'s value or error. */
export function serveCalls<Request extends CallRequest>(handle: (request: Request) => unknown): void {
  const port = parentPort!;
  // the thread id lets a WorkerPool lower the priority of a worker that leaves it with a costly job
  port.postMessage({ ready: true, tid: threadId() } satisfies Ready);
  let chain: Promise<void> = Promise.resolve();
  port.on('message', ({ id, op, args }: CallMessage) => {
    chain = chain.then(async () => {
      let reply: Reply;
      try {
        reply = { id, ok: true, value: await handle({ ...args, op } as unknown as Request) };
      } catch (error) {
        reply = { id, ok: false, error: failure(error) };
      }
      port.postMessage(reply);
    });
  });
}

/** A call's time limit. */
export interface CallLimit {
  timeoutMs: number;
  /** The error the call fails with past it (by default WorkLimit). */
  overTime?: (timeoutMs: number) => Error;
}

function overLimit(ms: number): LodestoneError {
  return new LodestoneError('WorkLimit', `the request needed more than ${ms / 1000} s of work and was stopped`);
}

interface InHand {
  resolve: (value: never) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

export interface WorkerThreadEvents {
  /** Names the worker in the error its calls fail with if it dies ("index worker 0"). */
  name: string;
  /** The worker said it can take calls. */
  onReady?: () => void;
  /** The worker died, or a call ran past its limit and it was terminated; its calls in hand failed with `reason`. */
  onEnd: (reason: Error) => void;
}

/** How long stopping a worker waits for it to finish loading its modules. */
const LOAD_WAIT_MS = 10_000;

/**
 * One worker thread and the calls in hand to it. It ends once: when it dies, when a call runs past
 * its limit, or when its owner stops it; every call in hand then fails. An idle worker does not
 * keep the process alive.
 */
export class WorkerThread {
  /** The worker said it can take calls. */
  ready = false;
  /** Its thread id as the kernel knows it (Linux), from its ready message. */
  tid: number | undefined;
  private readonly worker: Worker;
  private readonly inHand = new Map<number, InHand>();
  private nextId = 1;
  private ended = false;
  /** Resolves once the worker said it is ready or has exited: until then it is loading modules. */
  private readonly loaded: Promise<void>;
  private markLoaded = () => {};

  constructor(entry: URL, workerData: unknown, private readonly events: WorkerThreadEvents) {
    this.loaded = new Promise((resolve) => (this.markLoaded = resolve));
    this.worker = startWorker(entry, workerData);
    this.worker.once('exit', () => this.markLoaded());
    this.worker.unref();
    this.worker.on('message', (message: Ready | Reply) => this.receive(message));
    this.worker.on('error', (error) => this.end(new Error(`${events.name} failed: ${error.message}`)));
    this.worker.on('exit', (code) => this.end(new Error(`${events.name} failed: it exited with code ${code}`)));
  }

  call<T>(request: CallRequest, transfer: readonly Transferable[] = [], limit?: CallLimit): Promise<T> {
    if (this.ended) return Promise.reject(new Error(`${this.events.name} has stopped`));
    const id = this.nextId++;
    const { op, ...args } = request;
    return new Promise<T>((resolve, reject) => {
      const call: InHand = { resolve: resolve as (value: never) => void, reject };
      if (limit) call.timer = setTimeout(() => this.end((limit.overTime ?? overLimit)(limit.timeoutMs)), limit.timeoutMs);
      if (this.inHand.size === 0) this.worker.ref();
      this.inHand.set(id, call);
      this.worker.postMessage({ id, op, args } satisfies CallMessage, transfer);
    });
  }

  /**
   * Terminates the worker; the calls in hand fail with `reason`. The owner is not told: it asked.
   * A worker still loading its modules is let finish first (at most LOAD_WAIT_MS): Node 20 aborts
   * the whole process when a worker is terminated in the middle of loading an ES module.
   */
  async stop(reason: Error): Promise<void> {
    if (!this.ended) {
      this.ended = true;
      for (const call of this.inHand.values()) {
        clearTimeout(call.timer);
        call.reject(reason);
      }
      this.inHand.clear();
    }
    if (!this.ready) await Promise.race([this.loaded, new Promise((resolve) => setTimeout(resolve, LOAD_WAIT_MS).unref())]);
    await this.worker.terminate();
  }

  private end(reason: Error): void {
    if (this.ended) return;
    void this.stop(reason);
    this.events.onEnd(reason);
  }

  private receive(message: Ready | Reply): void {
    if ('ready' in message) {
      this.ready = true;
      this.markLoaded();
      this.tid = message.tid;
      return this.events.onReady?.();
    }
    const call = this.inHand.get(message.id);
    if (!call) return;
    this.inHand.delete(message.id);
    clearTimeout(call.timer);
    if (this.inHand.size === 0) this.worker.unref();
    if (message.ok) call.resolve(message.value as never);
    else call.reject(revived(message.error));
  }
}

export interface WorkerCallsOptions {
  workerData?: unknown;
  /** Names the worker in the error its calls fail with if it dies (default "the worker"). */
  name?: string;
  /** Told when the worker ended (it died, or a call ran past its limit) and its calls in hand failed with `reason`. */
  onRestart?: (reason: Error) => void;
}

/**
 * Calls into one worker, started on first use (or by `start`): calls run in the worker one at a
 * time, in the order they were made. A worker that ends (it died, or a call ran past its limit) is
 * replaced at once if it had started, else by the next call: one that cannot start is not retried
 * in a loop.
 */
export class WorkerCalls<Request extends CallRequest> {
  private thread: WorkerThread | undefined;
  private closed = false;

  constructor(
    private readonly entry: URL,
    private readonly options: WorkerCallsOptions = {},
  ) {}

  call<T>(request: Request, transfer: readonly Transferable[] = [], limit?: CallLimit): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`${this.name} was closed`));
    return this.started().call<T>(request, transfer, limit);
  }

  /** Starts the worker now rather than on the first call. */
  start(): void {
    if (!this.closed) this.started();
  }

  private get name(): string {
    return this.options.name ?? 'the worker';
  }

  private started(): WorkerThread {
    if (this.thread) return this.thread;
    const thread: WorkerThread = new WorkerThread(this.entry, this.options.workerData, {
      name: this.name,
      onEnd: (reason) => {
        if (this.thread !== thread) return;
        this.thread = undefined;
        if (thread.ready) this.start();
        this.options.onRestart?.(reason);
      },
    });
    return (this.thread = thread);
  }

  /** Stops the worker; calls still in hand fail with `reason`, not left waiting. */
  async close(reason = new Error(`${this.name} was closed`)): Promise<void> {
    this.closed = true;
    const thread = this.thread;
    this.thread = undefined;
    await thread?.stop(reason);
  }
}
