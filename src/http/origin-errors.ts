/**
 * What the proxy answers with when an origin's answer is not a representation it translates (an
 * error, a redirect, an empty answer), SPEC §4.5.6: the origin's status always, and its body never
 * as markup from this origin. A browser gets Lodestone's own error page with the start of the body
 * shown as text; other clients get the body as it came, except what a browser would draw as a page:
 * HTML, XHTML and SVG always go as text/plain, and XML (RDF/XML, SPARQL results, a stylesheet may
 * turn any of it into a page) when the browser says it will show it as a document (Fetch Metadata:
 * `Sec-Fetch-Dest`), so an RDF client still reads an origin's RDF/XML error as it came.
 */
import { OCTET_STREAM } from '../rdf/media-types.js';
import { errorResource } from '../rdf/error-resource.js';
import { JSONLD, PLAIN, serialiseQuads } from '../rdf/formats.js';
import type { StoredResponse } from '../proxy/cache.js';
import { decodeBody } from '../net/safe-fetch.js';
import { emptyBody } from './body.js';
import { errorHtml } from './html.js';
import { reasonPhrase } from './http-error.js';
import { contentTypeOf } from './representations.js';
import type { Context } from './state.js';

/** Media types a browser draws as a page wherever they are loaded (HTML, XHTML, SVG). */
const MARKUP = /html|svg/i;
/** Media types a browser draws as a page when it shows them as a document (any XML, through a stylesheet it names). */
const XML = /xml/i;
/** Fetch Metadata: where a browser shows what it fetched as a document of its own. */
const SHOWN_AS_DOCUMENT = new Set(['document', 'iframe', 'frame', 'embed', 'object']);
/** How much of an origin's error body its page shows. */
const SHOWN = 64 * 1024;

/** An origin's error for a browser: its status, on Lodestone's error page, with the start of its body as text. */
export async function originErrorPage(ctx: Context, response: StoredResponse): Promise<void> {
  const { status, bytes, charset, url } = response;
  const reason = reasonPhrase(status);
  const message = `${url} answered ${status} ${reason}`;
  const text = decodeBody(bytes.subarray(0, SHOWN), charset);
  const jsonld = await serialiseQuads(errorResource(status, reason, message), JSONLD);
  await errorHtml(ctx, status, reason, message, jsonld, { foreign: { url, text, truncatedAt: bytes.length > SHOWN ? SHOWN : undefined } });
}

/** The origin's body as it came (its status and forwarded headers are set), markup as text/plain. */
export function originBody(ctx: Context, response: StoredResponse): void {
  const { headers, bytes, mediaType, charset } = response;
  const contentType = headers['content-type'];
  const type = mediaType ?? contentType ?? '';
  const markup = contentType !== undefined && (MARKUP.test(type) || (XML.test(type) && SHOWN_AS_DOCUMENT.has(ctx.get('Sec-Fetch-Dest'))));
  if (contentType) ctx.set('Content-Type', markup ? contentTypeOf(PLAIN) : contentType);
  if (ctx.method === 'HEAD') return;
  if (bytes.length === 0) return emptyBody(ctx);
  if (!contentType) ctx.type = OCTET_STREAM;
  ctx.body = markup ? decodeBody(bytes, charset) : bytes;
}
