/**
 * The history section's part for blame (issue 30). One repository of 100,000 commits, seeded with
 * `git fast-import`, holds `graphs/blamed.nt` (1,000 lines, 1,000 versions, each changing one line:
 * blame must read every version) and `graphs/target.nt` (1,000 versions); through `lodestone serve`:
 * blame of the first, its first answer (the pool reads the versions) and repeated (kept), against
 * `git blame --first-parent` of the same file, and the TimeMap of the second (goal: under 50 ms).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GitStore } from '../src/store/git-store.js';
import { freePort } from '../test/http-helpers.js';
import { client, startChild, stop } from './http.js';
import { ms, p50p99, quantile, ratio, target, type BenchContext, type Row } from './table.js';

export interface Shape {
  commits: number;
  versions: number;
  lines: number;
}

/** The blamed document as version `v` leaves it: version 0 writes every line, version v > 0 changes line v. */
function blamedText(shape: Shape, v: number, last: Int32Array): string {
  if (v > 0) last[v % shape.lines] = v;
  let text = '';
  for (let i = 0; i < shape.lines; i++) text += `<https://example.org/blamed/#s${String(i).padStart(5, '0')}> <http://example.org/ns#value> "line ${i}, as version ${last[i]} wrote it" .\n`;
  return text;
}

/** Seeds `dir` (made by the store first) with `shape.commits` commits through `git fast-import`, three authors taking turns. */
export async function seed(dir: string, shape: Shape): Promise<void> {
  await (await GitStore.open({ dir })).close();
  const child = spawn('git', ['-C', dir, 'fast-import', '--quiet', '--force'], { stdio: ['pipe', 'ignore', 'inherit'] });
  const done = new Promise<void>((resolve, reject) => child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import exited ${code}`)))));
  const write = async (text: string) => {
    if (!child.stdin.write(text)) await new Promise((resolve) => child.stdin.once('drain', resolve));
  };
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const every = Math.floor(shape.commits / shape.versions);
  const last = new Int32Array(shape.lines);
  const start = 1_700_000_000;
  for (let n = 0; n < shape.commits; n++) {
    const [path, text] =
      n % every === 0 ? ['graphs/blamed.nt', blamedText(shape, n / every, last)]
      : n % every === Math.floor(every / 2) ? ['graphs/target.nt', `<https://example.org/target/#this> <http://purl.org/dc/terms/title> "write ${n}" .\n`]
      : [`graphs/c${n % 50}/d${n % 997}.nt`, `<https://example.org/c${n % 50}/d${n % 997}/#this> <http://purl.org/dc/terms/title> "write ${n}" .\n`];
    const author = `https://example.org/agents/${['ada', 'brook', 'cyd'][n % 3]}/#this`;
    await write(`commit refs/heads/main\nauthor ${author} <agent@lodestone.invalid> ${start + n} +0000\ncommitter Lodestone <lodestone@lodestone.invalid> ${start + n} +0000\n${data(`PUT ${path}`)}M 100644 inline ${path}\n${data(text)}`);
  }
  child.stdin.end();
  await done;
}

/** `count` GETs of `url` one after another, after 5 not counted, in microseconds. */
async function latencies(get: ReturnType<typeof client>, url: string, headers: Record<string, string>, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count + 5; i++) {
    const start = performance.now();
    const reply = await get('GET', url, headers);
    if (reply.status !== 200) throw new Error(`${url}: ${reply.status} ${reply.body.slice(0, 200)}`);
    if (i >= 5) samples.push((performance.now() - start) * 1000);
  }
  return samples;
}

async function timed<T>(run: () => Promise<T>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

export async function blameRows(context: BenchContext): Promise<Row[]> {
  const shape: Shape = context.quick ? { commits: 10_000, versions: 100, lines: 200 } : { commits: 100_000, versions: 1000, lines: 1000 };
  const data = join(context.tmp, 'blame');
  const dir = join(data, 'dataspaces', 'end-user');
  let started = performance.now();
  await seed(dir, shape);
  context.log(`blame: seeded ${shape.commits.toLocaleString('en')} commits with git fast-import in ${ms(performance.now() - started)}`);
  const gitBlame = await timed(() => new Promise<void>((resolve, reject) => spawn('git', ['-C', dir, 'blame', '--first-parent', '-s', 'main', '--', 'graphs/blamed.nt'], { stdio: 'ignore' }).on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git blame exited ${code}`))))));

  const port = await freePort();
  started = performance.now();
  const server = await startChild(['bin/lodestone.js', 'serve', '--data', data, '--port', String(port), '--no-watch', '--access-log', 'off'], /listening on/);
  context.log(`blame: the server started in ${ms(performance.now() - started)}`);
  const rows: Row[] = [];
  try {
    const get = client(readFileSync(join(data, 'secrets/owner.pem'), 'utf8'));
    const base = `https://localhost:${port}/`;
    const label = `${shape.versions.toLocaleString('en')} versions of ${shape.lines.toLocaleString('en')} lines, ${shape.commits.toLocaleString('en')} commits`;
    const nt = { Accept: 'application/n-triples' };
    let answer: { status: number; body: string } | undefined;
    const first = await timed(async () => (answer = await get('GET', `${base}blamed/?blame`, nt)));
    if (answer?.status !== 200) throw new Error(`blame: ${answer?.status} ${answer?.body.slice(0, 300)}`);
    rows.push({ section: 'history', measure: `blame, first answer (N-Triples): ${label}`, value: ms(first), baseline: `git blame --first-parent: ${ms(gitBlame)}`, ratio: ratio(first / gitBlame) });
    const turtleFirst = await timed(() => get('GET', `${base}blamed/?blame`, { Accept: 'text/turtle' }));
    rows.push({ section: 'history', measure: 'blame, first answer in another format (Turtle)', value: ms(turtleFirst) });
    const repeated = await latencies(get, `${base}blamed/?blame`, nt, 50);
    rows.push({ section: 'history', measure: 'blame repeated (kept), p50 / p99', value: p50p99(repeated), target: target('< 50 ms', quantile(repeated, 0.5) < 50_000) });
    const page = await latencies(get, `${base}blamed/?blame`, { Accept: 'text/html' }, 10);
    rows.push({ section: 'history', measure: 'blame page (HTML, attribution kept), p50 / p99', value: p50p99(page) });
    const timemap = await latencies(get, `${base}target/?timemap`, { Accept: 'application/link-format' }, 200);
    rows.push({ section: 'history', measure: `TimeMap (link-format) p50 / p99: ${shape.versions.toLocaleString('en')} versions in ${shape.commits.toLocaleString('en')} commits`, value: p50p99(timemap), target: target('< 50 ms', quantile(timemap, 0.5) < 50_000) });
    const turtleMap = await latencies(get, `${base}target/?timemap`, { Accept: 'text/turtle' }, 200);
    rows.push({ section: 'history', measure: 'TimeMap (Turtle) p50 / p99, same document', value: p50p99(turtleMap), target: target('< 50 ms', quantile(turtleMap, 0.5) < 50_000) });
  } finally {
    await stop(server);
  }
  return rows;
}
