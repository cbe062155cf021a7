/**
 * An origin server for proxy tests: HTTP or HTTPS on loopback, answering by path from handlers the
 * test sets, recording every request (method, path, headers, body, the client certificate's
 * WebID) and counting connections, so a test can show what reached it and that nothing did.
 */
import { X509Certificate } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';

export interface Seen {
  method: string;
  path: string;
  /** The query string, without its `?`. */
  query: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The URI in the client certificate's SubjectAltName, when one was presented. */
  webId?: string;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export type OriginHandler = (request: Seen, res: ServerResponse) => Reply | void;

export class Origin {
  readonly seen: Seen[] = [];
  connections = 0;
  port = 0;
  private readonly handlers = new Map<string, OriginHandler>();
  private readonly server: http.Server;

  constructor(tls?: { cert: string; key: string }) {
    const handle = (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res);
    this.server = tls ? https.createServer({ ...tls, requestCert: true, rejectUnauthorized: false }, handle) : http.createServer(handle);
    this.server.on(tls ? 'secureConnection' : 'connection', () => this.connections++);
  }

  get scheme(): string {
    return this.server instanceof https.Server ? 'https' : 'http';
  }

  /** Answers GETs (and every other method) of `path` with `handler`'s reply. */
  on(path: string, handler: OriginHandler | Reply): this {
    this.handlers.set(path, typeof handler === 'function' ? handler : () => handler);
    return this;
  }

  async listen(host = '127.0.0.1', port = 0): Promise<this> {
    await new Promise<void>((resolve, reject) => this.server.once('error', reject).listen(port, host, resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `${this.scheme}://${host.includes(':') ? `[${host}]` : host}:${this.port}${path}`;
  }

  /** The requests of `path` seen so far. */
  requests(path: string): Seen[] {
    return this.seen.filter((s) => s.path === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://origin');
    const peer = (req.socket as Partial<TLSSocket>).getPeerCertificate?.();
    const san = peer?.raw ? new X509Certificate(peer.raw).subjectAltName : undefined;
    const seen: Seen = { method: req.method ?? '', path: url.pathname, query: url.search.slice(1), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
    const webId = san && /URI:([^,\s]+)/.exec(san)?.[1];
    if (webId) seen.webId = webId;
    this.seen.push(seen);
    const handler = this.handlers.get(url.pathname);
    if (!handler) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('no such path');
      return;
    }
    const reply = handler(seen, res);
    if (!reply) return; // the handler answered (or never will)
    const body = reply.body ?? '';
    res.writeHead(reply.status ?? 200, { 'Content-Length': String(Buffer.byteLength(body)), ...reply.headers });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}
