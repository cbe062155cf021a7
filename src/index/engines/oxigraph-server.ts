/**
 * The index on an Oxigraph server (`oxigraph serve`, RocksDB; the `oxigraph` package on PyPI),
 * over its HTTP API: SPARQL queries at /query, updates at /update, the Graph Store at /store.
 *
 * - One server holds one dataspace. Oxigraph has one store per server and no place that a query
 *   with a union default graph cannot see, so neither another dataspace's graphs nor a marker can
 *   be kept apart in it: `open` refuses a store holding a graph that is not one of this
 *   dataspace's documents (another dataspace's, or anything loaded by hand), and the index keeps
 *   the marker beside the repository (keepsMarker: false; remote-index.ts).
 * - A replace is one update request (DROP SILENT GRAPH and INSERT DATA per graph), which Oxigraph
 *   runs as one transaction: all of it or none.
 * - The union dataset is the `union-default-graph` parameter (every graph of the store, which is
 *   this dataspace's alone); lists go as `default-graph-uri` / `named-graph-uri`.
 * - Literals keep the lexical form they were loaded with in N-Triples answers and bindings, except
 *   that Oxigraph writes numbers and booleans it can read in canonical form: `"042"^^xsd:integer`
 *   comes back as `"42"`, as in the embedded index (the same engine).
 * - An aborted query closes its connection; Oxigraph goes on evaluating it until its own limit
 *   (`oxigraph serve --timeout-s`), on one of its threads: other queries are not held up.
 */
import { LodestoneError } from '../../errors.js';
import { linesInGraph } from '../../rdf/canonical-lines.js';
import { FORM, NQUADS, NTRIPLES, RESULTS_JSON, SPARQL_UPDATE } from '../../rdf/media-types.js';
import { engineError, shownEndpoint, type Engine, type EngineAnswer, type EngineDataset, type EngineSpace, type GraphReplacement } from '../engine.js';

export class OxigraphServer implements Engine {
  readonly kind = 'oxigraph-server';
  readonly keepsMarker = false;
  readonly transactional = true;
  private readonly root: string;
  /** The root as messages name it (no credentials). */
  private readonly shown: string;

  /** @param endpoint the server's root URL, such as http://127.0.0.1:7878/ */
  constructor(endpoint: string) {
    this.root = endpoint.endsWith('/') ? endpoint : endpoint + '/';
    this.shown = shownEndpoint(this.root);
  }

  async open(space: EngineSpace): Promise<undefined> {
    const foreign = await this.select(`SELECT ?g WHERE { GRAPH ?g {} FILTER (!STRSTARTS(STR(?g), ${literal(space.base)})) } LIMIT 1`);
    const loose = await this.select('SELECT ?s WHERE { ?s ?p ?o } LIMIT 1');
    const what = foreign[0] ? `the graph <${foreign[0]}>, which is not a document of ${space.base}` : loose[0] ? 'triples in its default graph' : undefined;
    if (what) {
      throw engineError(`the Oxigraph server at ${this.shown} holds ${what}: an Oxigraph server holds one dataspace, so give ${space.id} a server of its own (oxigraph serve --location <a new folder>)`);
    }
    return undefined;
  }

  async replace(_space: EngineSpace, graphs: readonly GraphReplacement[]): Promise<void> {
    if (graphs.length === 0) return;
    const parts: string[] = [];
    for (const { graph, ntriples } of graphs) {
      parts.push(`DROP SILENT GRAPH <${graph}>`);
      if (ntriples) parts.push(`INSERT DATA { GRAPH <${graph}> {\n${ntriples}} }`);
    }
    await this.request('update', { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: parts.join(' ;\n') });
  }

  async clear(space: EngineSpace): Promise<void> {
    await this.open(space); // never empties a store that is not this dataspace's
    await this.request('update', { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: 'DROP ALL' });
  }

  /** Oxigraph's bulk loader: N-Quads posted to the store (no transaction: a failure leaves part loaded, and the index rebuilds). */
  async bulkLoad(space: EngineSpace, graphs: AsyncIterable<GraphReplacement>): Promise<void> {
    const body = async function* (): AsyncGenerator<Uint8Array> {
      for await (const { graph, ntriples } of graphs) if (ntriples) yield Buffer.from(linesInGraph(ntriples, `<${graph}>`));
    };
    await this.request('store?no_transaction', { method: 'POST', headers: { 'content-type': NQUADS }, body: body() as unknown as BodyInit, duplex: 'half' } as RequestInit);
    void space;
  }

  async query(_space: EngineSpace, query: string, dataset: EngineDataset, graphResult: boolean, signal: AbortSignal): Promise<EngineAnswer> {
    const form = new URLSearchParams({ query });
    if (dataset.union) form.set('union-default-graph', '');
    else {
      for (const g of dataset.defaultGraphs) form.append('default-graph-uri', g);
      for (const g of dataset.namedGraphs) form.append('named-graph-uri', g);
    }
    const accept = graphResult ? NTRIPLES : RESULTS_JSON;
    const text = await this.request('query', { method: 'POST', headers: { 'content-type': FORM, accept }, body: form, signal });
    return graphResult ? { kind: 'graph', ntriples: text } : { kind: 'results', json: text };
  }

  async dump(space: EngineSpace): Promise<string> {
    void space;
    return this.request('store', { headers: { accept: NQUADS } });
  }

  async close(): Promise<void> {}

  private async select(query: string): Promise<string[]> {
    const text = await this.request('query', { method: 'POST', headers: { 'content-type': FORM, accept: RESULTS_JSON }, body: new URLSearchParams({ query }) });
    const rows = (JSON.parse(text) as { results: { bindings: Array<Record<string, { value: string }>> } }).results.bindings;
    return rows.map((row) => Object.values(row)[0]!.value);
  }

  private async request(path: string, init: RequestInit): Promise<string> {
    let response: Response;
    try {
      response = await fetch(this.root + path, init);
    } catch (error) {
      if (init.signal?.aborted) throw init.signal.reason;
      throw engineError(`the Oxigraph server at ${this.shown} did not answer: ${(error as Error).message}`);
    }
    const text = await response.text();
    if (response.ok) return text;
    if (response.status === 400 && path === 'update') throw new LodestoneError('SyntaxError', `the index's SPARQL server refused the data: ${text.slice(0, 500)}`);
    if (response.status === 400 && path === 'query') throw new LodestoneError('BadQuery', `the index's SPARQL server refused the query: ${text.slice(0, 500)}`);
    throw engineError(`the Oxigraph server at ${this.shown} answered ${response.status} to ${path}: ${text.slice(0, 500)}`);
  }
}

/** A SPARQL string literal. */
function literal(value: string): string {
  return JSON.stringify(value);
}
