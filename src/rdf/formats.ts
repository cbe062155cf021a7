/**
 * The one table of RDF formats (SPEC §4.1) and the functions that read and write them. Reading:
 * Turtle and N-Triples through N3.js (errors with line and column), RDF/POST through rdf-post.ts,
 * RDF/XML, N-Quads, TriG and JSON-LD through Oxigraph, behind guards for what it would otherwise
 * accept (RDF/XML entity declarations that expand without bound; a remote JSON-LD @context, which
 * is refused, not fetched, unless it ships with Lodestone: json-ld-contexts.ts inlines it first);
 * a request body's JSON-LD through jsonld.js, which names what it would drop (json-ld-body.ts).
 * Writing: N-Triples (and N-Quads, text/plain) is the canonical form itself, Turtle and TriG go
 * through N3.js with the prefixes of namespaces.ts that the graph uses, RDF/XML through
 * rdfxml-writer.ts, JSON-LD (expanded or compacted) through jsonld.js. Pure: no I/O.
 */
import type { Quad } from '@rdfjs/types';
import { Writer } from 'n3';
import oxigraph from 'oxigraph';
import { LodestoneError } from '../errors.js';
import { canonicalNTriples } from './canonical.js';
import { inlineBundledContexts } from './json-ld-contexts.js';
import { jsonLdProcessor, jsonLdToNQuads } from './json-ld-body.js';
import { HTML, JSONLD, JSONLD_COMPACTED, NQUADS, NTRIPLES, PLAIN, RDFPOST, RDFXML, TRIG, TURTLE } from './media-types.js';
import { ns } from './namespaces.js';
import { parseRdf, toJsQuads } from './ntriples.js';
import { parseRdfPost } from './rdf-post.js';
import { writeRdfXml } from './rdfxml-writer.js';

export interface Format {
  mediaType: string;
  /** Can be sent in a request body. */
  readable: boolean;
  /** Can be returned in a response. */
  writable: boolean;
}

// The names of the types live in media-types.ts (lint refuses a media-type literal elsewhere); the
// ones of RDF formats are exported here too, with the table, for the modules that read and write them.
export { HTML, JSONLD, JSONLD_COMPACTED, NQUADS, NTRIPLES, PLAIN, RDFPOST, RDFXML, TRIG, TURTLE };

// SPEC §4.1: the supported RDF media types; the first writable one is the default. A document is
// one graph: in N-Quads and TriG it is the default graph (or the graph named by the document's URL).
export const formats: readonly Format[] = [
  { mediaType: TURTLE, readable: true, writable: true },
  { mediaType: NTRIPLES, readable: true, writable: true },
  { mediaType: RDFXML, readable: true, writable: true },
  { mediaType: JSONLD, readable: true, writable: true },
  { mediaType: NQUADS, readable: true, writable: true },
  { mediaType: TRIG, readable: true, writable: true },
  { mediaType: PLAIN, readable: false, writable: true }, // asked for by old clients; a text/plain body is more often a mistake than N-Triples
  { mediaType: RDFPOST, readable: true, writable: false },
];

export const readableTypes = formats.filter((f) => f.readable).map((f) => f.mediaType);
export const writableTypes = formats.filter((f) => f.writable).map((f) => f.mediaType);

const MAX_ENTITY_EXPANSION = 1024 * 1024;

/**
 * RDF/XML may declare internal entities (OWL files use them for namespaces); nested or external
 * ones, and declarations whose references would expand past 1 MiB, are refused (billion laughs,
 * XXE), before the XML parser sees them.
 */
function guardXmlEntities(text: string): void {
  const doctype = /<!DOCTYPE[^[>]*(\[([\s\S]*?)\])?\s*>/i.exec(text);
  if (!doctype) {
    if (/<!ENTITY/i.test(text)) throw new LodestoneError('SyntaxError', 'RDF/XML: an entity declaration outside a DOCTYPE');
    return;
  }
  const entities = new Map<string, number>();
  const declaration = /<!ENTITY\s+(%\s+)?([^\s]+)\s+(?:(SYSTEM|PUBLIC)\b[^>]*|"([^"]*)"|'([^']*)')\s*>/g;
  for (const match of (doctype[2] ?? '').matchAll(declaration)) {
    const [, parameter, name, external, double, single] = match;
    const value = double ?? single ?? '';
    if (parameter || external) throw new LodestoneError('SyntaxError', `RDF/XML: the entity "${name}" is external or a parameter entity; only internal entities are accepted`);
    if (value.includes('&') || value.includes('%')) throw new LodestoneError('SyntaxError', `RDF/XML: the entity "${name}" refers to other entities; nested entities are not accepted`);
    entities.set(name!, value.length);
  }
  let expansion = 0;
  for (const match of text.matchAll(/&([A-Za-z_][\w.-]*);/g)) {
    expansion += entities.get(match[1]!) ?? 0;
    if (expansion > MAX_ENTITY_EXPANSION) throw new LodestoneError('SyntaxError', 'RDF/XML: entity references expand past 1 MiB');
  }
}

/** `positioned`: the parser read the client's own text, so a line and column in its message are the client's. */
function syntaxError(error: unknown, mediaType: string, positioned = true): LodestoneError {
  const message = error instanceof Error ? error.message : String(error);
  const position = positioned ? /line (\d+) column (\d+)/.exec(message) : null;
  let reason = message;
  if (/LoadDocumentCallback|remote context/i.test(message)) reason = 'remote JSON-LD @context documents are not fetched; inline the context (only schema.org\'s ships with the server)';
  return new LodestoneError('SyntaxError', `invalid ${mediaType}: ${reason}`, position ? { line: Number(position[1]), column: Number(position[2]) } : {});
}

/**
 * Parses a request body into the triples of one graph. `base` resolves relative IRIs. Turtle and
 * N-Triples go through N3.js (JS terms, errors with line and column); RDF/XML, JSON-LD, N-Quads
 * and TriG through Oxigraph, converted to JS terms once. A character outside the BMP escaped as a
 * surrogate pair reads alike in all of them, and half a pair is refused by all. `mergeGraphs` (a
 * response of another server, read by the proxy): the triples of every graph of a dataset are
 * taken as one graph, where a request body may name no graph but the document's.
 */
export function parseBody(text: string, mediaType: string, base: string, options: { mergeGraphs?: boolean } = {}): Quad[] {
  if (mediaType === RDFPOST) return parseRdfPost(text, base);
  if (mediaType === TURTLE || mediaType === NTRIPLES) {
    let quads: Quad[];
    try {
      quads = parseRdf(text, { format: mediaType === TURTLE ? TURTLE : 'N-Triples', baseIRI: base });
    } catch (error) {
      if (error instanceof LodestoneError) throw new LodestoneError('SyntaxError', `invalid ${mediaType}: ${error.message}`, error.data);
      throw error;
    }
    if (SURROGATE_ESCAPE.test(text)) refuseLoneSurrogates(quads, mediaType);
    return quads;
  }
  if (mediaType === RDFXML) guardXmlEntities(text);
  const source = mediaType === JSONLD ? inlineBundledContexts(text) : mediaType === NQUADS || mediaType === TRIG ? joinSurrogateEscapes(text) : text;
  let quads: Quad[];
  try {
    quads = oxigraph.parse(source, { format: mediaType, base_iri: base }) as unknown as Quad[];
  } catch (error) {
    throw syntaxError(error, mediaType, source === text);
  }
  if (options.mergeGraphs) return toJsQuads(inDefaultGraph(quads));
  if (mediaType === NQUADS || mediaType === TRIG) return toJsQuads(oneGraph(quads, base, mediaType));
  if (quads.some((q) => q.graph.termType !== 'DefaultGraph')) {
    throw new LodestoneError('SyntaxError', `invalid ${mediaType}: a document is one graph; named graphs are not accepted`);
  }
  return toJsQuads(quads);
}

/**
 * The triples of a request body (PUT, POST), with every value as it was sent: as parseBody, but a
 * JSON-LD value its processor would drop (json-ld-body.ts), or an IRI or language tag that the index
 * (Oxigraph: RFC 3987, BCP 47) would not load, is a 400 naming it where it would have been left out,
 * changed or left unindexed (issue 25).
 */
export async function parseRequestBody(text: string, mediaType: string, base: string): Promise<Quad[]> {
  if (mediaType !== JSONLD) return refuseUnloadable(parseBody(text, mediaType, base), mediaType);
  const nquads = await jsonLdToNQuads(text, base);
  const lone = LONE_SURROGATE.exec(nquads); // before Oxigraph, which would read it as U+FFFD
  if (lone) throw new LodestoneError('SyntaxError', `invalid ${mediaType}: a \\u escape of half a UTF-16 surrogate pair, in ${JSON.stringify(nquads.slice(Math.max(0, lone.index - 40), lone.index + 40))}`);
  let quads: Quad[];
  try {
    quads = oxigraph.parse(nquads, { format: NQUADS }) as unknown as Quad[];
  } catch (error) {
    // the N-Quads are ours, not the client's: name the triple that holds the value instead of a line of them
    const message = error instanceof Error ? error.message : String(error);
    const line = /line (\d+)/.exec(message);
    const triple = line ? nquads.split('\n')[Number(line[1]) - 1]?.slice(0, 300) : undefined;
    throw new LodestoneError('SyntaxError', `invalid ${mediaType}: ${triple ? `the triple ${triple} cannot be stored: ` : ''}${message.replace(/^Parser error at line \d+ (between columns \d+ and \d+|column \d+): /, '')}`);
  }
  if (quads.some((q) => q.graph.termType !== 'DefaultGraph')) {
    throw new LodestoneError('SyntaxError', `invalid ${mediaType}: a document is one graph; named graphs are not accepted`);
  }
  return toJsQuads(quads);
}

/**
 * N3.js (Turtle, N-Triples) and RDF/POST take IRIs and language tags that Oxigraph refuses (`@en-a`,
 * a subtag past eight letters): such a document would be stored and then left out of the index.
 * Each distinct IRI and tag is checked once by Oxigraph's own constructors.
 */
function refuseUnloadable(quads: Quad[], mediaType: string): Quad[] {
  if (mediaType !== TURTLE && mediaType !== NTRIPLES && mediaType !== RDFPOST) return quads; // Oxigraph read it
  const iris = new Set<string>();
  const tags = new Set<string>();
  for (const q of quads) {
    for (const term of [q.subject, q.predicate, q.object]) if (term.termType === 'NamedNode') iris.add(term.value);
    if (q.object.termType === 'Literal') {
      if (q.object.language) tags.add(q.object.language);
      else iris.add(q.object.datatype.value);
    }
  }
  const check = (make: () => unknown, what: string) => {
    try {
      make();
    } catch (error) {
      throw new LodestoneError('SyntaxError', `invalid ${mediaType}: ${what} (${error instanceof Error ? error.message : String(error)})`);
    }
  };
  for (const tag of tags) check(() => oxigraph.literal('', tag), `"${tag}" is not a well-formed language tag (BCP 47)`);
  for (const iri of iris) check(() => oxigraph.namedNode(iri), `<${iri}> is not an IRI`);
  return quads;
}

/** A `\u` escape of a UTF-16 surrogate (the text of a body decoded from UTF-8 has none raw). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * N3.js reads a `\u` escape of half a surrogate pair as that half alone, which would be stored as
 * U+FFFD; Oxigraph refuses it, and so, for every format alike, is it refused here.
 */
function refuseLoneSurrogates(quads: readonly Quad[], mediaType: string): void {
  for (const q of quads) {
    for (const term of [q.subject, q.predicate, q.object]) {
      if (LONE_SURROGATE.test(term.value)) {
        throw new LodestoneError('SyntaxError', `invalid ${mediaType}: a \\u escape of half a UTF-16 surrogate pair, in ${JSON.stringify(term.value.slice(0, 80))}; escape a character outside the BMP as \\UXXXXXXXX or as both halves of its pair`);
      }
    }
  }
}

/**
 * Some writers (rdflib.js 2.4's N-Triples and N-Quads) escape a character outside the BMP as its
 * UTF-16 surrogate pair, `\ud83e\udd84`. N3.js, which reads Turtle and N-Triples, joins such a pair
 * into its character; Oxigraph, which reads N-Quads and TriG, refuses a surrogate escape. So that
 * every format reads the same text alike, each escaped pair becomes one `\UXXXXXXXX` escape before
 * Oxigraph parses (a lone surrogate is left for it to refuse); an escaped backslash, `\\`, is
 * stepped over first, so a literal backslash followed by `u` stays as it was.
 */
function joinSurrogateEscapes(text: string): string {
  return text.replace(/\\(\\|u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2}))/g, (whole, _escape: string, high: string | undefined, low: string | undefined) => {
    if (!high || !low) return whole;
    const codePoint = 0x10000 + ((parseInt(high, 16) - 0xd800) << 10) + (parseInt(low, 16) - 0xdc00);
    return `\\U${codePoint.toString(16).toUpperCase().padStart(8, '0')}`;
  });
}

/** The triples of a dataset body that names at most the document's own graph (`base`): any other graph is a 422. */
function oneGraph(quads: Quad[], base: string, mediaType: string): Quad[] {
  const other = quads.find((q) => q.graph.termType !== 'DefaultGraph' && q.graph.value !== base);
  if (other) {
    const name = other.graph.termType === 'NamedNode' ? `<${other.graph.value}>` : `a blank node graph`;
    throw new LodestoneError('ConstraintViolation', `a document is one graph: this ${mediaType} body names the graph ${name}; put its triples in the default graph or in <${base}>`);
  }
  return inDefaultGraph(quads);
}

function inDefaultGraph(quads: Quad[]): Quad[] {
  return quads.map((q) => (q.graph.termType === 'DefaultGraph' ? q : (oxigraph.quad(q.subject as oxigraph.Quad['subject'], q.predicate as oxigraph.Quad['predicate'], q.object as oxigraph.Quad['object'], oxigraph.defaultGraph()) as unknown as Quad)));
}

/** The prefixes of ns.ts that occur in the graph, for a readable Turtle serialisation. */
function usedPrefixes(quads: readonly Quad[]): Record<string, string> {
  const used: Record<string, string> = {};
  const entries = Object.entries(ns);
  const visit = (value: string) => {
    for (const [prefix, iri] of entries) if (value.startsWith(iri)) used[prefix] = iri;
  };
  for (const q of quads) {
    visit(q.predicate.value);
    if (q.object.termType === 'NamedNode') visit(q.object.value);
    if (q.object.termType === 'Literal') visit(q.object.datatype.value);
  }
  return used;
}

/**
 * N3.js writes a character outside the BMP as `\U0001F984`; some clients (rdflib.js) decode that
 * wrongly and write the damage back. Every other format Lodestone sends carries raw UTF-8, so
 * Turtle does too: each `\UXXXXXXXX` escape becomes its character (an escaped backslash, `\\`,
 * is stepped over first, so a literal backslash followed by `U` stays as it was).
 */
function unescapeAstral(turtle: string): string {
  return turtle.replace(/\\(\\|U([0-9A-Fa-f]{8}))/g, (whole, _escape: string, hex: string | undefined) => (hex ? String.fromCodePoint(parseInt(hex, 16)) : whole));
}

/**
 * Writes the triples of one graph, given as canonical N-Triples text, in `mediaType`. Nothing goes
 * through an Oxigraph store here: a store normalises literals (`"01"^^xsd:integer` becomes `"1"`),
 * and a document is served exactly as stored.
 */
export async function serialise(ntriples: string, mediaType: string): Promise<string> {
  // N-Triples lines are N-Quads in the default graph, and Turtle is TriG's default graph
  if (mediaType === NTRIPLES || mediaType === NQUADS || mediaType === PLAIN) return ntriples;
  // the canonical labels are kept (N3.js would prefix them per parse): one version of a document has one
  // serialisation in each format, byte for byte, whenever it is made, as its strong ETag promises
  const quads = parseRdf(ntriples, { keepBlankNodeLabels: true });
  if (mediaType === RDFXML) return writeRdfXml(quads);
  if (mediaType === JSONLD) return JSON.stringify(await (await jsonLdProcessor()).fromRDF(ntriples, { format: NQUADS }));
  if (mediaType === JSONLD_COMPACTED) {
    // compacted with a context of the prefixes of ns.ts the graph uses: short keys, no remote context
    const jsonld = await jsonLdProcessor();
    const expanded = await jsonld.fromRDF(ntriples, { format: NQUADS });
    return JSON.stringify(await jsonld.compact(expanded, { '@context': usedPrefixes(quads) }));
  }
  if (mediaType === TURTLE || mediaType === TRIG) {
    const writer = new Writer({ format: TURTLE, prefixes: usedPrefixes(quads) });
    let out = '';
    writer.addQuads(quads as Parameters<Writer['addQuads']>[0]);
    writer.end((error, result) => {
      if (error) throw error;
      out = result;
    });
    return unescapeAstral(out);
  }
  throw new LodestoneError('SyntaxError', `${mediaType} is not a format Lodestone writes`);
}

/** Writes triples (any term model) in `mediaType`, through their canonical N-Triples. */
export async function serialiseQuads(quads: readonly Quad[], mediaType: string): Promise<string> {
  return serialise(await canonicalNTriples(quads), mediaType);
}
