/**
 * `--only index`: the index on each SPARQL server the tests can start (test/engines/), at 10
 * million triples (100,000 documents; 1 million with BENCH_QUICK; BENCH_INDEX_DOCUMENTS sets it):
 * - a load from an empty engine through `syncTo` (RemoteIndex: the engine's bulk path) against the
 *   engine's own bulk loader on the same N-Quads (goal: at least half its rate);
 * - incremental sync under 100 document writes per second: the lag from a commit to the index
 *   reflecting it, p50 and p99;
 * - a selective and an aggregate query on the engine, against the embedded index at a tenth of the size;
 * - 16 clients, one of them running an expensive query: the others' p99 (selective queries),
 *   against the same clients without it (bench/index-concurrency.ts, which measures the embedded
 *   index's lanes too).
 */
import { open as openFile } from 'node:fs/promises';
import { join } from 'node:path';
import { engineFor } from '../src/index/engines.js';
import { linesInGraph } from '../src/rdf/canonical-lines.js';
import { Index } from '../src/index/index.js';
import type { DataspaceIndex } from '../src/index/engine.js';
import { RemoteIndex } from '../src/index/remote-index.js';
import { RESULTS_JSON } from '../src/rdf/media-types.js';
import { GitStore } from '../src/store/git-store.js';
import { benchEngines, type BenchEngine } from '../test/engines/engines.js';
import { BASE, TRIPLES_PER_DOCUMENT, documentPath, makeDocument } from './documents.js';
import { BENCH_AUTHOR, gitdirOf } from './repos.js';
import { concurrentQueries, measureIndexConcurrency } from './index-concurrency.js';
import { count, ms, num, quantile, rate, ratio, target, type BenchContext, type Row, type Section } from './table.js';

const CHUNK = 2000;
const SCHEMA = 'https://schema.org/';
const DCT = 'http://purl.org/dc/terms/';

/** A repository of `documents` documents (commits of CHUNK), and the same triples as one N-Quads file. */
async function buildCorpus(dir: string, documents: number, log: (line: string) => void): Promise<{ head: string; nquads: string }> {
  const store = await GitStore.open({ dir });
  const nquads = join(dir, '..', `corpus-${documents}.nq`);
  const out = await openFile(nquads, 'w');
  let head: string | undefined;
  for (let from = 0; from < documents; from += CHUNK) {
    const files = await Promise.all(Array.from({ length: Math.min(CHUNK, documents - from) }, (_, k) => makeDocument(from + k, 'containers')));
    head = await store.write({ changes: files.map((f) => ({ path: f.path, bytes: f.bytes })), author: BENCH_AUTHOR, message: `Import ${files.length} documents` });
    await out.write(files.map((f) => linesInGraph(f.bytes.toString('utf8'), `<${BASE}${f.document}>`)).join(''));
    if ((from / CHUNK) % 10 === 0) log(`index: corpus ${from + files.length} of ${documents} documents`);
  }
  await out.close();
  await store.close();
  return { head: head!, nquads };
}

async function timeQuery(index: DataspaceIndex, query: string, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await index.query({ query, unionDefaultGraph: true, format: RESULTS_JSON }, 120_000, 'bench');
    times.push(performance.now() - start);
  }
  return quantile(times, 0.5);
}

const selective = (i: number) => `SELECT ?t WHERE { <${BASE}${documentPath(i, 'containers')}#this> <${DCT}title> ?t }`;
const AGGREGATE = `SELECT (COUNT(*) AS ?n) WHERE { ?s a <${SCHEMA}Article> }`;

/** Writes `perSecond` documents a second for `seconds` and syncs after each: the lag of each commit, in ms. */
async function syncLag(index: DataspaceIndex, dir: string, documents: number, perSecond: number, seconds: number): Promise<number[]> {
  const store = await GitStore.open({ dir });
  const lags: Promise<number>[] = [];
  const start = performance.now();
  for (let n = 0; n < perSecond * seconds; n++) {
    const due = start + (n * 1000) / perSecond;
    if (due > performance.now()) await new Promise((r) => setTimeout(r, due - performance.now()));
    const file = await makeDocument((n * 104729) % documents, 'containers', n + 1);
    const commit = await store.write({ changes: [{ path: file.path, bytes: file.bytes }], author: BENCH_AUTHOR, message: `PUT ${file.document}` });
    const committed = performance.now();
    const lag = index.syncTo(commit).then(() => performance.now() - committed);
    lag.catch(() => undefined); // awaited below, with the others
    lags.push(lag);
  }
  const out = await Promise.all(lags);
  await store.close();
  return out;
}

async function benchEngine(engine: BenchEngine, context: BenchContext, corpus: { dir: string; head: string; nquads: string; documents: number }, embedded: { select: number; aggregate: number }): Promise<Row[]> {
  const section = `index ${engine.kind}`;
  const triples = corpus.documents * TRIPLES_PER_DOCUMENT;
  const rows: Row[] = [];
  context.log(`index: ${engine.kind}: its own bulk loader`);
  const ownMs = await engine.bulkLoadCli(corpus.nquads, join(context.tmp, `${engine.kind}-cli`));
  context.log(`index: ${engine.kind}: loaded through syncTo`);
  const running = await engine.start(join(context.tmp, `${engine.kind}-data`));
  const index = new RemoteIndex({ engine: engineFor(engine.kind, running.url), id: 'bench', gitdir: gitdirOf(corpus.dir), prefix: 'graphs', base: BASE, log: context.log });
  try {
    let start = performance.now();
    await index.syncTo(corpus.head);
    const syncMs = performance.now() - start;
    const syncRate = triples / (syncMs / 1000);
    const ownRate = triples / (ownMs / 1000);
    rows.push({ section, measure: `load ${count(corpus.documents)} documents (${num(triples / 1e6, 1)} M triples) through syncTo`, value: `${rate(syncRate)} triples (${ms(syncMs)})`, baseline: `${rate(ownRate)} triples (${ms(ownMs)}): ${engine.loaderName}`, ratio: ratio(syncRate / ownRate), target: target('≥ 0.5× its own bulk loader', syncRate / ownRate >= 0.5) });

    context.log(`index: ${engine.kind}: queries`);
    const select = await timeQuery(index, selective(12345 % corpus.documents), 50);
    const aggregate = await timeQuery(index, AGGREGATE, 5);
    rows.push({ section, measure: `selective query at ${num(triples / 1e6, 1)} M triples (median of 50)`, value: ms(select), baseline: `${ms(embedded.select)} embedded at ${num(triples / 1e7, 1)} M`, ratio: ratio(select / embedded.select) });
    rows.push({ section, measure: `aggregate (COUNT of a class) at ${num(triples / 1e6, 1)} M triples (median of 5)`, value: ms(aggregate), baseline: `${ms(embedded.aggregate)} embedded at ${num(triples / 1e7, 1)} M`, ratio: ratio(aggregate / embedded.aggregate) });

    // before the expensive queries: Fuseki and Virtuoso run an abandoned query on to their own timeout, which a sync would wait behind
    const seconds = context.quick ? 5 : 10;
    context.log(`index: ${engine.kind}: incremental sync under 100 writes/s`);
    start = performance.now();
    const lags = await syncLag(index, corpus.dir, corpus.documents, 100, seconds);
    rows.push({ section, measure: `sync lag under 100 document writes/s for ${seconds} s: p50 / p99`, value: `${ms(quantile(lags, 0.5))} / ${ms(quantile(lags, 0.99))}`, target: `(${lags.length} writes in ${ms(performance.now() - start)})` });
    context.log(`index: ${engine.kind}: 16 clients, one expensive`);
    const alone = (await concurrentQueries(index, corpus.documents, seconds, true)).others;
    const beside = await concurrentQueries(index, corpus.documents, seconds, false);
    const p99 = quantile(beside.others, 0.99);
    rows.push({ section, measure: `16 clients, one running an expensive query (${beside.expensive} of them): the 15 others' selective p99`, value: `${ms(p99)} (${beside.others.length} queries)`, baseline: `${ms(quantile(alone, 0.99))} alone (${alone.length})`, ratio: ratio(p99 / quantile(alone, 0.99)), target: target('p99 < 1 s', p99 < 1000) });
    rows.push({ section, measure: "the expensive agent's own selective queries beside its expensive ones, p99", value: beside.own.length ? `${ms(quantile(beside.own, 0.99))} (${beside.own.length})` : 'none answered', target: target('p99 < 1 s', quantile(beside.own, 0.99) < 1000) });
  } finally {
    await index.close();
    await running.stop();
  }
  return rows;
}

export const indexSection: Section = {
  name: 'index',
  async run(context) {
    const documents = Number(process.env.BENCH_INDEX_DOCUMENTS ?? (context.quick ? 10_000 : 100_000));
    const dir = join(context.tmp, 'index-corpus');
    const { head, nquads } = await buildCorpus(dir, documents, context.log);
    // the embedded index at a tenth of the size (its WebAssembly memory caps it near 5 M triples)
    const small = Math.max(1000, Math.floor(documents / 10));
    const smallDir = join(context.tmp, 'index-small');
    const smallHead = (await buildCorpus(smallDir, small, context.log)).head;
    context.log(`index: embedded at ${count(small)} documents`);
    const embeddedIndex = new Index({ gitdir: gitdirOf(smallDir), prefix: 'graphs', base: BASE, lanes: 2, log: () => undefined });
    await embeddedIndex.syncTo(smallHead);
    const embedded = { select: await timeQuery(embeddedIndex, selective(1234 % small), 50), aggregate: await timeQuery(embeddedIndex, AGGREGATE, 5) };
    await embeddedIndex.close();
    const rows: Row[] = await measureIndexConcurrency(context);
    for (const engine of benchEngines()) rows.push(...(await benchEngine(engine, context, { dir, head, nquads, documents }, embedded)));
    return rows;
  },
};
