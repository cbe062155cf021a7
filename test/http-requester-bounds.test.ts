/**
 * Work priced by the requester (issue 25, items 4 and 5) over real HTTPS, tried as an attacker with
 * addresses of its own (127.0.0.x) while another client's GETs run: signups are made off the thread
 * that answers requests (16 at once: no GET waits a second).
 */
import assert from 'node:assert/strict';
import { Agent, request, type RequestOptions } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { commitCount, removeTempDirs } from './helpers.js';
import { assertRdfError, header, startServer, turtle, type Response, type TestServer } from './http-helpers.js';

/** The bound of the issue: no GET of another client waits this long while the hostile work runs. */
const GET_BOUND_MS = 1000;
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const PROBE = 'bounds-probe/';

let s: TestServer;
let adminRepo: string;

before(async () => {
  s = await startServer(['--allow-internal-urls']);
  adminRepo = s.running.runtimes[1]!.dataspace.store.dir;
  assert.equal((await s.request('PUT', PROBE, { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "Probe" .' })).status, 201);
});
after(async () => {
  await s?.close();
  removeTempDirs();
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
});
