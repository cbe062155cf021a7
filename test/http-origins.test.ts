/**
 * Origins over HTTPS (DESIGN.md, "Origins"; src/http/origins.ts, authenticate.ts, app.ts): a request
 * that carries the owner's certificate acts as the owner only from the dataspace's own origin, an
 * origin `--cors-origin` trusts, or one its `lds:corsOrigin` in system.ttl trusts; from anywhere else
 * it is anonymous, and preflights and answers give such origins `*` and never credentials. Every
 * answer says `Vary: Origin` and `X-Content-Type-Options: nosniff` (fast path, Koa, errors, Node's
 * own refusals), and HSTS at a real name. The server is at https://lodestone.test:<port>/ (reached on
 * loopback with that Host), a real name for HSTS. Refused writes are checked against git.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type WebIdVerifier } from '../src/auth/webid-tls.js';
import { serveConfig } from '../src/config.js';
import { Authenticator, credentialsCount } from '../src/http/authenticate.js';
import { fastReader } from '../src/http/fast-read.js';
import { ReadCaches } from '../src/http/read-caches.js';
import { originTrust, strictTransport } from '../src/http/origins.js';
import { webOrigin } from '../src/net/web-origin.js';
import { Etags, RepresentationCache } from '../src/http/representations.js';
import { ns } from '../src/rdf/namespaces.js';
import { defaultSystemConfig } from '../src/system-config.js';
import { headOf, removeTempDirs, tempDir } from './helpers.js';
import { assertRdfError, freePort, header, sendRequest, startServer, turtle, type Response, type TestServer } from './http-helpers.js';

const EVERYWHERE = 'https://everywhere-app.example'; // --cors-origin
const END_USER_APP = 'https://dataspace-app.example'; // lds:corsOrigin of the end-user dataspace only
const ATTACKER = 'https://attacker.example';

let s: TestServer;
let base: string;
let admin: string;
let repo: string;
let host: string;
let port: number; // the one --port names (s.port is the helper's own choice, overridden)

before(async () => {
  const data = tempDir('origins');
  port = await freePort();
  host = `lodestone.test:${port}`;
  base = `https://${host}/`;
  admin = `${base}admin/`;
  writeFileSync(join(data, 'system.ttl'), `${defaultSystemConfig(base)}\n<${base}> lds:corsOrigin <${END_USER_APP}> .\n`);
  s = await startServer(['--port', String(port), '--base', base, '--cors-origin', EVERYWHERE], data);
  repo = s.running.runtimes[0]!.dataspace.store.dir;
  assert.equal((await ask('PUT', 'private/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "private" .' })).status, 201);
  assert.equal((await ask('PUT', 'public/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "public" .' })).status, 201);
  const acl = ns.acl;
  const text = `<#this> a <${acl}Authorization> ; <${acl}agentClass> <${ns.foaf}Agent> ; <${acl}mode> <${acl}Read> ; <${acl}accessTo> <${base}public/> .\n`;
  await s.running.runtimes[1]!.documents.write({ method: 'PUT', relativePath: 'acl/authorizations/public-doc/', agent: s.running.agents.owner.webId, body: { text, mediaType: 'text/turtle' } });
});
after(async () => {
  await s?.close();
  removeTempDirs();
});

/** A request to the server at its real name, over loopback: as the owner unless `as` says anonymous. */
function ask(method: string, path: string, options: { headers?: Record<string, string>; body?: string; as?: 'owner' | 'anonymous' } = {}): Promise<Response> {
  const pem = options.as === 'anonymous' ? {} : { cert: s.ownerPem, key: s.ownerPem };
  const url = new URL(path, base);
  return sendRequest({ protocol: 'https:', hostname: '127.0.0.1', port, path: url.pathname + url.search, method, headers: { Host: host, ...options.headers }, rejectUnauthorized: false, agent: false, ...pem }, {}, options.body);
}

/** Whether the answer names the owner as the agent (the Link header of a document read). */
function asOwner(res: Response): boolean {
  return header(res, 'link')?.includes(`<${s.running.agents.owner.webId}>; rel="${ns.acl}agent"`) ?? false;
}

function varies(res: Response, field: string): boolean {
  return (header(res, 'vary') ?? '').split(',').some((f) => f.trim().toLowerCase() === field.toLowerCase());
}

describe('which origins are trusted with credentials', () => {
  it('takes origins only, from the flag and from system.ttl', () => {
    assert.equal(webOrigin('https://app.example/'), 'https://app.example');
    assert.equal(webOrigin('HTTPS://App.Example:443'), 'https://app.example');
    assert.equal(webOrigin('http://localhost:8080'), 'http://localhost:8080');
    for (const bad of ['null', '*', 'https://app.example/path', 'https://app.example?x', 'https://u:p@app.example', 'ftp://app.example', 'app.example']) assert.equal(webOrigin(bad), undefined, bad);
    const config = serveConfig(['--cors-origin', 'https://a.example/', '--cors-origin', 'http://localhost:3000']);
    assert.ok(config !== 'help');
    assert.deepEqual(config.corsOrigins, ['https://a.example', 'http://localhost:3000']);
    assert.throws(() => serveConfig(['--cors-origin', '*']), /--cors-origin must be an origin/);
    const trusts = originTrust(['https://a.example'], new Map([['https://d.example/', ['https://b.example']]]));
    assert.equal(trusts('https://d.example/', 'https://d.example'), true, 'its own origin');
    assert.equal(trusts('https://d.example/', 'https://a.example'), true);
    assert.equal(trusts('https://d.example/', 'https://b.example'), true);
    assert.equal(trusts('https://d.example/admin/', 'https://b.example'), false, 'lds:corsOrigin is per dataspace');
    assert.equal(trusts('https://d.example/', 'https://c.example'), false);
  });

  it('believes credentials by Origin, else by Sec-Fetch-*: only a top-level navigation from another site keeps them', () => {
    const trusts = originTrust([]);
    const own = 'https://d.example/';
    const req = (method: string, headers: Record<string, string>) => ({ method, headers }) as unknown as IncomingMessage;
    assert.equal(credentialsCount(req('GET', {}), own, trusts), true, 'curl, another server');
    assert.equal(credentialsCount(req('PUT', { origin: 'https://d.example' }), own, trusts), true);
    assert.equal(credentialsCount(req('PUT', { origin: 'https://evil.example' }), own, trusts), false);
    assert.equal(credentialsCount(req('POST', { origin: 'null' }), own, trusts), false, 'a sandboxed page');
    assert.equal(credentialsCount(req('GET', { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' }), own, trusts), true);
    assert.equal(credentialsCount(req('GET', { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' }), own, trusts), true, 'typed or bookmarked');
    assert.equal(credentialsCount(req('GET', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' }), own, trusts), true, 'a link followed');
    assert.equal(credentialsCount(req('GET', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe' }), own, trusts), false, 'a frame');
    assert.equal(credentialsCount(req('GET', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' }), own, trusts), false, 'an image');
    assert.equal(credentialsCount(req('GET', { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'script' }), own, trusts), false, 'a script');
  });
});

describe('credentialed requests from other origins act as anonymous', () => {
  it('reads a private document as the owner only from its own origin or a trusted one', async () => {
    for (const origin of [base.slice(0, -1), EVERYWHERE, END_USER_APP]) {
      const res = await ask('GET', 'private/', { headers: { Origin: origin, Accept: 'text/turtle' } });
      assert.equal(res.status, 200, `${origin}: ${res.body}`);
      assert.ok(asOwner(res), origin);
      assert.equal(header(res, 'access-control-allow-origin'), origin);
      assert.equal(header(res, 'access-control-allow-credentials'), 'true');
    }
    for (const origin of [ATTACKER, 'null', `https://lodestone.test:${port + 1}`, 'http://' + host]) {
      const res = await ask('GET', 'private/', { headers: { Origin: origin, Accept: 'text/turtle' } });
      assertRdfError(res, 403);
      assert.equal(header(res, 'access-control-allow-origin'), '*', `${origin}: any page may read what anonymous may`);
      assert.equal(header(res, 'access-control-allow-credentials'), undefined, origin);
      assert.ok(varies(res, 'Origin'));
    }
  });

  it('answers a public document to any origin, without credentials', async () => {
    const res = await ask('GET', 'public/', { as: 'anonymous', headers: { Origin: ATTACKER, Accept: 'text/turtle' } });
    assert.equal(res.status, 200, res.body);
    assert.equal(header(res, 'access-control-allow-origin'), '*');
    assert.equal(header(res, 'access-control-allow-credentials'), undefined);
    assert.match(header(res, 'access-control-expose-headers') ?? '', /ETag/);
    const withCert = await ask('GET', 'public/', { headers: { Origin: ATTACKER, Accept: 'text/turtle' } });
    assert.equal(withCert.status, 200);
    assert.ok(!asOwner(withCert), 'the owner’s certificate did not count');
  });

  it('refuses writes from an untrusted origin with the owner’s certificate, and commits nothing; a trusted one writes', async () => {
    const head = headOf(repo);
    const grant = `<#this> a <${ns.acl}Authorization> ; <${ns.acl}agentClass> <${ns.foaf}Agent> ; <${ns.acl}mode> <${ns.acl}Control> ; <${ns.acl}accessTo> <${base}> .`;
    const adminHead = headOf(s.running.runtimes[1]!.dataspace.store.dir);
    const attempts: [string, string, Record<string, string>, string][] = [
      ['PUT', 'by-attacker/', turtle, '<#this> <http://purl.org/dc/terms/title> "x" .'],
      ['PATCH', 'private/', { 'Content-Type': 'application/sparql-update' }, 'INSERT DATA { <#this> <http://purl.org/dc/terms/title> "y" }'],
      ['DELETE', 'private/', {}, ''],
      ['POST', 'sparql', { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' }, 'SELECT * { GRAPH ?g { ?s ?p ?o } }'],
      ['PUT', `${admin}acl/authorizations/stranger/`, turtle, grant],
      ['PATCH', 'settings', { 'Content-Type': 'application/sparql-update' }, 'INSERT { <> <http://purl.org/dc/terms/title> "owned" } WHERE {}'],
      ['POST', `${admin}clear`, {}, ''],
    ];
    for (const [method, path, headers, body] of attempts) {
      const res = await ask(method, path, { headers: { Origin: ATTACKER, 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'cors', ...headers }, body });
      assertRdfError(res, 403);
      assert.equal(header(res, 'access-control-allow-credentials'), undefined, `${method} ${path}`);
    }
    assert.equal(headOf(repo), head, 'the end-user HEAD did not move');
    assert.equal(headOf(s.running.runtimes[1]!.dataspace.store.dir), adminHead, 'the admin HEAD did not move');
    assert.doesNotMatch((await ask('GET', 'settings', { headers: { Accept: 'text/turtle' } })).body, /owned/, 'settings unchanged');
    const trusted = await ask('PUT', 'by-app/', { headers: { Origin: END_USER_APP, ...turtle }, body: '<#this> <http://purl.org/dc/terms/title> "app" .' });
    assert.equal(trusted.status, 201, trusted.body);
    assert.equal(header(trusted, 'access-control-allow-origin'), END_USER_APP);
  });

  it('trusts lds:corsOrigin only in its own dataspace', async () => {
    const agent = s.running.agents.owner.webId;
    const there = await ask('GET', agent, { headers: { Origin: END_USER_APP, Accept: 'text/turtle' } });
    assert.equal(there.status, 200, 'agent documents are public');
    assert.ok(!asOwner(there), 'the end-user dataspace’s app is anonymous in the admin dataspace');
    assert.equal(header(there, 'access-control-allow-origin'), '*');
    const everywhere = await ask('GET', agent, { headers: { Origin: EVERYWHERE, Accept: 'text/turtle' } });
    assert.ok(asOwner(everywhere));
  });

  it('keeps credentials for a link followed from another site, not for its images, scripts or frames (no Origin, Sec-Fetch-*)', async () => {
    const fetchMetadata = (mode: string, dest: string) => ({ 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': mode, 'Sec-Fetch-Dest': dest, Accept: 'text/turtle' });
    for (let i = 0; i < 2; i++) assert.equal((await ask('GET', 'private/', { headers: { Accept: 'text/turtle' } })).status, 200); // cached: the fast path may answer
    const followed = await ask('GET', 'private/', { headers: fetchMetadata('navigate', 'document') });
    assert.equal(followed.status, 200);
    assert.ok(asOwner(followed));
    for (const [mode, dest] of [['no-cors', 'image'], ['no-cors', 'script'], ['navigate', 'iframe'], ['no-cors', 'empty']]) {
      for (const method of ['GET', 'HEAD']) assert.equal((await ask(method, 'private/', { headers: fetchMetadata(mode!, dest!) })).status, 403, `${method} ${mode} ${dest}`);
    }
  });

  it('approves preflights with credentials for trusted origins only; other origins get * (a credentialed request is then never sent)', async () => {
    const preflight = (origin: string, path = 'private/') => ask('OPTIONS', path, { as: 'anonymous', headers: { Origin: origin, 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'content-type, if-match' } });
    for (const origin of [EVERYWHERE, END_USER_APP]) {
      const res = await preflight(origin);
      assert.equal(res.status, 204);
      assert.equal(header(res, 'access-control-allow-origin'), origin);
      assert.equal(header(res, 'access-control-allow-credentials'), 'true');
      assert.match(header(res, 'access-control-allow-methods') ?? '', /PUT/);
      assert.ok(varies(res, 'Origin'));
    }
    for (const [origin, path] of [[ATTACKER, 'private/'], ['null', 'private/'], [END_USER_APP, `${admin}acl/authorizations/x/`]] as const) {
      const res = await preflight(origin, path);
      assert.equal(res.status, 204);
      assert.equal(header(res, 'access-control-allow-origin'), '*', `${origin} ${path}`);
      assert.equal(header(res, 'access-control-allow-credentials'), undefined, `${origin} ${path}`);
      assert.ok(varies(res, 'Origin'));
    }
  });

  it('takes a form from a trusted origin, and refuses the same form from another site', async () => {
    const form = { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'cross-site', Accept: 'text/turtle' };
    const body = 'rdf=&su=' + encodeURIComponent(`${base}by-app/#this`) + '&pu=' + encodeURIComponent('http://purl.org/dc/terms/description') + '&ol=form';
    const etag = header(await ask('GET', 'by-app/', { headers: { Accept: 'text/turtle' } }), 'etag')!;
    assertRdfError(await ask('POST', 'by-app/', { headers: { ...form, Origin: ATTACKER, 'If-Match': etag }, body }), 403);
    const taken = await ask('POST', 'by-app/', { headers: { ...form, Origin: EVERYWHERE, 'If-Match': etag }, body });
    assert.equal(taken.status, 204, taken.body);
  });
});

describe('the headers every answer carries', () => {
  const HSTS = 'max-age=31536000';
  const common = (res: Response, what: string, hsts = true) => {
    assert.equal(header(res, 'x-content-type-options'), 'nosniff', what);
    assert.ok(varies(res, 'Origin'), `${what}: Vary: ${header(res, 'vary')}`);
    assert.equal(header(res, 'strict-transport-security'), hsts ? HSTS : undefined, what);
  };

  it('on document reads (Koa and the fast path alike), pages, SPARQL, errors and redirects', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await ask('GET', 'private/', { headers: { Accept: 'text/turtle' } });
      common(res, `GET ${i}`);
      assert.ok(varies(res, 'Accept'), 'Vary keeps Accept');
    }
    common(await ask('GET', 'private/', { headers: { Accept: 'text/html' } }), 'a page');
    common(await ask('GET', 'sparql?query=' + encodeURIComponent('ASK {}'), { headers: { Accept: 'application/sparql-results+json' } }), 'SPARQL');
    common(await ask('GET', 'missing/'), '404');
    common(await ask('GET', 'private/', { as: 'anonymous' }), '403');
    common(await ask('PROPFIND', 'private/'), '405');
    common(await ask('GET', 'private'), '308');
    common(await ask('GET', 'public/', { headers: { Origin: ATTACKER } }), 'a CORS answer');
    const elsewhere = await sendRequest({ protocol: 'https:', hostname: '127.0.0.1', port, path: '/', headers: { Host: 'unknown.example' }, rejectUnauthorized: false, agent: false });
    assertRdfError(elsewhere, 404);
    common(elsewhere, 'an unknown host', false);
  });

  it('on the fast path’s own answer', async () => {
    const etag = header(await ask('GET', 'public/', { as: 'anonymous', headers: { Accept: 'text/turtle' } }), 'etag')!;
    const verifier = { known: () => undefined } as unknown as WebIdVerifier;
    const read = fastReader({ runtimes: s.running.runtimes, scheme: 'https', authenticator: new Authenticator({ verifier, trustedProxies: [] }), representations: new RepresentationCache(), etags: new Etags(readFileSync(join(s.data, 'secrets', 'etag.key'))), caches: new ReadCaches() });
    let written: { status: number; headers: OutgoingHttpHeaders } | undefined;
    const res = { writeHead: (status: number, headers: OutgoingHttpHeaders) => (written = { status, headers }), end: () => undefined } as unknown as ServerResponse;
    const req = { method: 'GET', url: '/public/', headers: { host, accept: 'text/turtle', 'if-none-match': etag }, socket: {} } as unknown as IncomingMessage;
    assert.equal(read(req, res), true, 'the fast path answered');
    assert.equal(written?.status, 304);
    assert.equal(written?.headers['X-Content-Type-Options'], 'nosniff');
    assert.equal(written?.headers.Vary, 'Accept, Accept-Encoding, Origin'); // as its 200 would (RFC 9110 §15.4.5)
    assert.equal(written?.headers['Strict-Transport-Security'], HSTS);
    assert.equal(written?.headers['Lodestone-Commit'], s.running.runtimes[0]!.documents.commitOf('public/')); // the commit it reflects (the document's last), as Koa's answers name it
  });

  it('on what Node’s HTTP parser refuses', async () => {
    const res = await sendRequest({ protocol: 'https:', hostname: '127.0.0.1', port, path: '/', method: 'GET', headers: { Host: host, 'X-Big': 'x'.repeat(20_000) }, rejectUnauthorized: false, agent: false });
    assert.equal(res.status, 431);
    assert.equal(header(res, 'x-content-type-options'), 'nosniff');
  });

  it('sends HSTS for https at a real name only', () => {
    assert.equal(strictTransport('https://lodestone.test:4443/'), true);
    assert.equal(strictTransport('https://data.example.org/'), true);
    for (const base of ['https://localhost:4443/', 'https://second.localhost/', 'https://127.0.0.1/', 'https://[::1]:4443/', 'http://data.example.org/']) assert.equal(strictTransport(base), false, base);
  });

  it('logs out by POST only: GET is 405 with Allow', async () => {
    const res = await ask('GET', `${admin}oauth2/logout`);
    assertRdfError(res, 405);
    assert.equal(header(res, 'allow'), 'POST, OPTIONS');
    common(res, 'logout GET');
  });
});
