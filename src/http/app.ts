/**
 * The HTTP layer (first cut): finds the dataspace of a request by its base URL and answers GET and
 * HEAD of documents from the git store, as canonical N-Triples with a strong ETag. Content
 * negotiation, writes, errors as RDF and access control arrive with the document API.
 */
import { createHash } from 'node:crypto';
import Koa from 'koa';
import type { Dataspace } from '../dataspace.js';
import { isLodestoneError } from '../errors.js';

const NTRIPLES = 'application/n-triples';

/** DESIGN.md, "ETag": a digest over the document URL, the blob id and the media type. */
export function etag(url: string, blobId: string, mediaType: string): string {
  return `"${createHash('sha1').update(url).update('\0').update(blobId).update('\0').update(mediaType).digest('base64url')}"`;
}

/** The dataspace whose base is the longest prefix of `url`. */
export function dataspaceFor(dataspaces: readonly Dataspace[], url: string): Dataspace | undefined {
  let best: Dataspace | undefined;
  for (const ds of dataspaces) {
    if (url.startsWith(ds.base) && (!best || ds.base.length > best.base.length)) best = ds;
  }
  return best;
}

export function createApp(dataspaces: readonly Dataspace[], publicOrigin: string): Koa {
  const app = new Koa();
  app.use(async (ctx) => {
    const url = new URL(ctx.path, publicOrigin).href;
    const dataspace = dataspaceFor(dataspaces, url);
    if (!dataspace) {
      ctx.status = 404;
      return;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      return;
    }
    const relative = url.slice(dataspace.base.length);
    let document;
    try {
      document = await dataspace.read(relative);
    } catch (error) {
      if (!isLodestoneError(error, 'InvalidPath')) throw error;
      ctx.status = 400;
      ctx.type = 'text/plain';
      ctx.body = error.message;
      return;
    }
    if (!document) {
      ctx.status = 404;
      return;
    }
    ctx.set('ETag', etag(url, document.blobId, NTRIPLES));
    ctx.type = NTRIPLES; // before the body: an N-Triples string starts with '<'
    ctx.body = document.bytes;
  });
  return app;
}
