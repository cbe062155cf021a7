/** The SPARQL servers an index can live on (engine.ts), by kind: one place that knows them all. */
import type { Engine, IndexKind } from './engine.js';
import { FusekiEngine } from './engines/fuseki.js';
import { OxigraphServer } from './engines/oxigraph-server.js';
import { VirtuosoEngine } from './engines/virtuoso.js';

/**
 * The engine of `kind` at `endpoint` (its root URL, as `serve --index` names it); `queryTimeoutMs`
 * is the SPARQL timeout, passed on to engines that take one per query or per server.
 */
export function engineFor(kind: IndexKind, endpoint: string, queryTimeoutMs?: number): Engine {
  switch (kind) {
    case 'oxigraph-server':
      return new OxigraphServer(endpoint);
    case 'fuseki':
      return new FusekiEngine(endpoint, { queryTimeoutMs });
    case 'virtuoso':
      return new VirtuosoEngine({ endpoint, queryTimeoutMs });
    case 'embedded':
      throw new Error('the embedded index is not on a SPARQL server');
  }
}
