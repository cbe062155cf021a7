/**
 * Origins (DESIGN.md, "Origins"): which web origins a dataspace trusts with its visitors'
 * credentials (its own always; those `serve --cors-origin` names, everywhere; those its description
 * in system.ttl names with `lds:corsOrigin`, there), and the headers every answer carries whatever
 * path answers it: `X-Content-Type-Options: nosniff`, and HSTS where the base is https on a real
 * name. Who is asking, given where the request comes from, is decided in authenticate.ts.
 */
import { isIP } from 'node:net';

/** Whether `origin` (as net/web-origin.ts `webOrigin` serialises it) is trusted with credentials by the dataspace at `base`. */
export type OriginTrust = (base: string, origin: string) => boolean;

/** The trust of every dataspace: its own origin, the origins trusted everywhere, and its own list (by base). */
export function originTrust(everywhere: readonly string[], perDataspace: ReadonlyMap<string, readonly string[]> = new Map()): OriginTrust {
  const global = new Set(everywhere);
  const own = new Map<string, Set<string>>();
  const listOf = (base: string): Set<string> => {
    let list = own.get(base);
    if (!list) {
      list = new Set([new URL(base).origin, ...(perDataspace.get(base) ?? [])]);
      own.set(base, list);
    }
    return list;
  };
  return (base, origin) => global.has(origin) || listOf(base).has(origin);
}

/** RFC 6797 §8.1: a year; not includeSubDomains (the server does not speak for names under its own). */
const HSTS = 'max-age=31536000';

/**
 * RFC 6797: HSTS is for a base reached over https at a real name; never for `localhost` (and names
 * under it) or an IP literal, where it would pin a browser's every local server to https (§8.3: a
 * UA ignores it for IP literals anyway).
 */
export function strictTransport(base: string): boolean {
  const { protocol, hostname } = new URL(base);
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return protocol === 'https:' && isIP(host) === 0 && host !== 'localhost' && !host.endsWith('.localhost');
}

/** The headers every answer about the dataspace at `base` carries (an unknown host's 404: `base` undefined). */
export function answerHeaders(base: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'X-Content-Type-Options': 'nosniff' }; // no body is ever sniffed into a script or a page
  if (base && strictTransport(base)) headers['Strict-Transport-Security'] = HSTS;
  return headers;
}

/** `vary` with `Origin` added (RFC 9110 §12.5.5): every answer may depend on it, since credentials do. */
export function varyOrigin(vary: string | undefined): string {
  if (!vary) return 'Origin';
  return vary.split(',').some((field) => field.trim().toLowerCase() === 'origin' || field.trim() === '*') ? vary : `${vary}, Origin`;
}
