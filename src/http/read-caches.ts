/**
 * What the read routes keep between requests, built once by the composition root and passed in
 * (the app's `Served`, the read fast path): mementos found (immutable: their blob and time, for the
 * fast path), TimeMaps and blame serialised, SPARQL answers and parsed query shapes. Each is bounded.
 */
import type { QueryShape } from '../rdf/sparql-text.js';
import { ByteCache } from '../util/byte-cache.js';

/** A memento found: its blob and commit time. */
export interface FoundMemento {
  blob: string;
  time: number;
}

/** A SPARQL answer kept (sparql.ts): its body, its media type, and when it was computed. */
export interface CachedAnswer {
  body: string;
  type: string;
  at: number;
}

const SPARQL_BYTES = 32 * 1024 * 1024;
const MEMENTOS = 100_000;

export class ReadCaches {
  private readonly mementos = new Map<string, FoundMemento>();
  /** A TimeMap changes only with a new version of its document: serialised once per version and format (a thousand versions are ~130 KB). */
  readonly timemaps = new ByteCache<Buffer>(16 * 1024 * 1024, (body) => body.length);
  /** Blame of a document changes only with a new version of it: written once per version, view and format. */
  readonly blames = new ByteCache<Buffer>(32 * 1024 * 1024, (body) => body.length);
  /** SPARQL answers by dataspace, agent's readable graphs, query and format. */
  readonly answers = new ByteCache<CachedAnswer>(SPARQL_BYTES, (entry) => entry.body.length, SPARQL_BYTES / 8);
  /** Parsed query shapes by base and query text; cleared when full. */
  readonly shapes = new Map<string, QueryShape>();

  /** The blob and time of a memento served before, if any. */
  memento(documentUrl: string, sha: string): FoundMemento | undefined {
    return this.mementos.get(`${documentUrl}?version=${sha}`);
  }

  /** Keeps a memento found (a memento never changes), for the read fast path. */
  rememberMemento(documentUrl: string, sha: string, found: FoundMemento): void {
    if (this.mementos.size >= MEMENTOS) this.mementos.clear();
    this.mementos.set(`${documentUrl}?version=${sha}`, { blob: found.blob, time: found.time });
  }
}
