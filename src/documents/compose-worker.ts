/** A worker of the composer's pools (composer.ts): composes writes, labels blank nodes deeply, reads query shapes, translates the proxy's responses, runs updates of settings. */
import { queryShape } from '../rdf/sparql-text.js';
import { translate } from '../rdf/translate.js';
import { lowerThreadPriority, serveCalls } from '../util/worker.js';
import { composeDocument, labelDeeply } from './compose.js';
import type { WorkRequest } from './composer.js';
import { updateGraph } from './patch.js';

lowerThreadPriority(5); // a write's parsing and labelling yield the CPU to the thread answering requests
serveCalls<WorkRequest>((request) => {
  switch (request.op) {
    case 'compose':
      return composeDocument(request.input);
    case 'label':
      return labelDeeply(request.ntriples);
    case 'queryShape':
      return queryShape(request.query, request.base);
    case 'translate':
      return translate(request.job);
    case 'update':
      return updateGraph(request.graph, request.update, request.base);
  }
});
