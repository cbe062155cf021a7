/**
 * The proxy section (issue 20): the latency of `GET <base>?uri=<origin URL>` through `lodestone
 * serve --allow-internal-urls` (a child process, HTTPS, the owner's certificate, one keep-alive
 * connection) against a direct GET of the same loopback origin (plain HTTP, keep-alive), which
 * serves a 100-triple Turtle document. Cold: every request names another URL, so each goes to the
 * origin (a new connection from the proxy, as each proxied request makes); as Turtle the origin's
 * bytes pass as they came, as JSON-LD they are parsed and written in a worker. Warm: one URL that
 * the origin lets be reused for an hour (max-age), served from the cache. Revalidated: one URL
 * that must be revalidated (no-cache, ETag), each request a conditional GET answered 304.
 */
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../test/http-helpers.js';
import { startChild, stop } from './http.js';
import { p50p99, quantile, ratio, type BenchContext, type Row, type Section } from './table.js';

function turtle(): string {
  let text = '@prefix dct: <http://purl.org/dc/terms/> .\n@prefix ex: <https://example.org/vocabulary#> .\n';
  for (let i = 0; i < 99; i++) text += `<#this> ex:p${i % 12} "value ${i} of the proxied document" .\n`;
  return text + '<#this> dct:title "Proxied" .\n';
}

/** One GET; resolves with its status once the body is read. */
function get(send: typeof request | typeof httpRequest, url: string, agent: Agent | HttpAgent, accept: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = send(url, { agent, headers: { Accept: accept } }, (res: IncomingMessage) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Microseconds per request, sequential; a status other than 200 stops the run. */
async function time(n: number, next: (i: number) => Promise<number>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = process.hrtime.bigint();
    const status = await next(i);
    samples.push(Number(process.hrtime.bigint() - started) / 1000);
    if (status !== 200) throw new Error(`status ${status}`);
  }
  return samples;
}

async function run(context: BenchContext): Promise<Row[]> {
  const body = turtle();
  const origin = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://origin').pathname;
    if (path === '/revalidated' && req.headers['if-none-match'] === '"r1"') return void res.writeHead(304, { ETag: '"r1"' }).end();
    const caching = path === '/warm' ? { 'Cache-Control': 'max-age=3600' } : path === '/revalidated' ? { 'Cache-Control': 'no-cache', ETag: '"r1"' } : { 'Cache-Control': 'no-store' };
    res.writeHead(200, { 'Content-Type': 'text/turtle; charset=utf-8', 'Content-Length': Buffer.byteLength(body), ...caching }).end(body);
  });
  origin.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  const originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  const port = await freePort();
  const data = join(context.tmp, 'proxy-data');
  const server = await startChild(['bin/lodestone.js', 'serve', '--data', data, '--port', String(port), '--no-watch', '--access-log', 'off', '--allow-internal-urls'], /listening on/);
  const pem = readFileSync(join(data, 'secrets/owner.pem'), 'utf8');
  const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false, cert: pem, key: pem });
  const direct = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const proxied = (url: string) => `https://localhost:${port}/?uri=${encodeURIComponent(url)}`;
  const n = context.quick ? 60 : 600;
  const rounds = 3;
  const samples: Record<string, number[]> = { direct: [], coldTurtle: [], coldJsonLd: [], warmTurtle: [], warmJsonLd: [], revalidated: [] };
  let unique = 0;
  try {
    // a first request of each kind (the worker pool, the TLS session, the first cache entries) is not measured
    for (const accept of ['text/turtle', 'application/ld+json']) {
      await get(request, proxied(`${originUrl}/warm`), agent, accept);
      await get(request, proxied(`${originUrl}/revalidated`), agent, accept);
      await get(request, proxied(`${originUrl}/cold?warmup`), agent, accept);
    }
    for (let round = 0; round < rounds; round++) {
      const per = Math.ceil(n / rounds);
      context.log(`proxy: round ${round + 1} of ${rounds}, ${per} GETs of each kind`);
      samples.direct!.push(...(await time(per, () => get(httpRequest, `${originUrl}/cold`, direct, 'text/turtle'))));
      samples.coldTurtle!.push(...(await time(per, () => get(request, proxied(`${originUrl}/cold?n=${unique++}`), agent, 'text/turtle'))));
      samples.coldJsonLd!.push(...(await time(per, () => get(request, proxied(`${originUrl}/cold?n=${unique++}`), agent, 'application/ld+json'))));
      samples.warmTurtle!.push(...(await time(per, () => get(request, proxied(`${originUrl}/warm`), agent, 'text/turtle'))));
      samples.warmJsonLd!.push(...(await time(per, () => get(request, proxied(`${originUrl}/warm`), agent, 'application/ld+json'))));
      samples.revalidated!.push(...(await time(per, () => get(request, proxied(`${originUrl}/revalidated`), agent, 'text/turtle'))));
    }
  } finally {
    agent.destroy();
    direct.destroy();
    await stop(server);
    origin.closeAllConnections();
    await new Promise((resolve) => origin.close(resolve));
  }
  const baseline = quantile(samples.direct!, 0.5);
  const row = (measure: string, key: string): Row => ({
    section: 'proxy',
    measure,
    value: p50p99(samples[key]!),
    baseline: key === 'direct' ? undefined : p50p99(samples.direct!),
    ratio: key === 'direct' ? undefined : ratio(quantile(samples[key]!, 0.5) / baseline),
  });
  return [
    row('GET of the origin, direct (HTTP keep-alive; p50 / p99)', 'direct'),
    row('proxied GET, cold, Turtle as the origin sent it', 'coldTurtle'),
    row('proxied GET, cold, re-serialised as JSON-LD', 'coldJsonLd'),
    row('proxied GET, warm (cache hit, max-age), Turtle', 'warmTurtle'),
    row('proxied GET, warm (cache hit), JSON-LD made once', 'warmJsonLd'),
    row('proxied GET, revalidated (ETag, 304 from the origin)', 'revalidated'),
  ];
}

export const proxySection: Section = { name: 'proxy', run };
