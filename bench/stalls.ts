/**
 * The stalls section: the longest wait of the server's main thread (event-loop delay, max and p99,
 * as monitorEventLoopDelay sees it) while hostile requests run, against the same figures while the
 * server only answers a light loop of GETs. The hostile requests: a 10,000-deep SPARQL group, a
 * 10,000-deep PATCH, a 1 MB query in a form, a 100 KB header, 500 idle connections, a 50 MB chunked
 * body, a 1.9 MB Turtle literal, three 5,000-blank-node cycles at once, and a runaway query. Then,
 * in a period of its own, work priced by the requester (stall-requesters.ts): 16 loops of signups
 * and client certificates naming remote WebIDs, local ones (the signups') and 1,000 WebIDs.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { connect } from 'node:tls';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../test/http-helpers.js';
import { requesterInputs, type RequesterWork } from './stall-requesters.js';
import { ms, ratio, target as goal, type BenchContext, type Row, type Section } from './table.js';

interface Stall {
  max: number;
  p99: number;
}

function send(agent: Agent, method: string, url: string, headers: Record<string, string> = {}, body?: string | (() => AsyncIterable<Buffer>)): Promise<{ status: number; etag?: string }> {
  return new Promise((resolve) => {
    const req = request(url, { method, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, etag: res.headers.etag }));
    });
    req.on('error', () => resolve({ status: 0 }));
    if (typeof body === 'function') {
      void (async () => {
        try {
          for await (const chunk of body()) if (!req.write(chunk)) await once(req, 'drain');
          req.end();
        } catch {
          // the server stopped reading (413): that is its answer
        }
      })();
    } else req.end(body);
  });
}

async function run(context: BenchContext): Promise<Row[]> {
  const data = join(context.tmp, 'stalls-data');
  const port = await freePort();
  const base = `https://localhost:${port}/`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/stall-child.ts', '--data', data, '--port', String(port), '--sparql-timeout', '5000', '--access-log', 'off', '--allow-internal-urls'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const lines: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (let at = out.indexOf('\n'); at >= 0; at = out.indexOf('\n')) {
      lines.push(out.slice(0, at));
      out = out.slice(at + 1);
    }
  });
  const waitLine = async (test: (line: string) => boolean): Promise<string> => {
    for (;;) {
      const found = lines.findIndex(test);
      if (found >= 0) return lines.splice(found, 1)[0]!;
      if (child.exitCode !== null) throw new Error('the server stopped');
      await sleep(20);
    }
  };
  try {
    await waitLine((l) => l.includes('listening on '));
    const pem = readFileSync(join(data, 'secrets', 'owner.pem'), 'utf8');
    const agent = new Agent({ keepAlive: true, rejectUnauthorized: false, cert: pem, key: pem, maxSockets: 16 });
    const probe = new Agent({ keepAlive: true, rejectUnauthorized: false, cert: pem, key: pem, maxSockets: 1 });
    const period = async (work: () => Promise<unknown>): Promise<Stall> => {
      let stopped = false;
      const gets = (async () => {
        while (!stopped) {
          await send(probe, 'GET', `${base}stalls/`);
          await sleep(20);
        }
      })();
      child.stdin.write('reset\n');
      await work();
      child.stdin.write('report\n');
      const report = await waitLine((l) => l.startsWith('stall '));
      stopped = true;
      await gets;
      return JSON.parse(report.slice(6)) as Stall;
    };
    const turtle = { 'Content-Type': 'text/turtle' };
    await send(agent, 'PUT', `${base}stalls/`, turtle, '<> a <https://w3id.org/atomgraph/linkeddatahub/document-hierarchy#Container> .');
    const many = Array.from({ length: 300 }, (_, i) => `<#t${i}> <http://ex/p> ${i} .`).join('\n');
    const target = await send(agent, 'PUT', `${base}stalls/target/`, turtle, many);
    const idle = await period(() => sleep(context.quick ? 3000 : 8000));
    const deep = (n: number) => '{'.repeat(n) + '}'.repeat(n);
    const cycle = Array.from({ length: 5000 }, (_, i) => `_:n${i} <http://ex/p> _:n${(i + 1) % 5000} .`).join('\n');
    const hostile = await period(async () => {
      const sockets = await Promise.all(
        Array.from({ length: 500 }, () => new Promise<ReturnType<typeof connect>>((resolve) => {
          const socket = connect({ port, host: 'localhost', rejectUnauthorized: false }, () => resolve(socket));
          socket.on('error', () => resolve(socket));
        })),
      );
      await Promise.all([
        send(agent, 'POST', `${base}sparql`, { 'Content-Type': 'application/sparql-query' }, `SELECT * WHERE ${deep(10_000)}`),
        send(agent, 'PATCH', `${base}stalls/target/`, { 'Content-Type': 'application/sparql-update', 'If-Match': target.etag ?? '*' }, `INSERT { <#this> <http://ex/p> 1 } WHERE ${deep(10_000)}`),
        send(agent, 'POST', `${base}sparql`, { 'Content-Type': 'application/x-www-form-urlencoded' }, 'query=' + encodeURIComponent('SELECT * WHERE { ?s ?p ?o } #' + 'x'.repeat(1_000_000))),
        send(agent, 'GET', `${base}stalls/`, { 'X-Junk': 'x'.repeat(100_000) }),
        send(agent, 'PUT', `${base}stalls/chunked/`, turtle, async function* () {
          const chunk = Buffer.alloc(1 << 20, '<#a> <http://ex/p> "aaaaaaaa" .\n');
          for (let i = 0; i < 50; i++) yield chunk;
        }),
        send(agent, 'PUT', `${base}stalls/literal/`, turtle, `<#this> <http://ex/p> "${'a'.repeat(1_900_000)}" .`),
        ...[1, 2, 3].map((k) => send(agent, 'PUT', `${base}stalls/cycle${k}/`, turtle, cycle)),
        send(agent, 'POST', `${base}sparql`, { 'Content-Type': 'application/sparql-query' }, 'SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }'),
      ]);
      for (const socket of sockets) socket.destroy();
    });
    const inputs = await requesterInputs(base, context.quick);
    let work: RequesterWork | undefined;
    const priced = await period(async () => (work = await inputs.run()));
    await inputs.close();
    agent.destroy();
    probe.destroy();
    const rows = (label: keyof Stall, stall: Stall, what: string): Row => ({
      section: 'stalls',
      measure: `main thread's ${label === 'max' ? 'longest' : 'p99'} event-loop delay while ${what} (light GETs as the baseline)`,
      value: ms(stall[label]),
      baseline: ms(idle[label]),
      ratio: ratio(stall[label] / idle[label]),
    });
    const counts = (statuses: readonly number[]) => [...new Set(statuses)].sort().map((status) => `${statuses.filter((s) => s === status).length}× ${status}`).join(', ');
    const requesters = 'signups and WebID verifications run';
    return [
      rows('max', hostile, 'hostile requests run'),
      rows('p99', hostile, 'hostile requests run'),
      rows('max', priced, requesters),
      rows('p99', priced, requesters),
      { section: 'stalls', measure: 'signups in that period (16 loops from 16 addresses): answers', value: counts(work!.signups) },
      { section: 'stalls', measure: 'certificates presented in that period (remote, local and 1,000-URI WebIDs): answers', value: counts(work!.presented) },
      { section: 'stalls', measure: 'WebID documents fetched for the 1,000-URI certificate, presented several times', value: String(work!.manyFetched), baseline: '1,000 URIs', target: goal('≤ 3', work!.manyFetched <= 3) },
    ];
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

export const stallsSection: Section = { name: 'stalls', run };
