/**
 * Origins (DESIGN.md, "Origins"): which web origins a dataspace trusts with its visitors'
 * credentials (its own always; those `serve --cors-origin` names, everywhere; those its description
 * in system.ttl names with `lds:corsOrigin`, there). Who is asking, given where the request comes
 * from, is decided in authenticate.ts.
 */
/** Whether `origin` (as `webOrigin` serialises it) is trusted with credentials by the dataspace at `base`. */
export type OriginTrust = (base: string, origin: string) => boolean;

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
