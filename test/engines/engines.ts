/**
 * The SPARQL engines tests and the bench start, by kind: LODESTONE_TEST_INDEX=<kind> puts every
 * test server's end-user dataspace on a fresh one (test/http-helpers.ts); bench/index.ts loads each
 * through Lodestone and through the engine's own bulk loader.
 */
import { spawn } from 'node:child_process';
import { startOxigraph, type RunningEngine } from './oxigraph-server-engine.js';

export async function startEngine(kind: string): Promise<RunningEngine & { kind: string }> {
  const engine = benchEngines([kind])[0];
  if (!engine) throw new Error(`LODESTONE_TEST_INDEX=${kind}: no such engine for tests (${ENGINES.map((e) => e.kind).join(', ')})`);
  return { kind, ...(await engine.start()) };
}

/** An engine as the bench drives it. */
export interface BenchEngine {
  kind: 'oxigraph-server' | 'fuseki' | 'virtuoso';
  /** The engine's own bulk loader, as the row names it. */
  loaderName: string;
  /** Starts the engine (on `location`, a folder of its own, or in memory / a temporary folder). */
  start(location?: string): Promise<RunningEngine>;
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
];

/** The engines of `kinds` (default: BENCH_ENGINES, comma-separated, else all). */
export function benchEngines(kinds = process.env.BENCH_ENGINES?.split(',')): BenchEngine[] {
  return ENGINES.filter((engine) => !kinds || kinds.includes(engine.kind));
}
