/**
 * The main thread's handle on the work a request's content decides the cost of, run in worker
 * pools with deadlines (util/worker.ts WorkerPool): composing writes and reading query shapes in
 * one pool, labelling alike blank nodes deeply in another. A write whose blank nodes need deep
 * labelling waits only for the labelling pool, so hostile graphs there hold up no ordinary write.
 */
import { LodestoneError } from '../errors.js';
import type { QueryShape } from '../rdf/sparql-text.js';
import { WorkerPool } from '../util/worker.js';
import type { ComposeInput } from './compose.js';

export type WorkRequest = { op: 'compose'; input: ComposeInput } | { op: 'label'; ntriples: string } | { op: 'queryShape'; query: string; base: string };

export interface ComposerOptions {
  /** Workers composing writes and parsing queries (default 2). */
  workers?: number;
  /** Longest a write may take to compose, or a query to parse (default 10 s). */
  composeMs?: number;
  /** Longest deep labelling of one graph may take (default 5 s). */
  labelMs?: number;
  log?: (line: string) => void;
}

export class Composer {
  private readonly work: WorkerPool<WorkRequest>;
  private readonly labelling: WorkerPool<WorkRequest>;
  private readonly log: (line: string) => void;

  constructor(options: ComposerOptions = {}) {
    const entry = new URL('./compose-worker.js', import.meta.url);
    const composeMs = options.composeMs ?? 10_000;
    const labelMs = options.labelMs ?? 5_000;
    this.log = options.log ?? ((line) => console.error(line));
    this.work = new WorkerPool(entry, { size: options.workers ?? 2, deadlineMs: composeMs, maxQueue: 256 });
    this.labelling = new WorkerPool(entry, {
      size: 1,
      deadlineMs: labelMs,
      maxQueue: 8,
      overDeadline: (ms) =>
        new LodestoneError('CanonicalizationLimit', `this graph's blank nodes are too alike to be told apart within ${ms / 1000} s: give these blank nodes IRIs, or properties that tell them apart`),
    });
    this.work.start(); // ready before the first write
  }

  /** A write's new canonical bytes (compose.ts), with deep labelling where it is needed. */
  async compose(input: ComposeInput): Promise<Buffer> {
    const composed = await this.work.call<Uint8Array | { deep: string }>({ op: 'compose', input }).catch((error: unknown) => {
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

  queryShape(query: string, base: string): Promise<QueryShape> {
    return this.work.call<QueryShape>({ op: 'queryShape', query, base });
  }

  async close(): Promise<void> {
    await Promise.all([this.work.close(), this.labelling.close()]);
  }
}
