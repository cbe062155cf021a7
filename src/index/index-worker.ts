/**
 * The index worker: hosts one IndexCore off the main thread, so index builds and SPARQL queries
 * never block HTTP. It answers the call protocol of util/worker.ts, one call at a time, in order.
 */
import { workerData } from 'node:worker_threads';
import { IndexCore, type IndexConfig, type QueryRequest, type SyncDelta } from './index-core.js';
import { lowerThreadPriority, serveCalls } from '../util/worker.js';

export type IndexRequest =
  | { op: 'sync'; commit: string | undefined; delta?: SyncDelta }
  | { op: 'dump' }
  | { op: 'size' }
  | { op: 'reset' }
  | { op: 'query'; request: QueryRequest };

lowerThreadPriority(10); // index syncs and queries yield to the thread answering requests
let core = new IndexCore(workerData as IndexConfig);

serveCalls<IndexRequest>((request) => {
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
});
