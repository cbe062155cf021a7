/** The namespace IRIs Lodestone speaks (DESIGN.md, "Vocabularies"): one table, exact strings. */

export const ns = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  dh: 'https://w3id.org/atomgraph/linkeddatahub/document-hierarchy#',
  lds: 'https://w3id.org/atomgraph/linkeddatahub/dataspaces#',
  repo: 'https://w3id.org/atomgraph/linkeddatahub/services/github#',
  a: 'https://w3id.org/atomgraph/core#',
  doap: 'http://usefulinc.com/ns/doap#',
  def: 'https://w3id.org/atomgraph/linkeddatahub/default#',
  sioc: 'http://rdfs.org/sioc/ns#',
  dct: 'http://purl.org/dc/terms/',
  acl: 'http://www.w3.org/ns/auth/acl#',
  lacl: 'https://w3id.org/atomgraph/linkeddatahub/admin/acl#',
  lapp: 'https://w3id.org/atomgraph/linkeddatahub/apps#',
  ldh: 'https://w3id.org/atomgraph/linkeddatahub#',
  ldt: 'https://www.w3.org/ns/ldt#',
  owl: 'http://www.w3.org/2002/07/owl#',
  sh: 'http://www.w3.org/ns/shacl#',
  foaf: 'http://xmlns.com/foaf/0.1/',
  nfo: 'http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#',
  /** Media types as IRIs, as LinkedDataHub writes dct:format. */
  mediatype: 'http://www.sparontologies.net/mediatype/',
  cert: 'http://www.w3.org/ns/auth/cert#',
  prov: 'http://www.w3.org/ns/prov#',
  http: 'http://www.w3.org/2011/http#',
  sc: 'http://www.w3.org/2011/http-statusCodes#',
  sd: 'http://www.w3.org/ns/sparql-service-description#',
} as const;

/** rdf:type, the predicate most written and most read. */
export const RDF_TYPE = ns.rdf + 'type';

/** What names a resource for people, best first: a page's title, a child's title in a container list. */
export const TITLE_PREDICATES: readonly string[] = [
  'http://purl.org/dc/terms/title',
  // DCMI's older element set: how FOAF, OWL and RDFS title themselves (FOAF's page was "0.1", its URL's last segment)
  'http://purl.org/dc/elements/1.1/title',
  'http://www.w3.org/2000/01/rdf-schema#label',
  'http://www.w3.org/2004/02/skos/core#prefLabel',
  'http://xmlns.com/foaf/0.1/name',
];
