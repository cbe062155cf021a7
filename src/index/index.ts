/**
 * The main thread's handle on a dataspace's index, which lives in a worker thread. `syncTo` is the
 * index's one input; calls are queued, and a sync to a commit the index already reflects (or
 * passed on the way to a later one) costs nothing.
 */
import { Worker } from 'node:worker_threads';
import type { IndexConfig, SyncReport } from './index-core.js';
import type { IndexRequest, IndexResponse } from './index-worker.js';

type Op = IndexRequest extends infer R ? (R extends { op: infer O } ? O : never) : never;

export interface IndexOptions extends IndexConfig {
  /** Called with each file at a synced commit that failed to parse. */
  onInvalid?: (path: string, message: string) => void;
}

/**
 * Starts a worker. Run from source (under tsx) a worker does not inherit the TypeScript loader,
 * so it starts from a two-line bootstrap that registers tsx and then imports the `.ts` entry.
 */
export function startWorker(entry: URL, workerData: unknown): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(entry, { workerData });
  const source = entry.href.replace(/\.js$/, '.ts');
  const code = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); })`;
  return new Worker(code, { eval: true, workerData });
}

export class Index {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private target: string | undefined;
  private current: string | undefined;
  private syncing: Promise<void> | undefined;
  private readonly onInvalid: IndexOptions['onInvalid'];

  constructor(options: IndexOptions) {
    const { onInvalid, ...config } = options;
    this.onInvalid = onInvalid;
    this.worker = startWorker(new URL('./index-worker.js', import.meta.url), config);
    this.worker.on('message', (response: IndexResponse) => {
      const waiter = this.pending.get(response.id);
      if (!waiter) return;
      this.pending.delete(response.id);
      if (response.ok) waiter.resolve(response.value);
      else waiter.reject(new Error(response.message));
    });
    this.worker.on('error', (error) => {
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
    });
  }

  private call<T>(op: Op, fields: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ id, op, ...fields });
    });
  }

  /** The commit the index reflects. */
  get indexedCommit(): string | undefined {
    return this.current;
  }

  /**
   * Brings the index to `commit`. Concurrent calls coalesce: the index goes straight to the
   * newest target, and every caller resolves once it is there.
   */
  async syncTo(commit: string | undefined): Promise<void> {
    this.target = commit;
    while (this.current !== this.target) {
      if (!this.syncing) {
        const goal = this.target;
        this.syncing = this.call<SyncReport>('sync', { commit: goal })
          .then((report) => {
            this.current = goal;
            for (const bad of report.invalid) this.onInvalid?.(bad.path, bad.message);
          })
          .finally(() => {
            this.syncing = undefined;
          });
      }
      await this.syncing;
    }
  }

  /** Throws the index away and builds it again from `commit` (`lodestone reindex`). */
  async rebuild(commit: string | undefined): Promise<void> {
    await this.syncing;
    await this.call('reset');
    this.current = undefined;
    this.target = undefined;
    if (commit !== undefined) await this.syncTo(commit);
  }

  dump(): Promise<string> {
    return this.call<string>('dump');
  }

  size(): Promise<number> {
    return this.call<number>('size');
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
