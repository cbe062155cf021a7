/**
 * What the server reads of SPARQL text before it runs it: a cheap bound on nesting, checked on the
 * thread that answers requests (a linear scan), and the shape of a query (its form and FROM
 * clauses), parsed by sparqljs in a worker with a deadline (sparqljs takes time that grows with
 * the cube of the nesting: 2,000 levels take 4 s). Pure: no I/O.
 */
import sparqljs from 'sparqljs';
import { LodestoneError } from '../errors.js';

/** Deepest nesting of `{`, `(` and `[` accepted in a query or update; real ones stay below 20. */
export const MAX_SPARQL_NESTING = 100;

/**
 * Refuses SPARQL text nested deeper than MAX_SPARQL_NESTING, counting brackets outside strings,
 * IRIs and comments. `what` names the text for the message ("the query", "the update").
 */
export function boundNesting(text: string, what: string, code: 'BadQuery' | 'InvalidUpdate' = 'BadQuery'): void {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{' || c === '(' || c === '[') {
      if (++depth > max) max = depth;
      if (max > MAX_SPARQL_NESTING) throw new LodestoneError(code, `${what} nests groups more than ${MAX_SPARQL_NESTING} deep; write it with less nesting`);
    } else if (c === '}' || c === ')' || c === ']') depth--;
    else if (c === '#') i = skipTo(text, i, '\n');
    else if (c === '<') i = skipIri(text, i);
    else if (c === '"' || c === "'") i = skipString(text, i);
  }
}

function skipTo(text: string, from: number, end: string): number {
  const at = text.indexOf(end, from + 1);
  return at < 0 ? text.length : at;
}

const IRIREF = /<[^<>"{}|^`\\\x00-\x20]*>/y;

/** The index of the `>` closing an IRI that opens at `from`, or `from` itself for a less-than sign. */
function skipIri(text: string, from: number): number {
  IRIREF.lastIndex = from;
  return IRIREF.test(text) ? IRIREF.lastIndex - 1 : from;
}

/** The index of the quote that closes the string opening at `from` (short or long form). */
function skipString(text: string, from: number): number {
  const quote = text[from]!;
  const long = text.startsWith(quote.repeat(3), from);
  const close = long ? quote.repeat(3) : quote;
  for (let i = from + close.length; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text.startsWith(close, i)) return i + close.length - 1;
    else if (!long && text[i] === '\n') return i;
  }
  return text.length;
}

/** What the endpoint needs to know of a query before it runs it. */
export interface QueryShape {
  /** CONSTRUCT or DESCRIBE: the result is a graph. */
  graphResult: boolean;
  hasFrom: boolean;
  fromDefault: string[];
  fromNamed: string[];
  /** The text is an update, which the endpoint refuses. */
  update: boolean;
}

export function queryShape(query: string, base: string): QueryShape {
  let parsed: sparqljs.SparqlQuery;
  try {
    parsed = new sparqljs.Parser({ baseIRI: base }).parse(query);
  } catch (error) {
    throw new LodestoneError('BadQuery', `the query is not valid SPARQL: ${(error as Error).message.split('\n')[0]}`);
  }
  if (parsed.type === 'update') return { graphResult: false, hasFrom: false, fromDefault: [], fromNamed: [], update: true };
  const from = (parsed as { from?: { default: { value: string }[]; named: { value: string }[] } }).from;
  return {
    graphResult: parsed.queryType === 'CONSTRUCT' || parsed.queryType === 'DESCRIBE',
    hasFrom: Boolean(from),
    fromDefault: from?.default.map((g) => g.value) ?? [],
    fromNamed: from?.named.map((g) => g.value) ?? [],
    update: false,
  };
}
