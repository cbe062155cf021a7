/**
 * What a route offers (issue 26): named kinds of representation, each with its media types in the
 * order of preference, defined once. The route table names a kind per row; dispatch negotiates the
 * request's Accept (or `?accept=`) against it once and hands the handler the decided type. A kind
 * with a page lists HTML after every other type, so only a client that prefers it (a browser)
 * gets one.
 */
import { JSON_TYPE, LINK_FORMAT } from '../rdf/media-types.js';
import { HTML, PLAIN, writableTypes } from '../rdf/formats.js';
import { resultTypes } from '../rdf/sparql-results.js';
import { negotiate, negotiateDocument } from './negotiate.js';

export type OfferKind = 'document' | 'graph' | 'graphPage' | 'answers' | 'timemap' | 'diff' | 'status' | 'page' | 'asset' | 'none';

export interface Offer {
  /** The media types offered, best first (the first is served when no Accept is sent). */
  types: readonly string[];
  /** A type served when nothing offered is acceptable, instead of a 406. */
  fallback?: string;
  /** JSON-LD's compacted profile is told apart (RDF of a document or graph). */
  profiles?: boolean;
}

/** Every kind's offer. `answers` holds both SPARQL result sets and graphs: which applies is known once the query is read (`pick`). */
export const OFFERS: Readonly<Record<OfferKind, Offer>> = {
  document: { types: [...writableTypes, HTML], profiles: true },
  graph: { types: writableTypes, profiles: true },
  /** A graph a browser reads as a page too (`settings`, a document's `?blame`): read as a document is, written as RDF. */
  graphPage: { types: [...writableTypes, HTML], profiles: true },
  answers: { types: [...resultTypes, ...writableTypes, HTML] },
  timemap: { types: [...writableTypes, LINK_FORMAT, HTML] },
  diff: { types: [PLAIN, HTML], fallback: PLAIN },
  // JSON first, and to a browser too: a status is read by people with jq as often as by programs
  status: { types: [JSON_TYPE, ...writableTypes], fallback: JSON_TYPE },
  page: { types: [HTML], fallback: HTML },
  asset: { types: [] },
  none: { types: [] },
};

/** The narrower offers a handler may pick from once it knows more than the row (a query's result form, a proxied response's kind). */
export const NARROWER = {
  /** The RDF of a document or graph, no page (a HEAD that may not read, a write's validator, an origin's RDF). */
  rdf: { types: writableTypes, profiles: true },
  /** SELECT and ASK results. */
  results: { types: resultTypes },
  /** CONSTRUCT and DESCRIBE results, and a Service Description (Turtle when none is acceptable: probes get an answer). */
  graphs: { types: writableTypes },
} satisfies Record<string, Offer>;

/** The type of `offer` that `accept` selects (undefined: none, a 406 unless the offer has a fallback). */
export function choose(offer: Offer, accept: string | undefined): string | undefined {
  if (offer.types.length === 0) return undefined;
  const type = offer.profiles ? negotiateDocument(accept, offer.types) : negotiate(accept, offer.types);
  return type ?? offer.fallback;
}
