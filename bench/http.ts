/**
 * The HTTP section: GET throughput and p50/p99 of a ~100-triple document in Turtle, N-Triples and
 * JSON-LD at 16 connections (wrk) against a bare Koa handler returning the same bytes over the
 * same TLS; conditional PUT and PATCH throughput; a selective SPARQL SELECT against the same
 * query run on an in-process Oxigraph store behind bare Koa; GET p99 while writes run (paced and
 * unpaced, and, as a control, the same writes sent to a second, separate server). The server
 * runs as `lodestone serve` in a child process, as a user would start it; wrk's anonymous requests
 * read documents made public by an authorization, so every GET is authorized by a decision.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { ns } from '../src/rdf/namespaces.js';
import { freePort } from '../test/http-helpers.js';
import { percent, quantile, rate, ratio, target, type BenchContext, type Row, type Section } from './table.js';
import { alternate, hasWrk, pinnedCpu, wrk, type WrkResult } from './wrk.js';

const FORMATS = ['text/turtle', 'application/n-triples', 'application/ld+json'];
const CONTAINER = `<> a <${ns.dh}Container> .`;
const acl = ns.acl;

interface Reply {
  status: number;
  etag: string | undefined;
  /** The commit the answer reflects (Lodestone-Commit). */
  commit: string | undefined;
  body: string;
  /** The body as it came over the wire (encoded, when Content-Encoding says so). */
  bytes: Buffer;
  encoding: string | undefined;
}

export function client(pem: string) {
  const agent = new Agent({ keepAlive: true, rejectUnauthorized: false, cert: pem, key: pem, maxSockets: 64 });
  return (method: string, url: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const req = request(url, { method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, etag: res.headers.etag, commit: res.headers['lodestone-commit'] as string | undefined, body: bytes.toString(), bytes, encoding: res.headers['content-encoding'] });
        });
      });
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
}

export function startChild(args: string[], ready: RegExp): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const extra = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    // `lodestone serve` runs as users run it (bin/lodestone.js, compiled JavaScript, without tsx's
    // hooks); a bench helper written in TypeScript runs through tsx
    const tsx = args[0]!.endsWith('.ts') ? ['--import', 'tsx'] : [];
    const child = spawn(process.execPath, [...extra, ...tsx, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (ready.test(out)) resolve(child);
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => {
      process.stderr.write(`${args[0]} exited (${code}):\n${out}\n`);
      reject(new Error(`${args[0]} exited (${code})`));
    });
  });
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export function documentTurtle(n: number): string {
  let text = `@prefix dct: <http://purl.org/dc/terms/> .\n@prefix ex: <https://example.org/vocabulary#> .\n`;
  for (let i = 0; i < 96; i++) text += `<#this> ex:p${i % 12} "value ${i} of document ${n}" .\n`;
  return text + `<#this> dct:title "Document ${n}" .\n`;
}

/** Each of the 4 paced writers waits this long after each of its writes: about 50 writes/s in all. */
const WRITE_PAUSE_MS = 70;

/** Each of the 16 connections of the below-capacity GET load waits this long before each GET. */
const LIGHT_PAUSE_MS = 1;

/** The documents the wrk writers rewrite (`bench/w0/` to `bench/w3/`), and an authorization that lets anyone write them. */
async function makeWritable(send: ReturnType<typeof client>, base: string): Promise<void> {
  if ((await send('HEAD', `${base}bench/`)).status === 404) await send('PUT', `${base}bench/`, { 'Content-Type': 'text/turtle' }, CONTAINER);
  for (let k = 0; k < 4; k++) await send('PUT', `${base}bench/w${k}/`, { 'Content-Type': 'text/turtle' }, documentTurtle(k));
  const writable = `<#this> a <${acl}Authorization> ; <${acl}agentClass> <${ns.foaf}Agent> ; <${acl}mode> <${acl}Read>, <${acl}Write> ; ${[0, 1, 2, 3].map((k) => `<${acl}accessTo> <${base}bench/w${k}/>`).join(' ; ')} .`;
  const made = await send('PUT', `${base}admin/acl/authorizations/bench-writers/`, { 'Content-Type': 'text/turtle' }, writable);
  if (made.status !== 201) throw new Error(`the writers' authorization: ${made.status} ${made.body}`);
}

export async function writeLoop(send: ReturnType<typeof client>, urls: string[], seconds: number, method: 'PUT' | 'PATCH'): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let writes = 0;
  await Promise.all(
    urls.map(async (url, n) => {
      let etag = (await send('HEAD', url)).etag!;
      let i = 0;
      while (performance.now() < deadline) {
        i++;
        const reply =
          method === 'PUT'
            ? await send('PUT', url, { 'Content-Type': 'text/turtle', 'If-Match': etag }, documentTurtle(n * 100_000 + i))
            : await send('PATCH', url, { 'Content-Type': 'application/sparql-update', 'If-Match': etag }, `DELETE { <#this> <http://purl.org/dc/terms/title> ?t } INSERT { <#this> <http://purl.org/dc/terms/title> "patched ${i}" } WHERE { <#this> <http://purl.org/dc/terms/title> ?t }`);
        if (reply.status >= 300) throw new Error(`${method} ${url}: ${reply.status} ${reply.body}`);
        etag = reply.etag!;
        writes++;
      }
    }),
  );
  return writes / seconds;
}

async function run(context: BenchContext): Promise<Row[]> {
  if (!(await hasWrk())) {
    return [{ section: 'http', measure: 'skipped: wrk is not installed (apt-get install wrk)', value: '' }];
  }
  const seconds = context.quick ? 2 : 4;
  const rounds = context.quick ? 2 : 5; // five alternating rounds: the figures sit at this machine's noise floor
  const pairRounds = context.quick ? 3 : 9; // p99 is the noisiest figure: more rounds for it
  const data = join(context.tmp, 'http-data');
  const port = await freePort();
  const base = `https://localhost:${port}/`;
  context.log('http: starting lodestone serve');
  const server = await startChild(['bin/lodestone.js', 'serve', '--data', data, '--port', String(port), '--no-watch', '--access-log', 'off'], /listening on/);
  const rows: Row[] = [];
  const children: ChildProcess[] = [server];
  try {
    const ownerPem = readFileSync(join(data, 'secrets/owner.pem'), 'utf8');
    const send = client(ownerPem);
    const documents = context.quick ? 50 : 500;
    await send('PUT', `${base}bench/`, { 'Content-Type': 'text/turtle' }, CONTAINER);
    for (let n = 0; n < documents; n++) await send('PUT', `${base}bench/d${n}/`, { 'Content-Type': 'text/turtle' }, documentTurtle(n));
    // wrk sends no client certificate: the bench documents and the endpoint are public, by an
    // authorization the server decides for every request (as it would for any reader)
    const rule = `<#this> a <${acl}Authorization> ; <${acl}agentClass> <${ns.foaf}Agent> ; <${acl}mode> <${acl}Read> ; <${acl}default> <${base}bench/> ; <${acl}accessTo> <${base}sparql> .`;
    const made = await send('PUT', `${base}admin/acl/authorizations/bench-public/`, { 'Content-Type': 'text/turtle' }, rule);
    if (made.status !== 201) throw new Error(`the public authorization: ${made.status} ${made.body}`);
    const url = `${base}bench/d1/`;
    context.log(`http: ${documents} documents written`);

    // GET against a bare Koa handler serving the same bytes over the same TLS.
    for (const type of FORMATS) {
      const body = (await send('GET', url, { Accept: type })).body;
      const bodyFile = join(context.tmp, 'body');
      writeFileSync(bodyFile, body);
      const barePort = await freePort();
      const bare = await startChild(['bench/bare-koa-child.ts', String(barePort), join(data, 'secrets/server.pem'), bodyFile, type], /ready/);
      children.push(bare);
      context.log(`http: GET ${type}`);
      // Alternating rounds, medians: this machine is shared, and one long run of each drifts apart.
      const [mine, baseline] = await alternate(rounds, [() => wrk(url, { connections: 16, seconds, headers: { Accept: type } }), () => wrk(`https://127.0.0.1:${barePort}/`, { connections: 16, seconds, headers: { Accept: type } })]);
      await stop(bare);
      rows.push(getRow(`GET ${type} (${body.length} B), 16 connections`, mine, baseline));
    }

    // Conditional writes: 16 clients, each on its own document, each write quoting the ETag it got.
    const writers = Array.from({ length: 16 }, (_, n) => `${base}bench/d${n + 2}/`);
    const puts = await writeLoop(send, writers, seconds, 'PUT');
    rows.push({ section: 'http', measure: 'conditional PUT (If-Match), 16 clients, ~100 triples', value: rate(puts) });
    const patches = await writeLoop(send, writers, seconds, 'PATCH');
    rows.push({ section: 'http', measure: 'conditional PATCH (If-Match), 16 clients', value: rate(patches) });

    // GET p99 while writes run. The writers are a second wrk (bench/put.lua: 4 threads, each
    // rewriting its own document with conditional PUTs), anonymous under an authorization that
    // lets anyone write those four documents: a native load generator, so the CPU the writes
    // take from the GETs is the server's, not a Node client's TLS. The writes come at a fixed
    // rate (each writer pauses between its writes), so the load does not grow as writes get
    // cheaper; the unpaced writers (as many writes as the server takes) are shown beside it.
    // The control: the same paced writes sent to a second server, a separate process with its
    // own data. What they cost the GETs is what this 2-core machine's sharing costs, not
    // anything the server does in its read path. Both wrks run on one CPU (pinnedCpu: wrk's own
    // descheduling would count as the server's latency); the paced writes are measured once more
    // with wrk free to run on either CPU, beside an idle baseline measured the same way. And once
    // with GETs below capacity (bench/paced-get.lua): at 16 busy connections a GET's latency is
    // mostly its wait in the queue, which hides part of what a write holds up; below capacity it
    // is the server's time to answer.
    await makeWritable(send, base);
    const otherData = join(context.tmp, 'http-other');
    const otherPort = await freePort();
    const other = await startChild(['bin/lodestone.js', 'serve', '--data', otherData, '--port', String(otherPort), '--no-watch', '--access-log', 'off'], /listening on/);
    children.push(other);
    const otherBase = `https://localhost:${otherPort}/`;
    await makeWritable(client(readFileSync(join(otherData, 'secrets/owner.pem'), 'utf8')), otherBase);
    const pinned = await pinnedCpu();
    const rates: Record<'paced' | 'unpaced' | 'other' | 'free' | 'light', number[]> = { paced: [], unpaced: [], other: [], free: [], light: [] };
    const gets = (cpu: number | undefined, light = false) => () =>
      wrk(url, { connections: 16, seconds, headers: { Accept: 'text/turtle' }, cpu, ...(light ? { script: 'bench/paced-get.lua', scriptArgs: [String(LIGHT_PAUSE_MS)] } : {}) });
    const getsWhile = (writes: keyof typeof rates, writeBase: string, pause: number, cpu = pinned, light = false) => async () => {
      const [reads, written] = await Promise.all([
        gets(cpu, light)(),
        wrk(`${writeBase}bench/`, { threads: 4, connections: 4, seconds, script: 'bench/put.lua', scriptArgs: [`${writeBase}bench/w`, String(pause)], cpu }),
      ]);
      rates[writes].push(written.rps);
      return reads;
    };
    context.log('http: GET p99 while writes run');
    const [quiet, paced, control, unpaced, quietLight, pacedLight, quietFree, pacedFree] = await alternate(pairRounds, [
      gets(pinned),
      getsWhile('paced', base, WRITE_PAUSE_MS),
      getsWhile('other', otherBase, WRITE_PAUSE_MS),
      getsWhile('unpaced', base, 0),
      gets(pinned, true),
      getsWhile('light', base, WRITE_PAUSE_MS, pinned, true),
      ...(pinned === undefined ? [] : [gets(undefined), getsWhile('free', base, WRITE_PAUSE_MS, undefined)]),
    ]);
    await stop(other);
    const where = pinned === undefined ? '' : `, wrk on CPU ${pinned}`;
    const p99Row = (measure: string, busy: WrkResult, idle = quiet, goal = false): Row => ({
      section: 'http',
      measure,
      value: `${busy.p99.toFixed(2)} ms (${rate(busy.rps)})`,
      baseline: `${idle.p99.toFixed(2)} ms idle (${rate(idle.rps)})`,
      ratio: ratio(busy.p99 / idle.p99),
      ...(goal ? { target: target('≤ 2×', busy.p99 <= 2 * idle.p99) } : {}),
    });
    const writeRate = (writes: keyof typeof rates) => rate(quantile(rates[writes], 0.5));
    rows.push(p99Row(`GET p99 during 4 writers, paced (conditional PUTs at ${writeRate('paced')})${where}`, paced, quiet, true));
    rows.push(p99Row(`GET p99 while a separate lodestone process takes the same writes (at ${writeRate('other')}): the machine's share${where}`, control));
    rows.push(p99Row(`GET p99 during 4 writers, unpaced (at ${writeRate('unpaced')})${where}`, unpaced));
    rows.push(p99Row(`GET p99 below capacity (each connection pauses ${LIGHT_PAUSE_MS} ms between GETs) during 4 writers, paced (at ${writeRate('light')})${where}`, pacedLight!, quietLight));
    if (quietFree && pacedFree) rows.push(p99Row(`GET p99 during 4 writers, paced (at ${writeRate('free')}), wrk on either CPU`, pacedFree, quietFree));

    // A selective SELECT: the endpoint against bare Koa + in-process Oxigraph over the same data.
    const query = `SELECT ?o WHERE { <${base}bench/d7/#this> <https://example.org/vocabulary#p3> ?o }`;
    const dump = join(context.tmp, 'dump.nq');
    const nquads = (await send('GET', `${base}sparql?query=${encodeURIComponent('CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }')}`, { Accept: 'application/n-triples' })).body;
    writeFileSync(dump, nquads);
    const barePort = await freePort();
    const bare = await startChild(['bench/bare-koa-child.ts', String(barePort), join(data, 'secrets/server.pem'), dump, 'text/plain', dump], /ready/);
    children.push(bare);
    const [endpoint, direct] = await alternate(rounds, [() => wrk(`${base}sparql?query=${encodeURIComponent(query)}`, { connections: 16, seconds }), () => wrk(`https://127.0.0.1:${barePort}/sparql?query=${encodeURIComponent(query)}`, { connections: 16, seconds })]);
    await stop(bare);
    rows.push({
      section: 'http',
      measure: 'SPARQL selective SELECT, 16 connections (results cached per commit)',
      value: rate(endpoint.rps),
      baseline: `${rate(direct.rps)} Koa+Oxigraph`,
      ratio: ratio(direct.rps / endpoint.rps),
      target: target('overhead ≤ 1.2×', direct.rps / endpoint.rps <= 1.2),
    });
  } finally {
    for (const child of children) if (child.exitCode === null) await stop(child);
  }
  return rows;
}

function getRow(measure: string, mine: WrkResult, baseline: WrkResult): Row {
  const share = mine.rps / baseline.rps;
  return {
    section: 'http',
    measure,
    value: `${rate(mine.rps)} p50 ${mine.p50.toFixed(2)} ms p99 ${mine.p99.toFixed(2)} ms`,
    baseline: `${rate(baseline.rps)} p50 ${baseline.p50.toFixed(2)} p99 ${baseline.p99.toFixed(2)} (bare Koa)`,
    ratio: percent(share),
    target: target('≥ 90% of bare Koa (issue 26)', share >= 0.9),
  };
}

export const httpSection: Section = { name: 'http', run };
