/**
 * Who is asking: WebID-TLS from the TLS client certificate, or, with `--http` behind a
 * TLS-terminating proxy, from the RFC 9440 `Client-Cert` header, honoured only when the request
 * comes from a trusted proxy address; else the OpenID Connect session cookie, believed only on
 * requests that come from the server's own origin (no `Origin`, or the same one: CORS answers any
 * origin with credentials, so a cookie alone must not let another origin act as its holder).
 * A certificate that names an agent wins over a cookie. The Koa middleware sets ctx.state.agent
 * (undefined: anonymous); the read fast path asks `known` and steps aside when the answer needs a
 * document read (a session is checked in memory: an HMAC and a blob id). Either way the agent found
 * is kept on the request (`agentOf`), for the access log.
 */
import { LodestoneError } from '../errors.js';
import type { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type Koa from 'koa';
import { readCookie, SESSION_COOKIE } from '../auth/oidc.js';
import { clientCertHeader, parseCertificate, UNKNOWN, type WebIdVerifier } from '../auth/webid-tls.js';
import { clientOf } from './quotas.js';
import type { State } from './state.js';

export interface AuthenticateOptions {
  verifier: WebIdVerifier;
  /** The secretary's WebID: the one agent that may act On-Behalf-Of another. */
  secretary?: string;
  /** Addresses whose Client-Cert header is believed. */
  trustedProxies: readonly string[];
  /** The agent of a session cookie's value (undefined: forged, expired, or its agent is gone); no sessions without it. */
  session?: (cookieValue: string) => string | undefined;
  /** The scheme clients reach the server by, for the origin a session cookie is believed from. */
  scheme?: 'https' | 'http';
}

const AGENT = Symbol('lodestone.agent');
type WithAgent = IncomingMessage & { [AGENT]?: string };

/** The agent the request was found to act as so far (undefined: anonymous, or not yet known). */
export function agentOf(req: IncomingMessage): string | undefined {
  return (req as WithAgent)[AGENT];
}

function remember<T extends string | undefined | typeof UNKNOWN>(req: IncomingMessage, agent: T): T {
  if (typeof agent === 'string') (req as WithAgent)[AGENT] = agent;
  return agent;
}

function normalise(address: string | undefined): string {
  return (address ?? '').replace(/^::ffff:/, '');
}

export class Authenticator {
  private readonly trusted: Set<string>;
  // A TLS connection keeps its client certificate: parse it once per connection, not per request.
  private readonly perSocket = new WeakMap<object, X509Certificate | undefined>();
  private readonly fromHeader = new Map<string, X509Certificate | undefined>();

  constructor(private readonly options: AuthenticateOptions) {
    this.trusted = new Set(options.trustedProxies.map(normalise));
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
    if (typeof header === 'string' && header !== '' && this.trusted.has(normalise(socket.remoteAddress))) {
      // a proxy sends the same certificate on every request of a client: parse each one once
      if (this.fromHeader.has(header)) return this.fromHeader.get(header);
      const cert = clientCertHeader(header);
      if (this.fromHeader.size >= 1000) this.fromHeader.clear();
      this.fromHeader.set(header, cert);
      return cert;
    }
    return undefined;
  }

  /** The agent (undefined: anonymous) when it is known without reading documents, else UNKNOWN. */
  known(req: IncomingMessage): string | undefined | typeof UNKNOWN {
    return remember(req, this.options.verifier.known(this.certificateOf(req)) ?? this.sessionAgent(req));
  }

  /** The agent, reading WebID documents when needed; throws 401 for a key the WebID does not list. */
  async identify(req: IncomingMessage): Promise<string | undefined> {
    return (await this.options.verifier.verify(this.certificateOf(req), clientOf(req))) ?? this.sessionAgent(req);
  }

  /** The agent of the request's session cookie, when it has a valid one and comes from the server's own origin. */
  private sessionAgent(req: IncomingMessage): string | undefined {
    const { session, scheme = 'https' } = this.options;
    if (!session || req.headers.cookie === undefined) return undefined;
    const value = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (!value) return undefined;
    const origin = req.headers.origin;
    if (origin !== undefined && origin.toLowerCase() !== `${scheme}://${req.headers.host ?? ''}`.toLowerCase()) return undefined;
    return session(value);
  }

  middleware(): Koa.Middleware<State> {
    return async (ctx, next) => {
      const agent = remember(ctx.req, await this.identify(ctx.req));
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
