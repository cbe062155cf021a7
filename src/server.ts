/**
 * The composition root of `lodestone serve`: locks the data directory and checks the base it was
 * made for, opens every dataspace of the registry (repository, index, working tree, watcher), each
 * pair with its own access control, bootstraps what is empty, sets up OpenID Connect login in each
 * admin dataspace, builds the HTTP app and listens over HTTPS (asking for a client certificate
 * without requiring one), or over HTTP behind a proxy. Every request, whichever path answers it,
 * passes the access log.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { rootCertificates } from 'node:tls';
import { join } from 'node:path';
import { OidcLogin } from './auth/oidc.js';
import { WebIdVerifier } from './auth/webid-tls.js';
import { RemoteWebIds } from './auth/remote-webid.js';
import { SignupWorkers } from './auth/signup-workers.js';
import { Quotas, QUOTAS } from './http/quotas.js';
import { RateLimit } from './util/rate-limit.js';
import { outbound, type OutboundOptions } from './net/outbound.js';
import type { ProxyCache } from './net/proxy-cache.js';
import { safeFetch } from './net/safe-fetch.js';
import { readCredentials } from './auth/certificates.js';
import { NTRIPLES } from './rdf/formats.js';
import { bootstrap, type Bootstrapped } from './bootstrap.js';
import { checkBase } from './base-check.js';
import type { ServeConfig } from './config.js';
import { lockDataDir, type DataLock } from './data-lock.js';
import { Dataspace, descriptionFile } from './dataspace.js';
import { dataspaceDir, requireDefaultPair, type DataspacePair, type DataspaceSpec } from './registry.js';
import { readDataspaces, readEtagKey, readProxySecret, readSessionKey, readSystemConfig, systemConfigFile, type OidcProviderDeclaration } from './system-config.js';
import { SystemSettings } from './settings.js';
import type { ImportLimits } from './ontology/imports.js';
import { NamespaceOntology } from './ontology/namespace.js';
import { warnOfOldOntologies } from './ontology/governing.js';
import { OntologyWorkers } from './ontology/workers.js';
import { Composer } from './documents/composer.js';
import { DocumentService } from './documents/document-service.js';
import { createApp } from './http/app.js';
import { runtimeFor } from './http/locate.js';
import { openAccessLog } from './http/access-log.js';
import { agentOf, Authenticator } from './http/authenticate.js';
import { clientErrorListener } from './http/client-error.js';
import { fastReader } from './http/fast-read.js';
import { originTrust } from './http/origins.js';
import { oidcCallbackUrl } from './http/oauth2.js';
import { startMirror } from './mirror/mirror.js';
import { DiskClient } from './store/disk.js';
import { AccessControl } from './access/access-control.js';
import { Etags, RepresentationCache } from './http/representations.js';
import { PageDrawer } from './http/page-drawer.js';
import { ReadCaches } from './http/read-caches.js';
import type { DataspaceRuntime } from './runtime.js';
import { documentIri } from './rdf/iri.js';

export interface Running {
  server: Server;
  /** The listener the server answers requests with (tests drive it in process, without TLS or a socket). */
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  runtimes: DataspaceRuntime[];
  agents: Bootstrapped;
  /** The proxy's cache: `purge(url)` drops every agent's copies of a URL (admin/clear). */
  proxyCache: ProxyCache;
  /** Where pages are drawn (its `draws` count pages drawn rather than taken from those kept). */
  pages: PageDrawer;
  close(): Promise<void>;
}

function enabled(provider: OidcProviderDeclaration): boolean {
  return provider.clientId !== undefined && provider.clientSecret !== undefined;
}

/** The OpenID Connect login service of an admin dataspace, with the providers that have a client; undefined without a usable session key. */
function startOidc(config: ServeConfig, adminBase: string, providers: readonly OidcProviderDeclaration[], secret: Buffer | undefined, log: (line: string) => void): OidcLogin | undefined {
  const redirectUri = (name: string) => oidcCallbackUrl(adminBase, name);
  // one line for the providers declared but not begun (the default file's google and orcid), one for each other
  const untouched = providers.filter((p) => p.clientId === undefined && p.clientSecret === undefined);
  if (untouched.length) log(`OpenID Connect login: ${untouched.map((p) => p.name).join(', ')} declared without a client (off; system.ttl says how to turn one on)`);
  for (const p of providers.filter((p) => !untouched.includes(p))) {
    const missing = [p.clientId === undefined && 'lds:clientId in system.ttl', p.clientSecret === undefined && 'a:clientSecret in secrets/credentials.ttl'].filter(Boolean).join(' and ');
    log(`OpenID provider ${p.name} (${p.issuer}): ${missing ? `off until it has ${missing}` : `on, client ${p.clientId}, redirect URI ${redirectUri(p.name)}`}`);
  }
  if (!secret) return undefined;
  const clients = providers.filter(enabled).map((p) => ({ name: p.name, issuer: p.issuer, clientId: p.clientId!, clientSecret: p.clientSecret! }));
  // plain-HTTP issuers only where internal addresses are allowed too (tests, private networks)
  return new OidcLogin({ providers: clients, redirectUri, secret, allowInsecureRequests: config.allowInternalUrls });
}

/** What tests may set that no command-line flag does: how the proxy's outgoing requests resolve names and classify addresses, its limits, and those of ontology imports. */
export type ServeSeams = Pick<OutboundOptions, 'seams' | 'limits'> & {
  /** The bounds of the namespace ontologies' imports (tests shorten the deadline). */
  importLimits?: Partial<ImportLimits>;
};

/** Starts a server on the data directory, which no other may serve meanwhile and which must have been made for `config.base`. */
export async function serve(config: ServeConfig, log: (line: string) => void = (l) => console.log(l), seams: ServeSeams = {}): Promise<Running> {
  const lock = await lockDataDir(config.data, { base: config.base, host: config.host, port: config.port }, log);
  try {
    const pairs = await readDataspaces(config.data, config.base);
    await checkBase(config, descriptionFile(join(dataspaceDir(config.data, pairs[0]!.endUser.id), '.git')));
    requireDefaultPair(pairs, systemConfigFile(config.data), config.base);
    // before anything is opened: a proxy secret that cannot be used stops the start with nothing to close
    const proxySecret = config.trustedProxies.length ? await readProxySecret(config.data, config.trustedProxySecretFile) : undefined;
    return await start(config, pairs, log, lock, seams, proxySecret);
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** A remote WebID document larger than this is refused: a profile is a few kilobytes, and reading one is work for anyone who names it. */
const REMOTE_WEBID_BYTES = 512 * 1024;

/** The same line as `listening on <base>`, plus the address listened on when the base names another. */
function readyLine(config: ServeConfig, bound: AddressInfo): string {
  const url = new URL(config.base);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const address = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return `listening on ${config.base}${port === bound.port && url.hostname === config.host ? '' : ` (on ${address} port ${bound.port})`}`;
}

/** The runtimes of an end-user dataspace and its admin dataspace, which share one access control. */
interface PairRuntimes {
  endUser: DataspaceRuntime;
  admin: DataspaceRuntime;
}

async function start(config: ServeConfig, pairs: readonly DataspacePair[], log: (line: string) => void, lock: DataLock, seams: ServeSeams, proxySecret: { secret: string; file: string } | undefined): Promise<Running> {
  const accessLog = openAccessLog(config.accessLog, agentOf, log); // first: a file it cannot open stops the start
  const composer = new Composer({ log });
  const disk = new DiskClient(); // one disk worker makes the writes of every dataspace
  const compose = composer.compose.bind(composer);
  const system = await readSystemConfig(config.data, config.base, log);
  const versioning = system.versioning;
  const open = async (spec: DataspaceSpec): Promise<{ dataspace: Dataspace; lines: string[] }> => {
    const started = Date.now();
    const history = versioning.get(spec.base);
    const dataspace = await Dataspace.open({
      id: spec.id,
      base: spec.base,
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
    const lines = history ? [`${spec.id}: versioned on branch ${history.branch}${history.location ? `, mirrored to ${history.location}` : ' (local history only)'}`] : [];
    lines.push(`${spec.id}: ${dataspace.base} from ${dataspace.store.dir} at ${dataspace.store.head ?? 'an empty branch'} (${dataspace.store.listFiles().size} documents, ${Date.now() - started} ms)`);
    return { dataspace, lines };
  };
  const paired: PairRuntimes[] = [];
  // every dataspace opens at once (their workers start side by side); the lines come out in order
  const attempts = await Promise.allSettled(pairs.flatMap((pair) => [open(pair.endUser), open(pair.admin)]));
  const failed = attempts.find((attempt) => attempt.status === 'rejected');
  if (failed) {
    // a start that fails closes what it opened (workers, watchers), so the process can exit
    await Promise.all(attempts.map((attempt) => (attempt.status === 'fulfilled' ? attempt.value.dataspace.close() : undefined)));
    await Promise.all([disk.close(), composer.close(), accessLog?.close()]);
    throw failed.reason;
  }
  const opened = attempts.map((attempt) => (attempt as PromiseFulfilledResult<{ dataspace: Dataspace; lines: string[] }>).value);
  for (const { lines } of opened) lines.forEach((line) => log(line));
  const settings = new SystemSettings(systemConfigFile(config.data), config.base, pairs, log);
  const ontologyWorkers = new OntologyWorkers({ queryMs: config.sparqlTimeoutMs });
  const pages = new PageDrawer();
  const fetchRdf = (url: string, limits?: { timeoutMs?: number; maxBytes?: number }) => safeFetch(url, { ...limits, allowInternal: config.allowInternalUrls });
  const secret = await readSessionKey(config.data, log);
  const logins: OidcLogin[] = [];
  for (const [index, pair] of pairs.entries()) {
    const endUser = opened[2 * index]!.dataspace;
    const admin = opened[2 * index + 1]!.dataspace;
    // OpenID Connect login in the admin dataspace, with the providers system.ttl declares for it
    const declared = system.oidcProviders.get(admin.base) ?? [];
    const login = startOidc(config, admin.base, declared, secret, log);
    if (login) logins.push(login);
    const oidc = { login, providers: declared.map((p) => ({ name: p.name, enabled: enabled(p) })), home: endUser.base, log };
    const packages = () => settings.imports(endUser.base);
    // the class hierarchy of access control and the namespace ontology come from the owners' documents only (ontology/governing.ts)
    const access = new AccessControl(admin, endUser.base, packages);
    // the pair's namespace ontology: its SHACL shapes constrain the end-user dataspace's writes, those of people's edits included
    const ontology = new NamespaceOntology({ admin, imports: packages, fetch: fetchRdf, workers: ontologyWorkers, log, importLimits: seams.importLimits });
    const validate = (url: string, bytes: Buffer) => ontology.validate(url, bytes);
    // the pair's pages name things with the shipped vocabularies and this ontology's labels, replaced when it changes
    const labels = pages.labelsOf(() => ontology.lastBuilt());
    endUser.workingTree.validate = validate;
    const runtime = (dataspace: Dataspace, spec: DataspaceSpec): DataspaceRuntime => ({
      dataspace,
      role: spec.role,
      documents: new DocumentService(dataspace, { compose, validate: spec.role === 'end-user' ? validate : undefined }),
      access,
      ontology,
      labels,
      oidc: spec.role === 'admin' ? oidc : undefined,
    });
    paired.push({ endUser: runtime(endUser, pair.endUser), admin: runtime(admin, pair.admin) });
  }
  const runtimes = paired.flatMap((pair) => [pair.endUser, pair.admin]);
  const agents = await bootstrap(config.data, paired.map((pair) => ({ endUser: pair.endUser.documents, admin: pair.admin.documents })), log);
  for (const pair of paired) pair.admin.access.owner = agents.owner.webId;
  // each namespace ontology is built at start, in the background: pages have its labels, and its imports are on their way before the first write
  let stopping = false; // a build the stop cuts short is no failure to log
  for (const { admin } of paired) {
    void admin.ontology?.now().catch((error: Error) => stopping || log(`namespace ontology of ${admin.dataspace.base}: ${error.message}`));
    void warnOfOldOntologies(admin.dataspace, log).catch(() => undefined); // a data directory older than admin/ontologies/
  }
  const home = paired[0]!.admin; // the owner's and the secretary's admin dataspace
  home.documents.protect(agents.owner.documentPath);
  home.documents.protect(agents.secretary.documentPath);
  for (const runtime of runtimes) {
    const history = versioning.get(runtime.dataspace.base);
    if (history) runtime.mirror = await startMirror(runtime.dataspace.store, history, { githubApi: config.githubApi, pacingMs: config.mirrorPacingMs, log });
  }

  const local = (documentUrl: string) => {
    const runtime = runtimeFor(runtimes, documentUrl);
    return runtime && { runtime, documents: runtime.documents, relative: documentUrl.slice(runtime.dataspace.base.length) };
  };
  // WebID documents: local ones from their dataspace, others fetched under the outgoing-address rules;
  // either way read as N-Triples lines, never parsed on the thread that answers requests
  const remote = new RemoteWebIds({
    fetch: (url) => safeFetch(url, { allowInternal: config.allowInternalUrls, maxBytes: REMOTE_WEBID_BYTES }),
    // translated in the composer's pool (a deadline, off the thread that answers requests)
    parse: (text, mediaType, base) => composer.translate({ kind: 'rdf', text, mediaType, base, to: NTRIPLES, sorted: true }),
  });
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
      return document && { blobId: document.blobId, ntriples: document.bytes }; // canonical N-Triples, as stored
    },
  }, { rate: new RateLimit(QUOTAS.verificationsPerAddress) });
  // the scheme clients reach the server by: the base's (https behind a TLS-terminating proxy too)
  const scheme = new URL(config.base).protocol === 'https:' ? 'https' : 'http';
  // a session names an agent of an admin dataspace for as long as its document is there (deleting it
  // ends its sessions); every login service signs sessions with the one session key
  const sessions = logins[0];
  const session = sessions && ((value: string) => {
    const webId = sessions.verifySession(value);
    const found = webId === undefined ? undefined : local(documentIri(webId));
    return found && found.runtime.role === 'admin' && found.documents.blobId(found.relative) !== undefined ? webId : undefined;
  });
  if (proxySecret) log(`trusted proxy ${config.trustedProxies.join(', ')}: its Client-Cert is believed with Lodestone-Proxy-Secret, the text of ${proxySecret.file}`);
  const trusts = originTrust(config.corsOrigins, system.corsOrigins);
  const authenticator = new Authenticator({ verifier, trustedProxies: config.trustedProxies, proxySecret: proxySecret?.secret, secretary: agents.secretary.webId, session, trusts, log });
  const representations = new RepresentationCache();
  const caches = new ReadCaches();
  const etags = new Etags(await readEtagKey(config.data, log)); // stable across restarts: clients hold ETags for If-Match
  // the proxy speaks as the secretary, and trusts the server's own certificate besides Node's list (dataspaces of this instance are origins too)
  const secretary = await readCredentials(agents.secretary.credentialsFile);
  const proxyOut = outbound({
    allowInternal: config.allowInternalUrls,
    ca: [...rootCertificates, agents.server.certPem],
    secretary: { webId: agents.secretary.webId, cert: secretary.certPem, key: secretary.keyPem },
    seams: seams.seams,
    limits: seams.limits,
  });
  // admin/clear with uri= drops the proxy's copies of that ontology too
  const purge = (uri: string) => {
    for (const url of new Set([uri, documentIri(uri)])) proxyOut.cache.purge(url);
  };
  for (const runtime of runtimes) if (runtime.role === 'admin') runtime.ontology?.onPurge(purge);
  const signups = new SignupWorkers();
  const quotas = new Quotas({ exempt: [agents.owner.webId, agents.secretary.webId] });
  const app = createApp({ runtimes, authenticator, representations, etags, bodyLimit: config.bodyLimit, sparqlTimeoutMs: config.sparqlTimeoutMs, composer, outbound: proxyOut, scheme, trusts, log, settings, pages, caches, quotas, signupCredentials: (request) => signups.issue(request) });
  const koa = app.callback();
  const fast = fastReader({ runtimes, scheme, authenticator, representations, etags, caches });
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
  void pages.readShippedLabels(proxyOut.vocabularies, log);
  return {
    server,
    handle,
    runtimes,
    agents,
    proxyCache: proxyOut.cache,
    pages,
    async close() {
      stopping = true;
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const runtime of runtimes) await runtime.mirror?.stop();
      for (const runtime of runtimes) await runtime.dataspace.close();
      await disk.close();
      await composer.close();
      await signups.close();
      await ontologyWorkers.close();
      await pages.close();
      await accessLog?.close();
      lock.release();
    },
  };
}
