/**
 * One lane of a dataspace's index: an index worker holding its own replica of the index, running
 * one call at a time. A call given a time limit that runs past it stops the lane: the worker is
 * terminated, an empty one takes its place, and the call fails with QueryTimeout; a worker that
 * fails or exits is replaced the same way. The lane knows the commit its replica reflects; after a
 * replacement it reflects nothing until the Index loads it again.
 */
import type { Worker } from 'node:worker_threads';
import { LodestoneError } from '../errors.js';
import { startWorker } from '../util/worker.js';
import type { IndexConfig } from './index-core.js';
import type { IndexRequest, IndexResponse } from './index-worker.js';

export type LaneOp = IndexRequest['op'];

interface Call {
  id: number;
  op: LaneOp;
  commit?: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

export class Lane {
  /** The commit the replica reflects, once `loaded`. */
  current: string | undefined;
  /** Whether the replica has been synced since its worker started (a fresh worker holds nothing). */
  loaded = false;
  /** Workers replaced so far: a call made before a replacement failed because of it. */
  replacements = 0;
  private worker: Worker;
  private call: Call | undefined;
  private nextId = 1;
  private closed = false;

  constructor(
    readonly number: number,
    private readonly config: IndexConfig,
    private readonly onReplaced: (reason: Error) => void,
  ) {
    this.worker = this.spawn();
  }

  private spawn(): Worker {
    const worker = startWorker(new URL('./index-worker.js', import.meta.url), this.config);
    worker.on('message', (response: IndexResponse) => {
      const call = this.call;
      if (worker !== this.worker || call?.id !== response.id) return;
      this.settle();
      if (!response.ok) return call.reject(new Error(response.message));
      if (call.op === 'sync') [this.current, this.loaded] = [call.commit, true];
      if (call.op === 'reset') [this.current, this.loaded] = [undefined, false];
      call.resolve(response.value);
    });
    const failed = (error: Error) => {
      if (worker === this.worker && !this.closed) this.replace(new Error(`index worker ${this.number} failed: ${error.message}`));
    };
    worker.on('error', failed);
    worker.on('exit', (code) => failed(new Error(`it exited with code ${code}`)));
    return worker;
  }

  private settle(): void {
    clearTimeout(this.call?.timer);
    this.call = undefined;
  }

  /** Terminates the worker and starts an empty one; the running call fails with `reason`. */
  private replace(reason: Error): void {
    const call = this.call;
    this.settle();
    const old = this.worker;
    this.worker = this.spawn();
    [this.current, this.loaded] = [undefined, false];
    this.replacements++;
    void old.terminate();
    call?.reject(reason);
    this.onReplaced(reason);
  }

  /** Runs one request in the worker (the caller makes one call at a time); past `timeoutMs` the lane is stopped. */
  run<T>(op: LaneOp, fields: Record<string, unknown> = {}, timeoutMs?: number): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the index is closed'));
    if (this.call) return Promise.reject(new Error(`index lane ${this.number} is busy`));
    return new Promise<T>((resolve, reject) => {
      const call: Call = { id: this.nextId++, op, commit: fields.commit as string | undefined, resolve: resolve as (value: unknown) => void, reject };
      this.call = call;
      this.worker.postMessage({ id: call.id, op, ...fields });
      if (timeoutMs === undefined) return;
      call.timer = setTimeout(() => {
        if (this.call === call) this.replace(new LodestoneError('QueryTimeout', `the query ran past its ${timeoutMs} ms limit and was stopped`));
      }, timeoutMs);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const call = this.call;
    this.settle();
    call?.reject(new Error('the index is closed'));
    await this.worker.terminate();
  }
}
