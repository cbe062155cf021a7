/**
 * Work priced by the requester (issue 25, items 4 and 5) over real HTTPS, tried as an attacker with
 * addresses of its own (127.0.0.x) while another client's GETs run: signups are made off the thread
 * that answers requests (16 at once: no GET waits a second); an agent's own profile is capped; quotas
 * on signups, access requests and admin writes answer 429 with Retry-After and the RDF error body and
 * commit nothing, and never limit the owner.
 */
import assert from 'node:assert/strict';
import { Agent, request, type RequestOptions } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { ns } from '../src/rdf/namespaces.js';
import { commitCount, git, removeTempDirs } from './helpers.js';
import { assertRdfError, header, startServer, turtle, type Response, type TestServer } from './http-helpers.js';

/** The bound of the issue: no GET of another client waits this long while the hostile work runs. */
const GET_BOUND_MS = 1000;
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const PROBE = 'bounds-probe/';

let s: TestServer;
let adminRepo: string;

before(async () => {
  s = await startServer();
  adminRepo = s.running.runtimes[1]!.dataspace.store.dir;
  assert.equal((await s.request('PUT', PROBE, { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "Probe" .' })).status, 201);
});
after(async () => {
  await s?.close();
  removeTempDirs();
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const head = () => git(adminRepo, 'rev-parse', 'HEAD').trim();

interface Sent extends Response {
  raw: Buffer;
}

/** One request on a connection of its own, from `localAddress`, with the client certificate `tls` gives (none: anonymous). */
function send(method: string, path: string, options: { from: string; headers?: Record<string, string>; body?: string; tls?: RequestOptions; agent?: Agent }): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, s.base), { method, headers: options.headers, localAddress: options.from, rejectUnauthorized: false, agent: options.agent ?? false, ...options.tls }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: raw.toString('utf8'), raw });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

let signups = 0;
/** A signup from `from`; its PKCS#12 file opens with `password`. */
function signUp(from: string): Promise<Sent> {
  signups++;
  return send('POST', '/admin/sign%20up', { from, headers: FORM, body: `name=Stranger+${signups}&email=stranger${signups}%40example.org&password=${PASSWORD}` });
}
const PASSWORD = 'stranger+password';

/** A signed-up agent: its WebID, and its certificate on keep-alive connections from `from`. */
async function stranger(from: string): Promise<{ webId: string; profile: string; agent: Agent; tls: RequestOptions }> {
  const res = await signUp(from);
  assert.equal(res.status, 201, res.body);
  const profile = String(header(res, 'location'));
  const tls = { pfx: res.raw, passphrase: 'stranger password' };
  return { webId: `${profile}#this`, profile, agent: new Agent({ keepAlive: true, rejectUnauthorized: false, localAddress: from, ...tls }), tls };
}

/** GETs of the probe as the owner, one after another on one keep-alive connection, until stopped: the longest any waited. */
function getLoop(): { running: Promise<void>; stop(): Promise<number> } {
  const agent = new Agent({ keepAlive: true, rejectUnauthorized: false, cert: s.ownerPem, key: s.ownerPem });
  let stopped = false;
  let longest = 0;
  let first!: () => void;
  const running = new Promise<void>((resolve) => (first = resolve));
  const loop = (async () => {
    while (!stopped) {
      const t = Date.now();
      const res = await send('GET', PROBE, { from: '127.0.0.1', agent, headers: { Accept: 'text/turtle' } });
      assert.equal(res.status, 200, res.body);
      longest = Math.max(longest, Date.now() - t);
      first();
      await sleep(20);
    }
  })();
  return {
    running: running.then(() => sleep(200)).then(() => void (longest = 0)), // the first GETs open the connection
    async stop() {
      stopped = true;
      await loop;
      agent.destroy();
      return longest;
    },
  };
}

/** Runs `hostile` while the GET loop runs; asserts no GET waited GET_BOUND_MS. */
async function whileGetting<T>(what: string, hostile: () => Promise<T>): Promise<T> {
  const loop = getLoop();
  await loop.running;
  const t = Date.now();
  let result: T;
  try {
    result = await hostile();
  } finally {
    const longest = await loop.stop();
    console.log(`# ${what}: ${Date.now() - t} ms; longest GET meanwhile ${longest} ms`);
    assert.ok(longest < GET_BOUND_MS, `a GET waited ${longest} ms while ${what}`);
  }
  return result;
}

describe('signups', () => {
  it('16 at once from 16 addresses hold no GET of another client a second; each is a 201 with its two commits, or a 503 with Retry-After', { timeout: 120_000 }, async () => {
    const before = commitCount(adminRepo);
    const answers = await whileGetting('16 signups at once', () => Promise.all(Array.from({ length: 16 }, (_, i) => signUp(`127.0.0.${10 + i}`))));
    const created = answers.filter((res) => res.status === 201);
    console.log(`# 16 signups: ${answers.map((res) => res.status).join(' ')}`);
    assert.ok(created.length >= 1, 'signups were made');
    for (const res of answers.filter((r) => r.status !== 201)) {
      assertRdfError(res, 503);
      assert.ok(Number(header(res, 'retry-after')) > 0, 'a refusal says when to come back');
    }
    assert.equal(commitCount(adminRepo), before + 2 * created.length, 'two commits per signup made, none for a refused one');
  });

  it('the sixth from one address in ten minutes is a 429 with Retry-After and the RDF body, and commits nothing; another address signs up', { timeout: 60_000 }, async () => {
    for (let i = 0; i < 5; i++) assert.equal((await signUp('127.0.0.40')).status, 201);
    const at = head();
    const refused = await signUp('127.0.0.40');
    assertRdfError(refused, 429, { title: /too many signups from this address: 5 are allowed per 10 minutes/ });
    assert.ok(Number(header(refused, 'retry-after')) >= 60, `Retry-After: ${header(refused, 'retry-after')}`);
    assert.equal(head(), at, 'nothing was committed');
    assert.equal((await signUp('127.0.0.41')).status, 201);
  });
});

describe('quotas on what an agent files in the admin dataspace', () => {
  const asking = (from: string, agent: Agent | undefined, tls: RequestOptions | undefined) =>
    send('POST', '/admin/access/request', { from, agent, tls, headers: FORM, body: `this=${encodeURIComponent(`${s.base}${PROBE}`)}&mode=Read` });

  it('the 21st access request of an agent in an hour is a 429 that commits nothing; the owner is not limited', { timeout: 60_000 }, async () => {
    const me = await stranger('127.0.0.50');
    for (let i = 0; i < 20; i++) assert.equal((await asking('127.0.0.50', me.agent, undefined)).status, 201);
    const at = head();
    const refused = await asking('127.0.0.50', me.agent, undefined);
    assertRdfError(refused, 429, { title: /too many access requests from this agent/ });
    assert.ok(Number(header(refused, 'retry-after')) > 0);
    assert.equal(head(), at, 'nothing was committed');
    me.agent.destroy();
    const owner = { cert: s.ownerPem, key: s.ownerPem };
    for (let i = 0; i < 21; i++) assert.equal((await asking('127.0.0.50', undefined, owner)).status, 201, 'the owner files on');
  });

  it('an agent’s 31st write of its own profile in ten minutes is a 429 that commits nothing; the owner writes on', { timeout: 60_000 }, async () => {
    const me = await stranger('127.0.0.51');
    const patch = (i: number, etag: string, as: { agent?: Agent; tls?: RequestOptions }) =>
      send('PATCH', me.profile, { from: '127.0.0.51', ...as, headers: { 'Content-Type': 'application/sparql-update', 'If-Match': etag }, body: `DELETE { <#this> <${ns.dct}description> ?d } INSERT { <#this> <${ns.dct}description> "version ${i}" } WHERE { OPTIONAL { <#this> <${ns.dct}description> ?d } }` });
    let etag = String(header(await send('HEAD', me.profile, { from: '127.0.0.51', agent: me.agent, headers: { Accept: 'text/turtle' } }), 'etag'));
    for (let i = 0; i < 30; i++) {
      const res = await patch(i, etag, { agent: me.agent });
      assert.equal(res.status, 204, res.body);
      etag = String(header(res, 'etag'));
    }
    const at = head();
    const refused = await patch(30, etag, { agent: me.agent });
    assertRdfError(refused, 429, { title: /too many writes into the admin dataspace by this agent/ });
    assert.ok(Number(header(refused, 'retry-after')) > 0);
    assert.equal(head(), at, 'nothing was committed');
    me.agent.destroy();
    assert.equal((await patch(31, etag, { tls: { cert: s.ownerPem, key: s.ownerPem } })).status, 204, 'the owner is not limited');
  });

  it('an agent’s own profile holds 64 KiB at most: a larger PUT or PATCH is a 413 that commits nothing', { timeout: 60_000 }, async () => {
    const me = await stranger('127.0.0.52');
    const current = await send('GET', me.profile, { from: '127.0.0.52', agent: me.agent, headers: { Accept: 'application/n-triples' } });
    const big = `${current.body}\n<${me.webId}> <${ns.dct}description> "${'x'.repeat(70_000)}" .\n`;
    const at = head();
    assertRdfError(await send('PUT', me.profile, { from: '127.0.0.52', agent: me.agent, headers: { 'Content-Type': 'application/n-triples', Accept: 'application/n-triples', 'If-Match': String(header(current, 'etag')) }, body: big }), 413, { format: 'application/n-triples', title: /holds at most 65536 bytes/ });
    // within the body's bound, but the document would grow past it
    const etag = String(header(await send('HEAD', me.profile, { from: '127.0.0.52', agent: me.agent, headers: { Accept: 'text/turtle' } }), 'etag'));
    const grow = `INSERT { <#this> <${ns.dct}description> ?v } WHERE { VALUES ?v { ${Array.from({ length: 2000 }, (_, i) => `"${i}${'y'.repeat(20)}"`).join(' ')} } }`;
    assertRdfError(await send('PATCH', me.profile, { from: '127.0.0.52', agent: me.agent, headers: { 'Content-Type': 'application/sparql-update', 'If-Match': etag }, body: grow }), 413);
    assert.equal(head(), at, 'nothing was committed');
    me.agent.destroy();
  });
});
