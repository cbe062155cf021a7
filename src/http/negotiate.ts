/**
 * Proactive content negotiation (RFC 9110 §12.5.1) over one list of media types, with
 * LinkedDataHub's `?accept=` override for links in browsers. No Accept header means the first type
 * offered (Turtle for RDF). Dispatch negotiates (routes.ts, over the offers of offers.ts); handlers
 * do not.
 */
import { JSONLD } from '../rdf/media-types.js';
import Negotiator from 'negotiator';
import type { IncomingHttpHeaders } from 'node:http';
import { JSONLD_COMPACTED } from '../rdf/formats.js';
import { memo } from '../util/memo.js';

export function acceptOf(headers: IncomingHttpHeaders, querystring: string): string | undefined {
  if (querystring === '') return headers.accept;
  return new URLSearchParams(querystring).get('accept') ?? headers.accept;
}

/**
 * An Accept header without the media-type parameters Lodestone does not tell apart: `negotiator`
 * matches parameters exactly, so `text/turtle; charset=UTF-8` (Jena, rdflib) or JSON-LD with a
 * `profile` would find nothing. Only `q` is kept (RFC 9110 §12.5.1); a quoted comma ends no range.
 */
function withoutParameters(accept: string): string {
  const ranges = accept.match(/(?:[^,"]|"[^"]*")+/g) ?? [];
  return ranges
    .map((range) => {
      const [type, ...parameters] = range.split(';').map((part) => part.trim());
      return [type, ...parameters.filter((p) => /^q\s*=/i.test(p))].join(';');
    })
    .join(',');
}

const chooser = memo((key: string) => {
  const [accept, ...offered] = key.split('\n');
  return new Negotiator({ headers: { accept: withoutParameters(accept!) } }).mediaType(offered) ?? null;
});

/** The chosen media type, or undefined when nothing offered is acceptable (406). */
export function negotiate(accept: string | undefined, offered: readonly string[]): string | undefined {
  if (!accept || accept.trim() === '') return offered[0];
  return chooser(`${accept}\n${offered.join('\n')}`) ?? undefined;
}


/** Whether an `application/ld+json` range of `accept` asks for the compacted profile (with q above 0). */
function asksCompacted(accept: string): boolean {
  for (const range of accept.match(/(?:[^,"]|"[^"]*")+/g) ?? []) {
    const [type, ...parameters] = range.split(';').map((part) => part.trim());
    if (type?.toLowerCase() !== JSONLD) continue;
    const q = parameters.find((p) => /^q\s*=/i.test(p));
    if (q && Number(q.split('=')[1]) === 0) continue;
    if (parameters.some((p) => /^profile\s*=/i.test(p) && /json-ld#compacted/.test(p))) return true;
  }
  return false;
}

/** The representation of a document `accept` selects: an RDF type of `offered`, JSON-LD compacted when its profile asks for it. */
export function negotiateDocument(accept: string | undefined, offered: readonly string[]): string | undefined {
  const type = negotiate(accept, offered);
  return type === JSONLD && accept && asksCompacted(accept) ? JSONLD_COMPACTED : type;
}
