/**
 * Startup index build: Lodestone's Index (a worker thread that diffs the commit's tree from empty
 * and loads every document into its named graph) against a fresh Oxigraph in a worker bulk-loading
 * the same triples, as one N-Quads string and as one N-Triples load per graph.
 */
import { Index } from '../src/index/index.js';
import { startWorker } from '../src/util/worker.js';
import { BASE, type DocumentFile } from './documents.js';
import type { BaselineJob, BaselineReport } from './oxigraph-worker.js';
import { settleDisk } from './repos.js';
import { count, mb, ms, num, ratio, target, type Row } from './table.js';

export interface IndexResult {
  documents: number;
  triples: number;
  workerStartMs: number;
  lodestoneMs: number;
  indexedQuads: number;
  rssBefore: number;
  rssAfter: number;
  nquadsMs: number;
  perGraphMs: number;
  baselineQuads: number;
}

/** Runs one Oxigraph baseline in a fresh worker (the documents are copied to it untimed). */
function baseline(mode: BaselineJob['mode'], documents: readonly DocumentFile[]): Promise<BaselineReport> {
  const job: BaselineJob = { mode, base: BASE, documents: documents.map((d) => ({ document: d.document, bytes: d.bytes })) };
  const worker = startWorker(new URL('./oxigraph-worker.js', import.meta.url), job);
  return new Promise<BaselineReport>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  }).finally(() => worker.terminate());
}

export async function measureIndex(
  gitdir: string,
  head: string,
  documents: readonly DocumentFile[],
  log: (line: string) => void,
): Promise<IndexResult> {
  log('index: worker start-up');
  let start = performance.now();
  const empty = new Index({ gitdir, prefix: 'graphs', base: BASE });
  await empty.size();
  const workerStartMs = performance.now() - start;
  await empty.close();

  log(`index: Lodestone build of ${documents.length} documents`);
  await settleDisk();
  const rssBefore = process.memoryUsage().rss;
  start = performance.now();
  const index = new Index({ gitdir, prefix: 'graphs', base: BASE });
  await index.syncTo(head);
  const lodestoneMs = performance.now() - start;
  const rssAfter = process.memoryUsage().rss;
  const indexedQuads = await index.size();
  await index.close();

  log('index: Oxigraph baseline, one N-Quads load');
  await settleDisk();
  const nquads = await baseline('nquads', documents);
  log('index: Oxigraph baseline, per-graph loads');
  const perGraph = await baseline('per-graph', documents);
  if (perGraph.quads !== nquads.quads) throw new Error(`per-graph load has ${perGraph.quads} quads, N-Quads load ${nquads.quads}`);
  return {
    documents: documents.length,
    triples: nquads.quads,
    workerStartMs,
    lodestoneMs,
    indexedQuads,
    rssBefore,
    rssAfter,
    nquadsMs: nquads.ms,
    perGraphMs: perGraph.ms,
    baselineQuads: nquads.quads,
  };
}

export function indexRows(r: IndexResult): Row[] {
  const section = 'storage/index';
  const what = `${num(r.triples)} triples in ${count(r.documents)} docs`;
  const vsBulk = r.lodestoneMs / r.nquadsMs;
  return [
    {
      section,
      measure: `startup build, ${what}: new Index → syncTo(head)`,
      value: ms(r.lodestoneMs),
      baseline: `fresh Oxigraph (worker): one N-Quads load, no_transaction: ${ms(r.nquadsMs)}`,
      ratio: ratio(vsBulk),
      target: target('≤ 1.5×', vsBulk <= 1.5),
    },
    {
      section,
      measure: '  ↳ same build',
      value: ms(r.lodestoneMs),
      baseline: `fresh Oxigraph (worker): one N-Triples load per graph, no_transaction: ${ms(r.perGraphMs)}`,
      ratio: ratio(r.lodestoneMs / r.perGraphMs),
    },
    { section, measure: '  ↳ of which worker start-up (empty index, one round trip)', value: ms(r.workerStartMs) },
    {
      section,
      measure: 'quads indexed (Lodestone / Oxigraph)',
      value: num(r.indexedQuads),
      baseline: num(r.baselineQuads),
      target: target('equal', r.indexedQuads === r.baselineQuads),
    },
    {
      section,
      measure: 'process RSS after the Lodestone build (index worker included)',
      value: mb(r.rssAfter),
      baseline: `before the build: ${mb(r.rssBefore)}`,
      ratio: `+${mb(r.rssAfter - r.rssBefore)}`,
    },
  ];
}
