/**
 * The one reply path of reads (issue 26): a handler returns what it answers as a value (status,
 * headers, the strong validator, a body made only when it is sent) and `send` does what every read
 * shares: the conditional GET of RFC 9110 §13.2.2 against the validator (412 for a failed
 * If-Match, with why; 304 for a matching If-None-Match, the ETag of the encoded variant the request
 * would get included: compression.ts), and the headers. HEAD gets the same headers (Koa sends no
 * body, and the length of the one a GET would get).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { LodestoneError } from '../errors.js';
import { checkRead, conditionsOf, mismatch } from '../documents/preconditions.js';
import { variantTags } from './compression.js';
import type { Context, Reply } from './state.js';

export type { Reply } from './state.js';


/**
 * RFC 9110 §13.2.2 for a read of what has the validator `etag`: 'send', or 'not-modified' (304);
 * a failed If-Match throws the 412, saying why, with `headers` (the read fast path answers from
 * this too).
 */
export function judge(request: IncomingHttpHeaders, etag: string, others?: () => ReadonlyMap<string, string>, headers?: Record<string, string>): 'send' | 'not-modified' {
  if (request['if-match'] === undefined && request['if-none-match'] === undefined) return 'send';
  const conditions = conditionsOf(request);
  const outcome = checkRead(conditions, etag, variantTags(etag, request['accept-encoding'])); // the encoded variant this request may get (compression.ts)
  if (outcome === 'failed') throw new LodestoneError('PreconditionFailed', mismatch(conditions.ifMatch!, others?.()), { etag, headers });
  return outcome === 'not-modified' ? 'not-modified' : 'send';
}

/** Sends `reply` on `ctx`. */
export async function send(ctx: Context, reply: Reply): Promise<void> {
  if (reply.headers) ctx.set(reply.headers);
  if (reply.etag !== undefined) {
    ctx.set('ETag', reply.etag);
    if (judge(ctx.headers, reply.etag, reply.others, reply.headers) === 'not-modified') {
      ctx.status = 304;
      ctx.body = null;
      return;
    }
  }
  ctx.status = reply.status ?? 200;
  if (reply.contentType) ctx.set('Content-Type', reply.contentType);
  if (reply.body) ctx.body = await reply.body();
}
