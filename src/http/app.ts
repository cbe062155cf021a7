/**
 * The HTTP layer as one ordered list of middleware (errors outermost): CORS, finding the request's
 * dataspace (an unknown host or base is a 404 with an RDF body), refusing other sites' forms
 * (cross-site.ts), authentication, then the route table (routes.ts). Nothing below this layer imports Koa.
 */
import cors from '@koa/cors';
import Koa from 'koa';
import type { IssueCredentials } from '../auth/signup.js';
import type { Composer } from '../documents/composer.js';
import type { SystemSettings } from '../settings.js';
import { LodestoneError } from '../errors.js';
import type { Outbound } from '../net/outbound.js';
import type { Authenticator } from './authenticate.js';
import { crossSiteForms } from './cross-site.js';
import { errorMiddleware } from './error-middleware.js';
import { locate } from './locate.js';
import type { Quotas } from './quotas.js';
import type { RepresentationCache } from './representations.js';
import { dispatch, redirectToSlash } from './routes.js';
import type { DataspaceRuntime, Served, State } from './state.js';

export interface AppOptions {
  runtimes: readonly DataspaceRuntime[];
  authenticator: Authenticator;
  representations: RepresentationCache;
  bodyLimit: number;
  sparqlTimeoutMs: number;
  /** Where request content is parsed off the thread that answers requests. */
  composer: Pick<Composer, 'queryShape' | 'translate' | 'update'>;
  /** The proxy's outgoing requests and cache. */
  outbound: Outbound;
  /** The dataspaces' settings (system.ttl). */
  settings?: SystemSettings;
  /** The scheme the server is reached by (https, or http behind a proxy). */
  scheme: 'https' | 'http';
  quotas: Quotas;
  /** Where a signup's certificate is made (the signup pool). */
  signupCredentials: IssueCredentials;
  log: (line: string) => void;
}

const EXPOSED = ['ETag', 'Last-Modified', 'Link', 'Location', 'Allow', 'Accept-Post', 'Accept-Patch', 'Age', 'Memento-Datetime', 'Vary'];

export function createApp(options: AppOptions): Koa<State> {
  const app = new Koa<State>();
  const served: Served = {
    runtimes: options.runtimes,
    representations: options.representations,
    bodyLimit: options.bodyLimit,
    sparqlTimeoutMs: options.sparqlTimeoutMs,
    queryShape: (query, base) => options.composer.queryShape(query, base),
    outbound: options.outbound,
    translate: (job) => options.composer.translate(job),
    updateGraph: (graph, update, base) => options.composer.update(graph, update, base),
    settings: options.settings,
    quotas: options.quotas,
    signupCredentials: options.signupCredentials,
  };
  app.use(errorMiddleware(options.log));
  const corsHeaders = cors({ credentials: true, exposeHeaders: EXPOSED, keepHeadersOnError: true });
  app.use((ctx, next) => (ctx.get('Origin') ? corsHeaders(ctx, next) : next()));
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
    if (located.url + '/' === located.runtime.documents.base) return redirectToSlash(ctx);
    await next();
  });
  app.use(crossSiteForms());
  app.use(options.authenticator.middleware());
  app.use(dispatch());
  return app;
}
