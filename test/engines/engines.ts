/**
 * The SPARQL engines tests and the bench start, by kind: LODESTONE_TEST_INDEX=<kind> puts every
 * test server's end-user dataspace on a fresh one (test/http-helpers.ts); bench/index.ts loads each
 * through Lodestone and through the engine's own bulk loader.
 */
import { spawn } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { digestFetch } from '../../src/index/engines/digest-fetch.js';
import { FusekiProcess, fusekiJar } from './fuseki-engine.js';
import { startOxigraph, type RunningEngine } from './oxigraph-server-engine.js';
import { startVirtuoso } from './virtuoso-engine.js';

export async function startEngine(kind: string): Promise<RunningEngine & { kind: string }> {
  const engine = benchEngines([kind])[0];
  if (!engine) throw new Error(`LODESTONE_TEST_INDEX=${kind}: no such engine for tests (${ENGINES.map((e) => e.kind).join(', ')})`);
  return { kind, ...(await engine.start(undefined, 'test')) };
}

/** An engine as the bench drives it. */
export interface BenchEngine {
  kind: 'oxigraph-server' | 'fuseki' | 'virtuoso';
  /** The engine's own bulk loader, as the row names it. */
  loaderName: string;
  /** Starts the engine (on `location`, a folder of its own, or in memory / a temporary folder), for the bench (default) or a test. */
  start(location?: string, purpose?: 'bench' | 'test'): Promise<RunningEngine>;
  /** Loads `nquads` into a fresh store at `location` with the engine's own bulk loader; the milliseconds it took. */
  bulkLoadCli(nquads: string, location: string): Promise<number>;
}

/** Runs a command to its end; the milliseconds it took. */
export function timed(command: string, args: string[]): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let error = '';
    child.stderr!.on('data', (chunk: Buffer) => (error = (error + chunk.toString()).slice(-2000)));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - start) : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${error}`))));
  });
}

const ENGINES: BenchEngine[] = [
  {
    kind: 'oxigraph-server',
    loaderName: 'oxigraph load',
    start: (location) => startOxigraph(location),
    bulkLoadCli: (nquads, location) => timed(process.env.LODESTONE_OXIGRAPH ?? 'oxigraph', ['load', '--location', location, '--file', nquads]),
  },
  {
    kind: 'fuseki',
    loaderName: 'tdb2.tdbloader',
    start: async (_location, purpose = 'bench') => {
      const fuseki = await FusekiProcess.start({ fullJit: purpose === 'bench' });
      return { url: fuseki.url, stop: () => fuseki.stop(), kill: () => fuseki.kill() };
    },
    bulkLoadCli: (nquads, location) => timed('java', ['-Xmx1g', '-cp', fusekiJar(), 'tdb2.tdbloader', '--loc', location, nquads]),
  },
  {
    kind: 'virtuoso',
    loaderName: 'ld_dir + rdf_loader_run + checkpoint',
    start: async () => {
      const server = await startVirtuoso();
      return { url: server.endpoint, stop: () => server.stop(), kill: () => server.kill() };
    },
    bulkLoadCli: async (nquads) => {
      const server = await startVirtuoso();
      try {
        copyFileSync(nquads, join(server.dir, 'bench.nq')); // a folder its DirsAllowed lets it read
        const dba = new URL(server.endpoint);
        const sql = digestFetch({ username: decodeURIComponent(dba.username), password: decodeURIComponent(dba.password) });
        const call = async (expression: string) => {
          const response = await sql(new URL(`http://${dba.host}/sparql-auth`), {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ query: `SELECT (${expression} AS ?r) {}` }).toString(),
          });
          const text = await response.text();
          if (!response.ok) throw new Error(text.split('\n')[0]);
        };
        const start = performance.now();
        await call(`<sql:ld_dir>(${JSON.stringify(server.dir)}, "bench.nq", "urn:x-bench:default")`);
        await call('<sql:rdf_loader_run>()');
        await call('bif:exec("checkpoint")');
        return performance.now() - start;
      } finally {
        await server.stop();
      }
    },
  },
];

/** The engines of `kinds` (default: BENCH_ENGINES, comma-separated, else all). */
export function benchEngines(kinds = process.env.BENCH_ENGINES?.split(',')): BenchEngine[] {
  return ENGINES.filter((engine) => !kinds || kinds.includes(engine.kind));
}
