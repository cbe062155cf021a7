/**
 * The main thread's handle on a dataspace's index, which lives in a worker thread so that index
 * builds and SPARQL queries never block HTTP. Requests go to the worker one at a time; a query
 * that runs past its timeout is stopped by terminating the worker, and a fresh worker rebuilds
 * the index from the commit the old one reflected. `syncTo` is the index's one input; concurrent
 * calls coalesce, going straight to the newest target.
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../util/worker.js';
import { LodestoneError } from '../errors.js';
import type { FileDiff } from '../store/trees.js';
import type { IndexConfig, QueryRequest, SyncDelta, SyncReport } from './index-core.js';
import type { IndexRequest, IndexResponse } from './index-worker.js';

type Op = IndexRequest['op'];

export interface IndexOptions extends IndexConfig {
  /** Called with each file at a synced commit that failed to parse. */
  onInvalid?: (path: string, message: string) => void;
  log?: (line: string) => void;
  /**
   * A blob's bytes if the main thread holds them: a sync to a commit whose changes were recorded
   * (recordHead) then carries the changed files, and the worker reads nothing from the packs.
   */
  cachedBlob?: (id: string) => Uint8Array | undefined;
}

/** The changes recorded since the last sync was sent, as paths to their new blob ids (null: deleted). */
interface Recorded {
  from: string | undefined;
  to: string;
  tree: string;
  files: Map<string, string | null>;
}

interface Job {
  op: Op;
  fields: Record<string, unknown>;
  timeoutMs?: number;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export class Index {
  private worker: Worker;
  private readonly config: IndexConfig;
  private readonly queue: Job[] = [];
  private running: Job | undefined;
  private nextId = 1;
  private target: string | undefined;
  private current: string | undefined;
  private syncing: Promise<void> | undefined;
  private closed = false;
  private readonly onInvalid: IndexOptions['onInvalid'];
  private readonly log: (line: string) => void;
  private readonly cachedBlob: IndexOptions['cachedBlob'];
  private recorded: Recorded | undefined;

  constructor(options: IndexOptions) {
    const { onInvalid, log, cachedBlob, ...config } = options;
    this.config = config;
    this.onInvalid = onInvalid;
    this.cachedBlob = cachedBlob;
    this.log = log ?? ((line) => console.error(line));
    this.worker = this.spawn();
  }

  private spawn(): Worker {
    const worker = startWorker(new URL('./index-worker.js', import.meta.url), this.config);
    worker.on('message', (response: IndexResponse) => {
      const job = this.running;
      if (!job || worker !== this.worker) return;
      this.running = undefined;
      if (response.ok) job.resolve(response.value);
      else job.reject(new Error(response.message));
      this.pump();
    });
    worker.on('error', (error) => {
      if (worker !== this.worker) return;
      this.log(`index worker failed: ${error.message}; starting a new one`);
      this.restart(error);
    });
    return worker;
  }

  /** Replaces the worker; the running job fails with `reason`, queued jobs run on the new one. */
  private restart(reason: Error): void {
    const job = this.running;
    this.running = undefined;
    const old = this.worker;
    this.worker = this.spawn();
    void old.terminate();
    job?.reject(reason);
    const reflected = this.current;
    this.current = undefined; // the target stays: callers waiting in syncTo still want it
    if (reflected !== undefined) {
      // the new worker starts empty: bring it back to where the old one was, ahead of the queue
      this.queue.unshift({ op: 'sync', fields: { commit: reflected }, resolve: () => (this.current = reflected), reject: () => undefined });
    }
    this.pump();
  }

  private pump(): void {
    if (this.running || this.closed) return;
    const job = this.queue.shift();
    if (!job) return;
    this.running = job;
    const worker = this.worker;
    worker.postMessage({ id: this.nextId++, op: job.op, ...job.fields });
    if (job.timeoutMs !== undefined) {
      const timer = setTimeout(() => {
        if (this.running === job && this.worker === worker) {
          this.restart(new LodestoneError('QueryTimeout', `the query ran past its ${job.timeoutMs} ms limit and was stopped`));
        }
      }, job.timeoutMs);
      const settle = () => clearTimeout(timer);
      const { resolve, reject } = job;
      job.resolve = (v) => (settle(), resolve(v));
      job.reject = (e) => (settle(), reject(e));
    }
  }

  private call<T>(op: Op, fields: Record<string, unknown> = {}, timeoutMs?: number): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the index is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ op, fields, timeoutMs, resolve: resolve as (v: unknown) => void, reject });
      this.pump();
    });
  }

  /** The commit the index reflects. */
  get indexedCommit(): string | undefined {
    return this.current;
  }

  /**
   * Records a new HEAD of the store (its tree and the files that changed), for the next sync to
   * carry; returns how many files the recorded changes now hold.
   */
  recordHead(before: string | undefined, after: string, tree: string, files: readonly FileDiff[]): number {
    const recorded = this.recorded && this.recorded.to === before ? this.recorded : { from: before, to: after, tree, files: new Map<string, string | null>() };
    recorded.to = after;
    recorded.tree = tree;
    for (const file of files) recorded.files.set(file.path, file.after ?? null);
    this.recorded = recorded;
    return recorded.files.size;
  }

  /** The recorded changes up to `commit` with their bytes, or undefined when they are not all in hand. */
  private deltaTo(commit: string | undefined): SyncDelta | undefined {
    const recorded = this.recorded;
    this.recorded = undefined;
    if (!recorded || recorded.to !== commit || !this.cachedBlob) return undefined;
    const files: SyncDelta['files'] = [];
    for (const [path, id] of recorded.files) {
      const bytes = id === null ? null : this.cachedBlob(id);
      if (bytes === undefined) return undefined;
      files.push({ path, bytes });
    }
    return { from: recorded.from, tree: recorded.tree, files };
  }

  /** Brings the index to `commit`; resolves once it reflects `commit` or a later target. */
  async syncTo(commit: string | undefined): Promise<void> {
    this.target = commit;
    while (this.current !== this.target) {
      if (!this.syncing) {
        const goal = this.target;
        this.syncing = this.call<SyncReport>('sync', { commit: goal, delta: this.deltaTo(goal) })
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

  /** Runs a SPARQL query off the main thread; throws QueryTimeout past `timeoutMs`. */
  query(request: QueryRequest, timeoutMs: number): Promise<string | boolean> {
    return this.call<string | boolean>('query', { request }, timeoutMs);
  }

  /** Throws the index away and builds it again from `commit` (`lodestone reindex`). */
  async rebuild(commit: string | undefined): Promise<void> {
    await this.syncing;
    await this.call('reset');
    this.current = undefined;
    await this.syncTo(commit);
  }

  dump(): Promise<string> {
    return this.call<string>('dump');
  }

  size(): Promise<number> {
    return this.call<number>('size');
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('the index is closed'));
    await this.worker.terminate();
  }
}
