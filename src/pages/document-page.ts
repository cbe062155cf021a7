/**
 * The page of a document (or of a memento of one): its title and types, its resources by subject,
 * its metadata apart, links to every RDF format, and for a container its children, paged. Agents
 * with Write get the Turtle editor, the property form and delete; with Append, the form that
 * creates a child. Editing runs in static/lodestone.js (PUT or PATCH with the ETag read, the
 * conflict shown side by side on a 412); without scripts the page still reads in full.
 */
import type { Quad } from '@rdfjs/types';
import { GraphView, blankAnchor, propertyTable, resourceOrder, termLink, type ViewContext } from './graph-view.js';
import { html, type Html } from './html.js';
import { labelOf, localName, type Labels } from './labels.js';
import { assetUrls } from './assets.js';
import { accessRequestOf, accessRequestPanel } from './access-request-panel.js';
import { page, type Frame } from './layout.js';
import { TURTLE } from '../rdf/media-types.js';

const DH = 'https://w3id.org/atomgraph/linkeddatahub/document-hierarchy#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
/** The types the property form offers for a new value: how the script writes it (`auto` guesses from the text). */
const VALUE_KINDS = { auto: 'auto', text: `${XSD}string`, integer: `${XSD}integer`, decimal: `${XSD}decimal`, date: `${XSD}date`, dateTime: `${XSD}dateTime`, boolean: `${XSD}boolean`, iri: 'iri' } as const;

export interface ChildList {
  total: number;
  children: readonly { url: string; title: string | undefined; modified: string | undefined }[];
  order: 'newest' | 'title';
  /** 1-based. */
  page: number;
  size: number;
}

export interface DocumentPage {
  frame: Omit<Frame, 'title' | 'kind' | 'breadcrumbs' | 'alternates'>;
  documentUrl: string;
  quads: readonly Quad[];
  /** The labels of the dataspace's pages. */
  labels: Labels;
  /** When the page draws only the first triples: how many it shows of how many. */
  truncated?: { shown: number; total: number };
  /** The RDF formats the document can be had in: media type and a short name. */
  formats: readonly { type: string; name: string; note?: 'compacted' }[];
  /** Where the document is had in other formats: a URL that `accept=<type>` is added to (default: the document's URL; the proxy's for another server's). */
  formatsAt?: string;
  /** For a resource read through the Linked Data proxy: the URL it was read from, which the page names. */
  source?: string;
  /** What the page offers: `write` edits, `append` creates a child; `delete`: offered, refused whoever asks (the root, a protected agent document), or refused until the container's documents are deleted. */
  modes: { write: boolean; append: boolean; delete?: 'offered' | 'refused' | 'not-empty' };
  /** The representation's ETag, which the editor sends as If-Match. */
  etag?: string;
  /** The document as Turtle, for the editor (agents with Write). */
  turtle?: string;
  children?: ChildList;
  /** The names of the people the document names, by WebID, that the viewer may read (graph-view.ts ViewContext). */
  names?: Readonly<Record<string, string>>;
  /** Whether the dataspace keeps history (a link to it). */
  versioned: boolean;
  /** For a memento: its commit and time; the page then carries the banner and, with Write, restore. */
  memento?: { sha: string; time: Date; currentEtag?: string };
}

/** The title of a document: the first label of its `#this`, else of itself, else its last path segment. */
export function documentTitle(view: GraphView, documentUrl: string, frame: Pick<Frame, 'language' | 't' | 'base'>): string {
  if (documentUrl === frame.base) return view.titleOf(`${documentUrl}#this`, frame.language) ?? view.titleOf(documentUrl, frame.language) ?? frame.t.home;
  return view.titleOf(`${documentUrl}#this`, frame.language) ?? view.titleOf(documentUrl, frame.language) ?? localName(documentUrl);
}

/** Home, then every container from the base down to the document. */
export function breadcrumbsOf(documentUrl: string, base: string, homeLabel: string, title: string): { label: string; href: string }[] {
  const crumbs = [{ label: homeLabel, href: base }];
  if (!documentUrl.startsWith(base) || documentUrl === base) return crumbs;
  const segments = documentUrl.slice(base.length).split('/').filter(Boolean);
  let href = base;
  segments.forEach((segment, i) => {
    href += `${segment}/`;
    crumbs.push({ label: i === segments.length - 1 ? title : localName(href), href });
  });
  return crumbs;
}

export function documentPage(input: DocumentPage): Html {
  const { frame, documentUrl } = input;
  const { t, language } = frame;
  const view = new GraphView(input.quads);
  const editing = !input.memento && input.modes.write;
  const context: ViewContext = { language, t, documentUrl, base: frame.base, labels: input.labels, names: input.names, editable: editing ? `<${documentUrl}#this>` : undefined };
  const title = documentTitle(view, documentUrl, frame);
  const container = view.typesOf(documentUrl).includes(`${DH}Container`) || documentUrl === frame.base;
  const primaryTypes = view.typesOf(`${documentUrl}#this`);
  const mementoQuery = input.memento ? `&version=${input.memento.sha}` : '';
  const formatsAt = input.formatsAt ?? documentUrl;
  const formatLink = (type: string) => `${formatsAt}${formatsAt.includes('?') ? '&' : '?'}accept=${encodeURIComponent(type)}${mementoQuery}`;
  const alternates = input.formats.map((f) => ({ type: f.type, href: formatLink(f.type) }));

  // what the document says about itself (hierarchy, times, owner) is drawn last, apart from what it is about;
  // a resource read through the proxy is what its page is about (foaf:Person describes itself)
  const aboutDocument = (q: Quad) => !input.source && q.subject.termType === 'NamedNode' && q.subject.value === documentUrl;
  const metadata = new GraphView(input.quads.filter(aboutDocument));
  const content = new GraphView(input.quads.filter((q) => !aboutDocument(q)));
  const sections = resourceOrder(content, documentUrl).map(({ key, iri, fragment }) => {
    const anchor = fragment !== undefined ? fragment : iri ? undefined : blankAnchor(key.slice(2));
    const heading = iri ? termLink(iri, content.titleOf(iri, language) ?? (fragment !== undefined ? `#${fragment}` : labelOf(iri, language, input.labels, content.labels)), context) : t.blankNode;
    return html`<section class="resource"${anchor !== undefined ? html` id="${anchor}"` : ''}><h2>${heading}</h2>
${propertyTable(content, key, context)}</section>`;
  });

  const body = html`<article class="document" data-document="${documentUrl}"${input.etag ? html` data-etag="${input.etag}"` : ''}>
<header class="document-head">
<p class="kind">${container ? t.container : t.document}${primaryTypes.length > 0 && html` · <span class="types">${primaryTypes.map((type, i) => html`${i > 0 ? ', ' : ''}${termLink(type, labelOf(type, language, input.labels, view.labels), context, true)}`)}</span>`}</p>
<h1>${title}</h1>
${input.source && html`<p class="source">${t.readThrough} <a href="${input.source}" rel="noopener">${input.source}</a></p>`}
<p class="formats">${t.formats} ${input.formats.map((f, i) => html`${i > 0 ? ' · ' : ''}<a href="${formatLink(f.type)}" type="${f.type}">${f.name}${f.note && ` (${t[f.note]})`}</a>`)}${input.versioned && !input.memento && html` · <a href="${documentUrl}?timemap">${t.history}</a>`}</p>
</header>
${input.memento && input.modes.write && restoreForm(input, t)}
${input.truncated && html`<p class="truncated" role="note">${t.truncated(input.truncated.shown, input.truncated.total)}</p>`}
${sections.length === 0 && !input.children && metadata.quads.length === 0 ? html`<p class="empty">${t.noTriples}</p>` : sections}
${input.children && childrenSection(input.children, documentUrl, frame)}
${!input.memento && input.modes.append && container && createForm(documentUrl, t)}
${!input.memento && input.modes.write && grantPanel(input, frame)}
${!input.memento && input.modes.write && editor(input, t, frame.base)}
${metadata.quads.length > 0 && html`<section class="metadata"><h2>${t.aboutDocument}</h2>${propertyTable(metadata, `<${documentUrl}>`, context)}</section>`}
</article>`;
  const banner = input.memento && mementoBanner(documentUrl, input.memento.time, frame);
  return page({ ...frame, banner, title, kind: container ? 'page-container' : 'page-document', breadcrumbs: breadcrumbsOf(documentUrl, frame.base, t.home, title), alternates}, body);
}

function childrenSection(list: ChildList, documentUrl: string, frame: DocumentPage['frame']): Html {
  const { t, language } = frame;
  const pages = Math.max(1, Math.ceil(list.total / list.size));
  const link = (pageNumber: number, order = list.order) => `${documentUrl}?order=${order}&page=${pageNumber}`;
  const date = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
  return html`<section class="children" aria-labelledby="children-heading">
<h2 id="children-heading">${t.children} <span class="count">(${t.childrenCount(list.total)})</span></h2>
<p class="order">${list.order === 'newest' ? html`<strong>${t.newest}</strong> · <a href="${link(1, 'title')}">${t.byTitle}</a>` : html`<a href="${link(1, 'newest')}">${t.newest}</a> · <strong>${t.byTitle}</strong>`}</p>
${list.children.length === 0 ? html`<p>${t.noChildren}</p>` : html`<ul class="child-list">${list.children.map((c) => html`<li><a href="${c.url}">${c.title ?? localName(c.url)}</a>${c.modified && html` <time datetime="${c.modified}">${date.format(new Date(c.modified))} UTC</time>`}</li>`)}</ul>`}
${pages > 1 && html`<nav class="pager" aria-label="${t.pageOf(list.page, pages)}">${list.page > 1 && html`<a href="${link(list.page - 1)}" rel="prev">${t.previous}</a>`} <span>${t.pageOf(list.page, pages)}</span> ${list.page < pages && html`<a href="${link(list.page + 1)}" rel="next">${t.next}</a>`}</nav>`}
</section>`;
}

function createForm(containerUrl: string, t: Frame['t']): Html {
  return html`<section class="create"><h2>${t.createChild}</h2>
<form class="create-child" data-container="${containerUrl}">
<p><label for="create-title">${t.title}</label> <input id="create-title" name="title" required></p>
<p><label for="create-slug">${t.slug}</label> <input id="create-slug" name="slug" pattern="[A-Za-z0-9._~-]+" placeholder="my-notes"></p>
<fieldset><legend>${t.kind}</legend>
<label><input type="radio" name="kind" value="Item" checked> ${t.createItem}</label>
<label><input type="radio" name="kind" value="Container"> ${t.createContainer}</label></fieldset>
<p><button type="submit">${t.create}</button></p>
<p class="status" role="status" aria-live="polite"></p>
</form></section>`;
}

function editor(input: DocumentPage, t: Frame['t'], base: string): Html {
  return html`<section class="edit"><h2>${t.edit}</h2>
<details class="edit-turtle"><summary>${t.editTurtle}</summary>
<form class="turtle-editor" data-document="${input.documentUrl}" data-etag="${input.etag ?? ''}">
<p><label for="turtle-source">Turtle</label></p>
<textarea id="turtle-source" name="turtle" rows="16" spellcheck="false" data-editor="${TURTLE}" data-scripts="${assetUrls(base, 'codemirror.js', 'codemirror-turtle.js')}" data-styles="${assetUrls(base, 'codemirror.css')}">${input.turtle ?? ''}</textarea>
<p><button type="submit">${t.save}</button></p>
<p class="status" role="status" aria-live="polite"></p>
<div class="conflict" hidden>
<p>${t.conflict}</p>
<div class="side-by-side"><div><h3>${t.yourVersion}</h3><pre class="mine"></pre></div><div><h3>${t.theirVersion}</h3><pre class="theirs"></pre></div></div>
<p><a href="${input.documentUrl}">${t.reload}</a></p>
</div>
</form></details>
<details class="edit-properties"><summary>${t.editProperties}</summary>
<form class="property-form" data-document="${input.documentUrl}" data-etag="${input.etag ?? ''}" data-subject="${input.documentUrl}#this" data-unchanged="${t.nothingChanged}" data-invalid="${t.invalidValue}" data-picked="${t.pickedValue}">
<p>${t.propertyHelp}</p>
<p><label for="property-iri">${t.property} (IRI)</label> <input id="property-iri" name="property" type="url" required placeholder="http://purl.org/dc/terms/description"></p>
<p><label for="property-value">${t.value}</label> <input id="property-value" name="value" required></p>
<p><label for="property-kind">${t.valueType}</label> <select id="property-kind" name="kind">${Object.entries(VALUE_KINDS).map(([kind, value]) => html`<option value="${value}">${t.valueKinds[kind as keyof typeof VALUE_KINDS]}</option>`)}</select>
<label for="property-language">${t.valueLanguage}</label> <input id="property-language" name="language" size="10" pattern="[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*" placeholder="en"></p>
<p><button type="submit" name="op" value="add">${t.addValue}</button> <button type="submit" name="op" value="set">${t.setValue}</button> <button type="submit" name="op" value="remove">${t.remove}</button></p>
<p class="status" role="status" aria-live="polite"></p>
</form></details>
${input.modes.delete === 'offered' && html`<form class="delete-document" data-document="${input.documentUrl}" data-etag="${input.etag ?? ''}" data-confirm="${t.deleteConfirm}">
<p><button type="submit" class="danger">${t.delete}</button></p>
<p class="status" role="status" aria-live="polite"></p>
</form>`}
${input.modes.delete === 'not-empty' && html`<p class="delete-note">${t.deleteChildrenFirst}</p>`}
</section>`;
}

/** On an access request under `<admin>acl/access-requests/`, Grant and Refuse (access-request-panel.ts). */
function grantPanel(input: DocumentPage, frame: DocumentPage['frame']): Html | undefined {
  const at = input.documentUrl.lastIndexOf('acl/access-requests/');
  const request = at >= 0 ? accessRequestOf(input.quads, input.documentUrl) : undefined;
  // the asker may write its own request (it made it), but grants itself nothing
  if (!request || request.agent === frame.visitor.webId) return undefined;
  return accessRequestPanel(request, { documentUrl: input.documentUrl, etag: input.etag, authorizations: `${input.documentUrl.slice(0, at)}acl/authorizations/` }, frame.t);
}

function restoreForm(input: DocumentPage, t: Frame['t']): Html {
  const memento = input.memento!;
  return html`<form class="restore" data-document="${input.documentUrl}" data-sha="${memento.sha}" data-etag="${memento.currentEtag ?? ''}" data-confirm="${t.restoreConfirm}">
<p><button type="submit">${t.restore}</button></p>
<p class="status" role="status" aria-live="polite"></p>
</form>`;
}

/** SPEC §9.1: a memento says when it is from and links to the current version. */
export function mementoBanner(documentUrl: string, time: Date, frame: Pick<Frame, 't' | 'language'>): Html {
  const when = new Intl.DateTimeFormat(frame.language, { dateStyle: 'full', timeStyle: 'long', timeZone: 'UTC' }).format(time);
  return html`<div class="memento-banner" role="note"><p>${frame.t.mementoBanner(when)} <a href="${documentUrl}">${frame.t.seeCurrent}</a></p></div>`;
}
