/**
 * The page of a document (or of a memento of one): its title and types, its resources by subject,
 * its metadata apart, links to every RDF format, and for a container its children, paged. Agents
 * with Write get the Turtle editor, the property form and delete; with Append, the form that
 * creates a child and the forms of the namespace ontology's classes (instance-form.ts), and on the
 * root and `uploads/`, with Append on `uploads/`, the upload form; an uploaded file's description
 * shows the file. Editing runs in static/lodestone.js and forms.js (PUT or PATCH with the ETag read;
 * on a 412 the conflict view of static/conflict.js); without scripts the page still reads in full.
 */
import type { Quad } from '@rdfjs/types';
import { GraphView, blankAnchor, propertyTable, resourceOrder, termLink, type ViewContext } from './graph-view.js';
import { html, type Html } from './html.js';
import { labelOf, localName, type Labels } from './labels.js';
import { assetUrls } from './assets.js';
import { accessRequestOf, accessRequestPanel } from './access-request-panel.js';
import { page, type Frame } from './layout.js';
import { childrenSection, type ChildList } from './container-views.js';
import { TURTLE } from '../rdf/media-types.js';
import { uploadedFile, uploadForm } from './upload-view.js';
import { instanceSection, languageTags, propertyChoices, scriptMessages, type InstanceForms, type PropertyChoice } from './instance-form.js';

const DH = 'https://w3id.org/atomgraph/linkeddatahub/document-hierarchy#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
/** The types the property form offers for a new value: how the script writes it (`auto` guesses from the text). */
const VALUE_KINDS = { auto: 'auto', text: `${XSD}string`, integer: `${XSD}integer`, decimal: `${XSD}decimal`, date: `${XSD}date`, dateTime: `${XSD}dateTime`, boolean: `${XSD}boolean`, iri: 'iri' } as const;

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
  /** Where the visitor may upload a file (`<base>uploads/`), on the pages that offer it (upload-view.ts). */
  uploadTo?: string;
  /** The representation's ETag, which the editor sends as If-Match. */
  etag?: string;
  /** The document as Turtle, for the editor (agents with Write). */
  turtle?: string;
  children?: ChildList;
  /** The names of the people the document names, by WebID, that the viewer may read (graph-view.ts ViewContext). */
  names?: Readonly<Record<string, string>>;
  /** Whether the dataspace keeps history (a link to it). */
  versioned: boolean;
  /** On a container the agent may append to: the classes of the namespace ontology, and the form of the one asked for (instance-form.ts). */
  instanceForms?: InstanceForms;
  /** The properties the property form offers by label (the ontology's and the common vocabularies'). */
  propertyChoices?: readonly PropertyChoice[];
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
${uploadedFile(input.quads, documentUrl, frame.base, t, title)}
${input.truncated && html`<p class="truncated" role="note">${t.truncated(input.truncated.shown, input.truncated.total)}</p>`}
${sections.length === 0 && !input.children && metadata.quads.length === 0 ? html`<p class="empty">${t.noTriples}</p>` : sections}
${input.children && childrenSection(input.children, documentUrl, frame, input.labels)}
${!input.memento && input.modes.append && container && createForm(documentUrl, t)}
${!input.memento && input.uploadTo && uploadForm(input.uploadTo, t)}
${!input.memento && input.modes.append && container && input.instanceForms && input.instanceForms.classes.length > 0 && instanceSection(documentUrl, input.instanceForms, { t, language, labels: input.labels })}
${!input.memento && input.modes.write && grantPanel(input, frame)}
${!input.memento && input.modes.write && editor(input, t, frame.base)}
${(input.modes.write || input.modes.append) && scriptMessages(t)}
${!input.memento && (input.modes.write || input.modes.append) && html`${languageTags()}<script src="${assetUrls(frame.base, 'forms.js')}" defer></script>`}
${metadata.quads.length > 0 && html`<section class="metadata"><h2>${t.aboutDocument}</h2>${propertyTable(metadata, `<${documentUrl}>`, context)}</section>`}
</article>`;
  const banner = input.memento && mementoBanner(documentUrl, input.memento.time, frame);
  return page({ ...frame, banner, title, kind: container ? 'page-container' : 'page-document', breadcrumbs: breadcrumbsOf(documentUrl, frame.base, t.home, title), alternates}, body);
}

function createForm(containerUrl: string, t: Frame['t']): Html {
  return html`<section class="create"><h2>${t.createChild}</h2>
<form class="create-child" data-container="${containerUrl}">
<p><label for="create-title">${t.title}</label> <input id="create-title" name="title" required></p>
<p><label for="create-slug">${t.slug}</label> <input id="create-slug" name="slug" pattern="[A-Za-z0-9._~\\-]+" placeholder="my-notes"></p>
<fieldset><legend>${t.kind}</legend>
<label><input type="radio" name="kind" value="Item" checked> ${t.createItem}</label>
<label><input type="radio" name="kind" value="Container"> ${t.createContainer}</label></fieldset>
<p><button type="submit" class="primary">${t.create}</button></p>
<p class="status" role="status" aria-live="polite"></p>
</form></section>`;
}

function editor(input: DocumentPage, t: Frame['t'], base: string): Html {
  return html`<section class="edit"><h2>${t.edit}</h2>
<details class="edit-turtle"><summary>${t.editTurtle}</summary>
<form class="turtle-editor" data-document="${input.documentUrl}" data-etag="${input.etag ?? ''}">
<p><label for="turtle-source">Turtle</label></p>
<textarea id="turtle-source" name="turtle" rows="16" spellcheck="false" data-editor="${TURTLE}" data-scripts="${assetUrls(base, 'codemirror.js', 'codemirror-turtle.js')}" data-styles="${assetUrls(base, 'codemirror.css')}">${input.turtle ?? ''}</textarea>
<p><button type="submit" class="primary">${t.save}</button></p>
<p class="status" role="status" aria-live="polite"></p>
${conflictView(t, base)}
</form></details>
<details class="edit-properties"><summary>${t.editProperties}</summary>
<form class="property-form" data-document="${input.documentUrl}" data-etag="${input.etag ?? ''}" data-subject="${input.documentUrl}#this" data-unchanged="${t.nothingChanged}" data-invalid="${t.invalidValue}" data-picked="${t.pickedValue}">
<p>${t.propertyHelp}</p>
${input.propertyChoices && input.propertyChoices.length > 0 && propertyChoices(input.propertyChoices, { t, language: input.frame.language, labels: input.labels })}
<p><label for="property-iri">${t.property} (IRI)</label> <input id="property-iri" name="property" type="url" required placeholder="http://purl.org/dc/terms/description"></p>
<p><label for="property-value">${t.value}</label> <input id="property-value" name="value" required></p>
<p><label for="property-kind">${t.valueType}</label> <select id="property-kind" name="kind">${Object.entries(VALUE_KINDS).map(([kind, value]) => html`<option value="${value}">${t.valueKinds[kind as keyof typeof VALUE_KINDS]}</option>`)}</select>
<label for="property-language">${t.valueLanguage}</label> <input id="property-language" name="language" size="10" list="language-tags" pattern="[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*" placeholder="en"></p>
<p><button type="submit" name="op" value="add" class="primary">${t.addValue}</button> <button type="submit" name="op" value="set" class="secondary">${t.setValue}</button> <button type="submit" name="op" value="remove" class="danger">${t.remove}</button></p>
<p class="status" role="status" aria-live="polite"></p>
</form></details>
${input.modes.delete === 'offered' && html`<form class="delete-document" data-document="${input.documentUrl}" data-etag="${input.etag ?? ''}" data-confirm="${t.deleteConfirm}">
<p><button type="submit" class="danger">${t.delete}</button></p>
<p class="status" role="status" aria-live="polite"></p>
</form>`}
${input.modes.delete === 'not-empty' && html`<p class="delete-note">${t.deleteChildrenFirst}</p>`}
</section>`;
}

/**
 * Filled by static/conflict.js on a 412: yours and the current version one triple per line, what
 * the other lacks marked; keep mine (a PUT quoting the current ETag) or take theirs. Side by side
 * where there is room, stacked on a phone; long lines wrap in their box.
 */
function conflictView(t: Frame['t'], base: string): Html {
  return html`<div class="conflict" hidden data-scripts="${assetUrls(base, 'n3.js', 'conflict.js')}" data-counts="${t.conflictCounts}" data-unreadable="${t.conflictUnreadable}" data-deleted="${t.conflictDeleted}" data-again="${t.conflictAgain}" data-taken="${t.conflictTaken}">
<h3 tabindex="-1">${t.conflictTitle}</h3>
<p>${t.conflict}</p>
<p class="conflict-note" role="alert"></p>
<p class="conflict-summary"></p>
<div class="side-by-side">
<div class="version"><h4 id="conflict-mine">${t.yourVersion}</h4><pre class="mine" tabindex="0" aria-labelledby="conflict-mine"></pre></div>
<div class="version"><h4 id="conflict-theirs">${t.theirVersion}</h4><pre class="theirs" tabindex="0" aria-labelledby="conflict-theirs"></pre></div>
</div>
<p class="conflict-actions"><button type="button" class="keep-mine">${t.keepMine}</button> <button type="button" class="take-theirs">${t.takeTheirs}</button></p>
</div>`;
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
<p><button type="submit" class="primary">${t.restore}</button></p>
<p class="status" role="status" aria-live="polite"></p>
</form>`;
}

/** SPEC §9.1: a memento says when it is from and links to the current version. */
export function mementoBanner(documentUrl: string, time: Date, frame: Pick<Frame, 't' | 'language'>): Html {
  const when = new Intl.DateTimeFormat(frame.language, { dateStyle: 'full', timeStyle: 'long', timeZone: 'UTC' }).format(time);
  return html`<div class="memento-banner" role="note"><p>${frame.t.mementoBanner(when)} <a href="${documentUrl}">${frame.t.seeCurrent}</a></p></div>`;
}
