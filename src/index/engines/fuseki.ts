/**
 * Apache Jena Fuseki 5 (TDB2) as an index engine. Each dataspace is a Fuseki dataset of its own,
 * `lodestone-<id>`, made through the admin API (`POST /$/datasets`, dbType tdb2: Fuseki refuses
 * uploaded assemblers, so a dataset cannot carry its own settings); its named graphs are the
 * dataspace's documents and nothing else, so another dataspace is out of reach of any query.
 * Fuseki runs as `java -XX:+ExitOnOutOfMemoryError -jar jena-fuseki-server-5.6.0.jar --localhost --port 3030
 * --set tdb:unionDefaultGraph=true --set arq:httpServiceAllowed=false` (SERVICE off: Lodestone refuses it
 * first, this is a second wall; the admin API is localhost-only unless its shiro.ini lets Lodestone's
 * user in). The union default graph is required (open() checks it): a query's default
 * graph is then the union of the named graphs, and the real default graph, which no query sees
 * unless it names one of Jena's special graphs, holds the marker (the commit indexed, and the base).
 * A query must never name these IRIs (Lodestone's query check refuses them): FUSEKI_SPECIAL_GRAPHS
 * (urn:x-arq:DefaultGraph reaches the marker), nor call `java:` functions (ARQ loads the class named).
 * Another dataspace's graphs are in another dataset, out of reach whatever a query names.
 * replace() is one SPARQL Update request (graphs dropped and inserted, or only their changed lines
 * deleted and inserted, then the marker): Fuseki runs a request in one TDB2 write transaction, so a
 * crash leaves the old graphs and marker or the new. Jena's update parser is the cost of a sync
 * (about 0.1 ms a line on this machine), so changed lines are what a sync sends where it can.
 * bulkLoad() streams N-Quads to the dataset's Graph Store endpoint, the marker last in the same
 * request (one transaction; a body cut short at a line's end may be committed as far as it came,
 * which is why the marker comes last: without it the dataspace is rebuilt).
 * A query carries Fuseki's `timeout` (whole seconds, at least 1), after which Fuseki stops it (503,
 * or a 200 ending in an "Incomplete results" banner, both a QueryTimeout here). Aborting the signal
 * closes the connection, but Fuseki does not notice: the query runs on until that timeout.
 * Literals come back by value where TDB2 inlines them: "042"^^xsd:integer is "42",
 * "1.50"^^xsd:decimal "1.5"; language tags come back in lower case ("x"@EN is "x"@en).
 */
import { Readable } from 'node:stream';
import { DataFactory, Parser } from 'n3';
import { LodestoneError } from '../../errors.js';
import { NQUADS, NTRIPLES, RESULTS_JSON, SPARQL_UPDATE } from '../../rdf/media-types.js';
import { firstNonStatementLine, linesInGraph } from '../../rdf/canonical-lines.js';
import { termToNTriples } from '../../rdf/ntriples.js';
import type { Engine, EngineAnswer, EngineDataset, EngineSpace, GraphReplacement } from '../engine.js';
import { engineError, splitEndpoint } from '../engine.js';

/** Jena's names for the real default graph and the union graph: a query that names one reaches the marker or steps outside its dataset. */
export const FUSEKI_SPECIAL_GRAPHS = ['urn:x-arq:DefaultGraph', 'urn:x-arq:DefaultGraphNode', 'urn:x-arq:UnionGraph'] as const;

const REAL_DEFAULT = '<urn:x-arq:DefaultGraph>';
const MARKER = '<urn:x-lodestone:index>';
const COMMIT = '<urn:x-lodestone:commit>';
const BASE = '<urn:x-lodestone:base>';
/** A graph never written: the default graph of a query whose dataset lists no graph at all. */
const NO_GRAPH = 'urn:x-lodestone:no-graph';

export interface FusekiOptions {
  /** The longest a query runs on the server (ms), sent as Fuseki's `timeout`; default 30 s. */
  queryTimeoutMs?: number;
  /** The largest answer read from the server; past it the query is given up (default 256 MiB). */
  maxAnswerBytes?: number;
}

/** What Fuseki appends to a 200 answer it was streaming when the query's timeout struck. */
const INCOMPLETE = /Incomplete results\s+\*{4}\s+##\s*$/;

export class FusekiEngine implements Engine {
  readonly kind = 'fuseki' as const;
  readonly keepsMarker = true;
  readonly transactional = true;
  private readonly root: string;
  /** The endpoint URL without its userinfo: what messages may name. */
  private readonly shown: string;
  private readonly headers: Record<string, string> = {};
  private readonly queryTimeoutMs: number;
  private readonly maxAnswerBytes: number;

  /** `endpoint`: the Fuseki server's root URL; a user and password in it are sent as Basic authentication, and never shown. */
  constructor(endpoint: string, options: FusekiOptions = {}) {
    if (!URL.canParse(endpoint)) throw new Error('the Fuseki endpoint is not a URL (expected fuseki:http://host:port/)'); // the text may hold a password: not repeated
    const { root, credentials } = splitEndpoint(endpoint);
    if (root.protocol !== 'http:' && root.protocol !== 'https:') throw new Error(`the Fuseki endpoint must be an http or https URL, not ${root.protocol}`);
    if (credentials) this.headers.authorization = 'Basic ' + Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64');
    this.root = root.href;
    this.shown = root.href;
    this.queryTimeoutMs = options.queryTimeoutMs ?? 30_000;
    this.maxAnswerBytes = options.maxAnswerBytes ?? 256 * 1024 * 1024;
  }

  async open(space: EngineSpace): Promise<string | null | undefined> {
    const name = datasetName(space);
    const found = await this.request(`$/datasets/${name}`, { method: 'GET' }, [200, 404]);
    if (found.status === 404) {
      const body = new URLSearchParams({ dbName: name, dbType: 'tdb2' });
      await this.request('$/datasets', { method: 'POST', body }, [200, 409]); // 409: made meanwhile by another opener
    }
    const marker = await this.marker(space);
    if (marker.base === undefined) await this.update(space, `INSERT DATA { GRAPH ${REAL_DEFAULT} { ${MARKER} ${BASE} ${iri(space.base)} } }`);
    // The marker must not be in the default graph queries see: else the server lacks the union default graph.
    const leaks = await this.select(space, `ASK { ${MARKER} ?p ?o }`, { union: true, graphs: () => [] });
    if (JSON.parse(leaks).boolean === true) {
      throw new Error(`Fuseki at ${this.shown} does not make the default graph the union of the named graphs: start it with --set tdb:unionDefaultGraph=true`);
    }
    // A dataset indexed under another base has graphs of the wrong names: nothing usable is indexed.
    if (marker.base !== undefined && marker.base !== space.base) return undefined;
    return marker.commit;
  }

  async replace(space: EngineSpace, graphs: readonly GraphReplacement[], commit: string | undefined): Promise<void> {
    const operations: string[] = [];
    for (const { graph, ntriples, change } of graphs) {
      if (ntriples && change) {
        // the graph holds the previous version: Jena parses and indexes only the lines that changed
        if (change.removed) operations.push(`DELETE DATA { GRAPH ${iri(graph)} {\n${statements(graph, change.removed)}\n} }`);
        if (change.added) operations.push(`INSERT DATA { GRAPH ${iri(graph)} {\n${statements(graph, change.added)}\n} }`);
        continue;
      }
      operations.push(`DROP SILENT GRAPH ${iri(graph)}`);
      if (ntriples) operations.push(`INSERT DATA { GRAPH ${iri(graph)} {\n${statements(graph, ntriples)}\n} }`);
    }
    operations.push(...markerUpdate(space, commit));
    // One request, one TDB2 write transaction: the graphs and the marker change together or not at all.
    await this.update(space, operations.join(' ;\n'));
  }

  async clear(space: EngineSpace): Promise<void> {
    // DROP ALL empties the named graphs and the real default graph (the marker with them).
    await this.update(space, `DROP SILENT ALL ;\nINSERT DATA { GRAPH ${REAL_DEFAULT} { ${MARKER} ${BASE} ${iri(space.base)} } }`);
  }

  async bulkLoad(space: EngineSpace, graphs: AsyncIterable<GraphReplacement>, commit: string | undefined): Promise<void> {
    const encoder = new TextEncoder();
    const marker = `${MARKER} ${BASE} ${iri(space.base)} .\n${MARKER} ${COMMIT} ${commitLiteral(commit)} .\n`;
    async function* nquads(): AsyncGenerator<Uint8Array> {
      for await (const { graph, ntriples } of graphs) if (ntriples) yield encoder.encode(linesInGraph(statements(graph, ntriples), iri(graph)));
      // Triples without a graph go to the real default graph: the marker, in the same transaction as the graphs.
      yield encoder.encode(marker);
    }
    await this.update(space, `DELETE WHERE { GRAPH ${REAL_DEFAULT} { ${MARKER} ?p ?o } }`);
    // The Graph Store Protocol on the dataset (POST /<dataset>/data) adds quads in one transaction, streamed as they come;
    // if the stream fails, Fuseki may keep what came before the failure, never the marker after it.
    const stream = Readable.toWeb(Readable.from(nquads())) as ReadableStream<Uint8Array>;
    await this.request(`${datasetName(space)}/data`, { method: 'POST', headers: { 'content-type': NQUADS }, body: stream, duplex: 'half' } as RequestInit, [200, 201, 204]);
  }

  async query(space: EngineSpace, query: string, dataset: EngineDataset, graphResult: boolean, signal: AbortSignal): Promise<EngineAnswer> {
    const text = await this.select(space, query, dataset, graphResult ? NTRIPLES : RESULTS_JSON, signal);
    return graphResult ? { kind: 'graph', ntriples: text } : { kind: 'results', json: text };
  }

  async dump(space: EngineSpace): Promise<string> {
    const response = await this.request(`${datasetName(space)}/data`, { method: 'GET', headers: { accept: NQUADS } }, [200]);
    const lines: string[] = [];
    for (const quad of new Parser({ format: NQUADS, blankNodePrefix: '' }).parse(await response.text())) {
      if (quad.graph.termType === 'DefaultGraph') continue; // the marker
      lines.push(`${termToNTriples(quad.subject)} ${termToNTriples(quad.predicate)} ${termToNTriples(quad.object)} ${termToNTriples(quad.graph)} .\n`);
    }
    return lines.join('');
  }

  async close(): Promise<void> {
    // Nothing held: each call is a request of its own.
  }

  private async marker(space: EngineSpace): Promise<{ commit: string | null | undefined; base: string | undefined }> {
    const query = `SELECT ?p ?o { GRAPH ${REAL_DEFAULT} { ${MARKER} ?p ?o } }`;
    const json = JSON.parse(await this.select(space, query, { union: true, graphs: () => [] })) as SelectResults;
    let commit: string | null | undefined;
    let base: string | undefined;
    for (const row of json.results.bindings) {
      if (row.p?.value === unbracket(COMMIT)) commit = row.o?.value === '' ? null : row.o?.value;
      if (row.p?.value === unbracket(BASE)) base = row.o?.value;
    }
    return { commit, base };
  }

  private async select(space: EngineSpace, query: string, dataset: EngineDataset, accept: string = RESULTS_JSON, signal?: AbortSignal): Promise<string> {
    // Fuseki reads `timeout` in whole seconds (SPARQLQueryProcessor.setTimeouts).
    const form = new URLSearchParams({ query, timeout: String(Math.max(1, Math.ceil(this.queryTimeoutMs / 1000))) });
    if (!dataset.union) {
      // SPARQL 1.1 Protocol §2.1.4: the dataset given replaces the dataset's own (and the query's FROM).
      for (const graph of dataset.defaultGraphs) form.append('default-graph-uri', graph);
      for (const graph of dataset.namedGraphs) form.append('named-graph-uri', graph);
      if (dataset.defaultGraphs.length === 0 && dataset.namedGraphs.length === 0) form.append('default-graph-uri', NO_GRAPH);
    }
    const response = await this.request(`${datasetName(space)}/query`, { method: 'POST', headers: { accept }, body: form, signal }, [200]);
    const text = await this.readAnswer(response);
    // A timeout that strikes while results stream leaves a 200 with a banner at the end, not a 503.
    if (INCOMPLETE.test(text.slice(-200))) throw new LodestoneError('QueryTimeout', 'The query ran past its time limit and was stopped');
    return text;
  }

  /** The answer's text, read up to maxAnswerBytes: a larger one is given up (the connection closed, which stops Fuseki's writing). */
  private async readAnswer(response: Response): Promise<string> {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > this.maxAnswerBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw new LodestoneError('WorkLimit', `The query's answer is larger than ${Math.round(this.maxAnswerBytes / 1024 / 1024)} MiB: narrow it, or page through it with LIMIT and OFFSET`);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  private async update(space: EngineSpace, update: string): Promise<void> {
    await this.request(`${datasetName(space)}/update`, { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: update }, [200, 204]);
  }

  private async request(path: string, init: RequestInit, expected: number[]): Promise<Response> {
    const headers = { ...this.headers, ...(init.headers as Record<string, string> | undefined) };
    let response: Response;
    try {
      response = await fetch(this.root + path, { ...init, headers });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw engineError(`Fuseki at ${this.shown} did not answer: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`);
    }
    if (expected.includes(response.status)) return response;
    const said = (await response.text().catch(() => '')).slice(0, 300).trim();
    // Fuseki answers 503 to a query stopped at its timeout before any result was sent.
    if (response.status === 503 && path.endsWith('/query')) throw new LodestoneError('QueryTimeout', 'The query ran past its time limit and was stopped');
    // a query Fuseki's parser refuses (one sparqljs took): what it said, but not where it is
    if (response.status === 400 && path.endsWith('/query')) throw new LodestoneError('BadQuery', `the index's SPARQL server refused the query: ${said}`);
    if (response.status === 400 && path.endsWith('/update')) throw new LodestoneError('SyntaxError', `the index's SPARQL server refused the data: ${said}`);
    throw engineError(`Fuseki at ${this.shown} answered ${init.method ?? 'GET'} /${path.split('?')[0]} with ${response.status}${said ? `: ${said}` : ''}`);
  }
}

interface SelectResults {
  results: { bindings: Array<Record<string, { value: string } | undefined>> };
}

/** The Fuseki dataset of a dataspace (ids are letters, digits, - and _: registry.ts). */
function datasetName(space: EngineSpace): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(space.id)) throw new Error(`a dataspace id of letters, digits, - or _ is needed for a Fuseki dataset, not ${JSON.stringify(space.id)}`);
  return `lodestone-${space.id}`;
}

function iri(value: string): string {
  return termToNTriples(DataFactory.namedNode(value));
}

function unbracket(bracketed: string): string {
  return bracketed.slice(1, -1);
}

/** A commit id as the marker holds it (undefined, an empty branch: ""); anything but hex is refused before it reaches an update. */
function commitLiteral(commit: string | undefined): string {
  // a marker (src/index/remote-index.ts): one or two commit ids, "-" for an empty branch
  if (commit !== undefined && !/^(-|[0-9a-f]{40,64})( (-|[0-9a-f]{40,64}))?$/.test(commit)) throw new Error(`not a marker: ${JSON.stringify(commit)}`);
  return `"${commit ?? ''}"`;
}

/** The marker set to `commit` (undefined: an empty branch, written ""), in the real default graph. */
function markerUpdate(space: EngineSpace, commit: string | undefined): string[] {
  return [
    `DELETE WHERE { GRAPH ${REAL_DEFAULT} { ${MARKER} ?p ?o } }`,
    `INSERT DATA { GRAPH ${REAL_DEFAULT} { ${MARKER} ${BASE} ${iri(space.base)} . ${MARKER} ${COMMIT} ${commitLiteral(commit)} } }`,
  ];
}

/**
 * A graph's N-Triples, checked to be one whole statement a line before they are set in an update
 * or made N-Quads: text from a file in git must not close the GRAPH block it is put in, nor put a
 * second statement on a line (which would land in the real default graph, beside the marker).
 */
function statements(graph: string, ntriples: string): string {
  const line = firstNonStatementLine(ntriples);
  if (line > 0) throw new Error(`the N-Triples of <${graph}> are not one statement a line (line ${line}): not indexed`);
  return ntriples;
}

