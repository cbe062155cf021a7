/**
 * HTTP in process, without TLS or a socket: each request goes through Node's own HTTP client and
 * server (the same parser, framing, chunking, repeated headers, `Expect`, `Connection`) over an
 * in-memory stream pair, into the request listener the server runs. The server's end shows what
 * the TLS handshake would have: the client certificate (`getPeerCertificate`), `encrypted`, the
 * client's address. Backpressure is not modelled: test bodies are small.
 */
import { X509Certificate } from 'node:crypto';
import { Agent, createServer, request, type ClientRequest, type IncomingMessage, type RequestOptions, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { clientErrorListener } from '../src/http/client-error.js';

/** One end of a connection: what is written to it is read from the other, in order, on a later turn of the event loop (as from a socket: timers and other I/O run between). */
class End extends Duplex {
  other!: End;
  remoteAddress = '127.0.0.1';
  remoteFamily = 'IPv4';
  remotePort = 40000;
  localAddress = '127.0.0.1';
  localPort = 443;

  constructor() {
    super({ allowHalfOpen: false }); // as net.Socket: the end of what it reads ends what it writes
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    setImmediate(() => this.other.push(chunk));
    done();
  }

  override _final(done: (error?: Error | null) => void): void {
    setImmediate(() => this.other.push(null));
    done();
  }

  // a connection torn down: the other end reads what was written before, then the end (TCP's FIN)
  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    setImmediate(() => this.other.readableEnded || this.other.push(null));
    done(error);
  }

  // what Node's HTTP code may call on a net.Socket; there is no timer or Nagle here
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}

/** Who is at the client's end, as the server would learn it from the connection. */
export interface Peer {
  /** The client's address (default 127.0.0.1). */
  address?: string;
  /** TLS: the server's end is `encrypted` and answers `getPeerCertificate`; the client certificate (PEM, its key may follow) or none. */
  tls?: { certificate?: string };
}

export interface InProcess {
  /** Opens a request on a connection of its own; `options` are those of `http.request` (host, port, method, path, headers). */
  request(options: RequestOptions, peer: Peer, onResponse: (res: IncomingMessage) => void): ClientRequest;
  /** A keep-alive agent whose connections come from `peer`, as `request`'s `agent` option. */
  agent(peer: Peer): Agent;
}

/** The certificate's DER bytes, as `getPeerCertificate().raw` gives them. */
function derOf(pem: string): Buffer {
  return new X509Certificate(pem).raw;
}

/** A client of `listener`, which Node's HTTP server runs as it would for a connection (clientError answered as the server does). */
export async function inProcess(listener: (req: IncomingMessage, res: ServerResponse) => void): Promise<InProcess> {
  const server = createServer(listener);
  server.on('clientError', await clientErrorListener());
  const peers = new Map<string, Buffer>(); // certificates parsed once
  const connect = (peer: Peer): End => {
    const client = new End();
    const end = new End();
    client.other = end;
    end.other = client;
    end.remoteAddress = peer.address ?? '127.0.0.1';
    end.remoteFamily = end.remoteAddress.includes(':') ? 'IPv6' : 'IPv4';
    if (peer.tls) {
      const pem = peer.tls.certificate;
      let raw = pem === undefined ? undefined : peers.get(pem);
      if (pem !== undefined && !raw) peers.set(pem, (raw = derOf(pem)));
      Object.assign(end, { encrypted: true, authorized: false, getPeerCertificate: () => (raw ? { raw } : {}) });
    }
    server.emit('connection', end);
    return client;
  };
  return {
    request: (options, peer, onResponse) => request({ ...options, agent: undefined, createConnection: () => connect(peer) }, onResponse),
    agent(peer) {
      const agent = new Agent({ keepAlive: true });
      agent.createConnection = () => connect(peer) as unknown as Socket;
      return agent;
    },
  };
}
