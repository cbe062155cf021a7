/**
 * Worker for the Oxigraph bulk-load baselines: a fresh Oxigraph (its own WebAssembly memory, as
 * Lodestone's index worker has) loads the documents either as one N-Quads string or as one
 * N-Triples load per named graph, and reports the time of the load alone.
 */
import { parentPort, workerData } from 'node:worker_threads';
import oxigraph from 'oxigraph';

export interface BaselineJob {
  mode: 'nquads' | 'per-graph';
  base: string;
  documents: Array<{ document: string; bytes: Uint8Array }>;
}

export interface BaselineReport {
  ms: number;
  quads: number;
}

/** Each document's triples in its named graph, as one N-Quads text. */
export function toNQuads(job: BaselineJob): string {
  const parts: string[] = [];
  const decoder = new TextDecoder();
  for (const doc of job.documents) {
    const graph = ` <${job.base}${doc.document}> .`;
    for (const line of decoder.decode(doc.bytes).split('\n')) {
      if (line) parts.push(line.slice(0, -2) + graph);
    }
  }
  return parts.join('\n') + '\n';
}

function run(job: BaselineJob): BaselineReport {
  const store = new oxigraph.Store();
  if (job.mode === 'nquads') {
    const text = toNQuads(job);
    const start = performance.now();
    store.load(text, { format: 'application/n-quads', no_transaction: true });
    return { ms: performance.now() - start, quads: store.size };
  }
  const graphs = job.documents.map((d) => oxigraph.namedNode(job.base + d.document));
  const start = performance.now();
  job.documents.forEach((doc, i) => {
    store.load(doc.bytes, { format: 'application/n-triples', to_graph_name: graphs[i]!, no_transaction: true });
  });
  return { ms: performance.now() - start, quads: store.size };
}

if (parentPort) parentPort.postMessage(run(workerData as BaselineJob));
