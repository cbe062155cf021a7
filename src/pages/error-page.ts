/**
 * The page of an error status: what happened in words, what to do next (log in or ask for access
 * on a 401 or 403, the start page on a 404), and the RDF error resource of SPEC §2.4 embedded as
 * JSON-LD, so that a program reading the page finds the same error a client of the API gets. An
 * error another origin answered through the proxy shows that origin's body as text, never as markup.
 */
import { html, raw, type Html } from './html.js';
import { page, type Frame } from './layout.js';
import { JSONLD } from '../rdf/media-types.js';

export interface ErrorPage {
  frame: Omit<Frame, 'title' | 'kind'>;
  status: number;
  reason: string;
  message: string;
  /** The error resource as JSON-LD (embedded as a data block). */
  jsonld: string;
  /** For a 401/403 on a document: its URL, for the access request form. */
  target?: string;
  /** An error of another origin read through the proxy: its URL and the body it answered, shown as text. */
  foreign?: { url: string; text: string; truncatedAt?: number };
  /** A 404 of a deleted document, to an agent that may read its last version: its TimeMap, and with Write the version to restore. */
  past?: { documentUrl: string; restore?: string };
}

/** JSON in a `<script>` data block: `<` escaped so no `</script>` can end the block. */
function dataBlock(json: string): Html {
  return raw(`<script type="${JSONLD}" id="error-resource">${json.replace(/</g, '\\u003c')}</script>`);
}

/** What a reader is told of a deleted document: that its history is kept, where, and (with Write) restore of its last version. */
function pastHelp(past: NonNullable<ErrorPage['past']>, t: Frame['t']): Html {
  return html`<p>${t.deletedHelp}</p>
<p><a href="${past.documentUrl}?timemap">${t.seeHistory}</a></p>
${past.restore && html`<form class="restore" data-document="${past.documentUrl}" data-sha="${past.restore}" data-etag="" data-confirm="${t.restoreConfirm}">
<p><button type="submit">${t.restoreLast}</button></p>
<p class="status" role="status" aria-live="polite"></p>
</form>`}`;
}

export function errorPage(input: ErrorPage): Html {
  const { t, visitor } = input.frame;
  const title = t.errorTitle(input.status, t.reasons[input.status] ?? input.reason);
  const denied = input.status === 401 || input.status === 403;
  const foreign = input.foreign;
  const help = foreign
    ? html`<section class="foreign" aria-labelledby="foreign-heading"><h2 id="foreign-heading">${t.foreignAnswer(foreign.url)}</h2>
<pre class="foreign-body" tabindex="0">${foreign.text}</pre>
${foreign.truncatedAt !== undefined && html`<p>${t.foreignTruncated(Math.round(foreign.truncatedAt / 1024))}</p>`}</section>`
    : denied
    ? html`<p>${t.forbiddenHelp}</p>
${!visitor.webId && html`<ul class="login-options">${visitor.providers.map((p) => html`<li><a href="${visitor.adminBase}oauth2/login/${p}">${t.logInWith} ${p}</a></li>`)}${visitor.signup && html`<li><a href="${visitor.adminBase}sign%20up">${t.signUp}</a></li>`}</ul>
<p>${t.certificateHelp}</p>`}
${visitor.webId && input.target && html`<form class="access-request" method="post" action="${visitor.adminBase}access/request">
<input type="hidden" name="this" value="${input.target}">
<input type="hidden" name="mode" value="Read">
<p><button type="submit">${t.requestAccess}</button></p>
<p class="status" role="status" aria-live="polite" data-done="${t.accessRequested}"></p>
</form>`}`
    : input.status === 404 && input.past
      ? pastHelp(input.past, t)
      : input.status === 404
        ? html`<p>${t.notFoundHelp}</p>`
        : '';
  const body = html`<h1>${title}</h1>
<p class="error-message">${foreign ? input.message : t.serverMessage(input.message)}</p>
${help}
<p><a href="${input.frame.base}">${t.goHome}</a></p>
${dataBlock(input.jsonld)}`;
  return page({ ...input.frame, title, kind: 'page-error' }, body);
}
