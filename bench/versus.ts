/**
 * This tree's server against another build's, side by side in alternating rounds (issue 26's
 * "within noise of before"): `node --import tsx bench/versus.ts <other tree> [rounds] [loads]`, where the
 * other tree is a checkout with its `dist/` built (say `git worktree add --detach ../before <commit>`,
 * then `npx tsc -p tsconfig.build.json` in it, its node_modules linked). Both servers run as
 * `lodestone serve` children over the same data, written the same way: GET of a ~100-triple
 * document as Turtle (beside a bare Koa handler sending the same bytes) and as a page, a selective
 * SPARQL SELECT (wrk, 16 connections, anonymous under a public authorization), conditional PUT
 * and PATCH (16 clients, each on its own document). Each round runs every load on both servers,
 * the order flipped every round; the table gives each round and the medians.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { ns } from '../src/rdf/namespaces.js';
import { freePort } from '../test/http-helpers.js';
import { client, documentTurtle, startChild, stop, writeLoop } from './http.js';
import { formatTable, rate, ratio, type Row } from './table.js';
import { wrk } from './wrk.js';

const SECONDS = 4;
const acl = ns.acl;

interface Side {
  name: string;
  base: string;
  send: ReturnType<typeof client>;
}

/** A server of the tree at `root` on fresh data, with the bench's documents and rules. */
async function serve(root: string, name: string, data: string, children: ChildProcess[]): Promise<Side> {
  const port = await freePort();
  children.push(await startChild([join(root, 'bin/lodestone.js'), 'serve', '--data', data, '--port', String(port), '--no-watch', '--access-log', 'off'], /listening on/));
  const base = `https://localhost:${port}/`;
  const send = client(readFileSync(join(data, 'secrets/owner.pem'), 'utf8'));
  const made = [await send('PUT', `${base}bench/`, { 'Content-Type': 'text/turtle' }, `<> a <${ns.dh}Container> .`)];
  for (let n = 0; n < 18; n++) made.push(await send('PUT', `${base}bench/d${n}/`, { 'Content-Type': 'text/turtle' }, documentTurtle(n)));
  made.push(await send('PUT', `${base}admin/acl/authorizations/bench-public/`, { 'Content-Type': 'text/turtle' }, `<#this> a <${acl}Authorization> ; <${acl}agentClass> <${ns.foaf}Agent> ; <${acl}mode> <${acl}Read> ; <${acl}default> <${base}bench/> ; <${acl}accessTo> <${base}sparql> .`));
  const refused = made.find((reply) => reply.status !== 201);
  if (refused) throw new Error(`${name}: seeding answered ${refused.status} ${refused.body}`);
  return { name, base, send };
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const [otherTree, roundsArg, only] = process.argv.slice(2);
  if (!otherTree) throw new Error('usage: node --import tsx bench/versus.ts <other tree, dist built> [rounds] [loads: a regular expression their names match]');
  const rounds = Number(roundsArg ?? 5);
  const tmp = await mkdtemp(join(tmpdir(), 'lodestone-versus-'));
  const children: ChildProcess[] = [];
  try {
    const sides = [await serve(resolve('.'), 'this tree', join(tmp, 'this'), children), await serve(resolve(otherTree), otherTree, join(tmp, 'other'), children)];
    const turtle = (await sides[0]!.send('GET', `${sides[0]!.base}bench/d1/`, { Accept: 'text/turtle' })).body;
    writeFileSync(join(tmp, 'body.ttl'), turtle);
    const barePort = await freePort();
    children.push(await startChild(['bench/bare-koa-child.ts', String(barePort), join(tmp, 'this', 'secrets/server.pem'), join(tmp, 'body.ttl'), 'text/turtle'], /ready/));
    const query = (side: Side) => `${side.base}sparql?query=${encodeURIComponent(`SELECT ?o WHERE { <${side.base}bench/d7/#this> <https://example.org/vocabulary#p3> ?o }`)}`;
    const loads: Record<string, (side: Side) => Promise<number>> = {
      'GET Turtle, 16 connections': async (side) => (await wrk(`${side.base}bench/d1/`, { connections: 16, seconds: SECONDS, headers: { Accept: 'text/turtle' } })).rps,
      'GET text/html (page), anonymous, 16 connections': async (side) => (await wrk(`${side.base}bench/d1/`, { connections: 16, seconds: SECONDS, headers: { Accept: 'text/html' } })).rps,
      'SPARQL selective SELECT, 16 connections': async (side) => (await wrk(query(side), { connections: 16, seconds: SECONDS })).rps,
      'conditional PUT, 16 clients': (side) => writeLoop(side.send, Array.from({ length: 16 }, (_, n) => `${side.base}bench/d${n + 2}/`), SECONDS, 'PUT'),
      'conditional PATCH, 16 clients': (side) => writeLoop(side.send, Array.from({ length: 16 }, (_, n) => `${side.base}bench/d${n + 2}/`), SECONDS, 'PATCH'),
    };
    for (const name of Object.keys(loads)) if (only && !new RegExp(only, 'i').test(name)) delete loads[name];
    const figures = new Map<string, number[][]>(Object.keys(loads).map((name) => [name, [[], []]]));
    const bare: number[] = [];
    for (const load of Object.values(loads)) for (const side of sides) await load(side); // warm-up
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const [name, load] of Object.entries(loads)) {
        for (const k of order) figures.get(name)![k]!.push(await load(sides[k]!));
        if (name.startsWith('GET Turtle')) bare.push((await wrk(`https://127.0.0.1:${barePort}/`, { connections: 16, seconds: SECONDS, headers: { Accept: 'text/turtle' } })).rps);
      }
      process.stderr.write(`round ${round + 1} of ${rounds} done\n`);
    }
    const rows: Row[] = [];
    for (const [name, [mine, theirs]] of figures) {
      rows.push({ section: 'versus', measure: name, value: rate(median(mine!)), baseline: `${rate(median(theirs!))} (${otherTree})`, ratio: ratio(median(mine!) / median(theirs!)), target: `rounds: ${mine!.map(Math.round).join(' ')} | ${theirs!.map(Math.round).join(' ')}` });
      if (name.startsWith('GET Turtle')) rows.push({ section: 'versus', measure: 'GET Turtle, bare Koa sending the same bytes', value: rate(median(bare)), baseline: 'this tree / bare Koa', ratio: ratio(median(mine!) / median(bare)), target: `rounds: ${bare.map(Math.round).join(' ')}` });
    }
    process.stdout.write(`${formatTable(rows)}\nMedians of ${rounds} alternating rounds of ${SECONDS} s each; ratio: this tree over the other (over bare Koa for its row).\n`);
  } finally {
    for (const child of children) await stop(child);
    await rm(tmp, { recursive: true, force: true });
  }
}

await main();
