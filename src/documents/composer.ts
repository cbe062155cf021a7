/**
 * The main thread's handle on the composer worker: `compose` sends a ComposeInput and resolves to
 * the canonical bytes, or rejects with the same LodestoneError the function threw.
 */
import { WorkerCalls } from '../util/worker.js';
import type { ComposeInput } from './compose.js';

export class Composer {
  private readonly calls = new WorkerCalls<ComposeInput>(new URL('./compose-worker.js', import.meta.url));

  constructor() {
    this.calls.start(); // ready before the first write
  }

  async compose(input: ComposeInput): Promise<Buffer> {
    const bytes = await this.calls.call<Uint8Array>(input);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  close(): Promise<void> {
    return this.calls.close();
  }
}
