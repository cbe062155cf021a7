/**
 * The read fast path against bare Koa (issue 26): an anonymous Turtle GET of a public ~100-triple
 * document from `lodestone serve` against a bare Koa handler sending the same bytes (the same body
 * and the very headers Lodestone answered with), and against one sending the body with only an ETag
 * and its Content-Type; each round printed and the median of the per-round ratios, of throughput and
 * of each server's CPU time per GET. Plain HTTP and TLS, wrk with 10 connections; every server in a
 * child process of its own.
 */
import type { ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ns } from '../src/rdf/namespaces.js';
import { freePort, startServer } from '../test/http-helpers.js';
import { client as tlsClient, documentTurtle, startChild, stop } from './http.js';
import { num, percent, quantile, rate, ratio, target, us, type BenchContext, type Row, type Section } from './table.js';
import { hasWrk, wrk, type WrkResult } from './wrk.js';

export const DOCUMENT = 'bench/d1/';
const ACCEPT = { Accept: 'text/turtle' };
/** The headers Node writes on its own: not copied into the baseline. */
const NODE_OWN = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

type Send = (method: string, path: string, headers?: Record<string, string>, body?: string) => Promise<Answer>;

/** Plain HTTP requests to 127.0.0.1:`port` (wrk's Host: the base's). */
export function plainClient(port: number): Send {
  const agent = new Agent({ keepAlive: true });
  return (method, path, headers = {}, body) =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method, agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: rawHeaders(res.rawHeaders), body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
}

/** The headers as sent (names as spelled), without those Node writes itself. */
function rawHeaders(raw: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) if (!NODE_OWN.has(raw[i]!.toLowerCase())) headers[raw[i]!] = raw[i + 1]!;
  return headers;
}

/** RFC 9440: `:<base64 of the DER certificate>:`, what a TLS-terminating proxy sends in Client-Cert. */
export function clientCertValue(certPem: string): string {
  return `:${new X509Certificate(certPem).raw.toString('base64')}:`;
}

/** The bench container, the document and an authorization that lets anyone read it, written as the owner. */
export async function populate(send: Send, base: string, owner: Record<string, string>): Promise<void> {
  const acl = ns.acl;
  const public_ = `<#this> a <${acl}Authorization> ; <${acl}agentClass> <${ns.foaf}Agent> ; <${acl}mode> <${acl}Read> ; <${acl}accessTo> <${base}${DOCUMENT}> .`;
  for (const [path, body] of [['bench/', `<> a <${ns.dh}Container> .`], [DOCUMENT, documentTurtle(1)], ['admin/acl/authorizations/bench-public/', public_]] as const) {
    const reply = await send('PUT', `/${path}`, { 'Content-Type': 'text/turtle', ...owner }, body);
    if (reply.status !== 201) throw new Error(`PUT /${path}: ${reply.status} ${reply.body}`);
  }
}

/**
 * Each load once (warm-up), then `n` rounds, each made of `slices` one-second runs of every load in
 * turn (their requests and CPU summed): on a shared machine the load of others drifts within
 * seconds, and slices interleaved that finely meet the same drift.
 */
async function rounds(n: number, slices: number, loads: readonly ((seconds: number) => Promise<WrkResult>)[]): Promise<WrkResult[][]> {
  for (const load of loads) await load(1);
  const results: WrkResult[][] = [];
  for (let i = 0; i < n; i++) {
    const runs: WrkResult[][] = loads.map(() => []);
    for (let k = 0; k < slices; k++) for (const [j, load] of loads.entries()) runs[j]!.push(await load(1));
    results.push(runs.map((slice) => {
      const requests = slice.reduce((sum, r) => sum + r.rps, 0);
      return { rps: requests / slice.length, cpu: slice.reduce((sum, r) => sum + r.cpu * r.rps, 0) / requests, p50: quantile(slice.map((r) => r.p50), 0.5), p99: quantile(slice.map((r) => r.p99), 0.5) };
    }));
  }
  return results;
}

async function compare(context: BenchContext, scheme: 'http' | 'https'): Promise<Row[]> {
  const seconds = context.quick ? 2 : 4;
  const n = context.quick ? 3 : 5;
  const data = join(context.tmp, `get-${scheme}`);
  const port = await freePort();
  const base = scheme === 'http' ? `http://127.0.0.1:${port}/` : `https://localhost:${port}/`;
  const args = ['bin/lodestone.js', 'serve', '--data', data, '--port', String(port), '--no-watch', '--access-log', 'off'];
  if (scheme === 'http') args.push('--host', '127.0.0.1', '--base', base, '--http', '--trusted-proxy', '127.0.0.1');
  context.log(`get: starting lodestone serve${scheme === 'http' ? ' --http' : ''}`);
  const children: ChildProcess[] = [await startChild(args, /listening on/)];
  try {
    const ownerPem = readFileSync(join(data, 'secrets/owner.pem'), 'utf8');
    let send: Send;
    let owner: Record<string, string> = {};
    if (scheme === 'http') {
      send = plainClient(port);
      owner = { 'Lodestone-Proxy-Secret': readFileSync(join(data, 'secrets', 'proxy-secret'), 'utf8').trim(), 'Client-Cert': clientCertValue(ownerPem) };
    } else {
      const tls = tlsClient(ownerPem);
      send = async (method, path, headers, body) => ({ ...(await tls(method, base + path.slice(1), headers, body)), headers: {} });
    }
    await populate(send, base, owner);
    // what an anonymous reader is answered (over TLS: read again over plain Node to see its headers)
    const answer = scheme === 'http' ? await send('GET', `/${DOCUMENT}`, ACCEPT) : await tlsAnswer(base + DOCUMENT);
    if (answer.status !== 200) throw new Error(`GET ${DOCUMENT}: ${answer.status} ${answer.body}`);
    const bodyFile = join(context.tmp, `get-${scheme}-body`);
    const headersFile = join(context.tmp, `get-${scheme}-headers.json`);
    writeFileSync(bodyFile, answer.body);
    writeFileSync(headersFile, JSON.stringify(answer.headers));
    const pem = scheme === 'http' ? '-' : join(data, 'secrets/server.pem');
    const [samePort, barePort] = [await freePort(), await freePort()];
    children.push(await startChild(['bench/bare-koa-child.ts', String(samePort), pem, bodyFile, 'text/turtle', '-', headersFile], /ready/));
    children.push(await startChild(['bench/bare-koa-child.ts', String(barePort), pem, bodyFile, 'text/turtle'], /ready/));
    const host = new URL(base).host;
    // with each server's pid: its CPU time per request (user + system, /proc), steadier than throughput on a shared machine
    const load = (url: string, pid: number | undefined) => (seconds: number) => wrk(url, { connections: 10, seconds, headers: { Host: host, ...ACCEPT }, pid });
    const loopback = `${scheme}://127.0.0.1`;
    context.log(`get: ${scheme}: ${n} alternating rounds of lodestone, bare Koa (same headers), bare Koa (ETag and type)`);
    const load1 = loadavg()[0]!;
    const results = await rounds(n, seconds, [load(`${loopback}:${port}/${DOCUMENT}`, children[0]!.pid), load(`${loopback}:${samePort}/`, children[1]!.pid), load(`${loopback}:${barePort}/`, children[2]!.pid)]);
    const load2 = loadavg()[0]!;
    // the same GET asking for Brotli, as browsers and many RDF clients do: Koa encodes the cached body once, the fast path sends that
    // (http/compression.ts); against Koa's identity answer (the same GET with the server's own Origin, which the fast path leaves to Koa)
    const viaKoa = (extra: Record<string, string>) => wrk(`${loopback}:${port}/${DOCUMENT}`, { connections: 10, seconds, headers: { Host: host, ...ACCEPT, ...extra }, pid: children[0]!.pid });
    const [encoded, koaIdentity] = [await viaKoa({ 'Accept-Encoding': 'br' }), await viaKoa({ Origin: new URL(base).origin })];
    const label = `${scheme === 'http' ? 'plain HTTP' : 'TLS'}, GET text/turtle (${Buffer.byteLength(answer.body)} B, ${Object.keys(answer.headers).length} headers), 10 connections`;
    const figures = (r: WrkResult) => `${rate(r.rps)} (${us(r.cpu)} CPU)`;
    const rows: Row[] = results.map((round, i) => ({
      section: 'get',
      measure: `${label}: round ${i + 1}`,
      value: figures(round[0]!),
      baseline: `${figures(round[1]!)} same headers; ${figures(round[2]!)} ETag and type only`,
      ratio: `${percent(round[0]!.rps / round[1]!.rps)}; ${percent(round[0]!.rps / round[2]!.rps)}`,
    }));
    const median = (k: number, key: 'rps' | 'cpu') => quantile(results.map((round) => round[k]![key]), 0.5);
    const ratioOf = (k: number, key: 'rps' | 'cpu') => quantile(results.map((round) => round[0]![key] / round[k]![key]), 0.5);
    const same = ratioOf(1, 'rps');
    rows.push(
      {
        section: 'get',
        measure: `${label}: medians (load average ${load1.toFixed(1)} → ${load2.toFixed(1)}); ratio: median of the rounds' ratios`,
        value: rate(median(0, 'rps')),
        baseline: `${rate(median(1, 'rps'))} same headers; ${rate(median(2, 'rps'))} ETag and type only`,
        ratio: `${percent(same)}; ${percent(ratioOf(2, 'rps'))}`,
        target: target('≥ 90% of bare Koa (same bytes)', same >= 0.9),
      },
      {
        section: 'get',
        measure: `${label}: server CPU per GET (user + system, /proc), medians; ratio: median of the rounds' ratios`,
        value: us(median(0, 'cpu')),
        baseline: `${us(median(1, 'cpu'))} same headers; ${us(median(2, 'cpu'))} ETag and type only`,
        ratio: `${ratio(ratioOf(1, 'cpu'))}; ${ratio(ratioOf(2, 'cpu'))}`,
        target: target('≤ 1.11× (90%, as CPU per request)', ratioOf(1, 'cpu') <= 1 / 0.9),
      },
      {
        section: 'get',
        measure: `${label}: the same GET with Accept-Encoding: br (its encoding made once by Koa, then sent by the fast path), one run after the rounds; baseline: Koa's identity answer (Origin), the fast path's`,
        value: figures(encoded),
        baseline: `${figures(koaIdentity)} Koa identity; ${rate(median(0, 'rps'))} (${us(median(0, 'cpu'))} CPU) fast path, identity (medians)`,
        ratio: `${percent(encoded.rps / koaIdentity.rps)}; ${percent(encoded.rps / median(0, 'rps'))}`,
      },
    );
    return rows;
  } finally {
    for (const child of children) await stop(child);
  }
}

/** An anonymous GET of `url` over TLS, its headers as sent. */
async function tlsAnswer(url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { headers: ACCEPT, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: rawHeaders(res.rawHeaders), body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * One repeated anonymous GET through the server's own request listener, in process, with no socket
 * (a request object and a response that only takes what is written): the fast path's own time, per
 * call, the median of five runs. Far steadier on a shared machine than anything over a socket.
 */
async function inProcess(context: BenchContext): Promise<Row[]> {
  const server = await startServer([], join(context.tmp, 'get-in-process'));
  try {
    const send: Send = async (method, path, headers, body) => ({ ...(await server.request(method, path.slice(1), { headers, body })), headers: {} });
    await populate(send, server.base, {});
    // the first GET serialises the body (Koa), the second is the fast path's, which keeps its answer
    for (let i = 0; i < 2; i++) await server.request('GET', DOCUMENT, { as: 'anonymous', headers: ACCEPT });
    const listener = server.running.server.listeners('request')[0] as (req: unknown, res: unknown) => void;
    let answered = 0;
    const res = { writeHead: () => res, end: () => void answered++ };
    const req = { method: 'GET', url: `/${DOCUMENT}`, headers: { host: new URL(server.base).host, accept: ACCEPT.Accept }, socket: { remoteAddress: '127.0.0.1' } };
    listener(req, res);
    if (answered !== 1) throw new Error('the read fast path did not answer'); // Koa would answer the next ones, with no socket
    const calls = context.quick ? 100_000 : 1_000_000;
    const samples: number[] = [];
    for (let round = 0; round < 5; round++) {
      const start = performance.now();
      for (let i = 0; i < calls; i++) listener(req, res);
      samples.push(((performance.now() - start) * 1e6) / calls);
    }
    if (answered !== 1 + 5 * calls) throw new Error('the read fast path did not answer every request');
    return [{ section: 'get', measure: `in process: one repeated anonymous GET text/turtle through the request listener, no socket (median of 5 × ${num(calls)})`, value: `${num(quantile(samples, 0.5))} ns` }];
  } finally {
    await server.close();
  }
}

async function run(context: BenchContext): Promise<Row[]> {
  const rows = await inProcess(context);
  if (!(await hasWrk())) return [...rows, { section: 'get', measure: 'skipped: wrk is not installed (apt-get install wrk)', value: '' }];
  return [...rows, ...(await compare(context, 'http')), ...(await compare(context, 'https'))];
}

export const fastGetSection: Section = { name: 'get', run };
