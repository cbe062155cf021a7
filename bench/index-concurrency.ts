/**
 * `--only index` (bench/index.ts), the embedded index under concurrent queries (issue 27): 16 clients, one of them
 * running an expensive query over and over, the others (15 agents) selective ones; their p99 against
 * the same 15 alone, with the default extra lane and without it (`extraLanes: 0`: one agent holds
 * at most N − 1 lanes, as before issue 27, but a query of an agent whose slow query fills that is
 * refused rather than held), and the expensive agent's own selective queries.
 * Also what a fresh lane costs: the time to load one from git, and the process's RSS at its peak.
 */
import { join } from 'node:path';
import { isLodestoneError } from '../src/errors.js';
import { Index } from '../src/index/index.js';
import { BASE, makeDocuments } from './documents.js';
import { buildRepo, gitdirOf } from './repos.js';
import { count, mb, ms, num, quantile, ratio, target, type BenchContext, type Row } from './table.js';

const CSV = 'text/csv';
const CLIENTS = 16;
/** About a million solutions at 100k triples (4 s here, under load): each document's keywords joined with every other's. */
const EXPENSIVE = 'SELECT (COUNT(*) AS ?n) WHERE { ?a <https://schema.org/keywords> ?k . ?b <https://schema.org/keywords> ?k }';
const EXPENSIVE_TIMEOUT_MS = 30_000;

/** What the load needs of an index: its queries (an engine of issue 27 fits), and its lanes if it has any. */
export type Queried = Pick<Index, 'query'> & { status?: { lanes: number } };

export interface Run {
  /** Latencies of the selective queries of the 15 other agents, and of the expensive agent's own. */
  others: number[];
  own: number[];
  /** The expensive agent's selective queries refused (503: its slow query held every lane it may use). */
  refused: number;
  expensive: number;
  mostLanes: number;
  peakRss: number;
}

/** One selective query: the title of one document's main resource (a different one each time). */
function selective(n: number, documents: number): string {
  const i = (n * 7919) % documents;
  return `SELECT ?t WHERE { <${BASE}c${Math.floor(i / 200)}/d${i}/#this> <http://purl.org/dc/terms/title> ?t }`;
}

/**
 * Runs `seconds` of load on `index` (holding the `documents` of bench/documents.ts, containers
 * layout): 15 agents each sending selective queries one after another, and unless `quiet`, a 16th
 * agent sending the expensive query over and over while, on a second connection, its own selective
 * queries.
 */
export async function concurrentQueries(index: Queried, documents: number, seconds: number, quiet: boolean): Promise<Run> {
  const run: Run = { others: [], own: [], refused: 0, expensive: 0, mostLanes: 0, peakRss: 0 };
  const until = performance.now() + seconds * 1000;
  let n = 0;
  const loop = async (holder: string, into: number[]) => {
    while (performance.now() < until) {
      const started = performance.now();
      const answered = await index.query({ query: selective(n++, documents), format: CSV, unionDefaultGraph: true }, 30_000, holder).then(
        () => true,
        (error: unknown) => {
          if (!isLodestoneError(error, 'Busy')) throw error;
          run.refused++;
          return false;
        },
      );
      if (answered) into.push(performance.now() - started);
      else await new Promise((resolve) => setTimeout(resolve, 100)); // a client told to come back later
    }
  };
  const sampler = setInterval(() => {
    run.mostLanes = Math.max(run.mostLanes, index.status?.lanes ?? 0);
    run.peakRss = Math.max(run.peakRss, process.memoryUsage().rss);
  }, 50);
  const clients = Array.from({ length: CLIENTS - 1 }, (_, k) => loop(`agent-${k}`, run.others));
  if (!quiet) {
    clients.push(loop('expensive', run.own));
    clients.push(
      (async () => {
        while (performance.now() < until) {
          await index.query({ query: EXPENSIVE, format: CSV, unionDefaultGraph: true }, EXPENSIVE_TIMEOUT_MS, 'expensive').catch(() => undefined);
          run.expensive++;
        }
      })(),
    );
  }
  await Promise.all(clients);
  clearInterval(sampler);
  return run;
}

export async function measureIndexConcurrency(context: BenchContext): Promise<Row[]> {
  const documents = context.quick ? 200 : 1000;
  const seconds = context.quick ? 4 : 15;
  const dir = join(context.tmp, 'index-concurrency');
  context.log(`index: ${documents} documents`);
  const { head } = await buildRepo(dir, await makeDocuments(documents, 'containers'));
  const rows: Row[] = [];
  const section = 'index';
  const size = `${count(documents)} documents, ${count(documents * 100)} triples`;
  const p99 = (samples: number[]) => `${ms(quantile(samples, 0.5))} / ${ms(quantile(samples, 0.99))}`;
  let alone: number[] = [];
  // a lane's worker starting, with nothing to load: what a load costs beyond the triples
  const empty = new Index({ gitdir: gitdirOf(dir), prefix: 'graphs', base: BASE, lanes: 1, log: () => undefined });
  const startedEmpty = performance.now();
  await empty.syncTo(undefined);
  const startMs = performance.now() - startedEmpty;
  await empty.close();
  for (const extraLanes of [1, 0]) {
    const index = new Index({ gitdir: gitdirOf(dir), prefix: 'graphs', base: BASE, lanes: 2, extraLanes, log: () => undefined });
    try {
      const started = performance.now();
      await index.syncTo(head);
      const loadMs = performance.now() - started;
      while (index.status.loaded < 2) await new Promise((resolve) => setTimeout(resolve, 20));
      if (extraLanes === 1) {
        const perMillion = ((loadMs - startMs) * 1_000_000) / (documents * 100);
        rows.push({ section, measure: `a fresh lane loaded from git (${size}; its worker starting alone: ${ms(startMs)})`, value: ms(loadMs), target: `≈ ${ms(perMillion)} per million triples` });
        context.log('index: 15 agents alone');
        alone = (await concurrentQueries(index, documents, seconds, true)).others;
        rows.push({ section, measure: `15 agents' selective queries alone, p50 / p99`, value: p99(alone) });
      }
      context.log(`index: 15 agents beside an expensive query (${extraLanes} extra lane)`);
      const run = await concurrentQueries(index, documents, seconds, false);
      const label = extraLanes ? '2 lanes + 1 extra (default)' : '2 lanes, no extra';
      const worst = quantile(run.others, 0.99);
      rows.push({
        section,
        measure: `${label}: the 15 others' p50 / p99 beside ${run.expensive} expensive queries`,
        value: p99(run.others),
        baseline: ms(quantile(alone, 0.99)),
        ratio: ratio(worst / quantile(alone, 0.99)),
        target: extraLanes ? target('p99 < 1 s', worst < 1000) : undefined,
      });
      rows.push({
        section,
        measure: `${label}: the expensive agent's own selective queries, p50 / p99 (${num(run.own.length)}; ${num(run.refused)} refused)`,
        value: run.own.length ? p99(run.own) : 'none answered',
        target: extraLanes ? target('p99 < 1 s', quantile(run.own, 0.99) < 1000) : undefined,
      });
      rows.push({ section, measure: `${label}: most lanes at once, peak RSS of the process`, value: `${run.mostLanes}, ${mb(run.peakRss)}` });
    } finally {
      await index.close();
    }
  }
  return rows;
}

