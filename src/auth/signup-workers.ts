/**
 * The signup pool: signing a client certificate and deriving a PKCS#12 file's keys (10,000 rounds
 * of node-forge's SHA-1, a quarter of a second a signup) run in a worker, never on the thread that
 * answers requests, a few at a time: past `maxQueue` waiting, a signup is refused at once with 503
 * and Retry-After rather than left to wait. Built by the composition root and passed in.
 */
import { WorkerPool } from '../util/worker-pool.js';
import type { Pkcs12Request, RsaPublicKey } from './certificates.js';

export type SignupWork = { op: 'pkcs12'; request: Pkcs12Request };

export interface SignupWorkersOptions {
  /** Signups made at once (default 1: a signup takes one core for a quarter of a second). */
  workers?: number;
  /** Signups that may wait for a worker (default 8); more are refused with 503. */
  maxQueue?: number;
  /** Longest one signup may take (default 30 s). */
  deadlineMs?: number;
}

export class SignupWorkers {
  private readonly pool: WorkerPool<SignupWork>;

  constructor(options: SignupWorkersOptions = {}) {
    this.pool = new WorkerPool<SignupWork>(new URL('./signup-worker.js', import.meta.url), {
      size: options.workers ?? 1,
      deadlineMs: options.deadlineMs ?? 30_000,
      maxQueue: options.maxQueue ?? 8,
    });
  }

  /** The key, certificate and PKCS#12 file of a signup (createSignup's `issue`); Busy (503) when too many wait. */
  issue(request: Pkcs12Request): Promise<{ pkcs12: Uint8Array; key: RsaPublicKey }> {
    return this.pool.call({ op: 'pkcs12', request });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
