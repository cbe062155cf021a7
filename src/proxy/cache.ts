/**
 * The proxy's cache of other servers' responses (SPEC §8.5), by HTTP caching rules (RFC 9111,
 * through `http-cache-semantics`), kept apart per identity: a response is stored under the agent
 * whose delegated identity fetched it (or anonymous), and only ever reused for that agent, so one
 * agent never receives what another agent's credentials fetched. Each agent's part is a private
 * cache (RFC 9111 §3.5: `private` responses are kept; `s-maxage` is not read). A URL can hold one
 * response per variant (`Vary`). Bounded by bytes, least recently used dropped first. Writes
 * through the proxy and `purge` (admin/clear) drop every agent's copies of a URL.
 */
import CachePolicy from 'http-cache-semantics';

/** A request as the cache keys it: the URL, and the headers sent to the origin (Host among them). */
export interface CacheRequest {
  url: string;
  headers: Record<string, string>;
}

/** An origin's response as it is kept. */
export interface StoredResponse {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  headers: Record<string, string>;
  bytes: Buffer;
  /** From Content-Type, lower-cased, without parameters. */
  mediaType: string | undefined;
  charset: string | undefined;
}

export interface CachedVariant {
  policy: CachePolicy;
  /** The headers of the request it answered, for telling variants apart (Vary). */
  requested: Record<string, string>;
  response: StoredResponse;
  /** The body translated for clients (by media type), made once per variant. */
  outputs: Map<string, string>;
}

/** What a lookup found: a fresh response, or a stale one to revalidate with `validators`. */
export type CacheHit = { variant: CachedVariant; fresh: true } | { variant: CachedVariant; fresh: false; validators: Record<string, string> };

const DEFAULT_CAPACITY = 32 * 1024 * 1024;

function sizeOf(variants: readonly CachedVariant[]): number {
  let size = 0;
  for (const v of variants) {
    size += v.response.bytes.length;
    for (const output of v.outputs.values()) size += output.length;
  }
  return size;
}

/** Whether `variant` answered a request that selects what `request` selects: the fields its response's Vary names are equal. */
function varyMatches(variant: CachedVariant, request: CacheRequest): boolean {
  const vary = variant.response.headers.vary;
  if (!vary) return true;
  if (vary.trim() === '*') return false;
  return vary.split(',').every((field) => {
    const name = field.trim().toLowerCase();
    return (variant.requested[name] ?? '') === (request.headers[name] ?? '');
  });
}

export class ProxyCache {
  private readonly entries = new Map<string, CachedVariant[]>();
  private bytes = 0;

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  private static keyOf(identity: string | undefined, url: string): string {
    return `${identity ?? ''}\n${url}`;
  }

  private asked(request: CacheRequest): CachePolicy.Request {
    return { url: request.url, method: 'GET', headers: request.headers };
  }

  /** The response stored for `identity` that answers `request`: fresh, or stale with the validators to revalidate it. */
  find(identity: string | undefined, request: CacheRequest): CacheHit | undefined {
    const key = ProxyCache.keyOf(identity, request.url);
    const variants = this.entries.get(key);
    if (!variants) return undefined;
    this.touch(key, variants);
    const asked = this.asked(request);
    for (const variant of variants) {
      const evaluated = variant.policy.evaluateRequest(asked);
      if (evaluated.response && !evaluated.revalidation) return { variant, fresh: true };
    }
    for (const variant of variants) {
      const validators = variant.policy.revalidationHeaders(asked);
      const kept: Record<string, string> = {};
      for (const name of ['if-none-match', 'if-modified-since'] as const) {
        const value = validators[name];
        if (typeof value === 'string') kept[name] = value;
      }
      if (Object.keys(kept).length > 0 && variant.policy.storable()) return { variant, fresh: false, validators: kept };
    }
    return undefined;
  }

  /** Keeps the origin's answer to `request` when the caching rules let it be reused; returns what was kept. */
  store(identity: string | undefined, request: CacheRequest, response: StoredResponse): CachedVariant | undefined {
    const policy = new CachePolicy(this.asked(request), { status: response.status, headers: response.headers }, { shared: false });
    if (response.status !== 200 || !policy.storable() || response.bytes.length > this.capacity / 8) return undefined;
    const variant: CachedVariant = { policy, requested: request.headers, response, outputs: new Map() };
    this.replace(identity, request, variant);
    return variant;
  }

  /**
   * The origin answered a revalidation of `variant`: with 304 the stored body is reused under the
   * updated policy (returned); with anything else it is dropped and undefined is returned.
   */
  revalidated(identity: string | undefined, request: CacheRequest, variant: CachedVariant, response: { status: number; headers: Record<string, string> }): CachedVariant | undefined {
    const { policy, modified } = variant.policy.revalidatedPolicy(this.asked(request), response);
    if (modified || response.status !== 304) {
      this.drop(identity, request, variant);
      return undefined;
    }
    const updated: CachedVariant = { ...variant, policy };
    this.replace(identity, request, updated, variant);
    return updated;
  }

  /** Records a translation of a stored body, counted against the cache's bytes. */
  addOutput(variant: CachedVariant, mediaType: string, body: string): void {
    if (variant.outputs.has(mediaType)) return;
    variant.outputs.set(mediaType, body);
    this.bytes += body.length;
    this.evict();
  }

  /** Drops every agent's responses from `url` (RFC 9111 §4.4 after a write; admin/clear). Returns how many. */
  purge(url: string): number {
    let dropped = 0;
    for (const [key, variants] of this.entries) {
      if (key.slice(key.indexOf('\n') + 1) !== url) continue;
      this.entries.delete(key);
      this.bytes -= sizeOf(variants);
      dropped += variants.length;
    }
    return dropped;
  }

  private replace(identity: string | undefined, request: CacheRequest, variant: CachedVariant, previous?: CachedVariant): void {
    const key = ProxyCache.keyOf(identity, request.url);
    const before = this.entries.get(key) ?? [];
    const variants = [variant, ...before.filter((v) => v !== previous && !varyMatches(v, request))];
    this.bytes += sizeOf(variants) - sizeOf(before);
    this.entries.delete(key);
    this.entries.set(key, variants);
    this.evict();
  }

  private drop(identity: string | undefined, request: CacheRequest, variant: CachedVariant): void {
    const key = ProxyCache.keyOf(identity, request.url);
    const variants = this.entries.get(key);
    if (!variants) return;
    const rest = variants.filter((v) => v !== variant);
    this.bytes -= sizeOf(variants) - sizeOf(rest);
    if (rest.length) this.entries.set(key, rest);
    else this.entries.delete(key);
  }

  private touch(key: string, variants: CachedVariant[]): void {
    this.entries.delete(key);
    this.entries.set(key, variants);
  }

  private evict(): void {
    for (const [key, variants] of this.entries) {
      if (this.bytes <= this.capacity) break;
      this.entries.delete(key);
      this.bytes -= sizeOf(variants);
    }
  }
}
