/**
 * The Linked Data proxy's handler (SPEC §4.5): `<base>?uri=<URL>`, every method, on every dataspace.
 * A URL of the request's own dataspace is a new request of the route table (§4.5.2), under its own
 * access control; any other (another dataspace of this instance included, §4.5.10) is asked of its
 * origin by the proxy service (src/proxy/), for those who may read this dataspace (acl:Read on its
 * root), as the agent, or anonymously where a direct request would be (§4.5.9). Here: decoding, that
 * choice, negotiation (§4.5.3–4), and sending what came back (§4.5.5–7), never as markup of this origin.
 */
import { LodestoneError } from '../errors.js';
import { ask, checkResultsInto, forPage, forwardedHeaders, isRepresentation, shippedAnswer, shippedDocument, translated, type Kind, type OriginAnswer, type ShippedDocument } from '../proxy/service.js';
import { HTML, NQUADS, NTRIPLES } from '../rdf/formats.js';
import { readBody } from './body.js';
import { errorType } from './error-middleware.js';
import { originBody, originErrorPage } from './origin-errors.js';
import { notAcceptable } from './document-read.js';
import { normalPath, proxyTarget, runtimeFor } from './locate.js';
import { credentialsCount } from './authenticate.js';
import { proxiedPage } from './document-pages.js';
import { choose, NARROWER, OFFERS } from './offers.js';
import { contentTypeOf } from './representations.js';
import type { Context, Decided, Reply } from './state.js';

/** A proxied body is another origin's: never run as this origin's page, never sniffed into something else. */
const CONTAINED = { 'Content-Security-Policy': 'sandbox', 'X-Content-Type-Options': 'nosniff' };


/** The proxy row's handler: a URL of this dataspace is answered by the route table, any other by its origin. */
export async function proxy(ctx: Context, { accept }: Decided): Promise<Reply | void> {
  if (ctx.state.proxied) throw new LodestoneError('BadRequest', `${ctx.state.url}?${ctx.querystring} is itself a proxy request: give the URL it proxies`);
  const target = proxyTarget(ctx.querystring);
  const { runtime, served } = ctx.state;
  if (runtimeFor(served.runtimes, target.href) === runtime) return dereference(ctx, target);
  // DESIGN.md, "Origins": another dataspace of this server trusts origins of its own; credentials that would not act there directly do not act there through this proxy
  const there = runtimeFor(served.runtimes, normalPath(target.href));
  const agent = there && !credentialsCount(ctx.req, there.documents.base, served.trusts) ? undefined : ctx.state.agent;
  return fromOrigin(ctx, target, agent, accept);
}

/**
 * SPEC §4.5.2: a URL of this dataspace is answered by the route table as a request to it would be
 * (a new request: its path and query, `?accept=` kept, the agent decided for this one), so its
 * access control, preconditions, refusals and statuses are the direct ones. A path without its
 * slash is read as the document it redirects to.
 */
async function dereference(ctx: Context, target: URL): Promise<void> {
  const base = ctx.state.runtime.documents.base;
  const relative = (target.origin + target.pathname).slice(base.length);
  const query = new URLSearchParams(target.search);
  const accept = new URLSearchParams(ctx.querystring).get('accept');
  if (accept !== null && !query.has('accept')) query.set('accept', accept);
  const querystring = query.toString();
  const { route } = ctx.state.served;
  if (await route(requestFor(ctx, relative, querystring))) return;
  if (relative.endsWith('/') || !(await route(requestFor(ctx, relative + '/', querystring)))) throw new LodestoneError('NotFound', `there is nothing at ${target.href}`);
}

/**
 * The request the proxy makes of `relative` (to the dataspace base) with `querystring`: its own
 * Koa context, made from the request that came (its method, headers, body and connection) with
 * that path and query, and answered into the same response. Its agent is the one decided for the
 * request that came: the same credentials, to the same dataspace, decide the same.
 */
function requestFor(ctx: Context, relative: string, querystring: string): Context {
  const { served, runtime, agent } = ctx.state;
  const url = runtime.documents.base + relative;
  const path = new URL(url).pathname;
  const pathAndQuery = path + (querystring ? `?${querystring}` : '');
  const made: Context = ctx.app.createContext(ctx.req, ctx.res);
  Object.defineProperties(made.request, { url: { value: pathAndQuery }, originalUrl: { value: pathAndQuery }, path: { value: path }, querystring: { value: querystring } });
  made.originalUrl = pathAndQuery;
  made.response = ctx.response; // what the route answers is the answer
  made.state = { served, runtime, url, relative, agent, proxied: true };
  return made;
}

/** Requests `target` from its origin (or the cache) as `agent` (anonymous: undefined) and answers with what came back. */
async function fromOrigin(ctx: Context, target: URL, agent: string | undefined, accept: string | undefined): Promise<Reply | void> {
  const { served } = ctx.state;
  ctx.vary('Accept');
  ctx.set(CONTAINED);
  const method = ctx.method;
  const reading = method === 'GET' || method === 'HEAD';
  const body = reading || method === 'DELETE' ? undefined : await readBody(ctx.req, served.bodyLimit);
  const shipped = reading ? shippedDocument(target.href) : undefined;
  if (shipped) return fromShipped(ctx, target, shipped, accept);
  const answer = await ask(served, { target, method, headers: ctx.headers, accept, body, agent });
  if (answer.age !== undefined) ctx.set('Age', String(answer.age)); // SPEC §8.5
  await send(ctx, answer, accept);
}

/** A shipped vocabulary (net/vocabularies.ts), answered without a network request: negotiated, with its ETag (the one reply path judges If-None-Match and If-Match). */
async function fromShipped(ctx: Context, target: URL, shipped: ShippedDocument, accept: string | undefined): Promise<Reply | void> {
  const { served } = ctx.state;
  const vocabulary = await shippedAnswer(served, target.href, shipped);
  const type = chosenType('rdf', accept, NQUADS);
  if (type === HTML) return proxiedPage(ctx, target.href, await vocabulary.as(NTRIPLES));
  return { etag: served.etags.of(target.href, vocabulary.digest, type), contentType: contentTypeOf(type), body: () => vocabulary.as(type) };
}

/** The representation the client gets of a 2xx body of `kind`: a media type it accepts, or a 406. */
function chosenType(kind: Kind, accept: string | undefined, origin: string): string {
  if (kind === 'results') {
    const type = choose(NARROWER.results, accept);
    if (!type) throw notAcceptable(NARROWER.results.types, { Vary: 'Accept' });
    checkResultsInto(origin, type);
    return type;
  }
  // a browser gets Lodestone's page of the RDF (never the remote page itself)
  const type = choose(OFFERS.document, accept);
  if (!type) throw notAcceptable(OFFERS.document.types, { Vary: 'Accept' });
  return type;
}

/** Sends the origin's answer: its status and forwarded headers, its body as it came or translated. */
async function send(ctx: Context, answer: OriginAnswer, accept: string | undefined): Promise<void> {
  const { response, kind } = answer;
  const { status, mediaType: origin } = response;
  const head = ctx.method === 'HEAD';
  const type = isRepresentation(answer, head) ? chosenType(kind, accept, origin!) : undefined;
  // a browser gets an origin's error inside Lodestone's own page, its body as text (a fake page of another origin never shows here)
  if (!type && status >= 400 && errorType(ctx) === HTML) return originErrorPage(ctx, response);
  ctx.set(forwardedHeaders(response));
  ctx.status = status;
  if (status === 204 || status === 304 || status < 200) return;
  // SPEC §4.5.6: an origin's error (or redirect, or empty answer) reaches the client with its status and body, markup as text
  if (!type) return originBody(ctx, response);
  if (type === HTML) return proxiedPage(ctx, response.url, await forPage(ctx.state.served, answer));
  ctx.type = contentTypeOf(type);
  if (head) return;
  ctx.body = await translated(ctx.state.served, answer, type);
}
