/**
 * The settings endpoint's handle on the thread map's `settingsUpdates` pool
 * (settings-update-worker.ts): the SPARQL update of a PATCH of `<base>settings` (SPEC §4.7) runs on
 * the dataspace's description alone (documents/patch.ts `updateGraph`, as a document PATCH's does),
 * off the thread that answers requests and within its deadline. Edits of settings run one at a time
 * (settings.ts), so one worker is all they use. The composition root builds the pool and passes
 * this handle in.
 */
import type { WorkerPool } from '../util/worker-pool.js';

/** A call of settings-update-worker.ts. */
export type SettingsUpdateWork = { op: 'update'; graph: string; update: string; base: string };

export class SettingsUpdates {
  constructor(private readonly pool: WorkerPool<SettingsUpdateWork>) {}

  /** `graph` (N-Triples) after `update`, relative IRIs against `base`: N-Triples, blank nodes labelled as they were. */
  run(graph: string, update: string, base: string): Promise<string> {
    return this.pool.call<string>({ op: 'update', graph, update, base });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
