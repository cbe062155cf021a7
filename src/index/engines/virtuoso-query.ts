/**
 * Queries written again for Virtuoso, whose compiler answers three forms its own way:
 * - DESCRIBE as CONSTRUCT (SPARQL 1.1 §16.4 leaves its triples to the engine; Virtuoso's adds
 *   those that point at the resource): the triples of which each described resource is the
 *   subject, as Oxigraph and Jena give them.
 * - `SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }`, at the top level with no FROM NAMED, no
 *   filter, no ORDER BY: Virtuoso answers it from DB.DBA.SPARQL_SELECT_KNOWN_GRAPHS, every graph
 *   of the engine with no check of the reader's permissions (sparql_core.c, "special case for
 *   selection of all distinct graphs"): the names of another dataspace's documents, the marker
 *   graph, its own. An ORDER BY of the projected variable takes the query off that path and
 *   changes no answer (a SELECT's order is free where none is asked).
 * - `GRAPH ?g { }`: one empty solution on Virtuoso, one per named graph in SPARQL (§18.6, and on
 *   Oxigraph and Jena): written as the subquery of the distinct graphs that hold a triple (a quad
 *   store holds no empty graph).
 */
import sparqljs from 'sparqljs';

/** The query as Virtuoso must be sent it (above); as it is when none of the three applies. */
export function forVirtuoso(query: string): string {
  if (!/\b(?:DESCRIBE|GRAPH)\b/i.test(query)) return query;
  let parsed: sparqljs.SparqlQuery;
  try {
    parsed = new sparqljs.Parser().parse(query);
  } catch {
    return query; // the endpoint parsed it already; what sparqljs cannot read again goes as it is
  }
  if (parsed.type !== 'query') return query;
  const emptied = withGraphSubqueries(parsed);
  const written = parsed.queryType === 'DESCRIBE' ? describeAsConstruct(parsed) : parsed.queryType === 'SELECT' ? withoutGraphListShortcut(parsed) : undefined;
  if (!written && !emptied) return query;
  return new sparqljs.Generator().stringify(written ?? parsed);
}

/** A DESCRIBE written again as CONSTRUCT { ?x ?p ?o } over its WHERE; undefined for DESCRIBE * (the engine's own). */
function describeAsConstruct(parsed: sparqljs.DescribeQuery): sparqljs.ConstructQuery | undefined {
  if (parsed.variables.some((v) => (v as { termType?: string }).termType === 'Wildcard')) return undefined;
  const triples: sparqljs.Triple[] = [];
  const where: sparqljs.Pattern[] = [...(parsed.where ?? [])];
  const union: sparqljs.Pattern[] = [];
  parsed.variables.forEach((described, i) => {
    const p = { termType: 'Variable', value: `describedP${i}` } as sparqljs.VariableTerm;
    const o = { termType: 'Variable', value: `describedO${i}` } as sparqljs.VariableTerm;
    const triple = { subject: described, predicate: p, object: o } as sparqljs.Triple;
    triples.push(triple);
    union.push({ type: 'group', patterns: [{ type: 'bgp', triples: [triple] }] } as sparqljs.GroupPattern);
  });
  where.push(union.length === 1 ? union[0]! : ({ type: 'union', patterns: union } as sparqljs.UnionPattern));
  return { type: 'query', queryType: 'CONSTRUCT', prefixes: parsed.prefixes, template: triples, where };
}

/**
 * A top-level SELECT DISTINCT of one variable given an ORDER BY of it when it names GRAPH;
 * undefined otherwise. Wider than Virtuoso's own test (whatever the pattern holds, nested groups
 * included), at the cost of a sort of the distinct values.
 */
function withoutGraphListShortcut(parsed: sparqljs.SelectQuery): sparqljs.SelectQuery | undefined {
  if (!parsed.distinct || parsed.order || parsed.group) return undefined;
  const [only, ...more] = parsed.variables;
  const projected = only && 'termType' in only ? only : only?.expression;
  if (more.length > 0 || !projected || (projected as { termType?: string }).termType !== 'Variable') return undefined;
  if (!JSON.stringify(parsed.where ?? []).includes('"type":"graph"')) return undefined;
  return { ...parsed, order: [{ expression: projected as sparqljs.VariableTerm }] };
}

/** Replaces, in place and at any depth, each `GRAPH ?g { }` by `{ SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } } }`; whether any was. */
function withGraphSubqueries(node: unknown): boolean {
  if (!node || typeof node !== 'object') return false;
  let found = false;
  for (const [key, value] of Object.entries(node)) {
    if (Array.isArray(value)) {
      value.forEach((item: unknown, i) => {
        const graph = item as { type?: string; name?: { termType?: string }; patterns?: unknown[] };
        if (graph?.type === 'graph' && graph.name?.termType === 'Variable' && graph.patterns?.length === 0) {
          value[i] = graphsSubquery(graph.name as sparqljs.VariableTerm);
          found = true;
        } else if (withGraphSubqueries(item)) found = true;
      });
    } else if (key !== 'termType' && withGraphSubqueries(value)) found = true;
  }
  return found;
}

function graphsSubquery(g: sparqljs.VariableTerm): sparqljs.GroupPattern {
  const v = (name: string) => ({ termType: 'Variable', value: `${g.value}_${name}` }) as sparqljs.VariableTerm;
  const inner = { type: 'graph', name: g, patterns: [{ type: 'bgp', triples: [{ subject: v('s'), predicate: v('p'), object: v('o') }] }] } as sparqljs.GraphPattern;
  const select = { type: 'query', queryType: 'SELECT', prefixes: {}, distinct: true, variables: [g], where: [inner] } as sparqljs.SelectQuery;
  return { type: 'group', patterns: [select as unknown as sparqljs.Pattern] };
}
