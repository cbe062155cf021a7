/** The SPARQL servers an index can live on (engine.ts), by kind: one place that knows them all. */
import type { Engine, IndexKind } from './engine.js';
import { OxigraphServer } from './engines/oxigraph-server.js';

/** The engine of `kind` at `endpoint` (its root or dataset URL, as `serve --index` names it). */
export function engineFor(kind: Exclude<IndexKind, 'embedded'> | IndexKind, endpoint: string): Engine {
  switch (kind) {
    case 'oxigraph-server':
      return new OxigraphServer(endpoint);
    default:
      throw new Error(`the ${kind} index is not available in this build`);
  }
}
