/**
 * Work priced by the requester (issue 25, items 4 and 5) over real HTTPS, tried as an attacker with
 * addresses of its own (127.0.0.x) while another client's GETs run: signups are made off the thread
 * that answers requests (16 at once: no GET waits a second); a certificate naming 1,000 WebIDs on a
 * loopback origin makes at most 3 fetches, and verifications that read documents are limited per
 * address; an agent's own profile is capped, and a large one is read without a parse; quotas on
 * signups, access requests and admin writes answer 429 with Retry-After and the RDF error body and
 * commit nothing, and never limit the owner.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { Agent, request, type RequestOptions } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { generateKey, rsaPublicKey, selfSignedCertificate } from '../src/auth/certificates.js';
import { RemoteWebIds } from '../src/auth/remote-webid.js';
import { isLodestoneError } from '../src/errors.js';
import { safeFetch } from '../src/net/safe-fetch.js';
import { ns } from '../src/rdf/namespaces.js';
import { commitCount, git, removeTempDirs } from './helpers.js';
import { assertRdfError, collect, header, startServer, turtle, type Response, type TestServer } from './http-helpers.js';
import { Origin } from './origin-server.js';

/** The bound of the issue: no GET of another client waits this long while the hostile work runs. */
const GET_BOUND_MS = 1000;
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const PROBE = 'bounds-probe/';

let s: TestServer;
let adminRepo: string;
let profiles: Origin;

before(async () => {
  s = await startServer(['--allow-internal-urls'], undefined, undefined, {}, { tls: true }); // liveness: clients on real connections
  adminRepo = s.running.runtimes[1]!.dataspace.store.dir;
  assert.equal((await s.request('PUT', PROBE, { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "Probe" .' })).status, 201);
  profiles = await new Origin().listen();
});
after(async () => {
  await profiles?.close();
  await s?.close();
  removeTempDirs();
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const head = () => git(adminRepo, 'rev-parse', 'HEAD').trim();

/** One request on a connection of its own, from `localAddress`, with the client certificate `tls` gives (none: anonymous). */
function send(method: string, path: string, options: { from: string; headers?: Record<string, string>; body?: string; tls?: RequestOptions; agent?: Agent }): Promise<Response & { bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, s.base), { method, headers: options.headers, localAddress: options.from, rejectUnauthorized: false, agent: options.agent ?? false, ...options.tls }, (res) => {
      collect(res).then(resolve, reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

let signups = 0;
/** A signup from `from`; its PKCS#12 file opens with `password`. */
function signUp(from: string): Promise<Response & { bytes: Buffer }> {
  signups++;
  return send('POST', '/admin/sign%20up', { from, headers: FORM, body: `name=Stranger+${signups}&email=stranger${signups}%40example.org&password=${PASSWORD}` });
}
const PASSWORD = 'stranger+password';

/** A signed-up agent: its WebID, and its certificate on keep-alive connections from `from`. */
async function stranger(from: string): Promise<{ webId: string; profile: string; agent: Agent; tls: RequestOptions }> {
  const res = await signUp(from);
  assert.equal(res.status, 201, res.body);
  const profile = String(header(res, 'location'));
  const tls = { pfx: res.bytes, passphrase: 'stranger password' };
  return { webId: `${profile}#this`, profile, agent: new Agent({ keepAlive: true, rejectUnauthorized: false, localAddress: from, ...tls }), tls };
}

/**
 * GETs of the probe as the owner, one after another on one keep-alive connection, from before
 * `hostile` until an answer after it; asserts that no GET was left waiting GET_BOUND_MS. The wait is
 * measured between consecutive answers (a GET is sent 20 ms after the last one was answered): the
 * server runs in this process, so a stall of its thread shows there wherever it falls.
 */
async function whileGetting<T>(what: string, hostile: () => Promise<T>): Promise<T> {
  const agent = new Agent({ keepAlive: true, rejectUnauthorized: false, cert: s.ownerPem, key: s.ownerPem });
  const answers: number[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const res = await send('GET', PROBE, { from: '127.0.0.1', agent, headers: { Accept: 'text/turtle' } });
      assert.equal(res.status, 200, res.body);
      answers.push(Date.now());
      await sleep(20);
    }
  })();
  let started = 0;
  let ended = 0;
  try {
    while (answers.length < 5) await sleep(20); // the connection is open
    started = Date.now();
    const result = await hostile();
    ended = Date.now();
    const count = answers.length;
    while (answers.length < count + 2) await sleep(20);
    return result;
  } finally {
    stopped = true;
    await loop;
    agent.destroy();
    const gaps = answers.slice(1).map((at, i) => ({ at, gap: at - answers[i]! })).filter(({ at, gap }) => at > started && at - gap < (ended || Date.now()));
    const longest = Math.max(0, ...gaps.map(({ gap }) => gap));
    console.log(`# ${what}: ${(ended || Date.now()) - started} ms; longest wait between GET answers meanwhile ${longest} ms`);
    if (ended) assert.ok(longest < GET_BOUND_MS, `a GET waited ${longest} ms while ${what}`);
  }
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

  it('a large profile (100,000 triples and six keys, the owner’s doing) read again for six certificates after each change holds no GET of another client a second', { timeout: 180_000 }, async () => {
    const me = await stranger('127.0.0.53');
    me.agent.destroy();
    // six certificates naming the agent, each with a key of its own that the profile lists, each on a connection opened before the profile changes
    const keys = await Promise.all(Array.from({ length: 6 }, () => generateKey()));
    const described = keys.map((keyPem) => rsaPublicKey(keyPem)!).map((key) => `[ <${ns.cert}modulus> "${key.modulus}"^^<${ns.xsd}hexBinary> ; <${ns.cert}exponent> ${key.exponent} ]`);
    const connections = keys.map((keyPem) => new Agent({ keepAlive: true, rejectUnauthorized: false, localAddress: '127.0.0.53', cert: certificateNaming(keyPem, [me.webId]), key: keyPem }));
    const atOnce = () => Promise.all(connections.map((agent) => send('HEAD', PROBE, { from: '127.0.0.53', agent })));
    const current = (await s.request('GET', me.profile, { headers: { Accept: 'application/n-triples' } })).body;
    const numbers = Array.from({ length: 100_000 }, (_, i) => i).join(', ');
    try {
      for (let round = 0; round < 2; round++) {
        const etag = String(header(await s.request('HEAD', me.profile, { headers: { Accept: 'text/turtle' } }), 'etag'));
        const put = await s.request('PUT', me.profile, { headers: { ...turtle, 'If-Match': etag }, body: `${current}\n<${me.webId}> <${ns.cert}key> ${described.join(', ')} ; <http://example.org/n> ${numbers} ; <http://example.org/round> ${round} .\n` });
        assert.equal(put.status, 200, put.body);
        if (round === 0) await atOnce(); // the connections are open (and their certificates known)
        else {
          const answers = await whileGetting(`a 100,000-triple profile read for six certificates at once (round ${round})`, atOnce);
          for (const res of answers) assert.equal(res.status, 403, 'each certificate is known by its key (and may not read the probe)');
        }
      }
    } finally {
      for (const agent of connections) agent.destroy();
    }
  });
});

/** A client certificate for the key `keyPem`, naming `uris` (SubjectAltName URIs) in order. */
const certificateNaming = (keyPem: string, uris: readonly string[]) => selfSignedCertificate(keyPem, { commonName: 'many', webId: uris, days: 1 });

describe('WebID verification', () => {
  let keyPem: string;
  let profile: string;
  before(async () => {
    keyPem = await generateKey();
    const key = rsaPublicKey(keyPem)!;
    profile = `<#me> <${ns.cert}key> [ <${ns.cert}modulus> "${key.modulus}"^^<${ns.xsd}hexBinary> ; <${ns.cert}exponent> ${key.exponent} ] .`;
    profiles.on('/valid', { headers: { 'Content-Type': 'text/turtle' }, body: profile });
  });
  const fetched = () => profiles.seen.filter((seen) => seen.path.startsWith('/many-')).length;
  const present = (certPem: string, from: string) => send('GET', PROBE, { from, tls: { cert: certPem, key: keyPem } });

  it('a certificate naming 1,000 WebIDs makes at most 3 fetches, and none when it comes again; the 401 says the rest were not tried; GETs keep flowing', { timeout: 60_000 }, async () => {
    const uris = Array.from({ length: 1000 }, (_, i) => profiles.url(`/many-${i}#me`));
    uris[500] = s.running.agents.owner.webId; // a local WebID among them changes nothing
    const certPem = certificateNaming(keyPem, uris);
    const first = await whileGetting('a 1,000-URI certificate', () => present(certPem, '127.0.0.60'));
    assert.ok(fetched() <= 3, `${fetched()} WebID documents were fetched`);
    assertRdfError(first, 401, { title: /names 997 more URIs, which were not tried/ });
    const before = fetched();
    assertRdfError(await present(certPem, '127.0.0.60'), 401);
    assert.equal(fetched(), before, 'the refusal was kept');
  });

  it('is known by a WebID among its first 3 URIs, not by a 4th', { timeout: 60_000 }, async () => {
    const bogus = (i: number) => profiles.url(`/many-other-${i}#me`);
    const third = await present(certificateNaming(keyPem, [bogus(1), bogus(2), profiles.url('/valid#me')]), '127.0.0.61');
    assertRdfError(third, 403, { title: new RegExp(`^${profiles.url('/valid#me')} has no Read access`) }); // known, and not let in
    assertRdfError(await present(certificateNaming(keyPem, [bogus(3), bogus(4), bogus(5), profiles.url('/valid#me')]), '127.0.0.61'), 401, { title: /names 1 more URI, which was not tried/ });
  });

  it('verifications that read documents are limited per address: past 60 new certificates a minute, a 429 that fetches nothing', { timeout: 120_000 }, async () => {
    // 60 at once, and one more a second after (the rate refills evenly): a 429 comes within 60 and the seconds they took
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string; // quicker to sign sixty certificates with
    const t = Date.now();
    let refused: Response & { bytes: Buffer } | undefined;
    let checked = 0;
    for (let i = 0; !refused && i < 200; i++) {
      const before = profiles.seen.length;
      const res = await send('GET', PROBE, { from: '127.0.0.62', tls: { cert: certificateNaming(small, [profiles.url(`/many-rate-${i}#me`)]), key: small } });
      if (res.status === 429) {
        refused = res;
        assert.equal(profiles.seen.length, before, 'its WebID was not fetched');
      } else {
        assertRdfError(res, 401);
        checked++;
      }
    }
    assert.ok(refused, 'a 429 came');
    assertRdfError(refused, 429, { title: /too many new client certificates checked from this address/ });
    assert.ok(Number(header(refused, 'retry-after')) > 0);
    assert.ok(checked >= 60 && checked <= 61 + (Date.now() - t) / 1000, `${checked} certificates were checked in ${Date.now() - t} ms before the 429`);
    assertRdfError(await present(certificateNaming(keyPem, [profiles.url('/many-rate-other#me')]), '127.0.0.63'), 401); // another address is checked
  });

  it('an address has 2 certificates checked at once at most: a 3rd while their WebIDs hang is a 429; another address is checked', { timeout: 60_000 }, async () => {
    const hanging = await new Origin().listen();
    try {
      for (let i = 0; i < 4; i++) hanging.on(`/hang-${i}`, () => undefined); // never answers
      const hangs = (i: number) => certificateNaming(keyPem, [hanging.url(`/hang-${i}#me`)]);
      const checking = [0, 1].map((i) => present(hangs(i), '127.0.0.64'));
      while (hanging.seen.length < 2) await sleep(20);
      assertRdfError(await present(hangs(2), '127.0.0.64'), 429, { title: /certificates from this address are being checked already/ });
      const other = present(hangs(3), '127.0.0.65');
      while (hanging.seen.length < 3) await sleep(20);
      await hanging.close(); // the fetches fail: the certificates are refused
      for (const res of [...(await Promise.all(checking)), await other]) assertRdfError(res, 401);
      assert.equal(hanging.requests('/hang-2').length, 0, 'the third was never fetched');
    } finally {
      await hanging.close();
    }
  });

  it('remote WebID documents are fetched 32 at a time at most: a 33rd is refused with 503 while they hang', { timeout: 30_000 }, async () => {
    const hanging = await new Origin().listen();
    try {
      for (let i = 0; i < 33; i++) hanging.on(`/hang-${i}`, () => undefined); // never answers
      const remote = new RemoteWebIds({ fetch: (url) => safeFetch(url, { allowInternal: true }) });
      const reads = Array.from({ length: 32 }, (_, i) => remote.read(hanging.url(`/hang-${i}#me`)));
      await assert.rejects(remote.read(hanging.url('/hang-32#me')), (error) => isLodestoneError(error, 'Busy') && /too many remote WebID documents/.test(error.message));
      await hanging.close(); // the 32 fail
      for (const read of reads) assert.equal(await read, undefined);
      assert.equal(hanging.requests('/hang-32').length, 0);
    } finally {
      await hanging.close();
    }
  });
});
