/**
 * Liveness under hostile requests, over real HTTPS: while each hostile input runs, a loop of GETs
 * on another connection keeps being answered (a generous bound, seconds: a liveness check, not a
 * benchmark), the hostile request gets a 4xx or 503 with the RDF error body, and nothing changes in
 * git. Also: ordinary symmetric blank-node data (a 2-node cycle, a 20-node cycle, a K8) is stored
 * with stable canonical labels.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Agent, request } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { commitCount, git, removeTempDirs } from './helpers.js';
import { assertRdfError, sendRequest, startServer, turtle, type Response, type TestServer } from './http-helpers.js';

/** Longest any GET of the loop may wait while a hostile request runs. */
const BOUND_MS = 8_000;

let s: TestServer;
let dir: string;
let probe: Agent;

before(async () => {
  s = await startServer(['--sparql-timeout', '4000']);
  dir = s.running.runtimes[0]!.dataspace.store.dir;
  probe = new Agent({ keepAlive: true, rejectUnauthorized: false, cert: s.ownerPem, key: s.ownerPem, maxSockets: 1 });
  assert.equal((await s.request('PUT', 'probe/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "probe" .' })).status, 201);
  const many = Array.from({ length: 300 }, (_, i) => `<#t${i}> <http://ex/p> ${i} .`).join('\n');
  assert.equal((await s.request('PUT', 'many/', { headers: turtle, body: many })).status, 201);
});
after(async () => {
  probe?.destroy();
  await s?.close();
  removeTempDirs();
});

/**
 * Runs `hostile` while GETs of a small document go out one after another on their own connection;
 * asserts that none waited past BOUND_MS and that some were answered meanwhile. Returns its result.
 */
async function whileHostile<T>(hostile: () => Promise<T>, { unchanged = true } = {}): Promise<T> {
  let running = true;
  let answered = 0;
  let longest = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const res = await sendRequest(new URL('probe/', s.base), { agent: probe });
      assert.equal(res.status, 200);
      longest = Math.max(longest, performance.now() - started);
      answered++;
      await sleep(10);
    }
  })();
  const head = git(dir, 'rev-parse', 'HEAD').trim();
  const commits = commitCount(dir);
  try {
    return await hostile();
  } finally {
    running = false;
    await loop;
    assert.ok(answered > 0, 'GETs were answered while the hostile request ran');
    assert.ok(longest < BOUND_MS, `a GET waited ${Math.round(longest)} ms while the hostile request ran`);
    if (unchanged) assert.equal(git(dir, 'rev-parse', 'HEAD').trim(), head, 'HEAD did not move');
    if (unchanged) assert.equal(commitCount(dir), commits);
  }
}

/** A request sent as is, its body written by `send`; the response, or undefined if the server closed without one. */
function raw(method: string, path: string, headers: Record<string, string>, send: (write: (chunk: string | Buffer) => Promise<boolean>) => Promise<void>): Promise<Response | undefined> {
  return new Promise((resolve) => {
    const req = request({ host: 'localhost', port: s.port, method, path, headers, cert: s.ownerPem, key: s.ownerPem, rejectUnauthorized: false, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', () => resolve(undefined));
    });
    req.on('error', () => resolve(undefined));
    const write = async (chunk: string | Buffer) => {
      if (req.destroyed) return false;
      if (!req.write(chunk)) await Promise.race([once(req, 'drain'), once(req, 'close')]);
      return !req.destroyed;
    };
    void send(write).then(() => req.end(), () => req.destroy());
  });
}

const deep = (n: number) => '{'.repeat(n) + '}'.repeat(n);
const cycle = (n: number, prefix = 'n') => Array.from({ length: n }, (_, i) => `_:${prefix}${i} <http://example.org/ns#p> _:${prefix}${(i + 1) % n} .`).join('\n');

describe('liveness while hostile requests run', () => {
  it('a 10,000-deep SPARQL group is a 400', async () => {
    const res = await whileHostile(() => s.request('POST', 'sparql', { headers: { 'Content-Type': 'application/sparql-query' }, body: `SELECT * WHERE ${deep(10_000)}` }));
    assertRdfError(res, 400, { title: /nests groups more than 100 deep/ });
  });

  it('a 10,000-deep PATCH is a 422', async () => {
    const etag = String((await s.request('HEAD', 'many/')).headers.etag);
    const res = await whileHostile(() =>
      s.request('PATCH', 'many/', { headers: { 'Content-Type': 'application/sparql-update', 'If-Match': etag }, body: `INSERT { <#this> <http://ex/p> 1 } WHERE ${deep(10_000)}` }),
    );
    assertRdfError(res, 422, { title: /nests groups more than 100 deep/ });
  });

  it('a PATCH whose WHERE is a runaway cross product is stopped at its deadline with a 422', { timeout: 60_000 }, async () => {
    const etag = String((await s.request('HEAD', 'many/')).headers.etag);
    const res = await whileHostile(() =>
      s.request('PATCH', 'many/', { headers: { 'Content-Type': 'application/sparql-update', 'If-Match': etag }, body: 'INSERT { <#this> <http://ex/n> 1 } WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o }' }),
    );
    assertRdfError(res, 422, { title: /more than 10 s of work/ });
  });

  it('a 1 MB query string is a 431, and a 1 MB query in a form is answered', async () => {
    const long = encodeURIComponent('SELECT * WHERE { ?s ?p ?o } #' + 'x'.repeat(1_000_000));
    const res = await whileHostile(() => raw('GET', `/sparql?query=${long}`, {}, async () => undefined));
    assert.ok(res, 'the server answered');
    assertRdfError(res, 431);
    const form = await whileHostile(() => s.request('POST', 'sparql', { headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/sparql-results+json' }, body: `query=${long}` }));
    assert.equal(form.status, 200, form.body.slice(0, 300));
  });

  it('a 100 KB header is a 431 with an RDF body', async () => {
    const res = await whileHostile(() => raw('GET', '/probe/', { 'X-Junk': 'x'.repeat(100_000) }, async () => undefined));
    assert.ok(res, 'the server answered');
    assertRdfError(res, 431);
  });

  it('500 idle connections hold up no one', { timeout: 60_000 }, async () => {
    const sockets: TLSSocket[] = [];
    await whileHostile(async () => {
      for (let i = 0; i < 500; i++) {
        const socket = connect({ host: 'localhost', port: s.port, rejectUnauthorized: false });
        socket.on('error', () => undefined);
        sockets.push(socket);
      }
      await Promise.all(sockets.map((socket) => Promise.race([once(socket, 'secureConnect'), once(socket, 'close'), sleep(20_000)])));
      await sleep(1000);
    });
    for (const socket of sockets) socket.destroy();
  });

  it('a 50 MB chunked body is a 413, and the server stops reading it', { timeout: 60_000 }, async () => {
    const chunk = Buffer.alloc(1 << 20, '<#a> <http://ex/p> "aaaaaaaa" .\n');
    const res = await whileHostile(() =>
      raw('PUT', '/chunked/', { 'Content-Type': 'text/turtle', 'Transfer-Encoding': 'chunked' }, async (write) => {
        for (let i = 0; i < 50; i++) if (!(await write(chunk))) return;
      }),
    );
    assert.ok(res, 'the server answered');
    assertRdfError(res, 413);
  });

  it('a Turtle literal of 1.9 MB is stored, and GETs flow meanwhile', async () => {
    const res = await s.request('PUT', 'big-literal/', { headers: turtle, body: `<#this> <http://ex/p> "${'a'.repeat(1_900_000)}" .` });
    assert.equal(res.status, 201);
    const back = await whileHostile(() => s.request('GET', 'big-literal/', { headers: { Accept: 'application/n-triples' } }));
    assert.ok(back.body.includes('a'.repeat(1_900_000)));
  });

  it('a 5,000-blank-node cycle is a 422 that says what to do, while small PUTs in both dataspaces are acknowledged', { timeout: 60_000 }, async () => {
    let small = 0;
    const res = await whileHostile(async () => {
      const hostile = Promise.all([1, 2, 3].map((k) => s.request('PUT', `cycle-${k}/`, { headers: turtle, body: cycle(5000) })));
      for (const target of [`${s.base}small-during-cycle/`, `${s.admin}acl/authorizations/small-during-cycle/`]) {
        const started = performance.now();
        const put = await sendRequest(new URL(target), { method: 'PUT', headers: turtle, agent: probe }, '<#this> <http://purl.org/dc/terms/title> "small" .');
        assert.equal(put.status, 201, put.body);
        assert.ok(performance.now() - started < BOUND_MS);
        small++;
      }
      return hostile;
    }, { unchanged: false }); // the small PUTs commit; the cycles must not
    assert.equal(small, 2);
    for (const r of res) assertRdfError(r, 422, { title: /too alike.*give these blank nodes IRIs/ });
    for (const k of [1, 2, 3]) assertRdfError(await s.request('GET', `cycle-${k}/`), 404);
  });

  it('a runaway query holds up only itself: ASK {} on the same dataspace is answered meanwhile', { timeout: 60_000 }, async () => {
    const runaway = s.request('POST', 'sparql', { headers: { 'Content-Type': 'application/sparql-query' }, body: 'SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }' });
    await sleep(300);
    const res = await whileHostile(async () => {
      const ask = await s.request('POST', 'sparql', { headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' }, body: 'ASK {} # liveness', as: 'secretary' });
      assert.equal(ask.status, 200, ask.body);
      return runaway;
    });
    assertRdfError(res, 503);
  });
});

describe('ordinary symmetric blank-node data', () => {
  const shapes: Record<string, (prefix: string) => string> = {
    'a 2-node foaf:knows cycle': (p) => `_:${p}alice <http://xmlns.com/foaf/0.1/knows> _:${p}bob .\n_:${p}bob <http://xmlns.com/foaf/0.1/knows> _:${p}alice .`,
    'a 20-node cycle': (p) => cycle(20, p),
    'a K8 of alike blank nodes': (p) => {
      const lines: string[] = [];
      for (let i = 0; i < 8; i++) for (let j = 0; j < 8; j++) if (i !== j) lines.push(`_:${p}${i} <http://xmlns.com/foaf/0.1/knows> _:${p}${j} .`);
      return (p === 'y' ? lines.reverse() : lines).join('\n');
    },
  };
  for (const [name, shape] of Object.entries(shapes)) {
    it(`${name} is stored, served, and written twice gives the same bytes`, async () => {
      const path = `symmetric-${name.replace(/\W+/g, '-')}/`;
      const file = `HEAD:graphs/${path.slice(0, -1)}.nt`;
      const created = await s.request('PUT', path, { headers: turtle, body: shape('x') });
      assert.equal(created.status, 201, created.body);
      const first = git(dir, 'show', file);
      assert.match(first, /_:c14n0 <http:\/\/xmlns\.com\/foaf\/0\.1\/knows>|_:c14n0 <http:\/\/example\.org\/ns#p>/);
      const again = await s.request('PUT', path, { headers: { ...turtle, 'If-Match': String(created.headers.etag) }, body: shape('y') });
      assert.ok(again.status === 200 || again.status === 204, again.body);
      const blankLines = (text: string) => text.split('\n').filter((line) => line.startsWith('_:')).join('\n');
      assert.equal(blankLines(git(dir, 'show', file)), blankLines(first), 'the same canonical labels');
      assert.equal((await s.request('GET', path)).status, 200);
    });
  }
});
