/**
 * PATCH bodies (SPEC §4.2): exactly one SPARQL update operation, of the DELETE/INSERT … WHERE form
 * (either template may be absent) or the DELETE WHERE shorthand; no GRAPH, WITH, USING or SERVICE
 * anywhere. `applyUpdate` runs the update on the document's graph alone, in a scratch store. Pure.
 */
import type { Quad } from '@rdfjs/types';
import oxigraph from 'oxigraph';
import sparqljs from 'sparqljs';
import { LodestoneError } from '../errors.js';

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

/** Validates a PATCH body; throws InvalidUpdate naming the rule it breaks. */
export function validateUpdate(text: string, base: string): void {
  let parsed: sparqljs.SparqlQuery;
  try {
    parsed = new sparqljs.Parser({ baseIRI: base }).parse(text);
  } catch (error) {
    throw invalid(`the body is not a SPARQL update: ${(error as Error).message.split('\n')[0]}`);
  }
  if (parsed.type !== 'update') throw invalid('the body is a query; PATCH takes a SPARQL update');
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
}

/** Runs a validated update against one graph and returns the resulting triples. */
export function applyUpdate(graph: string, update: string, base: string): Quad[] {
  const store = new oxigraph.Store();
  store.load(graph, { format: 'application/n-triples' });
  try {
    store.update(update, { base_iri: base });
  } catch (error) {
    throw invalid(`the update failed: ${(error as Error).message}`);
  }
  return store.match(null, null, null, oxigraph.defaultGraph()) as unknown as Quad[];
}
