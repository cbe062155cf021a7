/**
 * The document service's handle on the RDF work a write's content decides the cost of, run in the
 * pools of compose-worker.ts that the thread map plans (threads.ts: sizes, deadlines, queues), one
 * pool per kind of work so that costly writes of one kind hold up no other kind: PUT and POST
 * bodies, PATCH updates, and deep labelling of alike blank nodes (of writes and of files people
 * edit). An ordinary write waits for none of the others. The composition root builds the pools and
 * passes them in; the other work off the main thread has its own handle where it belongs (threads.ts
 * names each pool's caller).
 */
import { LodestoneError } from '../errors.js';
import type { WorkerPool } from '../util/worker-pool.js';
import type { ComposeInput } from './compose.js';

/** A call of compose-worker.ts. */
export type WorkRequest = { op: 'compose'; input: ComposeInput } | { op: 'label'; ntriples: string };

/** The composer's pools, built by the composition root from the thread map (threads.ts). */
export interface ComposerPools {
  /** PUT and POST: their cost is bounded by the body limit. */
  writes: WorkerPool<WorkRequest>;
  /** PATCH: its WHERE runs on the document, for up to the deadline. */
  updates: WorkerPool<WorkRequest>;
  /** Deep labelling of alike blank nodes (a K8 takes 0.1 s; a 5,000-node cycle is refused after a second or more). */
  labelling: WorkerPool<WorkRequest>;
}

export class Composer {
  constructor(
    private readonly pools: ComposerPools,
    private readonly log: (line: string) => void = (line) => console.error(line),
  ) {
    this.pools.writes.start(); // ready before the first write; the others start on first use
  }

  /** A write's new canonical bytes (compose.ts), with deep labelling where it is needed. */
  async compose(input: ComposeInput): Promise<Buffer> {
    const composed = await (input.method === 'PATCH' ? this.pools.updates : this.pools.writes).call<Uint8Array | { deep: string }>({ op: 'compose', input }).catch((error: unknown) => {
      if (error instanceof LodestoneError && (error.code === 'TooManyBlankNodes' || error.code === 'WorkLimit')) this.log(`warning: ${input.method} ${input.url} refused: ${error.message}`);
      throw error;
    });
    if (composed instanceof Uint8Array) return Buffer.from(composed.buffer, composed.byteOffset, composed.byteLength);
    return this.label(composed.deep, input.url);
  }

  /** Canonical bytes of N-Triples whose blank nodes need deep labelling; refusals are logged. */
  async label(ntriples: string, what: string): Promise<Buffer> {
    try {
      const bytes = await this.pools.labelling.call<Uint8Array>({ op: 'label', ntriples });
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (error) {
      if (error instanceof LodestoneError) this.log(`warning: canonical labelling refused for ${what} (${ntriples.length} bytes of N-Triples): ${error.message}`);
      throw error;
    }
  }

  async close(): Promise<void> {
    await Promise.all(Object.values(this.pools).map((pool) => pool.close()));
  }
}
