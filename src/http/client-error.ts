/**
 * Requests Node's HTTP parser refuses before any handler sees them (`clientError`): header fields
 * over the limit answer 431, an oversized chunk extension 413, a request that did not arrive in
 * time 408, anything else malformed 400, each with the RDF error body of SPEC §2.4 in Turtle and
 * `Connection: close`. What the client still sends is read and dropped until it closes (closing on
 * unread bytes would reset the connection before it reads the answer), for two seconds at most. A
 * connection the client reset or closed mid-request, or one with a response under way, is destroyed.
 */
import { maxHeaderSize, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { TURTLE, serialiseQuads } from '../rdf/formats.js';
import { errorResource } from '../rdf/error-resource.js';
import { reasonPhrase } from './http-error.js';

const LINGER_MS = 2000;

const statusOf: Record<string, number> = { HPE_HEADER_OVERFLOW: 431, HPE_CHUNK_EXTENSIONS_OVERFLOW: 413, ERR_HTTP_REQUEST_TIMEOUT: 408 };

const titles: Record<number, string> = {
  400: 'the request is not well-formed HTTP/1.1',
  408: 'the request did not arrive in time',
  413: 'a chunk extension of the request body is too large',
  431: `the request’s header fields are too large: at most ${maxHeaderSize} bytes in all`,
};

export type ClientErrorListener = (error: Error & { code?: string }, socket: Duplex) => void;

/** The server's `clientError` listener; `refused` hears the status and body size of each answer. */
export async function clientErrorListener(refused: (status: number, bytes: number) => void = () => undefined): Promise<ClientErrorListener> {
  const answers = new Map<number, { bytes: Buffer; body: number }>();
  for (const [code, title] of Object.entries(titles)) {
    const status = Number(code);
    const body = Buffer.from(await serialiseQuads(errorResource(status, reasonPhrase(status), title), TURTLE));
    const head = `HTTP/1.1 ${status} ${reasonPhrase(status)}\r\nContent-Type: ${TURTLE}; charset=utf-8\r\nContent-Length: ${body.length}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n`;
    answers.set(status, { bytes: Buffer.concat([Buffer.from(head), body]), body: body.length });
  }
  // Node reports the same failure again for each later chunk of the connection: answer it once
  const answered = new WeakSet<Duplex>();
  return (error, socket) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    // a response under way answers its own request (its handler still runs); a client that left hears nothing
    const inFlight = (socket as { _httpMessage?: ServerResponse | null })._httpMessage;
    if (error.code === 'ECONNRESET' || error.code === 'HPE_INVALID_EOF_STATE' || !socket.writable || inFlight) return void socket.destroy();
    const status = statusOf[error.code ?? ''] ?? 400;
    const answer = answers.get(status)!;
    socket.end(answer.bytes);
    socket.resume();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
    refused(status, answer.body);
  };
}
