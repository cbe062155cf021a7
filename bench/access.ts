/**
 * The access-control section (issue 4): GET throughput of a reader whose Read comes from an
 * authorization against the owner (a shortcut, no decision) and against an anonymous reader of a
 * public document; in process, `Policy.build` from 10,000 generated authorizations and the time per
 * decision, cold and cached; through `lodestone serve`, a reader's GET with 10,000 authorization
 * documents in the admin dataspace against the same GET with the bootstrap's handful. wrk cannot
 * present a client certificate, so the server runs with `--http` and wrk sends RFC 9440 Client-Cert
 * (with the proxy secret, as a trusted proxy does).
 */
import type { ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import type { Quad } from '@rdfjs/types';
import { DataFactory } from 'n3';
import { defaultAccessDocuments } from '../src/access/default-access.js';
import { Policy, type Target } from '../src/access/policy.js';
import { readCredentials, webIdsOf } from '../src/auth/certificates.js';
import { agentIdentity } from '../src/dataspace.js';
import { canonicalNTriples } from '../src/rdf/canonical.js';
import { ns } from '../src/rdf/namespaces.js';
import { parseRdf } from '../src/rdf/ntriples.js';
import { GitStore } from '../src/store/git-store.js';
import { documentFile } from '../src/document-paths.js';
import { freePort } from '../test/http-helpers.js';
import { startChild, stop } from './http.js';
import { count, ms, num, p50p99, percent, quantile, rate, ratio, target, type BenchContext, type Row, type Section } from './table.js';
import { alternate, hasWrk, wrk, type WrkResult } from './wrk.js';

const { namedNode, literal, quad } = DataFactory;
const EX = 'https://example.org/vocabulary#';
const DOCUMENT = 'bench/d1/';
/** Documents per commit when the generated authorizations go into git (see writeGraphs). */
const PER_COMMIT = 100;

// ---- Generated policies: authorizations, groups and a class hierarchy ----

/** A small seeded generator (mulberry32), so every run generates the same policy. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Generated {
  /** Authorization and group documents (graph name = document URL), the bootstrap's among them. */
  graphs: { url: string; quads: Quad[] }[];
  subClassOf: Quad[];
  agents: string[];
  classes: string[];
  containers: number;
}

/** The triples the document service adds to every document it writes (dct:created, acl:owner, ...). */
function metadata(url: string, container: string, title: string, owner: string): Quad[] {
  const doc = namedNode(url);
  const now = literal('2025-01-01T00:00:00.000Z', namedNode(ns.xsd + 'dateTime'));
  return [
    quad(doc, namedNode(ns.rdf + 'type'), namedNode(ns.dh + 'Item')),
    quad(doc, namedNode(ns.dct + 'title'), literal(title)),
    quad(doc, namedNode(ns.dct + 'created'), now),
    quad(doc, namedNode(ns.dct + 'modified'), now),
    quad(doc, namedNode(ns.dct + 'creator'), namedNode(owner)),
    quad(doc, namedNode(ns.acl + 'owner'), namedNode(owner)),
    quad(doc, namedNode(ns.sioc + 'has_container'), namedNode(container)),
    quad(doc, namedNode(ns.foaf + 'primaryTopic'), namedNode(url + '#this')),
  ];
}

/**
 * `n` authorizations in a realistic mix over `n / 5` agents, `n / 50` groups (each agent in one or
 * two), `n / 10` containers of documents and 40 classes in a tree: per agent or per group, on
 * documents, containers (acl:default), classes; a tenth for authenticated agents, a twentieth public.
 * The bootstrap's groups and authorizations come along, so the secretary reads as it does in the server.
 */
function generate(n: number, base: string, admin: string, owner: string, secretary: string): Generated {
  const next = random(4);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const agents = Array.from({ length: Math.max(200, n / 5) }, (_, i) => `${admin}acl/agents/generated-${i}/#this`);
  const groups = Array.from({ length: Math.max(20, n / 50) }, (_, j) => `${admin}acl/groups/generated-${j}/#this`);
  const containers = Math.max(50, n / 10);
  const classes = Array.from({ length: 40 }, (_, c) => `${EX}C${c}`);
  const document = () => `${base}c${Math.floor(next() * containers)}/d${Math.floor(next() * 20)}/`;
  const container = () => `${base}c${Math.floor(next() * containers)}/`;
  const acl = (name: string) => namedNode(ns.acl + name);
  const graphs: Generated['graphs'] = [];

  for (const spec of defaultAccessDocuments({ endUserBase: base, adminBase: admin, ownerWebId: owner, secretaryWebId: secretary })) {
    graphs.push({ url: admin + spec.path, quads: parseRdf(spec.turtle, { format: 'text/turtle', baseIRI: admin + spec.path }) });
  }
  for (const [j, group] of groups.entries()) {
    const url = group.replace(/#this$/, '');
    const subject = namedNode(group);
    const quads = [...metadata(url, `${admin}acl/groups/`, `Group ${j}`, owner), quad(subject, namedNode(ns.rdf + 'type'), namedNode(ns.foaf + 'Group')), quad(subject, namedNode(ns.foaf + 'name'), literal(`Group ${j}`))];
    for (const [i, agent] of agents.entries()) {
      if (i % groups.length === j || (i * 7 + 3) % groups.length === j) quads.push(quad(subject, namedNode(ns.foaf + 'member'), namedNode(agent)));
    }
    graphs.push({ url, quads });
  }
  for (let i = 0; i < n; i++) {
    const url = `${admin}acl/authorizations/generated-${i}/`;
    const subject = namedNode(url + '#this');
    const quads = [...metadata(url, `${admin}acl/authorizations/`, `Authorization ${i}`, owner), quad(subject, namedNode(ns.rdf + 'type'), acl('Authorization')), quad(subject, namedNode(ns.rdfs + 'label'), literal(`Authorization ${i}`))];
    const add = (predicate: string, object: string) => quads.push(quad(subject, acl(predicate), namedNode(object)));
    const modes = (...names: string[]) => names.forEach((mode) => add('mode', ns.acl + mode));
    const writes = next() < 0.3;
    const r = next();
    if (r < 0.35) {
      add('agent', pick(agents));
      for (let k = 1 + Math.floor(next() * 3); k > 0; k--) add('accessTo', document());
      modes('Read', ...(writes ? ['Write'] : []));
    } else if (r < 0.55) {
      add('agentGroup', pick(groups));
      const where = container();
      add('accessTo', where);
      add('default', where);
      modes('Read', ...(writes ? ['Write'] : []));
    } else if (r < 0.7) {
      add('agent', pick(agents));
      add('accessToClass', pick(classes));
      modes('Read');
    } else if (r < 0.8) {
      add('agentGroup', pick(groups));
      add('accessToClass', pick(classes));
      modes('Read', ...(writes ? ['Write'] : []));
    } else if (r < 0.9) {
      add('agentClass', ns.acl + 'AuthenticatedAgent');
      add('accessTo', document());
      modes('Read');
    } else if (r < 0.95) {
      add('agentClass', ns.foaf + 'Agent');
      add('accessTo', document());
      modes('Read');
    } else {
      add('agent', pick(agents));
      add('accessTo', container());
      modes('Append');
    }
    graphs.push({ url, quads });
  }
  const subClassOf = classes.slice(1).map((cls, c) => quad(namedNode(cls), namedNode(ns.rdfs + 'subClassOf'), namedNode(classes[Math.floor(c / 3)]!)));
  return { graphs, subClassOf, agents, classes, containers };
}

/** `size` decisions over distinct documents (so distinct (agent, target) pairs), a tenth of them anonymous. */
function decisions(generated: Generated, base: string, size: number, seed: number): { agent: string | undefined; target: Target }[] {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  return Array.from({ length: size }, (_, t) => ({
    agent: next() < 0.1 ? undefined : pick(generated.agents),
    target: {
      url: `${base}c${t % generated.containers}/d${Math.floor(t / generated.containers)}/`,
      types: next() < 0.3 ? [ns.dh + 'Item', pick(generated.classes)] : [ns.dh + 'Item'],
      owners: [pick(generated.agents)],
    },
  }));
}

/** Microseconds per `policy.modes` call, one sample per decision; and how many granted Read. */
function timeDecisions(policy: Policy, list: readonly { agent: string | undefined; target: Target }[]): { samples: number[]; reads: number } {
  const samples: number[] = [];
  let reads = 0;
  for (const { agent, target } of list) {
    const start = performance.now();
    const modes = policy.modes(agent, target);
    samples.push((performance.now() - start) * 1000);
    if (modes.has('Read')) reads++;
  }
  return { samples, reads };
}

async function inProcess(context: BenchContext, n: number): Promise<Row[]> {
  const base = 'https://localhost:4443/';
  const admin = `${base}admin/`;
  const owner = `${admin}acl/agents/owner/#this`;
  const generated = generate(n, base, admin, owner, `${admin}acl/agents/secretary/#this`);
  const quads = generated.graphs.reduce((sum, g) => sum + g.quads.length, 0);
  // warm-up: a policy from a tenth of the graphs, decided over other documents, so JIT compilation is not timed
  const warm = Policy.build({ adminBase: admin, graphs: generated.graphs.slice(0, n / 10), subClassOf: generated.subClassOf });
  timeDecisions(warm, decisions(generated, `${base}warm-up/`, n / 5, 2));
  const start = performance.now();
  const policy = Policy.build({ adminBase: admin, graphs: generated.graphs, subClassOf: generated.subClassOf });
  const buildMs = performance.now() - start;
  const list = decisions(generated, base, n, 3);
  const cold = timeDecisions(policy, list);
  const cached = timeDecisions(policy, list);
  context.log(`access: ${count(n)} authorizations in process: built in ${ms(buildMs)}`);
  const groups = generated.graphs.filter((g) => g.url.includes('/acl/groups/generated-')).length;
  const bootstrap = generated.graphs.length - n - groups;
  const label = `${count(n)} authorizations, ${groups} groups, ${generated.agents.length} agents, the bootstrap's ${bootstrap} documents (${num(quads)} quads)`;
  return [
    { section: 'access', measure: `Policy.build (once per admin commit): ${label}`, value: ms(buildMs) },
    {
      section: 'access',
      measure: `decision p50 / p99, ${count(n)} distinct (agent, document), first of each (${percent(cold.reads / n)} granted Read)`,
      value: p50p99(cold.samples),
      baseline: `cached (the same again): ${p50p99(cached.samples)}`,
      ratio: ratio(quantile(cold.samples, 0.5) / quantile(cached.samples, 0.5)),
    },
  ];
}

// ---- Through the server ----

interface Reply {
  status: number;
  link: string;
  body: string;
}

/** RFC 9440: `:<base64 of the DER certificate>:`, what a TLS-terminating proxy sends in Client-Cert. */
function clientCertValue(certPem: string): string {
  return `:${new X509Certificate(certPem).raw.toString('base64')}:`;
}

/** Requests to a server at 127.0.0.1:`port` whose base URL names `host` (the proxy's Host header). */
function client(port: number, host: string) {
  const agent = new Agent({ keepAlive: true });
  return (method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method, agent, headers: { Host: host, ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, link: String(res.headers.link ?? ''), body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
}

function documentTurtle(): string {
  let text = `@prefix dct: <${ns.dct}> .\n@prefix ex: <${EX}> .\n`;
  for (let i = 0; i < 96; i++) text += `<#this> ex:p${i % 12} "value ${i} of the document" .\n`;
  return text + `<#this> dct:title "A document" .\n`;
}

function serve(data: string, port: number, base: string): Promise<ChildProcess> {
  return startChild(['bin/lodestone.js', 'serve', '--data', data, '--port', String(port), '--host', '127.0.0.1', '--base', base, '--http', '--trusted-proxy', '127.0.0.1', '--no-watch', '--access-log', 'off'], /listening on/);
}

/** Fails unless the reply is a 200 (and, when given, its Link names `agent` as acl:agent). */
function expectRead(what: string, reply: Reply, agent?: string): void {
  if (reply.status !== 200) throw new Error(`${what}: ${reply.status} ${reply.body.slice(0, 300)}`);
  if (agent !== undefined && !reply.link.includes(`<${agent}>; rel="${ns.acl}agent"`)) throw new Error(`${what}: Link does not name ${agent} as acl:agent: ${reply.link}`);
}

/**
 * The generated authorization and group documents written into the admin repository with the
 * GitStore, as canonical N-Triples, PER_COMMIT documents per commit (as an import would): one
 * commit per document would rewrite the 10,000-entry tree 10,000 times, and the shape of the
 * history changes nothing a GET of the current state does.
 */
async function writeGraphs(dir: string, admin: string, owner: string, graphs: Generated['graphs']): Promise<number> {
  const store = await GitStore.open({ dir });
  const author = agentIdentity(owner);
  const changes = await Promise.all(graphs.map(async (g) => ({ path: documentFile(g.url.slice(admin.length), store.prefix), bytes: Buffer.from(await canonicalNTriples(g.quads)) })));
  let commits = 0;
  for (let i = 0; i < changes.length; i += PER_COMMIT) {
    await store.write({ changes: changes.slice(i, i + PER_COMMIT), author, message: `PUT ${Math.min(PER_COMMIT, changes.length - i)} generated access documents` });
    commits++;
  }
  await store.close();
  return commits;
}

/** Runs each load in alternating rounds (after one warm-up of each) and returns their medians. */
const figures = (r: WrkResult) => `${rate(r.rps)} p50 ${r.p50.toFixed(2)} ms p99 ${r.p99.toFixed(2)} ms`;

async function throughServer(context: BenchContext, n: number): Promise<Row[]> {
  const seconds = context.quick ? 2 : 4;
  const rounds = context.quick ? 2 : 3;
  const dataA = join(context.tmp, 'access-handful');
  const dataB = join(context.tmp, 'access-generated');
  const portA = await freePort();
  const host = `127.0.0.1:${portA}`;
  const base = `http://${host}/`;
  const admin = `${base}admin/`;
  const rows: Row[] = [];
  const children: ChildProcess[] = [];
  try {
    context.log('access: starting lodestone serve --http');
    children.push(await serve(dataA, portA, base));
    const [owner, secretary] = await Promise.all(['owner', 'secretary'].map((name) => readCredentials(join(dataA, `secrets/${name}.pem`))));
    const ownerWebId = webIdsOf(new X509Certificate(owner!.certPem))[0]!;
    const secretaryWebId = webIdsOf(new X509Certificate(secretary!.certPem))[0]!;
    // the proxy secret made on the first start (the second server's data directory is a copy: the same secret)
    const fromProxy = { 'Lodestone-Proxy-Secret': readFileSync(join(dataA, 'secrets', 'proxy-secret'), 'utf8').trim() };
    const asOwner = { ...fromProxy, 'Client-Cert': clientCertValue(owner!.certPem) };
    const asReader = { ...fromProxy, 'Client-Cert': clientCertValue(secretary!.certPem) };
    const sendA = client(portA, host);
    const turtle = { 'Content-Type': 'text/turtle' };
    for (const [path, body] of [['bench/', `<> a <${ns.dh}Container> .`], [DOCUMENT, documentTurtle()], ['admin/acl/authorizations/bench-public/', `<#this> a <${ns.acl}Authorization> ; <${ns.acl}agentClass> <${ns.foaf}Agent> ; <${ns.acl}mode> <${ns.acl}Read> ; <${ns.acl}accessTo> <${base}${DOCUMENT}> .`]] as const) {
      const reply = await sendA('PUT', `/${path}`, { ...turtle, ...asOwner }, body);
      if (reply.status !== 201) throw new Error(`PUT /${path}: ${reply.status} ${reply.body}`);
    }
    const accept = { Accept: 'text/turtle' };
    expectRead('the reader (secretary)', await sendA('GET', `/${DOCUMENT}`, { ...accept, ...asReader }), secretaryWebId);
    expectRead('the owner', await sendA('GET', `/${DOCUMENT}`, { ...accept, ...asOwner }), ownerWebId);
    expectRead('an anonymous reader', await sendA('GET', `/${DOCUMENT}`, accept));
    const body = (await sendA('GET', `/${DOCUMENT}`, accept)).body;

    const pids = new Map<number, number | undefined>([[portA, children[0]!.pid]]);
    const load = (port: number, headers: Record<string, string> = {}) => () => wrk(`http://127.0.0.1:${port}/${DOCUMENT}`, { connections: 16, seconds, headers: { Host: host, ...accept, ...headers }, pid: pids.get(port) });
    context.log('access: GET as the reader, the owner and anonymous');
    const [reader, ownerGet, anonymous] = await alternate(rounds, [load(portA, asReader), load(portA, asOwner), load(portA)]);
    const measure = `GET text/turtle (${body.length} B), 16 connections: reader (secretary, Client-Cert; Read from the writers authorization, decided)`;
    const vsOwner = reader!.rps / ownerGet!.rps;
    const vsAnonymous = reader!.rps / anonymous!.rps;
    rows.push(
      { section: 'access', measure, value: figures(reader!), baseline: `${figures(ownerGet!)} (owner: Client-Cert, shortcut without a decision = access control off)`, ratio: percent(vsOwner), target: target('≥ 90% of access control off (owner)', vsOwner >= 0.9) },
      {
        section: 'access',
        measure: 'server CPU per GET (user + system, /proc): reader (decided) against owner (access control off)',
        value: `${reader!.cpu.toFixed(1)} µs`,
        baseline: `${ownerGet!.cpu.toFixed(1)} µs (owner)`,
        ratio: ratio(reader!.cpu / ownerGet!.cpu),
        target: target('≤ 1.11× (the 90% target, as CPU per request)', reader!.cpu <= ownerGet!.cpu / 0.9),
      },
      { section: 'access', measure: 'the same reader GET against an anonymous GET of it (public by a foaf:Agent Read authorization: decided too, and no Client-Cert to read: not the same request, so no target)', value: figures(reader!), baseline: `${figures(anonymous!)} (anonymous)`, ratio: percent(vsAnonymous) },
    );
    await stop(children.pop()!);

    // The same data with `n` authorizations (and n/50 groups) more, served by a second server at the same base.
    await cp(dataA, dataB, { recursive: true });
    const { graphs } = generate(n, base, admin, ownerWebId, secretaryWebId);
    const generated = graphs.filter((g) => g.url.includes('/generated-'));
    const handful = graphs.filter((g) => g.url.startsWith(`${admin}acl/authorizations/`) && !g.url.includes('/generated-')).length + 1; // and bench-public
    let start = performance.now();
    const commits = await writeGraphs(join(dataB, 'dataspaces', 'admin'), admin, ownerWebId, generated);
    const writeMs = performance.now() - start;
    context.log(`access: ${generated.length} documents written in ${commits} commits in ${ms(writeMs)}`);
    rows.push({ section: 'access', measure: `${num(generated.length)} generated authorization and group documents into the admin repository (GitStore, ${commits} commits)`, value: ms(writeMs) });
    const portB = await freePort();
    children.push(await serve(dataA, portA, base));
    start = performance.now();
    children.push(await serve(dataB, portB, base));
    context.log(`access: second server started with ${count(n)} authorizations in ${ms(performance.now() - start)}`);
    const sendB = client(portB, host);
    const firstGet = async (send: ReturnType<typeof client>) => {
      const started = performance.now();
      expectRead('the reader (secretary)', await send('GET', `/${DOCUMENT}`, { ...accept, ...asReader }), secretaryWebId);
      return performance.now() - started;
    };
    const [firstA, firstB] = [await firstGet(sendA), await firstGet(sendB)];
    rows.push({ section: 'access', measure: `first reader GET after start (verifies the WebID, builds the policy): ${count(n)} authorizations`, value: ms(firstB), baseline: `${ms(firstA)} with the bootstrap's handful`, ratio: ratio(firstB / firstA) });
    context.log(`access: reader GET, ${count(n)} authorizations against the handful`);
    const [many, few] = await alternate(rounds, [load(portB, asReader), load(portA, asReader)]);
    rows.push({ section: 'access', measure: `reader GET, 16 connections: ${count(n)} authorizations in the admin dataspace`, value: figures(many!), baseline: `${figures(few!)} (${handful}: the bootstrap's and the public one)`, ratio: percent(many!.rps / few!.rps) });
  } finally {
    for (const child of children) await stop(child);
  }
  return rows;
}

async function run(context: BenchContext): Promise<Row[]> {
  const n = context.quick ? 2_000 : 10_000;
  const rows = await inProcess(context, n);
  if (!(await hasWrk())) return [...rows, { section: 'access', measure: 'GET throughput skipped: wrk is not installed (apt-get install wrk)', value: '' }];
  return [...rows, ...(await throughServer(context, n))];
}

export const accessSection: Section = { name: 'access', run };
