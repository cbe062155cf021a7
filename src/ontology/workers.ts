/**
 * The ontology work whose cost content decides, off the thread that answers requests (util/
 * worker-pool.ts): parsing the owners' ontology documents and package descriptions, and validating
 * documents against the shapes of a namespace ontology (one pool, 10 s a job); parsing imports
 * fetched in the background (a pool of its own, one worker, so a large import never queues ahead
 * of a write's validation); `ns?query=` over the entailed ontology (a pool of its own, stopped at
 * the SPARQL timeout). A worker keeps the store or the
 * validator of the ontology versions it last saw; a call names the version, and sends the graph
 * only when the worker answers that it has not seen that version.
 */
import { LodestoneError } from '../errors.js';
import { WorkerPool } from '../util/worker-pool.js';
import type { Verdict } from './shacl.js';

export type OntologyRequest =
  | { op: 'parse'; text: string; mediaType: string; base: string }
  | { op: 'query'; key: string; asserted?: string; query: string; format: string; base: string }
  | { op: 'validate'; key: string; shapes?: string; data: string; maxResults: number };

export type { Verdict } from './shacl.js';

/** A version of a graph: its key (a digest), and its N-Triples for a worker that has not seen it. */
export interface GraphVersion {
  key: string;
  ntriples: string;
}

export interface OntologyWorkersOptions {
  /** Longest a query may run (the server's SPARQL timeout). */
  queryMs: number;
  /** Longest a parse or a validation may take (default 10 s). */
  validateMs?: number;
}

/** Results described in a 422's report; the rest are counted. */
export const MAX_RESULTS = 20;

type Missing = { missing: true };

export class OntologyWorkers {
  private readonly validation: WorkerPool<OntologyRequest>;
  private readonly imports: WorkerPool<OntologyRequest>;
  private readonly queries: WorkerPool<OntologyRequest>;

  constructor(options: OntologyWorkersOptions) {
    const entry = new URL('./ontology-worker.js', import.meta.url);
    this.validation = new WorkerPool<OntologyRequest>(entry, { size: 2, deadlineMs: options.validateMs ?? 10_000, demoteAfterMs: 1_000, maxDemoted: 2, maxQueue: 256 });
    this.imports = new WorkerPool<OntologyRequest>(entry, { size: 1, deadlineMs: options.validateMs ?? 10_000, maxQueue: 64 });
    const stopped = (ms: number) => new LodestoneError('QueryTimeout', `the query ran past the server's timeout of ${ms / 1000} s and was stopped`);
    this.queries = new WorkerPool<OntologyRequest>(entry, { size: 1, deadlineMs: options.queryMs, demoteAfterMs: 1_000, maxDemoted: 2, maxQueue: 64, overDeadline: stopped });
  }

  /**
   * RDF text in `mediaType` as N-Triples whose blank nodes are labelled apart from any other parse;
   * `background` for an import fetched while nobody waits (its own worker).
   */
  parse(text: string, mediaType: string, base: string, background = false): Promise<string> {
    return (background ? this.imports : this.validation).call<string>({ op: 'parse', text, mediaType, base });
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
    await Promise.all([this.validation.close(), this.imports.close(), this.queries.close()]);
  }
}
