/**
 * The proxy's way out (SPEC §4.5, §5.3): guarded requests (net/safe-fetch.ts) under the server's
 * outgoing-address rules and trusted certificate authorities, the secretary's client credentials
 * that proxied requests speak with, the cache of what came back, and the shipped vocabularies
 * that need no request at all. Built once by the
 * composition root; the limits of a proxied request are declared here.
 */
import type { ProxyCache } from './cache.js';
import { FETCH_LIMITS, safeRequest, type SafeFetchOptions, type SafeRequestOptions, type SafeResponse } from '../net/safe-fetch.js';
import type { Vocabularies } from '../net/vocabularies.js';

/** SPEC §4.5 limits: those of every outgoing request (a response past FETCH_LIMITS.maxBytes is a 502), but the whole exchange within 30 s (a remote query may take a while). */
export const PROXY_LIMITS: Readonly<Pick<SafeFetchOptions, 'maxBytes' | 'connectTimeoutMs' | 'timeoutMs'>> = { maxBytes: FETCH_LIMITS.maxBytes, connectTimeoutMs: FETCH_LIMITS.connectTimeoutMs, timeoutMs: 30_000 };

export interface Credentials {
  webId: string;
  /** PEM. */
  cert: string;
  key: string;
}

export interface Outbound {
  /** Sends a request under the server's outgoing rules and the proxy's limits. */
  send(url: string, options: Omit<SafeRequestOptions, keyof SafeFetchOptions>): Promise<SafeResponse>;
  /** Who proxied requests of identified agents speak as (with On-Behalf-Of); undefined: every request goes anonymously. */
  secretary: Credentials | undefined;
  cache: ProxyCache;
  /** The vocabularies answered without a request (vocabularies.ts). */
  vocabularies: Vocabularies;
}

export interface OutboundOptions {
  /** `--allow-internal-urls`. */
  allowInternal: boolean;
  /** Trusted certificate authorities (Node's list plus the server's own certificate, so dataspaces of this instance can be reached). */
  ca?: Array<string | Buffer>;
  secretary?: Credentials;
  /** For tests: how names resolve and which addresses are internal (safe-fetch.ts). */
  seams?: Pick<SafeFetchOptions, 'resolve' | 'isInternal'>;
  /** Overrides of PROXY_LIMITS (tests). */
  limits?: Partial<typeof PROXY_LIMITS>;
  /** The cache of origin responses and the shipped vocabularies, built by the composition root (which gives them to others too). */
  cache: ProxyCache;
  vocabularies: Vocabularies;
}

export function outbound(options: OutboundOptions): Outbound {
  const fixed: SafeFetchOptions = { allowInternal: options.allowInternal, ca: options.ca, ...PROXY_LIMITS, ...options.limits, ...options.seams };
  return {
    send: (url, request) => safeRequest(url, { ...request, ...fixed }),
    secretary: options.secretary,
    cache: options.cache,
    vocabularies: options.vocabularies,
  };
}
