/** A worker of the composer's pools (composer.ts): composes writes (PUT, POST, PATCH), labels blank nodes deeply. */
import { lowerThreadPriority, serveCalls } from '../util/worker.js';
import { composeDocument, labelDeeply } from './compose.js';
import type { WorkRequest } from './composer.js';

lowerThreadPriority(5); // a write's parsing and labelling yield the CPU to the thread answering requests
serveCalls<WorkRequest>((request) => {
  switch (request.op) {
    case 'compose':
      return composeDocument(request.input);
    case 'label':
      return labelDeeply(request.ntriples);
  }
});
