/**
 * Shared test helpers: temporary repositories, the git CLI, and the ground truth of a repository
 * read through git itself (every `.nt` file at HEAD, parsed), to compare the index and the store
 * against.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Quad } from '@rdfjs/types';
import { DataFactory } from 'n3';
import oxigraph from 'oxigraph';
import { canonicalNTriples } from '../src/rdf/canonical.js';
import { parseRdf } from '../src/rdf/ntriples.js';
import { fileDocument } from '../src/document-paths.js';

const made: string[] = [];

export function tempDir(label = 'lodestone'): string {
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Someone Else',
  GIT_AUTHOR_EMAIL: 'someone@example.org',
  GIT_COMMITTER_NAME: 'Someone Else',
  GIT_COMMITTER_EMAIL: 'someone@example.org',
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: tmpdir(),
};

/** Runs the git CLI in `dir` and returns its standard output. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, env: gitEnv, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

export function commitCount(dir: string): number {
  try {
    return Number(git(dir, 'rev-list', '--count', 'HEAD').trim());
  } catch {
    return 0;
  }
}

/** The commit id HEAD of the repository at `dir` points to. */
export function headOf(dir: string): string {
  return git(dir, 'rev-parse', 'HEAD').trim();
}

/** The stored file of document `documentPath` (`a/b/` → `graphs/a/b.nt`) at HEAD in `dir`, or undefined. */
export function fileAtHead(dir: string, documentPath: string): string | undefined {
  try {
    return git(dir, 'show', `HEAD:graphs/${documentPath.slice(0, -1)}.nt`);
  } catch {
    return undefined;
  }
}

export function nt(text: string): Quad[] {
  return parseRdf(text);
}

/** Groups quads by graph and gives each graph's triples in canonical form. */
export async function canonicalGraphs(quads: Quad[]): Promise<Map<string, string>> {
  const byGraph = new Map<string, Quad[]>();
  for (const q of quads) byGraph.set(q.graph.value, [...(byGraph.get(q.graph.value) ?? []), DataFactory.quad(q.subject, q.predicate, q.object)]);
  const out = new Map<string, string>();
  for (const [graph, triples] of byGraph) out.set(graph, await canonicalNTriples(triples));
  return out;
}

/**
 * The truth according to git: every document file at HEAD (read with the git CLI), parsed,
 * in canonical form, keyed by graph name. Files that do not parse are left out, as the index does.
 */
export async function graphsAtHead(dir: string, base: string, prefix = 'graphs'): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (commitCount(dir) === 0) return out;
  const listing = git(dir, 'ls-tree', '-r', '-z', 'HEAD', '--', prefix).split('\0').filter(Boolean);
  for (const line of listing) {
    const [meta, path] = line.split('\t') as [string, string];
    const relative = fileDocument(path, prefix);
    if (relative === undefined) continue;
    const blob = meta.split(' ')[2]!;
    const text = git(dir, 'cat-file', 'blob', blob);
    let quads: Quad[];
    try {
      quads = parseRdf(text);
    } catch {
      continue;
    }
    if (quads.length === 0) continue;
    out.set(base + relative, await canonicalNTriples(quads));
  }
  return out;
}

/** The index's content in the same form as graphsAtHead. */
export async function graphsInIndex(dump: string): Promise<Map<string, string>> {
  return canonicalGraphs(parseRdf(dump, { format: 'application/n-quads' }));
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5_000, stepMs = 20): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** The first-parent commit SHAs of `ref` in `repo`, newest first (git CLI). */
export function firstParentShas(repo: string, ref = 'main'): string[] {
  return git(repo, 'log', '--first-parent', '--format=%H', ref).trim().split('\n');
}

/** Graphs as an Oxigraph store holds them (typed literals by value: `".720Z"` comes back `".72Z"`), to compare with the index. */
export async function inStoreForm(graphs: Map<string, string>): Promise<Map<string, string>> {
  const store = new oxigraph.Store();
  for (const [graph, text] of graphs) store.load(text, { format: 'application/n-triples', to_graph_name: oxigraph.namedNode(graph) });
  return graphsInIndex(store.dump({ format: 'application/n-quads' }));
}

/** Runs `attempt` and checks that the repository at `dir` did not move: the same HEAD, the same commit count. */
export async function unchangedRepository<T>(dir: string, attempt: () => Promise<T>): Promise<T> {
  const head = git(dir, 'rev-parse', 'HEAD').trim();
  const count = commitCount(dir);
  const result = await attempt();
  assert.equal(git(dir, 'rev-parse', 'HEAD').trim(), head, 'HEAD did not move');
  assert.equal(commitCount(dir), count);
  return result;
}
