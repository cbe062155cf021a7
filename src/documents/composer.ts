/**
 * The main thread's handle on the RDF work a request's content decides the cost of, run in the
 * pools of compose-worker.ts that the thread map plans (threads.ts: sizes, deadlines, queues), one
 * pool per kind of work so that costly requests of one kind hold up no other kind: PUT and POST
 * bodies, PATCH updates, query shapes, deep labelling of alike blank nodes, and RDF from elsewhere
 * (the proxy's translations, remote WebID documents, ontology documents). An ordinary write waits
 * for none of the others. The composition root builds the pools and passes them in.
 */
import { LodestoneError } from '../errors.js';
import { NTRIPLES } from '../rdf/formats.js';
import type { QueryShape } from '../rdf/sparql-text.js';
import type { Translation } from '../rdf/translate.js';
import type { WorkerPool } from '../util/worker-pool.js';
import type { ComposeInput } from './compose.js';

export type WorkRequest =
  | { op: 'compose'; input: ComposeInput }
  | { op: 'label'; ntriples: string }
  | { op: 'queryShape'; query: string; base: string }
  | { op: 'translate'; job: Translation }
  | { op: 'update'; graph: string; update: string; base: string };

/** The composer's pools, built by the composition root from the thread map (threads.ts). */
export interface ComposerPools {
  /** PUT and POST: their cost is bounded by the body limit. */
  writes: WorkerPool<WorkRequest>;
  /** PATCH: its WHERE runs on the document, for up to the deadline. */
  updates: WorkerPool<WorkRequest>;
  /** Query shapes: sparqljs takes seconds on a large query. */
  queryShapes: WorkerPool<WorkRequest>;
  /** Deep labelling of alike blank nodes (a K8 takes 0.1 s; a 5,000-node cycle is refused after a second or more). */
  labelling: WorkerPool<WorkRequest>;
  /** RDF from elsewhere (other servers' responses, remote WebIDs, ontology documents): bounded by the proxy's 2 MiB cap, or the fetch's. */
  remoteRdf: WorkerPool<WorkRequest>;
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

  /** A PATCH-like update (SPEC §4.2) of a graph that is no document (a dataspace's settings): the resulting N-Triples. */
  update(graph: string, update: string, base: string): Promise<string> {
    return this.pools.updates.call<string>({ op: 'update', graph, update, base });
  }

  queryShape(query: string, base: string): Promise<QueryShape> {
    return this.pools.queryShapes.call<QueryShape>({ op: 'queryShape', query, base });
  }

  /** RDF from elsewhere (a remote WebID document, an ontology document) as the server keeps it: rdf/translate.ts `toNTriples`, off this thread. */
  toNTriples(text: string, mediaType: string, base: string): Promise<string> {
    return this.translate({ kind: 'rdf', text, mediaType, base, to: NTRIPLES, sorted: true });
  }

  /** A response of another server in the format the proxy's client asked for (rdf/translate.ts). */
  translate(job: Translation): Promise<string> {
    return this.pools.remoteRdf.call<string>({ op: 'translate', job });
  }

  async close(): Promise<void> {
    await Promise.all(Object.values(this.pools).map((pool) => pool.close()));
  }
}
