/** A worker of the remote-RDF pool (remote-rdf.ts): RDF from elsewhere translated (rdf/translate.ts), off the thread that answers requests. */
import { translate } from '../rdf/translate.js';
import { lowerThreadPriority, serveCalls } from '../util/worker.js';
import type { RemoteRdfWork } from './remote-rdf.js';

lowerThreadPriority(5); // parsing and labelling yield the CPU to the thread answering requests
serveCalls<RemoteRdfWork>((request) => translate(request.job));
