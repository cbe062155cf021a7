/** The SPARQL, access-control, history and hostile suites with the end-user index on virtuoso (test/engines/on-engine.ts). */
import { suitesOn } from '../engines/on-engine.js';

await suitesOn('virtuoso');
