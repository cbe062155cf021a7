/**
 * A real Lodestone server for HTTP tests: a temporary data directory, a free port, HTTPS with the
 * bootstrapped certificates, and a small client that speaks as the owner, the secretary or
 * anonymously (or with any PEM) over real TLS. One server per test file.
 */
import { request as httpsRequest, Agent } from 'node:https';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { serveConfig } from '../src/config.js';
import { serve, type Running } from '../src/server.js';
import { tempDir } from './helpers.js';

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** 'owner' (default), 'secretary', 'anonymous', or a PEM (certificate followed by key). */
  as?: 'owner' | 'secretary' | 'anonymous' | { pem: string };
  /** Local address to connect from (e.g. 127.0.0.2, to look like another host). */
  localAddress?: string;
}

export interface TestServer {
  base: string;
  admin: string;
  data: string;
  port: number;
  running: Running;
  ownerPem: string;
  secretaryPem: string;
  request(method: string, path: string, options?: RequestOptions): Promise<Response>;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

export async function startServer(extraArgs: string[] = [], data = tempDir('server')): Promise<TestServer> {
  const port = await freePort();
  const config = serveConfig(['--data', data, '--port', String(port), '--host', 'localhost', '--no-watch', ...extraArgs]);
  if (config === 'help') throw new Error('unexpected --help');
  const running = await serve(config, () => undefined);
  const ownerPem = readFileSync(running.agents.owner.credentialsFile, 'utf8');
  const secretaryPem = readFileSync(running.agents.secretary.credentialsFile, 'utf8');
  const agents = new Map<string, Agent>();
  const agentFor = (pem: string | undefined) => {
    const key = pem ?? '';
    let agent = agents.get(key);
    if (!agent) {
      agent = new Agent({ keepAlive: true, rejectUnauthorized: false, ...(pem ? { cert: pem, key: pem } : {}) });
      agents.set(key, agent);
    }
    return agent;
  };
  const plain = config.http;
  const request = (method: string, path: string, options: RequestOptions = {}): Promise<Response> => {
    const as = options.as ?? 'owner';
    const pem = as === 'owner' ? ownerPem : as === 'secretary' ? secretaryPem : as === 'anonymous' ? undefined : as.pem;
    const url = new URL(path, config.base);
    return new Promise((resolve, reject) => {
      const send = plain ? httpRequest : httpsRequest;
      const req = send(
        url,
        {
          method,
          headers: options.headers,
          ...(plain ? {} : { agent: options.localAddress ? undefined : agentFor(pem), rejectUnauthorized: false, ...(pem ? { cert: pem, key: pem } : {}) }),
          ...(options.localAddress ? { localAddress: options.localAddress } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (options.body !== undefined) req.write(options.body);
      req.end();
    });
  };
  return {
    base: config.base,
    admin: new URL('admin/', config.base).href,
    data,
    port,
    running,
    ownerPem,
    secretaryPem,
    request,
    async close() {
      for (const agent of agents.values()) agent.destroy();
      await running.close();
    },
  };
}

export const turtle = { 'Content-Type': 'text/turtle' };
