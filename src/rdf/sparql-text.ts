/**
 * What the server reads of SPARQL text before it runs it: a cheap bound on nesting, checked on the
 * thread that answers requests (a linear scan), and the shape of a query (its form and FROM
 * clauses), parsed by sparqljs in a worker with a deadline (sparqljs takes time that grows with
 * the cube of the nesting: 2,000 levels take 4 s). Pure: no I/O.
 */
import sparqljs from 'sparqljs';
import { LodestoneError } from '../errors.js';
import { commentEnd, iriEnd, stringEnd } from './text-tokens.js';

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
    else if (c === '#') i = commentEnd(text, i) - 1;
    else if (c === '<') i = (iriEnd(text, i) ?? i + 1) - 1;
    else if (c === '"' || c === "'") i = stringEnd(text, i) - 1;
  }
}

/**
 * What a SPARQL parser error says, whole: the line and column, what was expected and what came
 * instead, and the text just before the position (sparqljs's message starts "Parse error on line
 * 1:" and puts the rest on the lines after).
 */
export function sparqlSyntaxError(error: unknown): { message: string; line?: number; column?: number } {
  const text = error instanceof Error ? error.message : String(error);
  const hash = (error as { hash?: { token?: string; text?: string; loc?: { first_line: number; first_column: number }; expected?: string[] } }).hash;
  if (!hash?.loc) return { message: text.replace(/\s*\n\s*/g, ' ') };
  const line = hash.loc.first_line;
  const column = hash.loc.first_column + 1;
  const lines = text.split('\n');
  const context = lines[1]?.trim();
  const expected = (hash.expected ?? []).map((t) => t.replace(/'/g, ''));
  const wanted = expected.length === 0 ? '' : `expected ${expected.length > 8 ? `one of ${expected.slice(0, 8).join(', ')}, …` : expected.join(' or ')}, `;
  const got = hash.token === 'EOF' ? 'the end of the text' : `"${hash.text ?? hash.token}"`;
  return { message: `line ${line}, column ${column}: ${wanted}got ${got}${context ? ` (after "${context}")` : ''}`, line, column };
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
  /** An ASK query: its boolean result has its own CSV and TSV forms. */
  ask?: boolean;
  /**
   * A `SELECT *` query rewritten to project its variables in order of appearance (as Jena, rdflib
   * and Virtuoso do; Oxigraph sorts them), so CSV columns and `head.vars` come in that order.
   */
  projected?: string;
  /**
   * The query as it runs: written again from what was parsed (so the engine runs what was checked,
   * not text another parser might read otherwise), `SELECT *` projected in order, FROM and FROM
   * NAMED taken out (the endpoint gives the dataset: `fromDefault`, `fromNamed`).
   */
  text: string;
}

/**
 * IRIs that name an engine's own machinery rather than data: Jena's special graphs (its real
 * default graph under a union), Jena's Java function loader, Virtuoso's SQL and built-in functions.
 * A query naming one is refused before any engine sees it (issue 27: nothing reaches beyond the dataspace).
 */
const ENGINE_IRIS = ['urn:x-arq:', 'java:', 'bif:', 'sql:', 'http://www.openlinksw.com/schemas/', 'http://www.openlinksw.com/virtrdf'];

/** Why a parsed query reaches beyond the dataspace's documents, or undefined. */
function reachesOut(node: unknown): string | undefined {
  if (!node || typeof node !== 'object') return undefined;
  if (Array.isArray(node)) {
    for (const item of node) {
      const why = reachesOut(item);
      if (why) return why;
    }
    return undefined;
  }
  const record = node as { type?: string; termType?: string; value?: string };
  if (record.type === 'service') return 'SERVICE is not accepted: the endpoint queries the documents of this dataspace only';
  if (record.termType === 'NamedNode') {
    const iri = record.value!.toLowerCase();
    const engine = ENGINE_IRIS.find((prefix) => iri.startsWith(prefix));
    return engine && `<${record.value}> names a SPARQL engine's own graphs or functions, which the endpoint does not offer`;
  }
  for (const value of Object.values(node)) {
    const why = reachesOut(value);
    if (why) return why;
  }
  return undefined;
}

/** Every variable in a parsed term or triple (property paths and quoted triples included), in order. */
function termVariables(node: unknown, out: Set<string>): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach((n) => termVariables(n, out));
  const term = node as { termType?: string; value?: string };
  if (term.termType === 'Variable') out.add(term.value!);
  else for (const value of Object.values(node)) termVariables(value, out);
}

/** The variables a group pattern makes visible to `SELECT *`, in order of appearance (SPARQL 1.1 §18.2.1, in-scope variables). */
function inScope(patterns: readonly Record<string, unknown>[], out: Set<string>): void {
  for (const pattern of patterns) {
    switch (pattern.type) {
      case 'bgp':
        termVariables(pattern.triples, out);
        break;
      case 'graph':
      case 'service':
        termVariables(pattern.name, out);
        inScope(pattern.patterns as Record<string, unknown>[], out);
        break;
      case 'optional':
      case 'union':
      case 'group':
        inScope(pattern.patterns as Record<string, unknown>[], out);
        break;
      case 'bind':
        termVariables(pattern.variable, out);
        break;
      case 'values':
        for (const row of pattern.values as Record<string, unknown>[]) for (const key of Object.keys(row)) out.add(key.replace(/^\?/, ''));
        break;
      case 'query': {
        const variables = pattern.variables as Array<Record<string, unknown>>;
        if (variables.some((v) => v.termType === 'Wildcard')) inScope(pattern.where as Record<string, unknown>[], out);
        else for (const v of variables) termVariables('variable' in v ? v.variable : v, out);
        break;
      }
      default: // filter, minus: bind nothing
    }
  }
}

/** A `SELECT *` query made to project its variables in order of appearance, or undefined when Oxigraph's order is already that. */
function projectInOrder(parsed: sparqljs.SelectQuery): sparqljs.SelectQuery | undefined {
  if (!parsed.variables.some((v) => (v as { termType?: string }).termType === 'Wildcard') || parsed.group) return undefined;
  const order = new Set<string>();
  inScope((parsed.where ?? []) as unknown as Record<string, unknown>[], order);
  const names = [...order];
  if (names.length < 2 || names.every((name, i) => i === 0 || names[i - 1]! < name)) return undefined;
  return { ...parsed, variables: names.map((value) => ({ termType: 'Variable', value })) } as unknown as sparqljs.SelectQuery;
}

export function queryShape(query: string, base: string): QueryShape {
  let parsed: sparqljs.SparqlQuery;
  try {
    parsed = new sparqljs.Parser({ baseIRI: base }).parse(query);
  } catch (error) {
    const { message, line, column } = sparqlSyntaxError(error);
    throw new LodestoneError('BadQuery', `the query is not valid SPARQL: ${message}`, line === undefined ? {} : { line, column });
  }
  if (parsed.type === 'update') return { graphResult: false, hasFrom: false, fromDefault: [], fromNamed: [], update: true, text: query };
  const outside = reachesOut(parsed);
  if (outside) throw new LodestoneError('BadQuery', outside);
  const from = (parsed as { from?: { default: { value: string }[]; named: { value: string }[] } }).from;
  const projected = parsed.queryType === 'SELECT' ? projectInOrder(parsed) : undefined;
  const generator = new sparqljs.Generator();
  return {
    graphResult: parsed.queryType === 'CONSTRUCT' || parsed.queryType === 'DESCRIBE',
    hasFrom: Boolean(from),
    fromDefault: from?.default.map((g) => g.value) ?? [],
    fromNamed: from?.named.map((g) => g.value) ?? [],
    update: false,
    ask: parsed.queryType === 'ASK',
    projected: projected && generator.stringify(projected),
    text: generator.stringify({ ...(projected ?? parsed), from: undefined } as sparqljs.Query),
  };
}
