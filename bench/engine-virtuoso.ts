/**
 * The virtuoso engine on a Virtuoso started here (test/engines/virtuoso-engine.ts): a replace of 100
 * graphs × 100 triples (new graphs, then the same graphs again), bulkLoad of 100,000 triples against
 * Virtuoso's own bulk loader (ld_dir + rdf_loader_run) on the same quads, and a selective query and
 * a COUNT over the dataspace at 100,000 triples (as its reader: graph-level security included).
 * A Section for run.ts; `node --import tsx bench/engine-virtuoso.ts` prints its rows alone.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GraphReplacement } from '../src/index/engine.js';
import { VirtuosoEngine } from '../src/index/engines/virtuoso.js';
import { digestFetch } from '../src/index/engines/digest-fetch.js';
import { startVirtuoso } from '../test/engines/virtuoso-engine.js';
import { formatTable, ms, type BenchContext, type Row, type Section } from './table.js';

const never = new AbortController().signal;
const union = { union: true as const, graphs: () => [] };

function graph(base: string, n: number, round: number): GraphReplacement {
  const lines: string[] = [];
  for (let j = 0; j < 100; j++) lines.push(`<${base}d${n}#s${j % 10}> <http://example.org/p${j % 20}> "value ${n} ${j} r${round}" .\n`);
  return { graph: `${base}d${n}`, ntriples: lines.join('') };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

export const virtuosoSection: Section = {
  name: 'virtuoso',
  async run({ quick, log }: BenchContext): Promise<Row[]> {
    const rows: Row[] = [];
    const row = (measure: string, value: string, baseline?: string) => rows.push({ section: 'virtuoso', measure, value, baseline });
    const server = await startVirtuoso();
    try {
      const engine = new VirtuosoEngine({ endpoint: server.endpoint });
      const space = { id: 'bench', base: 'https://bench.example/' };
      await engine.open(space);
      const rounds = quick ? 2 : 5;
      const fresh: number[] = [];
      const again: number[] = [];
      for (let r = 0; r < rounds; r++) {
        const names = Array.from({ length: 100 }, (_, i) => 100_000 + r * 100 + i);
        fresh.push(await timed(() => engine.replace(space, names.map((n) => graph(space.base, n, 0)), `r${r}`)));
        again.push(await timed(() => engine.replace(space, names.map((n) => graph(space.base, n, 1)), `r${r}b`)));
      }
      row('replace 100 graphs × 100 triples, new graphs (median)', ms(median(fresh)));
      row('replace 100 graphs × 100 triples, the same graphs again (median)', ms(median(again)));
      log(`virtuoso: replace ${fresh.map((t) => t.toFixed(0)).join(' ')} / ${again.map((t) => t.toFixed(0)).join(' ')} ms`);

      const documents = quick ? 100 : 1_000;
      const triples = documents * 100;
      const bulk = { id: 'bulk', base: 'https://bulk.example/' };
      await engine.open(bulk);
      async function* all(): AsyncIterable<GraphReplacement> {
        for (let n = 0; n < documents; n++) yield graph(bulk.base, n, 0);
      }
      const bulkMs = await timed(() => engine.bulkLoad(bulk, all(), 'bulk'));
      // Virtuoso's own loader, on the same quads from a file in its directory (DirsAllowed)
      const nquads: string[] = [];
      for (let n = 0; n < documents; n++) {
        const g = graph('https://loader.example/', n, 0);
        nquads.push(g.ntriples!.replace(/ \.\n/g, ` <${g.graph}> .\n`));
      }
      writeFileSync(join(server.dir, 'bench.nq'), nquads.join(''));
      const dba = new URL(server.endpoint);
      const sql = digestFetch({ username: decodeURIComponent(dba.username), password: decodeURIComponent(dba.password) });
      const call = async (expression: string) => {
        const response = await sql(new URL(`http://${dba.host}/sparql-auth`), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ query: `SELECT (${expression} AS ?r) {}` }).toString(),
        });
        const text = await response.text();
        if (!response.ok) throw new Error(text.split('\n')[0]);
      };
      const loaderMs = await timed(async () => {
        await call(`<sql:ld_dir>(${JSON.stringify(server.dir)}, "bench.nq", "urn:x-bench:default")`);
        await call('<sql:rdf_loader_run>()');
        await call('bif:exec("checkpoint")');
      });
      row(`bulkLoad ${triples.toLocaleString('en')} triples (${documents} graphs), then checkpoint and marker`, `${Math.round(triples / (bulkMs / 1000)).toLocaleString('en')} triples/s`,
        `${Math.round(triples / (loaderMs / 1000)).toLocaleString('en')} triples/s (ld_dir + rdf_loader_run + checkpoint)`);
      log(`virtuoso: bulkLoad ${bulkMs.toFixed(0)} ms, loader ${loaderMs.toFixed(0)} ms`);

      const selective: number[] = [];
      for (let i = 0; i < 20; i++) {
        const n = (i * 37) % documents;
        selective.push(await timed(() => engine.query(bulk, `SELECT ?p ?o WHERE { <${bulk.base}d${n}#s3> ?p ?o }`, union, false, never)));
      }
      const count: number[] = [];
      for (let i = 0; i < (quick ? 2 : 5); i++) {
        count.push(await timed(() => engine.query(bulk, 'SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }', union, false, never)));
      }
      row(`selective query (one subject) at ${triples.toLocaleString('en')} triples (median of 20)`, ms(median(selective)));
      row(`COUNT(*) over the dataspace's graphs at ${triples.toLocaleString('en')} triples (median)`, ms(median(count)));
      await engine.close();
    } finally {
      await server.stop();
    }
    return rows;
  },
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await virtuosoSection.run({ quick: process.env.BENCH_QUICK === '1', tmp: '', log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${formatTable(rows)}\n`);
}
