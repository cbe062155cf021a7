/**
 * The index under rewrites: the same documents rewritten thousands of times, each rewrite synced
 * as the server syncs a write (IndexCore.syncTo with the changed file's bytes), against the same
 * graph replacements (DROP GRAPH, then a load) on one raw Oxigraph store. Oxigraph's in-memory
 * store keeps what it removed, so on the raw store each replacement gets slower as rewrites pile
 * up; the index moves into a fresh store when they outnumber what it holds (index-core.ts).
 */
import { setImmediate as afterPendingWork } from 'node:timers/promises';
import oxigraph from 'oxigraph';
import { IndexCore } from '../src/index/index-core.js';
import { ms, num, ratio, target, type Row } from './table.js';

const BASE = 'https://localhost:4443/';
const NTRIPLES = 'application/n-triples';

function documentBytes(doc: number, version: number): Buffer {
  let text = '';
  for (let i = 0; i < 100; i++) text += `<${BASE}d${doc}/#this> <https://example.org/vocabulary#p${i % 12}> "value ${i} of version ${version}" .\n`;
  return Buffer.from(text);
}

/** Mean time per rewrite over the first, the middle and the last `window` rewrites. */
interface Timing {
  first: number;
  middle: number;
  last: number;
}

/**
 * Runs `rewrites` rewrites of documents 0–3 through `replace`, timing the first, the middle and
 * the last `window` of them. Each rewrite's time includes a turn of the event loop after it, as the index
 * worker takes between requests: the slices of a compaction run there.
 */
async function timeRewrites(rewrites: number, window: number, replace: (doc: number, bytes: Buffer) => void): Promise<Timing> {
  let first = 0;
  let middle = 0;
  let last = 0;
  const half = Math.floor((rewrites - window) / 2);
  for (let k = 0; k < rewrites; k++) {
    const bytes = documentBytes(k % 4, k + 1);
    const start = performance.now();
    replace(k % 4, bytes);
    await afterPendingWork();
    const took = performance.now() - start;
    if (k < window) first += took;
    if (k >= half && k < half + window) middle += took;
    if (k >= rewrites - window) last += took;
  }
  return { first: first / window, middle: middle / window, last: last / window };
}

export async function measureIndexChurn(documents: number, rewrites: number, log: (line: string) => void): Promise<Row[]> {
  const window = Math.min(500, rewrites / 4);
  log(`index churn: ${documents} documents, ${rewrites} rewrites`);
  // the index, fed deltas as the server's head listener feeds them (no packs are read)
  const core = new IndexCore({ gitdir: '/nonexistent', prefix: 'graphs', base: BASE });
  const files = Array.from({ length: documents }, (_, doc) => ({ path: `graphs/d${doc}.nt`, bytes: documentBytes(doc, 0) }));
  let commit = 0;
  await core.syncTo(`c${commit}`, { from: undefined, tree: 't', files });
  const lodestone = await timeRewrites(rewrites, window, (doc, bytes) => {
    void core.syncTo(`c${commit + 1}`, { from: `c${commit}`, tree: 't', files: [{ path: `graphs/d${doc}.nt`, bytes }] });
    commit++;
  });
  const compactions = core.compactions;
  core.stop();
  const raw = new oxigraph.Store();
  for (const [doc, file] of files.entries()) raw.load(file.bytes, { format: NTRIPLES, to_graph_name: oxigraph.namedNode(`${BASE}d${doc}/`), no_transaction: true });
  const baseline = await timeRewrites(rewrites, window, (doc, bytes) => {
    raw.update(`DROP SILENT GRAPH <${BASE}d${doc}/>`);
    raw.load(bytes, { format: NTRIPLES, to_graph_name: oxigraph.namedNode(`${BASE}d${doc}/`) });
  });
  const section = 'storage/index';
  const growth = lodestone.last / lodestone.middle;
  return [
    {
      section,
      measure: `sync of one rewritten 100-triple document (${num(documents)} docs): the first ${window} rewrites`,
      value: ms(lodestone.first),
      baseline: `raw Oxigraph, DROP GRAPH + load: ${ms(baseline.first)}`,
      ratio: ratio(lodestone.first / baseline.first),
    },
    {
      section,
      measure: `  ↳ ${window} rewrites halfway through ${num(rewrites)} rewrites of 4 docs`,
      value: ms(lodestone.middle),
      baseline: `raw Oxigraph: ${ms(baseline.middle)}`,
      ratio: ratio(lodestone.middle / baseline.middle),
    },
    {
      section,
      measure: `  ↳ the last ${window} (${compactions} compactions into a fresh store in all, their copying included)`,
      value: `${ms(lodestone.last)} (${ratio(growth)} halfway)`,
      baseline: `raw Oxigraph: ${ms(baseline.last)} (${ratio(baseline.last / baseline.middle)} halfway)`,
      ratio: ratio(lodestone.last / baseline.last),
      target: target('no growth: ≤ 1.5× halfway', growth <= 1.5),
    },
  ];
}
