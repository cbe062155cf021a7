/**
 * The SPARQL endpoint of a dataspace (SPEC §4.4, SPARQL 1.1 Protocol §2.1): GET with `query`, POST
 * as a form or as `application/sparql-query`; `default-graph-uri` and `named-graph-uri` define the
 * dataset and override FROM. Results: SELECT/ASK as SPARQL JSON, XML, CSV, TSV; CONSTRUCT/DESCRIBE
 * in the RDF formats. Updates are refused: writes go through documents, so git stays the truth.
 * Queries run in the index worker with a timeout; results are cached per (query, dataset, format,
 * indexed commit) and carry `Age` (SPEC §8.5). The index first catches up with HEAD, so a client
 * reads its own writes. `GET` without a query answers the endpoint's Service Description. With
 * `version=` or `Accept-Datetime` the query runs over the documents as a past commit left them
 * (issue 30: past-query.ts), and the answer names that commit.
 */
import { FORM, RESULTS_CSV, RESULTS_TSV, SPARQL_QUERY, SPARQL_UPDATE } from '../rdf/media-types.js';
import { isLodestoneError, LodestoneError } from '../errors.js';
import { sparqlHtml } from './sparql-pages.js';
import { HTML, NTRIPLES, serialiseQuads } from '../rdf/formats.js';
import { RESULTS_JSON } from '../rdf/sparql-results.js';
import { decodeUtf8, mediaTypeOf, readBody } from './body.js';
import { notAcceptable } from './document-read.js';
import { choose, NARROWER } from './offers.js';
import type { Reply } from './reply.js';
import { contentTypeOf } from './representations.js';
import { serviceDescription } from './service-description.js';
import type { Context, Decided, Served } from './state.js';
import type { CachedAnswer } from './read-caches.js';
import { boundNesting, type QueryShape } from '../rdf/sparql-text.js';
import { COMMIT_HEADER } from './state.js';
import { pastAsked, readableAt, type PastAsk } from './past-query.js';


interface Protocol {
  query: string;
  defaultGraphs: string[];
  namedGraphs: string[];
  /** The `version` asked for (the query string's or the form's), if any. */
  version?: string;
}

/** How an update sent to a query endpoint is refused: by default as the SPARQL endpoint does (415 or 400). */
type RefuseUpdate = (fallback: LodestoneError) => LodestoneError;

/** The SPARQL protocol's request (`url`: the request's query string, parsed). */
export async function protocolRequest(ctx: Context, bodyLimit: number, refuseUpdate: RefuseUpdate = (fallback) => fallback, url = new URLSearchParams(ctx.querystring)): Promise<Protocol> {
  let params = url;
  let query: string | undefined;
  if (ctx.method === 'POST') {
    const type = mediaTypeOf(ctx);
    const text = decodeUtf8(await readBody(ctx.req, bodyLimit));
    if (type === SPARQL_QUERY) query = text;
    else if (type === FORM) params = new URLSearchParams(text);
    else if (type === SPARQL_UPDATE) throw refuseUpdate(new LodestoneError('UnsupportedMediaType', 'SPARQL Update is not accepted: write documents with PUT, POST or PATCH'));
    else throw new LodestoneError('UnsupportedMediaType', `send the query as ${SPARQL_QUERY} or ${FORM}`);
    if (params.has('update')) throw refuseUpdate(new LodestoneError('BadRequest', 'SPARQL Update is not accepted: write documents with PUT, POST or PATCH'));
  }
  if (query === undefined) {
    const queries = params.getAll('query');
    if (queries.length !== 1) throw new LodestoneError('BadRequest', queries.length ? 'send exactly one query parameter' : 'the query parameter is missing');
    query = queries[0]!;
  }
  // an IRI has no white space: a value holding several (the query page's text areas) is several graphs
  const graphs = (name: string) => [...url.getAll(name), ...(params === url ? [] : params.getAll(name))].flatMap((g) => g.split(/\s+/)).filter(Boolean);
  const versions = [...url.getAll('version'), ...(params === url ? [] : params.getAll('version'))];
  if (versions.length > 1) throw new LodestoneError('BadRequest', 'send at most one version parameter');
  return { query, defaultGraphs: graphs('default-graph-uri'), namedGraphs: graphs('named-graph-uri'), ...(versions.length ? { version: versions[0]! } : {}) };
}

/** Nothing: a graph name no document has, for a dataset that must be empty (Oxigraph reads [] as "unrestricted"). */
const NOTHING = 'urn:lodestone:no-readable-graph';

/** The dataset narrowed to `readable` graphs: the one asked for (or the FROM clauses), else all readable graphs. */
function restrict(readable: readonly string[], asked: { defaultGraphs: string[]; namedGraphs: string[] } | undefined): { defaultGraphs: string[]; namedGraphs: string[] } {
  const allowed = new Set(readable);
  const keep = (graphs: readonly string[]) => {
    const kept = graphs.filter((g) => allowed.has(g));
    return kept.length ? kept : [NOTHING];
  };
  if (!asked) return { defaultGraphs: keep(readable), namedGraphs: keep(readable) };
  return { defaultGraphs: keep(asked.defaultGraphs), namedGraphs: keep(asked.namedGraphs) };
}

/** An ASK result in CSV or TSV as Jena writes and reads it (a header naming `_askResult`); other formats as Oxigraph writes them. */
export function askBody(result: string, type: string): string {
  const value = result.trim().split(/\s+/).pop() ?? result;
  if (type === RESULTS_CSV) return `_askResult\r\n${value}\r\n`;
  if (type === RESULTS_TSV) return `?_askResult\n${value}\n`;
  return result;
}

export async function shapeOf(served: Served, query: string, base: string, refuseUpdate: RefuseUpdate = (fallback) => fallback): Promise<QueryShape> {
  const { shapes } = served.caches;
  const key = `${base}\n${query}`;
  let shape = shapes.get(key);
  if (!shape) {
    boundNesting(query, 'the query');
    shape = await served.queryShapes.of(query, base);
    if (shapes.size >= 1000) shapes.clear();
    shapes.set(key, shape);
  }
  if (shape.update) throw refuseUpdate(new LodestoneError('BadRequest', 'SPARQL Update is not accepted: write documents with PUT, POST or PATCH'));
  return shape;
}

/** The Service Description, in the RDF format asked for (Turtle when none of them is: probes get an answer). */
function describe(endpoint: string, accept: string | undefined): Reply {
  const type = choose(NARROWER.graphs, accept) ?? NARROWER.graphs.types[0]!;
  return { contentType: contentTypeOf(type), body: () => serialiseQuads(serviceDescription(endpoint), type) };
}

/** GET, HEAD and POST of `<base>sparql`: the route table's handler. */
export async function sparql(ctx: Context, { type: chosen, accept }: Decided): Promise<Reply | void> {
  const { runtime, served } = ctx.state;
  const { documents } = runtime;
  const endpoint = documents.base + 'sparql';
  const page = chosen === HTML; // a browser: the query page
  ctx.vary('Accept-Datetime'); // RFC 7089 §2.1.1: the answer depends on it (issue 30)
  const url = new URLSearchParams(ctx.querystring); // parsed once: a query string is a query's length
  if (ctx.method !== 'POST' && !url.has('query')) return page ? queryPage(ctx, endpoint) : describe(endpoint, accept);
  const request = await protocolRequest(ctx, served.bodyLimit, pastUpdate(ctx, url), url);
  if (page) return queryPage(ctx, endpoint, request);
  const past = await pastAsked(ctx, request.version);
  const shape = await shapeOf(served, request.query, documents.base, pastUpdate(ctx, url, past));
  const offer = shape.graphResult ? NARROWER.graphs : NARROWER.results;
  const type = choose(offer, accept);
  if (!type) throw notAcceptable(offer.types);
  const entry = await answer(ctx, request, shape, type, past);
  // SPEC §8.5
  return { headers: { Age: String(Math.floor((Date.now() - entry.at) / 1000)), ...pastHeaders(past) }, contentType: contentTypeOf(entry.type), body: () => entry.body };
}

/** An update sent with a version (or a date) is a 400, whatever its media type: the past is not written. */
function pastUpdate(ctx: Context, url: URLSearchParams, past?: PastAsk): RefuseUpdate | undefined {
  const named = past !== undefined || url.has('version') || ctx.get('Accept-Datetime') !== '';
  return named ? () => new LodestoneError('BadRequest', 'SPARQL Update is not accepted, and never with a version: the past is not written; write documents with PUT, POST or PATCH') : undefined;
}

/** The commit a past answer reflects (not HEAD's: app.ts keeps it), and its date when a date asked for it (RFC 7089 §2.1.1). */
function pastHeaders(past: PastAsk | undefined): Record<string, string> {
  if (!past) return {};
  return { [COMMIT_HEADER]: past.commit, ...(past.byDate ? { 'Memento-Datetime': new Date(past.time * 1000).toUTCString() } : {}) };
}

/** The query's answer in `type`: from the cache, or run on a query lane over the documents the agent may read. */
async function answer(ctx: Context, request: Protocol, shape: QueryShape, type: string, past: PastAsk | undefined): Promise<CachedAnswer> {
  const { runtime, agent, served } = ctx.state;
  const { documents } = runtime;
  const head = documents.head();
  // the dataset is the endpoint's to give, never the query text's (FROM is taken out of shape.text)
  const asked = request.defaultGraphs.length > 0 || request.namedGraphs.length > 0 ? request : shape.hasFrom ? { defaultGraphs: shape.fromDefault, namedGraphs: shape.fromNamed } : undefined;
  let dataset: { defaultGraphs?: string[]; namedGraphs?: string[] } = asked ? { defaultGraphs: asked.defaultGraphs, namedGraphs: asked.namedGraphs } : {};
  // issue 4: an agent queries only the documents it may read; the dataset is narrowed to them
  const now = await runtime.access.readableGraphs(runtime, agent);
  const readable = now && past ? await readableAt(ctx, now, past.commit) : now; // issue 30: read now, and as it was then
  if (readable) dataset = restrict(readable.graphs, asked);
  const key = JSON.stringify([request.query, request.defaultGraphs, request.namedGraphs, type, past?.commit ?? head ?? 'empty', readable?.key]);
  const { answers: results } = served.caches;
  let entry = results.get(key);
  if (!entry) {
    // the query runs on a lane at HEAD or later (src/index/index.ts)
    const result = await documents.query({ query: shape.text, asSent: request.query, ...dataset, unionDefaultGraph: !asked, format: type }, head, served.sparqlTimeoutMs, agent, past?.commit).catch((error: Error) => {
      if (error instanceof LodestoneError) throw error;
      throw new LodestoneError('BadQuery', `the query failed: ${error.message}`);
    });
    entry = { body: shape.ask ? askBody(String(result), type) : String(result), type, at: Date.now() };
    results.put(key, entry);
  }
  return entry;
}

/** The query page: the form, and with a query its answer (a failed query is shown with its message, 400). */
async function queryPage(ctx: Context, endpoint: string, request?: Protocol): Promise<void> {
  const { served, runtime } = ctx.state;
  let result: Parameters<typeof sparqlHtml>[2];
  if (request) {
    try {
      const past = await pastAsked(ctx, request.version);
      const shape = await shapeOf(served, request.query, runtime.documents.base);
      const entry = await answer(ctx, request, shape, shape.graphResult ? NTRIPLES : RESULTS_JSON, past);
      ctx.set(pastHeaders(past));
      result = { ...request, graph: shape.graphResult, body: entry.body, ...(past ? { asOf: past } : {}) };
    } catch (error) {
      // an unknown version is told on the page, with the form to mend it, as a failed query is
      const notFound = isLodestoneError(error, 'NotFound');
      if (!isLodestoneError(error, 'BadQuery') && !isLodestoneError(error, 'BadRequest') && !notFound) throw error;
      result = { ...request, error: (error as Error).message, status: notFound ? 404 : 400 };
    }
  }
  return sparqlHtml(ctx, endpoint, result, shapeFormats(result?.graph));
}

/** The formats an answer can be downloaded in. */
function shapeFormats(graph: boolean | undefined): readonly string[] {
  return (graph ? NARROWER.graphs : NARROWER.results).types;
}
