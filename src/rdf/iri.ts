/**
 * IRIs and the documents they name. Pure.
 */

/** The document an IRI names: the IRI without its fragment (RFC 3986 §3.5), the URL it is fetched from or stored at. */
export function documentIri(iri: string): string {
  const hash = iri.indexOf('#');
  return hash < 0 ? iri : iri.slice(0, hash);
}
