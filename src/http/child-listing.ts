/**
 * The paged RDF listing of a container's children (issue 29): a GET of a document in an RDF format
 * with `?page=N` or `?limit=M` answers, instead of the document, that page of its children as they
 * state it (`<child> sioc:has_parent|sioc:has_container <container>`, SPEC §2.2), in path order,
 * only those the agent may read, with `Link` rel first/prev/next (RFC 8288 §3). A page is a slice of
 * the kept listing (documents/child-listing.ts) and one point query on the index, whatever the size.
 */
import type { Mode } from '../access/access-control.js';
import { LodestoneError } from '../errors.js';
import { ns } from '../rdf/namespaces.js';
import { RESULTS_JSON } from '../rdf/media-types.js';
import { forbidden, holds } from './authorize.js';
import { documentLinks } from './document-read.js';
import { contentVersion, graphReply } from './graph-reply.js';
import type { Context, Reply } from './state.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

/** Whether the request asks for a page of the children rather than the document. */
export function asksForPage(querystring: string): boolean {
  const query = new URLSearchParams(querystring);
  return query.has('page') || query.has('limit');
}

/** A positive integer query parameter, at most `max`, else a 400 that says what is allowed. */
function positive(query: URLSearchParams, name: string, fallback: number, max: number): number {
  const text = query.get(name);
  if (text === null) return fallback;
  if (!/^[1-9][0-9]{0,9}$/.test(text) || Number(text) > max) throw new LodestoneError('BadRequest', `?${name}= must be a whole number from 1 to ${max}, not "${text.slice(0, 40)}"`);
  return Number(text);
}

/** The page and limit a listing request asks for (400 for anything else). */
export function pageOf(querystring: string): { page: number; limit: number } {
  const query = new URLSearchParams(querystring);
  return { page: positive(query, 'page', 1, 10_000_000), limit: positive(query, 'limit', DEFAULT_LIMIT, MAX_LIMIT) };
}

/** GET or HEAD of a page of the children of the document at `relativePath`, in `type`. */
export async function childListing(ctx: Context, relativePath: string, modes: ReadonlySet<Mode>, type: string): Promise<Reply> {
  const { runtime, agent, served } = ctx.state;
  const { documents } = runtime;
  const containerUrl = documents.url(relativePath);
  // dispatch asked Read of a GET; a HEAD, which any mode may send, learns nothing of the children either (its Link would tell of a next page)
  if (!holds(modes, 'Read')) throw forbidden('Read', agent, containerUrl);
  const { page, limit } = pageOf(ctx.querystring);
  const readable = await runtime.access.readableGraphs(runtime, agent);
  const { paths, more } = documents.children.page(relativePath, (page - 1) * limit, limit, readable);
  const urls = paths.map((path) => documents.url(path));
  let ntriples = '';
  if (urls.length > 0) {
    const query = `SELECT ?doc ?p WHERE { VALUES ?doc { ${urls.map((u) => `<${u}>`).join(' ')} } GRAPH ?doc { ?doc ?p <${containerUrl}> } FILTER(?p IN (<${ns.sioc}has_parent>, <${ns.sioc}has_container>)) }`;
    const dataset = { defaultGraphs: urls, namedGraphs: urls };
    const answer = JSON.parse(String(await documents.query({ query, ...dataset, format: RESULTS_JSON }, documents.head(), served.sparqlTimeoutMs, agent))) as { results: { bindings: Record<string, { value: string }>[] } };
    const lines = answer.results.bindings.map((b) => `<${b.doc!.value}> <${b.p!.value}> <${containerUrl}> .\n`);
    ntriples = [...new Set(lines)].sort().join('');
  }
  const at = (n: number) => `<${containerUrl}?page=${n}&limit=${limit}>`;
  // RFC 8288 §3: one Link header, the document's own relations and the pages'
  const links = [documentLinks(runtime, containerUrl, agent, modes), `${at(1)}; rel="first"`, page > 1 ? `${at(page - 1)}; rel="prev"` : '', more ? `${at(page + 1)}; rel="next"` : ''].filter(Boolean);
  const reply = graphReply(ctx, `${containerUrl}?page=${page}&limit=${limit}`, contentVersion('children', ntriples), ntriples, type);
  return { ...reply, headers: { Vary: 'Accept', Link: links.join(', ') } };
}
