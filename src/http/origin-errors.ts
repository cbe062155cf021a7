/**
 * What the proxy answers with when an origin's answer is not a representation it translates (an
 * error, a redirect, an empty answer), SPEC §4.5.6: the origin's status always, and its body never
 * as markup from this origin. A browser gets Lodestone's own error page with the start of the body
 * shown as text; other clients get the body as it came, except HTML, XHTML, SVG and other XML
 * (which a browser would draw as a page), which go as text/plain.
 */
import { errorResource } from '../rdf/error-resource.js';
import { JSONLD, serialiseQuads } from '../rdf/formats.js';
import type { StoredResponse } from '../net/proxy-cache.js';
import { decodeBody } from '../net/safe-fetch.js';
import { emptyBody } from './body.js';
import { errorHtml } from './html.js';
import { reasonPhrase } from './http-error.js';
import type { Context } from './state.js';

/** Media types a browser draws as a page (HTML, XHTML, SVG, any XML, which may hold XHTML). */
const MARKUP = /html|xml/i;
/** How much of an origin's error body its page shows. */
const SHOWN = 64 * 1024;

/** An origin's error for a browser: its status, on Lodestone's error page, with the start of its body as text. */
export async function originErrorPage(ctx: Context, response: StoredResponse): Promise<void> {
  const { status, bytes, charset, url } = response;
  const reason = reasonPhrase(status);
  const message = `${url} answered ${status} ${reason}`;
  const text = decodeBody(bytes.subarray(0, SHOWN), charset);
  const jsonld = await serialiseQuads(errorResource(status, reason, message), JSONLD);
  await errorHtml(ctx, status, reason, message, jsonld, { url, text, truncatedAt: bytes.length > SHOWN ? SHOWN : undefined });
}

/** The origin's body as it came (its status and forwarded headers are set), markup as text/plain. */
export function originBody(ctx: Context, response: StoredResponse): void {
  const { headers, bytes, mediaType, charset } = response;
  const contentType = headers['content-type'];
  const markup = contentType !== undefined && MARKUP.test(mediaType ?? contentType);
  if (contentType) ctx.set('Content-Type', markup ? 'text/plain; charset=utf-8' : contentType);
  if (ctx.method === 'HEAD') return;
  if (bytes.length === 0) return emptyBody(ctx);
  if (!contentType) ctx.type = 'application/octet-stream';
  ctx.body = markup ? decodeBody(bytes, charset) : bytes;
}
