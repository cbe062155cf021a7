/**
 * The access log: one line per request once its response is done, measured on Node's own request
 * and response, so the read fast path, the Koa app and requests refused before routing are alike:
 *   <ISO time received> <agent WebID or -> <method> <URL as received> <status> <body bytes> <ms>
 * (with ` aborted` after it when the client left first). Never a header, cookie or certificate,
 * and never the value of a query parameter that carries a secret (an OpenID Connect callback's
 * `code` and `state`, a token, a password): it is logged as `…`.
 * Lines are batched per turn of the event loop into a write stream (standard output, or a file
 * opened for appending); a stream that does not keep up loses lines (counted in the server log)
 * rather than holding them in memory without bound.
 */
import { createWriteStream, openSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';

/** Bytes waiting in the stream beyond which lines are dropped. */
const BACKLOG = 4 * 1024 * 1024;

export interface AccessLog {
  /** Follows one request from now until its response is done or abandoned. */
  track(req: IncomingMessage, res: ServerResponse): void;
  /** A request Node's HTTP parser refused: its method and URL are unknown. */
  refused(status: number, bytes: number): void;
  /** Writes what is pending and closes a log file. */
  close(): Promise<void>;
}

/** A field as one word: empty is `-`; white space, quotes and control characters are percent-encoded. */
function word(value: string | undefined): string {
  return value ? value.replace(/[\s"\x00-\x1f\x7f-\x9f]/g, (c) => encodeURIComponent(c)) : '-';
}

/** Query parameters whose values are secrets: OAuth 2.0's `code` and `state` (RFC 6749 §4.1.2), tokens, passwords, keys. */
const SECRET_PARAMETER = /^(?:code|state|[\w-]*token|password|passphrase|secret|[\w-]*key)$/i;

/** The URL as received, the values of its secret-bearing query parameters replaced by `…`. */
export function loggedUrl(url: string | undefined): string | undefined {
  const question = url?.indexOf('?') ?? -1;
  if (url === undefined || question < 0) return url;
  const query = url.slice(question + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq < 0) return pair;
    let name: string;
    try {
      name = decodeURIComponent(pair.slice(0, eq).replace(/\+/g, ' '));
    } catch {
      name = pair.slice(0, eq);
    }
    return SECRET_PARAMETER.test(name) ? `${pair.slice(0, eq)}=…` : pair;
  });
  return `${url.slice(0, question)}?${query.join('&')}`;
}

function byteSize(chunk: unknown, encoding: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  return chunk instanceof Uint8Array ? chunk.byteLength : 0;
}

type Write = (this: ServerResponse, ...args: unknown[]) => unknown;

/** The access log `target` names ('-': standard output, 'off': none, else a file), or undefined. */
export function openAccessLog(target: string, agentOf: (req: IncomingMessage) => string | undefined, warn: (line: string) => void): AccessLog | undefined {
  if (target === 'off') return undefined;
  const name = target === '-' ? 'standard output' : target;
  const stream: Writable = target === '-' ? process.stdout : createWriteStream(target, { fd: openSync(target, 'a', 0o640) });
  let pending = '';
  let dropped = 0;
  let failed = false;
  const onError = (error: Error) => {
    if (!failed) warn(`access log (${name}): ${error.message}; it is off from now on`);
    failed = true;
  };
  stream.on('error', onError);
  const flush = () => {
    if (failed || pending === '') return;
    stream.write(pending);
    pending = '';
  };
  const append = (line: string) => {
    if (failed) return;
    if (stream.writableLength + pending.length > BACKLOG) {
      dropped++;
      return;
    }
    if (dropped > 0) warn(`access log (${name}): ${dropped} lines were dropped while it did not keep up`);
    dropped = 0;
    if (pending === '') setImmediate(flush);
    pending += line + '\n';
  };

  return {
    track(req, res) {
      const received = Date.now();
      const started = performance.now();
      let bytes = 0;
      // count the body bytes the handlers hand to Node, whichever path answers
      const write = res.write as unknown as Write;
      const end = res.end as unknown as Write;
      res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
        bytes += byteSize(chunk, rest[0]);
        return write.call(this, chunk, ...rest);
      } as typeof res.write;
      res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
        if (!this.writableEnded) bytes += byteSize(chunk, rest[0]);
        return end.call(this, chunk, ...rest);
      } as typeof res.end;
      res.once('close', () => {
        const status = res.headersSent ? res.statusCode : '-';
        const body = req.method === 'HEAD' || status === 204 || status === 304 ? 0 : bytes;
        const ms = (performance.now() - started).toFixed(1);
        append(`${new Date(received).toISOString()} ${word(agentOf(req))} ${word(req.method)} ${word(loggedUrl(req.url))} ${status} ${body} ${ms}${res.writableFinished ? '' : ' aborted'}`);
      });
    },
    refused(status, bytes) {
      append(`${new Date().toISOString()} - - - ${status} ${bytes} -`);
    },
    async close() {
      flush();
      failed = true; // no line after this
      if (stream === process.stdout) return void stream.off('error', onError);
      await new Promise<void>((resolve) => stream.end(resolve));
    },
  };
}
