/**
 * The blame page of a document (`?blame`, documents/blame.ts): each triple of its current version,
 * its terms labelled (the raw N-Triples line kept in a title), with the version that brought it
 * (linked), when, and who made it (by name when the viewer may read the agent's document).
 */
import { authorLink, dateFormat } from './history-page.js';
import { breadcrumbsOf } from './document-page.js';
import { html, webUrl, type Html } from './html.js';
import { localName } from './labels.js';
import { page, type Frame } from './layout.js';
import { lexicalForm, lineTerms } from '../rdf/canonical-lines.js';
import { TURTLE } from '../rdf/media-types.js';

export interface BlameRow {
  /** The triple's canonical N-Triples line. */
  line: string;
  commit: string;
  /** Seconds since the epoch. */
  time: number;
  author: string;
  /** The author's name, when the viewer may read its agent document. */
  name?: string;
}

type PageFrame = Omit<Frame, 'title' | 'kind' | 'breadcrumbs'>;

/** One term of a line for people: an IRI by its label, linked when it is a web URL; a literal by its text; a blank node by its label. */
export function termHtml(term: string, label: (iri: string) => string): Html {
  if (term.startsWith('<')) {
    const iri = term.slice(1, -1);
    return webUrl(iri) ? html`<a href="${iri}">${label(iri)}</a>` : html`${label(iri)}`;
  }
  return html`${lexicalForm(term) ?? term}`;
}

/** The page: `rows` are the first triples shown, of `total`; `label` names an IRI for the page's language. */
export function blamePage(frame: PageFrame, documentUrl: string, rows: readonly BlameRow[], total: number, label: (iri: string) => string): Html {
  const { t } = frame;
  const date = dateFormat(frame);
  const title = `${t.blameOf} ${localName(documentUrl)}`;
  const body = html`<h1>${title}</h1>
<p>${t.blameHelp}</p>
<p><a href="${documentUrl}">${documentUrl}</a> · <a href="${documentUrl}?timemap">${t.versions}</a> · <a href="${documentUrl}?blame&amp;accept=${encodeURIComponent(TURTLE)}">Turtle</a></p>
${rows.length < total && html`<p class="truncated">${t.blameShown(rows.length, total)}</p>`}
<div class="table-scroll"><table class="blame">
<caption>${t.blame} (${total})</caption>
<thead><tr><th scope="col">${t.triple}</th><th scope="col">${t.when}</th><th scope="col">${t.author}</th><th scope="col">${t.commit}</th></tr></thead>
<tbody>${rows.map((row) => {
    const terms = lineTerms(row.line);
    const triple = terms ? html`${termHtml(terms[0], label)} · ${termHtml(terms[1], label)} · ${termHtml(terms[2], label)}` : html`<code>${row.line}</code>`;
    return html`<tr><td title="${row.line}">${triple}</td><td><a href="${documentUrl}?version=${row.commit}">${date.format(new Date(row.time * 1000))} UTC</a></td><td>${authorLink(row.author, row.name)}</td><td><code>${row.commit.slice(0, 7)}</code></td></tr>
`;
  })}</tbody></table></div>`;
  return page({ ...frame, title, kind: 'page-blame', breadcrumbs: [...breadcrumbsOf(documentUrl, frame.base, t.home, localName(documentUrl)), { label: t.history, href: `${documentUrl}?timemap` }, { label: t.blame, href: `${documentUrl}?blame` }] }, body);
}
