/**
 * RDFS entailment materialised in an Oxigraph store (RDF 1.1 Semantics §9.2.1), the rules that
 * answer questions about an ontology and its instances: rdfs11 and rdfs5 (subClassOf and
 * subPropertyOf are transitive), rdfs9 (an instance of a class is an instance of its
 * superclasses), rdfs7 (a triple holds for the superproperties of its predicate), rdfs2 and rdfs3
 * (domain and range type the subject and the object). The axiomatic triples and the rules that
 * only say everything is an rdfs:Resource (rdfs4, rdfs8, the reflexive rdfs6 and rdfs10) are left
 * out: they answer no question and would grow every closure. Rounds run until nothing new is
 * derived (or `maxRounds`). Pure: no I/O.
 */
import type oxigraph from 'oxigraph';

const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
const PREFIX = `PREFIX rdfs: <${RDFS}>\n`;

/** Each rule as one SPARQL update over the default graph; property paths give the transitive closures. */
const RULES = [
  'INSERT { ?c rdfs:subClassOf ?e } WHERE { ?c rdfs:subClassOf/rdfs:subClassOf+ ?e FILTER(?c != ?e) }',
  'INSERT { ?p rdfs:subPropertyOf ?r } WHERE { ?p rdfs:subPropertyOf/rdfs:subPropertyOf+ ?r FILTER(?p != ?r) }',
  'INSERT { ?x ?q ?y } WHERE { ?p rdfs:subPropertyOf ?q . ?x ?p ?y FILTER(?p != ?q) }',
  'INSERT { ?x a ?c } WHERE { ?p rdfs:domain ?c . ?x ?p ?y }',
  'INSERT { ?y a ?c } WHERE { ?p rdfs:range ?c . ?x ?p ?y FILTER(!isLiteral(?y)) }',
  'INSERT { ?x a ?d } WHERE { ?x a ?c . ?c rdfs:subClassOf ?d }',
].map((rule) => PREFIX + rule);

/** Adds what RDFS entails to the default graph of `store`; returns the number of rounds run. */
export function materialiseRdfs(store: oxigraph.Store, maxRounds = 10): number {
  let size = store.size;
  for (let round = 1; round <= maxRounds; round++) {
    for (const rule of RULES) store.update(rule);
    const grown = store.size;
    if (grown === size) return round;
    size = grown;
  }
  return maxRounds;
}
