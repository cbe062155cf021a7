/**
 * Queries written again for Virtuoso, whose compiler answers two forms its own way:
 * - DESCRIBE as CONSTRUCT (SPARQL 1.1 §16.4 leaves its triples to the engine; Virtuoso's adds
 *   those that point at the resource): the triples of which each described resource is the
 *   subject, as Oxigraph and Jena give them.
 * - `SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }`, at the top level with no FROM NAMED, no
 *   filter, no ORDER BY: Virtuoso answers it from DB.DBA.SPARQL_SELECT_KNOWN_GRAPHS, every graph
 *   of the engine with no check of the reader's permissions (sparql_core.c, "special case for
 *   selection of all distinct graphs"): the names of another dataspace's documents, the marker
 *   graph, its own. An ORDER BY of the projected variable takes the query off that path and
 *   changes no answer (a SELECT's order is free where none is asked).
 */
import sparqljs from 'sparqljs';

/** The query, a DESCRIBE written again as CONSTRUCT { ?x ?p ?o } over its WHERE; any other as it is. */
export function describeAsConstruct(query: string): string {
  if (!/\bDESCRIBE\b/i.test(query)) return query;
  let parsed: sparqljs.SparqlQuery;
  try {
    parsed = new sparqljs.Parser().parse(query);
  } catch {
    return query; // the endpoint parsed it already; what sparqljs cannot read again goes as it is
  }
  if (parsed.type !== 'query' || parsed.queryType !== 'DESCRIBE') return query;
  if (parsed.variables.some((v) => (v as { termType?: string }).termType === 'Wildcard')) return query; // DESCRIBE *: the engine's own
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
  const construct: sparqljs.ConstructQuery = { type: 'query', queryType: 'CONSTRUCT', prefixes: parsed.prefixes, template: triples, where };
  return new sparqljs.Generator().stringify(construct);
}

/**
 * The query, a top-level SELECT DISTINCT of one variable that names GRAPH given an ORDER BY of it; any
 * other as it is. Wider than Virtuoso's own test (whatever the pattern holds, nested groups included),
 * at the cost of a sort of the distinct values.
 */
export function withoutGraphListShortcut(query: string): string {
  if (!/\bDISTINCT\b/i.test(query) || !/\bGRAPH\b/i.test(query)) return query;
  let parsed: sparqljs.SparqlQuery;
  try {
    parsed = new sparqljs.Parser().parse(query);
  } catch {
    return query; // the endpoint parsed it already; what sparqljs cannot read again goes as it is
  }
  if (parsed.type !== 'query' || parsed.queryType !== 'SELECT' || !parsed.distinct || parsed.order || parsed.group) return query;
  const [only, ...more] = parsed.variables;
  const projected = only && 'termType' in only ? only : only?.expression;
  if (more.length > 0 || !projected || (projected as { termType?: string }).termType !== 'Variable') return query;
  parsed.order = [{ expression: projected as sparqljs.VariableTerm }];
  return new sparqljs.Generator().stringify(parsed);
}
