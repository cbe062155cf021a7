/**
 * OpenID Connect login (src/auth/oidc.ts; SPEC §4.7, §5.1) against a real OpenID provider: `oidc-provider` on a random
 * loopback port with one client and one account, its development login and consent forms submitted by a small
 * browser written here (fetch with manual redirects and a cookie jar). The callback is never served: the browser stops
 * at the redirect to the registered redirect URI and hands that URL to `callback()`, as the HTTP layer would.
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { OidcLogin, SESSION_COOKIE, readCookie, serializeCookie, type Cookie, type OidcProviderConfig } from '../src/auth/oidc.js';
import { isLodestoneError } from '../src/errors.js';
import { Browser, startProvider, USER } from './fixtures/oidc-provider.js';

const CLIENT = { clientId: 'lodestone', clientSecret: randomBytes(24).toString('base64url') };
const REDIRECT_BASE = 'https://localhost:5443/admin/oauth2/authorize/';


function oidcLogin(providers: OidcProviderConfig[], secret: Buffer, now?: () => number): OidcLogin {
  return new OidcLogin({ providers, redirectUri: (name) => REDIRECT_BASE + name, secret, allowInsecureRequests: true, now });
}

/** Asserts a 401 LodestoneError whose message matches `pattern` and names none of `secrets`. */
async function rejects401(promise: Promise<unknown>, pattern: RegExp, secrets: string[] = []): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isLodestoneError(error, 'Unauthenticated'), `expected Unauthenticated, got ${String(error)}`);
    assert.match(error.message, pattern);
    for (const secret of secrets) assert.ok(!error.message.includes(secret), 'the message must not echo a code, token or secret');
    return true;
  });
}

/**
 * White-box: re-signs a login cookie with one field changed, as only the holder of the secret could, to show that the
 * provider and openid-client still catch a wrong nonce or PKCE verifier behind a valid signature.
 */
function resignLogin(secret: Buffer, value: string, change: Record<string, string>): string {
  const key = createHmac('sha256', secret).update('lodestone oidc login cookie').digest();
  const payload = JSON.parse(Buffer.from(value.split('.')[0] ?? '', 'base64url').toString()) as Record<string, unknown>;
  const body = Buffer.from(JSON.stringify({ ...payload, ...change })).toString('base64url');
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

function attributes(cookie: Cookie): string[] {
  return cookie.attributes.split(';').map((a) => a.trim());
}

describe('OpenID Connect login against oidc-provider', () => {
  let server: Server;
  let providers: OidcProviderConfig[];
  const secret = randomBytes(32);

  before(async () => {
    const started = await startProvider([REDIRECT_BASE + 'op'], CLIENT);
    server = started.server;
    providers = [
      { name: 'op', issuer: started.issuer, ...CLIENT },
      { name: 'other', issuer: 'http://127.0.0.1:9/never-contacted', clientId: 'x', clientSecret: 'y' },
    ];
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('logs in: login → provider sign-in → consent → callback, and returns the claims of the signed-in user', async () => {
    const oidc = oidcLogin(providers, secret);
    const { location, cookie } = await oidc.login('op');
    const authorization = new URL(location);
    assert.equal(authorization.origin, providers[0]?.issuer);
    assert.equal(authorization.searchParams.get('response_type'), 'code');
    assert.equal(authorization.searchParams.get('redirect_uri'), REDIRECT_BASE + 'op');
    assert.equal(authorization.searchParams.get('code_challenge_method'), 'S256');
    for (const parameter of ['state', 'nonce', 'code_challenge', 'client_id']) assert.ok(authorization.searchParams.get(parameter), parameter);
    assert.ok(!location.includes(CLIENT.clientSecret));
    assert.equal(cookie.name, oidc.loginCookieName('op'));
    assert.deepEqual(attributes(cookie), ['Path=/admin/oauth2/authorize/op', 'HttpOnly', 'Secure', 'SameSite=Lax', 'Max-Age=600']);
    assert.equal(oidc.verifySession(cookie.value), undefined, 'a login cookie is not a session');

    const callbackUrl = await new Browser().authorize(location, REDIRECT_BASE + 'op', USER.sub);
    assert.ok(new URL(callbackUrl).searchParams.get('code'));
    // The HTTP layer passes the request's path and query; only the query is read.
    const claims = await oidc.callback('op', new URL(callbackUrl).pathname + new URL(callbackUrl).search, cookie.value);
    assert.deepEqual(claims, { provider: 'op', issuer: providers[0]?.issuer, subject: USER.sub, email: USER.email, emailVerified: true, name: USER.name });
    assert.deepEqual(attributes(oidc.endLogin('op')), ['Path=/admin/oauth2/authorize/op', 'HttpOnly', 'Secure', 'SameSite=Lax', 'Max-Age=0']);
  });

  it('refuses a tampered state, a missing or forged login cookie, and a login cookie of another provider', async () => {
    const oidc = oidcLogin(providers, secret);
    const { location, cookie } = await oidc.login('op');
    const callbackUrl = await new Browser().authorize(location, REDIRECT_BASE + 'op', USER.sub);
    const code = new URL(callbackUrl).searchParams.get('code') ?? '';

    const tampered = new URL(callbackUrl);
    tampered.searchParams.set('state', tampered.searchParams.get('state') + 'x');
    await rejects401(oidc.callback('op', tampered.href, cookie.value), /state of the callback does not match/, [code]);
    await rejects401(oidc.callback('op', callbackUrl, undefined), /login cookie is missing/, [code]);
    await rejects401(oidc.callback('op', callbackUrl, cookie.value.slice(0, -2) + 'AA'), /login cookie is invalid or has expired/, [code]);
    const foreign = await oidcLogin(providers, randomBytes(32)).login('op');
    await rejects401(oidc.callback('op', callbackUrl, foreign.cookie.value), /login cookie is invalid or has expired/, [code]);
    await rejects401(oidc.callback('other', callbackUrl, cookie.value), /the login in progress is with op, not other/, [code]);

    // None of the refusals above spent the login: the untampered callback still succeeds.
    assert.equal((await oidc.callback('op', callbackUrl, cookie.value)).subject, USER.sub);
  });

  it('refuses a replayed code: here, and at the provider when another server instance is asked', async () => {
    const oidc = oidcLogin(providers, secret);
    const { location, cookie } = await oidc.login('op');
    const callbackUrl = await new Browser().authorize(location, REDIRECT_BASE + 'op', USER.sub);
    const code = new URL(callbackUrl).searchParams.get('code') ?? '';
    assert.equal((await oidc.callback('op', callbackUrl, cookie.value)).subject, USER.sub);
    await rejects401(oidc.callback('op', callbackUrl, cookie.value), /already been completed/, [code, CLIENT.clientSecret]);
    // A second instance (a restarted server) does not remember the state; the provider refuses the used code.
    await rejects401(oidcLogin(providers, secret).callback('op', callbackUrl, cookie.value), /login with op failed: the provider answered invalid_grant/, [code, CLIENT.clientSecret]);
  });

  it('refuses an ID token with another nonce, and a code redeemed with another PKCE verifier', async () => {
    const oidc = oidcLogin(providers, secret);
    for (const [field, pattern] of [['n', /unexpected JWT claim value encountered/], ['v', /the provider answered invalid_grant/]] as const) {
      const { location, cookie } = await oidc.login('op');
      const callbackUrl = await new Browser().authorize(location, REDIRECT_BASE + 'op', USER.sub);
      const code = new URL(callbackUrl).searchParams.get('code') ?? '';
      const changed = resignLogin(secret, cookie.value, { [field]: 'A'.repeat(43) });
      assert.equal(oidc.verifySession(changed), undefined);
      await rejects401(oidc.callback('op', callbackUrl, changed), pattern, [code, CLIENT.clientSecret]);
    }
  });

  it('refuses an expired login cookie', async () => {
    let now = Date.now();
    const oidc = oidcLogin(providers, secret, () => now);
    const { location, cookie } = await oidc.login('op');
    const callbackUrl = await new Browser().authorize(location, REDIRECT_BASE + 'op', USER.sub);
    now += 601_000;
    await rejects401(oidc.callback('op', callbackUrl, cookie.value), /invalid or has expired/);
  });

  it('answers NotFound for a provider that is not configured, before any network request', async () => {
    const oidc = oidcLogin(providers, secret);
    for (const attempt of [oidc.login('nope'), oidc.callback('nope', REDIRECT_BASE + 'nope?code=c&state=s', 'v.s')]) {
      await assert.rejects(attempt, (error: unknown) => isLodestoneError(error, 'NotFound') && /no OpenID provider named nope; known: op, other/.test(error.message));
    }
  });

  it('says which provider could not be discovered, and tries again at the next login', async () => {
    const oidc = oidcLogin(providers, secret);
    await assert.rejects(oidc.login('other'), /could not discover the OpenID provider other at http:\/\/127\.0\.0\.1:9\/never-contacted/);
    await assert.rejects(oidc.login('other'), /could not discover the OpenID provider other/);
    assert.ok(!(await oidc.login('op')).location.includes(CLIENT.clientSecret));
  });
});

describe('session cookies', () => {
  const secret = randomBytes(32);
  const webId = 'https://localhost:5443/admin/acl/agents/1#this';

  it('verify, and carry HttpOnly, Secure, SameSite=Lax, Path=/ and an expiry', () => {
    const oidc = oidcLogin([], secret);
    const cookie = oidc.session(webId, 3600);
    assert.equal(cookie.name, SESSION_COOKIE);
    assert.deepEqual(attributes(cookie), ['Path=/', 'HttpOnly', 'Secure', 'SameSite=Lax', 'Max-Age=3600']);
    assert.equal(oidc.verifySession(cookie.value), webId);
    assert.equal(oidcLogin([], secret).verifySession(cookie.value), webId, 'another instance with the same secret');
    assert.equal(readCookie(`a=b; ${SESSION_COOKIE}=${cookie.value}; c=d`, SESSION_COOKIE), cookie.value);
    assert.equal(serializeCookie(cookie), `${SESSION_COOKIE}=${cookie.value}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=3600`);
  });

  it('do not verify when tampered, signed with another secret, expired or absent', async () => {
    let now = Date.now();
    const oidc = oidcLogin([], secret, () => now);
    const cookie = oidc.session(webId, 60);
    const [body = '', signature = ''] = cookie.value.split('.');
    const forgedBody = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), w: 'https://evil.example/#me' })).toString('base64url');
    assert.equal(oidc.verifySession(`${forgedBody}.${signature}`), undefined);
    assert.equal(oidc.verifySession(`${body}.${signature.slice(0, -1)}`), undefined);
    assert.equal(oidc.verifySession(body), undefined);
    assert.equal(oidc.verifySession(''), undefined);
    assert.equal(oidc.verifySession(undefined), undefined);
    assert.equal(oidcLogin([], randomBytes(32)).verifySession(cookie.value), undefined);
    now += 59_000;
    assert.equal(oidc.verifySession(cookie.value), webId);
    now += 1_000;
    assert.equal(oidc.verifySession(cookie.value), undefined);
  });

  it('logout clears the session cookie', () => {
    const cookie = oidcLogin([], secret).logout();
    assert.equal(cookie.name, SESSION_COOKIE);
    assert.equal(cookie.value, '');
    assert.deepEqual(attributes(cookie), ['Path=/', 'HttpOnly', 'Secure', 'SameSite=Lax', 'Max-Age=0']);
  });

  it('refuses a short secret and bad provider names at construction', () => {
    assert.throws(() => oidcLogin([], randomBytes(16)), /at least 32 bytes/);
    assert.throws(() => oidcLogin([{ name: 'a b', issuer: 'https://a.example', clientId: 'c', clientSecret: 's' }], secret), /must be letters, digits/);
  });
});
