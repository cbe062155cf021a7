/**
 * The HTTP layer as one ordered list of middleware: the headers every answer carries (origins.ts)
 * outermost, then compression (compression.ts), then errors; finding the request's dataspace (an unknown host or base is a 404 with an
 * RDF body); CORS, with credentials for the origins the dataspace trusts only; refusing other sites'
 * forms (cross-site.ts); authentication (who is asking, given where from: authenticate.ts), then the
 * route table (routes.ts). Nothing below this layer imports Koa.
 */
import cors from '@koa/cors';
import Koa from 'koa';
import type { IssueCredentials } from '../auth/signup.js';
import type { SystemSettings } from '../settings.js';
import { LodestoneError } from '../errors.js';
import type { RemoteRdf } from '../net/remote-rdf.js';
import type { Outbound } from '../proxy/outbound.js';
import { credentialsCount, type Authenticator } from './authenticate.js';
import type { PageDrawer } from './page-drawer.js';
import type { ReadCaches } from './read-caches.js';
import type { Compressor } from './compression.js';
import { crossSiteForms } from './cross-site.js';
import { errorMiddleware } from './error-middleware.js';
import { locate } from './locate.js';
import { answerHeaders, type OriginTrust } from './origins.js';
import type { QueryShapes } from './query-shapes.js';
import type { Quotas } from './quotas.js';
import type { Etags, RepresentationCache } from './representations.js';
import { dispatch, redirectToSlash, route } from './routes.js';
import type { UploadReader } from './upload-reader.js';
import type { SettingsUpdates } from './settings-updates.js';
import { COMMIT_HEADER, type DataspaceRuntime, type Served, type State } from './state.js';

export interface AppOptions {
  runtimes: readonly DataspaceRuntime[];
  authenticator: Authenticator;
  representations: RepresentationCache;
  etags: Etags;
  bodyLimit: number;
  /** The largest uploaded file, in bytes (413 past it). */
  uploadLimit: number;
  /** Where an upload's body is read to its file, off the thread that answers requests. */
  uploads: Pick<UploadReader, 'read'>;
  sparqlTimeoutMs: number;
  /** Where the SPARQL endpoint's queries are parsed, off the thread that answers requests. */
  queryShapes: Pick<QueryShapes, 'of'>;
  /** Where a PATCH of settings runs its update, off the thread that answers requests. */
  settingsUpdates: Pick<SettingsUpdates, 'run'>;
  /** Where the proxy's answers are translated, off the thread that answers requests. */
  remoteRdf: Pick<RemoteRdf, 'translate'>;
  /** The proxy's outgoing requests and cache. */
  outbound: Outbound;
  /** The dataspaces' settings (system.ttl). */
  settings?: SystemSettings;
  /** Where pages are drawn. */
  pages: PageDrawer;
  /** Encodes answers and keeps the encodings of cached bodies (shared with the read fast path). */
  compressor: Compressor;
  /** What the read routes keep between requests (shared with the read fast path). */
  caches: ReadCaches;
  /** The scheme the server is reached by (the base's: https, or http behind a proxy without TLS). */
  scheme: 'https' | 'http';
  /** The origins each dataspace trusts with its visitors' credentials, besides its own. */
  trusts: OriginTrust;
  quotas: Quotas;
  /** Where a signup's certificate is made (the signup pool). */
  signupCredentials: IssueCredentials;
  /** The server's own agent, to whose certificate the repositories are served. */
  secretary: string | undefined;
  /** Where packs of the repositories are made for replicas. */
  uploadPack: Served['uploadPack'];
  /** Set on a read replica (serve --replica-of). */
  replica?: Served['replica'];
  log: (line: string) => void;
}

const EXPOSED = ['ETag', 'Lodestone-Commit', 'Last-Modified', 'Link', 'Location', 'Allow', 'Accept-Post', 'Accept-Patch', 'Age', 'Memento-Datetime', 'Vary'];

export function createApp(options: AppOptions): Koa<State> {
  const app = new Koa<State>();
  const served: Served = {
    runtimes: options.runtimes,
    representations: options.representations,
    etags: options.etags,
    bodyLimit: options.bodyLimit,
    uploadLimit: options.uploadLimit,
    uploads: options.uploads,
    sparqlTimeoutMs: options.sparqlTimeoutMs,
    queryShapes: options.queryShapes,
    outbound: options.outbound,
    remoteRdf: options.remoteRdf,
    settingsUpdates: options.settingsUpdates,
    settings: options.settings,
    pages: options.pages,
    quotas: options.quotas,
    signupCredentials: options.signupCredentials,
    secretary: options.secretary,
    uploadPack: options.uploadPack,
    replica: options.replica,
    trusts: options.trusts,
    caches: options.caches,
    route,
  };
  const headersOf = new Map(options.runtimes.map((runtime) => [runtime.documents.base, answerHeaders(runtime.documents.base)]));
  app.use(async (ctx, next) => {
    await next(); // errors included: the error middleware answers inside this one
    ctx.set(headersOf.get(ctx.state.runtime?.documents.base) ?? answerHeaders(undefined));
    // the commit the answer reflects (a write's own, once made: routes.ts says which; a past query's, set by its handler); a refusal or an error reflects none, and tells nothing of the dataspace's writes
    if (ctx.status >= 400) ctx.remove(COMMIT_HEADER);
    else if (!ctx.res.hasHeader(COMMIT_HEADER)) { // not Koa's response.get, which copies every header to read one
      const commit = ctx.state.reflects?.();
      if (commit) ctx.set(COMMIT_HEADER, commit);
    }
    ctx.vary('Origin'); // credentials count or not by Origin (authenticate.ts), so every answer may depend on it
  });
  app.use(options.compressor.middleware()); // every body, error bodies included (compression.ts)
  app.use(errorMiddleware(options.log));
  app.use(async (ctx, next) => {
    const host = ctx.get('Host');
    if (!host) throw new LodestoneError('BadRequest', 'the request has no Host header');
    if (ctx.path.includes('//')) throw new LodestoneError('BadRequest', `the path ${ctx.path} has an empty segment`);
    const located = locate(options.runtimes, options.scheme, host, ctx.path);
    if (!located.runtime) throw new LodestoneError('NotFound', `no dataspace is served at ${located.url}`);
    ctx.state.served = served;
    ctx.state.runtime = located.runtime;
    ctx.state.url = located.url;
    ctx.state.relative = located.relative;
    await next();
  });
  // Fetch §3.2: a trusted origin is answered with itself and Access-Control-Allow-Credentials; any
  // other with `*`, which a browser refuses for a request made with credentials (and a preflight
  // answered so stops one before it is sent), while public data stays usable from any page
  const trusted = (ctx: Koa.Context) => credentialsCount(ctx.req, (ctx.state as State).runtime.documents.base, options.trusts);
  const corsHeaders = cors({ origin: (ctx) => (trusted(ctx) ? ctx.get('Origin') : '*'), credentials: trusted, exposeHeaders: EXPOSED, keepHeadersOnError: true });
  app.use((ctx, next) => (ctx.get('Origin') ? corsHeaders(ctx, next) : next()));
  app.use((ctx, next) => (ctx.state.url + '/' === ctx.state.runtime.documents.base ? redirectToSlash(ctx) : next()));
  app.use(crossSiteForms(options.trusts));
  app.use(options.authenticator.middleware());
  app.use(dispatch());
  return app;
}
