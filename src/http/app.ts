/**
 * The HTTP layer as one ordered list of middleware (errors outermost), and the route table. A
 * request finds its dataspace by the longest base URL it falls under; an unknown host or base is a
 * 404 with an RDF body. Nothing below this layer imports Koa.
 */
import cors from '@koa/cors';
import Koa from 'koa';
import type { Composer } from '../documents/composer.js';
import type { Authenticator } from './authenticate.js';
import { documentHandler } from './documents.js';
import { errorMiddleware } from './error-middleware.js';
import { HttpError } from './http-error.js';
import type { RepresentationCache } from './representations.js';
import { sparqlHandler } from './sparql.js';
import { systemEndpoint } from './system.js';
import type { DataspaceRuntime, State } from './state.js';

export interface AppOptions {
  runtimes: readonly DataspaceRuntime[];
  authenticator: Authenticator;
  representations: RepresentationCache;
  bodyLimit: number;
  sparqlTimeoutMs: number;
  /** Where request content is parsed off the thread that answers requests. */
  composer: Pick<Composer, 'queryShape'>;
  /** The scheme the server is reached by (https, or http behind a proxy). */
  scheme: 'https' | 'http';
  log: (line: string) => void;
}

/** The request URL (without its query), its dataspace, and the path relative to that dataspace's base. */
export function locate(options: Pick<AppOptions, 'runtimes' | 'scheme'>, host: string, path: string): { url: string; runtime: DataspaceRuntime | undefined; relative: string } {
  const url = `${options.scheme}://${host}${path}`;
  const runtime = runtimeFor(options.runtimes, url);
  const base = runtime?.dataspace.base ?? '';
  return { url, runtime, relative: url.length < base.length ? '' : url.slice(base.length) };
}

/** The runtime whose base is the longest prefix of `url`. */
export function runtimeFor(runtimes: readonly DataspaceRuntime[], url: string): DataspaceRuntime | undefined {
  let best: DataspaceRuntime | undefined;
  for (const runtime of runtimes) {
    const base = runtime.dataspace.base;
    if ((url.startsWith(base) || url + '/' === base) && (!best || base.length > best.dataspace.base.length)) best = runtime;
  }
  return best;
}

const EXPOSED = ['ETag', 'Link', 'Location', 'Allow', 'Accept-Post', 'Accept-Patch', 'Age', 'Memento-Datetime', 'Vary'];

export function createApp(options: AppOptions): Koa<State> {
  const app = new Koa<State>();
  const documents = documentHandler({ bodyLimit: options.bodyLimit, representations: options.representations });
  const sparql = sparqlHandler({ timeoutMs: options.sparqlTimeoutMs, bodyLimit: options.bodyLimit, queryShape: (query, base) => options.composer.queryShape(query, base) });

  app.use(errorMiddleware(options.log));
  const corsHeaders = cors({ credentials: true, exposeHeaders: EXPOSED, keepHeadersOnError: true });
  app.use((ctx, next) => (ctx.get('Origin') ? corsHeaders(ctx, next) : next()));
  app.use(async (ctx, next) => {
    const host = ctx.get('Host');
    if (!host) throw new HttpError(400, 'the request has no Host header');
    if (ctx.path.includes('//')) throw new HttpError(400, `the path ${ctx.path} has an empty segment`);
    const located = locate(options, host, ctx.path);
    if (!located.runtime) throw new HttpError(404, `no dataspace is served at ${located.url}`);
    ctx.state.runtime = located.runtime;
    ctx.state.url = located.url;
    ctx.state.relative = located.relative;
    if (located.url + '/' === located.runtime.dataspace.base) return redirectToSlash(ctx);
    await next();
  });
  app.use(options.authenticator.middleware());
  // The route table: every path of a dataspace, with its handler.
  app.use(async (ctx, next) => {
    if (ctx.querystring !== '' && ctx.query.graph !== undefined) {
      // DESIGN.md: indirect graph identification is not supported
      throw new HttpError(400, 'indirect graph identification (?graph=) is not supported: use the graph’s own URL');
    }
    const relative = ctx.state.relative;
    if (relative === 'sparql') return sparql(ctx, next);
    const system = systemEndpoint({ runtimes: options.runtimes, bodyLimit: options.bodyLimit }, ctx.state.runtime, relative);
    if (system) return system(ctx);
    if (relative !== '' && !relative.endsWith('/')) return redirectToSlash(ctx); // SPEC §4.1: trailing slash, 308
    await documents(ctx, next);
  });
  return app;
}

function redirectToSlash(ctx: Koa.ParameterizedContext<State>): void {
  ctx.status = 308;
  ctx.set('Location', ctx.state.url + '/' + (ctx.querystring ? `?${ctx.querystring}` : ''));
  ctx.body = '';
}
