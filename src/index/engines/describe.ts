/**
 * DESCRIBE as CONSTRUCT, for an engine whose own DESCRIBE answers otherwise (SPARQL 1.1 §16.4
 * leaves its triples to the engine; Virtuoso's adds those that point at the resource): the triples
 * of which each described resource is the subject, as Oxigraph and Jena give them.
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
