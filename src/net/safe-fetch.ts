/**
 * Outgoing HTTP requests (remote WebIDs, the proxy, packages), safe against SSRF (DESIGN.md,
 * "Command line": loopback, private and link-local addresses are refused unless
 * `--allow-internal-urls`). Every hop resolves its host once, checks every address, and connects
 * to a checked address only (a pinned `lookup`), so DNS rebinding cannot slip past the check.
 * A connection must be made within the connect timeout, and one deadline covers the whole
 * request, redirects included; bodies are capped while they stream. `safeFetch` GETs a document;
 * `safeRequest` (the proxy's) sends any method with a body, chosen headers and an identity (a
 * client certificate and headers that go to https hops of the requested origin only), and gives
 * back every status with the response's headers and bytes.
 */
import { promises as dns, type LookupAddress } from 'node:dns';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import contentType from 'content-type';
import { LodestoneError } from '../errors.js';
import { JSONLD, NTRIPLES, RDFXML, TURTLE } from '../rdf/formats.js';
import { isInternalAddress } from './internal-addresses.js';

export { isInternalAddress };

export interface SafeFetchOptions {
  /** `--allow-internal-urls`: reach loopback, private and link-local addresses too. */
  allowInternal: boolean;
  /** The whole request, DNS and redirects included; default FETCH_LIMITS. */
  timeoutMs?: number;
  /** From asking for a connection to having it (TCP, and TLS for https), per hop; default FETCH_LIMITS. */
  connectTimeoutMs?: number;
  /** Largest body accepted; default FETCH_LIMITS. A larger one is refused and reading stops. */
  maxBytes?: number;
  /** Redirects followed, each hop checked like the first; default FETCH_LIMITS. */
  maxRedirects?: number;
  /** Default: the RDF formats Lodestone reads, Turtle first. */
  accept?: string;
  /** The trusted certificate authorities, replacing Node's list (tests with self-signed servers); TLS verification stays on. */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Resolves a host name to all of its addresses; default `dns.lookup` (the system resolver). */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
  /** Classifies an address; default isInternalAddress. Tests use it to call a loopback address public. */
  isInternal?: (address: string) => boolean;
}

export interface FetchedDocument {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  mediaType: string | undefined;
  body: string;
  etag?: string;
  /** Seconds, from Cache-Control (`no-store` and `no-cache` give 0). */
  maxAge?: number;
}

/** What `safeRequest` sends beyond a GET. */
export interface SafeRequestOptions extends SafeFetchOptions {
  /** Default GET. */
  method?: string;
  /** Request headers (lower-case names); Accept defaults to `accept`. Host and User-Agent are set here. */
  headers?: Record<string, string>;
  body?: Buffer;
  /**
   * Who the request speaks as: a client certificate (PEM) and headers (`On-Behalf-Of`), sent only
   * to https hops of the origin first requested; a redirect elsewhere, or to plain http, goes out
   * without them.
   */
  identity?: { cert: string; key: string; headers: Record<string, string> };
}

/** A response of any status, as `safeRequest` gives it back. */
export interface SafeResponse {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as received (none for HEAD). */
  bytes: Buffer;
  mediaType: string | undefined;
  charset: string | undefined;
  /** Whether the identity went out with the request that answered. */
  identified: boolean;
}

/** Why a fetch failed, in `error.data.reason` (the error's code already says whose fault it is). */
export type FetchFailure = 'url' | 'scheme' | 'credentials' | 'internal-address' | 'redirects' | 'too-large' | 'timeout' | 'unreachable';

export const RDF_ACCEPT = `${TURTLE}, ${NTRIPLES};q=0.9, ${JSONLD};q=0.8, ${RDFXML};q=0.7`;

const MiB = 1024 * 1024;

/** The limits of an outgoing request unless its caller gives others (the proxy: proxy/outbound.ts). */
export const FETCH_LIMITS: Readonly<Required<Pick<SafeFetchOptions, 'timeoutMs' | 'connectTimeoutMs' | 'maxBytes' | 'maxRedirects'>>> = {
  timeoutMs: 10_000,
  connectTimeoutMs: 5_000,
  maxBytes: 2 * MiB,
  maxRedirects: 5,
};
const REDIRECTS = new Set([301, 302, 303, 307, 308]); // RFC 9110 §15.4
const KEEPING_METHOD = new Set([307, 308]); // RFC 9110 §15.4.8-9: the method and body are sent again

/**
 * A refusal, of the kind a gateway answers (RFC 9110 §15.6.3, §15.6.5): a URL that may not be
 * requested is the request's fault (400, and nothing was sent); an origin that answers too much,
 * redirects too often or cannot be reached is the origin's (502), one that is too slow too (504).
 */
function refuse(reason: FetchFailure, url: string, message: string): LodestoneError {
  const code = reason === 'timeout' ? 'GatewayTimeout' : reason === 'too-large' || reason === 'unreachable' || reason === 'redirects' ? 'BadGateway' : 'InvalidPath';
  return new LodestoneError(code, message, { url, reason });
}

/** A byte count as people read it: whole MiB or KiB when it is one, else bytes. */
function sizeText(bytes: number): string {
  if (bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** The URL, when it is one Lodestone may request at all: http(s) and no credentials. */
function checkedUrl(url: string, from?: string): URL {
  let parsed: URL;
  try {
    parsed = from === undefined ? new URL(url) : new URL(url, from);
  } catch {
    throw refuse('url', url, `${url} is not an absolute URL`);
  }
  const via = from === undefined ? '' : ` (a redirect from ${from})`;
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw refuse('scheme', parsed.href, `${parsed.protocol} URLs are not fetched${via}; only http and https are`);
  }
  if (parsed.username || parsed.password) throw refuse('credentials', parsed.href, `a URL with a user name or password is not fetched${via}`);
  parsed.hash = '';
  return parsed;
}

/** Every address of the URL's host, each checked; the request connects to these and no others. */
async function checkedAddresses(target: URL, options: SafeFetchOptions): Promise<LookupAddress[]> {
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(host);
  let addresses: LookupAddress[];
  if (family) addresses = [{ address: host, family }];
  else {
    try {
      addresses = await (options.resolve ?? ((name: string) => dns.lookup(name, { all: true, verbatim: true })))(host);
    } catch (error) {
      throw refuse('unreachable', target.href, `the host ${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    if (!addresses.length) throw refuse('unreachable', target.href, `the host ${host} has no address`);
  }
  if (options.allowInternal) return addresses;
  const isInternal = options.isInternal ?? isInternalAddress;
  const internal = addresses.find((a) => isInternal(a.address));
  if (internal) {
    const resolved = family ? '' : ` resolves to ${internal.address}, which`;
    throw refuse('internal-address', target.href, `${target.href} was refused: ${host}${resolved} is a loopback, private or link-local address; the server reaches only public addresses unless it runs with --allow-internal-urls`);
  }
  return addresses;
}

/** A `lookup` for node:net that answers with the checked addresses, never asking DNS again. */
function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const usable = family ? addresses.filter((a) => a.family === family) : [...addresses];
    const first = usable[0];
    if (!first) {
      callback(Object.assign(new Error(`no IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      return;
    }
    if (options.all) callback(null, usable);
    else callback(null, first.address, first.family);
  };
}

/** One hop as it goes out: method, headers, body, and the client certificate when the identity goes along. */
interface Hop {
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  cert?: { cert: string; key: string };
}

function send(target: URL, addresses: readonly LookupAddress[], hop: Hop, options: SafeFetchOptions, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = (target.protocol === 'https:' ? https : http).request({
      protocol: target.protocol,
      hostname: target.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: target.port || undefined,
      path: target.pathname + target.search,
      method: hop.method,
      headers: { ...hop.headers, host: target.host, 'user-agent': 'Lodestone', ...(hop.body ? { 'content-length': String(hop.body.length) } : {}) },
      agent: false, // no pooled socket: a connection made for another request was checked under other options
      lookup: pinnedLookup(addresses),
      ca: options.ca,
      ...hop.cert,
      signal,
    });
    const connectMs = options.connectTimeoutMs ?? FETCH_LIMITS.connectTimeoutMs;
    const connecting = setTimeout(() => request.destroy(refuse('timeout', target.href, `${target.host} did not accept a connection within ${connectMs} ms`)), connectMs);
    request.on('socket', (socket) => socket.once(target.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connecting)));
    request.on('response', (response) => {
      clearTimeout(connecting);
      resolve(response);
    });
    request.on('error', (error) => {
      clearTimeout(connecting);
      reject(error);
    });
    request.end(hop.body);
  });
}

async function readBody(response: IncomingMessage, url: string, maxBytes: number): Promise<Buffer> {
  const tooLarge = () => refuse('too-large', url, `${url} answered with more than ${sizeText(maxBytes)}; no more is read`);
  const declared = Number(response.headers['content-length']);
  if (declared > maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      response.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A body as text in its declared charset (UTF-8 when none is declared or the label is unknown). */
export function decodeBody(bytes: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return bytes.toString('utf8'); // an unknown charset label: RDF formats are UTF-8 anyway
  }
}

/** RFC 9111 §5.2.2: max-age, with no-store and no-cache meaning "do not reuse". */
function maxAgeOf(header: string | undefined): number | undefined {
  if (!header) return undefined;
  const directives = header.toLowerCase().split(',').map((d) => d.trim());
  if (directives.includes('no-store') || directives.includes('no-cache')) return 0;
  for (const directive of directives) {
    const match = /^max-age="?(\d+)"?$/.exec(directive);
    if (match) return Number(match[1]);
  }
  return undefined;
}

function typeOf(header: string | undefined): { mediaType: string | undefined; charset: string | undefined } {
  try {
    const parsed = contentType.parse(header ?? '');
    return { mediaType: parsed.type, charset: parsed.parameters.charset };
  } catch {
    return { mediaType: undefined, charset: undefined };
  }
}

function document(response: SafeResponse): FetchedDocument {
  const result: FetchedDocument = { url: response.url, status: response.status, mediaType: response.mediaType, body: decodeBody(response.bytes, response.charset) };
  const etag = response.headers.etag;
  if (etag) result.etag = etag;
  const maxAge = maxAgeOf(response.headers['cache-control']);
  if (maxAge !== undefined) result.maxAge = maxAge;
  return result;
}

/**
 * GETs an http(s) URL, following redirects. Refusals are LodestoneErrors with `data.reason`
 * (FetchFailure), of the kind a gateway answers: InvalidPath (400) for a URL that may not be
 * fetched (scheme, credentials, an internal address at any hop); BadGateway (502) for too many
 * redirects, a body past maxBytes, a host that cannot be resolved or reached; GatewayTimeout (504)
 * past timeoutMs or the connect timeout. Any HTTP status is a result, not an error.
 */
export async function safeFetch(url: string, options: SafeFetchOptions): Promise<FetchedDocument> {
  return document(await safeRequest(url, options));
}

/** Whether a redirect with `status` is followed for `method`: every kind for GET and HEAD, only the method-keeping ones for others. */
function follows(status: number, method: string): boolean {
  return REDIRECTS.has(status) && (method === 'GET' || method === 'HEAD' || KEEPING_METHOD.has(status));
}

/**
 * Sends a request under the same rules and refusals as `safeFetch`, and gives back the response
 * of any status with its headers and bytes. A redirect is followed for GET and HEAD, and for other
 * methods when it keeps the method (307, 308: the body is sent again); any other is the answer.
 */
export async function safeRequest(url: string, options: SafeRequestOptions): Promise<SafeResponse> {
  const timeoutMs = options.timeoutMs ?? FETCH_LIMITS.timeoutMs;
  const maxRedirects = options.maxRedirects ?? FETCH_LIMITS.maxRedirects;
  const method = (options.method ?? 'GET').toUpperCase();
  const controller = new AbortController();
  let current = checkedUrl(url);
  const origin = current.origin;
  const timedOut = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(refuse('timeout', current.href, `${current.href} did not answer within ${timeoutMs} ms`)));
  });
  timedOut.catch(() => undefined); // raced below; never unhandled
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    for (let hop = 0; ; hop++) {
      const addresses = await Promise.race([checkedAddresses(current, options), timedOut]);
      const identified = options.identity !== undefined && current.protocol === 'https:' && current.origin === origin;
      const headers = { accept: options.accept ?? RDF_ACCEPT, ...options.headers, ...(identified ? options.identity!.headers : {}) };
      const sent: Hop = { method, headers, body: options.body, ...(identified ? { cert: { cert: options.identity!.cert, key: options.identity!.key } } : {}) };
      const response = await Promise.race([send(current, addresses, sent, options, controller.signal), timedOut]);
      const location = response.headers.location;
      const status = response.statusCode ?? 0;
      if (follows(status, method) && location) {
        response.destroy();
        if (hop >= maxRedirects) throw refuse('redirects', current.href, `${url} redirected more than ${maxRedirects} times`);
        current = checkedUrl(location, current.href);
        continue;
      }
      const bytes = method === 'HEAD' ? Buffer.alloc(0) : await Promise.race([readBody(response, current.href, options.maxBytes ?? FETCH_LIMITS.maxBytes), timedOut]);
      if (method === 'HEAD') response.destroy();
      return { url: current.href, status, headers: response.headers, bytes, ...typeOf(response.headers['content-type']), identified };
    }
  } catch (error) {
    if (controller.signal.aborted) return timedOut;
    if (error instanceof LodestoneError) throw error;
    const cause = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    throw refuse('unreachable', current.href, `${current.href} could not be fetched (${cause})`);
  } finally {
    clearTimeout(timer);
  }
}
