/**
 * Start-up: how long the command line and the server take to start, against Node's own start.
 * - the command line (`lodestone --version`, compiled) against `node -e ''` and against the same
 *   command run from the TypeScript sources through tsx (how it ran before it was compiled);
 * - `lodestone serve` to its `listening on` line: a first start (bootstrap: three RSA keys, 24
 *   documents written), a restart, and a restart holding 2,000 more documents (committed with git);
 * - after that restart, the first SPARQL answer over all 2,000 (the index loads while the server
 *   already answers).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { client } from './http.js';
import { ms, ratio, target, type BenchContext, type Row, type Section } from './table.js';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function timed(args: string[]): number {
  const started = performance.now();
  execFileSync(process.execPath, args, { stdio: 'ignore' });
  return performance.now() - started;
}

/** Starts `lodestone serve` (compiled) and resolves with the child and the milliseconds to its ready line. */
function serve(data: string, port: number): Promise<{ stop: () => Promise<void>; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/lodestone.js', 'serve', '--data', data, '--port', String(port), '--access-log', 'off'], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/listening on/.test(out)) {
        const elapsed = performance.now() - started;
        resolve({ ms: elapsed, stop: () => new Promise((done) => (child.once('exit', () => done()), child.kill('SIGTERM'))) });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening:\n${out}`)));
  });
}

/** Commits `count` documents into the end-user repository with the git CLI, as a person would. */
function commitDocuments(data: string, base: string, count: number): void {
  const repo = join(data, 'dataspaces', 'end-user');
  mkdirSync(join(repo, 'graphs', 'many'), { recursive: true });
  for (let n = 0; n < count; n++) {
    const doc = `${base}many/d${n}/`;
    const lines = [`<${doc}#this> <http://purl.org/dc/terms/title> "Document ${n}" .`, `<${doc}#this> <http://www.w3.org/1999/02/22-rdf-syntax-ns#value> "${n}"^^<http://www.w3.org/2001/XMLSchema#integer> .`];
    writeFileSync(join(repo, 'graphs', 'many', `d${n}.nt`), lines.sort().join('\n') + '\n');
  }
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.org', ...args], { cwd: repo, stdio: 'ignore' });
  git('add', 'graphs/many');
  git('commit', '-q', '-m', `${count} documents`);
}

async function run(context: BenchContext): Promise<Row[]> {
  const rounds = context.quick ? 3 : 7;
  const rows: Row[] = [];
  const node = median(Array.from({ length: rounds }, () => timed(['-e', ''])));
  const compiled = median(Array.from({ length: rounds }, () => timed(['bin/lodestone.js', '--version'])));
  const source = median(Array.from({ length: rounds }, () => timed(['--import', 'tsx', 'src/cli.ts', '--version'])));
  rows.push({ section: 'startup', measure: 'lodestone --version (compiled), median', value: ms(compiled), baseline: `node -e '': ${ms(node)}`, ratio: ratio(compiled / node), target: target('< 500 ms', compiled < 500) });
  rows.push({ section: 'startup', measure: 'the same from the sources through tsx', value: ms(source), baseline: ms(compiled), ratio: ratio(source / compiled) });

  const firsts: number[] = [];
  const restarts: number[] = [];
  const port = 45_000 + Math.floor(Math.random() * 10_000);
  let data = '';
  for (let round = 0; round < rounds; round++) {
    data = join(context.tmp, `startup-${round}`);
    const first = await serve(data, port);
    firsts.push(first.ms);
    await first.stop();
    const again = await serve(data, port);
    restarts.push(again.ms);
    await again.stop();
  }
  context.log(`startup: first starts ${firsts.map((t) => ms(t)).join(', ')}; restarts ${restarts.map((t) => ms(t)).join(', ')}`);
  rows.push({ section: 'startup', measure: `serve, first start to "listening" (median of ${rounds})`, value: ms(median(firsts)), baseline: ms(node), ratio: ratio(median(firsts) / node) });
  rows.push({ section: 'startup', measure: 'serve, restart to "listening" (24 documents)', value: ms(median(restarts)), baseline: ms(node), ratio: ratio(median(restarts) / node) });

  const base = `https://localhost:${port}/`;
  const many = context.quick ? 200 : 2000;
  commitDocuments(data, base, many);
  const big: number[] = [];
  const firstAnswers: number[] = [];
  const send = client(readFileSync(join(data, 'secrets', 'owner.pem'), 'utf8'));
  const query = encodeURIComponent('SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s <http://purl.org/dc/terms/title> ?o } }');
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    const server = await serve(data, port);
    big.push(server.ms);
    const reply = await send('GET', `${base}sparql?query=${query}`, { Accept: 'application/sparql-results+json' });
    firstAnswers.push(performance.now() - started);
    const count = Number((JSON.parse(reply.body) as { results: { bindings: { n: { value: string } }[] } }).results.bindings[0]!.n.value);
    if (count < many) throw new Error(`the first query after a restart counted ${count} titles, not ${many} or more`);
    await server.stop();
  }
  rows.push({ section: 'startup', measure: `serve, restart to "listening" (${many + 24} documents)`, value: ms(median(big)), baseline: ms(node), ratio: ratio(median(big) / node) });
  rows.push({ section: 'startup', measure: `  start to the first SPARQL answer over all of them`, value: ms(median(firstAnswers)), baseline: ms(median(big)), ratio: ratio(median(firstAnswers) / median(big)) });
  return rows;
}

export const startupSection: Section = { name: 'startup', run };
