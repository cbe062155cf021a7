/**
 * GET and HEAD of a system graph that is no document (a dataspace's `settings`, its `ns`
 * ontology): in the RDF format dispatch negotiated, with a strong ETag digesting the URL, a version
 * of the content (a digest of it) and the media type (so `If-None-Match` and `If-Match` are
 * honoured as for documents, by the one reply path), serialisations cached by version and type.
 */
import { createHash } from 'node:crypto';
import type { Reply } from './reply.js';
import { contentTypeOf } from './representations.js';
import type { Context } from './state.js';

/** A version id for N-Triples content: equal content, equal version. */
export function contentVersion(kind: string, ntriples: string): string {
  return `${kind}:${createHash('sha1').update(ntriples).digest('hex')}`;
}

/** The ETag of the graph at `url`, version `version`, in `type` (a write's Accept that selects nothing matches no ETag sent). */
export function graphTag(ctx: Context, url: string, version: string, type: string | undefined): string {
  return ctx.state.served.etags.of(url, version, type ?? 'not acceptable');
}

/** The reply to a GET or HEAD of the graph `ntriples` (canonical N-Triples, version `version`) at `url`, in `type`. */
export function graphReply(ctx: Context, url: string, version: string, ntriples: string, type: string): Reply {
  return {
    etag: graphTag(ctx, url, version, type),
    contentType: contentTypeOf(type),
    body: () => ctx.state.served.representations.get(version, type, () => ntriples),
  };
}
