/**
 * The composition root of `lodestone serve`: locks the data directory and checks the base it was
 * made for, opens every dataspace (repository, index, working tree, watcher), bootstraps an empty
 * data directory, sets up OpenID Connect login in the admin dataspace, builds the HTTP app and
 * listens over HTTPS (asking for a client certificate without requiring one), or over HTTP behind a
 * proxy. Every request, whichever path answers it, passes the access log.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { OidcLogin } from './auth/oidc.js';
import { WebIdVerifier } from './auth/webid-tls.js';
import { RemoteWebIds } from './auth/remote-webid.js';
import { safeFetch } from './net/safe-fetch.js';
import { parseRdf } from './rdf/ntriples.js';
import { bootstrap, type Bootstrapped } from './bootstrap.js';
import { checkBase } from './base-check.js';
import type { ServeConfig } from './config.js';
import { lockDataDir, type DataLock } from './data-lock.js';
import { Dataspace, descriptionFile } from './dataspace.js';
import { readSessionKey, readSystemConfig, type OidcProviderDeclaration } from './system-config.js';
import { Composer } from './documents/composer.js';
import { DocumentService } from './documents/document-service.js';
import { createApp, runtimeFor } from './http/app.js';
import { openAccessLog } from './http/access-log.js';
import { agentOf, Authenticator } from './http/authenticate.js';
import { clientErrorListener } from './http/client-error.js';
import { fastReader } from './http/fast-read.js';
import { enableOidc, oidcCallbackUrl } from './http/oauth2.js';
import { startMirror } from './mirror/mirror.js';
import { DiskClient } from './store/disk.js';
import { AccessControl } from './access/access-control.js';
import { RepresentationCache } from './http/representations.js';
import type { DataspaceRuntime } from './http/state.js';

export interface DataspaceSpec {
  id: string;
  base: string;
}

/** The default instance: an end-user dataspace at the base URL and its admin dataspace under it. */
export function defaultDataspaces(base: string): DataspaceSpec[] {
  return [
    { id: 'end-user', base },
    { id: 'admin', base: new URL('admin/', base).href },
  ];
}

export function dataspaceDir(data: string, id: string): string {
  return join(data, 'dataspaces', id);
}

export interface Running {
  server: Server;
  runtimes: DataspaceRuntime[];
  agents: Bootstrapped;
  close(): Promise<void>;
}

function enabled(provider: OidcProviderDeclaration): boolean {
  return provider.clientId !== undefined && provider.clientSecret !== undefined;
}

/** The OpenID Connect login service of the admin dataspace, with the providers that have a client; undefined without a usable session key. */
async function startOidc(config: ServeConfig, adminBase: string, providers: readonly OidcProviderDeclaration[], log: (line: string) => void): Promise<OidcLogin | undefined> {
  const secret = await readSessionKey(config.data, log);
  const redirectUri = (name: string) => oidcCallbackUrl(adminBase, name);
  for (const p of providers) {
    const missing = [p.clientId === undefined && 'lds:clientId in system.ttl', p.clientSecret === undefined && 'a:clientSecret in secrets/credentials.ttl'].filter(Boolean).join(' and ');
    log(`OpenID provider ${p.name} (${p.issuer}): ${missing ? `off until it has ${missing}` : `on, client ${p.clientId}, redirect URI ${redirectUri(p.name)}`}`);
  }
  if (!secret) return undefined;
  const clients = providers.filter(enabled).map((p) => ({ name: p.name, issuer: p.issuer, clientId: p.clientId!, clientSecret: p.clientSecret! }));
  // plain-HTTP issuers only where internal addresses are allowed too (tests, private networks)
  return new OidcLogin({ providers: clients, redirectUri, secret, allowInsecureRequests: config.allowInternalUrls });
}

/** Starts a server on the data directory, which no other may serve meanwhile and which must have been made for `config.base`. */
export async function serve(config: ServeConfig, log: (line: string) => void = (l) => console.log(l)): Promise<Running> {
  const lock = await lockDataDir(config.data, { base: config.base, host: config.host, port: config.port }, log);
  try {
    await checkBase(config, descriptionFile(join(dataspaceDir(config.data, 'end-user'), '.git')));
    return await start(config, log, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** The same line as `listening on <base>`, plus the address listened on when the base names another. */
function readyLine(config: ServeConfig, bound: AddressInfo): string {
  const url = new URL(config.base);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const address = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return `listening on ${config.base}${port === bound.port && url.hostname === config.host ? '' : ` (on ${address} port ${bound.port})`}`;
}

async function start(config: ServeConfig, log: (line: string) => void, lock: DataLock): Promise<Running> {
  const accessLog = openAccessLog(config.accessLog, agentOf, log); // first: a file it cannot open stops the start
  const opened: Dataspace[] = [];
  const composer = new Composer({ log });
  const disk = new DiskClient(); // one disk worker makes the writes of every dataspace
  const compose = composer.compose.bind(composer);
  const system = await readSystemConfig(config.data, config.base, log);
  const versioning = system.versioning;
  for (const spec of defaultDataspaces(config.base)) {
    const started = Date.now();
    const history = versioning.get(spec.base);
    const dataspace = await Dataspace.open({
      ...spec,
      dir: dataspaceDir(config.data, spec.id),
      watch: config.watch,
      queryLanes: config.queryLanes,
      log,
      labelDeep: (ntriples, what) => composer.label(ntriples, what),
      versioned: history !== undefined,
      branch: history?.branch,
      prefix: history?.pathPrefix,
      disk,
    });
    if (history) log(`${spec.id}: versioned on branch ${history.branch}${history.location ? `, mirrored to ${history.location}` : ' (local history only)'}`);
    opened.push(dataspace);
    log(`${spec.id}: ${dataspace.base} from ${dataspace.store.dir} at ${dataspace.store.head ?? 'an empty branch'} (${dataspace.store.listFiles().size} documents, ${Date.now() - started} ms)`);
  }
  const access = new AccessControl(opened[1]!);
  const runtimes: DataspaceRuntime[] = opened.map((dataspace) => ({ dataspace, documents: new DocumentService(dataspace, { compose }), access }));
  const [endUser, admin] = runtimes as [DataspaceRuntime, DataspaceRuntime];
  const agents = await bootstrap(config.data, endUser.documents, admin.documents, log);
  access.owner = agents.owner.webId;
  admin.documents.protect(agents.owner.documentPath);
  admin.documents.protect(agents.secretary.documentPath);
  for (const runtime of runtimes) {
    const history = versioning.get(runtime.dataspace.base);
    if (history) runtime.mirror = await startMirror(runtime.dataspace.store, history, { githubApi: config.githubApi, pacingMs: config.mirrorPacingMs, log });
  }

  const local = (documentUrl: string) => {
    const runtime = runtimeFor(runtimes, documentUrl);
    return runtime && { documents: runtime.documents, relative: documentUrl.slice(runtime.dataspace.base.length) };
  };
  // WebID documents: local ones from their dataspace, others fetched under the outgoing-address rules
  const remote = new RemoteWebIds({ fetch: (url) => safeFetch(url, { allowInternal: config.allowInternalUrls }) });
  const verifier = new WebIdVerifier({
    blobId: (url) => {
      const found = local(url);
      if (!found) return remote.blobId(url);
      try {
        return found.documents.blobId(found.relative);
      } catch {
        return undefined;
      }
    },
    read: async (url) => {
      const found = local(url);
      if (!found) {
        const document = await remote.read(url);
        if (!document) log(`remote WebID document ${url} unavailable: ${remote.failure(url) ?? 'unknown reason'}`);
        return document;
      }
      const document = await found.documents.read(found.relative).catch(() => undefined);
      return document && { blobId: document.blobId, quads: parseRdf(document.bytes.toString('utf8')) };
    },
  });
  const scheme = config.http ? 'http' : 'https';
  const declared = system.oidcProviders.get(admin.dataspace.base) ?? [];
  const oidc = await startOidc(config, admin.dataspace.base, declared, log);
  enableOidc(admin, { login: oidc, providers: declared.map((p) => ({ name: p.name, enabled: enabled(p) })), home: endUser.dataspace.base, log });
  // a session names an agent of the admin dataspace for as long as its document is there (deleting it ends its sessions)
  const session = oidc && ((value: string) => {
    const webId = oidc.verifySession(value);
    const found = webId === undefined ? undefined : local(webId.replace(/#.*$/, ''));
    return found && found.documents === admin.documents && found.documents.blobId(found.relative) !== undefined ? webId : undefined;
  });
  const authenticator = new Authenticator({ verifier, trustedProxies: config.trustedProxies, secretary: agents.secretary.webId, session, scheme });
  const representations = new RepresentationCache();
  const app = createApp({ runtimes, authenticator, representations, bodyLimit: config.bodyLimit, sparqlTimeoutMs: config.sparqlTimeoutMs, composer, scheme, log });
  const koa = app.callback();
  const fast = fastReader({ runtimes, scheme, authenticator, representations });
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    accessLog?.track(req, res);
    if (!fast(req, res)) void koa(req, res);
  };
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
  log(readyLine(config, server.address() as AddressInfo));
  return {
    server,
    runtimes,
    agents,
    async close() {
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const runtime of runtimes) await runtime.mirror?.stop();
      for (const runtime of runtimes) await runtime.dataspace.close();
      await disk.close();
      await composer.close();
      await accessLog?.close();
      lock.release();
    },
  };
}
