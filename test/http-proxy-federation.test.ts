/**
 * The proxy's writes, identity, queries and cache (SPEC §4.5.3–10, §5.3, §8.5), and federation
 * between two dataspace pairs of one server. Origins on loopback record what reached them: write
 * bodies with their Content-Type and preconditions (evaluated at the origin, 412 coming back); the
 * secretary's client certificate with `On-Behalf-Of: <agent>` for an identified caller, nothing
 * for an anonymous one, and never a credential of the caller's own. A remote SPARQL endpoint's
 * results re-serialised per Accept. The cache: reused per agent with `Age`, revalidated with the
 * origin's ETag, purged by a write and by `purge`. Federation: the second pair of system.ttl is an
 * origin like any other, its own access control deciding each delegated request (the owner, an
 * agent who delegates and one who does not), and the cache-poisoning sequence of LinkedDataHub.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ns } from '../src/rdf/namespaces.js';
import { git, removeTempDirs, tempDir } from './helpers.js';
import { assertRdfError, certifiedAgent, freePort, header, makePublic, putTurtle, startServer, type TestServer, turtle } from './http-helpers.js';
import { Origin, type Reply } from './origin-server.js';

const dct = ns.dct;
const proxied = (url: string) => `/?uri=${encodeURIComponent(url)}`;
const SPARQL_QUERY = { 'Content-Type': 'application/sparql-query' };

let s: TestServer;
let second: string;
/** An HTTPS origin with the server's own certificate (which the server trusts), that asks for client certificates. */
let secure: Origin;
/** A plain HTTP origin. */
const plain = new Origin();

/** A new agent of the first admin dataspace, with its certificate; `delegates`: its WebID document names the secretary. */
const agent = (name: string, delegates: boolean) => certifiedAgent(s, name, delegates ? ` ; <${ns.acl}delegates> <${s.running.agents.secretary.webId}>` : '');

before(async () => {
  const port = await freePort();
  const data = tempDir('federation');
  const base = `https://localhost:${port}/`;
  second = `${base}second/`;
  const pair = (endUser: string, id: string) => `<${endUser}> a lapp:EndUserApplication ; dct:identifier "${id}" ; lapp:adminApplication <${endUser}admin/> .\n<${endUser}admin/> a lapp:AdminApplication ; dct:identifier "${id}-admin" .\n`;
  writeFileSync(join(data, 'system.ttl'), `@prefix lapp: <${ns.lapp}> . @prefix dct: <${dct}> .\n${pair(base, 'end-user')}${pair(second, 'second')}`);
  s = await startServer(['--port', String(port), '--allow-internal-urls'], data);
  await makePublic(s); // the first dataspace (and so its proxy) is readable by anyone: an anonymous caller reaches origins
  secure = await new Origin({ cert: s.running.agents.server.certPem, key: s.running.agents.server.keyPem }).listen();
  await plain.listen();
});
after(async () => {
  await s?.close();
  await Promise.all([secure?.close(), plain.close()]);
  removeTempDirs(); // after the server has closed: a folder removed under it would be written again
});

describe('the proxy: writes', () => {
  let version = 1;
  const path = '/doc';
  before(() => {
    // a document with an ETag per version; writes need the current one, as a Lodestone origin does
    secure.on(path, (request): Reply => {
      const etag = `"v${version}"`;
      if (request.method === 'GET' || request.method === 'HEAD') return { headers: { 'Content-Type': 'text/turtle', ETag: etag }, body: `<#this> <${dct}title> "v${version}" .` };
      if (request.headers['if-match'] !== etag) return { status: 412, headers: { 'Content-Type': 'text/plain', ETag: etag }, body: `If-Match must be ${etag}` };
      version++;
      return { status: request.method === 'PUT' ? 200 : 204, headers: { ETag: `"v${version}"` } };
    });
    secure.on('/new', (request): Reply => (request.method === 'PUT' ? { status: 201, headers: { Location: '/new/' } } : { status: 404 }));
  });

  it('forwards PATCH, POST, PUT and DELETE with their body, Content-Type, Accept and If-Match; the origin evaluates the precondition', async () => {
    const url = secure.url(path, 'localhost');
    const read = await s.request('GET', proxied(url), { headers: { Accept: 'text/turtle' } });
    const etag = String(header(read, 'etag'));
    assert.equal(etag, '"v1"');
    const writes: Array<[string, Record<string, string>, string]> = [
      ['PATCH', { 'Content-Type': 'application/sparql-update' }, `INSERT { <#this> <${dct}description> "d" } WHERE {}`],
      ['POST', turtle, `<#this> <${dct}subject> "s" .`],
      ['PUT', { 'Content-Type': 'application/n-triples' }, `<${url}#this> <${dct}title> "t" .\n`],
      ['DELETE', {}, ''],
    ];
    for (const [i, [method, headers, body]] of writes.entries()) {
      const stale = await s.request(method, proxied(url), { headers: { ...headers, Accept: 'text/turtle', 'If-Match': '"v0"' }, body: body || undefined });
      assert.equal(stale.status, 412, `${method} with a stale ETag: ${stale.body}`);
      assert.equal(stale.body, `If-Match must be "v${i + 1}"`, 'the origin’s own body');
      assert.equal(header(stale, 'etag'), `"v${i + 1}"`);
      const res = await s.request(method, proxied(url), { headers: { ...headers, Accept: 'text/turtle', 'If-Match': `"v${i + 1}"` }, body: body || undefined });
      assert.equal(res.status, method === 'PUT' ? 200 : 204, `${method}: ${res.body}`);
      assert.equal(header(res, 'etag'), `"v${i + 2}"`);
      const seen = secure.requests(path).at(-1)!;
      assert.equal(seen.method, method);
      assert.equal(seen.body, body);
      assert.equal(seen.headers['content-type'], headers['Content-Type']);
      assert.equal(seen.headers['if-match'], `"v${i + 1}"`);
      assert.equal(seen.headers.accept, 'text/turtle', 'the Accept of the read the validator came from');
    }
  });

  it('passes a 201 with its Location made absolute', async () => {
    const res = await s.request('PUT', proxied(secure.url('/new', 'localhost')), { headers: turtle, body: '' });
    assert.equal(res.status, 201, res.body);
    assert.equal(header(res, 'location'), secure.url('/new/', 'localhost'));
  });
});

describe('the proxy: delegated identity', () => {
  before(() => {
    for (const origin of [secure, plain]) origin.on('/who', { headers: { 'Content-Type': 'text/turtle' }, body: '' });
  });
  const callerCredentials = { Cookie: 'lodestone-session=secret-session', Authorization: 'Bearer secret-token', 'Client-Cert': ':c2VjcmV0:', 'Proxy-Authorization': 'Basic c2VjcmV0', 'X-Api-Key': 'secret-key' };

  it('speaks as the secretary on behalf of the agent, anonymously for an anonymous caller, and sends no credential of the caller', async () => {
    const url = secure.url('/who', 'localhost');
    const cases = [
      ['owner', s.running.agents.secretary.webId, s.running.agents.owner.webId],
      ['secretary', s.running.agents.secretary.webId, undefined],
      ['anonymous', undefined, undefined],
    ] as const;
    for (const [as, webId, onBehalfOf] of cases) {
      const res = await s.request('GET', proxied(url), { as, headers: callerCredentials });
      assert.equal(res.status, 200, `${as}: ${res.body}`);
      const seen = secure.requests('/who').at(-1)!;
      assert.equal(seen.webId, webId, `${as}: the client certificate`);
      assert.equal(seen.headers['on-behalf-of'], onBehalfOf, `${as}: On-Behalf-Of`);
      for (const name of Object.keys(callerCredentials)) assert.equal(seen.headers[name.toLowerCase()], undefined, `${as}: ${name} stays here`);
      assert.ok(!JSON.stringify(seen.headers).includes('secret'));
    }
  });

  it('names no agent to a plain-HTTP origin, where no certificate can go', async () => {
    await s.request('GET', proxied(plain.url('/who')), { headers: callerCredentials });
    const seen = plain.requests('/who').at(-1)!;
    assert.equal(seen.headers['on-behalf-of'], undefined);
    assert.ok(!JSON.stringify(seen.headers).includes('secret'));
  });
});

describe('the proxy: SPARQL', () => {
  const json = JSON.stringify({ head: { vars: ['title'] }, results: { bindings: [{ title: { type: 'literal', value: 'Le Petit Prince', 'xml:lang': 'fr' } }] } });
  before(() => {
    // an endpoint that answers JSON whatever is asked, and names itself in Link
    secure.on('/sparql', { headers: { 'Content-Type': 'application/sparql-results+json', Link: `<${secure.url('/sparql', 'localhost')}>; rel="${ns.sd}endpoint"` }, body: json });
  });

  it('sends a query (POST application/sparql-query, or GET with query) and re-serialises the results per Accept', async () => {
    const query = 'SELECT ?title WHERE { ?s <http://purl.org/dc/terms/title> ?title }';
    const xml = await s.request('POST', proxied(secure.url('/sparql', 'localhost')), { headers: { ...SPARQL_QUERY, Accept: 'application/sparql-results+xml' }, body: query });
    assert.equal(xml.status, 200, xml.body);
    assert.equal(header(xml, 'content-type'), 'application/sparql-results+xml; charset=utf-8');
    assert.match(xml.body, /<binding name="title"><literal xml:lang="fr">Le Petit Prince<\/literal><\/binding>/);
    assert.match(String(header(xml, 'link')), /sparql-service-description#endpoint/);
    const seen = secure.requests('/sparql').at(-1)!;
    assert.deepEqual([seen.method, seen.body, seen.headers['content-type'], seen.headers.accept], ['POST', query, 'application/sparql-query', 'application/sparql-results+xml']);
    const csv = await s.request('GET', proxied(`${secure.url('/sparql', 'localhost')}?query=${encodeURIComponent(query)}`), { headers: { Accept: 'text/csv' } });
    assert.equal(csv.body, 'title\r\nLe Petit Prince\r\n');
    assert.equal(secure.requests('/sparql').at(-1)!.query, `query=${encodeURIComponent(query)}`);
    const same = await s.request('GET', proxied(`${secure.url('/sparql', 'localhost')}?query=x`), { headers: { Accept: 'application/sparql-results+json' } });
    assert.equal(same.body, json, 'the origin’s bytes when they are what was asked for');
    assertRdfError(await s.request('GET', proxied(`${secure.url('/sparql', 'localhost')}?query=x`), { headers: { Accept: 'application/n-triples' } }), 406, { format: 'application/n-triples' });
  });
});

describe('the proxy: cache', () => {
  let served = 0;
  before(() => {
    // an answer that depends on who asks: the cache must never give one agent's to another
    secure.on('/cached', (request): Reply => {
      served++;
      const who = request.headers['on-behalf-of'] ?? request.webId ?? 'anonymous';
      return { headers: { 'Content-Type': 'text/turtle', 'Cache-Control': 'max-age=60', Age: '5', ETag: `"${served}"` }, body: `<#this> <${dct}title> "for ${who}" .` };
    });
    secure.on('/validated', (request): Reply => (request.headers['if-none-match'] === '"same"' ? { status: 304, headers: { ETag: '"same"' } } : { headers: { 'Content-Type': 'text/turtle', 'Cache-Control': 'no-cache', ETag: '"same"' }, body: `<#this> <${dct}title> "validated" .` }));
  });

  it('reuses a fresh response for the agent that fetched it only, with Age', async () => {
    const url = secure.url('/cached', 'localhost');
    const first = await s.request('GET', proxied(url), { headers: { Accept: 'text/turtle' } });
    assert.match(first.body, /for https:.*owner|for .*acl\/agents/);
    const again = await s.request('GET', proxied(url), { headers: { Accept: 'application/n-triples' } });
    assert.equal(secure.requests('/cached').length, 1, 'the second read came from the cache');
    assert.ok(Number(header(again, 'age')) >= 5, `Age: ${header(again, 'age')}`);
    assert.match(again.body, new RegExp(`"for ${s.running.agents.owner.webId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`));
    const anonymous = await s.request('GET', proxied(url), { as: 'anonymous', headers: { Accept: 'text/turtle' } });
    assert.equal(secure.requests('/cached').length, 2, 'another agent is not served the owner’s copy');
    assert.match(anonymous.body, /"for anonymous"/);
    const secretary = await s.request('GET', proxied(url), { as: 'secretary', headers: { Accept: 'text/turtle' } });
    assert.ok(secretary.body.includes(`"for ${s.running.agents.secretary.webId}"`), secretary.body);
    assert.equal(secure.requests('/cached').length, 3);
  });

  it('revalidates a stale response with its ETag, and reuses the body on 304', async () => {
    const url = secure.url('/validated', 'localhost');
    await s.request('GET', proxied(url));
    const again = await s.request('GET', proxied(url), { headers: { Accept: 'application/n-triples' } });
    assert.equal(again.status, 200);
    assert.match(again.body, /"validated"/);
    const [firstSeen, secondSeen] = secure.requests('/validated');
    assert.equal(firstSeen!.headers['if-none-match'], undefined);
    assert.equal(secondSeen!.headers['if-none-match'], '"same"', 'revalidated');
    assert.ok(header(again, 'age') !== undefined);
  });

  it('forgets a URL after a write through the proxy, and when purged (admin/clear)', async () => {
    const url = secure.url('/cached', 'localhost');
    const before = secure.requests('/cached').length;
    await s.request('GET', proxied(url));
    assert.equal(secure.requests('/cached').length, before, 'cached');
    assert.ok(s.running.proxyCache.purge(url) >= 1);
    await s.request('GET', proxied(url));
    assert.equal(secure.requests('/cached').length, before + 1, 'fetched again after purge');
    await s.request('POST', proxied(url), { headers: turtle, body: '' });
    await s.request('GET', proxied(url));
    assert.equal(secure.requests('/cached').filter((r) => r.method === 'GET').length, before + 2, 'fetched again after a write');
  });
});

describe('federation: the second dataspace pair as an origin', () => {
  let ivy: { webId: string; pem: string };
  let jack: { webId: string; pem: string };
  let secondRepo: string;

  before(async () => {
    secondRepo = s.running.runtimes.find((r) => r.dataspace.base === second)!.dataspace.store.dir;
    assert.equal((await s.request('PUT', `${second}private/`, { headers: turtle, body: `<#this> <${dct}title> "private" .` })).status, 201);
    ivy = await agent('Ivy', true);
    jack = await agent('Jack', false);
    await putTurtle(s, `${second}admin/acl/authorizations/ivy-read/`, `<#this> a <${ns.acl}Authorization> ; <${ns.acl}agent> <${ivy.webId}> ; <${ns.acl}agent> <${jack.webId}> ; <${ns.acl}mode> <${ns.acl}Read> ; <${ns.acl}accessTo> <${second}private/>, <${second}sparql> .`);
  });

  it('is reached as another origin: the owner reads a private document of it on the owner’s behalf', async () => {
    const res = await s.request('GET', proxied(`${second}private/`), { headers: { Accept: 'application/n-triples' } });
    assert.equal(res.status, 200, res.body);
    assert.match(res.body, /"private"/);
    assert.ok(String(header(res, 'link')).includes(`<${s.running.agents.owner.webId}>; rel="${ns.acl}agent"`), 'the second dataspace saw the owner');
  });

  it('the cache-poisoning sequence: after the owner read it through the proxy, an anonymous request for it is still refused', async () => {
    await s.request('GET', proxied(`${second}private/`), { headers: { Accept: 'application/rdf+xml' } });
    const throughProxy = await s.request('GET', proxied(`${second}private/`), { as: 'anonymous', headers: { Accept: 'application/rdf+xml' } });
    assertRdfError(throughProxy, 403, { format: 'application/rdf+xml' });
    assert.ok(!String(header(throughProxy, 'link') ?? '').includes(`${ns.acl}agent`), 'no agent leaks into the anonymous answer');
    const direct = await s.request('GET', `${second}private/`, { as: 'anonymous', headers: { Accept: 'application/rdf+xml' } });
    assertRdfError(direct, 403, { format: 'application/rdf+xml' });
    assert.ok(!String(header(direct, 'link') ?? '').includes(`${ns.acl}agent`));
  });

  it('lets its access control decide each delegated request: an agent who delegates reads, one who does not is refused, neither writes', async () => {
    const read = await s.request('GET', proxied(`${second}private/`), { as: { pem: ivy.pem }, headers: { Accept: 'text/turtle' } });
    assert.equal(read.status, 200, read.body);
    assert.ok(String(header(read, 'link')).includes(`<${ivy.webId}>; rel="${ns.acl}agent"`));
    assertRdfError(await s.request('GET', proxied(`${second}private/`), { as: { pem: jack.pem } }), 403, { title: /does not delegate/ });
    const head = git(secondRepo, 'rev-parse', 'HEAD');
    const write = await s.request('PATCH', proxied(`${second}private/`), { as: { pem: ivy.pem }, headers: { 'Content-Type': 'application/sparql-update', Accept: 'text/turtle', 'If-Match': String(header(read, 'etag')) }, body: `INSERT { <#this> <${dct}description> "Ivy was here" } WHERE {}` });
    assertRdfError(write, 403);
    assert.equal(git(secondRepo, 'rev-parse', 'HEAD'), head, 'nothing was written');
  });

  it('writes with the origin’s If-Match, read through the proxy, and queries its endpoint', async () => {
    const read = await s.request('GET', proxied(`${second}private/`), { headers: { Accept: 'application/ld+json' } });
    const etag = String(header(read, 'etag'));
    const patched = await s.request('PATCH', proxied(`${second}private/`), { headers: { 'Content-Type': 'application/sparql-update', Accept: 'application/ld+json', 'If-Match': etag }, body: `INSERT { <#this> <${dct}description> "federated" } WHERE {}` });
    assert.equal(patched.status, 204, patched.body);
    assert.match(git(secondRepo, 'show', 'HEAD:graphs/private.nt'), /"federated"/);
    assert.equal(git(secondRepo, 'log', '-1', '--format=%an').trim(), s.running.agents.owner.webId, 'written as the owner');
    const stale = await s.request('PATCH', proxied(`${second}private/`), { headers: { 'Content-Type': 'application/sparql-update', Accept: 'application/ld+json', 'If-Match': etag }, body: `INSERT { <#this> <${dct}description> "again" } WHERE {}` });
    assertRdfError(stale, 412, { format: 'application/ld+json' });
    // the validator of the JSON-LD representation does not hold for a write whose Accept selects Turtle (SPEC §4.6.6): the origin says so
    const otherAccept = await s.request('POST', proxied(`${second}private/`), { headers: { ...turtle, Accept: 'text/turtle', 'If-Match': String(header(patched, 'etag')) }, body: `<#this> <${dct}subject> "appended" .` });
    assertRdfError(otherAccept, 412, { title: /Accept/ });
    const appended = await s.request('POST', proxied(`${second}private/`), { headers: { ...turtle, Accept: 'application/ld+json', 'If-Match': String(header(patched, 'etag')) }, body: `<#this> <${dct}subject> "appended" .` });
    assert.equal(appended.status, 204, appended.body);
    assert.match(git(secondRepo, 'show', 'HEAD:graphs/private.nt'), /"appended"/);
    const query = `SELECT ?d WHERE { GRAPH ?g { ?s <${dct}description> ?d } }`;
    const results = await s.request('POST', proxied(`${second}sparql`), { as: { pem: ivy.pem }, headers: { ...SPARQL_QUERY, Accept: 'text/tab-separated-values' }, body: query });
    assert.equal(results.status, 200, results.body);
    assert.equal(results.body, '?d\n"federated"\n');
    assertRdfError(await s.request('POST', proxied(`${second}sparql`), { as: { pem: jack.pem }, headers: { ...SPARQL_QUERY, Accept: 'text/csv' }, body: query }), 403);
  });
});
