/**
 * A document's graph as HTML: its resources grouped by subject (`#this` first, the other
 * `#fragments` of the document with anchors, then other subjects; the document's own metadata kept
 * apart), each a table of properties and values. Values by kind: IRIs of this server are links,
 * other http(s) IRIs open through the server's Linked Data proxy (with the plain link beside), IRIs of
 * any other scheme (`javascript:`, `data:`) are text, never links or images; literals show
 * their language and datatype, dates and numbers formatted; images are shown; a blank node used
 * once is nested where it is used; an RDF list shows as a numbered list.
 */
import type { Quad, Term } from '@rdfjs/types';
import { html, webUrl, type Html } from './html.js';
import { labelOf, pickLabel, titlesOf, type Labels, type Titles } from './labels.js';
import type { Language, Messages } from './messages.js';

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const TYPE = `${RDF}type`;
const IMAGE_PREDICATES = new Set(['http://xmlns.com/foaf/0.1/img', 'http://xmlns.com/foaf/0.1/depiction', 'http://schema.org/image', 'https://schema.org/image', 'http://xmlns.com/foaf/0.1/logo']);
const IMAGE_FILE = /\.(png|jpe?g|gif|svg|webp|avif)$/i;
/** How deep nested blank nodes are drawn before the rest is cut (a document may nest 10,000 deep). */
const MAX_NESTING = 12;

export interface ViewContext {
  language: Language;
  t: Messages;
  /** The document's URL; its fragments get anchors. */
  documentUrl: string;
  /** The base of the dataspace the page is served from: its IRIs (and this origin's) are local links. */
  base: string;
  /** The labels of the dataspace's pages. */
  labels: Labels;
  /** The names of what this server holds that the viewer may read (people, documents linked), by IRI, as their own pages title them: shown instead of an IRI's last segment. */
  names?: Readonly<Record<string, string>>;
  /** The subject (its key, `<iri>`) whose values the property form edits: each gets a button that picks it, its exact term in its data. */
  editable?: string;
}

/** The quads of one graph, indexed for drawing. */
export class GraphView {
  readonly bySubject = new Map<string, Quad[]>();
  /** Labels the graph itself gives, by IRI and language. */
  readonly labels: Titles;
  private readonly references = new Map<string, number>();

  constructor(readonly quads: readonly Quad[]) {
    const literals: { subject: string; predicate: string; value: string; language: string }[] = [];
    for (const quad of quads) {
      const key = keyOf(quad.subject);
      let list = this.bySubject.get(key);
      if (!list) this.bySubject.set(key, (list = []));
      list.push(quad);
      if (quad.object.termType === 'BlankNode') this.references.set(quad.object.value, (this.references.get(quad.object.value) ?? 0) + 1);
      if (quad.object.termType === 'Literal' && quad.subject.termType === 'NamedNode') literals.push({ subject: quad.subject.value, predicate: quad.predicate.value, value: quad.object.value, language: quad.object.language });
    }
    this.labels = titlesOf(literals);
  }

  /** The title of a resource from its own label triples, in `language` first. */
  titleOf(iri: string, language: Language): string | undefined {
    return pickLabel(this.labels.get(iri), language);
  }

  typesOf(iri: string): string[] {
    return (this.bySubject.get(`<${iri}>`) ?? []).filter((q) => q.predicate.value === TYPE && q.object.termType === 'NamedNode').map((q) => q.object.value);
  }

  /** A blank node drawn where it is used: referenced once, and not a subject drawn on its own. */
  nested(label: string): boolean {
    return this.references.get(label) === 1;
  }

  /** The members of an RDF list starting at `head`, or undefined when it is not a well-formed list. */
  listMembers(head: Term): Term[] | undefined {
    const members: Term[] = [];
    const seen = new Set<string>();
    let node = head;
    while (!(node.termType === 'NamedNode' && node.value === `${RDF}nil`)) {
      if (node.termType !== 'BlankNode' || seen.has(node.value) || this.references.get(node.value) !== 1) return undefined;
      seen.add(node.value);
      const quads = this.bySubject.get(`_:${node.value}`) ?? [];
      const first = quads.filter((q) => q.predicate.value === `${RDF}first`);
      const rest = quads.filter((q) => q.predicate.value === `${RDF}rest`);
      if (first.length !== 1 || rest.length !== 1 || quads.length !== 2) return undefined;
      members.push(first[0]!.object);
      node = rest[0]!.object;
    }
    return members;
  }
}

function keyOf(term: Term): string {
  return term.termType === 'BlankNode' ? `_:${term.value}` : `<${term.value}>`;
}

/** The subjects of the page in the order they are drawn, each with its anchor and heading. */
export function resourceOrder(view: GraphView, documentUrl: string): { key: string; iri?: string; fragment?: string }[] {
  const primary = `<${documentUrl}#this>`;
  const document = `<${documentUrl}>`;
  const out: { key: string; iri?: string; fragment?: string }[] = [];
  const keys = [...view.bySubject.keys()];
  const push = (key: string) => {
    const iri = key.startsWith('<') ? key.slice(1, -1) : undefined;
    const fragment = iri?.startsWith(documentUrl + '#') ? iri.slice(documentUrl.length + 1) : undefined;
    out.push({ key, iri, fragment });
  };
  if (view.bySubject.has(primary)) push(primary);
  // the document's own IRI when it is what the page is about (a proxied resource, foaf:Person), not kept apart as metadata
  if (view.bySubject.has(document)) push(document);
  const fragments = keys.filter((k) => k !== primary && k.startsWith(`<${documentUrl}#`)).sort();
  const others = keys.filter((k) => k.startsWith('<') && k !== primary && k !== document && !k.startsWith(`<${documentUrl}#`)).sort();
  const blanks = keys.filter((k) => k.startsWith('_:') && !view.nested(k.slice(2)));
  for (const key of [...fragments, ...others, ...blanks]) push(key);
  return out;
}

/** The table of a subject's properties (predicates in label order, `rdf:type` first). */
export function propertyTable(view: GraphView, key: string, context: ViewContext, depth = 0, caption?: Html): Html {
  const quads = view.bySubject.get(key) ?? [];
  const byPredicate = new Map<string, Term[]>();
  for (const quad of quads) {
    const values = byPredicate.get(quad.predicate.value) ?? [];
    values.push(quad.object);
    byPredicate.set(quad.predicate.value, values);
  }
  const predicates = [...byPredicate.keys()].sort((a, b) => (a === TYPE ? -1 : b === TYPE ? 1 : predicateLabel(a, view, context).localeCompare(predicateLabel(b, view, context), context.language)));
  return html`<table class="properties">${caption && html`<caption>${caption}</caption>`}
<thead><tr><th scope="col">${context.t.property}</th><th scope="col">${context.t.value}</th></tr></thead>
<tbody>${predicates.map(
    (predicate) => html`<tr><th scope="row">${termLink(predicate, predicateLabel(predicate, view, context), context, true)}</th><td>${valueList(byPredicate.get(predicate)!, predicate, view, context, depth, context.editable === key && depth === 0)}</td></tr>
`,
  )}</tbody></table>`;
}

function predicateLabel(predicate: string, view: GraphView, context: ViewContext): string {
  return labelOf(predicate, context.language, context.labels, view.labels);
}

function valueList(values: Term[], predicate: string, view: GraphView, context: ViewContext, depth: number, editable: boolean): Html {
  const drawn = values.map((value) => (editable && value.termType !== 'BlankNode' ? html`${valueOf(value, predicate, view, context, depth)} ${pickButton(value, predicate, context)}` : valueOf(value, predicate, view, context, depth)));
  return drawn.length === 1 ? drawn[0]! : html`<ul class="values">${drawn.map((d) => html`<li>${d}</li>`)}</ul>`;
}

/** One value of a property, drawn by its kind. */
export function valueOf(term: Term, predicate: string, view: GraphView, context: ViewContext, depth: number): Html {
  switch (term.termType) {
    case 'NamedNode': {
      const web = webUrl(term.value);
      if (web && (IMAGE_PREDICATES.has(predicate) || IMAGE_FILE.test(web.pathname))) {
        return html`<a href="${term.value}"><img src="${term.value}" alt="${labelOf(term.value, context.language, context.labels, view.labels)}" loading="lazy"></a>`;
      }
      return termLink(term.value, context.names?.[term.value] ?? labelOf(term.value, context.language, context.labels, view.labels), context, predicate === TYPE);
    }
    case 'Literal':
      return literal(term, context);
    case 'BlankNode': {
      const list = view.listMembers(term);
      if (list) return html`<ol class="list" aria-label="${context.t.list}">${list.map((member) => html`<li>${valueOf(member, '', view, context, depth + 1)}</li>`)}</ol>`;
      if (view.nested(term.value) && depth < MAX_NESTING && view.bySubject.has(`_:${term.value}`)) return html`<div class="nested">${propertyTable(view, `_:${term.value}`, context, depth + 1)}</div>`;
      return html`<a href="#${blankAnchor(term.value)}" class="blank">${context.t.blankNode}</a>`;
    }
    default:
      return html`${term.value}`;
  }
}

/**
 * The buttons that pick a value for the property form (static/lodestone.js) and remove it: the value's exact term
 * travels in its data (an IRI, or a literal's lexical form with its datatype or language), so the
 * form removes or replaces that term and no other.
 */
function pickButton(term: Term, predicate: string, context: ViewContext): Html {
  const literal = term.termType === 'Literal' ? term : undefined;
  const datatype = literal && !literal.language ? literal.datatype.value : '';
  const data = html`data-property="${predicate}" data-kind="${literal ? 'literal' : 'iri'}" data-value="${term.value}" data-datatype="${datatype}" data-language="${literal?.language ?? ''}"`;
  const shown = term.value.length > 80 ? `${term.value.slice(0, 80)}…` : term.value;
  // and the one that removes it (static/forms.js): a PATCH of that term alone, with the ETag read
  return html`<button type="button" class="pick-value" ${data} aria-label="${context.t.editValue(shown)}" hidden>✎</button><button type="button" class="remove-value" ${data} aria-label="${context.t.removeValue(shown)}" hidden>✕</button>`;
}

export function blankAnchor(label: string): string {
  return `b-${label.replace(/[^A-Za-z0-9_-]/g, '')}`;
}

/**
 * A link to an IRI: this server's IRIs directly, other web IRIs through the proxy with the plain link
 * beside (a property or type: through the proxy too, the IRI in its title), any other IRI as text.
 */
export function termLink(iri: string, label: string, context: ViewContext, vocabulary = false): Html {
  if (!webUrl(iri)) return html`<span class="iri" title="${iri}">${label}</span>`;
  if (iri.startsWith(new URL(context.base).origin + '/')) return html`<a href="${iri}" title="${iri}">${label}</a>`;
  const proxied = html`<a href="${context.base}?uri=${encodeURIComponent(iri)}" title="${iri}">${label}</a>`;
  return vocabulary ? proxied : html`${proxied} <a href="${iri}" class="external" rel="noopener" aria-label="${iri}">↗</a>`;
}

function literal(term: Term & { termType: 'Literal' }, context: ViewContext): Html {
  const datatype = term.datatype?.value ?? `${XSD}string`;
  const value = term.value;
  if (term.language) return html`<span lang="${term.language}" class="literal">${value}</span> <span class="language">${term.language}</span>`;
  if (datatype === `${XSD}dateTime` || datatype === `${XSD}date`) {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) {
      const format = new Intl.DateTimeFormat(context.language, datatype === `${XSD}date` ? { dateStyle: 'long', timeZone: 'UTC' } : { dateStyle: 'long', timeStyle: 'medium', timeZone: 'UTC' });
      return html`<time datetime="${value}">${format.format(date)}${datatype === `${XSD}dateTime` ? ' UTC' : ''}</time>`;
    }
  }
  if ([`${XSD}integer`, `${XSD}decimal`, `${XSD}double`, `${XSD}float`, `${XSD}int`, `${XSD}long`].includes(datatype) && value.trim() !== '' && Number.isFinite(Number(value))) {
    return html`<data value="${value}">${Number(value).toLocaleString(context.language, { maximumFractionDigits: 20 })}</data>`;
  }
  if (datatype === `${XSD}string`) return html`<span class="literal">${value}</span>`;
  if (datatype === `${XSD}boolean`) return html`<span class="literal">${value}</span>`;
  return html`<span class="literal">${value}</span> <span class="datatype" title="${datatype}">${labelOf(datatype, context.language, context.labels)}</span>`;
}
