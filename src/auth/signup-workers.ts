/**
 * The signup pool: signing a client certificate and deriving a PKCS#12 file's keys (10,000 rounds
 * of node-forge's SHA-1, a quarter of a second a signup) run in a worker, never on the thread that
 * answers requests, a few at a time: past `maxQueue` waiting, a signup is refused at once with 503
 * and Retry-After rather than left to wait. Its pool is the thread map's `signups` (threads.ts: one
 * worker, 8 waiting, 30 s), built by the composition root and passed in.
 */
import type { WorkerPool } from '../util/worker-pool.js';
import type { Pkcs12Request, RsaPublicKey } from './certificates.js';

export type SignupWork = { op: 'pkcs12'; request: Pkcs12Request };

export class SignupWorkers {
  constructor(private readonly pool: WorkerPool<SignupWork>) {}

  /** The key, certificate and PKCS#12 file of a signup (createSignup's `issue`); Busy (503) when too many wait. */
  issue(request: Pkcs12Request): Promise<{ pkcs12: Uint8Array; key: RsaPublicKey }> {
    return this.pool.call({ op: 'pkcs12', request });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
