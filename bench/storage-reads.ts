/**
 * Latency of reading a document's current bytes with `store.read(path)`: the first (cold) read of
 * each document from a freshly opened store, then warm (cached) reads, against fs.readFile of the
 * same bytes in the working tree and one `git cat-file` spawn per read (from a small child process).
 */
import { promises as fsp } from 'node:fs';
import { dirname, join } from 'node:path';
import { DiskClient } from '../src/store/disk.js';
import { GitStore } from '../src/store/git-store.js';
import { random } from './documents.js';
import type { GitCliProcess } from './git-cli-process.js';
import { settleDisk } from './repos.js';
import { count, ms, p50p99, quantile, ratio, target, us, type Row } from './table.js';

export interface ReadResult {
  label: string;
  documents: number;
  /** GitStore.open times, one per round. */
  open: number[];
  cold: number[];
  warm: number[];
  readFile: number[];
  catFile: number[];
}

export interface ReadTarget {
  label: string;
  dir: string;
  documents: number;
  /** How many documents to read (a random sample when fewer than all). */
  sample: number;
}

export interface ReadOptions {
  /** Rounds; each opens a fresh store per repository, so every round has its cold reads. */
  rounds: number;
  /** Warm reads of the sample per round. */
  warmRounds: number;
  catFiles: number;
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const next = random(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

async function timed(samples: number[], action: () => Promise<unknown>): Promise<void> {
  const start = performance.now();
  await action();
  samples.push((performance.now() - start) * 1000);
}

/**
 * Reads from every target in turn, document by document (the i-th read of each target follows the
 * i-th of the others, in rotating order), so drift in this shared machine's load falls on all of
 * them alike. Each round opens fresh stores, so every round has its cold reads. The working tree is
 * not written on the write path (WorkingTree does it later), so the sampled files are put there
 * first, as it would, for the fs.readFile baseline.
 */
export async function measureReads(targets: readonly ReadTarget[], options: ReadOptions, cli: GitCliProcess): Promise<ReadResult[]> {
  const samples: string[][] = [];
  const disk = new DiskClient(); // shared, as in a server: a store's open does not start a worker
  for (const [t, target] of targets.entries()) {
    const store = await GitStore.open({ dir: target.dir, disk });
    const paths = shuffled([...store.listFiles().keys()], t + 1).slice(0, target.sample);
    for (const path of paths) {
      await fsp.mkdir(dirname(join(target.dir, path)), { recursive: true });
      await fsp.writeFile(join(target.dir, path), (await store.read(path))!.bytes);
    }
    samples.push(paths);
  }
  await settleDisk();
  const empty = (t?: ReadTarget): ReadResult => ({ label: t?.label ?? '', documents: t?.documents ?? 0, open: [], cold: [], warm: [], readFile: [], catFile: [] });
  const results = targets.map(empty);
  const longest = Math.max(...samples.map((s) => s.length));
  // round -1 warms up the code paths (JIT) and is not recorded
  for (let round = -1; round < options.rounds; round++) {
    const into = round < 0 ? targets.map(() => empty()) : results;
    const paths = samples.map((s) => shuffled(s, 100 + round));
    const stores: GitStore[] = [];
    for (const [t, target] of targets.entries()) {
      await timed(into[t]!.open, async () => stores.push(await GitStore.open({ dir: target.dir, disk })));
    }
    const interleaved = async (read: (t: number, path: string) => Promise<unknown>, pick: (r: ReadResult) => number[]) => {
      for (let i = 0; i < longest; i++) {
        for (let k = 0; k < targets.length; k++) {
          const t = (i + k) % targets.length;
          const path = paths[t]![i];
          if (path !== undefined) await timed(pick(into[t]!), () => read(t, path));
        }
      }
    };
    await interleaved((t, path) => stores[t]!.read(path), (r) => r.cold);
    for (let warm = 0; warm < options.warmRounds; warm++) await interleaved((t, path) => stores[t]!.read(path), (r) => r.warm);
    await interleaved((t, path) => fsp.readFile(join(targets[t]!.dir, path)), (r) => r.readFile);
  }
  await disk.close();
  for (const [t, target] of targets.entries()) {
    results[t]!.catFile = await cli.catFile(target.dir, samples[t]!.slice(0, options.catFiles));
  }
  return results;
}

function p50(samples: readonly number[]): number {
  return quantile(samples, 0.5);
}

/** Rows per repository, then the history-independence ratios of `long` against `short`. */
export function readRows(results: ReadResult[], short: ReadResult, long: ReadResult): Row[] {
  const section = 'storage/read';
  const rows: Row[] = [];
  for (const r of results) {
    const file = p50(r.readFile);
    rows.push({
      section,
      measure: `${r.label}: store.read cold (first read), p50 / p99`,
      value: p50p99(r.cold),
      baseline: `fs.readFile (working tree): ${p50p99(r.readFile)}`,
      ratio: ratio(p50(r.cold) / file),
    });
    rows.push({
      section,
      measure: `${r.label}: store.read warm (cached), p50 / p99`,
      value: p50p99(r.warm),
      baseline: `fs.readFile (working tree): ${p50p99(r.readFile)}`,
      ratio: ratio(p50(r.warm) / file),
    });
    rows.push({
      section,
      measure: '  ↳ same cold reads, p50',
      value: us(p50(r.cold)),
      baseline: `git cat-file -p HEAD:<path>, 1 spawn: ${us(p50(r.catFile))}`,
      ratio: ratio(p50(r.cold) / p50(r.catFile)),
    });
    rows.push({ section, measure: `${r.label}: GitStore.open (HEAD's file list), median`, value: ms(quantile(r.open, 0.5) / 1000) });
  }
  for (const [kind, pick] of [
    ['cold', (r: ReadResult) => r.cold],
    ['warm', (r: ReadResult) => r.warm],
  ] as const) {
    const value = p50(pick(long)) / p50(pick(short));
    rows.push({
      section,
      measure: `${kind} read p50: ${long.label} / ${short.label}`,
      value: ratio(value),
      baseline: `${us(p50(pick(long)))} vs ${us(p50(pick(short)))}`,
      target: target('≈ 1 (≤ 1.2×)', value <= 1.2),
    });
  }
  return rows;
}

export function readLabel(documents: number, extraCommits = 0): string {
  return extraCommits ? `${count(documents)} docs + ${count(extraCommits)} commits` : `${count(documents)} docs`;
}
