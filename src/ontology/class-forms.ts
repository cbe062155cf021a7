/**
 * The forms the namespace ontology offers for creating an instance of a class (issue 28): the
 * classes it names, and for one class its fields, from the SHACL property shapes that target the
 * class or a superclass (sh:path, sh:name, sh:datatype, sh:class, sh:nodeKind, sh:minCount,
 * sh:maxCount, sh:order) when there are any, else from the properties whose rdfs:domain is the class
 * or a superclass (their rdfs:range as datatype or class). Answered by SPARQL over the entailed
 * ontology in its query worker (namespace.ts `query`, kept per version): nothing is parsed here.
 */
import { ns } from '../rdf/namespaces.js';

/** One input of a class's form: a property, what its values are, and how many it takes. */
export interface FormField {
  path: string;
  /** sh:name by language ('' for none). */
  names: Record<string, string>;
  /** A literal's datatype ('' when nothing says which: text, with a language or without), or 'iri' for a link. */
  datatype: string;
  /** sh:class or the rdfs:range class of an IRI value (the resource picker may look for it). */
  class?: string;
  required: boolean;
  /** sh:maxCount 1: one value. */
  single: boolean;
}

export interface ClassForm {
  iri: string;
  fields: FormField[];
  /** Whether the fields come from SHACL shapes (else from rdfs:domain). */
  shaped: boolean;
}

/** SPARQL SELECT over the namespace ontology, its answer as SPARQL JSON results. */
export type OntologyQuery = (query: string) => Promise<string>;

/** At most this many classes are offered (a package such as schema.org names ~800). */
const MAX_CLASSES = 500;
/** Fields drawn for one class at most. */
const MAX_FIELDS = 60;
/** An IRI that can stand between angle brackets in a query (RDF 1.1 N-Triples IRIREF). */
const SAFE_IRI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`]*$/;
/** The vocabularies of RDF, OWL, XML Schema and SHACL themselves: their classes are not what one makes documents of. */
const META = [ns.rdf, ns.rdfs, ns.owl, ns.xsd, ns.sh];
const PREFIXES = `PREFIX rdf: <${ns.rdf}> PREFIX rdfs: <${ns.rdfs}> PREFIX owl: <${ns.owl}> PREFIX sh: <${ns.sh}>\n`;

type Binding = Record<string, { type: string; value: string; 'xml:lang'?: string; datatype?: string } | undefined>;

function bindings(json: string): Binding[] {
  return (JSON.parse(json) as { results?: { bindings?: Binding[] } }).results?.bindings ?? [];
}

/** The classes the ontology names (declared, targeted by a shape, a property's domain), sorted by IRI. */
export async function ontologyClasses(query: OntologyQuery): Promise<string[]> {
  const answer = await query(`${PREFIXES}SELECT DISTINCT ?class WHERE {
  { ?class a rdfs:Class } UNION { ?class a owl:Class } UNION { ?shape sh:targetClass ?class } UNION { ?property rdfs:domain ?class }
  FILTER(isIRI(?class) && ${META.map((m) => `!STRSTARTS(STR(?class), "${m}")`).join(' && ')})
} ORDER BY ?class LIMIT ${MAX_CLASSES}`);
  return bindings(answer).flatMap((b) => (b.class && SAFE_IRI.test(b.class.value) ? [b.class.value] : []));
}

const XSD_OR_LITERAL = (iri: string) => iri.startsWith(ns.xsd) || iri === ns.rdfs + 'Literal' || iri === ns.rdf + 'langString' || iri === ns.rdf + 'HTML';

/** The form of `classIri` (one of `ontologyClasses`): its shapes' fields, else its domain properties'. */
export async function classForm(query: OntologyQuery, classIri: string): Promise<ClassForm> {
  if (!SAFE_IRI.test(classIri)) return { iri: classIri, fields: [], shaped: false };
  const shaped = bindings(
    await query(`${PREFIXES}SELECT ?path ?name ?datatype ?class ?nodeKind ?minCount ?maxCount ?order WHERE {
  <${classIri}> rdfs:subClassOf* ?target .
  { ?shape sh:targetClass ?target } UNION { ?target a sh:NodeShape . BIND(?target AS ?shape) }
  ?shape sh:property ?p . ?p sh:path ?path . FILTER(isIRI(?path))
  OPTIONAL { ?p sh:name ?name } OPTIONAL { ?p sh:datatype ?datatype } OPTIONAL { ?p sh:class ?class } OPTIONAL { ?p sh:nodeKind ?nodeKind }
  OPTIONAL { ?p sh:minCount ?minCount } OPTIONAL { ?p sh:maxCount ?maxCount } OPTIONAL { ?p sh:order ?order }
}`),
  );
  if (shaped.length > 0) {
    const fields = new Map<string, FormField & { order: number }>();
    for (const b of shaped) {
      const path = b.path!.value;
      if (!SAFE_IRI.test(path)) continue;
      let field = fields.get(path);
      if (!field) {
        const iri = b.class !== undefined || b.nodeKind?.value === ns.sh + 'IRI';
        const datatype = b.datatype && SAFE_IRI.test(b.datatype.value) ? b.datatype.value : iri ? 'iri' : '';
        const order = Number(b.order?.value);
        field = { path, names: {}, datatype, class: b.class && SAFE_IRI.test(b.class.value) ? b.class.value : undefined, required: false, single: false, order: Number.isFinite(order) ? order : Infinity };
        fields.set(path, field);
      }
      if (b.name) field.names[(b.name['xml:lang'] ?? '').toLowerCase()] ??= b.name.value;
      if (Number(b.minCount?.value) >= 1) field.required = true;
      if (Number(b.maxCount?.value) === 1) field.single = true;
    }
    const sorted = [...fields.values()].sort((a, b) => a.order - b.order || a.path.localeCompare(b.path));
    return { iri: classIri, fields: sorted.slice(0, MAX_FIELDS).map(({ order: _order, ...field }) => field), shaped: true };
  }
  const domain = bindings(
    await query(`${PREFIXES}SELECT DISTINCT ?path ?range WHERE {
  <${classIri}> rdfs:subClassOf* ?domain . ?path rdfs:domain ?domain . FILTER(isIRI(?path) && ?domain != rdfs:Resource && ?domain != owl:Thing)
  OPTIONAL { ?path rdfs:range ?range FILTER(isIRI(?range) && ?range != rdfs:Resource && ?range != owl:Thing) }
} ORDER BY ?path LIMIT ${MAX_FIELDS * 4}`),
  );
  const fields = new Map<string, FormField>();
  for (const b of domain) {
    const path = b.path!.value;
    const range = b.range?.value;
    if (!SAFE_IRI.test(path) || (range !== undefined && !SAFE_IRI.test(range))) continue;
    const known = fields.get(path);
    // of several ranges (entailment adds superclasses), a datatype wins, then the first class
    if (known && (known.datatype !== 'iri' || range === undefined || !XSD_OR_LITERAL(range))) continue;
    const literal = range === undefined || XSD_OR_LITERAL(range);
    fields.set(path, { path, names: {}, datatype: !literal ? 'iri' : range && range !== ns.rdfs + 'Literal' ? range : '', class: literal ? undefined : range, required: false, single: false });
  }
  return { iri: classIri, fields: [...fields.values()].slice(0, MAX_FIELDS), shaped: false };
}

/** A property the property form offers, and what its values are ('iri' for links, a datatype for literals). */
export interface PropertyChoice {
  iri: string;
  datatype: string;
}

const XSD = ns.xsd;
/** The properties of the common vocabularies that ship with Lodestone (net/vocabularies.ts) most documents use, offered whatever the ontology says. */
export const COMMON_PROPERTIES: readonly PropertyChoice[] = [
  [ns.dct + 'title', 'string'], [ns.dct + 'description', 'string'], [ns.dct + 'subject', 'iri'], [ns.dct + 'creator', 'iri'], [ns.dct + 'date', 'date'],
  [ns.dct + 'created', 'dateTime'], [ns.dct + 'license', 'iri'], [ns.dct + 'source', 'iri'], [ns.dct + 'language', 'string'], [ns.dct + 'identifier', 'string'],
  [ns.rdfs + 'label', 'string'], [ns.rdfs + 'comment', 'string'], [ns.rdfs + 'seeAlso', 'iri'],
  [ns.foaf + 'name', 'string'], [ns.foaf + 'nick', 'string'], [ns.foaf + 'homepage', 'iri'], [ns.foaf + 'knows', 'iri'], [ns.foaf + 'depiction', 'iri'], [ns.foaf + 'based_near', 'iri'], [ns.foaf + 'topic', 'iri'],
  ['http://www.w3.org/2004/02/skos/core#prefLabel', 'string'], ['http://www.w3.org/2004/02/skos/core#altLabel', 'string'], ['http://www.w3.org/2004/02/skos/core#note', 'string'], ['http://www.w3.org/2004/02/skos/core#broader', 'iri'],
  ['http://schema.org/name', 'string'], ['http://schema.org/description', 'string'], ['http://schema.org/url', 'iri'], ['http://schema.org/image', 'iri'], ['http://schema.org/startDate', 'date'],
  ['http://schema.org/endDate', 'date'], ['http://schema.org/author', 'iri'], ['http://schema.org/keywords', 'string'], ['http://schema.org/numberOfPages', 'integer'], ['http://schema.org/price', 'decimal'],
  ['http://www.w3.org/2003/01/geo/wgs84_pos#lat', 'decimal'], ['http://www.w3.org/2003/01/geo/wgs84_pos#long', 'decimal'],
].map(([iri, kind]) => ({ iri: iri!, datatype: kind === 'iri' ? 'iri' : XSD + kind! }));

/** The properties the ontology declares (rdf:Property and OWL's kinds, entailed) or its shapes constrain, with their datatype (a shape's, else the range) or 'iri'. */
export async function ontologyProperties(query: OntologyQuery): Promise<PropertyChoice[]> {
  const answer = await query(`${PREFIXES}SELECT ?property (SAMPLE(?r) AS ?range) (SAMPLE(?dt) AS ?datatype) (SAMPLE(?k) AS ?link) WHERE {
  { ?property a rdf:Property } UNION { ?property a owl:ObjectProperty } UNION { ?property a owl:DatatypeProperty } UNION { ?property rdfs:domain ?d } UNION { ?shape sh:path ?property }
  FILTER(isIRI(?property) && ${META.map((m) => `!STRSTARTS(STR(?property), "${m}")`).join(' && ')})
  OPTIONAL { ?property rdfs:range ?r FILTER(isIRI(?r) && ?r != rdfs:Resource) }
  OPTIONAL { ?constraint sh:path ?property . { ?constraint sh:datatype ?dt } UNION { ?constraint sh:class ?k } UNION { ?constraint sh:nodeKind sh:IRI BIND(sh:IRI AS ?k) } }
} GROUP BY ?property ORDER BY ?property LIMIT ${MAX_CLASSES}`);
  return bindings(answer).flatMap((b) => {
    const iri = b.property?.value;
    const range = b.datatype?.value ?? (b.link ? ns.rdfs + 'Resource' : b.range?.value);
    if (!iri || !SAFE_IRI.test(iri) || (range !== undefined && !SAFE_IRI.test(range))) return [];
    return [{ iri, datatype: range === undefined || range === ns.rdfs + 'Literal' ? XSD + 'string' : XSD_OR_LITERAL(range) ? range : 'iri' }];
  });
}
