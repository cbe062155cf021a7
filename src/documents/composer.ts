/**
 * The main thread's handle on the composer worker: `compose` sends a ComposeInput and resolves to
 * the canonical bytes, or rejects with the same LodestoneError the function threw. A crashed
 * worker fails what it had in hand and is replaced.
 */
import type { Worker } from 'node:worker_threads';
import { LodestoneError, type ErrorCode } from '../errors.js';
import { startWorker } from '../util/worker.js';
import type { ComposeInput } from './compose.js';
import type { ComposeResponse } from './compose-worker.js';

export class Composer {
  private worker: Worker;
  private readonly pending = new Map<number, { resolve: (bytes: Buffer) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private closed = false;

  constructor() {
    this.worker = this.spawn();
  }

  private spawn(): Worker {
    const worker = startWorker(new URL('./compose-worker.js', import.meta.url));
    worker.unref();
    worker.on('message', (response: ComposeResponse) => {
      const waiter = this.pending.get(response.id);
      if (!waiter) return;
      this.pending.delete(response.id);
      if (response.ok) waiter.resolve(Buffer.from(response.bytes.buffer, response.bytes.byteOffset, response.bytes.byteLength));
      else if (response.code) waiter.reject(new LodestoneError(response.code as ErrorCode, response.message, response.data));
      else waiter.reject(new Error(response.message));
    });
    worker.on('error', (error) => {
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
      if (!this.closed) this.worker = this.spawn();
    });
    return worker;
  }

  compose(input: ComposeInput): Promise<Buffer> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, input });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.worker.terminate();
  }
}
