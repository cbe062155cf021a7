/**
 * The composition root of `lodestone serve`, read top to bottom: lock the data directory and check
 * the base it was made for; start the worker threads of the thread map (threads.ts); open the
 * dataspaces (open-dataspaces.ts), each pair with its namespace ontology; bootstrap what is empty;
 * build each dataspace's runtime whole (access control, documents, mirror, login); set up who is
 * asking (identity.ts); serve HTTP (serve-http.ts). Every long-lived thing is built here, once,
 * and passed in, nothing is changed once built; a start that fails closes what it had built, last
 * built first.
 */
import type { Server } from 'node:http';
import { rootCertificates } from 'node:tls';
import { join } from 'node:path';
import { SignupWorkers } from './auth/signup-workers.js';
import { readCredentials } from './auth/certificates.js';
import { AccessControl } from './access/access-control.js';
import { bootstrap, existingAgents, secretsDir, type Bootstrapped } from './bootstrap.js';
import { checkBase } from './base-check.js';
import type { ServeConfig } from './config.js';
import { lockDataDir } from './data-lock.js';
import { descriptionFile, type Dataspace } from './dataspace.js';
import { Composer } from './documents/composer.js';
import type { BlameResult, BlameWork } from './documents/blame.js';
import type { BranchWork, BranchWorkRunner } from './documents/branch-work.js';
import { DocumentService } from './documents/document-service.js';
import { openAccessLog } from './http/access-log.js';
import { agentOf } from './http/authenticate.js';
import { originTrust } from './http/origins.js';
import { PageDrawer } from './http/page-drawer.js';
import { QueryShapes } from './http/query-shapes.js';
import { Quotas } from './http/quotas.js';
import { ReadCaches } from './http/read-caches.js';
import { Compressor } from './http/compression.js';
import { Etags, RepresentationCache } from './http/representations.js';
import { UploadReader } from './http/upload-reader.js';
import { SettingsUpdates } from './http/settings-updates.js';
import { authenticatorFor, oidcEndpoints } from './identity.js';
import { startMirror } from './mirror/mirror.js';
import type { Pusher } from './mirror/pusher.js';
import { outbound, type OutboundOptions } from './proxy/outbound.js';
import { ProxyCache } from './proxy/cache.js';
import { RemoteRdf } from './net/remote-rdf.js';
import { safeFetch } from './net/safe-fetch.js';
import { Vocabularies } from './net/vocabularies.js';
import { warnOfOldOntologies } from './ontology/governing.js';
import type { ImportLimits } from './ontology/imports.js';
import { NamespaceOntology } from './ontology/namespace.js';
import { OntologyWorkers } from './ontology/workers.js';
import { openDataspaces } from './open-dataspaces.js';
import { documentIri } from './rdf/iri.js';
import { dataspaceDir, requireDefaultPair, type DataspacePair } from './registry.js';
import type { DataspaceRuntime } from './runtime.js';
import { listen, requestListener, stopListening, type RequestListener } from './serve-http.js';
import { SystemSettings } from './settings.js';
import { DiskClient } from './store/disk.js';
import { UploadPack } from './store/upload-pack.js';
import { Replica, type ReplicaTimings } from './replica/replica.js';
import { readDataspaces, readEtagKey, readProxySecret, readSessionKey, readSystemConfig, systemConfigFile } from './system-config.js';
import { SystemFile } from './system-file.js';
import { startPool, type PoolName } from './threads.js';
import type { CallRequest } from './util/worker.js';

export interface Running {
  server: Server;
  /** The server's request listener (the access log, the read fast path, the app): requests can be answered in process, without TLS. */
  handle: RequestListener;
  runtimes: DataspaceRuntime[];
  agents: Bootstrapped;
  /** The proxy's cache: `purge(url)` drops every agent's copies of a URL (admin/clear). */
  proxyCache: ProxyCache;
  /** Where pages are drawn (its `draws` count pages drawn rather than taken from those kept). */
  pages: PageDrawer;
  close(): Promise<void>;
}

/** What tests may set that no command-line flag does: how the proxy's outgoing requests resolve names and classify addresses, its limits, and those of ontology imports. */
export type ServeSeams = Pick<OutboundOptions, 'seams' | 'limits'> & {
  /** The bounds of the namespace ontologies' imports (tests shorten the deadline). */
  importLimits?: Partial<ImportLimits>;
  /** The worker pools' deadlines (tests shorten them, to see a costly job stopped without waiting out the production bound). */
  poolDeadlinesMs?: Partial<Record<PoolName, number>>;
  /** A replica's waits (tests shorten them, to see a read sent on or a primary tried again without waiting out the production values). */
  replicaTimings?: Partial<ReplicaTimings>;
};

/** Starts a server on the data directory, which no other may serve meanwhile and which must have been made for `config.base`. */
export async function serve(config: ServeConfig, log: (line: string) => void = (l) => console.log(l), seams: ServeSeams = {}): Promise<Running> {
  const lock = await lockDataDir(config.data, { base: config.base, host: config.host, port: config.port }, log);
  let stopping = false; // a namespace ontology's build the stop cuts short is no failure to log
  const built: Array<() => unknown> = [() => lock.release()]; // what close() undoes, last built first
  const close = async () => {
    stopping = true;
    for (const undo of built.splice(0).reverse()) await undo();
  };
  try {
    // what the data directory serves: system.ttl (one reader of it), made for this base
    const system = new SystemFile(systemConfigFile(config.data), config.base);
    const pairs = await readDataspaces(system);
    await checkBase(config, descriptionFile(join(dataspaceDir(config.data, pairs[0]!.endUser.id), '.git')));
    requireDefaultPair(pairs, system.file, config.base);
    // before anything is opened: a proxy secret that cannot be used stops the start with nothing to close
    const proxySecret = config.trustedProxies.length ? await readProxySecret(config.data, config.trustedProxySecretFile) : undefined;
    const accessLog = openAccessLog(config.accessLog, agentOf, log); // first: a file it cannot open stops the start
    built.push(() => accessLog?.close());

    // the threads of the thread map, and what reads the shipped vocabularies (once, for the proxy, the ontologies and the pages)
    const vocabularies = new Vocabularies();
    const disk = new DiskClient(); // one disk worker makes the writes of every dataspace
    const pool = <Request extends CallRequest>(name: PoolName, deadlineMs?: number) => {
      const shortened = seams.poolDeadlinesMs?.[name] ?? deadlineMs;
      return startPool<Request>(name, shortened === undefined ? {} : { deadlineMs: shortened });
    };
    const composer = new Composer({ writes: pool('writes'), updates: pool('updates'), labelling: pool('labelling') }, log);
    const remoteRdf = new RemoteRdf(pool('remoteRdf')); // the proxy's translations, remote WebIDs, ontology documents
    const queryShapes = new QueryShapes(pool('queryShapes'));
    const settingsUpdates = new SettingsUpdates(pool('settingsUpdates'));
    const ontologyWorkers = new OntologyWorkers({ validation: pool('shapes'), queries: pool('ontologyQueries', config.sparqlTimeoutMs) });
    const signups = new SignupWorkers(pool('signups'));
    const pages = new PageDrawer({ pool: pool('pages'), vocabularies, log });
    const uploads = new UploadReader(pool('uploads'));
    const blamePool = pool<BlameWork>('blame'); // ?blame reads every version of a document
    const branchPool = pool<BranchWork>('branches'); // a change request's diffs and three-way merges
    built.push(() => Promise.all([disk.close(), composer.close(), remoteRdf.close(), queryShapes.close(), settingsUpdates.close(), signups.close(), ontologyWorkers.close(), pages.close(), uploads.close(), blamePool.close(), branchPool.close()]));
    const blame = (work: BlameWork) => blamePool.call<BlameResult>(work);
    const branchWork = (work: BranchWork) => branchPool.call<Awaited<ReturnType<BranchWorkRunner>>>(work);
    const compose = composer.compose.bind(composer);
    const label = composer.label.bind(composer); // a revert's documents, made of lines of several versions
    const toNTriples = remoteRdf.toNTriples.bind(remoteRdf);

    const { versioning, oidcProviders, corsOrigins, indexes } = await readSystemConfig(system, config.data, log);
    const settings = new SystemSettings(system, pairs, log);
    // admin/clear with uri= drops the proxy's copies of that ontology too
    const proxyCache = new ProxyCache();
    const purge = (uri: string) => {
      for (const url of new Set([uri, documentIri(uri)])) proxyCache.purge(url);
    };
    const fetchRdf = (url: string, limits?: { timeoutMs?: number; maxBytes?: number }) => safeFetch(url, { ...limits, allowInternal: config.allowInternalUrls });
    // each pair's namespace ontology, from the owners' documents only (ontology/governing.ts), built as its admin dataspace opens:
    // its SHACL shapes constrain the end-user dataspace's writes, people's edits included (those found at start too)
    const ontologies = new Map<string, Promise<NamespaceOntology>>();
    const constraintsOf = (pair: DataspacePair, admin: Promise<Dataspace>) => {
      const imports = () => settings.imports(pair.endUser.base);
      const ontology = admin.then((opened) => new NamespaceOntology({ admin: opened, imports, fetch: fetchRdf, workers: ontologyWorkers, toNTriples, vocabularies, purge, log, importLimits: seams.importLimits }));
      ontology.catch(() => undefined); // an admin dataspace that does not open fails the start
      ontologies.set(pair.endUser.base, ontology);
      return async (url: string, bytes: Buffer) => (await ontology).validate(url, bytes);
    };
    // a replica's repositories are written by its fetches only: nobody's edits are taken in (no watcher)
    const opened = await openDataspaces(config.replicaOf ? { ...config, watch: false } : config, pairs, { versioning, indexes, disk, labelDeep: (ntriples, what) => composer.label(ntriples, what), constraintsOf, log });
    built.push(() => Promise.all(opened.flatMap((pair) => [pair.endUser.close(), pair.admin.close()])));
    // a replica copies each repository from its primary before it serves a request
    const replica = config.replicaOf && new Replica({ ...config.replicaOf, base: config.base, credentialsFile: join(secretsDir(config.data), 'secretary.pem'), log, timings: seams.replicaTimings }, opened.flatMap((pair) => [pair.endUser, pair.admin]));
    if (replica) {
      built.push(() => replica.stop());
      await replica.catchUp();
      log(`replica of ${config.replicaOf!.primary}: copied, following`);
    }
    const secret = await readSessionKey(config.data, log);
    const shaped = await Promise.all(
      opened.map(async (pair) => {
        const ontology = await ontologies.get(pair.endUser.base)!;
        const validate = (url: string, bytes: Buffer) => ontology.validate(url, bytes);
        // OpenID Connect login in the admin dataspace, with the providers system.ttl declares for it
        const oidc = oidcEndpoints(config, pair.admin.base, pair.endUser.base, oidcProviders.get(pair.admin.base) ?? [], secret, log);
        return { ...pair, packages: () => settings.imports(pair.endUser.base), ontology, validate, oidc };
      }),
    );
    // bootstrap writes through document services of its own: the runtimes' are built knowing the agents it makes
    const agents = replica ? await existingAgents(config.data, shaped[0]!.admin.base, log) : await bootstrap(config.data, shaped.map((pair) => ({ endUser: new DocumentService(pair.endUser, { compose, validate: pair.validate }), admin: new DocumentService(pair.admin, { compose }) })), log);
    // each namespace ontology is built at start, in the background: pages have its labels, and its imports are on their way before the first write
    for (const { admin, ontology } of shaped) {
      void ontology.now().catch((error: Error) => stopping || log(`namespace ontology of ${admin.base}: ${error.message}`));
      void warnOfOldOntologies(admin, log).catch(() => undefined); // a data directory older than admin/ontologies/
    }
    const mirrors = new Map<string, Pusher>();
    for (const dataspace of opened.flatMap((pair) => [pair.endUser, pair.admin])) {
      const history = replica ? undefined : versioning.get(dataspace.base); // the primary mirrors: a replica's history is the primary's
      const mirror = history && (await startMirror(dataspace.store, history, { githubApi: config.githubApi, pacingMs: config.mirrorPacingMs, log }));
      if (!mirror) continue;
      mirrors.set(dataspace.base, mirror);
      built.push(() => mirror.stop());
    }

    // each dataspace's runtime, whole: a pair shares its access control (the owner holds every mode), ontology and page labels
    const runtimes = shaped.flatMap((pair, index): DataspaceRuntime[] => {
      const access = new AccessControl(pair.admin, pair.endUser.base, pair.packages, agents.owner.webId);
      const labels = pages.labelsOf(() => pair.ontology.lastBuilt());
      // the owner's and the secretary's documents, in the first pair's admin dataspace, cannot be modified or deleted
      const protectedPaths = index === 0 ? [agents.owner.documentPath, agents.secretary.documentPath] : [];
      const common = { access, ontology: pair.ontology, labels };
      return [
        { ...common, dataspace: pair.endUser, role: 'end-user', documents: new DocumentService(pair.endUser, { compose, label, validate: pair.validate, blame, branchWork }), mirror: mirrors.get(pair.endUser.base) },
        { ...common, dataspace: pair.admin, role: 'admin', documents: new DocumentService(pair.admin, { compose, label, protectedPaths, blame, branchWork }), mirror: mirrors.get(pair.admin.base), oidc: pair.oidc },
      ];
    });

    // a merge a kill left unrecorded on its branch is recorded before any request (change-requests.ts); a replica's branches are its primary's
    for (const runtime of replica ? [] : runtimes.filter((r) => r.role === 'end-user')) {
      const recorded = await runtime.documents.changeRequests.recoverMerges().catch((error: Error) => (log(`${runtime.dataspace.id}: merges left unrecorded were not looked for: ${error.message}`), []));
      for (const branch of recorded) log(`${runtime.dataspace.id}: recorded the merge of the branch ${branch} into main, which a stop had left unrecorded`);
    }

    // who is asking, and the proxy's way out: it speaks as the secretary, and trusts the server's own certificate besides Node's list (dataspaces of this instance are origins too)
    const trusts = originTrust(config.corsOrigins, corsOrigins);
    const authenticator = authenticatorFor(config, { runtimes, secretary: agents.secretary.webId, toNTriples, proxySecret, trusts, log });
    const secretary = await readCredentials(agents.secretary.credentialsFile);
    const proxyOut = outbound({
      allowInternal: config.allowInternalUrls,
      ca: [...rootCertificates, agents.server.certPem],
      secretary: { webId: agents.secretary.webId, cert: secretary.certPem, key: secretary.keyPem },
      seams: seams.seams,
      limits: seams.limits,
      cache: proxyCache,
      vocabularies,
    });

    // serve HTTP: the scheme clients reach the server by is the base's (https behind a TLS-terminating proxy too)
    const scheme = new URL(config.base).protocol === 'https:' ? 'https' : 'http';
    const handle = requestListener({
      runtimes,
      authenticator,
      representations: new RepresentationCache(),
      etags: new Etags(await readEtagKey(config.data, log)), // stable across restarts: clients hold ETags for If-Match
      caches: new ReadCaches(),
      compressor: new Compressor(),
      bodyLimit: config.bodyLimit,
      uploadLimit: config.uploadLimit,
      uploads,
      sparqlTimeoutMs: config.sparqlTimeoutMs,
      queryShapes,
      settingsUpdates,
      remoteRdf,
      outbound: proxyOut,
      scheme,
      trusts,
      settings,
      pages,
      quotas: new Quotas({ exempt: [agents.owner.webId, agents.secretary.webId] }),
      signupCredentials: (request) => signups.issue(request),
      secretary: agents.secretary.webId,
      uploadPack: new UploadPack(),
      replica: replica || undefined,
      log,
    }, accessLog);
    const server = await listen(config, handle, agents, accessLog, log);
    built.push(() => stopListening(server));
    replica?.start();
    return { server, handle, runtimes, agents, proxyCache, pages, close };
  } catch (error) {
    await close();
    throw error;
  }
}
