/**
 * The engines of one test file's servers (LODESTONE_TEST_INDEX, test/http-helpers.ts): an engine
 * a closed server leaves is emptied and kept for the file's next server, as fresh as a new one
 * (a Fuseki costs seconds of CPU to start); servers open at once each have one of their own.
 * Kept only in a file that asks (`keepSpares`, test/engines/on-engine.ts); elsewhere each is stopped with its server.
 */
import { after } from 'node:test';
import { startEngine } from './engines.js';
import type { RunningEngine } from './oxigraph-server-engine.js';

type Engine = RunningEngine & { kind: string };

/**
 * Empties every dataset of an engine (its datasets stay, empty: Lodestone's open finds them as it
 * makes them). Fuseki only: it stops a query at the timeout Lodestone sends with it, where an
 * Oxigraph server goes on with an abandoned runaway query (it would burn a core for the next
 * server's tests), and it starts in a quarter of a second.
 */
const EMPTY: Record<string, (url: string) => Promise<void>> = {
  fuseki: async (url) => {
    const listed = (await (await fetch(`${url}$/datasets`)).json()) as { datasets: Array<{ 'ds.name': string }> };
    for (const dataset of listed.datasets) await update(`${url}${dataset['ds.name'].replace(/^\//, '')}/update`);
  },
};

async function update(endpoint: string): Promise<void> {
  const response = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: 'DROP SILENT ALL' });
  if (!response.ok) throw new Error(`${endpoint}: DROP ALL answered ${response.status} ${await response.text()}`);
}

export class EnginePool {
  private readonly spare: Engine[] = [];
  /** Whether closed servers' engines are kept: only once `keepSpares` has registered what stops them. */
  private keeping = false;

  /** From now on an engine a server leaves is kept, and stopped after the file's tests (else it would keep the file's process alive). */
  keepSpares(): void {
    this.keeping = true;
    after(() => this.stopAll());
  }

  /** An engine of `kind` no open server uses, emptied: a spare one, else a new one. */
  async take(kind: string): Promise<Engine> {
    const index = this.spare.findIndex((engine) => engine.kind === kind);
    if (index >= 0) return this.spare.splice(index, 1)[0]!;
    return startEngine(kind);
  }

  /** Takes back the engine of a closed server: emptied and kept, or stopped when it cannot be emptied. */
  async give(engine: Engine): Promise<void> {
    const empty = EMPTY[engine.kind];
    if (!this.keeping || !empty) return engine.stop();
    await empty(engine.url);
    this.spare.push(engine);
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.spare.splice(0).map((engine) => engine.stop()));
  }
}
