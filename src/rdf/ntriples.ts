/**
 * N-Triples in and out. The writer produces the canonical form of RDF 1.2 N-Triples (the escaping
 * RDFC-1.0 uses): one line per triple, `xsd:string` literals without a datatype, and the lines joined
 * as canonical text (sorted by code point, no duplicates). The parser wraps
 * N3.js and turns its errors into LodestoneErrors that carry a line and a column.
 */
import type { Quad, Term } from '@rdfjs/types';
import { DataFactory, Parser } from 'n3';
import { LodestoneError } from '../errors.js';

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';

const literalEscapes = /[\u0000-\u001F\u007F"\\]/g;
const iriEscapes = /[\u0000-\u0020<>"{}|^`\\]/g;
const echar: Record<string, string> = {
  '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r', '"': '\\"', '\\': '\\\\',
};

function uchar(char: string): string {
  return '\\u' + char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
}

function escapeLiteral(value: string): string {
  return value.replace(literalEscapes, (char) => echar[char] ?? uchar(char));
}

function escapeIri(value: string): string {
  return value.replace(iriEscapes, uchar);
}

/** One term in N-Triples syntax; blank nodes keep the label they have. */
export function termToNTriples(term: Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return `<${escapeIri(term.value)}>`;
    case 'BlankNode':
      return `_:${term.value}`;
    case 'Literal': {
      const lexical = `"${escapeLiteral(term.value)}"`;
      if (term.language) return `${lexical}@${term.language}`;
      const datatype = term.datatype.value;
      if (datatype === XSD_STRING || datatype === LANG_STRING) return lexical;
      return `${lexical}^^<${escapeIri(datatype)}>`;
    }
    default:
      throw new LodestoneError('SyntaxError', `a ${term.termType} cannot appear in N-Triples`);
  }
}

/** One triple as a line, without the trailing newline. The graph of the quad is ignored. */
export function tripleLine(quad: Quad): string {
  return `${termToNTriples(quad.subject)} ${termToNTriples(quad.predicate)} ${termToNTriples(quad.object)} .`;
}

const surrogate = /[\uD800-\uDFFF]/;

/** Sorts lines by Unicode code point (UTF-16 order differs only when astral characters occur). */
function sortByCodePoint(lines: string[]): string[] {
  if (!lines.some((line) => surrogate.test(line))) return lines.sort();
  return lines.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** Joins lines into the canonical text: sorted by code point, duplicates dropped. */
export function joinUnique(lines: string[]): string {
  let text = '';
  let previous: string | undefined;
  for (const line of sortByCodePoint(lines)) {
    if (line === previous) continue;
    text += line + '\n';
    previous = line;
  }
  return text;
}

export interface ParseOptions {
  /** Media type understood by N3.js: 'N-Triples', 'text/turtle', 'application/n-quads'. */
  format?: string;
  /** Base IRI for relative references (Turtle only: N-Triples has none). */
  baseIRI?: string;
  /** Keep blank node labels as written (N3.js prefixes them per parse by default). */
  keepBlankNodeLabels?: boolean;
}

/**
 * Parses RDF text into quads. A syntax error becomes a LodestoneError('SyntaxError') with `line`
 * and `column` (1-based) in its data, so a 400 or a log line can say where the text broke.
 */
export function parseRdf(text: string, options: ParseOptions = {}): Quad[] {
  const format = options.format ?? 'N-Triples';
  const parser = new Parser({ format, baseIRI: options.baseIRI, ...(options.keepBlankNodeLabels ? { blankNodePrefix: '' } : {}) });
  try {
    return parser.parse(text);
  } catch (error) {
    throw syntaxError(error, text);
  }
}

interface N3ErrorContext {
  line?: number;
  previousToken?: { end?: number; line?: number };
}

function syntaxError(error: unknown, text: string): LodestoneError {
  const message = error instanceof Error ? error.message : String(error);
  const context = (error as { context?: N3ErrorContext }).context ?? {};
  const line = context.line ?? 1;
  const lineText = text.split('\n')[line - 1] ?? '';
  let column = 1;
  const previous = context.previousToken;
  if (previous?.end !== undefined && previous.line === line) {
    column = previous.end;
    while (column < lineText.length && /\s/.test(lineText[column] ?? '')) column++;
    column += 1;
  } else {
    const firstNonSpace = lineText.search(/\S/);
    column = firstNonSpace < 0 ? 1 : firstNonSpace + 1;
  }
  const reason = message.replace(/ on line \d+\.?$/, '');
  return new LodestoneError('SyntaxError', `${reason} at line ${line}, column ${column}`, { line, column });
}

/**
 * Oxigraph's terms live in WebAssembly: every property read crosses into it. Quads that JS code
 * will read are converted to N3.js terms once, here.
 */
export function toJsQuads(quads: Iterable<Quad>): Quad[] {
  const { namedNode, blankNode, literal, quad } = DataFactory;
  const term = (t: Term): Term => {
    const value = t.value;
    switch (t.termType) {
      case 'NamedNode':
        return namedNode(value);
      case 'BlankNode':
        return blankNode(value);
      case 'Literal': {
        const language = t.language;
        return language ? literal(value, language) : literal(value, namedNode(t.datatype.value));
      }
      default:
        return DataFactory.defaultGraph();
    }
  };
  const out: Quad[] = [];
  for (const q of quads) out.push(quad(term(q.subject) as Quad['subject'], term(q.predicate) as Quad['predicate'], term(q.object) as Quad['object']));
  return out;
}
