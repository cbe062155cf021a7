/**
 * The versioning section: TimeMap and TimeGate latency for a document with many versions in a
 * long history against one with few versions in a short one, memento GET against current GET
 * (both through `lodestone serve`), and building the version index from nothing against
 * `git log --raw` over the same repository, then restarting with the index kept on disk.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { agentIdentity } from '../src/dataspace.js';
import { GitStore } from '../src/store/git-store.js';
import { VersionLog } from '../src/store/version-log.js';
import { freePort } from '../test/http-helpers.js';
import { startChild, stop } from './http.js';
import { ms, p50p99, quantile, ratio, target, type BenchContext, type Row, type Section } from './table.js';

const run = promisify(execFile);

/** A history of `commits` commits in which `graphs/target.nt` changes `versions` times. */
async function buildHistory(dir: string, commits: number, versions: number): Promise<void> {
  const store = await GitStore.open({ dir });
  const author = agentIdentity('https://example.org/agent#me');
  const every = Math.max(1, Math.floor(commits / versions));
  const waves = 64;
  for (let i = 0; i < commits; i += waves) {
    await Promise.all(
      Array.from({ length: Math.min(waves, commits - i) }, (_, k) => {
        const n = i + k;
        const path = n % every === 0 ? 'graphs/target.nt' : `graphs/c${n % 50}/d${n % 997}.nt`;
        const bytes = Buffer.from(`<https://localhost/${path}#this> <http://purl.org/dc/terms/title> "write ${n}" .\n`);
        return store.write({ changes: [{ path, bytes }], author, message: `PUT ${path}` });
      }),
    );
  }
  await store.close();
}

async function latencies(url: string, pem: string, headers: Record<string, string>, count: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, rejectUnauthorized: false, cert: pem, key: pem });
  const samples: number[] = [];
  for (let i = 0; i < count + 20; i++) {
    const start = performance.now();
    await new Promise<void>((resolve, reject) => {
      const req = request(url, { headers, agent }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode && res.statusCode < 400 ? resolve() : reject(new Error(`${url}: ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end();
    });
    if (i >= 20) samples.push((performance.now() - start) * 1000);
  }
  agent.destroy();
  return samples;
}

async function runSection(context: BenchContext): Promise<Row[]> {
  const big = context.quick ? { commits: 10_000, versions: 100 } : { commits: 100_000, versions: 1000 };
  const small = { commits: 1000, versions: 10 };
  const rows: Row[] = [];
  const label = (h: { commits: number; versions: number }) => `${h.versions} versions in ${h.commits.toLocaleString('en')} commits`;
  const servers: Record<string, { data: string; port: number; child?: ChildProcess }> = {};
  for (const [name, history] of [['small', small], ['big', big]] as const) {
    const data = join(context.tmp, `versions-${name}`);
    const started = performance.now();
    await buildHistory(join(data, 'dataspaces', 'end-user'), history.commits, history.versions);
    context.log(`versions: built ${label(history)} in ${ms(performance.now() - started)}`);
    servers[name] = { data, port: await freePort() };
  }

  // The version index from nothing, against git log --raw over the same repository.
  const bigDir = join(servers.big!.data, 'dataspaces', 'end-user');
  const store = await GitStore.open({ dir: bigDir });
  let start = performance.now();
  const index = new VersionLog(store);
  await index.build();
  const buildMs = performance.now() - start;
  start = performance.now();
  await run('git', ['log', '--raw', '--first-parent', '--format=%H %ct %an'], { cwd: bigDir, maxBuffer: 1 << 30 });
  const gitMs = performance.now() - start;
  rows.push({ section: 'versions', measure: `version index from nothing, ${big.commits.toLocaleString('en')} commits`, value: ms(buildMs), baseline: `git log --raw: ${ms(gitMs)}`, ratio: ratio(buildMs / gitMs), target: target('≤ 3×', buildMs <= 3 * gitMs) });
  start = performance.now();
  const again = new VersionLog(await GitStore.open({ dir: bigDir }));
  await again.build();
  const restartMs = performance.now() - start;
  rows.push({ section: 'versions', measure: 'restart with the index on disk (open the store, read the log)', value: ms(restartMs), target: target('< 2 s', restartMs < 2000) });
  await store.close();

  const timemaps: Record<string, number[]> = {};
  const timegates: Record<string, number[]> = {};
  for (const [name, server] of Object.entries(servers)) {
    server.child = await startChild(['bin/lodestone.js', 'serve', '--data', server.data, '--port', String(server.port), '--no-watch', '--access-log', 'off'], /listening on/);
    const pem = readFileSync(join(server.data, 'secrets/owner.pem'), 'utf8');
    const base = `https://localhost:${server.port}/target/`;
    timemaps[name] = await latencies(`${base}?timemap`, pem, { Accept: 'application/link-format' }, 200);
    timegates[name] = await latencies(`${base}?timegate`, pem, { 'Accept-Datetime': new Date().toUTCString() }, 200);
    if (name === 'big') {
      const current = await latencies(base, pem, { Accept: 'text/turtle' }, 300);
      const head = (await run('git', ['rev-parse', 'HEAD'], { cwd: join(server.data, 'dataspaces', 'end-user') })).stdout.trim();
      const memento = await latencies(`${base}?version=${head}`, pem, { Accept: 'text/turtle' }, 300);
      const m = quantile(memento, 0.5) / quantile(current, 0.5);
      rows.push({ section: 'versions', measure: 'memento GET, p50 / p99', value: p50p99(memento), baseline: `current GET: ${p50p99(current)}`, ratio: ratio(m), target: target('≤ 1.5×', m <= 1.5) });
    }
    await stop(server.child);
  }
  for (const [what, samples] of [['TimeMap', timemaps], ['TimeGate', timegates]] as const) {
    const r = quantile(samples.big!, 0.5) / quantile(samples.small!, 0.5);
    rows.push({
      section: 'versions',
      measure: `${what} p50 / p99: ${label(big)}`,
      value: p50p99(samples.big!),
      baseline: `${label(small)}: ${p50p99(samples.small!)}`,
      ratio: ratio(r),
      target: what === 'TimeMap' ? target('≤ 1.5×', r <= 1.5) : undefined,
    });
  }
  return rows;
}

export const versionsSection: Section = { name: 'versions', run: runSection };
