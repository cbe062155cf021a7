/**
 * The main thread's handle on the work a request's content decides the cost of, run in worker
 * pools with deadlines (util/worker.ts WorkerPool), one pool per kind of work so that costly
 * requests of one kind hold up no other kind: PUT and POST bodies (cost bounded by the body
 * limit), PATCH updates (their WHERE runs on the document, up to the deadline), query shapes
 * (sparqljs takes seconds on a large query), and deep labelling of alike blank nodes. An ordinary
 * write waits for none of the last three.
 */
import { isLodestoneError, LodestoneError } from '../errors.js';
import type { QueryShape } from '../rdf/sparql-text.js';
import { WorkerPool } from '../util/worker.js';
import type { ComposeInput } from './compose.js';

/** The symmetric-labelling work a graph gets in the quick pool (a K8 needs a few thousand units; a 5,000-node cycle spends it in a fraction of a second). */
const QUICK_WORK = 100_000;

export type WorkRequest = { op: 'compose'; input: ComposeInput } | { op: 'label'; ntriples: string; symmetricWork?: number } | { op: 'queryShape'; query: string; base: string };

export interface ComposerOptions {
  /** Workers composing PUT and POST bodies, and as many for PATCH updates (default 2 each). */
  workers?: number;
  /** Longest a write may take to compose, or a query to parse (default 10 s). */
  composeMs?: number;
  /** Longest deep labelling of one graph may take (default 5 s). */
  labelMs?: number;
  log?: (line: string) => void;
}

export class Composer {
  private readonly writes: WorkerPool<WorkRequest>;
  private readonly updates: WorkerPool<WorkRequest>;
  private readonly queries: WorkerPool<WorkRequest>;
  /** Deep labelling with a small budget: what most alike blank nodes need (a K8 takes 0.2 s). */
  private readonly quickLabelling: WorkerPool<WorkRequest>;
  /** Deep labelling with the whole budget, for graphs the quick pool gave up on. */
  private readonly labelling: WorkerPool<WorkRequest>;
  private readonly log: (line: string) => void;

  constructor(options: ComposerOptions = {}) {
    const entry = new URL('./compose-worker.js', import.meta.url);
    const composeMs = options.composeMs ?? 10_000;
    const labelMs = options.labelMs ?? 5_000;
    this.log = options.log ?? ((line) => console.error(line));
    const size = options.workers ?? 2;
    this.writes = new WorkerPool(entry, { size, deadlineMs: composeMs, maxQueue: 256 });
    this.updates = new WorkerPool(entry, { size, deadlineMs: composeMs, maxQueue: 64 });
    this.queries = new WorkerPool(entry, { size: 1, deadlineMs: composeMs, maxQueue: 64 });
    this.quickLabelling = new WorkerPool(entry, { size: 1, deadlineMs: 1_000, maxQueue: 32 });
    this.labelling = new WorkerPool(entry, {
      size: 1,
      deadlineMs: labelMs,
      maxQueue: 8,
      overDeadline: (ms) =>
        new LodestoneError('CanonicalizationLimit', `this graph's blank nodes are too alike to be told apart within ${ms / 1000} s: give these blank nodes IRIs, or properties that tell them apart`),
    });
    this.writes.start(); // ready before the first write; the others start on first use
  }

  /** A write's new canonical bytes (compose.ts), with deep labelling where it is needed. */
  async compose(input: ComposeInput): Promise<Buffer> {
    const pool = input.method === 'PATCH' ? this.updates : this.writes;
    const composed = await pool.call<Uint8Array | { deep: string }>({ op: 'compose', input }).catch((error: unknown) => {
      if (error instanceof LodestoneError && (error.code === 'TooManyBlankNodes' || error.code === 'WorkLimit')) this.log(`warning: ${input.method} ${input.url} refused: ${error.message}`);
      throw error;
    });
    if (composed instanceof Uint8Array) return Buffer.from(composed.buffer, composed.byteOffset, composed.byteLength);
    return this.label(composed.deep, input.url);
  }

  /**
   * Canonical bytes of N-Triples whose blank nodes need deep labelling; refusals are logged. Each
   * graph is tried first with a small budget and a 1 s deadline, and only a graph that needs more
   * waits for the pool with the whole budget: costly graphs queue behind each other there, not in
   * front of ordinary ones.
   */
  async label(ntriples: string, what: string): Promise<Buffer> {
    const bytes = (value: Uint8Array) => Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    try {
      return bytes(await this.quickLabelling.call<Uint8Array>({ op: 'label', ntriples, symmetricWork: QUICK_WORK }));
    } catch (error) {
      if (!isLodestoneError(error, 'CanonicalizationLimit') && !isLodestoneError(error, 'WorkLimit')) throw error;
    }
    try {
      return bytes(await this.labelling.call<Uint8Array>({ op: 'label', ntriples }));
    } catch (error) {
      if (error instanceof LodestoneError) this.log(`warning: canonical labelling refused for ${what} (${ntriples.length} bytes of N-Triples): ${error.message}`);
      throw error;
    }
  }

  queryShape(query: string, base: string): Promise<QueryShape> {
    return this.queries.call<QueryShape>({ op: 'queryShape', query, base });
  }

  async close(): Promise<void> {
    await Promise.all([this.writes, this.updates, this.queries, this.quickLabelling, this.labelling].map((pool) => pool.close()));
  }
}
