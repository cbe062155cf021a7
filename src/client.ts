/**
 * The HTTP client commands of `lodestone` (DESIGN.md, "Command line"): `get`, `put`, `patch` and
 * `delete` talk to any Lodestone (or Graph Store Protocol) server over the API, with the client
 * certificate given by `--cert` (a PEM holding the certificate and its key).
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface ClientRequest {
  method: string;
  url: string;
  /** PEM file with the client certificate followed by its private key. */
  cert?: string;
  /** Accept self-signed server certificates (like curl -k). */
  insecure?: boolean;
  headers?: Record<string, string>;
  body?: Buffer;
}

export interface ClientResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export function send(options: ClientRequest): Promise<ClientResponse> {
  const url = new URL(options.url);
  const pem = options.cert ? readFileSync(options.cert, 'utf8') : undefined;
  const tls = url.protocol === 'https:' ? { rejectUnauthorized: !options.insecure, ...(pem ? { cert: pem, key: pem } : {}) } : {};
  const call = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = call(url, { method: options.method, headers: options.headers, ...tls }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (options.body) req.write(options.body);
    req.end();
  });
}

/** The dct:title of an RDF error body (SPEC §2.4), or the body itself when it has none. */
export function errorTitle(body: Buffer): string {
  const text = body.toString('utf8');
  const title = /dct:title\s+"((?:[^"\\]|\\.)*)"/.exec(text) ?? /<http:\/\/purl\.org\/dc\/terms\/title>\s+"((?:[^"\\]|\\.)*)"/.exec(text);
  return title ? title[1]!.replace(/\\"/g, '"') : text.trim();
}
