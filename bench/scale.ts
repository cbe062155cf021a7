/**
 * Writes as a dataspace grows (issue 29): creates of 100-triple documents into containers of 100,
 * 10,000 and 100,000 documents (one repository, so only the container's width differs), write
 * latency in dataspaces of 10,000 and 1,000,000 documents, and creates over HTTP with 16 clients
 * against the store's own rate. Repositories are seeded with one store write (one blob shared by
 * every seed file) and checked out with `git read-tree -u`, as a git user's clone would be; the
 * store runs with its working tree (and so its stage, git's index), as the server does.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalBytes } from '../src/rdf/canonical.js';
import { GitStore } from '../src/store/git-store.js';
import { WorkingTree } from '../src/store/worktree.js';
import { freePort } from '../test/http-helpers.js';
import { documentQuads } from './documents.js';
import { client, documentTurtle, startChild, stop } from './http.js';
import { cpuTime } from './wrk.js';
import { BENCH_AUTHOR, git, settleDisk } from './repos.js';
import { count, ms, num, percent, quantile, rate, target, type BenchContext, type Row, type Section } from './table.js';

const SEED = Buffer.from('<https://example.org/seed> <https://example.org/p> "seed" .\n');
const CONTAINER = `<> a <https://w3id.org/atomgraph/linkeddatahub/document-hierarchy#Container> .`;

interface Open {
  store: GitStore;
  tree: WorkingTree;
}

/** A repository at `dir` holding `folders` (name, number of files) in one commit, checked out. */
async function seed(dir: string, folders: Array<[string, number]>, log: (line: string) => void): Promise<void> {
  const start = performance.now();
  const store = await GitStore.open({ dir });
  const changes = [];
  for (const [folder, n] of folders) for (let i = 0; i < n; i++) changes.push({ path: `graphs/${folder}/s${i}.nt`, bytes: SEED });
  await store.write({ changes, author: BENCH_AUTHOR, message: `Seed ${changes.length} documents` });
  await store.close();
  const committed = performance.now();
  await git(dir, ['read-tree', '-u', '--reset', 'HEAD']);
  log(`scale: seeded ${count(changes.length)} documents: commit ${ms(committed - start)}, checkout ${ms(performance.now() - committed)}`);
}

async function open(dir: string): Promise<Open> {
  const store = await GitStore.open({ dir });
  const tree = new WorkingTree({ store, base: 'https://example.org/', log: () => undefined });
  await tree.reconcile();
  return { store, tree };
}

/** Distinct 100-triple documents (canonical bytes), made once and written under new names. */
async function bodies(n: number): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (let i = 0; i < n; i++) out.push(await canonicalBytes(documentQuads(i, 'flat', 7)));
  return out;
}

/**
 * Creates into `folder` from `writers` loops for `seconds` (or `writes` creates, whichever ends
 * first), documents named from `first` on; the rate, each write's latency (ms) and the next name.
 */
async function creates(open: Open, folder: string, docs: readonly Buffer[], first: number, limit: { seconds: number; writes: number }, writers: number): Promise<{ rate: number; latencies: number[]; next: number }> {
  let next = first;
  const latencies: number[] = [];
  const deadline = performance.now() + limit.seconds * 1000;
  const loop = async () => {
    while (next - first < limit.writes && performance.now() < deadline) {
      const n = next++;
      const start = performance.now();
      const commit = await open.store.write({ changes: [{ path: `graphs/${folder}/n${n}.nt`, bytes: docs[n % docs.length]! }], author: BENCH_AUTHOR, message: `PUT https://example.org/${folder}/n${n}/` });
      if (!commit) throw new Error('a create made no commit');
      latencies.push(performance.now() - start);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: writers }, loop));
  return { rate: (latencies.length * 1000) / (performance.now() - start), latencies, next };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** `lodestone serve` in a child and 16 clients creating documents in one container of it, a round at a time. */
function httpCreates(tmp: string, rounds: number, seconds: number, log: (line: string) => void) {
  const data = join(tmp, 'scale-http');
  let server: Awaited<ReturnType<typeof startChild>> | undefined;
  let send: ReturnType<typeof client>;
  let base = '';
  let made = 0;
  const rates: number[] = [];
  const cpu: number[] = []; // the server's CPU time (user + system, all its threads) per create, µs
  return {
    rates,
    cpu,
    async start() {
      const port = await freePort();
      base = `https://localhost:${port}/`;
      const extra = (process.env.BENCH_SCALE_SERVER_ARGS ?? '').split(' ').filter(Boolean);
      server = await startChild(['bin/lodestone.js', 'serve', '--data', data, '--port', String(port), '--no-watch', '--access-log', 'off', ...extra], /listening on/);
      send = client(readFileSync(join(data, 'secrets/owner.pem'), 'utf8'));
      await send('PUT', `${base}items/`, { 'Content-Type': 'text/turtle' }, CONTAINER);
    },
    async round(round: number) {
      const deadline = performance.now() + seconds * 1000;
      let writes = 0;
      const start = performance.now();
      const cpuStart = cpuTime(server!.pid);
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (performance.now() < deadline) {
            const n = made++;
            const reply = await send('PUT', `${base}items/d${n}/`, { 'Content-Type': 'text/turtle', 'If-None-Match': '*' }, documentTurtle(n));
            if (reply.status !== 201) throw new Error(`PUT items/d${n}/: ${reply.status} ${reply.body}`);
            writes++;
          }
        }),
      );
      rates.push((writes * 1000) / (performance.now() - start));
      cpu.push((cpuTime(server!.pid) - cpuStart) / writes);
      log(`scale: round ${round + 1}/${rounds}, HTTP creates: ${rate(rates[rates.length - 1]!)}, server CPU ${ms(cpu[cpu.length - 1]! / 1000)} per create`);
    },
    async stop() {
      if (server) await stop(server);
    },
  };
}

async function run(context: BenchContext): Promise<Row[]> {
  const http = httpCreates(context.tmp, context.quick ? 2 : 5, context.quick ? 2 : 4, context.log);
  try {
    return await measure(context, http);
  } finally {
    await http.stop();
  }
}

async function measure(context: BenchContext, http: ReturnType<typeof httpCreates>): Promise<Row[]> {
  const { quick, tmp, log } = context;
  const rows: Row[] = [];
  const row = (measure: string, value: string, extra: Partial<Row> = {}) => rows.push({ section: 'scale', measure, value, ...extra });
  const rounds = quick ? 2 : 5;
  const docs = await bodies(64);

  // Container width: one repository, three containers; 16 writers creating into one at a time.
  // BENCH_SCALE=http: only the container of 100 and the HTTP creates (no large seeding).
  const httpOnly = process.env.BENCH_SCALE === 'http';
  if (httpOnly) await http.start();
  const widths: Array<[string, number]> = httpOnly ? [['w100', 100]] : quick ? [['w100', 100], ['w1k', 1_000], ['w10k', 10_000]] : [['w100', 100], ['w10k', 10_000], ['w100k', 100_000]];
  const wide = join(tmp, 'scale-wide');
  await seed(wide, widths, log);
  const store = await open(wide);
  const limit = { seconds: quick ? 1 : 3, writes: 10_000 };
  const widthRates = new Map<string, number[]>(widths.map(([name]) => [name, []]));
  const widthLatencies = new Map<string, number[]>(widths.map(([name]) => [name, []]));
  let written = 0;
  const storeCpu: number[] = []; // this process's CPU time per create into the smallest container, µs
  for (let round = 0; round < rounds; round++) {
    for (const [name] of round % 2 ? [...widths].reverse() : widths) {
      await store.tree.idle();
      await settleDisk();
      const cpuStart = process.cpuUsage();
      const result = await creates(store, name, docs, written, limit, 16);
      const used = process.cpuUsage(cpuStart);
      if (name === widths[0]![0]) storeCpu.push((used.user + used.system) / result.latencies.length);
      written = result.next;
      widthRates.get(name)!.push(result.rate);
      widthLatencies.get(name)!.push(...result.latencies);
      log(`scale: round ${round + 1}/${rounds}, container ${name}: ${rate(result.rate)}`);
    }
    if (httpOnly) await http.round(round);
  }
  await store.tree.idle();
  store.tree.close();
  await store.store.close();
  const smallest = median(widthRates.get(widths[0]![0])!);
  for (const [name, size] of widths) {
    const value = median(widthRates.get(name)!);
    const lat = widthLatencies.get(name)!;
    const last = name === widths[widths.length - 1]![0];
    row(`creates/s, 16 writers, into a container of ${num(size)} (store + working tree)`, rate(value), {
      baseline: name === widths[0]![0] ? undefined : rate(smallest),
      ratio: name === widths[0]![0] ? undefined : percent(value / smallest),
      target: last ? target('≥ 80% of the container of 100', value >= 0.8 * smallest) : undefined,
    });
    row(`  write latency p50 / p99 there`, `${ms(quantile(lat, 0.5))} / ${ms(quantile(lat, 0.99))}`);
  }

  // Dataspace size: containers of 1,000; one writer, so each latency is a write's own cost.
  const sizes: Array<[string, number]> = httpOnly ? [] : [['10k', quick ? 10 : 10], ['1M', quick ? 100 : 1000]];
  const spaces = new Map<string, Open>();
  // Checking out (and deleting) a million files takes minutes here: BENCH_SCALE_DIR keeps these
  // repositories from one run to the next (each run adds its creates to the container c0).
  const kept = process.env.BENCH_SCALE_DIR;
  for (const [label, containers] of sizes) {
    const dir = join(kept ?? tmp, `scale-${label}`);
    if (!kept || !existsSync(join(dir, '.git', 'refs', 'heads', 'main'))) await seed(dir, Array.from({ length: containers }, (_, k): [string, number] => [`c${k}`, 1_000]), log);
    const started = performance.now();
    spaces.set(label, await open(dir));
    log(`scale: dataspace ${label} opened, working tree reconciled, in ${ms(performance.now() - started)}`);
  }
  const latencies = new Map<string, number[]>(sizes.map(([label]) => [label, []]));
  const sequential = { seconds: 30, writes: quick ? 50 : 150 };
  let named = Math.floor(Date.now() / 1000) * 1000; // new names in kept repositories, run after run
  for (let round = 0; round < rounds; round++) {
    for (const [label] of round % 2 ? [...sizes].reverse() : sizes) {
      const space = spaces.get(label)!;
      await space.tree.idle();
      await settleDisk();
      const result = await creates(space, 'c0', docs, named, sequential, 1);
      named = result.next;
      latencies.get(label)!.push(...result.latencies);
      log(`scale: round ${round + 1}/${rounds}, dataspace ${label}: p99 ${ms(quantile(result.latencies, 0.99))}`);
    }
  }
  for (const space of spaces.values()) {
    await space.tree.idle();
    space.tree.close();
    await space.store.close();
  }
  const p99 = (label: string) => quantile(latencies.get(label)!, 0.99);
  const small = httpOnly ? 0 : p99('10k');
  for (const [label, containers] of sizes) {
    const lat = latencies.get(label)!;
    const big = label !== '10k';
    row(`write latency p50 / p99, 1 writer, dataspace of ${num(containers * 1000)} documents`, `${ms(quantile(lat, 0.5))} / ${ms(quantile(lat, 0.99))}`, {
      baseline: big ? ms(small) : undefined,
      ratio: big ? `${num(quantile(lat, 0.99) / small, 2)}×` : undefined,
      target: big ? target('p99 within 2× of 10,000', quantile(lat, 0.99) <= 2 * small) : undefined,
    });
  }

  // HTTP: 16 clients creating documents in one container, against the store's own rate above
  // (with BENCH_SCALE=http, each HTTP round runs right after a store round: alternating rounds).
  if (!httpOnly) {
    await http.start();
    for (let round = 0; round < rounds; round++) await http.round(round);
  }
  const value = median(http.rates);
  row('creates/s over HTTPS, 16 clients (lodestone serve), fresh container', rate(value), {
    baseline: `${rate(smallest)} (store, container of 100)`,
    ratio: percent(value / smallest),
    target: target('≥ 50% of the store', value >= 0.5 * smallest),
  });
  const [serverCpu, ownCpu] = [median(http.cpu), median(storeCpu)];
  row('  CPU per create (user + system, every thread): lodestone serve (HTTP) against the store', ms(serverCpu / 1000), { baseline: ms(ownCpu / 1000), ratio: `${num(serverCpu / ownCpu, 2)}×` });
  return rows;
}

export const scaleSection: Section = { name: 'scale', run };
