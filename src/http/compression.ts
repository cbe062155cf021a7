/**
 * HTTP compression (RFC 9110 §8.4, §12.5.3): a body of a textual type (pages, scripts, styles, RDF,
 * SPARQL results, errors) of at least THRESHOLD bytes is sent Brotli- or gzip-encoded when the
 * request's Accept-Encoding allows it, with `Content-Encoding`, `Vary: Accept-Encoding` and the
 * variant's own ETag (`"x-gzip"`, entity-tags.ts). The work runs in libuv's thread pool
 * (zlib's async API), never on the thread that answers requests; a Buffer body's encodings are kept
 * while the Buffer lives (cached representations; static files, once at their best); a body over
 * STREAMED bytes, or a stream, is encoded as it is sent. No compression for a request another site
 * made with the user's credentials (docs/security.md, "Compression").
 */
import type { IncomingHttpHeaders } from 'node:http';
import { pipeline, Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type Koa from 'koa';
import Negotiator from 'negotiator';
import { encodedTag, type Coding } from '../entity-tags.js';

/** Smaller bodies go as they are: the coding's headers and framing would eat most of what it saves. */
export const THRESHOLD = 1024;
/** Larger bodies are encoded as they are sent (chunked, no Content-Length), not in one piece first. */
const STREAMED = 1 << 20;

/** What is worth compressing: text, JSON and XML of any kind, scripts, RDF, SPARQL, link-format, SVG. */
const COMPRESSIBLE = /^\s*(text\/|application\/(javascript|json|xml|n-triples|n-quads|trig|turtle|link-format|sparql-query|sparql-update)\b|application\/[\w.+-]*\+(json|xml)\b|image\/svg\+xml\b)/i;

export function compressible(type: string | undefined): boolean {
  return type !== undefined && COMPRESSIBLE.test(type);
}

/**
 * The coding of a response to a request with `acceptEncoding` (RFC 9110 §12.5.3, q-values and `*`
 * by negotiator): Brotli when it is as acceptable as gzip. No field, an empty one, or nothing
 * acceptable but identity: identity. When identity is refused too (`identity;q=0` and neither br
 * nor gzip), the server disregards the field and sends identity (RFC 9110 §12.1 lets it, rather
 * than a 406 over a body every client can read).
 */
export function codingOf(acceptEncoding: string | undefined): Coding | 'identity' {
  if (!acceptEncoding) return 'identity';
  const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }) as Negotiator & { encoding(available: string[], options: { preferred: string[] }): string | undefined }; // negotiator 1.x takes `preferred`; its types are 0.6's
  const best = negotiator.encoding(['br', 'gzip', 'identity'], { preferred: ['br', 'gzip', 'identity'] });
  return best === 'br' || best === 'gzip' ? best : 'identity';
}

/** The ETags of the encoded variant a request may be sent (for If-None-Match: reply.ts `judge`). */
export function variantTags(etag: string, acceptEncoding: string | undefined): string[] {
  const coding = codingOf(acceptEncoding);
  return coding === 'identity' ? [] : [encodedTag(etag, coding)];
}

/** `vary` with Accept-Encoding added, for a body of `type` (the read fast path's answers, as this middleware's). */
export function varyEncoding(vary: string | undefined, type: string | undefined): string | undefined {
  if (!compressible(type)) return vary;
  if (!vary) return 'Accept-Encoding';
  return vary.split(',').some((field) => /^\s*(accept-encoding|\*)\s*$/i.test(field)) ? vary : `${vary}, Accept-Encoding`;
}

/**
 * Whether another site had the browser send this request (Fetch Metadata): a top-level navigation
 * from another site keeps the user's credentials (http/authenticate.ts), so its answer may hold
 * private data next to what the linking site put in the URL: it goes uncompressed (BREACH).
 */
export function fromAnotherSite(headers: IncomingHttpHeaders): boolean {
  const site = headers['sec-fetch-site'];
  return site === 'cross-site' || site === 'same-site';
}

/** zlib options per coding: Brotli 5 and gzip 6 on the fly (milliseconds for a 400 KB script); the best each does for static files, once, in the background (Brotli 11 takes seconds). */
function options(coding: Coding, best: boolean): zlib.BrotliOptions | zlib.ZlibOptions {
  if (coding === 'gzip') return { level: best ? 9 : 6 };
  return { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: best ? 11 : 5, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT } };
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
const compress = (bytes: Buffer, coding: Coding, best: boolean) => (coding === 'br' ? brotli(bytes, options(coding, best)) : gzip(bytes, options(coding, best)));

/** A header of the response so far (Koa's `response.get` copies every header to read one: this runs for every answer). */
function sent(ctx: Koa.Context, name: string): string | undefined {
  const value = ctx.res.getHeader(name);
  return value === undefined || value === '' ? undefined : String(value);
}

/** Encodes bodies, keeping the encodings of each Buffer while it lives (one per server, built by the composition root). */
export class Compressor {
  private readonly kept = new WeakMap<Buffer, Map<Coding, { encoding: Promise<Buffer>; bytes?: Buffer }>>();

  /**
   * `bytes` encoded with `coding` (in the thread pool). `best`: a static file (no validator, the
   * same bytes for a year), sent at the quick setting until its best encoding, made once beside
   * it, takes its place. A body with an ETag keeps one encoding: a strong validator names bytes.
   */
  encode(bytes: Buffer, coding: Coding, best: boolean): Promise<Buffer> {
    let encodings = this.kept.get(bytes);
    if (!encodings) this.kept.set(bytes, (encodings = new Map()));
    const known = encodings.get(coding);
    if (known) return known.encoding;
    const entry: { encoding: Promise<Buffer>; bytes?: Buffer } = { encoding: compress(bytes, coding, false) };
    encodings.set(coding, entry);
    entry.encoding.then((encoded) => (entry.bytes = encoded), () => encodings.delete(coding));
    if (best) compress(bytes, coding, true).then((encoded) => encodings.set(coding, { encoding: Promise.resolve(encoded), bytes: encoded }), () => undefined);
    return entry.encoding;
  }

  /** The encoding of `bytes` with `coding` already made, if there is one (the read fast path sends it). */
  made(bytes: Buffer, coding: Coding): Buffer | undefined {
    return this.kept.get(bytes)?.get(coding)?.bytes;
  }

  /** The Koa middleware: encodes the answer `next` leaves (errors included), as the request allows. */
  middleware(): Koa.Middleware {
    return async (ctx, next) => {
      await next();
      const etag = sent(ctx, 'ETag');
      const acceptEncoding = ctx.get('Accept-Encoding') || undefined;
      if (ctx.status === 304) {
        // the 304 names the variant the client holds, when it is the one this request would be sent (RFC 9110 §15.4.5)
        if (etag === undefined) return;
        ctx.vary('Accept-Encoding');
        const variant = variantTags(etag, acceptEncoding)[0];
        if (variant && (ctx.get('If-None-Match') ?? '').includes(variant)) ctx.set('ETag', variant);
        return;
      }
      const type = sent(ctx, 'Content-Type');
      const body: unknown = ctx.body;
      if (!compressible(type) || body === null || body === undefined || sent(ctx, 'Content-Encoding')) return;
      ctx.vary('Accept-Encoding');
      const coding = codingOf(acceptEncoding);
      if (coding === 'identity' || fromAnotherSite(ctx.headers)) return;
      const stream = body instanceof Readable ? body : undefined;
      if (!stream && typeof body !== 'string' && !Buffer.isBuffer(body)) return;
      const bytes = stream ? undefined : typeof body === 'string' ? Buffer.from(body) : (body as Buffer);
      if (bytes && bytes.length < THRESHOLD) return;
      ctx.set('Content-Encoding', coding);
      if (etag !== undefined) ctx.set('ETag', encodedTag(etag, coding));
      if (bytes && bytes.length <= STREAMED) {
        const staticFile = etag === undefined && Buffer.isBuffer(body) && /\bimmutable\b/.test(sent(ctx, 'Cache-Control') ?? '');
        ctx.body = await this.encode(bytes, coding, staticFile);
        return;
      }
      // streamed: chunked, no length (a HEAD says the same, and sends nothing)
      ctx.remove('Content-Length');
      if (ctx.method === 'HEAD') {
        ctx.body = Readable.from([]);
        return;
      }
      const encoder = coding === 'br' ? zlib.createBrotliCompress(options(coding, false) as zlib.BrotliOptions) : zlib.createGzip(options(coding, false) as zlib.ZlibOptions);
      ctx.body = pipeline(stream ?? Readable.from([bytes!]), encoder, () => {}); // an error ends the answer (Koa destroys it)
    };
  }
}
