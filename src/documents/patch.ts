/**
 * PATCH bodies (SPEC §4.2): exactly one SPARQL update operation, of the DELETE/INSERT … WHERE form
 * (either template may be absent) or the DELETE WHERE shorthand; no GRAPH, WITH, USING or SERVICE
 * anywhere. `applyUpdate` runs the update on the document's graph alone, in a scratch store. Pure.
 */
import type { Quad } from '@rdfjs/types';
import oxigraph from 'oxigraph';
import sparqljs from 'sparqljs';
import { LodestoneError } from '../errors.js';
import { parseRdf, termToNTriples, toJsQuads, tripleLine } from '../rdf/ntriples.js';
import { sparqlSyntaxError } from '../rdf/sparql-text.js';
import { NTRIPLES } from '../rdf/media-types.js';
import { ns } from '../rdf/namespaces.js';
import { DataFactory } from 'n3';

const XSD_STRING = ns.xsd + 'string';

function invalid(rule: string): LodestoneError {
  return new LodestoneError('InvalidUpdate', rule);
}

function findKey(value: unknown, test: (node: Record<string, unknown>) => boolean): boolean {
  if (Array.isArray(value)) return value.some((v) => findKey(v, test));
  if (value && typeof value === 'object') {
    const node = value as Record<string, unknown>;
    if (test(node)) return true;
    return Object.values(node).some((v) => findKey(v, test));
  }
  return false;
}

/**
 * Validates a PATCH body; throws InvalidUpdate naming the rule it breaks. Returns whether the
 * update reads the document: DELETE WHERE, or a WHERE with a triple pattern anywhere in it (an
 * EXISTS in a FILTER included); such an update needs Read as well as Write, as Solid's N3 Patch
 * does for a `solid:where`, or its outcome would tell a writer what it may not read.
 */
export function validateUpdate(text: string, base: string): { reads: boolean } {
  let parsed: sparqljs.SparqlQuery;
  try {
    parsed = new sparqljs.Parser({ baseIRI: base }).parse(text);
  } catch (error) {
    throw invalid(`the body is not a SPARQL update: ${sparqlSyntaxError(error).message}`);
  }
  if ((parsed as { type?: string }).type === 'query') throw invalid('the body is a query; PATCH takes a SPARQL update');
  if (parsed.type !== 'update') throw invalid('the update has 0 operations; exactly one is allowed (SPEC §4.2.1)');
  if (parsed.updates.length !== 1) throw invalid(`the update has ${parsed.updates.length} operations; exactly one is allowed (SPEC §4.2.1)`);
  const operation = parsed.updates[0]! as unknown as Record<string, unknown>;
  const form = operation.updateType;
  if (form !== 'insertdelete' && form !== 'deletewhere') {
    const name = form === 'insert' ? 'INSERT DATA' : form === 'delete' ? 'DELETE DATA' : String(operation.type ?? form).toUpperCase();
    throw invalid(`${name} is not allowed: use DELETE/INSERT … WHERE or DELETE WHERE (SPEC §4.2.2)`);
  }
  if (operation.graph || (Array.isArray(operation.using) && operation.using.length) || operation.using) {
    throw invalid('WITH and USING are not allowed: the update runs on the request document’s graph (SPEC §4.2.5)');
  }
  if (findKey(operation, (n) => n.type === 'graph')) throw invalid('GRAPH is not allowed anywhere in the update (SPEC §4.2.5)');
  if (findKey(operation, (n) => n.type === 'service')) throw invalid('SERVICE is not allowed in a PATCH');
  return { reads: form === 'deletewhere' || findKey(operation.where, (n) => n.type === 'bgp' && Array.isArray(n.triples) && n.triples.length > 0) };
}

/**
 * The store's form of each literal: an Oxigraph store keeps typed literals by value
 * (`"01"^^xsd:integer` comes back as `"1"`), so triples are compared in that form.
 */
function storeForms(literals: readonly Quad['object'][]): Map<string, string> {
  const store = new oxigraph.Store();
  const predicate = oxigraph.namedNode('urn:lodestone:literal');
  literals.forEach((literal, i) => store.add(oxigraph.quad(oxigraph.namedNode(`urn:lodestone:${i}`), predicate, oxigraph.fromTerm(literal) as oxigraph.Literal)));
  const forms = new Map<string, string>();
  literals.forEach((literal, i) => {
    const [stored] = store.match(oxigraph.namedNode(`urn:lodestone:${i}`), predicate, null, null);
    forms.set(termToNTriples(literal), termToNTriples((stored ? toJsQuads([stored as unknown as Quad])[0]!.object : literal) as Quad['object']));
  });
  return forms;
}

/**
 * Runs a validated update against one graph and returns the resulting triples. The update runs in
 * a scratch store; triples it did not touch are kept exactly as they were written (lexical forms
 * and all), removed ones go, and inserted ones come in the store's form.
 */
export function applyUpdate(graph: string, update: string, base: string): Quad[] {
  const original = parseRdf(graph, { keepBlankNodeLabels: true });
  // Loading text is fast but relabels blank nodes; a graph with blank nodes is added term by term.
  const store = graph.includes('_:') ? new oxigraph.Store(original.map((q) => oxigraph.fromQuad(q) as oxigraph.Quad)) : new oxigraph.Store();
  if (!graph.includes('_:')) store.load(graph, { format: NTRIPLES });
  const dump = () => parseRdf(store.dump({ format: NTRIPLES, from_graph_name: oxigraph.defaultGraph() }), { keepBlankNodeLabels: true });
  const before = new Set(dump().map(tripleLine));
  try {
    store.update(update, { base_iri: base });
  } catch (error) {
    throw invalid(`the update failed: ${(error as Error).message}`);
  }
  const after = dump();
  const afterKeys = new Set(after.map(tripleLine));
  // Only triples whose literal the store rewrote need its form looked up (usually none).
  const rewritten = original.filter((q) => !before.has(tripleLine(q)));
  const forms = storeForms(rewritten.map((q) => q.object).filter((o) => o.termType === 'Literal'));
  const storeKey = (q: Quad) => {
    const line = tripleLine(q);
    if (q.object.termType !== 'Literal' || before.has(line)) return line;
    const literal = termToNTriples(q.object);
    return line.slice(0, line.length - literal.length - 2) + (forms.get(literal) ?? literal) + ' .';
  };
  const inserted = after.filter((q) => !before.has(tripleLine(q)));
  return [...original.filter((q) => afterKeys.has(storeKey(q))), ...keptForms(inserted, original, update, base)];
}

/** Typed literals, whose lexical form a store may rewrite (strings and language-tagged ones it keeps). */
function rewritable(term: Quad['object']): boolean {
  return term.termType === 'Literal' && !term.language && term.datatype.value !== XSD_STRING;
}

/**
 * Inserted triples with each literal in the lexical form it was written in: a value copied from
 * the document (`INSERT { ?s ex:copy ?v } WHERE { ?s ex:v ?v }`) or written in the update keeps
 * its form (`"042"^^xsd:integer`, not the store's `"42"`), as issue 27 asks of every copy through
 * a store. A store form that two written forms share (`"042"` and `"42"`) stays as the store made
 * it, and so does a value the update computed.
 */
function keptForms(inserted: Quad[], original: Quad[], update: string, base: string): Quad[] {
  if (!inserted.some((q) => rewritable(q.object))) return inserted;
  const written: Quad['object'][] = original.map((q) => q.object).filter(rewritable);
  collectLiterals(new sparqljs.Parser({ baseIRI: base }).parse(update), written);
  const back = new Map<string, Quad['object'] | null>();
  for (const [form, stored] of storeForms(written)) {
    if (form === stored) continue;
    const term = written.find((t) => termToNTriples(t) === form)!;
    const known = back.get(stored);
    back.set(stored, known === undefined || (known && termToNTriples(known) === form) ? term : null);
  }
  if (back.size === 0) return inserted;
  return inserted.map((q) => {
    const term = rewritable(q.object) ? back.get(termToNTriples(q.object)) : undefined;
    return term ? DataFactory.quad(q.subject, q.predicate, term, q.graph) : q;
  });
}

/** Every typed literal of a parsed update, into `out`. */
function collectLiterals(node: unknown, out: Quad['object'][]): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach((n) => collectLiterals(n, out));
  const term = node as Quad['object'];
  if (term.termType === 'Literal') {
    if (rewritable(term)) out.push(term);
    return;
  }
  for (const value of Object.values(node)) collectLiterals(value, out);
}

/** A validated update run on `graph` (N-Triples) alone: the resulting N-Triples, blank nodes labelled as they were. */
export function updateGraph(graph: string, update: string, base: string): string {
  validateUpdate(update, base);
  return applyUpdate(graph, update, base).map(tripleLine).join('\n') + '\n';
}
