/** The SPARQL, access-control, history and hostile suites with the end-user index on oxigraph-server (test/engines/on-engine.ts). */
import { suitesOn } from '../engines/on-engine.js';

await suitesOn('oxigraph-server');
