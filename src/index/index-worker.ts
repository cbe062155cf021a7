/**
 * The index worker: hosts one IndexCore off the main thread, so index builds and (later) SPARQL
 * queries never block HTTP. Requests are handled one at a time, in the order they arrive.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { IndexCore, type IndexConfig, type QueryRequest, type SyncDelta } from './index-core.js';
import { lowerThreadPriority } from '../util/worker.js';

export type IndexRequest =
  | { id: number; op: 'sync'; commit: string | undefined; delta?: SyncDelta }
  | { id: number; op: 'dump' }
  | { id: number; op: 'size' }
  | { id: number; op: 'reset' }
  | { id: number; op: 'query'; request: QueryRequest };

export type IndexResponse = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

lowerThreadPriority(10); // index syncs and queries yield to the thread answering requests
let core = new IndexCore(workerData as IndexConfig);
const port = parentPort!;
let chain: Promise<void> = Promise.resolve();

async function handle(request: IndexRequest): Promise<unknown> {
  switch (request.op) {
    case 'sync':
      return core.syncTo(request.commit, request.delta);
    case 'dump':
      return core.dump();
    case 'size':
      return core.store.size;
    case 'query':
      return core.query(request.request);
    case 'reset':
      core.stop();
      core = new IndexCore(workerData as IndexConfig);
      return undefined;
  }
}

port.on('message', (request: IndexRequest) => {
  chain = chain.then(async () => {
    let response: IndexResponse;
    try {
      response = { id: request.id, ok: true, value: await handle(request) };
    } catch (error) {
      response = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(response);
  });
});
