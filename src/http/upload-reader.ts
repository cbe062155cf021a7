/**
 * The upload handler's handle on the thread map's `uploads` pool (upload-worker.ts): a body sent to
 * `uploads/` is read apart there, off the thread that answers requests: a form's one file taken out
 * (multipart/form-data), the bytes checked against their media type, and hashed (their SHA-1, which
 * names the file, and their git blob id). The composition root builds the pool and passes this in.
 */
import type { WorkerPool } from '../util/worker-pool.js';

/** A call of upload-worker.ts: the body, its Content-Type as sent, and the largest file it may hold. */
export type UploadWork = { op: 'read'; body: Uint8Array; contentType: string; limit: number };

/** A file as the worker read it. */
export interface ReadFile {
  bytes: Uint8Array;
  mediaType: string;
  /** The name a form gave it. */
  fileName?: string;
  /** A form's `title` field. */
  title?: string;
  sha1: string;
  blobId: string;
}

export class UploadReader {
  constructor(private readonly pool: WorkerPool<UploadWork>) {}

  /** The file `body` holds, or the 4xx that says why it holds none (the body is copied to the worker). */
  read(body: Uint8Array, contentType: string, limit: number): Promise<ReadFile> {
    return this.pool.call<ReadFile>({ op: 'read', body, contentType, limit });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
