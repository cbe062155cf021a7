/** A write of one document as the document service takes it, and what it answers. */
import type { WriteConditions } from './preconditions.js';

export type WriteMethod = 'PUT' | 'POST' | 'PATCH' | 'DELETE';

export interface WriteRequest {
  method: WriteMethod;
  /** Canonical relative path of the document (`a/b/`, `` for the root). */
  relativePath: string;
  /** The writing agent's WebID, or undefined for anonymous. */
  agent: string | undefined;
  /** PUT and POST: the request body and its media type. */
  body?: { text: string; mediaType: string };
  /** PATCH: the SPARQL update. */
  update?: string;
  /** Whether the agent may read the document (default: yes): compose.ts `readable`. */
  readable?: boolean;
  /** The request's preconditions, judged under the lock against the current version; none: a write of the server's own (bootstrap, packages). */
  conditions?: WriteConditions;
  /** Replace the graph with the body whatever the method (restoring an earlier version). */
  replace?: boolean;
  /** A second paragraph for the commit message (the first line is always `<METHOD> <url>`). */
  note?: string;
  /** The most bytes the document's new canonical N-Triples may take (a bound of the writer's, past the body limit's); 413 past it. */
  maxBytes?: number;
  /** A branch to write to instead of the dataspace's own (store/branches.ts), its name as the client gave it. */
  branch?: string;
  /** Other files committed with the document (an upload's blob, uploads.ts), their blob ids hashed by the caller. */
  attach?: { path: string; bytes: Buffer; blobId: string }[];
}

export interface WriteResult {
  status: 'created' | 'replaced' | 'updated' | 'deleted';
  /** The new blob id; undefined after a delete. */
  blobId: string | undefined;
  commit: string | undefined;
}
