/**
 * Who is asking, decided here once for every path that answers (the Koa middleware and the read
 * fast path): the TLS client certificate (WebID-TLS); with `--http` behind a TLS-terminating proxy,
 * the RFC 9440 `Client-Cert` header, believed only from a `--trusted-proxy` address that also sends
 * the proxy secret (a header proves nothing about the private key: only the proxy that checked the
 * handshake may vouch for it); else the OpenID Connect session cookie. A certificate that names an
 * agent wins over a cookie. The agent found is kept on the request (`agentOf`) for the access log.
 *
 * Credentials count only where the browser says the request comes from a trusted place (DESIGN.md,
 * "Origins"; origins.ts): a browser attaches the visitor's certificate and cookie to requests any
 * page makes, so, with no proof of the page's intent, credentials act for no one but the dataspace's
 * own pages and the origins it trusts:
 * - `Origin` (Fetch §3.1: every CORS request, and every one whose method is not GET or HEAD): the
 *   dataspace's own origin or a trusted one; `null` (a sandboxed page, a redirect across origins) never.
 * - no `Origin`, and `Sec-Fetch-Site` cross-site or same-site (Fetch Metadata): another site's page
 *   had the browser fetch it without CORS (an image, a script, a frame, a no-cors fetch). Only a
 *   top-level navigation keeps its credentials (Sec-Fetch-Mode navigate, Sec-Fetch-Dest document):
 *   a user who follows a link to a document sees their own view of it, in their own tab, where the
 *   linking page cannot read it (GET changes nothing; a form's POST carries Origin).
 * - neither: a client outside a browser (curl, another server: the secretary's On-Behalf-Of calls),
 *   a same-origin GET, or a browser too old to say; credentials count.
 * Otherwise the request acts as anonymous (its certificate is not even verified).
 */
import { LodestoneError } from '../errors.js';
import { createHash, timingSafeEqual, type X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type Koa from 'koa';
import { readCookie, SESSION_COOKIE } from '../auth/oidc.js';
import { clientCertHeader, parseCertificate, UNKNOWN, type WebIdVerifier } from '../auth/webid-tls.js';
import { webOrigin } from '../net/web-origin.js';
import { originTrust, type OriginTrust } from './origins.js';
import { clientOf, forwardedFor } from './quotas.js';
import { isIP } from 'node:net';
import type { State } from './state.js';

export interface AuthenticateOptions {
  verifier: WebIdVerifier;
  /** The secretary's WebID: the one agent that may act On-Behalf-Of another. */
  secretary?: string;
  /** Addresses whose Client-Cert header is believed, when it comes with the proxy secret. */
  trustedProxies: readonly string[];
  /** What a trusted proxy sends in `Lodestone-Proxy-Secret`; without one, no Client-Cert is believed. Never logged. */
  proxySecret?: string;
  /** The origins a dataspace trusts with credentials (its own always); default: its own only. */
  trusts?: OriginTrust;
  /** The agent of a session cookie's value (undefined: forged, expired, or its agent is gone); no sessions without it. */
  session?: (cookieValue: string) => string | undefined;
  /** Where a Client-Cert ignored for want of the proxy's address or secret is said, once. */
  log?: (line: string) => void;
}

const AGENT = Symbol('lodestone.agent');
type WithAgent = IncomingMessage & { [AGENT]?: string };

/** The agent the request was found to act as so far (undefined: anonymous, or not yet known). */
export function agentOf(req: IncomingMessage): string | undefined {
  return (req as WithAgent)[AGENT];
}

const BY_CERTIFICATE = Symbol('lodestone.byCertificate');

/** Whether the request's agent was found by its client certificate (which the browser holds: no logout ends it), not by a session cookie. */
export function byCertificate(req: IncomingMessage): boolean {
  return (req as WithAgent & { [BY_CERTIFICATE]?: true })[BY_CERTIFICATE] === true;
}

function certified(req: IncomingMessage, agent: string | undefined): string | undefined {
  if (agent !== undefined) (req as WithAgent & { [BY_CERTIFICATE]?: true })[BY_CERTIFICATE] = true;
  return agent;
}

function remember<T extends string | undefined | typeof UNKNOWN>(req: IncomingMessage, agent: T): T {
  if (typeof agent === 'string') (req as WithAgent)[AGENT] = agent;
  return agent;
}

function normalise(address: string | undefined): string {
  return (address ?? '').replace(/^::ffff:/, '');
}

/** The header a trusted proxy proves itself with (its value is the secret). */
export const PROXY_SECRET_HEADER = 'lodestone-proxy-secret';

const digest = (value: string) => createHash('sha256').update(value).digest();

const SAFE = new Set(['GET', 'HEAD']);

/** Whether a request's credentials may act for it, from where the browser says it comes (the module comment). */
export function credentialsCount(req: IncomingMessage, base: string, trusts: OriginTrust): boolean {
  const { origin, 'sec-fetch-site': site, 'sec-fetch-mode': mode, 'sec-fetch-dest': dest } = req.headers;
  if (origin !== undefined) {
    const normalised = webOrigin(origin);
    return normalised !== undefined && trusts(base, normalised);
  }
  if (site !== 'cross-site' && site !== 'same-site') return true;
  return SAFE.has(req.method ?? '') && mode === 'navigate' && dest === 'document';
}

export class Authenticator {
  private readonly trusted: Set<string>;
  private readonly secret: Buffer | undefined;
  private readonly trusts: OriginTrust;
  // A TLS connection keeps its client certificate: parse it once per connection, not per request.
  private readonly perSocket = new WeakMap<object, X509Certificate | undefined>();
  private readonly fromHeader = new Map<string, X509Certificate | undefined>();
  private told = false;

  constructor(private readonly options: AuthenticateOptions) {
    this.trusted = new Set(options.trustedProxies.map(normalise));
    this.secret = options.proxySecret === undefined ? undefined : digest(options.proxySecret);
    this.trusts = options.trusts ?? originTrust([]);
  }

  /** Whether the request came from the trusted proxy: its address, and the secret compared in constant time (digests of equal length). */
  private sentByProxy(req: IncomingMessage): boolean {
    const sent = req.headers[PROXY_SECRET_HEADER];
    return this.trusted.has(normalise(req.socket.remoteAddress)) && this.secret !== undefined && typeof sent === 'string' && timingSafeEqual(digest(sent), this.secret);
  }

  /** `sentByProxy`, saying once why a Client-Cert header is not believed. */
  private fromProxy(req: IncomingMessage): boolean {
    if (this.sentByProxy(req)) return true;
    const address = this.trusted.has(normalise(req.socket.remoteAddress));
    if (!this.told) {
      this.told = true;
      const why = !address ? `it came from ${normalise(req.socket.remoteAddress)}, not a --trusted-proxy address` : `it came without the proxy secret (${PROXY_SECRET_HEADER})`;
      this.options.log?.(`a Client-Cert header was ignored (the request is anonymous): ${why}; said once`);
    }
    return false;
  }

  private certificateOf(req: IncomingMessage): X509Certificate | undefined {
    const socket = req.socket as Partial<TLSSocket>;
    if (typeof socket.getPeerCertificate === 'function') {
      if (this.perSocket.has(socket)) return this.perSocket.get(socket);
      const peer = socket.getPeerCertificate();
      const cert = peer?.raw ? parseCertificate(peer.raw) : undefined;
      this.perSocket.set(socket, cert);
      return cert;
    }
    const header = req.headers['client-cert'];
    if (typeof header === 'string' && header !== '' && this.fromProxy(req)) {
      // a proxy sends the same certificate on every request of a client: parse each one once
      if (this.fromHeader.has(header)) return this.fromHeader.get(header);
      const cert = clientCertHeader(header);
      if (this.fromHeader.size >= 1000) this.fromHeader.clear();
      this.fromHeader.set(header, cert);
      return cert;
    }
    return undefined;
  }

  /** The agent of a request to the dataspace at `base` (undefined: anonymous) when it is known without reading documents, else UNKNOWN. */
  known(req: IncomingMessage, base: string): string | undefined | typeof UNKNOWN {
    if (!credentialsCount(req, base, this.trusts)) return undefined;
    const known = this.options.verifier.known(this.certificateOf(req));
    return remember(req, known === UNKNOWN ? known : (certified(req, known) ?? this.sessionAgent(req)));
  }

  /** The agent of a request to the dataspace at `base`, reading WebID documents when needed; throws 401 for a key the WebID does not list. */
  async identify(req: IncomingMessage, base: string): Promise<string | undefined> {
    if (!credentialsCount(req, base, this.trusts)) return undefined;
    return certified(req, await this.options.verifier.verify(this.certificateOf(req), clientOf(req))) ?? this.sessionAgent(req);
  }

  /** The agent of the request's session cookie, when it has a valid one. */
  private sessionAgent(req: IncomingMessage): string | undefined {
    const { session } = this.options;
    if (!session || req.headers.cookie === undefined) return undefined;
    const value = readCookie(req.headers.cookie, SESSION_COOKIE);
    return value ? session(value) : undefined;
  }

  middleware(): Koa.Middleware<State> {
    return async (ctx, next) => {
      // behind the trusted proxy, the client is the one it names (X-Real-IP), not the proxy: quotas count clients
      const real = ctx.get('X-Real-IP');
      if (real && isIP(real) && this.sentByProxy(ctx.req)) forwardedFor(ctx.req, real);
      const agent = remember(ctx.req, await this.identify(ctx.req, ctx.state.runtime.documents.base));
      const principal = ctx.get('On-Behalf-Of');
      ctx.state.agent = principal ? remember(ctx.req, await this.delegated(agent, principal)) : agent;
      await next();
    };
  }

  /**
   * Delegation: the secretary acts as `principal` when the principal's WebID document delegates
   * to it (`<principal> acl:delegates <secretary>`); any other case is a 403.
   */
  private async delegated(agent: string | undefined, principal: string): Promise<string> {
    const { secretary, verifier } = this.options;
    if (!agent || agent !== secretary) throw new LodestoneError('Forbidden', 'only the secretary may send On-Behalf-Of');
    if (!/^https?:\/\/\S+$/.test(principal)) throw new LodestoneError('BadRequest', `On-Behalf-Of must be a WebID, not "${principal}"`);
    if (!(await verifier.delegates(principal, secretary))) throw new LodestoneError('Forbidden', `${principal} does not delegate to ${secretary} (acl:delegates)`);
    return principal;
  }
}
