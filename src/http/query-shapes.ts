/**
 * The SPARQL endpoint's handle on the thread map's `queryShapes` pool (query-shape-worker.ts): a
 * query's shape (rdf/sparql-text.ts `queryShape`: its form, its datasets, whether it is an update)
 * is read off the thread that answers requests, since sparqljs takes seconds on a large query. The
 * composition root builds the pool and passes this handle in; sparql.ts keeps the shapes it read.
 */
import type { QueryShape } from '../rdf/sparql-text.js';
import type { WorkerPool } from '../util/worker-pool.js';

/** A call of query-shape-worker.ts. */
export type QueryShapeWork = { op: 'queryShape'; query: string; base: string };

export class QueryShapes {
  constructor(private readonly pool: WorkerPool<QueryShapeWork>) {}

  /** The shape of `query`, its relative IRIs against `base`; a query that does not parse rejects with its 400. */
  of(query: string, base: string): Promise<QueryShape> {
    return this.pool.call<QueryShape>({ op: 'queryShape', query, base });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
