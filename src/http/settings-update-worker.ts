/** A worker of the settings-update pool (settings-updates.ts): a SPARQL update of a dataspace's description, off the thread that answers requests. */
import { updateGraph } from '../documents/patch.js';
import { lowerThreadPriority, serveCalls } from '../util/worker.js';
import type { SettingsUpdateWork } from './settings-updates.js';

lowerThreadPriority(5); // an update's WHERE yields the CPU to the thread answering requests
serveCalls<SettingsUpdateWork>((request) => updateGraph(request.graph, request.update, request.base));
