/** The composer worker: runs composeDocument for the main thread, one request at a time. */
import { lowerThreadPriority, serveCalls } from '../util/worker.js';
import { composeDocument, type ComposeInput } from './compose.js';

lowerThreadPriority(5); // parsing and canonicalising writes yields to the thread answering requests
serveCalls<ComposeInput>((input) => composeDocument(input));
