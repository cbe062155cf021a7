/**
 * Repositories for the benchmarks: built with Lodestone's GitStore in one commit (one write with
 * every document as a change), copied with `cp -a` for the baselines, extended with history, and
 * inspected with the git CLI (spawned through node:child_process).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { GitStore, type Identity } from '../src/store/git-store.js';
import type { DocumentFile } from './documents.js';

export const BENCH_AUTHOR: Identity = { name: 'Bench', email: 'bench@lodestone.invalid' };

const GIT_ENV = {
  GIT_AUTHOR_NAME: BENCH_AUTHOR.name,
  GIT_AUTHOR_EMAIL: BENCH_AUTHOR.email,
  GIT_COMMITTER_NAME: BENCH_AUTHOR.name,
  GIT_COMMITTER_EMAIL: BENCH_AUTHOR.email,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** Runs `git <args>` in `cwd`, feeding `input` on stdin; resolves to trimmed stdout. */
export function git(cwd: string, args: string[], input?: Buffer | string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8').trim());
      else reject(new Error(`git ${args.join(' ')} exited ${code}: ${Buffer.concat(err).toString('utf8').trim()}`));
    });
    child.stdin.end(input);
  });
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}`))));
  });
}

/** Flushes dirty pages left by earlier steps (`sync`), so their writeback does not skew a measurement. */
export function settleDisk(): Promise<void> {
  return run('sync', []);
}

export async function commitCount(dir: string): Promise<number> {
  return Number(await git(dir, ['rev-list', '--count', 'HEAD']));
}


/**
 * A new repository at `dir` whose one commit holds `documents`: a single `store.write()` with every
 * document as a change (one pack). Returns the commit and the time the single write took.
 */
export async function buildRepo(dir: string, documents: readonly DocumentFile[]): Promise<{ head: string; writeMs: number }> {
  const store = await GitStore.open({ dir });
  const start = performance.now();
  const head = await store.write({
    changes: documents.map((d) => ({ path: d.path, bytes: d.bytes })),
    author: BENCH_AUTHOR,
    message: `Import ${documents.length} documents`,
  });
  const writeMs = performance.now() - start;
  if (!head) throw new Error('the initial import made no commit');
  await store.close(); // background pack merging done before the repository is copied
  return { head, writeMs };
}

/** A copy of a whole repository (working tree and .git). */
export async function copyRepo(from: string, to: string): Promise<void> {
  await run('cp', ['-a', from, to]);
}

/**
 * Adds `updates.length` commits to the repository at `dir`, one per write, issued `concurrency`
 * at a time (so they group-commit and the history grows quickly).
 */
export async function extendHistory(dir: string, updates: readonly DocumentFile[], concurrency = 64): Promise<void> {
  const store = await GitStore.open({ dir });
  for (let i = 0; i < updates.length; i += concurrency) {
    const wave = updates.slice(i, i + concurrency);
    const commits = await Promise.all(
      wave.map((u) => store.write({ changes: [{ path: u.path, bytes: u.bytes }], author: BENCH_AUTHOR, message: `PUT ${u.document}` })),
    );
    if (commits.some((c) => c === undefined)) throw new Error('a history write made no commit');
  }
  await store.close();
}

export function gitdirOf(dir: string): string {
  return join(dir, '.git');
}
