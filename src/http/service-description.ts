/**
 * The SPARQL 1.1 Service Description of a dataspace's endpoint (W3C sparql11-service-description),
 * what `GET <base>sparql` without a query answers: the endpoint, the query language, every result
 * and RDF format it writes, its features, and its dataset rules (the default graph is the union of
 * the documents the asking agent may read, each document a named graph; `default-graph-uri`,
 * `named-graph-uri` and FROM narrow it; updates are refused).
 */
import type { Quad } from '@rdfjs/types';
import { DataFactory } from 'n3';
import { ns, RDF_TYPE } from '../rdf/namespaces.js';

const { namedNode, literal, quad, blankNode } = DataFactory;
const FORMATS = 'http://www.w3.org/ns/formats/';

/** The W3C format IRIs of the result and RDF formats the endpoint writes. */
const RESULT_FORMATS = ['SPARQL_Results_JSON', 'SPARQL_Results_XML', 'SPARQL_Results_CSV', 'SPARQL_Results_TSV', 'Turtle', 'N-Triples', 'RDF_XML', 'JSON-LD', 'N-Quads', 'TriG'];

export function serviceDescription(endpoint: string): Quad[] {
  const sd = (name: string) => namedNode(ns.sd + name);
  const type = namedNode(RDF_TYPE);
  const service = namedNode(endpoint);
  const dataset = blankNode('dataset');
  const defaultGraph = blankNode('defaultGraph');
  return [
    quad(service, type, sd('Service')),
    quad(service, sd('endpoint'), service),
    quad(service, sd('supportedLanguage'), sd('SPARQL11Query')),
    ...RESULT_FORMATS.map((format) => quad(service, sd('resultFormat'), namedNode(FORMATS + format))),
    quad(service, sd('feature'), sd('UnionDefaultGraph')),
    quad(service, sd('defaultDataset'), dataset),
    quad(dataset, type, sd('Dataset')),
    quad(dataset, sd('defaultGraph'), defaultGraph),
    quad(defaultGraph, type, sd('Graph')),
    quad(
      service,
      namedNode(ns.rdfs + 'comment'),
      literal(
        'The default graph is the union of the documents the asking agent may read; each document is a named graph, named by its URL. ' +
          'default-graph-uri and named-graph-uri (or FROM and FROM NAMED) narrow the dataset to the documents named, of those the agent may read. ' +
          'SPARQL Update is not accepted: documents are written with PUT, POST and PATCH. Queries stop at the server’s timeout.',
        'en',
      ),
    ),
  ];
}
