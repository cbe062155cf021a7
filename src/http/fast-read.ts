/**
 * The read fast path. Most requests a document server sees are GETs of current documents it has
 * already served; their answer is known from memory: HEAD's blob id, the cached serialisation, the
 * ETag derived from both. Those are answered straight from Node's request event, ahead of Koa,
 * with the same status, headers and bytes the Koa route would give. Everything else (a query
 * string, an Origin, a certificate not yet verified, a cache miss, anything that would be an
 * error) returns false untouched, and Koa answers it from scratch.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { writableTypes } from '../rdf/formats.js';
import { canonicalDocumentPath } from '../document-paths.js';
import { UNKNOWN } from '../auth/webid-tls.js';
import type { Authenticator } from './authenticate.js';
import { locate, type AppOptions } from './app.js';
import { documentLinks, publicAgentView } from './documents.js';
import { knownMemento, mementoHeaders } from './memento.js';
import { holds } from './authorize.js';
import { negotiate } from './negotiate.js';
import { checkRead, conditionsOf } from './preconditions.js';
import { contentTypeOf, etag, type RepresentationCache } from './representations.js';

const VERSION = /^version=([0-9a-f]{40})$/;

export type FastReader = (req: IncomingMessage, res: ServerResponse) => boolean;

export function fastReader(options: Pick<AppOptions, 'runtimes' | 'scheme'> & { authenticator: Authenticator; representations: RepresentationCache }): FastReader {
  type Reply = { status: 200 | 304; head: Record<string, string | number>; body?: Buffer };
  const answer = (req: IncomingMessage): Reply | undefined => {
    const { method, url, headers } = req;
    if ((method !== 'GET' && method !== 'HEAD') || url === undefined) return undefined;
    // a current document (no query), or a memento (`?version=<sha>` and nothing else)
    const question = url.indexOf('?');
    const path = question < 0 ? url : url.slice(0, question);
    const version = question < 0 ? undefined : VERSION.exec(url.slice(question + 1))?.[1];
    if (question >= 0 && !version) return undefined;
    if (path.charCodeAt(0) !== 47 /* / */ || path.charCodeAt(path.length - 1) !== 47 || path.includes('//')) return undefined;
    if (headers.origin !== undefined || headers.host === undefined) return undefined;
    const { runtime, relative } = locate(options, headers.host, path);
    if (!runtime) return undefined;
    const agent = options.authenticator.known(req);
    if (agent === UNKNOWN || headers['on-behalf-of'] !== undefined) return undefined;

    const relativePath = canonicalDocumentPath(relative);
    if (publicAgentView(runtime, relativePath, agent)) return undefined; // a redacted view: Koa makes it
    const blobId = runtime.documents.blobId(relativePath);
    const responseType = negotiate(headers.accept, writableTypes);
    if (!responseType) return undefined;
    const documentUrl = runtime.dataspace.base + relativePath;

    // authorization, when it is decided in memory (else Koa decides, and answers 403 if it must)
    const modes = runtime.access.modesNow(runtime, relativePath, agent);
    if (!modes || !holds(modes, method === 'GET' || version ? 'Read' : 'Any')) return undefined;

    if (version) return mementoReply(documentUrl, version, responseType, method, headers);
    if (!blobId) return undefined;
    const body = options.representations.peek(blobId, responseType);
    if (!body) return undefined;
    const tag = etag(documentUrl, blobId, responseType);
    const outcome = checkRead(conditionsOf(headers), tag);
    if (outcome === 'failed') return undefined;
    const links = documentLinks(runtime, documentUrl, agent, modes);
    const head: Record<string, string | number> = links ? { Vary: 'Accept', Link: links, ETag: tag } : { Vary: 'Accept', ETag: tag };
    if (outcome === 'not-modified') return { status: 304, head };
    head['Content-Type'] = contentTypeOf(responseType);
    head['Content-Length'] = body.length;
    return { status: 200, head, body: method === 'HEAD' ? undefined : body };
  };

  /** A memento the Koa route has served before (its blob and time are remembered), as that route answers it. */
  const mementoReply = (documentUrl: string, sha: string, responseType: string, method: string, headers: IncomingMessage['headers']): Reply | undefined => {
    if (headers['if-match'] !== undefined || headers['if-none-match'] !== undefined) return undefined;
    const found = knownMemento(documentUrl, sha);
    const body = found && options.representations.peek(found.blob, responseType);
    if (!found || !body) return undefined;
    const head: Record<string, string | number> = { Vary: 'Accept', ...mementoHeaders(documentUrl, sha, found.time), 'Content-Type': contentTypeOf(responseType), 'Content-Length': body.length };
    return { status: 200, head, body: method === 'HEAD' ? undefined : body };
  };

  return (req, res) => {
    let reply: ReturnType<typeof answer>;
    try {
      reply = answer(req);
    } catch {
      return false; // an invalid path, say: Koa answers it with the error it deserves
    }
    if (!reply) return false;
    res.writeHead(reply.status, reply.head);
    res.end(reply.body);
    return true;
  };
}
