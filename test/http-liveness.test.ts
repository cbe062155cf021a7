/**
 * Liveness under hostile input over real HTTPS (issue 17, "Trust": no request can stall the
 * server). Each hostile request runs while two loops of GETs of a small document, as the owner, on
 * connections of their own (one keep-alive agent, one agent making a fresh TLS handshake per GET)
 * keep getting answers: no GET waits past a generous bound (a liveness check, not a benchmark),
 * GETs are answered while a slow hostile request is under way, the hostile request gets its 4xx /
 * 503 RDF error (SPEC §2.4, §7), and the end-user repository does not move; ordinary writes are
 * acknowledged meanwhile, whatever pool the hostile work runs in. Then: alike blank nodes of
 * ordinary data (cycles, cliques) are stored with stable canonical labels.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Agent } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import type { Quad } from '@rdfjs/types';
import oxigraph from 'oxigraph';
import { commitCount, fileAtHead, git, removeTempDirs, unchangedRepository, waitFor } from './helpers.js';
import { assertRdfError, sendRequest, startServer, turtle, rawRequest, type Response, type TestServer } from './http-helpers.js';
import type { Index } from '../src/index/index.js';

const MiB = 1024 * 1024;
const SPARQL_TIMEOUT_MS = 2500;
/**
 * The deadlines of the pools the hostile requests run into, shorter than the production ones
 * (src/threads.ts: 10 s, and 5 s for deep labelling) so they run into them sooner; each stays above
 * HELD_MS, so every hostile request that runs into one still has the ordinary work beside it checked.
 */
const WORK_DEADLINE_MS = 5000;
const LABELLING_DEADLINE_MS = 4000;
/**
 * Only a stall reaches this: no answer on a loaded machine takes half a minute. Whether work was held
 * up is judged against the hostile request instead (answered before it was), not against a clock.
 */
const HANG_MS = 30_000;
/** Ordinary work sent beside a hostile request that is answered after this long must be answered before it. */
const HELD_MS = 2500;
/** A hostile request that takes at least this long must have GETs answered while it ran. */
const SLOW_MS = 1000;
const PAUSE_MS = 20;
const PROBE = 'liveness-probe/';
const FOAF = 'http://xmlns.com/foaf/0.1/';
const EX = 'http://example.org/ns#';

let s: TestServer;
let dir: string;

before(async () => {
  // not the writes pool's: a 5,000-node cycle's body is parsed there (seconds on a loaded machine) before it reaches deep labelling
  const poolDeadlinesMs = { updates: WORK_DEADLINE_MS, queryShapes: WORK_DEADLINE_MS, labelling: LABELLING_DEADLINE_MS };
  s = await startServer(['--sparql-timeout', String(SPARQL_TIMEOUT_MS), '--query-lanes', '2'], undefined, undefined, { poolDeadlinesMs }, { tls: true }); // slow clients on real connections
  dir = s.running.runtimes[0]!.dataspace.store.dir;
  const res = await s.request('PUT', PROBE, { headers: turtle, body: `<#this> <http://purl.org/dc/terms/title> "Probe" .` });
  assert.equal(res.status, 201, res.body);
});
after(async () => {
  await s?.close();
  removeTempDirs();
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Whether `promise` has settled by now. */
const settled = (promise: Promise<unknown>) => Promise.race([promise.then(() => true, () => true), sleep(0).then(() => false)]);
const owner = () => ({ cert: s.ownerPem, key: s.ownerPem, rejectUnauthorized: false });

interface Loop {
  /** When each GET was answered. */
  answers: number[];
  failures: string[];
  /** Stops the loop and gives the longest any GET waited, counting one still under way. */
  stop(): Promise<number>;
}

/** GETs of the probe document as the owner, one after another, on `agent`'s connections until stopped. */
function getLoop(agent: Agent): Loop {
  const answers: number[] = [];
  const failures: string[] = [];
  let stopped = false;
  let longest = 0;
  let since = 0; // when the GET under way was sent; 0 between GETs
  const running = (async () => {
    while (!stopped) {
      since = Date.now();
      try {
        const res = await sendRequest(new URL(PROBE, s.base), { agent, ...owner(), headers: { Accept: 'text/turtle' } });
        if (res.status !== 200) failures.push(`${res.status}: ${res.body.slice(0, 200)}`);
      } catch (error) {
        if (!stopped) failures.push(String(error));
      }
      const now = Date.now();
      longest = Math.max(longest, now - since);
      since = 0;
      answers.push(now);
      await sleep(PAUSE_MS);
    }
  })();
  return {
    answers,
    failures,
    async stop() {
      stopped = true;
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([running, new Promise((resolve) => (bound = setTimeout(resolve, HANG_MS)))]);
      clearTimeout(bound); // a timer left running would keep the file's process alive for HANG_MS after its last test
      const waited = Math.max(longest, since ? Date.now() - since : 0);
      agent.destroy(); // ends a GET still under way
      return waited;
    },
  };
}

interface Flow {
  /** How long the hostile request took. */
  ms: number;
  /** GETs answered while it ran. */
  during: number;
  /** The longest any GET waited, from before the hostile request until GETs flowed again after it. */
  longestMs: number;
}

/**
 * Runs `hostile` while two loops of GETs (a keep-alive agent, and an agent that makes a fresh TLS
 * handshake for every GET) keep asking for the probe document, and asserts that they kept getting
 * answers: every GET answered 200, none waited past HANG_MS, and at least three were
 * answered while `hostile` ran if it took over SLOW_MS (a quicker refusal leaves no time to count).
 */
async function whileHostile<T>(hostile: () => Promise<T>): Promise<{ result: T; flow: Flow }> {
  const loops = [
    getLoop(new Agent({ keepAlive: true, ...owner() })),
    getLoop(new Agent({ keepAlive: false, maxCachedSessions: 0, ...owner() })),
  ];
  let started = 0;
  let ended = 0;
  let result: T;
  let longestMs = 0;
  try {
    await waitFor(() => loops.every((loop) => loop.answers.length > 0), 2 * HANG_MS);
    started = Date.now();
    result = await hostile();
    ended = Date.now();
    const counts = loops.map((loop) => loop.answers.length);
    await waitFor(() => loops.every((loop, i) => loop.answers.length >= counts[i]! + 2), 2 * HANG_MS);
  } finally {
    longestMs = Math.max(...(await Promise.all(loops.map((loop) => loop.stop()))));
  }
  const failures = loops.flatMap((loop) => loop.failures);
  assert.deepEqual(failures, [], 'every GET of the probe was answered 200');
  assert.ok(longestMs < HANG_MS, `a GET waited ${longestMs} ms`);
  const during = loops.reduce((n, loop) => n + loop.answers.filter((at) => at >= started && at <= ended).length, 0);
  const ms = ended - started;
  if (ms >= SLOW_MS) assert.ok(during >= 3, `only ${during} GETs answered during ${ms} ms of hostile request`);
  return { result, flow: { ms, during, longestMs } };
}

function report(what: string, status: number | string, flow: Flow): void {
  console.log(`# ${what}: ${status} after ${flow.ms} ms; ${flow.during} GETs answered meanwhile, longest wait ${flow.longestMs} ms`);
}

/** Runs `attempt` and checks that the end-user repository did not move. */
const nothingChanges = <T>(attempt: () => Promise<T>): Promise<T> => unchangedRepository(dir, attempt);

/** One request as the owner on a connection of its own. */
function hostileRequest(method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<Response> {
  return sendRequest(new URL(path, s.base), { method, headers, agent: false, ...owner() }, body);
}

const raw = (method: string, path: string, headers: Record<string, string>, send: Parameters<typeof rawRequest>[4]) => rawRequest(s, method, path, headers, send);

/** A small PUT of a new document as the owner, timed; asserts 201. */
async function smallPut(url: string): Promise<number> {
  const t = Date.now();
  const res = await s.request('PUT', url, { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "small" .' });
  assert.equal(res.status, 201, `${url}: ${res.body}`);
  return Date.now() - t;
}

let smallPuts = 0;

/**
 * Sends the `hostile` requests and, once they are under way, a small PUT of a new document in the
 * end-user and in the admin dataspace; asserts that both are acknowledged before the hostile
 * requests are answered (when those take over HELD_MS) and that the end-user PUT is
 * the only commit made meanwhile.
 */
async function smallPutsDuring(what: string, hostile: () => Promise<Response[]>): Promise<Response[]> {
  const count = commitCount(dir);
  const t = Date.now();
  let hostileAt = 0;
  const pending = hostile();
  void pending.then(() => (hostileAt = Date.now()), () => undefined);
  await sleep(300); // the bodies are on their way
  smallPuts++;
  const puts = await Promise.all([smallPut(`small-${smallPuts}/`), smallPut(`${s.admin}small-${smallPuts}/`)]);
  const acknowledged = Date.now();
  const answers = await pending;
  console.log(`# ${what}: answered ${answers.map((res) => res.status).join(', ')} after ${hostileAt - t} ms; small PUTs meanwhile: end-user ${puts[0]} ms, admin ${puts[1]} ms`);
  for (const ms of puts) assert.ok(ms < HANG_MS, `a small PUT took ${ms} ms`);
  if (hostileAt - t > HELD_MS) assert.ok(acknowledged < hostileAt, 'the small PUTs were acknowledged before the hostile requests were answered');
  assert.equal(commitCount(dir), count + 1, 'the small PUT is the only commit in the end-user repository');
  return answers;
}

/** The same group nested `depth` levels deep. */
const deepGroup = (depth: number) => '{'.repeat(depth) + '}'.repeat(depth);

const knows = (a: string, b: string) => `_:${a} <${FOAF}knows> _:${b} .`;

/** Every ordered pair of `n` distinct blank nodes linked by foaf:knows, one triple a line. */
const clique = (n: number, label: string) =>
  Array.from({ length: n }, (_, i) => Array.from({ length: n }, (__, j) => (i === j ? [] : [knows(`${label}${i}`, `${label}${j}`)])).flat()).flat();

/** One cycle of `n` alike blank nodes. */
const cycle = (n: number, label = 'n') => Array.from({ length: n }, (_, i) => `_:${label}${i} <${EX}p> _:${label}${(i + 1) % n} .`).join('\n');

describe('hostile input while GETs keep flowing', () => {
  it('a 10,000-deep SPARQL group is a 400', { timeout: 60_000 }, async () => {
    const { result, flow } = await whileHostile(() =>
      nothingChanges(() => hostileRequest('POST', 'sparql', { 'Content-Type': 'application/sparql-query' }, `SELECT * WHERE ${deepGroup(10_000)}`)),
    );
    assertRdfError(result, 400, { title: /nests groups more than \d+ deep/ });
    report('10,000-deep SPARQL group', result.status, flow);
  });

  it('a 10,000-deep PATCH is a 422', { timeout: 60_000 }, async () => {
    const created = await s.request('PUT', 'deep-patch/', { headers: turtle, body: `<#this> <${EX}p> "before" .` });
    assert.equal(created.status, 201, created.body);
    const file = fileAtHead(dir, 'deep-patch/');
    const update = `DELETE { } INSERT { <#this> <p> "x" } WHERE ${deepGroup(10_000)}`;
    const { result, flow } = await whileHostile(() =>
      nothingChanges(() => hostileRequest('PATCH', 'deep-patch/', { 'Content-Type': 'application/sparql-update', 'If-Match': String(created.headers.etag) }, update)),
    );
    assertRdfError(result, 422, { title: /nests groups more than \d+ deep/ });
    assert.equal(fileAtHead(dir, 'deep-patch/'), file);
    report('10,000-deep PATCH', result.status, flow);
  });

  it('a 1 MB query string is a 431 (the request line is past the parser’s header limit); a 1 MB form query is answered', { timeout: 60_000 }, async () => {
    // Node's parser holds the request line and the header fields to 16 KiB together: 1 MB in the
    // query string is refused before any handler sees it, by the clientError listener (src/http/client-error.ts)
    const query = 'SELECT * WHERE { ?s ?p ?o } #' + 'x'.repeat(MiB);
    const { result, flow } = await whileHostile(() =>
      nothingChanges(() => raw('GET', `/sparql?query=${encodeURIComponent(query)}`, { Accept: 'application/sparql-results+json' }, (req) => void req.end())),
    );
    assertRdfError(result, 431, { title: /header fields are too large/ });
    report('1 MB query string', result.status, flow);

    // the same query as a form body is within the body limit: a comment is no work, the query is answered
    const form = await whileHostile(() =>
      nothingChanges(() => hostileRequest('POST', 'sparql', { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/sparql-results+json' }, `query=${encodeURIComponent(query)}`)),
    );
    assert.equal(form.result.status, 200, form.result.body.slice(0, 500));
    assert.ok((JSON.parse(form.result.body) as { results: { bindings: unknown[] } }).results.bindings.length > 0);
    report('1 MB query as a form', form.result.status, form.flow);
  });

  it('a 100 KB header is a 431', { timeout: 60_000 }, async () => {
    const { result, flow } = await whileHostile(() => nothingChanges(() => hostileRequest('GET', PROBE, { 'X-Junk': 'j'.repeat(100 * 1024) })));
    assertRdfError(result, 431, { title: /header fields are too large/ });
    report('100 KB header', result.status, flow);
  });

  it('500 idle TLS connections hold up no GET', { timeout: 120_000 }, async () => {
    const sockets: TLSSocket[] = [];
    const open = () =>
      new Promise<TLSSocket>((resolve, reject) => {
        const socket = connect({ host: 'localhost', port: s.port, rejectUnauthorized: false }, () => resolve(socket));
        socket.once('error', reject);
        sockets.push(socket);
      });
    const { result, flow } = await whileHostile(() =>
      nothingChanges(async () => {
        try {
          for (let batch = 0; batch < 10; batch++) await Promise.all(Array.from({ length: 50 }, open));
          await sleep(3000); // idle: no request is ever sent on them
          return sockets.filter((socket) => !socket.destroyed).length;
        } finally {
          for (const socket of sockets) socket.destroy();
        }
      }),
    );
    assert.equal(result, 500, 'all 500 connections were open and still idle');
    report('500 idle TLS connections', `${result} open`, flow);
  });

  it('a 50 MB chunked body is a 413 long before it is all sent', { timeout: 120_000 }, async () => {
    const line = Buffer.from(`<#this> <${EX}p> "${'x'.repeat(200)}" .\n`);
    const chunk = Buffer.concat(Array.from({ length: Math.ceil((64 * 1024) / line.length) }, () => line));
    let sent = 0;
    const { result, flow } = await whileHostile(() =>
      nothingChanges(() =>
        raw('PUT', '/too-big-chunked/', { 'Content-Type': 'text/turtle', 'Transfer-Encoding': 'chunked' }, async (req, answered) => {
          while (sent < 50 * MiB && !answered() && !req.destroyed) {
            await new Promise<void>((resolve) => req.write(chunk, () => resolve()));
            sent += chunk.length;
          }
          if (!answered() && !req.destroyed) req.end();
        }),
      ),
    );
    assertRdfError(result, 413);
    assert.ok(sent < 50 * MiB, `the answer came after ${sent} bytes of 50 MiB`);
    assertRdfError(await s.request('GET', 'too-big-chunked/'), 404);
    report(`50 MB chunked body (${(sent / MiB).toFixed(1)} MiB sent before the answer)`, result.status, flow);
  });

  it('a Turtle literal of 1.9 MB is stored (within the body limit) and reads back intact', { timeout: 120_000 }, async () => {
    const length = 1_900_000;
    const body = `<#this> <${EX}p> "${'a'.repeat(length)}" .`;
    assert.ok(Buffer.byteLength(body) < 2 * MiB);
    const { result, flow } = await whileHostile(() => hostileRequest('PUT', 'big-literal/', turtle, body));
    assert.equal(result.status, 201, result.body);
    report('1.9 MB Turtle literal', result.status, flow);
    const back = await s.request('GET', 'big-literal/', { headers: { Accept: 'application/n-triples' } });
    assert.equal(back.status, 200);
    assert.equal(/"(a*)"/.exec(back.body)?.[1]?.length, length);
    const file = execFileSync('git', ['show', 'HEAD:graphs/big-literal.nt'], { cwd: dir, encoding: 'utf8', maxBuffer: 4 * MiB }); // over git()'s 1 MiB buffer
    assert.equal(/"(a*)"/.exec(file)?.[1]?.length, length, 'the file in git holds the whole literal');
  });

  describe('a 5,000-blank-node cycle', () => {
    const TOO_ALIKE = /too alike.*give these blank nodes IRIs/;
    const body = cycle(5000);

    it('is a 422 that says what to do; small PUTs in each dataspace are acknowledged meanwhile', { timeout: 120_000 }, async () => {
      const { result, flow } = await whileHostile(() =>
        smallPutsDuring('5,000-node cycle', () => Promise.all([hostileRequest('PUT', 'cycle-5000/', turtle, body)])),
      );
      assertRdfError(result[0]!, 422, { title: TOO_ALIKE });
      assert.equal(fileAtHead(dir, 'cycle-5000/'), undefined);
      report('5,000-node cycle', result[0]!.status, flow);
    });

    it('three in parallel are 422s; small PUTs in each dataspace are acknowledged meanwhile', { timeout: 180_000 }, async () => {
      const { result, flow } = await whileHostile(() =>
        smallPutsDuring('three 5,000-node cycles', () => Promise.all([1, 2, 3].map((i) => hostileRequest('PUT', `cycle-5000-${i}/`, turtle, body)))),
      );
      for (const res of result) assertRdfError(res, 422, { title: TOO_ALIKE });
      for (const i of [1, 2, 3]) assert.equal(fileAtHead(dir, `cycle-5000-${i}/`), undefined);
      report('three 5,000-node cycles', result.map((r) => r.status).join(', '), flow);
    });

    it('three in parallel hold up no write that needs deep labelling: a K8 is acknowledged promptly meanwhile', {
      timeout: 180_000,
    }, async () => {
      const { result, flow } = await whileHostile(async () => {
        const pending = Promise.all([1, 2, 3].map((i) => hostileRequest('PUT', `cycle-5000-k8-${i}/`, turtle, body)));
        await sleep(300); // the bodies are on their way
        const t = Date.now();
        const k8 = await s.request('PUT', 'knows-k8-during-cycles/', { headers: turtle, body: clique(8, 'k').join('\n') });
        const ms = Date.now() - t;
        const before = !(await settled(pending));
        for (const res of await pending) assertRdfError(res, 422, { title: TOO_ALIKE });
        return { k8, ms, before };
      });
      report(`three 5,000-node cycles (a K8 PUT meanwhile: ${result.k8.status} in ${result.ms} ms)`, '422, 422, 422', flow);
      assert.equal(result.k8.status, 201, result.k8.body);
      assert.ok(result.ms < HANG_MS, `the K8 PUT took ${result.ms} ms`);
      if (flow.ms > HELD_MS) assert.ok(result.before, 'the K8 was acknowledged before the cycles were answered');
    });
  });

  it('a runaway query is stopped with a 503; ASK {} on the same dataspace is answered while it runs', { timeout: 120_000 }, async () => {
    const triples = Array.from({ length: 300 }, (_, i) => `<#t${i}> <${EX}n> ${i} .`).join('\n');
    assert.equal((await s.request('PUT', 'three-hundred/', { headers: turtle, body: triples })).status, 201);
    const index = s.running.runtimes[0]!.dataspace.index as Index;
    const sparql = (query: string, as: 'owner' | 'secretary') =>
      s.request('GET', `sparql?${new URLSearchParams({ query })}`, { as, headers: { Accept: 'application/sparql-results+json' } });
    const asks: number[] = [];
    const { result, flow } = await whileHostile(() =>
      nothingChanges(async () => {
        let answered = false;
        const runaway = hostileRequest('GET', `sparql?${new URLSearchParams({ query: 'SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }' })}`, { Accept: 'application/sparql-results+json' }).finally(() => (answered = true));
        await waitFor(() => index.status.onLanes > 0 || answered, HANG_MS);
        // another agent (the runaway's own agent is answered too: test/http-query-lanes.test.ts)
        for (let i = 0; !answered; i++) {
          const t = Date.now();
          const ask = await sparql(`ASK {} # ${i}`, 'secretary'); // a comment makes each one new to the result cache
          asks.push(Date.now() - t);
          assert.equal(ask.status, 200, ask.body);
          assert.equal((JSON.parse(ask.body) as { boolean: boolean }).boolean, true);
          await sleep(100);
        }
        return runaway;
      }),
    );
    assertRdfError(result, 503);
    assert.ok(flow.ms >= SPARQL_TIMEOUT_MS - 500, `the query ran for ${flow.ms} ms, until its limit`);
    assert.ok(asks.length >= 3, `${asks.length} ASKs answered while the runaway ran`);
    for (const ms of asks) assert.ok(ms < HANG_MS, `an ASK took ${ms} ms`);
    report(`runaway query (${asks.length} ASKs answered meanwhile, longest ${Math.max(...asks)} ms)`, result.status, flow);
  });

  it('two 1 MB queries of many 99-deep groups (seconds of parsing each) hold up no write and no ordinary query', {
    timeout: 120_000,
  }, async () => {
    // within the nesting bound and the body limit, but the parser's work grows with each group:
    // ~8 s for 400 KB here, so a 1 MB query runs into the worker's deadline (WORK_DEADLINE_MS here, 10 s in production)
    const query = 'SELECT * WHERE { ' + deepGroup(99).repeat(5000) + ' }';
    assert.ok(Buffer.byteLength(query) < 2 * MiB);
    const { result, flow } = await whileHostile(() =>
      smallPutsDuring('two 1 MB queries of 99-deep groups', async () => {
        const hostile = Promise.all([1, 2].map((i) => hostileRequest('POST', 'sparql', { 'Content-Type': 'application/sparql-query' }, `${query} # ${i}`)));
        await sleep(300);
        // an ordinary query of another agent is parsed and answered meanwhile
        const ask = await s.request('POST', 'sparql', { as: 'secretary', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' }, body: 'ASK { ?s ?p ?o } # during the 1 MB queries' });
        assert.equal(ask.status, 200, ask.body);
        assert.ok(!(await settled(hostile)), 'the ordinary query was answered before the 1 MB queries were');
        return hostile;
      }),
    );
    for (const res of result) assertRdfError(res, 422, { title: new RegExp(`more than ${WORK_DEADLINE_MS / 1000} s of work`) });
    report('two 1 MB queries of 99-deep groups', result.map((r) => r.status).join(', '), flow);
  });

  it('two PATCHes whose WHERE is a runaway cross product hold up no write and no ordinary PATCH', {
    timeout: 120_000,
  }, async () => {
    const etags: string[] = [];
    for (const i of [1, 2]) {
      const created = await s.request('PUT', `runaway-patch-${i}/`, { headers: turtle, body: Array.from({ length: 300 }, (_, n) => `<#t${n}> <${EX}n> ${n} .`).join('\n') });
      assert.equal(created.status, 201, created.body);
      etags.push(String(created.headers.etag));
    }
    const made = await s.request('PUT', `${s.admin}ordinary-patch/`, { headers: turtle, body: `<#this> <${EX}n> 1 .` });
    assert.equal(made.status, 201, made.body);
    const ordinary = String(made.headers.etag);
    const update = `INSERT { <#this> <${EX}n> 1 } WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }`;
    const { result, flow } = await whileHostile(() =>
      smallPutsDuring('two runaway PATCHes', async () => {
        const hostile = Promise.all([1, 2].map((i) => hostileRequest('PATCH', `runaway-patch-${i}/`, { 'Content-Type': 'application/sparql-update', 'If-Match': etags[i - 1]! }, update)));
        await sleep(300);
        // an ordinary PATCH (in the admin dataspace, so the end-user commit count stays the small PUT's) goes through meanwhile
        const patched = await s.request('PATCH', `${s.admin}ordinary-patch/`, { headers: { 'Content-Type': 'application/sparql-update', 'If-Match': ordinary }, body: `INSERT { <#this> <${EX}n> 2 } WHERE {}` });
        assert.equal(patched.status, 204, patched.body);
        assert.ok(!(await settled(hostile)), 'the ordinary PATCH was acknowledged before the runaway PATCHes were answered');
        return hostile;
      }),
    );
    for (const res of result) assertRdfError(res, 422, { title: new RegExp(`more than ${WORK_DEADLINE_MS / 1000} s of work`) });
    report('two runaway PATCHes', result.map((r) => r.status).join(', '), flow);
  });
});

describe('alike blank nodes of ordinary data', () => {
  /**
   * The same graph as the writer might send it another time: its blank nodes renamed `to`0… in the
   * reverse order of their labels, its triples in another order (`order` of the lines).
   */
  const relabelled = (lines: string[], to: string, order: (lines: string[]) => string[]) => {
    const labels = [...new Set(lines.flatMap((line) => [...line.matchAll(/_:(\w+)/g)].map((m) => m[1]!)))].sort();
    const renamed = new Map(labels.map((label, i) => [label, `${to}${labels.length - 1 - i}`]));
    return order(lines.map((line) => line.replace(/_:(\w+)/g, (_, label: string) => `_:${renamed.get(label)!}`))).join('\n');
  };
  /** A document's file without its dct:modified line, which every write changes. */
  const stored = (path: string) => (fileAtHead(dir, path) ?? '').split('\n').filter((line) => !line.includes('<http://purl.org/dc/terms/modified>')).join('\n');

  /**
   * Stores `lines` at `path` (201) and reads it back with every triple; writes the same graph twice
   * more with other labels in other orders (with If-Match: each write is a commit, as dct:modified
   * changes), and after each the file in git is byte-identical but for dct:modified. Returns how
   * long the first PUT took.
   */
  async function storedStably(path: string, lines: string[]): Promise<number> {
    const t = Date.now();
    const created = await s.request('PUT', path, { headers: turtle, body: lines.join('\n') });
    const ms = Date.now() - t;
    assert.equal(created.status, 201, created.body);
    const file = stored(path);
    assert.match(file, /^_:c14n0 /m);
    const back = await s.request('GET', path, { headers: { Accept: 'application/n-triples' } });
    assert.equal(back.status, 200);
    const quads = oxigraph.parse(back.body, { format: 'application/n-triples' }) as unknown as Quad[];
    assert.equal(quads.filter((q) => q.predicate.value === `${FOAF}knows` && q.subject.termType === 'BlankNode').length, lines.length, 'every triple is served');

    const half = Math.floor(lines.length / 2);
    let etag = String(created.headers.etag); // the Turtle representation's: ETags are per representation
    for (const body of [relabelled(lines, 'x', (l) => l.reverse()), relabelled(lines, 'y', (l) => [...l.slice(half), ...l.slice(0, half)])]) {
      const head = git(dir, 'rev-parse', 'HEAD').trim();
      const res = await s.request('PUT', path, { headers: { ...turtle, 'If-Match': etag }, body });
      assert.equal(res.status, 200, res.body);
      assert.notEqual(git(dir, 'rev-parse', 'HEAD').trim(), head, 'the write is a commit');
      assert.equal(stored(path), file, 'written with other labels, the file in git is byte-identical (but for dct:modified)');
      etag = String(res.headers.etag);
    }
    return ms;
  }

  it('a 2-node foaf:knows cycle, a 20-node cycle and a K6 clique are stored and served with stable canonical labels', { timeout: 120_000 }, async () => {
    const pair = await storedStably('knows-pair/', [knows('alice', 'bob'), knows('bob', 'alice')]);
    const ring = await storedStably('knows-ring/', Array.from({ length: 20 }, (_, i) => knows(`r${i}`, `r${(i + 1) % 20}`)));
    const k6 = await storedStably('knows-k6/', clique(6, 'k'));
    console.log(`# stored: 2-node cycle in ${pair} ms, 20-node cycle in ${ring} ms, K6 in ${k6} ms`);
  });

  it('a K8 clique is stored and served with stable canonical labels, while GETs keep flowing', { timeout: 120_000 }, async () => {
    const { result, flow } = await whileHostile(() => storedStably('knows-k8/', clique(8, 'k')));
    report(`K8 (first PUT ${result} ms)`, 201, flow);
  });
});
