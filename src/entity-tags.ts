/**
 * The ETags of encoded variants (RFC 9110 §8.8.3): a representation sent with a content coding has
 * its own validator, the identity one with the coding before the closing quote (`"x"` → `"x-gzip"`,
 * `"x-br"`, as Apache names them). All three name the same content: a write's If-Match takes any
 * (documents/preconditions.ts), and the proxy sends an origin both forms (proxy/service.ts).
 */

/** The content codings a representation is sent in besides identity (http/compression.ts). */
export const CODINGS = ['br', 'gzip'] as const;
export type Coding = (typeof CODINGS)[number];

export function encodedTag(etag: string, coding: Coding): string {
  return `${etag.slice(0, -1)}-${coding}"`;
}

/** Whether `tag` names the content `current` names, in any coding (identity, gzip, br). */
export function sameContent(tag: string, current: string): boolean {
  return tag === current || CODINGS.some((coding) => tag === encodedTag(current, coding));
}

/**
 * An If-Match or If-None-Match list with each encoded variant's tag followed by the identity tag
 * it was made from, for an origin that knows only its own: `"x-gzip"` → `"x-gzip", "x"`. Either
 * names the same content (an origin whose own tag is `"x-gzip"` is Apache's gzip variant of `"x"`).
 */
export function withIdentityTags(list: string): string {
  if (list.trim() === '*') return list;
  const tags = list.split(',').map((tag) => tag.trim()).filter(Boolean);
  const identity = (tag: string) => {
    const match = /^((?:W\/)?"[^"]*)-(?:gzip|br)"$/.exec(tag);
    return match ? [tag, `${match[1]}"`] : [tag];
  };
  return [...new Set(tags.flatMap(identity))].join(', ');
}
