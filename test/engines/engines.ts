/**
 * The SPARQL engines tests start (LODESTONE_TEST_INDEX=<kind> puts every test server's end-user
 * dataspace on a fresh one: test/http-helpers.ts), by kind.
 */
import { startOxigraph, type RunningEngine } from './oxigraph-server-engine.js';

export async function startEngine(kind: string): Promise<RunningEngine & { kind: string }> {
  switch (kind) {
    case 'oxigraph-server':
      return { kind, ...(await startOxigraph()) };
    default:
      throw new Error(`LODESTONE_TEST_INDEX=${kind}: no such engine for tests (oxigraph-server, fuseki, virtuoso)`);
  }
}
