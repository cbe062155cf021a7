/** A worker of the query-shape pool (query-shapes.ts): a SPARQL query's shape, off the thread that answers requests. */
import { queryShape } from '../rdf/sparql-text.js';
import { lowerThreadPriority, serveCalls } from '../util/worker.js';
import type { QueryShapeWork } from './query-shapes.js';

lowerThreadPriority(5); // parsing a large query yields the CPU to the thread answering requests
serveCalls<QueryShapeWork>((request) => queryShape(request.query, request.base));
