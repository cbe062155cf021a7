/**
 * The history section's part for SPARQL at a past commit (issue 30): a dataspace of 1,000,000
 * triples (10,000 documents of 100) then 10,000 commits, each rewriting one of 100 documents (a
 * working set: the documents that differ between HEAD and the oldest commit), asked through HTTP
 * (a server in this process, two query lanes as `serve` has by default) at the commit 10,000 back:
 * the first answer (a lane moves there by tree diff), the same query again, other queries there
 * (the lane stays), against the same queries at HEAD. BENCH_QUICK: 100,000 triples, 1,000 commits.
 */
import { agentIdentity } from '../src/dataspace.js';
import { documentFile } from '../src/document-paths.js';
import { removeTempDirs, tempDir } from '../test/helpers.js';
import { startServer, type TestServer } from '../test/http-helpers.js';
import { GitStore } from '../src/store/git-store.js';
import { ms, quantile, ratio, target, type BenchContext, type Row } from './table.js';

const SECTION = 'history';
const EX = 'http://example.org/ns#';
const JSON_RESULTS = 'application/sparql-results+json';
const TRIPLES_PER_DOCUMENT = 100;
const WORKING_SET = 100;

/** A document of 100 triples whose values carry `version`, as canonical (sorted) N-Triples. */
function documentText(base: string, doc: number, version: number): Buffer {
  const lines = Array.from({ length: TRIPLES_PER_DOCUMENT }, (_, t) => `<${base}data/d${doc}/#r${t}> <${EX}v> "${version}-${t}" .\n`).sort();
  return Buffer.from(lines.join(''));
}

/**
 * Seeds the repository in `dir` (the server stopped: no index follows the writes) with `documents`
 * documents (1,000 per commit), then `edits` commits each rewriting one of the working set.
 */
async function seed(dir: string, base: string, owner: string, documents: number, edits: number): Promise<void> {
  const store = await GitStore.open({ dir });
  const author = agentIdentity(owner);
  for (let first = 0; first < documents; first += 1000) {
    const changes = Array.from({ length: Math.min(1000, documents - first) }, (_, k) => ({ path: documentFile(`data/d${first + k}/`, 'graphs'), bytes: documentText(base, first + k, 0) }));
    await store.write({ changes, author, message: `seed ${first}` });
  }
  for (let wave = 0; wave < edits; wave += 64) {
    await Promise.all(
      Array.from({ length: Math.min(64, edits - wave) }, (_, k) => {
        const n = wave + k + 1;
        const doc = (n * 37) % WORKING_SET;
        return store.write({ changes: [{ path: documentFile(`data/d${doc}/`, 'graphs'), bytes: documentText(base, doc, n) }], author, message: `edit ${n}` });
      }),
    );
  }
  await store.close();
}

/** A selective query: the values of one document of the working set (`round` makes its text new: no cached answer). */
const query = (s: TestServer, doc: number, round = 0) => `SELECT ?r ?v WHERE { GRAPH <${s.base}data/d${doc}/> { ?r <${EX}v> ?v } } LIMIT ${1000 + round}`;

async function timed(s: TestServer, text: string, version?: string): Promise<number> {
  const params = new URLSearchParams({ query: text, ...(version ? { version } : {}) });
  const start = performance.now();
  const res = await s.request('GET', `/sparql?${params.toString()}`, { headers: { Accept: JSON_RESULTS } });
  const took = performance.now() - start;
  if (res.status !== 200 || !res.body.includes('"bindings"')) throw new Error(`past query: ${res.status} ${res.body.slice(0, 300)}`);
  if (version && res.headers['lodestone-commit'] !== version) throw new Error(`asked for ${version}, answered at ${String(res.headers['lodestone-commit'])}`);
  return took;
}

export async function pastQueryRows(context: BenchContext): Promise<Row[]> {
  const documents = context.quick ? 1_000 : 10_000;
  const edits = context.quick ? 1_000 : 10_000;
  const triples = documents * TRIPLES_PER_DOCUMENT;
  const scale = `${triples.toLocaleString('en')} triples, ${edits.toLocaleString('en')} commits back, ${WORKING_SET} documents differ`;
  const dir = tempDir('bench-past');
  const first = await startServer(['--query-lanes', '2'], dir);
  const repository = first.running.runtimes[0]!.dataspace.store.dir;
  const [base, owner] = [first.base, first.running.agents.owner.webId];
  await first.close();
  const started = performance.now();
  await seed(repository, base, owner, documents, edits);
  context.log(`past queries: seeded ${triples} triples and ${edits} edits in ${ms(performance.now() - started)}`);
  const s = await startServer(['--query-lanes', '2'], dir);
  try {
    const dataspace = s.running.runtimes[0]!.dataspace;
    const loading = performance.now();
    await dataspace.settled();
    const index = dataspace.index as typeof dataspace.index & { status?: { loaded: number; lanes: number } };
    while (index.status && index.status.loaded < index.status.lanes) await new Promise((resolve) => setTimeout(resolve, 200));
    await new Promise((resolve) => setTimeout(resolve, 6000)); // lane 1 catches up with HEAD once idle (5 s)
    context.log(`past queries: index lanes loaded in ${ms(performance.now() - loading)}`);
    const repo = dataspace.store;
    let past = repo.head!;
    for (let i = 0; i < edits; i++) past = (await repo.objects.readCommit(past)).parents[0]!;
    let halfway = repo.head!;
    for (let i = 0; i < edits / 2; i++) halfway = (await repo.objects.readCommit(halfway)).parents[0]!;
    const samples = 20;
    const atHead: number[] = [];
    for (let d = 0; d < samples; d++) atHead.push(await timed(s, query(s, d)));
    const firstAnswer = await timed(s, query(s, 0), past);
    const again = await timed(s, query(s, 0), past);
    const headAgain = await timed(s, query(s, 0));
    // then rounds that alternate a new query at the past commit and the same at HEAD: the machine's noise falls on both
    const others: number[] = [];
    const heads: number[] = [];
    for (let round = 1; round <= 3; round++) {
      for (let d = 0; d < samples; d++) {
        others.push(await timed(s, query(s, d, round), past));
        heads.push(await timed(s, query(s, d, round)));
      }
    }
    const moved = await timed(s, query(s, 0), halfway);
    const p50 = (list: number[]) => quantile(list, 0.5);
    context.log(`past queries: first ${ms(firstAnswer)}, again ${ms(again)}, others p50 ${ms(p50(others))}, HEAD p50 ${ms(p50(heads))} (first ${samples} at HEAD: ${ms(p50(atHead))})`);
    return [
      { section: SECTION, measure: `query at a commit, first answer (${scale})`, value: ms(firstAnswer), baseline: `${ms(p50(atHead))} at HEAD (p50)`, ratio: ratio(firstAnswer / p50(atHead)), target: target('< 2 s', firstAnswer < 2000) },
      { section: SECTION, measure: 'the same query at that commit again (answer cache)', value: ms(again), baseline: `${ms(headAgain)} at HEAD again`, ratio: ratio(again / headAgain) },
      { section: SECTION, measure: `${3 * samples} other queries at that commit (the lane stays there), p50, alternating with HEAD`, value: ms(p50(others)), baseline: `${ms(p50(heads))} at HEAD (p50)`, ratio: ratio(p50(others) / p50(heads)), target: target('about the latency at HEAD (≤ 2×)', p50(others) <= 2 * p50(heads)) },
      { section: SECTION, measure: `first answer at another commit (${(edits / 2).toLocaleString('en')} back: the lane moves by diff)`, value: ms(moved) },
    ];
  } finally {
    await s.close();
    removeTempDirs();
  }
}
