/**
 * SHACL validation (W3C SHACL, Core and SPARQL-less targets) with `shacl-engine`, the RDF/JS engine
 * chosen for speed (about twice as fast as rdf-validate-shacl per validation here, four times to
 * build a validator) and upkeep. The shapes graph is the whole namespace ontology, so
 * `sh:targetClass` reaches the instances of subclasses it declares; the data graph is the one
 * document. The report comes back bounded: the number of results, and the first few as
 * `sh:ValidationResult` triples and as sentences. Runs in the ontology workers only.
 */
import type { Quad, Term } from '@rdfjs/types';
import { DataFactory, Store } from 'n3';
import { Validator, type ValidationResult } from 'shacl-engine';
import { ns, RDF_TYPE } from '../rdf/namespaces.js';
import { parseRdf, tripleLine } from '../rdf/ntriples.js';

const { namedNode, blankNode, literal, quad } = DataFactory;
const factory = { ...DataFactory, dataset: (quads?: Quad[]) => new Store(quads) };

export type Verdict = { conforms: true } | { conforms: false; count: number; report: string; summary: string[] };

export function validatorFor(shapes: string): Validator {
  return new Validator(new Store(parseRdf(shapes)), { factory });
}

function describe(term: Term): string {
  return term.termType === 'Literal' ? JSON.stringify(term.value) : term.termType === 'BlankNode' ? 'a blank node' : `<${term.value}>`;
}

/** One result as a sentence: `<focus> <path>: message`. */
function sentence(result: ValidationResult, path: string | undefined): string {
  const focus = result.focusNode ? describe(result.focusNode.term) : 'the document';
  const message = result.message.map((m) => m.value).join('; ') || result.constraintComponent.value.replace(ns.sh, 'sh:');
  const value = result.value ? ` (value ${describe(result.value.term)})` : '';
  return `${focus}${path ? ` <${path}>` : ''}: ${message}${value}`;
}

/** Validates the document `data` (N-Triples) with `validator`; at most `maxResults` results are described. */
export async function validateDocument(validator: Validator, data: string, maxResults: number): Promise<Verdict> {
  const report = await validator.validate({ dataset: new Store(parseRdf(data)) });
  if (report.conforms) return { conforms: true };
  const sh = (name: string) => namedNode(ns.sh + name);
  const node = blankNode('report');
  const triples: Quad[] = [quad(node, namedNode(RDF_TYPE), sh('ValidationReport')), quad(node, sh('conforms'), literal('false', namedNode(ns.xsd + 'boolean')))];
  const summary: string[] = [];
  report.results.slice(0, maxResults).forEach((result, i) => {
    const r = blankNode(`result${i}`);
    const steps = result.path ?? [];
    const path = steps.length === 1 && steps[0]!.quantifier === 'one' && steps[0]!.start === 'subject' && steps[0]!.predicates.length === 1 ? steps[0]!.predicates[0]!.value : undefined;
    triples.push(quad(node, sh('result'), r), quad(r, namedNode(RDF_TYPE), sh('ValidationResult')), quad(r, sh('resultSeverity'), result.severity), quad(r, sh('sourceConstraintComponent'), result.constraintComponent));
    if (result.focusNode) triples.push(quad(r, sh('focusNode'), result.focusNode.term as Quad['object']));
    if (path) triples.push(quad(r, sh('resultPath'), namedNode(path)));
    if (result.value) triples.push(quad(r, sh('value'), result.value.term as Quad['object']));
    const shape = result.shape?.ptr.term;
    if (shape?.termType === 'NamedNode') triples.push(quad(r, sh('sourceShape'), shape));
    for (const message of result.message) triples.push(quad(r, sh('resultMessage'), literal(message.value.slice(0, 500), message.language || undefined)));
    summary.push(sentence(result, path).slice(0, 300));
  });
  // the document's blank nodes come labelled per parse (b0_c14n0): they meet neither these nor the error's
  return { conforms: false, count: report.results.length, report: triples.map(tripleLine).join('\n') + '\n', summary };
}
