/** The composer worker: runs composeDocument for the main thread, one request at a time. */
import { parentPort } from 'node:worker_threads';
import { lowerThreadPriority } from '../util/worker.js';
import { LodestoneError } from '../errors.js';
import { composeDocument, type ComposeInput } from './compose.js';

export type ComposeResponse =
  | { id: number; ok: true; bytes: Uint8Array }
  | { id: number; ok: false; code?: string; message: string; data?: Record<string, unknown> };

lowerThreadPriority(5); // parsing and canonicalising writes yields to the thread answering requests
parentPort!.on('message', async ({ id, input }: { id: number; input: ComposeInput }) => {
  let response: ComposeResponse;
  try {
    response = { id, ok: true, bytes: await composeDocument(input) };
  } catch (error) {
    response =
      error instanceof LodestoneError
        ? { id, ok: false, code: error.code, message: error.message, data: error.data }
        : { id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(response);
});
