/**
 * The storage section: single-document write throughput, current-document reads and the startup
 * index build, on repositories built for the purpose (documents in containers of 200, plus one
 * flat container), each measured against baselines in the same run. BENCH_QUICK shrinks sizes ~10×.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDocuments, makeUpdates, type DocumentFile } from './documents.js';
import { durableWriteLatency } from './fsync-probe.js';
import { GitCliProcess } from './git-cli-process.js';
import { buildRepo, commitCount, copyRepo, extendHistory, gitdirOf } from './repos.js';
import { measureIndexChurn } from './index-churn.js';
import { indexRows, measureIndex } from './storage-index.js';
import { measureReads, readLabel, readRows } from './storage-reads.js';
import { measureWrites, writeRows, type WriteRepo } from './storage-writes.js';
import { count, ms, num, p50p99, type BenchContext, type Row, type Section } from './table.js';

interface Sizes {
  small: number;
  large: number;
  indexed: number;
  extraCommits: number;
  /** Writes per run (1 or 16 writers on one repository), and on the flat repository. */
  writes: number;
  flatWrites: number;
  writeRounds: number;
  readSample: number;
  readRounds: number;
  warmRounds: number;
  catFiles: number;
  diskSamples: number;
}

const FULL: Sizes = {
  small: 1000, large: 20_000, indexed: 10_000, extraCommits: 2000,
  writes: 640, flatWrites: 80, writeRounds: 10,
  readSample: 1000, readRounds: 3, warmRounds: 3, catFiles: 30, diskSamples: 100,
};
const QUICK: Sizes = {
  small: 100, large: 2000, indexed: 1000, extraCommits: 200,
  writes: 64, flatWrites: 16, writeRounds: 2,
  readSample: 100, readRounds: 3, warmRounds: 3, catFiles: 10, diskSamples: 20,
};

/** The git CLI baseline makes this share of each round's writes (it is 10–50× slower). */
const CLI_SHARE = 0.25;

interface Part {
  context: BenchContext;
  sizes: Sizes;
  containers: readonly DocumentFile[];
  cli: GitCliProcess;
  setup: Row[];
}

async function timedStep<T>(context: BenchContext, what: string, step: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const value = await step();
  context.log(`${what}: ${ms(performance.now() - start)}`);
  return value;
}

async function build(part: Part, name: string, documents: readonly DocumentFile[]): Promise<{ dir: string; head: string }> {
  const dir = join(part.context.tmp, name);
  const { head, writeMs } = await timedStep(part.context, `build ${name} (${documents.length} documents)`, () => buildRepo(dir, documents));
  part.setup.push({ section: 'storage/setup', measure: `initial import: one store.write of ${count(documents.length)} docs (${name})`, value: ms(writeMs) });
  return { dir, head };
}

async function writePart(part: Part): Promise<Row[]> {
  const { sizes } = part;
  const small: WriteRepo = { dir: (await build(part, 'write-small', part.containers.slice(0, sizes.small))).dir, documents: sizes.small, layout: 'containers' };
  const large: WriteRepo = { dir: (await build(part, 'write-large', part.containers.slice(0, sizes.large))).dir, documents: sizes.large, layout: 'containers' };
  const flatDocs = await timedStep(part.context, `generate ${sizes.large} flat documents`, () => makeDocuments(sizes.large, 'flat'));
  const flat: WriteRepo = { dir: (await build(part, 'write-flat', flatDocs)).dir, documents: sizes.large, layout: 'flat' };
  const runs = [
    { repo: small, writers: 1, writes: sizes.writes },
    { repo: small, writers: 16, writes: sizes.writes },
    { repo: large, writers: 1, writes: sizes.writes },
    { repo: large, writers: 16, writes: sizes.writes },
    { repo: flat, writers: 1, writes: sizes.flatWrites },
  ];
  const results = await measureWrites(runs, { rounds: sizes.writeRounds, cliShare: CLI_SHARE }, part.cli, part.context.log);
  for (const repo of [small, large, flat]) {
    for (const suffix of ['', '-isogit', '-gitcli']) await rm(repo.dir + suffix, { recursive: true, force: true });
  }
  return writeRows(results, small, large);
}

async function readPart(part: Part): Promise<Row[]> {
  const { sizes, context } = part;
  const small = await build(part, 'read-small', part.containers.slice(0, sizes.small));
  const large = await build(part, 'read-large', part.containers.slice(0, sizes.large));
  const longDir = join(context.tmp, 'read-long-history');
  await copyRepo(small.dir, longDir);
  const updates = await makeUpdates(sizes.extraCommits, sizes.small, 'containers', 99);
  await timedStep(context, `history: ${sizes.extraCommits} more commits`, () => extendHistory(longDir, updates));
  const commits = await commitCount(longDir);
  part.setup.push({ section: 'storage/setup', measure: 'long-history repository: git rev-list --count HEAD', value: `${num(commits)} commits` });
  context.log('reads');
  const [short, big, long] = await measureReads(
    [
      { label: readLabel(sizes.small), dir: small.dir, documents: sizes.small, sample: sizes.readSample },
      { label: readLabel(sizes.large), dir: large.dir, documents: sizes.large, sample: sizes.readSample },
      { label: readLabel(sizes.small, commits - 1), dir: longDir, documents: sizes.small, sample: sizes.readSample },
    ],
    { rounds: sizes.readRounds, warmRounds: sizes.warmRounds, catFiles: sizes.catFiles },
    part.cli,
  );
  for (const dir of [small.dir, large.dir, longDir]) await rm(dir, { recursive: true, force: true });
  return readRows([short!, big!, long!], short!, long!);
}

async function indexPart(part: Part): Promise<Row[]> {
  const documents = part.containers.slice(0, part.sizes.indexed);
  const repo = await build(part, 'index', documents);
  const result = await measureIndex(gitdirOf(repo.dir), repo.head, documents, part.context.log);
  await rm(repo.dir, { recursive: true, force: true });
  const churn = part.context.quick ? await measureIndexChurn(50, 800, part.context.log) : await measureIndexChurn(500, 4000, part.context.log);
  return [...indexRows(result), ...churn];
}

/** What a durable write costs on this disk: the floor under every fsynced commit. */
async function diskPart(part: Part): Promise<Row[]> {
  const { file, dir } = await durableWriteLatency(join(part.context.tmp, 'disk-probe'), part.sizes.diskSamples);
  return [
    { section: 'storage/disk', measure: 'new 10 KB file: open, write, fdatasync, close, rename; p50 / p99', value: p50p99(file) },
    { section: 'storage/disk', measure: 'fsync of its directory; p50 / p99', value: p50p99(dir) },
  ];
}

export const storageSection: Section = {
  name: 'storage',
  async run(context: BenchContext): Promise<Row[]> {
    const sizes = context.quick ? QUICK : FULL;
    const containers = await timedStep(context, `generate ${sizes.large} documents`, () => makeDocuments(sizes.large, 'containers'));
    const cli = new GitCliProcess();
    const part: Part = { context, sizes, containers, cli, setup: [] };
    try {
      const disk = await diskPart(part);
      const reads = await readPart(part);
      const writes = await writePart(part);
      const index = await indexPart(part);
      // set-up figures (how long the fixtures took) are informative only: they come last
      return [...disk, ...writes, ...reads, ...index, ...part.setup];
    } finally {
      cli.close();
    }
  },
};
