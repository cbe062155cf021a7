/**
 * A worker of the ontology pools (workers.ts): answers `ns?query=` over the namespace ontology with
 * RDFS entailment materialised, and validates documents against the ontology's SHACL shapes. The store and the validator of a namespace ontology
 * are kept by its version, so a worker builds them once per version.
 */
import oxigraph from 'oxigraph';
import type { Validator } from 'shacl-engine';
import { materialiseRdfs } from '../rdf/rdfs-entailment.js';
import { lowerThreadPriority, serveCalls } from '../util/worker.js';
import { NTRIPLES } from '../rdf/media-types.js';
import type { OntologyRequest } from './workers.js';

lowerThreadPriority(5);

/** The last few versions' stores and validators (a version is a digest of the asserted graph). */
const KEEP = 2;
const stores = new Map<string, oxigraph.Store>();
const validators = new Map<string, Validator>();

function remember<T>(cache: Map<string, T>, key: string, value: T): T {
  cache.set(key, value);
  while (cache.size > KEEP) cache.delete(cache.keys().next().value as string);
  return value;
}

/** The asserted graph with what RDFS entails, in a store. */
function entailed(asserted: string): oxigraph.Store {
  const store = new oxigraph.Store();
  store.load(asserted, { format: NTRIPLES });
  materialiseRdfs(store);
  return store;
}

serveCalls<OntologyRequest>(async (request) => {
  switch (request.op) {
    case 'query': {
      let store = stores.get(request.key);
      if (!store) {
        if (request.asserted === undefined) return { missing: true };
        store = remember(stores, request.key, entailed(request.asserted));
      }
      return { result: store.query(request.query, { results_format: request.format, base_iri: request.base }) as string | boolean };
    }
    case 'validate': {
      let validator = validators.get(request.key);
      if (!validator) {
        if (request.shapes === undefined) return { missing: true };
        const { validatorFor } = await import('./shacl.js'); // shacl-engine loads in the workers that validate
        validator = remember(validators, request.key, validatorFor(request.shapes));
      }
      const { validateDocument } = await import('./shacl.js');
      return validateDocument(validator, request.data, request.maxResults);
    }
  }
});
