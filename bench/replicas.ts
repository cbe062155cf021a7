/**
 * Read replicas (issue 29): a primary and two replicas (`serve --replica-of`), each its own process
 * on loopback, all on this one machine. Replica lag: 100-triple documents written to the primary at
 * a steady rate (100 writes/s, 20 quick), and for every tenth write the time from the primary's 201
 * to a replica answering a GET of it with `Lodestone-Min-Commit` (a replica waits up to 2 s for the
 * commit; past that it sends the read to the primary, counted as 2 s or more); three rounds of 10 s,
 * the median printed (the machine is shared). GET throughput: wrk
 * on a public document, the primary alone, then both replicas at once (one wrk each) — on one
 * 2-core machine the three processes share the same cores, so the ratio shows the cost of
 * following, not the gain of a second machine.
 */
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { ns } from '../src/rdf/namespaces.js';
import { freePort } from '../test/http-helpers.js';
import { client, documentTurtle, startChild, stop } from './http.js';
import { ms, num, quantile, ratio, target, type BenchContext, type Row, type Section } from './table.js';
import { hasWrk, wrk } from './wrk.js';

const serveFlags = ['--no-watch', '--access-log', 'off', '--host', 'localhost'];

async function run(context: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  const children: ChildProcess[] = [];
  const row = (measure: string, value: string, extra: Partial<Row> = {}) => rows.push({ section: 'replicas', measure, value, ...extra });
  try {
    const data = join(context.tmp, 'primary');
    const port = await freePort();
    const base = `https://localhost:${port}/`;
    children.push(await startChild(['bin/lodestone.js', 'serve', '--data', data, '--port', String(port), ...serveFlags], /listening on/));
    const send = client(readFileSync(join(data, 'secrets/owner.pem'), 'utf8'));
    const acl = ns.acl;
    const readable = `<#this> a <${acl}Authorization> ; <${acl}agentClass> <${ns.foaf}Agent> ; <${acl}mode> <${acl}Read> ; <${acl}accessTo> <${base}bench/read/> .`;
    for (const [path, body] of [['bench/', `<> a <${ns.dh}Container> .`], ['bench/read/', documentTurtle(0)], ['admin/acl/authorizations/bench-replica-read/', readable]] as const) {
      const reply = await send('PUT', base + path, { 'Content-Type': 'text/turtle' }, body);
      if (reply.status !== 201) throw new Error(`PUT ${path}: ${reply.status} ${reply.body}`);
    }
    const replicaPorts: number[] = [];
    for (let i = 0; i < 2; i++) {
      const dir = join(context.tmp, `replica-${i}`);
      mkdirSync(dir, { recursive: true });
      cpSync(join(data, 'system.ttl'), join(dir, 'system.ttl'));
      cpSync(join(data, 'secrets'), join(dir, 'secrets'), { recursive: true });
      const replicaPort = await freePort();
      replicaPorts.push(replicaPort);
      context.log(`replicas: starting replica ${i + 1}`);
      const args = ['bin/lodestone.js', 'serve', '--data', dir, '--port', String(replicaPort), '--base', base, '--replica-of', base, '--replica-ca', join(data, 'secrets/server.pem'), ...serveFlags];
      children.push(await startChild(args, /listening on/));
    }
    // a replica serves the primary's base (one name behind a load balancer): asked on its own port with the base's Host
    const replicaUrl = (i: number, path: string) => `https://localhost:${replicaPorts[i]}/${path}`;
    const host = new URL(base).host;

    // lag under a steady stream of writes, in rounds (the machine is shared: the median of them is the figure)
    const perSecond = context.quick ? 20 : 100;
    const seconds = context.quick ? 5 : 10;
    const rounds = context.quick ? 1 : 3;
    const results: Array<{ rate: number; p50: number; p99: number; samples: number; missed: number }> = [];
    for (let round = 0; round < rounds; round++) {
      const lags: number[] = [];
      const probes: Promise<void>[] = [];
      const started = performance.now();
      let missed = 0;
      for (let n = 0; n < perSecond * seconds; n++) {
        const due = started + (n * 1000) / perSecond;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const write = send('PUT', `${base}bench/r${round}-w${n}/`, { 'Content-Type': 'text/turtle' }, documentTurtle(n));
        if (n % 10 !== 0) {
          probes.push(write.then(() => undefined));
          continue;
        }
        probes.push(
          write.then(async (reply) => {
            const written = performance.now();
            const read = await send('GET', replicaUrl((n / 10) % 2, `bench/r${round}-w${n}/`), { Accept: 'application/n-triples', Host: host, 'Lodestone-Min-Commit': reply.commit ?? '' });
            if (read.status === 200) lags.push(performance.now() - written);
            else missed++;
          }),
        );
      }
      await Promise.all(probes);
      const rate = (perSecond * seconds) / ((performance.now() - started) / 1000);
      results.push({ rate, p50: quantile(lags, 0.5), p99: quantile(lags, 0.99), samples: lags.length, missed });
      context.log(`replicas: lag round ${round + 1}: ${num(rate)} writes/s, p50 ${ms(quantile(lags, 0.5))}, p99 ${ms(quantile(lags, 0.99))}${missed ? `, ${missed} over 2 s` : ''}`);
    }
    const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
    const p99 = median(results.map((r) => r.p99));
    const missed = results.reduce((sum, r) => sum + r.missed, 0);
    row(`replica lag at ${num(median(results.map((r) => r.rate)))} writes/s: p50 / p99, median of ${rounds} round${rounds > 1 ? 's' : ''} (each ${results[0]!.samples + results[0]!.missed} samples${missed ? `; ${missed} over 2 s in all` : ''}; rounds' p99: ${results.map((r) => ms(r.p99)).join(', ')})`, `${ms(median(results.map((r) => r.p50)))} / ${ms(p99)}`, { target: target('p99 under 1 s', missed === 0 && p99 < 1000) });

    if (!(await hasWrk())) {
      row('GET throughput: skipped, wrk is not installed', '');
      return rows;
    }
    const wrkSeconds = context.quick ? 2 : 5;
    const load = (url: string) => wrk(url, { connections: 8, seconds: wrkSeconds, headers: { Accept: 'text/turtle', Host: host } });
    await load(`${base}bench/read/`); // warm
    const primaryAlone = await load(`${base}bench/read/`);
    await Promise.all([0, 1].map((i) => load(replicaUrl(i, 'bench/read/'))));
    const both = await Promise.all([0, 1].map((i) => load(replicaUrl(i, 'bench/read/'))));
    const together = both[0]!.rps + both[1]!.rps;
    row('GET/s of a public document: two replicas together, against the primary alone (one 2-core machine for all three)', `${num(together)}/s`, { baseline: `${num(primaryAlone.rps)}/s`, ratio: ratio(together / primaryAlone.rps) });
    return rows;
  } finally {
    for (const child of children.reverse()) await stop(child);
  }
}

export const replicasSection: Section = { name: 'replicas', run };
