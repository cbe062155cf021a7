/**
 * The ontology work whose cost content decides, off the thread that answers requests, in the pools
 * the thread map plans (threads.ts) and the composition root builds: validating documents against
 * the shapes of a namespace ontology (`shapes`), and `ns?query=` over the entailed ontology
 * (`ontologyQueries`, stopped at the SPARQL timeout). Ontology documents are read into N-Triples
 * where all RDF from elsewhere is (net/remote-rdf.ts `toNTriples`). A worker keeps the store or
 * the validator of the ontology versions it last saw; a call names the version, and sends the
 * graph only when the worker answers that it has not seen that version.
 */
import type { WorkerPool } from '../util/worker-pool.js';
import type { Verdict } from './shacl.js';

export type OntologyRequest =
  | { op: 'query'; key: string; asserted?: string; query: string; format: string; base: string }
  | { op: 'validate'; key: string; shapes?: string; data: string; maxResults: number };

export type { Verdict } from './shacl.js';

/** A version of a graph: its key (a digest), and its N-Triples for a worker that has not seen it. */
export interface GraphVersion {
  key: string;
  ntriples: string;
}

/** The pools of ontology-worker.ts (threads.ts `shapes` and `ontologyQueries`). */
export interface OntologyPools {
  validation: WorkerPool<OntologyRequest>;
  queries: WorkerPool<OntologyRequest>;
}

/** Results described in a 422's report; the rest are counted. */
export const MAX_RESULTS = 20;

type Missing = { missing: true };

export class OntologyWorkers {
  private readonly validation: WorkerPool<OntologyRequest>;
  private readonly queries: WorkerPool<OntologyRequest>;

  constructor(pools: OntologyPools) {
    ({ validation: this.validation, queries: this.queries } = pools);
  }

  /** A query over `graph` with RDFS entailment, its results in `format`. */
  async query(graph: GraphVersion, query: string, format: string, base: string): Promise<string | boolean> {
    const request = { op: 'query' as const, key: graph.key, query, format, base };
    let answer = await this.queries.call<Missing | { result: string | boolean }>(request);
    if ('missing' in answer) answer = await this.queries.call<Missing | { result: string | boolean }>({ ...request, asserted: graph.ntriples });
    if ('missing' in answer) throw new Error('the ontology worker did not take the ontology');
    return answer.result;
  }

  /** The document `data` (N-Triples) validated against the shapes of `shapes`. */
  async validate(shapes: GraphVersion, data: string): Promise<Verdict> {
    const request = { op: 'validate' as const, key: shapes.key, data, maxResults: MAX_RESULTS };
    let answer = await this.validation.call<Missing | Verdict>(request);
    if ('missing' in answer) answer = await this.validation.call<Missing | Verdict>({ ...request, shapes: shapes.ntriples });
    if ('missing' in answer) throw new Error('the ontology worker did not take the shapes');
    return answer;
  }

  async close(): Promise<void> {
    await Promise.all([this.validation.close(), this.queries.close()]);
  }
}
