/**
 * The outermost middleware: every error leaves as the RDF resource of SPEC §2.4 in the negotiated
 * format (Turtle by default), with the headers that belong to it (`Allow`, `ETag`, `Vary`, `Link`)
 * kept, which Koa's own handler would drop, and beside it any report the error carries (a 422's
 * SHACL validation report, bounded where it is made). Server faults are logged with their stack; the client
 * sees only a sentence.
 */
import type Koa from 'koa';
import { LodestoneError } from '../errors.js';
import { HTML, JSONLD, serialiseQuads, writableTypes } from '../rdf/formats.js';
import { errorResource } from '../rdf/error-resource.js';
import { parseRdf } from '../rdf/ntriples.js';
import { reasonPhrase, toHttpError } from './http-error.js';
import { acceptOf, negotiate } from './negotiate.js';
import { errorHtml } from './html.js';
import { messages, pageLanguage } from '../pages/messages.js';
import type { ErrorPage } from '../pages/error-page.js';
import type { Context } from './state.js';
import { contentTypeOf } from './representations.js';

const KEPT = ['allow', 'etag', 'vary', 'link', 'location', 'retry-after', 'access-control-allow-origin', 'access-control-expose-headers', 'access-control-allow-credentials'];

/** The format an error is answered in: the client's choice of the RDF formats and HTML, else Turtle. */
export function errorType(ctx: Pick<Koa.Context, 'headers' | 'querystring'>): string {
  return negotiate(acceptOf(ctx.headers, ctx.querystring), [...writableTypes, HTML]) ?? writableTypes[0]!;
}

/** Sends the error; `page`: what its HTML page shows besides (a deleted document's history). */
export async function sendError(ctx: Koa.Context, status: number, title: string, headers: Record<string, string> = {}, report?: string, page: Pick<ErrorPage, 'past'> = {}): Promise<void> {
  const kept: Record<string, string> = {};
  for (const name of KEPT) {
    const value = ctx.response.get(name);
    if (value) kept[name] = value;
  }
  for (const name of Object.keys(ctx.response.headers)) ctx.remove(name);
  ctx.set({ ...kept, ...headers });
  const reason = reasonPhrase(status);
  const type = errorType(ctx);
  // the title in the client's language too (RFC 9110 §12.5.4), which the pages' script shows after a failed write
  const language = pageLanguage(ctx.get('Accept-Language') || undefined, undefined);
  const local = language === 'en' ? title : messages(language).serverMessage(title);
  const resource = [...errorResource(status, reason, title, local === title ? undefined : { language, title: local }), ...(report ? parseRdf(report) : [])];
  if (type === HTML) return errorHtml(ctx as Context, status, reason, title, await serialiseQuads(resource, JSONLD), page);
  ctx.status = status;
  ctx.type = contentTypeOf(type);
  ctx.body = await serialiseQuads(resource, type);
  ctx.vary('Accept');
  ctx.vary('Accept-Language');
}

export function errorMiddleware(log: (line: string) => void): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const http = toHttpError(error);
      if (http.status >= 500 && !(error instanceof LodestoneError)) log(`${ctx.method} ${ctx.url}: ${(error as Error)?.stack ?? String(error)}`);
      await sendError(ctx, http.status, http.message, http.headers, http.report);
    }
  };
}
