/**
 * `npm run bench`: runs each benchmark section (storage, HTTP with SPARQL, the read fast path against bare Koa, access control, versions, stalls, start-up, pages, proxy, settings, index, scale, replicas, history) and prints one
 * table of figures, baselines measured in the same run, ratios and targets. BENCH_QUICK=1 shrinks sizes ~10× for a smoke run; `--only <section>` picks one.
 * BENCH_SCALE=http (with `--only scale`): the store's creates into a container of 100 and the HTTP creates only, in alternating
 * rounds, without the large seeding; BENCH_SCALE_SERVER_ARGS: extra flags for that section's `lodestone serve` (e.g. `--query-lanes 1`).
 * BENCH_SERVER_NODE_ARGS: extra node flags for the `lodestone serve` children (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`;
 * `npx tsx bench/profile-summary.ts /tmp/prof` then sums the self time per file and function of each thread).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { accessSection } from './access.js';
import { fastGetSection } from './fast-get.js';
import { httpSection } from './http.js';
import { indexSection } from './index.js';
import { proxySection } from './proxy.js';
import { stallsSection } from './stalls.js';
import { pagesSection } from './pages.js';
import { startupSection } from './startup.js';
import { storageSection } from './storage.js';
import { versionsSection } from './versions.js';
import { scaleSection } from './scale.js';
import { settingsSection } from './settings.js';
import { replicasSection } from './replicas.js';
import { historySection } from './history.js';
import { formatTable, ms, type Row, type Section } from './table.js';

const sections: Section[] = [storageSection, httpSection, fastGetSection, accessSection, versionsSection, stallsSection, startupSection, pagesSection, proxySection, settingsSection, indexSection, scaleSection, replicasSection, historySection];

function selected(argv: readonly string[]): Section[] {
  const at = argv.indexOf('--only');
  if (at < 0) return sections;
  const names = (argv[at + 1] ?? '').split(',');
  const chosen = sections.filter((s) => names.includes(s.name));
  if (chosen.length === 0) throw new Error(`--only expects one of: ${sections.map((s) => s.name).join(', ')}`);
  return chosen;
}

const LEGEND = [
  'HTTP: `lodestone serve` and the bare Koa baselines run as child processes over the same TLS; load from wrk (1 thread, keep-alive).',
  '  GET p99 while writes run: medians of 9 alternating rounds (3 quick). "wrk on CPU n": both wrks pinned there (taskset), so wrk\'s own',
  '  descheduling does not count as the server\'s latency; "below capacity": each connection pauses between GETs (bench/paced-get.lua);',
  '  "wrk on either CPU": the paced writes again with wrk free to run anywhere, against its own idle run.',
  'Get: the read fast path (an anonymous Turtle GET of a public document) against two bare Koa children sending its body: one with the',
  '  very headers Lodestone answered with (the same bytes), one with an ETag and the Content-Type only; 5 alternating rounds (3 quick), each printed,',
  '  each round 4 one-second runs of the three in turn (2 quick); CPU per GET: the server process\'s user + system time (/proc) over its requests.',
  'Ratios are value / baseline (for rates: higher is better for Lodestone; for times and latencies: lower is).',
  'Lodestone commits are fsynced (objects fdatasync + directory fsync, ref lock fdatasync + rename + fsync) before a write resolves.',
  'isomorphic-git low-level: writeBlob, writeTree per changed tree, writeCommit, writeRef; trees cached in memory; no fsync.',
  'git CLI plumbing: hash-object -w --stdin, update-index --cacheinfo, write-tree, commit-tree, update-ref: 5 spawns per commit,',
  '  git 2.x default core.fsync (loose objects, refs and the index are not fsynced).',
  '  The git CLI runs from a small child process (a spawn from this large process would cost a fork of its heap).',
  'Stalls: `lodestone serve` in a child process (bench/stall-child.ts) reports its event-loop delay; hostile requests all at once',
  '  (bench/stalls.ts) against a light loop of GETs alone; then, apart, 16 loops of signups from 16 loopback addresses with client',
  '  certificates naming remote WebIDs (a loopback origin), the signups\' local WebIDs and 1,000 WebIDs (bench/stall-requesters.ts).',
  'Proxy: `lodestone serve --allow-internal-urls` in a child process; one keep-alive HTTPS connection as the owner; the origin is a loopback',
  '  HTTP server in the bench process (100-triple Turtle); the baseline is a direct GET of it. Each proxied request that reaches the origin',
  '  opens a new connection to it (the guarded fetch pins the checked address per request). p50 / p99 of sequential requests.',
  '(mutex): the baseline is not safe under concurrent writers, so its 16 writers take turns.',
  'Write rates are the median of the per-round rates.',
  'Write runs are interleaved in rounds (Lodestone, isomorphic-git, git CLI; every run each round), so machine drift hits all alike.',
  'fsync calls per commit are counted by the disk worker, which makes every fdatasync and fsync of a write (src/store/disk-ops.ts).',
  'Reads: "cold" is the first store.read of a document after GitStore.open (the OS page cache is warm: files were just written).',
  'Access: `lodestone serve --http --trusted-proxy 127.0.0.1`; wrk sends the client certificate in RFC 9440 Client-Cert from 127.0.0.1,',
  '  with the proxy secret (Lodestone-Proxy-Secret), as a TLS-terminating proxy would. There is no switch to turn access control off: the owner\'s GET (no decision) stands for it.',
  '  Decisions: one Policy.modes call each, timed alone; "first" is the first decision of an (agent, document) pair, later ones are cached.',
  'Index: each SPARQL server started by the bench on loopback with a folder of its own (test/engines/); the corpus is bench/documents.ts',
  '  (100 triples a document, containers of 200) committed in one repository; queries through RemoteIndex.query as the endpoint runs them.',
  'Settings: a server in the bench process over HTTPS, one request at a time; the shapes\' writes are validated in the ontology workers.',
  'Index: the embedded index (src/index/index.ts) in the bench process, no HTTP; 16 clients, each a different agent sending one query after another,',
  '  one of them an expensive query (~1 M solutions) while, on a second connection, the same agent sends selective queries (bench/index-concurrency.ts).',
  'Scale: GitStore with its working tree (and stage) in the bench process; repositories seeded by one store write (one shared blob) and',
  '  `git read-tree -u`; container widths in one repository, alternating rounds; dataspaces of containers of 1,000 (bench/scale.ts).',
];

async function main(): Promise<void> {
  const quick = process.env.BENCH_QUICK === '1';
  const tmp = await mkdtemp(join(tmpdir(), 'lodestone-bench-'));
  const started = performance.now();
  const loadStart = loadavg().map((l) => l.toFixed(2)).join(' ');
  const rows: Row[] = [];
  const log = (line: string) => process.stderr.write(`[${ms(performance.now() - started).padStart(9)}] ${line}\n`);
  try {
    for (const section of selected(process.argv.slice(2))) {
      const sectionStart = performance.now();
      rows.push(...(await section.run({ quick, tmp, log })));
      log(`section ${section.name}: ${ms(performance.now() - sectionStart)}`);
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  const total = (performance.now() - started) / 1000;
  const loadEnd = loadavg().map((l) => l.toFixed(2)).join(' ');
  process.stdout.write(`Lodestone benchmark${quick ? ' (BENCH_QUICK: sizes ~10× smaller)' : ''}\n\n`);
  process.stdout.write(formatTable(rows) + '\n\n');
  process.stdout.write(LEGEND.join('\n') + '\n');
  process.stdout.write(`\nTotal time: ${total.toFixed(1)} s\n`);
  process.stdout.write(`Load average (1, 5, 15 min) at the start: ${loadStart}; at the end: ${loadEnd}; ${cpus().length} CPUs\n`);
}

await main();
