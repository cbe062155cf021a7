/**
 * Figures of the Fuseki engine (src/index/engines/fuseki.ts) against a Fuseki started here:
 * replace of 100 graphs × 100 triples, bulkLoad of 100,000 triples against Jena's own bulk loader
 * (tdb2.tdbloader) on the same N-Quads, a selective query and a COUNT at 100,000 triples, and a
 * query over a listed dataset of 10,000 graphs. `node --import tsx bench/fuseki-engine.ts`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineDataset, EngineSpace, GraphReplacement } from '../src/index/engine.js';
import { FusekiEngine } from '../src/index/engines/fuseki.js';
import { FusekiProcess, fusekiJar } from '../test/engines/fuseki-engine.js';

const union: EngineDataset = { union: true, graphs: () => [] };

function graph(space: EngineSpace, i: number, triples: number, tag: string): GraphReplacement {
  const s = `<${space.base}d${i}#this>`;
  let ntriples = '';
  for (let t = 0; t < triples; t++) ntriples += `${s} <http://ex/p${t % 10}> "${tag} ${i} ${t}" .\n`;
  return { graph: `${space.base}d${i}`, ntriples };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

const fuseki = await FusekiProcess.start();
const engine = new FusekiEngine(fuseki.url, { queryTimeoutMs: 60_000 });
const commit = (n: number): string => n.toString(16).padStart(40, '0');
try {
  const small: EngineSpace = { id: 'replace', base: 'https://replace.test/' };
  await engine.open(small);
  const replaceMs: number[] = [];
  for (let run = 0; run < 7; run++) {
    const batch = Array.from({ length: 100 }, (_, i) => graph(small, i, 100, `run${run}`));
    replaceMs.push(await timed(() => engine.replace(small, batch, commit(run + 1))));
  }
  console.log(`replace 100 graphs x 100 triples: median ${median(replaceMs.slice(2)).toFixed(0)} ms (runs: ${replaceMs.map((v) => v.toFixed(0)).join(', ')})`);

  const big: EngineSpace = { id: 'bulk', base: 'https://bulk.test/' };
  await engine.open(big);
  const docs = Array.from({ length: 1000 }, (_, i) => graph(big, i, 100, 'bulk'));
  async function* all(): AsyncGenerator<GraphReplacement> {
    yield* docs;
  }
  const bulkMs = await timed(() => engine.bulkLoad(big, all(), commit(1)));
  console.log(`bulkLoad 100,000 triples: ${bulkMs.toFixed(0)} ms, ${Math.round(100_000 / (bulkMs / 1000))} triples/s`);

  const dir = mkdtempSync(join(tmpdir(), 'lodestone-tdbloader-'));
  try {
    const file = join(dir, 'data.nq');
    writeFileSync(file, docs.map((d) => d.ntriples!.replace(/ \.\n/g, ` <${d.graph}> .\n`)).join(''));
    const loaderMs = await timed(async () => execFileSync('java', ['-Xmx512m', '-cp', fusekiJar(), 'tdb2.tdbloader', '--loc', join(dir, 'db'), file], { stdio: 'ignore' }));
    console.log(`tdb2.tdbloader, same 100,000 quads (JVM start included): ${loaderMs.toFixed(0)} ms, ${Math.round(100_000 / (loaderMs / 1000))} triples/s`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const signal = new AbortController().signal;
  const selective: number[] = [];
  for (let i = 0; i < 25; i++) selective.push(await timed(() => engine.query(big, `SELECT ?o { <https://bulk.test/d${(i * 37) % 1000}#this> <http://ex/p3> ?o }`, union, false, signal)));
  console.log(`selective query at 100,000 triples: median ${median(selective.slice(5)).toFixed(1)} ms`);
  const counting: number[] = [];
  for (let i = 0; i < 5; i++) counting.push(await timed(() => engine.query(big, 'SELECT (COUNT(*) AS ?n) { ?s ?p ?o }', union, false, signal)));
  console.log(`COUNT(*) at 100,000 triples: median ${median(counting).toFixed(0)} ms`);
  const grouped: number[] = [];
  for (let i = 0; i < 5; i++) grouped.push(await timed(() => engine.query(big, 'SELECT ?p (COUNT(*) AS ?n) { ?s ?p ?o } GROUP BY ?p', union, false, signal)));
  console.log(`GROUP BY ?p COUNT at 100,000 triples: median ${median(grouped).toFixed(0)} ms`);

  const listed = Array.from({ length: 10_000 }, (_, i) => `https://bulk.test/d${i}`);
  const listedMs: number[] = [];
  for (let i = 0; i < 5; i++) listedMs.push(await timed(() => engine.query(big, 'SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } }', { union: false, defaultGraphs: listed, namedGraphs: listed }, false, signal)));
  console.log(`COUNT over a listed dataset of 10,000 graph names (1,000 present): median ${median(listedMs).toFixed(0)} ms`);
} finally {
  await engine.close();
  await fuseki.stop();
}
