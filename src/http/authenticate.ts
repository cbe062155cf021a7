/**
 * Who is asking: WebID-TLS from the TLS client certificate, or, with `--http` behind a
 * TLS-terminating proxy, from the RFC 9440 `Client-Cert` header, honoured only when the request
 * comes from a trusted proxy address. The Koa middleware sets ctx.state.agent (undefined:
 * anonymous); the read fast path asks `known` and steps aside when the answer needs a document read.
 */
import type { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type Koa from 'koa';
import { clientCertHeader, parseCertificate, UNKNOWN, type WebIdVerifier } from '../auth/webid-tls.js';
import { HttpError } from './http-error.js';
import type { State } from './state.js';

export interface AuthenticateOptions {
  verifier: WebIdVerifier;
  /** The secretary's WebID: the one agent that may act On-Behalf-Of another. */
  secretary?: string;
  /** Addresses whose Client-Cert header is believed. */
  trustedProxies: readonly string[];
}

function normalise(address: string | undefined): string {
  return (address ?? '').replace(/^::ffff:/, '');
}

export class Authenticator {
  private readonly trusted: Set<string>;
  // A TLS connection keeps its client certificate: parse it once per connection, not per request.
  private readonly perSocket = new WeakMap<object, X509Certificate | undefined>();

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
    if (typeof header === 'string' && header !== '' && this.trusted.has(normalise(socket.remoteAddress))) return clientCertHeader(header);
    return undefined;
  }

  /** The agent (undefined: anonymous) when it is known without reading documents, else UNKNOWN. */
  known(req: IncomingMessage): string | undefined | typeof UNKNOWN {
    return this.options.verifier.known(this.certificateOf(req));
  }

  /** The agent, reading WebID documents when needed; throws 401 for a key the WebID does not list. */
  identify(req: IncomingMessage): Promise<string | undefined> {
    return this.options.verifier.verify(this.certificateOf(req));
  }

  middleware(): Koa.Middleware<State> {
    return async (ctx, next) => {
      const agent = await this.identify(ctx.req);
      const principal = ctx.get('On-Behalf-Of');
      ctx.state.agent = principal ? await this.delegated(agent, principal) : agent;
      await next();
    };
  }

  /**
   * Delegation: the secretary acts as `principal` when the principal's WebID document delegates
   * to it (`<principal> acl:delegates <secretary>`); any other case is a 403.
   */
  private async delegated(agent: string | undefined, principal: string): Promise<string> {
    const { secretary, verifier } = this.options;
    if (!agent || agent !== secretary) throw new HttpError(403, 'only the secretary may send On-Behalf-Of');
    if (!/^https?:\/\/\S+$/.test(principal)) throw new HttpError(400, `On-Behalf-Of must be a WebID, not "${principal}"`);
    if (!(await verifier.delegates(principal, secretary))) throw new HttpError(403, `${principal} does not delegate to ${secretary} (acl:delegates)`);
    return principal;
  }
}
