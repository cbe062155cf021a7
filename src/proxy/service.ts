/**
 * The Linked Data proxy as a service (SPEC §4.5), below HTTP: what goes to an origin for a client's
 * request (the headers passed, the identity it speaks with, the cache consulted, revalidated,
 * filled and purged), the shipped vocabularies answered without a request, what came back (its
 * kind, the headers that reach the client), and its translation for the client, off the thread that
 * answers requests. The HTTP handler (http/proxy.ts) decodes the request, authorizes, negotiates
 * and sends what this gives back.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { withIdentityTags } from '../entity-tags.js';
import { LodestoneError, isLodestoneError } from '../errors.js';
import type { RemoteRdf } from '../net/remote-rdf.js';
import type { SafeResponse } from '../net/safe-fetch.js';
import { decodeBody } from '../net/safe-fetch.js';
import type { ShippedDocument } from '../net/vocabularies.js';
import { NQUADS, NTRIPLES, RDFPOST, readableTypes } from '../rdf/formats.js';
import { readableResultTypes, resultTypes } from '../rdf/sparql-results.js';
import { isHtml, type Translation } from '../rdf/translate.js';
import type { CacheRequest, CachedVariant, StoredResponse } from './cache.js';
import type { Outbound } from './outbound.js';

export { shippedDocument, type ShippedDocument } from '../net/vocabularies.js';

/** What the proxy works with: its way out (outbound.ts) and where bodies are translated (net/remote-rdf.ts). */
export interface ProxyParts {
  outbound: Outbound;
  remoteRdf: Pick<RemoteRdf, 'translate'>;
}

/** A client's request for an origin, as the proxy makes it. */
export interface OriginRequest {
  target: URL;
  method: string;
  /** The client's request headers (Node's, lower-case names): the preconditions and languages among them go along. */
  headers: IncomingHttpHeaders;
  /** The client's Accept (its `?accept=` included), as it came. */
  accept: string | undefined;
  /** The write body (none for GET, HEAD, DELETE). */
  body: Buffer | undefined;
  /** Whom the request speaks for; undefined: it goes anonymously. */
  agent: string | undefined;
}

/** What an origin's answer is to the proxy: a representation it translates, or other content it passes on as it came. */
export type Kind = 'rdf' | 'html' | 'results' | 'other';

/** An origin's answer (from it, or from the cache). */
export interface OriginAnswer {
  response: StoredResponse;
  kind: Kind;
  /** SPEC §8.5: the seconds a cached answer has been kept, for `Age`; undefined when it comes straight from the origin. */
  age?: number;
  /** Where its translations are kept, when it is cached. */
  variant?: CachedVariant;
}

/** SPEC §4.5.5: the client's preconditions go to the origin as they came, to be evaluated there. */
const PRECONDITIONS = ['if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since'];
/** The client's request headers that go to the origin as they came. */
const PASSED = [...PRECONDITIONS, 'accept-language', 'accept-datetime'];
/** The origin's response headers that reach the client (SPEC §4.5.5–7, and what a write's answer needs). */
const FORWARDED = ['etag', 'last-modified', 'link', 'location', 'content-location', 'content-language', 'allow', 'accept-patch', 'accept-post', 'retry-after', 'memento-datetime', 'preference-applied'];
/** The RDF formats an origin's response is read in (RDF/POST is a request format only). */
const RDF_IN = readableTypes.filter((type) => type !== RDFPOST);
/** A translation's failures that are the content's fault, so the origin's (a 503 for a busy pool stays one). */
const CONTENT_FAULTS = ['SyntaxError', 'ConstraintViolation', 'WorkLimit', 'TooManyBlankNodes'];

export function kindOf(mediaType: string | undefined): Kind {
  if (mediaType === undefined) return 'other';
  if (RDF_IN.includes(mediaType)) return 'rdf';
  if (isHtml(mediaType)) return 'html';
  if (resultTypes.includes(mediaType)) return 'results';
  return 'other';
}

/** Node's response headers as single strings (a repeated one joined; cookies dropped: they are the origin's, for no one here). */
function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name === 'set-cookie') continue;
    flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function stored(response: SafeResponse): StoredResponse {
  const { url, status, bytes, mediaType, charset } = response;
  return { url, status, headers: flatHeaders(response.headers), bytes, mediaType: mediaType?.toLowerCase(), charset };
}

/** The headers the origin gets: the client's Accept, preconditions, languages and body type, as they came (SPEC §4.5.5). */
function sentHeaders(request: OriginRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  if (request.accept) headers.accept = request.accept; // SPEC §4.5.5 and LinkedDataHub: the client's Accept as it came
  for (const name of PASSED) {
    const value = request.headers[name];
    // an ETag this server sent for an encoded variant of the origin's answer goes with the origin's own (entity-tags.ts)
    if (typeof value === 'string' && value !== '') headers[name] = name === 'if-match' || name === 'if-none-match' ? withIdentityTags(value) : value;
  }
  const type = request.headers['content-type'];
  if (request.body !== undefined && type) headers['content-type'] = type;
  return headers;
}

/**
 * Requests `request.target` from its origin, or answers from the cache (RFC 9111: a fresh stored
 * response, else a stale one revalidated), as the agent: SPEC §4.5.9, §5.3, the secretary's
 * certificate on behalf of an identified agent, nothing for an anonymous one. A refusal of the
 * guarded fetch comes as the client is answered (400, 502, 504: safe-fetch.ts).
 */
export async function ask(parts: ProxyParts, request: OriginRequest): Promise<OriginAnswer> {
  const { outbound } = parts;
  const { target, method, body, agent } = request;
  const reading = method === 'GET' || method === 'HEAD';
  const headers = sentHeaders(request);
  const { secretary } = outbound;
  const onBehalfOf: Record<string, string> = agent === secretary?.webId || agent === undefined ? {} : { 'on-behalf-of': agent };
  const identity = agent !== undefined && secretary ? { cert: secretary.cert, key: secretary.key, headers: onBehalfOf } : undefined;
  const cacheable = reading && !PRECONDITIONS.some((name) => name in headers);
  const cacheRequest: CacheRequest = { url: target.href, headers: { host: target.host, ...headers } };
  const hit = cacheable ? outbound.cache.find(agent, cacheRequest) : undefined;
  let variant = hit?.fresh ? hit.variant : undefined;
  let response = variant?.response;
  if (!response) {
    const revalidating = hit && !hit.fresh ? hit : undefined;
    const sentMethod = revalidating ? 'GET' : method;
    const sent = await outbound.send(target.href, { method: sentMethod, headers: revalidating ? { ...headers, ...revalidating.validators } : headers, body, identity });
    const answered = stored(sent);
    if (revalidating) variant = outbound.cache.revalidated(agent, cacheRequest, revalidating.variant, answered);
    if (!variant && cacheable && sentMethod === 'GET') variant = outbound.cache.store(agent, cacheRequest, answered);
    response = variant?.response ?? answered;
    if (!reading && sent.status < 400) outbound.cache.purge(target.href); // RFC 9111 §4.4: a write makes stored responses stale
  }
  return { response, kind: kindOf(response.mediaType), variant, age: variant && Math.floor(variant.policy.age()) };
}

/**
 * Whether the answer is a representation the client gets in a format it asks for: a 2xx with
 * content the proxy reads. A 2xx of other content is the origin's fault (502); errors, redirects
 * and empty answers are not representations, and pass as they came (SPEC §4.5.6).
 */
export function isRepresentation(answer: OriginAnswer, head: boolean): boolean {
  const { response, kind } = answer;
  const { status, bytes, mediaType } = response;
  const success = status >= 200 && status < 300 && (bytes.length > 0 || (head && mediaType !== undefined) || kind !== 'other');
  if (success && kind === 'other') throw new LodestoneError('BadGateway', `${response.url} answered ${mediaType ?? 'a body without a media type'}, which is neither RDF, an HTML page with JSON-LD, nor SPARQL results`);
  return success;
}

/** SPARQL results in `origin`'s format can be given as `to`: the same format, or one read from JSON or XML results; else the origin's format is at fault (502). */
export function checkResultsInto(origin: string, to: string): void {
  if (to !== origin && !readableResultTypes.includes(origin)) throw new LodestoneError('BadGateway', `the origin answered ${origin}, which the proxy cannot turn into ${to}; ask for ${origin}`);
}

/** The origin's headers that reach the client; a relative Location or Content-Location made absolute against the URL that answered. */
export function forwardedHeaders(response: StoredResponse): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = response.headers[name];
    if (value === undefined) continue;
    forwarded[name] = name === 'location' || name === 'content-location' ? new URL(value, response.url).href : value;
  }
  return forwarded;
}

/** An origin's body in another format, off the thread that answers requests; content that cannot be read is the origin's fault (502). */
async function translateOrigin(parts: ProxyParts, job: Translation, url: string): Promise<string> {
  return parts.remoteRdf.translate(job).catch((error: unknown) => {
    if (isLodestoneError(error) && CONTENT_FAULTS.includes(error.code)) {
      throw new LodestoneError('BadGateway', `${url} answered ${job.mediaType} that could not be read: ${error.message}`);
    }
    throw error;
  });
}

/** The answer's RDF as N-Triples, for Lodestone's page of it (an HTML page gives its JSON-LD). */
export async function forPage(parts: ProxyParts, answer: OriginAnswer): Promise<string> {
  const { response } = answer;
  const job: Translation = { kind: 'rdf', text: decodeBody(response.bytes, response.charset), mediaType: response.mediaType!, base: response.url, to: NTRIPLES };
  return translateOrigin(parts, job, response.url);
}

/**
 * The answer's body as `to` (a media type the client accepts): the origin's text when it is that
 * already, else its translation, kept with the cached answer. An HTML page gives its JSON-LD.
 */
export async function translated(parts: ProxyParts, answer: OriginAnswer, to: string): Promise<string> {
  const { response, kind, variant } = answer;
  const text = decodeBody(response.bytes, response.charset);
  if (to === response.mediaType && kind !== 'html') return text; // already what the client asked for: the origin's text, as UTF-8
  const cached = variant?.outputs.get(to);
  if (cached !== undefined) return cached;
  const job: Translation = { kind: kind === 'results' ? 'results' : 'rdf', text, mediaType: response.mediaType!, base: response.url, to };
  const body = await translateOrigin(parts, job, response.url);
  if (variant) parts.outbound.cache.addOutput(variant, to, body);
  return body;
}

/** A shipped vocabulary (net/vocabularies.ts) as the proxy answers it, without a network request. */
export interface ShippedAnswer {
  /** A digest of its text, for its ETags. */
  digest: string;
  /** Its text as `to`, kept once made. */
  as(to: string): Promise<string>;
}

/** The shipped document `shipped` (which `url` names); a 404 for a term the vocabulary says nothing about. */
export async function shippedAnswer(parts: ProxyParts, url: string, shipped: ShippedDocument): Promise<ShippedAnswer> {
  const { vocabularies } = parts.outbound;
  const { text, digest } = await vocabularies.read(shipped);
  if (text === '') throw new LodestoneError('NotFound', `the shipped vocabulary (${shipped.file}) says nothing about ${url}`);
  const as = async (to: string) => {
    const key = `${shipped.file} ${shipped.term ?? ''} ${to}`;
    let body = vocabularies.outputs.get(key);
    if (body === undefined) {
      body = await parts.remoteRdf.translate({ kind: 'rdf', text, mediaType: NQUADS, base: url, to });
      vocabularies.outputs.put(key, body);
    }
    return body;
  };
  return { digest, as };
}
