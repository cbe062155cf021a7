/**
 * Write throughput: single-document commits of ~100 triples with 1 and 16 concurrent writers, at
 * two repository sizes (plus one flat 20k-entry container), for Lodestone and for the two
 * baselines on copies of the same repository, with the same updates in the same order. Runs are
 * interleaved in rounds, so drift in this shared machine's disk spreads over all of them.
 */
import { makeUpdates, type DocumentFile, type Layout } from './documents.js';
import type { GitCliProcess } from './git-cli-process.js';
import { commitCount, copyRepo, settleDisk } from './repos.js';
import { count, num, percent, rate, ratio, target, type Row } from './table.js';
import { IsoGitWriter, LodestoneWriter, runWrites } from './writers.js';

export interface WriteRepo {
  /** A repository built by buildRepo, used (and changed) by this benchmark only. */
  dir: string;
  documents: number;
  layout: Layout;
}

export interface WriteRun {
  repo: WriteRepo;
  writers: number;
  writes: number;
}

interface Tally {
  writes: number;
  seconds: number;
  /** The rate of each round: figures are their median, so one disturbed round does not skew them. */
  rates: number[];
}

export interface WriteResult {
  run: WriteRun;
  lodestone: Tally;
  isoGit: Tally;
  gitCli: Tally;
  /** Commits the Lodestone writes added (git rev-list --count), and writes that made none. */
  commits: { added: number; writes: number; noops: number };
  /** fdatasync and fsync calls the Lodestone writes made. */
  fsyncs: { datasync: number; sync: number };
}

export interface WriteOptions {
  rounds: number;
  /** Share of each round's writes the (slow) git CLI baseline makes: the first ones. */
  cliShare: number;
}

const WARMUP = 8;

const perSecond = (t: Tally) => {
  const sorted = [...t.rates].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export async function measureWrites(runs: WriteRun[], options: WriteOptions, cli: GitCliProcess, log: (line: string) => void): Promise<WriteResult[]> {
  const systems = new Map<WriteRepo, { lodestone: LodestoneWriter; iso: IsoGitWriter; cliDir: string }>();
  for (const repo of new Set(runs.map((r) => r.repo))) {
    log(`writes: preparing ${count(repo.documents)} docs (${repo.layout}) and its copies`);
    const warmup = await makeUpdates(WARMUP, repo.documents, repo.layout, 1);
    await copyRepo(repo.dir, `${repo.dir}-isogit`);
    await copyRepo(repo.dir, `${repo.dir}-gitcli`);
    const lodestone = await LodestoneWriter.open(repo.dir);
    await runWrites(lodestone, warmup, 1);
    const iso = await IsoGitWriter.open(`${repo.dir}-isogit`);
    await runWrites(iso, warmup, 1);
    await cli.open(`${repo.dir}-gitcli`, warmup);
    systems.set(repo, { lodestone, iso, cliDir: `${repo.dir}-gitcli` });
  }
  const updates = new Map<WriteRun, DocumentFile[]>();
  const results = new Map<WriteRun, WriteResult>();
  for (const [i, run] of runs.entries()) {
    updates.set(run, await makeUpdates(run.writes, run.repo.documents, run.repo.layout, 1000 + i));
    const zero = (): Tally => ({ writes: 0, seconds: 0, rates: [] });
    results.set(run, { run, lodestone: zero(), isoGit: zero(), gitCli: zero(), commits: { added: 0, writes: 0, noops: 0 }, fsyncs: { datasync: 0, sync: 0 } });
  }
  for (let round = 0; round < options.rounds; round++) {
    // every other round goes backwards, so no run always follows the same one
    for (const run of round % 2 ? [...runs].reverse() : runs) {
      log(`writes: round ${round + 1}/${options.rounds}, ${run.writers} writer(s), ${count(run.repo.documents)} docs (${run.repo.layout})`);
      const { lodestone, iso, cliDir } = systems.get(run.repo)!;
      const result = results.get(run)!;
      const size = Math.ceil(run.writes / options.rounds);
      const chunk = updates.get(run)!.slice(round * size, (round + 1) * size);
      const add = (tally: Tally, writes: number, seconds: number) => {
        tally.writes += writes;
        tally.seconds += seconds;
        tally.rates.push(writes / seconds);
      };
      await settleDisk();
      const before = await commitCount(run.repo.dir);
      const noops = lodestone.noops;
      const synced = await lodestone.store.disk.syncCalls();
      const seconds = await runWrites(lodestone, chunk, run.writers);
      add(result.lodestone, chunk.length, seconds);
      log(`  Lodestone: ${rate(chunk.length / seconds)}`);
      const syncedAfter = await lodestone.store.disk.syncCalls();
      result.fsyncs.datasync += syncedAfter.fdatasync - synced.fdatasync;
      result.fsyncs.sync += syncedAfter.fsync - synced.fsync;
      result.commits.added += (await commitCount(run.repo.dir)) - before;
      result.commits.writes += chunk.length;
      result.commits.noops += lodestone.noops - noops;
      await settleDisk();
      add(result.isoGit, chunk.length, await runWrites(iso, chunk, run.writers));
      await settleDisk();
      const cliChunk = chunk.slice(0, Math.max(1, Math.round(chunk.length * options.cliShare)));
      add(result.gitCli, cliChunk.length, await cli.writes(cliDir, cliChunk, run.writers));
    }
  }
  return runs.map((run) => results.get(run)!);
}

const ISO = 'isomorphic-git low-level, no fsync';
const CLI = 'git CLI plumbing';

function writersLabel(n: number): string {
  return `${n} writer${n > 1 ? 's' : ''}`;
}

function repoLabel(repo: WriteRepo): string {
  return repo.layout === 'flat' ? `${count(repo.documents)} docs in ONE flat container` : `${count(repo.documents)} docs`;
}

/** Rows for each run, then the targets comparing runs on the `small` and `large` repositories. */
export function writeRows(results: WriteResult[], small: WriteRepo, large: WriteRepo): Row[] {
  const rows: Row[] = [];
  const section = 'storage/write';
  const find = (repo: WriteRepo, writers: number) => results.find((r) => r.run.repo === repo && r.run.writers === writers);
  for (const r of results) {
    const { writers, repo } = r.run;
    const value = perSecond(r.lodestone);
    const mutex = writers > 1 ? ' (mutex)' : '';
    const goal = repo === large && writers === 1 ? target('≥ 50/s', value >= 50) : undefined;
    rows.push({
      section,
      measure: `${writersLabel(writers)} @ ${repoLabel(repo)}: fsynced commits/s (${r.lodestone.writes} writes)`,
      value: rate(value),
      baseline: `${ISO}${mutex}: ${rate(perSecond(r.isoGit))}`,
      ratio: ratio(value / perSecond(r.isoGit)),
      target: goal,
    });
    const perCommit = (n: number) => num(n / Math.max(1, r.commits.added), 1);
    rows.push({
      section,
      measure: '  ↳ fsync calls per commit: fdatasync (objects, ref) + fsync (directories)',
      value: `${perCommit(r.fsyncs.datasync)} + ${perCommit(r.fsyncs.sync)}`,
    });
    rows.push({
      section,
      measure: `  ↳ same writes (git CLI: the first ${r.gitCli.writes})`,
      value: rate(value),
      baseline: `${CLI}${mutex}: ${rate(perSecond(r.gitCli))}`,
      ratio: ratio(value / perSecond(r.gitCli)),
    });
  }
  for (const writers of [1, 16]) {
    const [a, b] = [find(small, writers), find(large, writers)];
    if (!a || !b) continue;
    const share = perSecond(b.lodestone) / perSecond(a.lodestone);
    const of = (pick: (r: WriteResult) => Tally) => percent(perSecond(pick(b)) / perSecond(pick(a)));
    rows.push({
      section,
      measure: `${writersLabel(writers)}: throughput @ ${count(large.documents)} / @ ${count(small.documents)} docs`,
      value: percent(share),
      baseline: `iso-git ${of((r) => r.isoGit)}, git CLI ${of((r) => r.gitCli)}`,
      target: target('≥ 90%', share >= 0.9),
    });
  }
  for (const repo of [small, large]) {
    const [one, many] = [find(repo, 1), find(repo, 16)];
    if (!one || !many) continue;
    const gain = perSecond(many.lodestone) / perSecond(one.lodestone);
    const of = (pick: (r: WriteResult) => Tally) => ratio(perSecond(pick(many)) / perSecond(pick(one)));
    rows.push({
      section,
      measure: `16 writers / 1 writer @ ${count(repo.documents)} docs`,
      value: ratio(gain),
      baseline: `iso-git ${of((r) => r.isoGit)}, git CLI ${of((r) => r.gitCli)}`,
      target: target('≥ 3×', gain >= 3),
    });
  }
  for (const r of results) {
    const c = r.commits;
    const exact = c.added === c.writes && c.noops === 0;
    if (r.run.writers === 1 && exact) continue;
    rows.push({
      section,
      measure: `${writersLabel(r.run.writers)} @ ${repoLabel(r.run.repo)}: commits added (rev-list --count)`,
      value: `${c.added} commits / ${c.writes} writes${c.noops ? `, ${c.noops} no-op` : ''}`,
      target: target('one commit per write', exact),
    });
  }
  return rows;
}
