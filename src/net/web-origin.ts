/**
 * Web origins (RFC 6454 §4, as WHATWG URL serialises them): what `--cors-origin`, a dataspace's
 * `lds:corsOrigin` in system.ttl and a request's `Origin` header are read as. Pure; the trust in
 * them is http/origins.ts's, their reading in configuration config.ts's and system-config.ts's.
 */

/** `value` as an origin (`https://app.example:8443`: scheme, host, port), or undefined when it is not one (a path, a query, user info, `null`). */
export function webOrigin(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash || value.endsWith('?') || value.endsWith('#')) return undefined;
  return url.origin;
}
