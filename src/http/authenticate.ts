/**
 * Who is asking: WebID-TLS from the TLS client certificate, or, with `--http` behind a
 * TLS-terminating proxy, from the RFC 9440 `Client-Cert` header, honoured only when the request
 * comes from a trusted proxy address. Sets ctx.state.agent (undefined: anonymous).
 */
import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type Koa from 'koa';
import { clientCertHeader, parseCertificate, type WebIdVerifier } from '../auth/webid-tls.js';
import type { State } from './state.js';

export interface AuthenticateOptions {
  verifier: WebIdVerifier;
  /** Addresses whose Client-Cert header is believed. */
  trustedProxies: readonly string[];
}

function normalise(address: string | undefined): string {
  return (address ?? '').replace(/^::ffff:/, '');
}

export function authenticate(options: AuthenticateOptions): Koa.Middleware<State> {
  const trusted = new Set(options.trustedProxies.map(normalise));
  // A TLS connection keeps its client certificate: parse it once per connection, not per request.
  const perSocket = new WeakMap<object, X509Certificate | undefined>();
  return async (ctx, next) => {
    const socket = ctx.req.socket as Partial<TLSSocket>;
    let cert: X509Certificate | undefined;
    if (typeof socket.getPeerCertificate === 'function') {
      if (perSocket.has(socket)) cert = perSocket.get(socket);
      else {
        const peer = socket.getPeerCertificate();
        cert = peer?.raw ? parseCertificate(peer.raw) : undefined;
        perSocket.set(socket, cert);
      }
    } else if (ctx.get('Client-Cert') && trusted.has(normalise(socket.remoteAddress))) {
      cert = clientCertHeader(ctx.get('Client-Cert'));
    }
    ctx.state.agent = await options.verifier.verify(cert);
    await next();
  };
}
