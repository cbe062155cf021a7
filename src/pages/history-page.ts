/**
 * History pages of a document in a versioned dataspace: its versions newest first with time,
 * author (by name, linking the WebID) and message, a form to compare any two, and the comparison
 * itself (the triples removed and added, each triple with its terms labelled, the raw N-Triples
 * line kept in a title).
 */
import { breadcrumbsOf } from './document-page.js';
import { html, webUrl, type Html } from './html.js';
import { localName } from './labels.js';
import { page, type Frame } from './layout.js';
import { LINK_FORMAT, TURTLE } from '../rdf/media-types.js';

export interface VersionRow {
  commit: string;
  /** Seconds since the epoch. */
  time: number;
  author: string;
  /** The author's name, when the viewer may read its agent document; else the WebID is shown. */
  name?: string;
  /** What the commit says of itself beside its `<METHOD> <URL>` line (documents/history.ts versionMessage). */
  message?: string;
}

type PageFrame = Omit<Frame, 'title' | 'kind' | 'breadcrumbs'>;

export function dateFormat(frame: PageFrame): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat(frame.language, { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' });
}

export function authorLink(author: string, name: string | undefined): Html {
  return webUrl(author) ? html`<a href="${author}">${name ?? localName(author.replace(/#this$/, ''))}</a>` : html`${author}`;
}

/** The TimeMap as a page: newest first, each version linked, two radio columns to pick a comparison; the newest is current, or was deleted after (`deleted`). */
export function timemapPage(frame: PageFrame, documentUrl: string, versions: readonly VersionRow[], deleted = false): Html {
  const { t } = frame;
  const newestFirst = [...versions].reverse();
  const date = dateFormat(frame);
  const title = `${t.versionsOf} ${localName(documentUrl)}`;
  const body = html`<h1>${title}</h1>
${deleted && html`<p class="deleted-note">${t.deletedHelp}</p>`}
<p><a href="${documentUrl}">${documentUrl}</a> · <a href="${documentUrl}?timemap&amp;accept=${encodeURIComponent(LINK_FORMAT)}">link-format</a> · <a href="${documentUrl}?timemap&amp;accept=${encodeURIComponent(TURTLE)}">Turtle</a>${!deleted && html` · <a href="${documentUrl}?blame">${t.blame}</a>`}</p>
<form class="compare" method="get" action="${documentUrl}">
<div class="table-scroll"><table class="versions">
<caption>${t.versions} (${versions.length})</caption>
<thead><tr><th scope="col">${t.when}</th><th scope="col">${t.author}</th><th scope="col">${t.message}</th><th scope="col">${t.commit}</th><th scope="col">${t.from}</th><th scope="col">${t.to}</th></tr></thead>
<tbody>${newestFirst.map((v, i) => {
    const when = date.format(new Date(v.time * 1000));
    return html`<tr><td><a href="${documentUrl}?version=${v.commit}">${when} UTC</a>${i === 0 && (deleted ? html` <span class="deleted">(${t.thenDeleted})</span>` : html` <span class="current">(${t.current})</span>`)}</td><td>${authorLink(v.author, v.name)}</td><td class="message">${v.message ?? ''}</td><td><code>${v.commit.slice(0, 7)}</code></td>
<td><input type="radio" name="diff" value="${v.commit}" aria-label="${t.from} ${when}"${i === 1 || (i === 0 && newestFirst.length === 1) ? html` checked` : ''}></td>
<td><input type="radio" name="to" value="${v.commit}" aria-label="${t.to} ${when}"${i === 0 ? html` checked` : ''}></td></tr>
`;
  })}</tbody></table></div>
<p><button type="submit">${t.compareSelected}</button></p>
</form>`;
  return page({ ...frame, title, kind: 'page-history', breadcrumbs: [...breadcrumbsOf(documentUrl, frame.base, t.home, localName(documentUrl)), { label: t.history, href: `${documentUrl}?timemap` }] }, body);
}

/** Two versions compared: the triples removed and added. */
export function diffPage(frame: PageFrame, documentUrl: string, from: string, to: string | undefined, change: { removed: readonly string[]; added: readonly string[] }): Html {
  const { t } = frame;
  const title = `${t.diffTitle}: ${localName(documentUrl)}`;
  const line = (text: string) => html`<li><code>${text}</code></li>`;
  const body = html`<h1>${title}</h1>
<p>${t.from} <a href="${documentUrl}?version=${from}"><code>${from.slice(0, 7)}</code></a> ${t.to} ${to ? html`<a href="${documentUrl}?version=${to}"><code>${to.slice(0, 7)}</code></a>` : html`<a href="${documentUrl}">${t.current}</a>`} · <a href="${documentUrl}?timemap">${t.versions}</a></p>
${change.removed.length === 0 && change.added.length === 0 ? html`<p>${t.noChanges}</p>` : html`<section class="diff-removed"><h2>${t.removed} (${change.removed.length})</h2><ul class="triples removed">${change.removed.map(line)}</ul></section>
<section class="diff-added"><h2>${t.added} (${change.added.length})</h2><ul class="triples added">${change.added.map(line)}</ul></section>`}`;
  return page({ ...frame, title, kind: 'page-diff', breadcrumbs: [...breadcrumbsOf(documentUrl, frame.base, t.home, localName(documentUrl)), { label: t.history, href: `${documentUrl}?timemap` }, { label: t.diffTitle, href: `${documentUrl}?diff=${from}${to ? `&to=${to}` : ''}` }] }, body);
}
