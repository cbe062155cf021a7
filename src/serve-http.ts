/**
 * Serving HTTP for `lodestone serve`: one request listener (`handle`) that passes every request to
 * the access log, then to the read fast path, else to the Koa app; and the listener of the
 * configuration: HTTPS asking for a client certificate without requiring one, or plain HTTP behind
 * a TLS-terminating proxy. When it listens it says so with the `listening on <base>` line.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Bootstrapped } from './bootstrap.js';
import type { ServeConfig } from './config.js';
import type { AccessLog } from './http/access-log.js';
import { createApp, type AppOptions } from './http/app.js';
import { clientErrorListener } from './http/client-error.js';
import { fastReader } from './http/fast-read.js';

/** The same line as `listening on <base>`, plus the address listened on when the base names another. */
function readyLine(config: ServeConfig, bound: AddressInfo): string {
  const url = new URL(config.base);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const address = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return `listening on ${config.base}${port === bound.port && url.hostname === config.host ? '' : ` (on ${address} port ${bound.port})`}`;
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** The server's one request listener: the access log, then the read fast path, else the app. */
export function requestListener(app: AppOptions, accessLog: AccessLog | undefined): RequestListener {
  const koa = createApp(app).callback();
  const fast = fastReader({ runtimes: app.runtimes, scheme: app.scheme, authenticator: app.authenticator, representations: app.representations, etags: app.etags, caches: app.caches, compressor: app.compressor });
  return (req, res) => {
    accessLog?.track(req, res);
    if (!fast(req, res)) void koa(req, res);
  };
}

/** Listens with `handle` as the configuration says, and logs how to reach the server. */
export async function listen(config: ServeConfig, handle: RequestListener, agents: Bootstrapped, accessLog: AccessLog | undefined, log: (line: string) => void): Promise<Server> {
  const server = config.http ? createHttpServer(handle) : createHttpsServer({ cert: agents.server.certPem, key: agents.server.keyPem, requestCert: true, rejectUnauthorized: false }, handle);
  server.keepAliveTimeout = 65_000;
  server.on('clientError', await clientErrorListener(accessLog?.refused));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  log(`owner WebID: ${agents.owner.webId}`);
  log(`owner certificate: ${agents.owner.credentialsFile} (curl -k -E ${agents.owner.credentialsFile} ${config.base})`);
  log(`secretary certificate: ${agents.secretary.credentialsFile}`);
  const { file, passwordFile } = agents.ownerPkcs12;
  log(`in a browser: import ${file} as your certificate (its password is in ${passwordFile}), then open ${config.base}`);
  log(readyLine(config, server.address() as AddressInfo)); // last: the line that says the server is ready
  return server;
}

/** Stops listening, ending the connections open. */
export async function stopListening(server: Server): Promise<void> {
  server.closeAllConnections?.();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
