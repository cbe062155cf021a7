/**
 * A container of 100,000 documents (10,000 quick; BENCH_LARGE_CONTAINER=<n> for another size), seeded with git in one commit (bench/repos.ts's
 * way: GitStore.write with every document as a change) into a bootstrapped data directory, then
 * served: its first page as HTML (newest first, a SPARQL sort; by name, the kept listing), its
 * paged RDF listing (`?page=1&limit=100`), and a search of its titles (the first, which builds the
 * title table from the index, and warm ones). Medians of one-at-a-time requests by the owner.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ns } from '../src/rdf/namespaces.js';
import { GitStore } from '../src/store/git-store.js';
import { freePort } from '../test/http-helpers.js';
import { client, startChild, stop } from './http.js';
import { BENCH_AUTHOR } from './repos.js';
import { ms, num, quantile, target, type BenchContext, type Row } from './table.js';

/** The canonical bytes of child `i` of `container` (sorted lines, as the server writes them). */
function child(container: string, i: number): Buffer {
  const url = `${container}d${i}/`;
  const modified = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  const lines = [
    `<${url}> <${ns.dct}modified> "${modified}"^^<${ns.xsd}dateTime> .`,
    `<${url}> <${ns.sioc}has_container> <${container}> .`,
    `<${url}#this> <${ns.dct}title> "Document number ${i}" .`,
  ];
  return Buffer.from(lines.sort().join('\n') + '\n');
}

export async function largeContainer(context: BenchContext): Promise<Row[]> {
  // BENCH_LARGE_CONTAINER=1000000 for the issue's million (minutes to seed and index, GBs of memory)
  const count = Number(process.env.BENCH_LARGE_CONTAINER ?? (context.quick ? 10_000 : 100_000));
  const port = await freePort();
  const base = `https://localhost:${port}/`;
  const data = join(context.tmp, 'pages-large');
  const args = ['bin/lodestone.js', 'serve', '--data', data, '--port', String(port), '--no-watch', '--access-log', 'off'];
  await stop(await startChild(args, /listening on/)); // bootstrapped
  const endUser = readdirSync(join(data, 'dataspaces')).map((id) => join(data, 'dataspaces', id)).find((dir) => readFileSync(join(dir, '.git', 'lodestone', 'dataspace.json'), 'utf8').includes(`"${base}"`));
  if (!endUser) throw new Error(`no dataspace of ${base} in ${data}`);
  const container = `${base}big/`;
  const store = await GitStore.open({ dir: endUser });
  const changes: { path: string; bytes: Buffer }[] = [{ path: 'graphs/big.nt', bytes: Buffer.from(`<${container}> <${ns.rdf}type> <${ns.dh}Container> .\n<${container}> <${ns.sioc}has_parent> <${base}> .\n`) }];
  for (let i = 0; i < count; i++) changes.push({ path: `graphs/big/d${i}.nt`, bytes: child(container, i) });
  await store.write({ changes, author: BENCH_AUTHOR, message: `Import ${count} documents` });
  await store.close();
  context.log(`pages: ${num(count)} documents seeded; starting the server (it indexes them)`);
  const started = performance.now();
  const server = await startChild(args, /listening on/);
  const rows: Row[] = [];
  try {
    const send = client(readFileSync(join(data, 'secrets/owner.pem'), 'utf8'));
    const timed = async (url: string, accept: string, rounds: number) => {
      const times: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const t0 = performance.now();
        const reply = await send('GET', url, { Accept: accept });
        if (reply.status !== 200) throw new Error(`GET ${url}: ${reply.status} ${reply.bytes.toString().slice(0, 300)}`);
        times.push(performance.now() - t0);
      }
      return { first: times[0]!, median: quantile(times.slice(1), 0.5) };
    };
    await timed(`${base}sparql?query=${encodeURIComponent('ASK {}')}`, 'application/sparql-results+json', 1); // a query waits for the index to reach HEAD
    context.log(`pages: ready and indexed in ${ms(performance.now() - started)}`);
    const rounds = context.quick ? 5 : 11;
    const label = `${num(count)}-document container`;
    const listing = await timed(`${container}?page=1&limit=100`, 'application/n-triples', rounds);
    rows.push({ section: 'pages', measure: `first page of a ${label}, RDF listing (limit 100), median`, value: ms(listing.median), baseline: `first ask (builds the listing): ${ms(listing.first)}`, target: target('< 50 ms', listing.median < 50) });
    const byName = await timed(`${container}?order=name`, 'text/html', rounds);
    rows.push({ section: 'pages', measure: `first page of a ${label}, HTML by name (kept listing), median`, value: ms(byName.median), baseline: `first: ${ms(byName.first)}`, target: target('< 50 ms', byName.median < 50) });
    const newest = await timed(container, 'text/html', context.quick ? 3 : 5);
    rows.push({ section: 'pages', measure: `first page of a ${label}, HTML newest first (kept sort by time), median`, value: ms(newest.median), baseline: `first: ${ms(newest.first)}` });
    const search = await timed(`${container}?search=${encodeURIComponent(`number ${Math.floor(count / 2)}`)}`, 'text/html', rounds);
    rows.push({ section: 'pages', measure: `search of ${num(count)} titles (HTML page of results), median`, value: ms(search.median), baseline: `first (builds the title table): ${ms(search.first)}` });
    const many = await timed(`${base}?search=document`, 'text/html', rounds);
    rows.push({ section: 'pages', measure: `  matching all ${num(count)} (sorted, first page drawn), median`, value: ms(many.median) });
  } finally {
    await stop(server);
  }
  return rows;
}
