/**
 * Refusals that tell nothing, and values never dropped (issue 25), tried as an attacker: anonymous
 * and a stranger who signed up a minute ago compare what every method and history query answers for
 * an existing private document and a missing one (status, headers but Date, body); mementos of a
 * private document are `private`; `foaf:mbox` reaches only the agent itself and the owners; ETags
 * cannot be recomputed from a guessed content and survive a restart; `%61dmin` and other spellings
 * never reach the admin dataspace's space from the end-user one; a body whose values do not all
 * convert is a 400 and commits nothing.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { LodestoneError } from '../src/errors.js';
import { documentPathIn, locate, runtimeFor } from '../src/http/locate.js';
import type { DataspaceRuntime } from '../src/http/state.js';
import { ns } from '../src/rdf/namespaces.js';
import { git, headOf, removeTempDirs, tempDir } from './helpers.js';
import { assertRdfError, freePort, header, sendRequest, signUp, startServer, turtle, type Response, type TestServer } from './http-helpers.js';

let s: TestServer;
let repo: string;
let stranger: { webId: string; pem: string };
/** The commit at which private/aaaa/ was first written. */
let firstVersion: string;


let port: number;
let data: string;

/** A data directory whose end-user and admin dataspaces both keep their history (agent documents have mementos too). */
function versionedDataDir(): string {
  const dir = tempDir('refusals');
  const base = `https://localhost:${port}/`;
  writeFileSync(join(dir, 'system.ttl'), [
    `@prefix lapp: <${ns.lapp}> . @prefix dct: <${ns.dct}> . @prefix lds: <${ns.lds}> . @prefix doap: <${ns.doap}> .`,
    `<${base}> a lapp:EndUserApplication ; dct:identifier "end-user" ; lapp:adminApplication <${base}admin/> ; lds:versioningRepository <urn:x:end-user> .`,
    `<${base}admin/> a lapp:AdminApplication ; dct:identifier "admin" ; lds:versioningRepository <urn:x:admin> .`,
    '<urn:x:end-user> a doap:GitRepository . <urn:x:admin> a doap:GitRepository .',
  ].join('\n'));
  return dir;
}

before(async () => {
  port = await freePort();
  data = versionedDataDir();
  s = await startServer(['--port', String(port)], data);
  repo = s.running.runtimes[0]!.dataspace.store.dir;
  for (const [path, body] of [
    ['private/', `<> a <${ns.dh}Container> .`],
    ['private/aaaa/', '<#this> <http://purl.org/dc/terms/title> "a private document" .'],
  ] as const) {
    const res = await s.request('PUT', path, { headers: turtle, body });
    assert.equal(res.status, 201, res.body);
  }
  firstVersion = headOf(repo);
  const head = await s.request('HEAD', 'private/aaaa/');
  const res = await s.request('PUT', 'private/aaaa/', { headers: { ...turtle, 'If-Match': String(header(head, 'etag')) }, body: '<#this> <http://purl.org/dc/terms/title> "a private document, edited" .' });
  assert.equal(res.status, 200, res.body);
  stranger = await signUp(s, 'Mallory', 'mallory@example.org');
});

after(async () => {
  await s?.close();
  removeTempDirs();
});

/** The answer as a comparable value: status, every header but Date, the body; `name` (the path's last segment) replaced. */
function shape(res: Response, name: string): { status: number; headers: Record<string, unknown>; body: string } {
  const headers: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(res.headers)) if (key !== 'date') headers[key] = typeof value === 'string' ? value.replaceAll(name, '<name>') : value;
  return { status: res.status, headers, body: res.body.replaceAll(name, '<name>') };
}

describe('the existence oracle: an agent without rights cannot tell an existing document from a missing one', () => {
  // private/aaaa/ exists, private/bbbb/ never did: same length, so a Content-Length cannot differ by the name
  const requests = (version: string): Array<{ method: string; query?: string; headers?: Record<string, string>; body?: string }> => [
    { method: 'GET' },
    { method: 'GET', headers: { Accept: 'text/html' } },
    { method: 'GET', headers: { Accept: 'application/ld+json' } },
    { method: 'HEAD' },
    { method: 'PUT', headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "mine now" .' },
    { method: 'PUT', headers: { ...turtle, 'If-None-Match': '*' }, body: '' },
    { method: 'POST', headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "appended" .' },
    { method: 'PATCH', headers: { 'Content-Type': 'application/sparql-update' }, body: 'INSERT DATA { <#this> <http://purl.org/dc/terms/title> "patched" }' },
    { method: 'DELETE' },
    { method: 'OPTIONS' },
    { method: 'GET', query: `version=${version}` },
    { method: 'HEAD', query: `version=${version}` },
    { method: 'GET', query: 'timemap' },
    { method: 'GET', query: 'timemap', headers: { Accept: 'application/link-format' } },
    { method: 'GET', query: 'timegate' },
    { method: 'GET', query: `diff=${version}` },
    { method: 'POST', query: `restore=${version}`, headers: { 'If-Match': '"x"' } },
  ];

  for (const who of ['anonymous', 'a stranger who signed up'] as const) {
    it(`as ${who}: the same status, headers and body for private/aaaa/ (exists) and private/bbbb/ (never did)`, async () => {
      const as = who === 'anonymous' ? ('anonymous' as const) : { pem: stranger.pem };
      const before = headOf(repo);
      for (const request of requests(firstVersion)) {
        const answers = [];
        for (const name of ['aaaa', 'bbbb']) {
          const path = `private/${name}/${request.query ? `?${request.query}` : ''}`;
          const res = await s.request(request.method, path, { as, headers: request.headers, body: request.body });
          answers.push(shape(res, name));
        }
        const what = `${request.method} ${request.query ?? ''} ${JSON.stringify(request.headers ?? {})}`;
        assert.deepEqual(answers[0], answers[1], `${what}: existing and missing answer alike`);
        if (request.method !== 'OPTIONS') assert.equal(answers[0]!.status, 403, `${what}: refused (${answers[0]!.body.slice(0, 200)})`);
      }
      // through the proxy: a URL of this dataspace is answered by its own route
      const proxied = await Promise.all(['aaaa', 'bbbb'].map(async (name) => shape(await s.request('GET', `/?uri=${encodeURIComponent(`${s.base}private/${name}/`)}`, { as }), name)));
      assert.deepEqual(proxied[0], proxied[1]);
      assert.equal(proxied[0]!.status, 403);
      // admin/access?this= tells the asker what it holds there: nothing, whether or not the document exists
      const access = await Promise.all(['aaaa', 'bbbb'].map(async (name) => shape(await s.request('GET', `/admin/access?this=${encodeURIComponent(`${s.base}private/${name}/`)}`, { as, headers: { Accept: 'application/n-triples' } }), name)));
      assert.deepEqual(access[0], access[1]);
      assert.equal(headOf(repo), before, 'nothing was written');
    });

    it(`as ${who}: the same for the admin dataspace's acl/groups/owners/ (exists) and acl/groups/nobody/ (never did)`, async () => {
      const as = who === 'anonymous' ? ('anonymous' as const) : { pem: stranger.pem };
      const adminRepo = s.running.runtimes[1]!.dataspace.store.dir;
      const before = headOf(adminRepo);
      for (const request of requests(before)) {
        const answers = [];
        for (const name of ['owners', 'nobody']) {
          const res = await s.request(request.method, `/admin/acl/groups/${name}/${request.query ? `?${request.query}` : ''}`, { as, headers: request.headers, body: request.body });
          answers.push(shape(res, name));
        }
        assert.deepEqual(answers[0], answers[1], `${request.method} ${request.query ?? ''}: existing and missing answer alike`);
      }
      assert.equal(headOf(adminRepo), before, 'nothing was written');
    });
  }

  it('the refusal of a PUT names neither the mode that was missing nor the parent container', async () => {
    for (const name of ['aaaa', 'bbbb']) {
      const title = assertRdfError(await s.request('PUT', `private/${name}/`, { as: { pem: stranger.pem }, headers: turtle, body: '' }), 403);
      assert.ok(title.includes(`${s.base}private/${name}/`), title);
      assert.doesNotMatch(title, /Append/);
    }
  });
});

describe('foaf:mbox reaches only the agent itself and its owners', () => {
  let victim: { webId: string; pem: string };
  let path: string;
  let versions: string[];
  const adminRepo = () => s.running.runtimes[1]!.dataspace.store.dir;
  const NT = { Accept: 'application/n-triples' };

  before(async () => {
    victim = await signUp(s, 'Victor', 'victor@example.org');
    path = new URL(victim.webId.replace(/#this$/, '')).pathname;
    const first = headOf(adminRepo());
    // the agent changes its address: both addresses are in its history
    const head = await s.request('HEAD', path, { as: { pem: victim.pem } });
    const patch = `DELETE { <#this> <${ns.foaf}mbox> ?old } INSERT { <#this> <${ns.foaf}mbox> <mailto:victor@example.net> } WHERE { <#this> <${ns.foaf}mbox> ?old }`;
    const res = await s.request('PATCH', path, { as: { pem: victim.pem }, headers: { 'Content-Type': 'application/sparql-update', 'If-Match': String(header(head, 'etag')) }, body: patch });
    assert.equal(res.status, 204, res.body);
    versions = [first, headOf(adminRepo())];
  });

  const readers = () => [
    { who: 'anonymous', as: 'anonymous' as const, sees: false },
    { who: 'a stranger who signed up', as: { pem: stranger.pem }, sees: false },
    { who: 'the agent itself', as: { pem: victim.pem }, sees: true },
    { who: 'the owner of the server', as: 'owner' as const, sees: true },
  ];

  it('in the RDF of the profile (twice: the second answer may come from the read fast path) and its page', async () => {
    for (const reader of readers()) {
      for (let i = 0; i < 2; i++) {
        const res = await s.request('GET', path, { as: reader.as, headers: NT });
        assert.equal(res.status, 200, res.body);
        assert.equal(/mailto:/.test(res.body), reader.sees, `${reader.who} (${i}): ${res.body}`);
        assert.match(res.body, /mbox_sha1sum/, reader.who);
      }
      const page = await s.request('GET', path, { as: reader.as, headers: { Accept: 'text/html' } });
      assert.equal(page.status, 200);
      assert.equal(page.body.includes('victor@example.net'), reader.sees, `${reader.who}: the page`);
    }
    // and in the other order: what a page keeps of the document it drew for those who see the address (read-caches.ts) is not what it draws for the others
    for (const reader of readers().reverse()) {
      const page = await s.request('GET', path, { as: reader.as, headers: { Accept: 'text/html' } });
      assert.equal(page.body.includes('victor@example.net'), reader.sees, `${reader.who}, after the others: the page`);
    }
  });

  it('in its mementos, their pages and the comparison of two versions', async () => {
    for (const reader of readers()) {
      for (const headers of [NT, NT, { Accept: 'text/html' }]) {
        const memento = await s.request('GET', `${path}?version=${versions[0]}`, { as: reader.as, headers });
        assert.equal(memento.status, 200, memento.body);
        assert.equal(memento.body.includes('victor@example.org'), reader.sees, `${reader.who}: the memento as ${headers.Accept}`);
      }
      for (const headers of [{ Accept: 'text/plain' }, { Accept: 'text/html' }]) {
        const diff = await s.request('GET', `${path}?diff=${versions[0]}&to=${versions[1]}`, { as: reader.as, headers });
        assert.equal(diff.status, 200, diff.body);
        assert.equal(/victor@example\.(org|net)/.test(diff.body), reader.sees, `${reader.who}: the diff as ${headers.Accept}: ${diff.body.slice(0, 500)}`);
      }
    }
  });

  it('mementos of a profile: public for the view anonymous agents get, private for the agent’s own', async () => {
    for (let i = 0; i < 2; i++) {
      const anonymous = await s.request('GET', `${path}?version=${versions[0]}`, { as: 'anonymous', headers: NT });
      assert.equal(header(anonymous, 'cache-control'), 'public, max-age=31536000, immutable');
      const own = await s.request('GET', `${path}?version=${versions[0]}`, { as: { pem: victim.pem }, headers: NT });
      assert.equal(header(own, 'cache-control'), 'private, max-age=31536000, immutable');
    }
  });
});

describe('mementos of private documents are not for shared caches', () => {
  it('private, immutable for a private document; public, immutable once anonymous agents may read it', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await s.request('GET', `private/aaaa/?version=${firstVersion}`, { headers: { Accept: 'text/turtle' } });
      assert.equal(res.status, 200, res.body);
      assert.equal(header(res, 'cache-control'), 'private, max-age=31536000, immutable', `read ${i + 1}`);
    }
    await putAuthorization('public-private-aaaa', `<${ns.acl}agentClass> <${ns.foaf}Agent> ; <${ns.acl}mode> <${ns.acl}Read> ; <${ns.acl}accessTo> <${s.base}private/aaaa/>`);
    for (const as of ['owner', 'anonymous', 'anonymous'] as const) {
      const res = await s.request('GET', `private/aaaa/?version=${firstVersion}`, { as, headers: { Accept: 'text/turtle' } });
      assert.equal(res.status, 200, res.body);
      assert.equal(header(res, 'cache-control'), 'public, max-age=31536000, immutable', as);
    }
    const rule = await s.request('HEAD', '/admin/acl/authorizations/public-private-aaaa/');
    assert.equal((await s.request('DELETE', '/admin/acl/authorizations/public-private-aaaa/', { headers: { 'If-Match': String(header(rule, 'etag')) } })).status, 204);
    assert.equal((await s.request('GET', `private/aaaa/?version=${firstVersion}`, { as: 'anonymous' })).status, 403);
  });
});

describe('the ETag oracle', () => {
  it('an ETag an agent with Append only gets by HEAD cannot be recomputed from a guess of the content', async () => {
    for (const [path, body] of [['inbox/', `<> a <${ns.dh}Container> .`], ['inbox/note/', '<#this> <http://purl.org/dc/terms/description> "the PIN is 4711" .']] as const) {
      assert.equal((await s.request('PUT', path, { headers: turtle, body })).status, 201);
    }
    await putAuthorization('stranger-appends', `<${ns.acl}agent> <${stranger.webId}> ; <${ns.acl}mode> <${ns.acl}Append> ; <${ns.acl}accessTo> <${s.base}inbox/note/>`);
    const url = `${s.base}inbox/note/`;
    assertRdfError(await s.request('GET', 'inbox/note/', { as: { pem: stranger.pem } }), 403);
    // the best guess there is: the stored bytes themselves, as git hashes them
    const guess = Buffer.from(git(repo, 'show', 'HEAD:graphs/inbox/note.nt'), 'utf8');
    const blobId = createHash('sha1').update(`blob ${guess.length}\0`).update(guess).digest('hex');
    assert.equal(blobId, git(repo, 'rev-parse', 'HEAD:graphs/inbox/note.nt').trim());
    for (const type of ['text/turtle', 'application/n-triples', 'application/ld+json']) {
      const head = await s.request('HEAD', 'inbox/note/', { as: { pem: stranger.pem }, headers: { Accept: type } });
      assert.equal(head.status, 200);
      const unkeyed = `"${createHash('sha1').update(`${url}\0${blobId}\0${type}`).digest('base64url')}"`;
      assert.match(String(header(head, 'etag')), /^"[A-Za-z0-9_-]{27}"$/);
      assert.notEqual(header(head, 'etag'), unkeyed, `${type}: the ETag is no digest of public inputs`);
      // and it is the validator of that representation: the agent's append goes in with it
      const post = await s.request('POST', 'inbox/note/', { as: { pem: stranger.pem }, headers: { ...turtle, Accept: type, 'If-Match': String(header(head, 'etag')) }, body: '<#this> <http://purl.org/dc/terms/description> "appended" .' });
      assert.equal(post.status, 204, post.body);
    }
  });
});

describe('the PATCH oracle: a writer that may not read learns nothing of the content', () => {
  it('an update whose WHERE reads the document is refused, and every other PATCH makes a new version, whatever it matched', async () => {
    assert.equal((await s.request('PUT', 'payroll/', { headers: turtle, body: `<#this> <http://example.org/salary> 120000 .` })).status, 201);
    await putAuthorization('stranger-writes-payroll', `<${ns.acl}agent> <${stranger.webId}> ; <${ns.acl}mode> <${ns.acl}Write> ; <${ns.acl}accessTo> <${s.base}payroll/>`);
    assertRdfError(await s.request('GET', 'payroll/', { as: { pem: stranger.pem } }), 403);
    const as = { pem: stranger.pem };
    const patch = async (update: string) => {
      const head = await s.request('HEAD', 'payroll/', { as, headers: { Accept: 'text/turtle' } });
      const sent = String(header(head, 'etag'));
      const before = headOf(repo);
      const res = await s.request('PATCH', 'payroll/', { as, headers: { 'Content-Type': 'application/sparql-update', Accept: 'text/turtle', 'If-Match': sent }, body: update });
      return { res, sent, moved: headOf(repo) !== before };
    };
    // a binary search over a value it may not read: a WHERE that reads is refused, saying why
    for (const bound of [100000, 150000]) {
      const { res, moved } = await patch(`INSERT { <#probe> <http://example.org/p> "x" } WHERE { <#this> <http://example.org/salary> ?o FILTER(?o > ${bound}) }`);
      assertRdfError(res, 403, { title: /Read/ });
      assert.equal(moved, false, 'nothing committed');
    }
    // a guessed triple deleted or inserted without a WHERE: a new version either way, so the ETag says nothing
    for (const update of [`DELETE { <#this> <http://example.org/salary> 120000 } WHERE {}`, `DELETE { <#this> <http://example.org/salary> 1 } WHERE {}`, `INSERT { <#this> <http://example.org/salary> 120000 } WHERE {}`]) {
      const { res, sent, moved } = await patch(update);
      assert.equal(res.status, 204, res.body);
      assert.notEqual(header(res, 'etag'), sent, `${update}: a new ETag`);
      assert.equal(moved, true, `${update}: a commit`);
    }
    // the owner, who reads it, is still told when nothing changed
    const head = await s.request('HEAD', 'payroll/', { headers: { Accept: 'text/turtle' } });
    const res = await s.request('PATCH', 'payroll/', { headers: { 'Content-Type': 'application/sparql-update', Accept: 'text/turtle', 'If-Match': String(header(head, 'etag')) }, body: `DELETE { <#this> <http://example.org/nothing> 1 } WHERE { <#this> <http://example.org/nothing> 1 }` });
    assert.equal(res.status, 204);
    assert.equal(header(res, 'etag'), header(head, 'etag'));
  });
});

describe('history of a URL made again by someone else', () => {
  it('a stranger who makes a deleted document again owns it, not what the owner wrote there before: its mementos, diffs and restores are refused', async () => {
    assert.equal((await s.request('PUT', 'drop/', { headers: turtle, body: `<> a <${ns.dh}Container> .` })).status, 201);
    await putAuthorization('strangers-append-drop', `<${ns.acl}agentClass> <${ns.acl}AuthenticatedAgent> ; <${ns.acl}mode> <${ns.acl}Append> ; <${ns.acl}accessTo> <${s.base}drop/>`);
    assert.equal((await s.request('PUT', 'drop/payroll/', { headers: turtle, body: '<#this> <http://example.org/salary> 120000 .' })).status, 201);
    const owners = headOf(repo);
    const head = await s.request('HEAD', 'drop/payroll/', { headers: { Accept: 'text/turtle' } });
    assert.equal((await s.request('DELETE', 'drop/payroll/', { headers: { 'If-Match': String(header(head, 'etag')) } })).status, 204);
    const as = { pem: stranger.pem };
    assert.equal((await s.request('PUT', 'drop/payroll/', { as, headers: turtle, body: '<#this> <http://example.org/note> "mine" .' })).status, 201);
    const mine = headOf(repo);
    // the owner reads its version first: the read fast path knows the memento from then on
    assert.equal((await s.request('GET', `drop/payroll/?version=${owners}`, { headers: { Accept: 'text/turtle' } })).status, 200);
    for (let i = 0; i < 2; i++) {
      const res = await s.request('GET', `drop/payroll/?version=${owners}`, { as, headers: { Accept: 'text/turtle' } });
      assertRdfError(res, 403);
      assert.doesNotMatch(res.body, /120000/);
    }
    const page = await s.request('GET', `drop/payroll/?version=${owners}`, { as, headers: { Accept: 'text/html' } });
    assert.equal(page.status, 403);
    assert.doesNotMatch(page.body, /120000/);
    assertRdfError(await s.request('GET', `drop/payroll/?diff=${owners}`, { as }), 403);
    assertRdfError(await s.request('GET', `drop/payroll/?diff=${mine}&to=${owners}`, { as }), 403);
    const current = await s.request('HEAD', 'drop/payroll/', { as, headers: { Accept: 'text/turtle' } });
    assertRdfError(await s.request('POST', `drop/payroll/?restore=${owners}`, { as, headers: { Accept: 'text/turtle', 'If-Match': String(header(current, 'etag')) } }), 403);
    assert.equal(headOf(repo), mine, 'nothing restored');
    // its own version is its own
    const own = await s.request('GET', `drop/payroll/?version=${mine}`, { as, headers: { Accept: 'text/turtle' } });
    assert.equal(own.status, 200, own.body);
    assert.match(own.body, /mine/);
  });
});

describe('the admin dataspace’s space is reached by no spelling through the end-user one', () => {
  const adminRepo = () => s.running.runtimes[1]!.dataspace.store.dir;
  const endUserFiles = () => git(repo, 'ls-tree', '-r', '--name-only', 'HEAD').split('\n').filter(Boolean);

  it('PUT /%61dmin/… and other spellings: stored in the admin dataspace under its rules, or refused; never an end-user document in its space', async () => {
    const container = `<> a <${ns.dh}Container> .`;
    const spellings = ['/%61dmin/', '/%61dmin/acl/', '/%61%64%6d%69%6e/acl/x1/', '/%61dmin/acl/authorizations/x2/', '/adm%69n/acl/x3/', '/%41dmin/x4/', '/x/%2E%2E/admin/acl/x5/', '/%2e%2e/admin/acl/x6/', '/admin%2Facl/x7/', '/;/admin/acl/x8/', '/./admin/acl/x9/', '/%61dmin;/acl/x10/'];
    const before = endUserFiles();
    for (const spelling of spellings) {
      // as the stranger, whose rules in the admin dataspace let it write nothing there
      const refused = await rawPut(spelling, { pem: stranger.pem }, container);
      assert.ok(refused.status >= 400 && refused.status < 500, `${spelling} as a stranger: ${refused.status} ${refused.body}`);
      // as the owner: created where its normal form lies, or refused
      const owner = await rawPut(spelling, 'owner', container);
      const location = header(owner, 'location');
      if (owner.status === 201) assert.ok(location?.startsWith(s.admin) || !new URL(location!).pathname.startsWith('/admin'), `${spelling}: created at ${location}`);
      else assert.ok(owner.status >= 400 && owner.status < 500, `${spelling}: ${owner.status} ${owner.body}`);
    }
    const added = endUserFiles().filter((f) => !before.includes(f));
    assert.deepEqual(added.filter((f) => f.startsWith('graphs/admin')), [], 'no end-user document in the admin dataspace’s space');
    assert.ok(git(adminRepo(), 'ls-tree', '-r', '--name-only', 'HEAD').includes('graphs/acl/x1.nt'), '%61dmin is admin: the owner’s document went there');
  });
});

describe('locate and documentPathIn (property tests): a path is routed and mapped by its normal form', () => {
  const bases = ['https://localhost:4443/', 'https://localhost:4443/admin/', 'https://localhost:4443/a:b/'];
  const runtimes = bases.map((base) => ({ documents: { base } }) as unknown as DataspaceRuntime);
  /** Where a request path's document is: its dataspace's base and canonical path, or refused (a 400). */
  const documentAt = (path: string): { base: string; path: string } | 'refused' => {
    const { runtime, relative } = locate(runtimes, 'https', 'LocalHost:4443', path);
    try {
      return { base: runtime!.documents.base, path: documentPathIn(runtimes, runtime!, relative) };
    } catch (error) {
      if (error instanceof LodestoneError && error.code === 'InvalidPath') return 'refused';
      throw error;
    }
  };
  const encode = (char: string, upper: boolean) => [...Buffer.from(char, 'utf8')].map((b) => '%' + (upper ? b.toString(16).toUpperCase() : b.toString(16)).padStart(2, '0')).join('');
  const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
  const segment = fc.oneof(fc.constantFrom('admin', 'acl', 'a:b', 'x', '..', '.', ';', 'Admin'), fc.string({ unit: fc.constantFrom(...'admin-._~!$&\'()*+,;=:@é/ %'.split('')), minLength: 1, maxLength: 6 }));
  // a document path: segments joined, each ending with "/"; an encoding of each character decided by `choices`
  const spelled = (segments: string[], choices: boolean[], which: (char: string) => boolean) => {
    let i = 0;
    const spell = (s: string) => [...s].map((c) => (which(c) && choices[i++ % choices.length] ? encode(c, choices[(i * 7) % choices.length]!) : c === '%' || c === '/' || c === ' ' ? encode(c, true) : c)).join('');
    return '/' + segments.map((s) => spell(s) + '/').join('');
  };

  it('percent-encoded unreserved characters (any case) and the host’s case change nothing', () => {
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }), (segments, choices) => {
        const plain = spelled(segments, [false], () => false);
        assert.deepEqual(documentAt(spelled(segments, choices, (c) => UNRESERVED.test(c))), documentAt(plain));
      }),
      { numRuns: 2000 },
    );
  });

  it('whatever is encoded, a document is in the dataspace its URL lies in, or refused; nothing under /admin/ is an end-user document', () => {
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }), (segments, choices) => {
        const found = documentAt(spelled(segments, choices, () => true));
        if (found === 'refused') return;
        const url = found.base + found.path;
        assert.equal(runtimeFor(runtimes, url)!.documents.base, found.base, url);
        if (url.startsWith(bases[1]!)) assert.equal(found.base, bases[1], url);
      }),
      { numRuns: 2000 },
    );
    assert.deepEqual(documentAt('/%61dmin/acl/x/'), { base: bases[1], path: 'acl/x/' });
    assert.deepEqual(documentAt('/%61%3Ab/x/'), 'refused', 'a:b is another dataspace, which a %3A in the end-user one must not reach');
  });
});

describe('a body whose values do not all convert is a 400 naming the value, and nothing is committed', () => {
  const EX = 'http://example.org/ns#';
  const json = (value: unknown) => JSON.stringify({ '@id': '#this', [`${EX}kept`]: 'kept', ...(value as object) });
  const cases: Array<[string, string, string, RegExp]> = [
    ['JSON-LD, a language tag that is not one', 'application/ld+json', json({ [`${EX}p`]: { '@value': 'x', '@language': 'not a tag!' } }), /not a tag!/],
    ['JSON-LD, a language tag with an underscore', 'application/ld+json', json({ [`${EX}p`]: { '@value': 'x', '@language': 'en_US' } }), /en_us/i],
    ['JSON-LD, a language tag BCP 47 refuses', 'application/ld+json', json({ [`${EX}p`]: { '@value': 'x', '@language': 'en-a' } }), /en-a/],
    ['JSON-LD, an object IRI with a space', 'application/ld+json', json({ [`${EX}p`]: { '@id': 'http://exa mple/' } }), /http:\/\/exa mple\//],
    ['JSON-LD, a subject IRI with a space', 'application/ld+json', JSON.stringify([{ '@id': '#this', [`${EX}kept`]: 'kept' }, { '@id': 'http://a b/', [`${EX}p`]: 'v' }]), /http:\/\/a b\//],
    ['JSON-LD, a property that is no IRI', 'application/ld+json', json({ 'not a property': 'v' }), /not a property/],
    ['JSON-LD, a type that is no IRI', 'application/ld+json', json({ '@type': 'not a type' }), /not a type/],
    ['JSON-LD, a list member that is no IRI', 'application/ld+json', json({ [`${EX}p`]: { '@list': ['a', { '@id': 'http://a b/' }] } }), /http:\/\/a b\//],
    ['JSON-LD, a base direction', 'application/ld+json', json({ [`${EX}p`]: { '@value': 'x', '@direction': 'rtl' } }), /direction/],
    ['JSON-LD, a value floating free', 'application/ld+json', JSON.stringify({ '@graph': [{ '@id': '#this', [`${EX}kept`]: 'kept' }, 'a string'] }), /a string|scalar/],
    ['RDF/XML, a language tag', 'application/rdf+xml', `<?xml version="1.0"?><rdf:RDF xmlns:rdf="${ns.rdf}" xmlns:ex="${EX}"><rdf:Description rdf:about="#this"><ex:p xml:lang="not a tag!">x</ex:p></rdf:Description></rdf:RDF>`, /not a tag!/],
    ['RDF/XML, an IRI', 'application/rdf+xml', `<?xml version="1.0"?><rdf:RDF xmlns:rdf="${ns.rdf}" xmlns:ex="${EX}"><rdf:Description rdf:about="#this"><ex:p rdf:resource="http://a b/"/></rdf:Description></rdf:RDF>`, /http:\/\/a b\//],
    ['N-Quads, a language tag', 'application/n-quads', `<${EX}s> <${EX}p> "x"@en-a .`, /en-a|subtag/],
    ['N-Quads, an IRI', 'application/n-quads', `<${EX}s> <${EX}p> <http://a b/> .`, /code point ' '|http:\/\/a b/],
    ['TriG, a language tag', 'application/trig', `<${EX}s> <${EX}p> "x"@abcdefghi .`, /abcdefghi|eight characters/],
    ['TriG, an IRI', 'application/trig', `<${EX}s> <${EX}p> <http://a b/> .`, /code point ' '|http:\/\/a b/],
    ['Turtle, a language tag BCP 47 refuses', 'text/turtle', `<#this> <${EX}p> "x"@abcdefghi .`, /abcdefghi/],
    ['Turtle, an empty extension subtag', 'text/turtle', `<#this> <${EX}p> "x"@en-a .`, /en-a/],
    ['N-Triples, a language tag BCP 47 refuses', 'application/n-triples', `<${EX}s> <${EX}p> "x"@en-a .`, /en-a/],
    ['RDF/POST, a language tag', 'application/x-www-form-urlencoded', `rdf=&su=${encodeURIComponent(EX + 's')}&pu=${encodeURIComponent(EX + 'p')}&ol=x&ll=abcdefghi`, /abcdefghi/],
    ['RDF/POST, an object IRI with a space', 'application/x-www-form-urlencoded', `rdf=&su=${encodeURIComponent(EX + 's')}&pu=${encodeURIComponent(EX + 'p')}&ou=${encodeURIComponent('http://example.org/a b')}`, /http:\/\/example.org\/a b/],
    ['RDF/POST, a datatype that is no IRI', 'application/x-www-form-urlencoded', `rdf=&su=${encodeURIComponent(EX + 's')}&pu=${encodeURIComponent(EX + 'p')}&ol=x&lt=${encodeURIComponent('not an iri')}`, /not an iri/],
  ];
  for (const [name, type, body, value] of cases) {
    it(`${name}: 400`, async () => {
      const before = headOf(repo);
      const path = `lossy-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}/`;
      const title = assertRdfError(await s.request('PUT', path, { headers: { 'Content-Type': type }, body }), 400);
      assert.match(title, value, title);
      assert.equal(headOf(repo), before, 'nothing was committed');
    });
  }

  it('JSON-LD that converts whole still goes in: the server’s own JSON-LD of a document, compacted too, and an empty object', async () => {
    const path = 'lossless/';
    assert.equal((await s.request('PUT', path, { headers: turtle, body: `<#this> <${EX}p> "x"@en-GB, 5, "2020-01-01"^^<${ns.xsd}date> ; <${EX}q> [ <${EX}r> <${EX}o> ] ; <${EX}list> ( "a" <${EX}b> ) .` })).status, 201);
    for (const accept of ['application/ld+json', 'application/ld+json; profile="http://www.w3.org/ns/json-ld#compacted"']) {
      const read = await s.request('GET', path, { headers: { Accept: accept } });
      const before = await s.request('GET', path, { headers: { Accept: 'application/n-triples' } });
      const put = await s.request('PUT', path, { headers: { 'Content-Type': 'application/ld+json', Accept: accept, 'If-Match': String(header(read, 'etag')) }, body: read.body });
      assert.equal(put.status, 200, put.body);
      const after = await s.request('GET', path, { headers: { Accept: 'application/n-triples' } });
      const content = (text: string) => text.split('\n').filter((l) => l && !l.includes(ns.dct + 'modified')).sort();
      assert.deepEqual(content(after.body), content(before.body), accept);
    }
    assert.equal((await s.request('PUT', 'lossless-empty/', { headers: { 'Content-Type': 'application/ld+json' }, body: '{}' })).status, 201);
  });
});

/** A PUT with the path sent byte for byte (URL parsing would normalise it). */
function rawPut(path: string, as: 'owner' | { pem: string }, body: string): Promise<Response> {
  const pem = as === 'owner' ? s.ownerPem : as.pem;
  return sendRequest({ host: 'localhost', port, path, protocol: 'https:', cert: pem, key: pem, rejectUnauthorized: false, agent: false }, { method: 'PUT', headers: turtle }, body);
}

describe('HEAD for an agent that may not read', () => {
  it('gives the validator and nothing of the content: no Content-Length, no page drawn; alike for a small and a large document', async () => {
    for (const [path, body] of [['drafts/', `<> a <${ns.dh}Container> .`], ['drafts/small/', '<#this> <http://purl.org/dc/terms/description> "x" .'], ['drafts/large/', `<#this> <http://purl.org/dc/terms/description> "${'x'.repeat(5000)}" .`]] as const) {
      assert.equal((await s.request('PUT', path, { headers: turtle, body })).status, 201);
    }
    await putAuthorization('stranger-appends-drafts', `<${ns.acl}agent> <${stranger.webId}> ; <${ns.acl}mode> <${ns.acl}Append> ; <${ns.acl}accessTo> <${s.base}drafts/small/>, <${s.base}drafts/large/>`);
    for (const accept of ['text/turtle', 'application/ld+json', 'text/html']) {
      const [small, large] = await Promise.all(['small', 'large'].map((name) => s.request('HEAD', `drafts/${name}/`, { as: { pem: stranger.pem }, headers: { Accept: accept } })));
      const [a, b] = [shape(small!, 'small'), shape(large!, 'large')];
      delete a.headers.etag;
      delete b.headers.etag;
      assert.deepEqual(a, b, accept);
      if (accept === 'text/html') {
        assert.equal(small!.status, 406, 'a page is for readers: no page is drawn for a HEAD that asks for one');
        continue;
      }
      assert.equal(small!.status, 200);
      assert.equal(header(small!, 'content-length'), undefined, accept);
      assert.ok(header(small!, 'etag'), `${accept}: the validator`);
    }
    // an agent that may read gets the length, as before
    assert.ok(header(await s.request('HEAD', 'drafts/large/', { headers: turtle }), 'content-length'));
  });
});

/** An authorization document in the admin dataspace, written by the owner. */
async function putAuthorization(slug: string, rule: string): Promise<void> {
  const res = await s.request('PUT', `/admin/acl/authorizations/${slug}/`, { headers: turtle, body: `<#this> a <${ns.acl}Authorization> ; ${rule} .` });
  assert.equal(res.status, 201, res.body);
}

// last: it restarts the server
describe('ETags survive a restart', () => {
  it('the same ETags after a restart on the same data directory, whose secrets/etag.key only its owner may read', async () => {
    const types = ['text/turtle', 'application/ld+json', 'text/html'];
    const before = await Promise.all(types.map(async (type) => header(await s.request('HEAD', 'private/aaaa/', { headers: { Accept: type } }), 'etag')));
    await s.close();
    const key = join(data, 'secrets', 'etag.key');
    assert.equal(statSync(key).mode & 0o777, 0o600);
    assert.equal(readFileSync(key).length, 32);
    s = await startServer(['--port', String(port)], data);
    const after = await Promise.all(types.map(async (type) => header(await s.request('HEAD', 'private/aaaa/', { headers: { Accept: type } }), 'etag')));
    assert.deepEqual(after.slice(0, 2), before.slice(0, 2));
    const read = await s.request('HEAD', 'private/aaaa/', { headers: turtle });
    const put = await s.request('PUT', 'private/aaaa/', { headers: { ...turtle, 'If-Match': String(before[0]) }, body: '<#this> <http://purl.org/dc/terms/title> "after the restart" .' });
    assert.equal(put.status, 200, `an ETag read before the restart still holds for If-Match: ${put.body} ${String(header(read, 'etag'))}`);
  });
});
