/**
 * GET and HEAD of a system graph that is no document (a dataspace's `settings`, its `ns`
 * ontology): negotiated into any RDF format, with a strong ETag digesting the URL, a version of
 * the content (a digest of it) and the media type, `If-None-Match` (304) and `If-Match` (412)
 * honoured as for documents, and serialisations cached by version and type.
 */
import { createHash } from 'node:crypto';
import { LodestoneError } from '../errors.js';
import { writableTypes } from '../rdf/formats.js';
import { notAcceptable } from './document-read.js';
import { acceptOf, negotiateDocument } from './negotiate.js';
import { checkRead, conditionsOf, mismatch } from './preconditions.js';
import { contentTypeOf } from './representations.js';
import type { Context } from './state.js';

/** A version id for N-Triples content: equal content, equal version. */
export function contentVersion(kind: string, ntriples: string): string {
  return `${kind}:${createHash('sha1').update(ntriples).digest('hex')}`;
}

/** The representation a request's Accept selects of a system graph, and its ETag (406 when none is acceptable). */
export function graphRepresentation(ctx: Context, url: string, version: string): { type: string; tag: string } {
  const type = negotiateDocument(acceptOf(ctx.headers, ctx.querystring), writableTypes);
  ctx.vary('Accept');
  if (!type) throw notAcceptable(writableTypes, { Vary: 'Accept' });
  return { type, tag: ctx.state.served.etags.of(url, version, type) };
}

/** Answers a GET or HEAD of the graph `ntriples` (canonical N-Triples, version `version`) at `url`. */
export async function sendGraph(ctx: Context, url: string, version: string, ntriples: string): Promise<void> {
  const { type, tag } = graphRepresentation(ctx, url, version);
  ctx.set('ETag', tag);
  const conditions = conditionsOf(ctx.headers);
  const outcome = checkRead(conditions, tag);
  if (outcome === 'failed') throw new LodestoneError('PreconditionFailed', mismatch(conditions.ifMatch!, undefined), { etag: tag });
  if (outcome === 'not-modified') {
    ctx.status = 304;
    return;
  }
  const body = await ctx.state.served.representations.get(version, type, () => ntriples);
  ctx.status = 200;
  ctx.type = contentTypeOf(type);
  ctx.body = body;
}
