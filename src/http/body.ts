/**
 * Request bodies: read no further than the limit (SPEC §8: 413 for a declared length over it and
 * for a chunked body that grows past it), and decoded as strict UTF-8 (invalid bytes are a 400);
 * their media type; and the empty response body.
 */
import type { IncomingMessage } from 'node:http';
import contentType from 'content-type';
import type Koa from 'koa';
import { LodestoneError } from '../errors.js';
import getRawBody from 'raw-body';

/** An HTML form's media type (and RDF/POST's). */

export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    req.resume();
    throw new LodestoneError('TooLarge', `the request body is ${declared} bytes; at most ${limit} are accepted`, { headers: { Connection: 'close' } });
  }
  try {
    return await getRawBody(req, { limit, length: declared });
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') throw new LodestoneError('TooLarge', `the request body is larger than ${limit} bytes`, { headers: { Connection: 'close' } });
    if (type === 'request.aborted') throw new LodestoneError('BadRequest', 'the request body was cut off');
    if (type === 'request.size.invalid') throw new LodestoneError('BadRequest', 'the request body does not have the length it declares');
    throw error;
  }
}

export function decodeUtf8(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new LodestoneError('BadRequest', 'the request body is not valid UTF-8');
  }
}

/** An empty response body with no Content-Type (Koa would call '' text/plain). */
export function emptyBody(ctx: Koa.Context): void {
  ctx.body = '';
  ctx.remove('Content-Type');
}

/** The media type of the request body, without parameters; '' when there is no Content-Type or it cannot be read. */
export function mediaTypeOf(ctx: Koa.Context): string {
  try {
    return contentType.parse(ctx.get('Content-Type')).type;
  } catch {
    return '';
  }
}
