/**
 * The paged RDF listing of a container's children (issue 29): a GET of a document in an RDF format
 * with `?page=N` or `?limit=M` answers, instead of the document, that page of its children as they
 * state it (`<child> sioc:has_parent|sioc:has_container <container>`, SPEC §2.2), in path order,
 * only those the agent may read, with `Link` rel first/prev/next (RFC 8288 §3). A page is a slice of
 * the kept listing (documents/child-listing.ts) and a read of each child's file, whatever the size.
 */
import type { Mode } from '../access/access-control.js';
import { LodestoneError } from '../errors.js';
import { ns } from '../rdf/namespaces.js';
import { hasTriple } from '../rdf/canonical-lines.js';
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
  const { runtime, agent } = ctx.state;
  const { documents } = runtime;
  const containerUrl = documents.url(relativePath);
  // dispatch asked Read of a GET; a HEAD, which any mode may send, learns nothing of the children either (its Link would tell of a next page)
  if (!holds(modes, 'Read')) throw forbidden('Read', agent, containerUrl);
  const { page, limit } = pageOf(ctx.querystring);
  const readable = await runtime.access.readableGraphs(runtime, agent);
  await documents.children.ready();
  const { paths, more } = documents.children.page(relativePath, (page - 1) * limit, limit, readable);
  // each child's own statement of membership, read from its file (cached blobs: no query, whatever the size)
  const membership = [`${ns.sioc}has_parent`, `${ns.sioc}has_container`];
  const lines = await Promise.all(
    paths.map(async (path) => {
      const url = documents.url(path);
      const text = (await documents.read(path))?.bytes.toString('utf8') ?? '';
      return membership.filter((p) => hasTriple(text, url, p, containerUrl)).map((p) => `<${url}> <${p}> <${containerUrl}> .\n`).join('');
    }),
  );
  const ntriples = lines.join('');
  const at = (n: number) => `<${containerUrl}?page=${n}&limit=${limit}>`;
  // RFC 8288 §3: one Link header, the document's own relations and the pages'
  const links = [documentLinks(runtime, containerUrl, agent, modes), `${at(1)}; rel="first"`, page > 1 ? `${at(page - 1)}; rel="prev"` : '', more ? `${at(page + 1)}; rel="next"` : ''].filter(Boolean);
  const reply = graphReply(ctx, `${containerUrl}?page=${page}&limit=${limit}`, contentVersion('children', ntriples), ntriples, type);
  return { ...reply, headers: { Vary: 'Accept', Link: links.join(', ') } };
}
