/**
 * The read fast path. Most requests a document server sees are GETs of current documents it has
 * already served; their answer is known from memory: HEAD's blob id, the cached serialisation, the
 * ETag derived from both. Those are answered straight from Node's request event, ahead of Koa. It
 * owns no HTTP rule: the route comes from the route table, the mode needed from authorize.ts, and
 * the status, headers and body from the one read path (document-read.ts), the same functions the
 * Koa routes answer with. It answers only when all of it is known without waiting (an agent already
 * verified, a decided policy, a cached body) and nothing is out of the ordinary (an Origin, a
 * query other than `?version=<sha>`, an error to send); otherwise it returns false untouched, and
 * Koa answers from scratch. Its answers carry the headers every answer carries (origins.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { UNKNOWN } from '../auth/webid-tls.js';
import type { Authenticator } from './authenticate.js';
import { holds } from './authorize.js';
import { currentDocumentReply, mementoReply, sharedView, viewOf, type ReadReply } from './document-read.js';
import type { ReadCaches } from './read-caches.js';
import { judge } from './reply.js';
import { documentPathIn, locate } from './locate.js';
import { answerHeaders, varyOrigin } from './origins.js';
import { HTML } from '../rdf/formats.js';
import { choose } from './offers.js';
import type { Etags, RepresentationCache } from './representations.js';
import { offerFor, routeOf } from './routes.js';
import type { DataspaceRuntime } from './state.js';

/** The one query the fast path answers: a memento, with nothing else that could change the answer. */
const VERSION_ONLY = /^version=[0-9a-f]{40}$/;

export type FastReader = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface FastReaderOptions {
  runtimes: readonly DataspaceRuntime[];
  scheme: 'https' | 'http';
  authenticator: Authenticator;
  representations: RepresentationCache;
  etags: Etags;
  /** The mementos the Koa routes found (read-caches.ts). */
  caches: ReadCaches;
}

export function fastReader(options: FastReaderOptions): FastReader {
  const answer = (req: IncomingMessage): { reply: ReadReply; status: 200 | 304; body: Buffer | undefined; base: string } | undefined => {
    const { method, url, headers } = req;
    if ((method !== 'GET' && method !== 'HEAD') || url === undefined) return undefined;
    if (headers.origin !== undefined || headers.host === undefined || headers['on-behalf-of'] !== undefined) return undefined;
    const question = url.indexOf('?');
    const path = question < 0 ? url : url.slice(0, question);
    const querystring = question < 0 ? '' : url.slice(question + 1);
    if (path.includes('//')) return undefined;
    const { runtime, relative, url: located } = locate(options.runtimes, options.scheme, headers.host, path);
    if (!runtime || located + '/' === runtime.documents.base) return undefined; // a base without its slash: Koa redirects (app.ts)
    const route = routeOf(runtime, relative, querystring)?.route;
    const memento = route?.query === 'version';
    if (!route || (route.path !== 'document' && route.path !== 'root') || (querystring !== '' && !VERSION_ONLY.test(querystring))) return undefined;
    if (memento && (headers['if-match'] !== undefined || headers['if-none-match'] !== undefined)) return undefined;
    const agent = options.authenticator.known(req, runtime.documents.base);
    if (agent === UNKNOWN) return undefined;

    const relativePath = documentPathIn(options.runtimes, runtime, relative);
    const modes = runtime.access.modesNow(runtime, relativePath, agent);
    // readers only: Koa answers a HEAD of an agent that may not read (no length) and decides every 403
    if (!modes || !holds(modes, 'Read')) return undefined;
    const type = choose(offerFor(route, method, modes), headers.accept); // as dispatch decides it
    if (type === HTML) return undefined; // a page: Koa draws it
    let reply: ReadReply;
    if (memento) {
      const sha = new URLSearchParams(querystring).get('version') ?? '';
      const url = runtime.documents.url(relativePath);
      const known = options.caches.memento(url, sha);
      // a version is judged as it was (its own owners and types): Koa answers one not known, or not readable
      const versionModes = known && runtime.access.modesNow(runtime, relativePath, agent, known);
      if (!versionModes || !holds(versionModes, 'Read')) return undefined;
      const anonymous = runtime.access.modesNow(runtime, relativePath, undefined, known);
      if (!anonymous) return undefined;
      const variant = viewOf(runtime, relativePath, agent, modes);
      reply = mementoReply(url, sha, known, type, { variant, shared: sharedView(runtime, relativePath, variant, anonymous) });
    } else {
      reply = currentDocumentReply({ runtime, relativePath, agent, modes, blobId: runtime.documents.blobId(relativePath), type, etags: options.etags });
    }
    // the conditional GET as the one reply path judges it (a failed If-Match throws: Koa answers the 412)
    if (judge(headers, reply.etag) === 'not-modified') return { reply, status: 304, body: undefined, base: runtime.documents.base };
    if (!reply.body) return { reply, status: 200, body: undefined, base: runtime.documents.base };
    const body = options.representations.peek(reply.body.blobId, reply.body.type + reply.body.variant);
    return body && { reply, status: 200, body, base: runtime.documents.base };
  };
  // the headers every answer carries (origins.ts), as the Koa app sets them
  const headersOf = new Map(options.runtimes.map((runtime) => [runtime.documents.base, answerHeaders(runtime.documents.base)]));

  return (req, res) => {
    let answered: ReturnType<typeof answer>;
    try {
      answered = answer(req);
    } catch {
      return false; // an error to send (404, 406, 412, an invalid path): Koa answers it as it deserves
    }
    if (!answered) return false;
    const { reply, status, body, base } = answered;
    const head: Record<string, string | number> = { ...reply.headers, ETag: reply.etag, ...headersOf.get(base), Vary: varyOrigin(reply.headers.Vary) };
    if (status === 200) head['Content-Type'] = reply.contentType;
    if (body) head['Content-Length'] = body.length;
    res.writeHead(status, head);
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
