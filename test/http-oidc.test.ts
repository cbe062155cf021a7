/**
 * OpenID Connect login over HTTP (SPEC §4.7 `oauth2/login/<provider>`, `oauth2/authorize/<provider>`, SPEC §5.1; DESIGN.md
 * "Authentication"): a real Lodestone server whose system.ttl declares provider `op`, a real OpenID provider
 * (`oidc-provider` on loopback, as in oidc.test.ts) and a browser written here (manual redirects, a cookie jar, the
 * provider's login and consent forms submitted). The admin repository, read with the git CLI, is the source of truth
 * for "one agent per account" and "a refused callback commits nothing".
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ns } from '../src/rdf/namespaces.js';
import { defaultSystemConfig } from '../src/system-config.js';
import { Browser, startProvider, USER } from './fixtures/oidc-provider.js';
import { git, headOf, removeTempDirs, tempDir } from './helpers.js';
import { assertRdfError, freePort, header, startServer, type Response, type TestServer } from './http-helpers.js';

const CLIENT = { clientId: 'lodestone-test', clientSecret: `client-secret-${randomBytes(18).toString('base64url')}` };
const SESSION = '__Host-lodestone-session';
const AGENT_LINK = (webId: string) => `<${webId}>; rel="${ns.acl}agent"`;

describe('OpenID Connect login over HTTP, against oidc-provider', () => {
  const lines: string[] = [];
  const browsers: Browser[] = [];
  let provider: { issuer: string; server: Server };
  let s: TestServer;
  let adminRepo: string;
  let callbackBase: string;
  let webId = '';

  const agentFiles = () => git(adminRepo, 'ls-tree', '-r', '--name-only', 'HEAD', 'graphs/acl/agents/').trim().split('\n').sort();
  const browser = () => {
    const made = new Browser();
    browsers.push(made);
    return made;
  };
  /** Starts a login with `op` and walks the provider: the browser, and the callback URL it was sent to (not yet visited). */
  const untilCallback = async (b = browser()) => {
    const started = await b.request(`${s.admin}oauth2/login/op`);
    assert.equal(started.status, 302, started.body);
    return { b, started, callbackUrl: await b.authorize(header(started, 'location')!, callbackBase, USER.sub) };
  };
  /** A whole login: the browser, holding its session cookie. */
  const logIn = async () => {
    const { b, callbackUrl } = await untilCallback();
    const done = await b.request(callbackUrl);
    assert.equal(done.status, 302, done.body);
    assert.equal(header(done, 'location'), s.base);
    assert.ok(b.cookie(SESSION), 'the callback starts a session');
    return b;
  };

  before(async () => {
    const data = tempDir('oidc');
    const port = await freePort();
    const base = `https://localhost:${port}/`;
    callbackBase = `${base}admin/oauth2/authorize/op`;
    provider = await startProvider([callbackBase], CLIENT);
    // the default configuration (google and orcid declared, disabled) and provider op, with its secret apart
    writeFileSync(join(data, 'system.ttl'), [
      defaultSystemConfig(base),
      `<${base}admin/> lds:oidcProvider <urn:test:op> .`,
      `<urn:test:op> a lds:OidcProvider ; rdfs:label "op" ; lds:issuer <${provider.issuer}> ; lds:clientId "${CLIENT.clientId}" .`,
      '',
    ].join('\n'));
    mkdirSync(join(data, 'secrets'), { recursive: true });
    writeFileSync(join(data, 'secrets', 'credentials.ttl'), `<urn:test:op> <${ns.a}clientSecret> "${CLIENT.clientSecret}" .\n`, { mode: 0o600 });
    s = await startServer(['--port', String(port), '--allow-internal-urls'], data, (line) => lines.push(line));
    adminRepo = s.running.runtimes[1]!.dataspace.store.dir;
  });

  after(async () => {
    await s?.close();
    provider?.server.closeAllConnections();
    await new Promise<void>((resolve) => provider?.server.close(() => resolve()));
    removeTempDirs();
  });

  it('logs in: login → provider sign-in and consent → callback → a session of a new agent that owns its document', async () => {
    const agentsBefore = agentFiles();
    const { b, started, callbackUrl } = await untilCallback();
    const authorization = new URL(header(started, 'location')!);
    assert.equal(authorization.origin, provider.issuer);
    assert.equal(authorization.searchParams.get('redirect_uri'), callbackBase);
    assert.equal(authorization.searchParams.get('client_id'), CLIENT.clientId);
    assert.ok(!authorization.href.includes(CLIENT.clientSecret));
    assert.match(String(started.headers['set-cookie']), /^__Secure-lodestone-login-op=[^;]+; Path=\/admin\/oauth2\/authorize\/op; HttpOnly; Secure; SameSite=Lax; Max-Age=600$/);
    assert.equal(header(started, 'cache-control'), 'no-store');

    const done = await b.request(callbackUrl);
    assert.equal(done.status, 302, done.body);
    assert.equal(header(done, 'location'), s.base);
    const cookies = [done.headers['set-cookie'] ?? []].flat();
    assert.ok(cookies.some((c) => /^__Secure-lodestone-login-op=; Path=\/admin\/oauth2\/authorize\/op; .*Max-Age=0$/.test(c)), 'the login cookie is cleared');
    assert.ok(cookies.some((c) => new RegExp(`^${SESSION}=[^;]+; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=\\d+$`).test(c)), String(cookies));

    // one new agent document in the admin repository: a foaf:Person with the account, owned and created by itself
    const added = agentFiles().filter((file) => !agentsBefore.includes(file));
    assert.equal(added.length, 1, `one agent document is added: ${added.join(', ')}`);
    const path = added[0]!.slice('graphs/'.length, -'.nt'.length) + '/';
    webId = `${s.admin}${path}#this`;
    const stored = git(adminRepo, 'show', `HEAD:${added[0]}`);
    for (const line of [
      `<${webId}> <${ns.rdf}type> <${ns.foaf}Person> .`,
      `<${webId}> <${ns.foaf}name> "${USER.name}" .`,
      `<${webId}> <${ns.foaf}mbox> <mailto:${USER.email}> .`,
      `<${webId}> <${ns.foaf}account> <${s.admin}${path}#account> .`,
      `<${s.admin}${path}#account> <${ns.foaf}accountServiceHomepage> <${provider.issuer}> .`,
      `<${s.admin}${path}#account> <${ns.foaf}accountName> "${USER.sub}" .`,
      `<${s.admin}${path}> <${ns.acl}owner> <${webId}> .`,
      `<${webId}> <${ns.acl}delegates> <${s.running.agents.secretary.webId}> .`, // the proxy carries its requests as the secretary
    ]) assert.ok(stored.includes(line + '\n'), `${line} in\n${stored}`);
    assert.match(git(adminRepo, 'log', '-1', '--format=%an %s'), new RegExp(`^${webId.replace(/[.?*+^$[\]\\(){}|-]/g, '\\$&')} PUT `));

    // the session identifies the agent, on the Koa route and on the read fast path alike (the second GET)
    for (let i = 0; i < 2; i++) {
      const own = await b.request(webId);
      assert.equal(own.status, 200, own.body);
      assert.ok(header(own, 'link')?.includes(AGENT_LINK(webId)), `the agent is known: ${header(own, 'link')}`);
      assert.ok(header(own, 'link')?.includes(`<${ns.acl}Write>; rel="${ns.acl}mode"`), 'it owns its document');
    }
    const anonymous = await browser().request(webId);
    assert.equal(anonymous.status, 200, 'agent documents are public');
    assert.ok(!header(anonymous, 'link')?.includes(`rel="${ns.acl}agent"`));
    // a request from another origin does not act as the cookie's holder
    const crossOrigin = await b.request(webId, { headers: { Origin: 'https://elsewhere.example' } });
    assert.ok(!header(crossOrigin, 'link')?.includes(AGENT_LINK(webId)), `${header(crossOrigin, 'link')}`);
    // a client certificate wins over the cookie
    const both = await s.request('GET', webId, { headers: { Cookie: `${SESSION}=${b.cookie(SESSION)}` } });
    assert.ok(header(both, 'link')?.includes(AGENT_LINK(s.running.agents.owner.webId)));
    // known is not authorised: the end-user root is not the agent's, so 403 as for anonymous
    assertRdfError(await b.request(s.base), 403);
    assertRdfError(await browser().request(s.base), 403);
  });

  it('offers the configured provider on the pages, and once logged in names the agent and offers logout (issue 22)', async () => {
    const anonymous = await browser().request(s.base, { headers: { Accept: 'text/html' } });
    assert.equal(anonymous.status, 403);
    assert.ok(anonymous.body.includes(`href="${s.admin}oauth2/login/op"`), 'a login link for op');
    assert.ok(!anonymous.body.includes('oauth2/login/google'), 'not for a provider without a client');
    const b = await logIn();
    const home = await b.request(s.base, { headers: { Accept: 'text/html' } });
    assert.equal(home.status, 403, 'a new account has no access to the home page yet');
    assert.match(home.body, /Signed in as <a href="[^"]+">/);
    assert.ok(home.body.includes(`action="${s.admin}oauth2/logout"`), 'a logout form');
    assert.ok(home.body.includes(`action="${s.admin}access/request"`), 'and a form to ask for access');
  });

  it('finds the same agent at the next login of the same account, and commits nothing', async () => {
    const agents = agentFiles();
    const head = headOf(adminRepo);
    const b = await logIn();
    const own = await b.request(webId);
    assert.ok(header(own, 'link')?.includes(AGENT_LINK(webId)), `${header(own, 'link')}`);
    assert.deepEqual(agentFiles(), agents);
    assert.equal(headOf(adminRepo), head);
  });

  it('logs out by POST: the cookie is cleared, and a copy of it is no longer believed; GET is 405 and ends nothing', async () => {
    const b = await logIn();
    const copy = b.cookie(SESSION)!;
    for (const method of ['GET', 'DELETE']) {
      const refused = await b.request(`${s.admin}oauth2/logout`, { method });
      assertRdfError(refused, 405);
      assert.equal(header(refused, 'allow'), 'POST, OPTIONS');
      assert.equal(refused.headers['set-cookie'], undefined);
      assert.ok(header(await b.request(webId), 'link')?.includes(AGENT_LINK(webId)), `${method}: still logged in`);
    }
    const out = await b.request(`${s.admin}oauth2/logout`, { method: 'POST' });
    assert.equal(out.status, 303, out.body);
    assert.equal(header(out, 'location'), s.base);
    assert.match(String(out.headers['set-cookie']), new RegExp(`^${SESSION}=; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=0$`));
    assert.equal(b.cookie(SESSION), undefined);
    assert.ok(!header(await b.request(webId), 'link')?.includes(`rel="${ns.acl}agent"`));
    const replayed = await browser().request(webId, { headers: { Cookie: `${SESSION}=${copy}` } });
    assert.ok(!header(replayed, 'link')?.includes(`rel="${ns.acl}agent"`), 'a logged-out session is refused');
  });

  it('answers 404 for a provider declared without a client (google, orcid by default) or not declared at all', async () => {
    for (const name of ['google', 'orcid']) {
      const res = await browser().request(`${s.admin}oauth2/login/${name}`);
      assertRdfError(res, 404, { title: new RegExp(`OpenID provider ${name} is not configured: .*redirect URI is ${s.admin}oauth2/authorize/${name}.*lds:clientId in system\\.ttl and a:clientSecret in secrets/credentials\\.ttl`) });
      assert.equal(res.headers['set-cookie'], undefined);
      assertRdfError(await browser().request(`${s.admin}oauth2/authorize/${name}?code=c&state=s`), 404);
    }
    assertRdfError(await browser().request(`${s.admin}oauth2/login/nope`), 404, { title: /no OpenID provider named nope; declared: google, orcid, op/ });
    assert.ok(lines.some((l) => l === 'OpenID Connect login: google, orcid declared without a client (off; system.ttl says how to turn one on)'), lines.join('\n'));
  });

  it('refuses a tampered or replayed callback with a 4xx, clears the login cookie and commits nothing', async () => {
    const head = headOf(adminRepo);
    const refused = (res: Response, pattern: RegExp, code: string) => {
      const title = assertRdfError(res, 401, { title: pattern });
      assert.ok(!title.includes(code) && !res.body.includes(code), 'the code is not echoed');
      assert.ok(!res.body.includes(CLIENT.clientSecret));
      const cookies = [res.headers['set-cookie'] ?? []].flat();
      assert.ok(cookies.some((c) => /^__Secure-lodestone-login-op=; .*Max-Age=0$/.test(c)), `the login cookie is cleared: ${cookies.join(' | ')}`);
      assert.ok(!cookies.some((c) => c.startsWith(`${SESSION}=`) && !/Max-Age=0/.test(c)), 'no session');
      assert.equal(header(res, 'cache-control'), 'no-store');
    };

    let { b, callbackUrl } = await untilCallback();
    let code = new URL(callbackUrl).searchParams.get('code')!;
    const tampered = new URL(callbackUrl);
    tampered.searchParams.set('state', `${tampered.searchParams.get('state')}x`);
    refused(await b.request(tampered.href), /state of the callback does not match/, code);
    refused(await b.request(callbackUrl), /login cookie is missing/, code); // the refusal ended the login in this browser

    ({ b, callbackUrl } = await untilCallback());
    code = new URL(callbackUrl).searchParams.get('code')!;
    const forged = new URL(callbackUrl);
    forged.searchParams.set('code', `${code.slice(0, -4)}AAAA`);
    refused(await b.request(forged.href), /the provider answered invalid_grant/, code);

    ({ b, callbackUrl } = await untilCallback());
    refused(await browser().request(callbackUrl), /login cookie is missing/, new URL(callbackUrl).searchParams.get('code')!); // another browser
    const loginCookie = b.cookie('__Secure-lodestone-login-op')!;
    assert.equal((await b.request(callbackUrl)).status, 302);
    // the same callback again, with the login cookie put back: the login was completed
    refused(await browser().request(callbackUrl, { headers: { Cookie: `__Secure-lodestone-login-op=${loginCookie}` } }), /already been completed/, new URL(callbackUrl).searchParams.get('code')!);
    assert.equal(headOf(adminRepo), head, 'no refused callback made a commit');
  });

  it('keeps the session key in secrets/session.key (32 bytes, mode 0600) and never logs the client secret or a code', () => {
    const key = join(s.data, 'secrets', 'session.key');
    assert.equal(readFileSync(key).length, 32);
    assert.equal(statSync(key).mode & 0o777, 0o600);
    const log = lines.join('\n');
    assert.match(log, new RegExp(`OpenID provider op \\(${provider.issuer.replace(/\./g, '\\.')}\\): on, client ${CLIENT.clientId}, redirect URI ${callbackBase}`));
    assert.match(log, /a new agent, for an account with the OpenID provider op/);
    assert.ok(!log.includes(CLIENT.clientSecret), 'the client secret is not logged');
    const codes = browsers.flatMap((b) => b.visited).map((url) => new URL(url).searchParams.get('code')).filter((c): c is string => c !== null && c.length >= 20);
    assert.ok(codes.length >= 4);
    for (const code of codes) assert.ok(!log.includes(code), 'no authorization code is logged');
  });
});
