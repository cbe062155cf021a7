/**
 * Forms protected against cross-site requests. A page elsewhere can make a browser send a "simple"
 * request (a form's POST: url-encoded, multipart or text/plain, no custom header) without asking
 * CORS first, and the browser attaches the visitor's client certificate to it. Such a request that
 * would change something, coming from another site (Sec-Fetch-Site, or an Origin that is not
 * this server's), is refused before it is read, unless its Origin is one the dataspace trusts
 * (origins.ts). Requests that need a CORS preflight (PUT, PATCH, DELETE, a POST of RDF) are left to
 * CORS, and clients outside browsers send neither header. (Such a form would act as anonymous anyway,
 * authenticate.ts; refusing it unread also spares an anonymous write where anonymous may append.)
 */
import { FORM, MULTIPART_FORM, PLAIN } from '../rdf/media-types.js';
import type Koa from 'koa';
import { LodestoneError } from '../errors.js';
import { credentialsCount } from './authenticate.js';
import type { OriginTrust } from './origins.js';
import type { State } from './state.js';

const SIMPLE_TYPES = new Set([FORM, MULTIPART_FORM, PLAIN]);
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether the request is a simple one a page of another site could have made. */
export function crossSiteForm(method: string, contentType: string | undefined, secFetchSite: string | undefined, origin: string | undefined, ownOrigin: string): boolean {
  if (SAFE.has(method)) return false;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== '' && !SIMPLE_TYPES.has(type)) return false; // a preflight decides
  if (secFetchSite !== undefined) return secFetchSite === 'cross-site' || secFetchSite === 'same-site';
  return origin !== undefined && origin !== 'null' ? origin !== ownOrigin : origin === 'null';
}

export function crossSiteForms(trusts: OriginTrust): Koa.Middleware<State> {
  return async (ctx, next) => {
    const base = ctx.state.runtime.documents.base;
    const own = new URL(base).origin;
    const trusted = ctx.get('Origin') !== '' && credentialsCount(ctx.req, base, trusts);
    if (!trusted && crossSiteForm(ctx.method, ctx.get('Content-Type') || undefined, ctx.get('Sec-Fetch-Site') || undefined, ctx.get('Origin') || undefined, own)) {
      throw new LodestoneError('Forbidden', `a ${ctx.method} from another site's page is refused here (a form of this server's own pages, or a client outside a browser, may send it)`);
    }
    await next();
  };
}
