/**
 * What a query lane costs in memory (src/index/index.ts): the RSS of a fresh process holding an
 * Index with 1, 2 and 3 lanes, every lane loaded and having answered a query, over an empty
 * repository and over one of DOCUMENTS documents of ~100 triples. Each figure is measured in its
 * own child process. Run: `node --import tsx bench/lane-memory.ts [documents]` (default 1,000).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Index } from '../src/index/index.js';
import { GitStore } from '../src/store/git-store.js';
import { BASE, makeDocuments } from './documents.js';
import { buildRepo } from './repos.js';

const MB = 1024 * 1024;
const LANES = [1, 2, 3];

async function child(gitdir: string, head: string, lanes: number): Promise<void> {
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      (globalThis as { gc?: () => void }).gc?.();
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    return process.memoryUsage().rss;
  };
  const before = await settle();
  const index = new Index({ gitdir, prefix: 'graphs', base: BASE, lanes });
  await index.syncTo(head || undefined);
  while (index.status.loaded < lanes) await new Promise((resolve) => setTimeout(resolve, 50));
  // one query per lane at once (one holder each, so no lane waits for another)
  const query = { query: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', format: 'text/csv', unionDefaultGraph: true };
  const counts = await Promise.all(Array.from({ length: lanes }, (_, n) => index.query(query, 60_000, `holder-${n}`)));
  const after = await settle();
  const quads = await index.size();
  await index.close();
  process.stdout.write(JSON.stringify({ lanes, before, after, quads, counts: counts.map((c) => String(c).split('\r\n')[1]) }) + '\n');
}

interface Figure {
  lanes: number;
  before: number;
  after: number;
  quads: number;
}

function measure(gitdir: string, head: string, lanes: number): Figure {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', new URL(import.meta.url).pathname, 'child', gitdir, head, String(lanes)], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as Figure;
}

async function main(): Promise<void> {
  const documents = Number(process.argv[2] ?? 1000);
  const tmp = await mkdtemp(join(tmpdir(), 'lodestone-lanes-'));
  try {
    const empty = join(tmp, 'empty');
    await (await GitStore.open({ dir: empty })).close();
    const full = join(tmp, 'full');
    const { head } = await buildRepo(full, await makeDocuments(documents, 'containers'));
    for (const [what, dir, commit] of [['empty repository', empty, ''], [`${documents} documents`, full, head]] as const) {
      const figures = LANES.map((lanes) => measure(join(dir, '.git'), commit, lanes));
      for (const f of figures) {
        const extra = f.lanes > 1 ? `, +${((f.after - figures[0]!.after) / (f.lanes - 1) / MB).toFixed(0)} MB a lane beyond the first` : '';
        console.log(`${what}, ${f.lanes} lane(s), ${f.quads} quads: RSS ${(f.before / MB).toFixed(0)} MB before the index, ${(f.after / MB).toFixed(0)} MB after (+${((f.after - f.before) / MB).toFixed(0)} MB)${extra}`);
      }
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'child') await child(process.argv[3]!, process.argv[4]!, Number(process.argv[5]));
else await main();
