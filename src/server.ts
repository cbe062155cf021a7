/**
 * The composition root of `lodestone serve`: opens every dataspace (repository, index, working
 * tree, watcher), bootstraps an empty data directory, builds the HTTP app and listens over HTTPS
 * (asking for a client certificate without requiring one), or over HTTP behind a proxy.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import { WebIdVerifier } from './auth/webid-tls.js';
import { RemoteWebIds } from './auth/remote-webid.js';
import { safeFetch } from './net/safe-fetch.js';
import { parseRdf } from './rdf/ntriples.js';
import { bootstrap, type Bootstrapped } from './bootstrap.js';
import type { ServeConfig } from './config.js';
import { Dataspace } from './dataspace.js';
import { readVersioning } from './system-config.js';
import { Composer } from './documents/composer.js';
import { DocumentService } from './documents/document-service.js';
import { createApp, runtimeFor } from './http/app.js';
import { Authenticator } from './http/authenticate.js';
import { fastReader } from './http/fast-read.js';
import { startMirror } from './mirror/mirror.js';
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

export async function serve(config: ServeConfig, log: (line: string) => void = (l) => console.log(l)): Promise<Running> {
  const opened: Dataspace[] = [];
  const composer = new Composer();
  const compose = composer.compose.bind(composer);
  const versioning = await readVersioning(config.data, config.base, log);
  for (const spec of defaultDataspaces(config.base)) {
    const started = Date.now();
    const history = versioning.get(spec.base);
    const dataspace = await Dataspace.open({
      ...spec,
      dir: dataspaceDir(config.data, spec.id),
      watch: config.watch,
      log,
      versioned: history !== undefined,
      branch: history?.branch,
      prefix: history?.pathPrefix,
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
  const authenticator = new Authenticator({ verifier, trustedProxies: config.trustedProxies, secretary: agents.secretary.webId });
  const representations = new RepresentationCache();
  const scheme = config.http ? 'http' : 'https';
  const app = createApp({ runtimes, authenticator, representations, bodyLimit: config.bodyLimit, sparqlTimeoutMs: config.sparqlTimeoutMs, scheme, log });
  const koa = app.callback();
  const fast = fastReader({ runtimes, scheme, authenticator, representations });
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (!fast(req, res)) void koa(req, res);
  };
  const server = config.http ? createHttpServer(handle) : createHttpsServer({ cert: agents.server.certPem, key: agents.server.keyPem, requestCert: true, rejectUnauthorized: false }, handle);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  log(`owner WebID: ${agents.owner.webId}`);
  log(`owner certificate: ${agents.owner.credentialsFile} (curl -k -E ${agents.owner.credentialsFile} ${config.base})`);
  log(`secretary certificate: ${agents.secretary.credentialsFile}`);
  log(`listening on ${config.base}`);
  return {
    server,
    runtimes,
    agents,
    async close() {
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const runtime of runtimes) await runtime.mirror?.stop();
      for (const runtime of runtimes) await runtime.dataspace.close();
      await composer.close();
    },
  };
}
