/**
 * OpenID Connect login for browsers (SPEC §4.7 `oauth2/login/<provider>`, `oauth2/authorize/<provider>`; SPEC §5.1;
 * DESIGN.md, "Authentication"), independent of Koa: the HTTP layer maps the returned cookies to `Set-Cookie` and the
 * thrown LodestoneErrors to statuses. The protocol work (discovery, authorization URL, code exchange, ID token
 * signature, issuer, audience, nonce, expiry, `iss` response parameter) is `openid-client`'s; this module owns the
 * cookies. Every cookie value is `base64url(JSON payload with exp).base64url(HMAC-SHA256)` under a key derived per
 * purpose from one secret, so a login cookie is never a session cookie. Error messages never carry codes, tokens or
 * client secrets. `accountAgent` mints the agent document of an account, as signup.ts does for a certificate.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type * as Client from 'openid-client';
import { LodestoneError } from '../errors.js';
import { agentDocument } from './agent-document.js';

export interface OidcProviderConfig {
  /** Path segment of `oauth2/login/<name>` and `oauth2/authorize/<name>`, e.g. `google`, `orcid`. */
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Scopes to ask for; default `openid email profile`, narrowed to the provider's advertised `scopes_supported`. */
  scope?: string;
}

export interface OidcClaims {
  provider: string;
  issuer: string;
  subject: string;
  email?: string;
  emailVerified?: boolean;
  name?: string;
}

export interface Cookie {
  name: string;
  value: string;
  /** e.g. `Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=3600` */
  attributes: string;
}

export interface OidcLoginOptions {
  providers: OidcProviderConfig[];
  /** The absolute callback URL registered with the provider, e.g. `https://localhost:5443/admin/oauth2/authorize/google`. */
  redirectUri: (provider: string) => string;
  /** HMAC key for the cookies, at least 32 bytes. */
  secret: Buffer;
  /** Allows plain-HTTP issuers (tests against a loopback provider). */
  allowInsecureRequests?: boolean;
  /** Clock for cookie expiry, in milliseconds (ID token times are checked by openid-client against the real clock). */
  now?: () => number;
}

export const SESSION_COOKIE = '__Host-lodestone-session';
const LOGIN_MAX_AGE = 600;
const DEFAULT_SESSION_MAX_AGE = 8 * 3600;
const DEFAULT_SCOPES = ['openid', 'email', 'profile'];

/** openid-client, loaded at the first login: a server without providers never spends its 0.04 s of a core. */
type OpenId = typeof Client;
const openid = (): Promise<OpenId> => import('openid-client');

interface LoginPayload { t: 'login'; p: string; s: string; n: string; v: string; exp: number }
interface SessionPayload { t: 'session'; w: string; exp: number }

export class OidcLogin {
  private readonly providers = new Map<string, OidcProviderConfig>();
  private readonly configurations = new Map<string, Promise<Client.Configuration>>();
  /** States of logins whose callback was accepted once, until their login cookie expires: a callback is never replayed. */
  private readonly completed = new Map<string, number>();
  /** Signatures of session cookies logged out of, until they expire: in this process, a copied cookie dies with the logout. */
  private readonly revoked = new Map<string, number>();
  private readonly loginKey: Buffer;
  private readonly sessionKey: Buffer;
  private readonly now: () => number;

  constructor(private readonly options: OidcLoginOptions) {
    if (options.secret.length < 32) throw new Error('the OpenID Connect cookie secret must be at least 32 bytes');
    for (const provider of options.providers) {
      if (!/^[A-Za-z0-9_-]+$/.test(provider.name)) throw new Error(`OpenID provider name "${provider.name}" must be letters, digits, - or _`);
      if (this.providers.has(provider.name)) throw new Error(`OpenID provider ${provider.name} is declared twice`);
      new URL(provider.issuer); // throws on a malformed issuer, at startup rather than at the first login
      this.providers.set(provider.name, provider);
    }
    this.loginKey = createHmac('sha256', options.secret).update('lodestone oidc login cookie').digest();
    this.sessionKey = createHmac('sha256', options.secret).update('lodestone session cookie').digest();
    this.now = options.now ?? Date.now;
  }

  /** Name of the cookie that carries a login in progress with `provider` to its callback. */
  loginCookieName(provider: string): string {
    return `__Secure-lodestone-login-${provider}`;
  }

  /** Starts a login: where to redirect the browser, and the login cookie (state, nonce, PKCE verifier) for the callback. */
  async login(provider: string): Promise<{ location: string; cookie: Cookie }> {
    const entry = this.provider(provider);
    const config = await this.configuration(entry);
    const client = await openid();
    const redirectUri = this.options.redirectUri(provider);
    const verifier = client.randomPKCECodeVerifier();
    const payload: LoginPayload = { t: 'login', p: provider, s: client.randomState(), n: client.randomNonce(), v: verifier, exp: this.expiry(LOGIN_MAX_AGE) };
    const location = client.buildAuthorizationUrl(config, {
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: this.scope(entry, config),
      state: payload.s,
      nonce: payload.n,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256', // RFC 7636 §4.2
    });
    const path = new URL(redirectUri).pathname;
    const cookie = { name: this.loginCookieName(provider), value: sign(this.loginKey, payload), attributes: `Path=${path}; HttpOnly; Secure; SameSite=Lax; Max-Age=${LOGIN_MAX_AGE}` };
    return { location: location.href, cookie };
  }

  /**
   * Verifies the callback: `callbackUrl` is the URL the browser was sent to (absolute or path + query; only its query is
   * read, the rest is the configured redirect URI), `loginCookie` the value of `loginCookieName(provider)`.
   */
  async callback(provider: string, callbackUrl: string, loginCookie: string | undefined): Promise<OidcClaims> {
    const entry = this.provider(provider);
    if (!loginCookie) throw unauthenticated(`no login with ${provider} is in progress in this browser (the login cookie is missing); start again at oauth2/login/${provider}`);
    const login = verify<LoginPayload>(this.loginKey, loginCookie, 'login', this.now());
    if (!login) throw unauthenticated(`the login cookie is invalid or has expired; start again at oauth2/login/${provider}`);
    if (login.p !== provider) throw unauthenticated(`the login in progress is with ${login.p}, not ${provider}`);
    const redirectUri = this.options.redirectUri(provider);
    const current = new URL(redirectUri);
    current.search = new URL(callbackUrl, redirectUri).search;
    // RFC 6749 §10.12: the state binds the callback to the browser that started the login.
    if (current.searchParams.get('state') !== login.s) throw unauthenticated(`the state of the callback does not match the login with ${provider} started in this browser`);
    this.complete(login);
    const config = await this.configuration(entry);
    const client = await openid();
    let tokens: Awaited<ReturnType<OpenId['authorizationCodeGrant']>>;
    try {
      tokens = await client.authorizationCodeGrant(config, current, { pkceCodeVerifier: login.v, expectedState: login.s, expectedNonce: login.n, idTokenExpected: true });
    } catch (error) {
      throw failure(provider, error, client);
    }
    const idToken = tokens.claims();
    if (!idToken) throw unauthenticated(`${provider} did not return an ID token`);
    let claims: Record<string, unknown> = idToken;
    const metadata = config.serverMetadata();
    if ((idToken.email === undefined || idToken.name === undefined) && metadata.userinfo_endpoint && tokens.access_token) {
      try {
        claims = { ...(await client.fetchUserInfo(config, tokens.access_token, idToken.sub)), ...idToken };
      } catch (error) {
        throw failure(provider, error, client);
      }
    }
    return claimsOf(provider, idToken.iss, idToken.sub, claims);
  }

  /** A signed session cookie for `webId`. */
  session(webId: string, maxAgeSeconds = DEFAULT_SESSION_MAX_AGE): Cookie {
    const payload: SessionPayload = { t: 'session', w: webId, exp: this.expiry(maxAgeSeconds) };
    return { name: SESSION_COOKIE, value: sign(this.sessionKey, payload), attributes: `Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=${maxAgeSeconds}` };
  }

  /** The WebID of a session cookie, or undefined when it is absent, forged, expired or logged out of. */
  verifySession(cookieValue: string | undefined): string | undefined {
    if (!cookieValue) return undefined;
    const session = verify<SessionPayload>(this.sessionKey, cookieValue, 'session', this.now());
    return session && !this.revoked.has(signatureOf(cookieValue)) ? session.w : undefined;
  }

  /**
   * A cookie that ends the session in the browser. Sessions are stateless: the session cookie being closed (`current`)
   * is refused by this instance until it expires, but another instance or a restarted one would still accept a copy.
   */
  logout(current?: string): Cookie {
    const session = current && verify<SessionPayload>(this.sessionKey, current, 'session', this.now());
    if (current && session) {
      const now = this.now();
      for (const [signature, exp] of this.revoked) if (exp * 1000 <= now) this.revoked.delete(signature);
      this.revoked.set(signatureOf(current), session.exp);
    }
    return { name: SESSION_COOKIE, value: '', attributes: 'Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=0' };
  }

  /** A cookie that removes the login cookie of `provider`, to send with the callback's answer whatever its outcome. */
  endLogin(provider: string): Cookie {
    return { name: this.loginCookieName(provider), value: '', attributes: `Path=${new URL(this.options.redirectUri(provider)).pathname}; HttpOnly; Secure; SameSite=Lax; Max-Age=0` };
  }

  private provider(name: string): OidcProviderConfig {
    const entry = this.providers.get(name);
    if (!entry) throw new LodestoneError('NotFound', `there is no OpenID provider named ${name.slice(0, 64)}; known: ${[...this.providers.keys()].join(', ') || 'none'}`);
    return entry;
  }

  /** OpenID Connect Discovery 1.0, once per provider; a failed discovery is retried at the next login. */
  private configuration(entry: OidcProviderConfig): Promise<Client.Configuration> {
    let pending = this.configurations.get(entry.name);
    if (!pending) {
      pending = openid().then((client) => {
        const execute = this.options.allowInsecureRequests ? [client.allowInsecureRequests] : [];
        return client.discovery(new URL(entry.issuer), entry.clientId, undefined, client.ClientSecretPost(entry.clientSecret), { execute }).catch((error: unknown) => {
          this.configurations.delete(entry.name);
          throw new Error(`could not discover the OpenID provider ${entry.name} at ${entry.issuer}: ${describe(error, client)}`);
        });
      });
      this.configurations.set(entry.name, pending);
    }
    return pending;
  }

  private scope(entry: OidcProviderConfig, config: Client.Configuration): string {
    if (entry.scope) return entry.scope;
    const supported = config.serverMetadata().scopes_supported;
    return DEFAULT_SCOPES.filter((scope) => scope === 'openid' || !supported || supported.includes(scope)).join(' ');
  }

  private complete(login: LoginPayload): void {
    const now = this.now();
    for (const [state, exp] of this.completed) if (exp * 1000 <= now) this.completed.delete(state);
    if (this.completed.has(login.s)) throw unauthenticated(`this login with ${login.p} has already been completed; start a new one`);
    this.completed.set(login.s, login.exp);
  }

  private expiry(maxAgeSeconds: number): number {
    return Math.floor(this.now() / 1000) + maxAgeSeconds;
  }
}

/** `Set-Cookie` header value of a cookie. */
export function serializeCookie(cookie: Cookie): string {
  return `${cookie.name}=${cookie.value}; ${cookie.attributes}`;
}

/** The value of cookie `name` in a `Cookie` request header (RFC 6265 §5.4), or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}

export interface AccountAgent {
  /** `<adminBase>acl/agents/<uuid>/#this`. */
  webId: string;
  /** `acl/agents/<uuid>/`, relative to the admin base. */
  agentPath: string;
  agentTurtle: string;
}

/** The namespace of Lodestone's name-based account UUIDs (RFC 9562 §5.5); never change it, or every account gets a new agent. */
const ACCOUNT_NAMESPACE = 'c4351575-2c0c-4ee3-93c0-6b85961ffba4';
const NAME_MAX = 200;
const EMAIL = /^[^\s@\p{Cc}]{1,64}@[A-Za-z0-9.-]{1,189}$/u;
const CONTROL = /[\p{Cc}\u2028\u2029]/gu;

/**
 * The agent of an OpenID account: a `foaf:Agent, foaf:Person` (the shape of signup.ts) with `foaf:name`, `foaf:mbox` and
 * `foaf:mbox_sha1sum` when the provider gives a verified address, and `foaf:account <#account>`, a `foaf:OnlineAccount`
 * with `foaf:accountServiceHomepage <issuer>` and `foaf:accountName "<subject>"`. Its path is a name-based UUID of
 * (issuer, subject): the same account always finds the same agent, and since the path, not the document (which its
 * agent may edit), binds the account, no agent can claim another person's account by writing one into its profile.
 */
export function accountAgent(claims: OidcClaims, adminBase: string, delegates?: string): AccountAgent {
  if (!adminBase.endsWith('/')) throw new Error(`the admin base ${adminBase} does not end in "/"`);
  const agentPath = `acl/agents/${nameBasedUuid(ACCOUNT_NAMESPACE, JSON.stringify([claims.issuer, claims.subject]))}/`;
  const name = [...(claims.name ?? '').replace(CONTROL, ' ').trim()].slice(0, NAME_MAX).join('') || `${claims.provider} account ${claims.subject}`;
  const email = claims.email !== undefined && claims.emailVerified !== false && EMAIL.test(claims.email) ? claims.email : undefined;
  const agentTurtle = agentDocument({ name, person: true, email, account: { issuer: claims.issuer, subject: claims.subject }, delegates });
  return { webId: `${adminBase}${agentPath}#this`, agentPath, agentTurtle };
}

/** RFC 9562 §5.5: UUID version 5, SHA-1 of the namespace's 16 bytes and the name. */
function nameBasedUuid(namespace: string, name: string): string {
  const hash = createHash('sha1').update(Buffer.from(namespace.replace(/-/g, ''), 'hex')).update(name, 'utf8').digest().subarray(0, 16);
  hash.writeUInt8((hash.readUInt8(6) & 0x0f) | 0x50, 6);
  hash.writeUInt8((hash.readUInt8(8) & 0x3f) | 0x80, 8);
  const hex = hash.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function signatureOf(cookieValue: string): string {
  return cookieValue.slice(cookieValue.lastIndexOf('.') + 1);
}

function sign(key: Buffer, payload: LoginPayload | SessionPayload): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

function verify<P extends LoginPayload | SessionPayload>(key: Buffer, value: string, type: P['t'], now: number): P | undefined {
  const dot = value.lastIndexOf('.');
  if (dot < 0) return undefined;
  const body = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1), 'base64url');
  const expected = createHmac('sha256', key).update(body).digest();
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof payload !== 'object' || payload === null) return undefined;
  const p = payload as Partial<P>;
  if (p.t !== type || typeof p.exp !== 'number' || p.exp * 1000 <= now) return undefined;
  return p as P;
}

function claimsOf(provider: string, issuer: string, subject: string, claims: Record<string, unknown>): OidcClaims {
  const result: OidcClaims = { provider, issuer, subject };
  if (typeof claims.email === 'string') result.email = claims.email;
  if (typeof claims.email_verified === 'boolean') result.emailVerified = claims.email_verified;
  else if (claims.email_verified === 'true' || claims.email_verified === 'false') result.emailVerified = claims.email_verified === 'true';
  if (typeof claims.name === 'string') result.name = claims.name;
  else {
    const parts = [claims.given_name, claims.family_name].filter((part): part is string => typeof part === 'string' && part !== '');
    if (parts.length) result.name = parts.join(' ');
  }
  return result;
}

function unauthenticated(message: string): LodestoneError {
  return new LodestoneError('Unauthenticated', message);
}

/** A failed exchange as a 401 whose message names the OAuth error or the failed check, never the values involved. */
function failure(provider: string, error: unknown, client: OpenId): LodestoneError {
  return unauthenticated(`OpenID Connect login with ${provider} failed: ${describe(error, client)}`);
}

function describe(error: unknown, client: OpenId): string {
  if (error instanceof client.AuthorizationResponseError || error instanceof client.ResponseBodyError) return `the provider answered ${error.error}`;
  if (error instanceof client.ClientError) return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
  if (error instanceof Error) return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
  return 'unknown error';
}
