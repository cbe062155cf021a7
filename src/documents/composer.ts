/**
 * The main thread's handle on the work a request's content decides the cost of, run in worker
 * pools with deadlines (util/worker-pool.ts), one pool per kind of work so that costly
 * requests of one kind hold up no other kind: PUT and POST bodies (cost bounded by the body
 * limit), PATCH updates (their WHERE runs on the document, up to the deadline), query shapes
 * (sparqljs takes seconds on a large query), and deep labelling of alike blank nodes. An ordinary
 * write waits for none of the others, and a costly job holds its pool for a second at most: then
 * its worker leaves the pool to finish it (up to the deadline) and a fresh one takes its place.
 * Responses of other servers that the proxy re-serialises (cost bounded by the proxy's size cap)
 * have a pool of their own too.
 */
import { LodestoneError } from '../errors.js';
import type { QueryShape } from '../rdf/sparql-text.js';
import type { Translation } from '../rdf/translate.js';
import { WorkerPool } from '../util/worker-pool.js';
import type { ComposeInput } from './compose.js';

export type WorkRequest =
  | { op: 'compose'; input: ComposeInput }
  | { op: 'label'; ntriples: string }
  | { op: 'queryShape'; query: string; base: string }
  | { op: 'translate'; job: Translation }
  | { op: 'update'; graph: string; update: string; base: string };

export interface ComposerOptions {
  /** Workers composing PUT and POST bodies (default 2). */
  workers?: number;
  /** Longest a write may take to compose, or a query to parse (default 10 s). */
  composeMs?: number;
  /** Longest deep labelling of one graph may take (default 5 s). */
  labelMs?: number;
  log?: (line: string) => void;
}

/** How long one costly job may hold its pool before its worker leaves the pool to finish it. */
const DEMOTE_AFTER_MS = 1_000;

export class Composer {
  /** PUT and POST: their cost is bounded by the body limit. */
  private readonly writes: WorkerPool<WorkRequest>;
  /** PATCH: its WHERE runs on the document, for up to the deadline. */
  private readonly updates: WorkerPool<WorkRequest>;
  /** Query shapes: sparqljs takes seconds on a large query. */
  private readonly queries: WorkerPool<WorkRequest>;
  /** Deep labelling of alike blank nodes (a K8 takes 0.1 s; a 5,000-node cycle is refused after a second or more). */
  private readonly labelling: WorkerPool<WorkRequest>;
  /** The proxy's translations of other servers' responses (bounded by its 2 MiB cap). */
  private readonly remote: WorkerPool<WorkRequest>;
  private readonly log: (line: string) => void;

  constructor(options: ComposerOptions = {}) {
    const entry = new URL('./compose-worker.js', import.meta.url);
    const composeMs = options.composeMs ?? 10_000;
    const labelMs = options.labelMs ?? 5_000;
    this.log = options.log ?? ((line) => console.error(line));
    const pool = (deadlineMs: number, maxDemoted: number, maxQueue: number, overDeadline?: (ms: number) => Error) =>
      new WorkerPool<WorkRequest>(entry, { size: options.workers ?? 2, deadlineMs, demoteAfterMs: DEMOTE_AFTER_MS, maxDemoted, maxQueue, overDeadline });
    this.writes = pool(composeMs, 2, 256);
    this.updates = pool(composeMs, 2, 64);
    this.queries = pool(composeMs, 2, 64);
    this.remote = pool(composeMs, 2, 64);
    this.labelling = pool(labelMs, 4, 16, (ms) => new LodestoneError('CanonicalizationLimit', `this graph's blank nodes are too alike to be told apart within ${ms / 1000} s: give these blank nodes IRIs, or properties that tell them apart`));
    this.writes.start(); // ready before the first write; the others start on first use
  }

  /** A write's new canonical bytes (compose.ts), with deep labelling where it is needed. */
  async compose(input: ComposeInput): Promise<Buffer> {
    const composed = await (input.method === 'PATCH' ? this.updates : this.writes).call<Uint8Array | { deep: string }>({ op: 'compose', input }).catch((error: unknown) => {
      if (error instanceof LodestoneError && (error.code === 'TooManyBlankNodes' || error.code === 'WorkLimit')) this.log(`warning: ${input.method} ${input.url} refused: ${error.message}`);
      throw error;
    });
    if (composed instanceof Uint8Array) return Buffer.from(composed.buffer, composed.byteOffset, composed.byteLength);
    return this.label(composed.deep, input.url);
  }

  /** Canonical bytes of N-Triples whose blank nodes need deep labelling; refusals are logged. */
  async label(ntriples: string, what: string): Promise<Buffer> {
    try {
      const bytes = await this.labelling.call<Uint8Array>({ op: 'label', ntriples });
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (error) {
      if (error instanceof LodestoneError) this.log(`warning: canonical labelling refused for ${what} (${ntriples.length} bytes of N-Triples): ${error.message}`);
      throw error;
    }
  }

  /** A PATCH-like update (SPEC §4.2) of a graph that is no document (a dataspace's settings): the resulting N-Triples. */
  update(graph: string, update: string, base: string): Promise<string> {
    return this.updates.call<string>({ op: 'update', graph, update, base });
  }

  queryShape(query: string, base: string): Promise<QueryShape> {
    return this.queries.call<QueryShape>({ op: 'queryShape', query, base });
  }

  /** A response of another server in the format the proxy's client asked for (rdf/translate.ts). */
  translate(job: Translation): Promise<string> {
    return this.remote.call<string>({ op: 'translate', job });
  }

  async close(): Promise<void> {
    await Promise.all([this.writes, this.updates, this.queries, this.labelling, this.remote].map((pool) => pool.close()));
  }
}
