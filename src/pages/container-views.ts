/**
 * The children of a container on its page, in one of four views, each a link that works without
 * scripts: a list; a table of their properties (the most frequent ones unless the reader chose,
 * values drawn as the property table draws them, sortable by a column); a grid of cards with an
 * image (foaf:img, schema:image, foaf:depiction); and a map of those with coordinates (geo:lat and
 * geo:long, or schema:geo's schema:latitude and schema:longitude, on the child or its `#this`),
 * points on a bundled Natural Earth outline (static/world-110m.svg): plain SVG, no tiles, no script.
 */
import type { Quad } from '@rdfjs/types';
import { GraphView, valueOf, type ViewContext } from './graph-view.js';
import { html, webUrl, type Html } from './html.js';
import { labelOf, localName, type Labels } from './labels.js';
import { assetUrls } from './assets.js';
import type { Frame } from './layout.js';
import { parseRdf } from '../rdf/ntriples.js';
import { TITLE_PREDICATES } from '../rdf/namespaces.js';

export type ChildView = 'list' | 'table' | 'grid' | 'map';

export interface ChildList {
  total: number;
  /** Each child with its own lines (about itself, its `#this`, its blank nodes) for the cells. */
  children: readonly { url: string; title?: string; modified?: string; ntriples?: string }[];
  /** `name`: path order (the kept listing); a property: by its value. */
  order: 'newest' | 'title' | 'name' | { property: string };
  /** 1-based. */
  page: number;
  size: number;
  view?: ChildView;
  /** The table's columns the reader chose (none: the most frequent properties). */
  columns?: readonly string[];
  /** When the page answers a search: its words (the children are then the documents found). */
  search?: string;
}

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const GEO = 'http://www.w3.org/2003/01/geo/wgs84_pos#';
const SCHEMAS = ['http://schema.org/', 'https://schema.org/'];
const IMAGES = ['http://xmlns.com/foaf/0.1/img', 'http://xmlns.com/foaf/0.1/depiction', ...SCHEMAS.map((s) => `${s}image`)];
/** What every document says of itself: not worth a column of its own. */
const HOUSEKEEPING = new Set(['http://rdfs.org/sioc/ns#has_parent', 'http://rdfs.org/sioc/ns#has_container', 'http://purl.org/dc/terms/modified', 'http://purl.org/dc/terms/created', 'http://purl.org/dc/terms/creator', 'http://www.w3.org/ns/auth/acl#owner', 'http://xmlns.com/foaf/0.1/primaryTopic', ...TITLE_PREDICATES]);
const DEFAULT_COLUMNS = 4;

type FrameOf = Pick<Frame, 't' | 'language' | 'base'>;

/** One child, parsed: its graph, and the subjects its cells read (itself and its `#this`). */
class ChildData {
  readonly view: GraphView;
  constructor(readonly url: string, ntriples: string) {
    this.view = new GraphView(parseRdf(ntriples));
  }
  /** The values of `predicate` on `#this`, then on the document itself. */
  values(predicate: string): Quad['object'][] {
    return [`<${this.url}#this>`, `<${this.url}>`].flatMap((key) => (this.view.bySubject.get(key) ?? []).filter((q) => q.predicate.value === predicate).map((q) => q.object));
  }
  predicates(): string[] {
    return [...new Set([`<${this.url}#this>`, `<${this.url}>`].flatMap((key) => (this.view.bySubject.get(key) ?? []).map((q) => q.predicate.value)))];
  }
  image(): string | undefined {
    return IMAGES.flatMap((p) => this.values(p)).find((o) => o.termType === 'NamedNode' && webUrl(o.value))?.value;
  }
  /** Latitude and longitude, when the child states them within range. */
  coordinates(): { lat: number; long: number } | undefined {
    const number = (terms: Quad['object'][]) => terms.filter((term) => term.termType === 'Literal' && term.value.trim() !== '').map((term) => Number(term.value)).find((n) => Number.isFinite(n));
    let lat = number(this.values(`${GEO}lat`));
    let long = number(this.values(`${GEO}long`));
    for (const geo of SCHEMAS.flatMap((s) => this.values(`${s}geo`))) {
      if (lat !== undefined && long !== undefined) break;
      const key = geo.termType === 'BlankNode' ? `_:${geo.value}` : `<${geo.value}>`;
      const of = (name: string) => (this.view.bySubject.get(key) ?? []).filter((q) => SCHEMAS.some((s) => q.predicate.value === s + name)).map((q) => q.object);
      lat = number(of('latitude'));
      long = number(of('longitude'));
    }
    if (lat === undefined || long === undefined || Math.abs(lat) > 90 || Math.abs(long) > 180) return undefined;
    return { lat, long };
  }
}

export function childrenSection(list: ChildList, documentUrl: string, frame: FrameOf, labels: Labels): Html {
  const { t, language } = frame;
  const v = t.views;
  const view = list.view ?? 'list';
  const searching = list.search !== undefined;
  const data = list.children.map((c) => new ChildData(c.url, c.ntriples ?? ''));
  const titleOf = (i: number) => list.children[i]!.title ?? data[i]!.view.titleOf(`${list.children[i]!.url}#this`, language) ?? data[i]!.view.titleOf(list.children[i]!.url, language) ?? localName(list.children[i]!.url);
  const modifiedOf = (i: number) => list.children[i]!.modified ?? data[i]!.values('http://purl.org/dc/terms/modified')[0]?.value;
  const pages = Math.max(1, Math.ceil(list.total / list.size));
  const orderKey = typeof list.order === 'object' ? list.order.property : list.order;
  const link = (change: { view?: ChildView; order?: string; page?: number }) => {
    const query = new URLSearchParams({ ...(list.search !== undefined && { search: list.search }), view: change.view ?? view, order: change.order ?? orderKey, page: String(change.page ?? 1) });
    for (const column of (change.view ?? view) === 'table' ? (list.columns ?? []) : []) query.append('col', column);
    return `${documentUrl}?${query.toString()}`;
  };
  const choice = (current: boolean, label: string, href: string) => (current ? html`<strong aria-current="page">${label}</strong>` : html`<a href="${href}">${label}</a>`);
  const located = data.map((d, i) => ({ i, at: d.coordinates() })).filter((p) => p.at !== undefined) as { i: number; at: { lat: number; long: number } }[];
  const views: [ChildView, string][] = [['list', v.list], ['table', v.table], ['grid', v.grid], ...(located.length > 0 || view === 'map' ? [['map', v.map] as [ChildView, string]] : [])];
  const orders: [string, string][] = [['newest', t.newest], ['title', t.byTitle], ['name', v.byName]];
  const date = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
  const time = (i: number) => {
    const modified = modifiedOf(i);
    return modified && !Number.isNaN(Date.parse(modified)) ? html`<time datetime="${modified}">${date.format(new Date(modified))} UTC</time>` : '';
  };
  const context = (i: number): ViewContext => ({ language, t, documentUrl: list.children[i]!.url, base: frame.base, labels });

  let body: Html;
  if (list.children.length === 0) body = html`<p>${searching ? v.noResults : t.noChildren}</p>`;
  else if (view === 'table') body = table(list, data, { titleOf, time, context, link, frame, labels, orderKey, documentUrl });
  else if (view === 'grid') {
    body = html`<ul class="child-grid">${data.map((d, i) => {
      const image = d.image();
      const types = d.values(RDF_TYPE).map((type) => labelOf(type.value, language, labels, d.view.labels));
      return html`<li class="card"><a href="${d.url}">${image ? html`<img src="${image}" alt="" loading="lazy">` : html`<span class="no-image" aria-hidden="true">${titleOf(i).slice(0, 1).toUpperCase()}</span>`}<span class="card-title">${titleOf(i)}</span></a>${types.length > 0 && html`<span class="types">${types.join(', ')}</span>`} ${time(i)}</li>`;
    })}</ul>`;
  } else if (view === 'map') body = map(located, data, titleOf, frame);
  else body = html`<ul class="child-list">${data.map((d, i) => html`<li><a href="${d.url}">${titleOf(i)}</a> ${time(i)}</li>`)}</ul>`;

  return html`<section class="children" aria-labelledby="children-heading">
<h2 id="children-heading">${searching ? v.searchResults(list.search!, list.total) : html`${t.children} <span class="count">(${t.childrenCount(list.total)})</span>`}</h2>
<form class="search-form" role="search" method="get" action="${documentUrl}"><label for="child-search">${v.searchLabel}</label> <input type="search" id="child-search" name="search" value="${list.search ?? ''}" maxlength="200"><input type="hidden" name="view" value="${view}"> <button type="submit">${v.search}</button></form>
<nav class="child-views" aria-label="${v.label}"><p>${v.label}: ${views.map(([name, label], i) => html`${i > 0 ? ' · ' : ''}${choice(view === name, label, link({ view: name }))}`)}</p>
${!searching && html`<p class="order">${v.order}: ${orders.map(([name, label], i) => html`${i > 0 ? ' · ' : ''}${choice(orderKey === name, label, link({ order: name }))}`)}</p>`}</nav>
${body}
${pages > 1 && html`<nav class="pager" aria-label="${t.pageOf(list.page, pages)}">${list.page > 1 && html`<a href="${link({ page: list.page - 1 })}" rel="prev">${t.previous}</a>`} <span>${t.pageOf(list.page, pages)}</span> ${list.page < pages && html`<a href="${link({ page: list.page + 1 })}" rel="next">${t.next}</a>`}</nav>`}
</section>`;
}

interface TableParts {
  titleOf: (i: number) => string;
  time: (i: number) => Html | string;
  context: (i: number) => ViewContext;
  link: (change: { order?: string }) => string;
  frame: FrameOf;
  labels: Labels;
  orderKey: string;
  documentUrl: string;
}

/** The table view: a title column, the chosen (or most frequent) properties, the time; a form that chooses columns. */
function table(list: ChildList, data: ChildData[], parts: TableParts): Html {
  const { frame, labels, orderKey } = parts;
  const { t, language } = frame;
  const frequency = new Map<string, number>();
  for (const d of data) for (const p of d.predicates()) if (!HOUSEKEEPING.has(p)) frequency.set(p, (frequency.get(p) ?? 0) + 1);
  const offered = [...new Set([...(list.columns ?? []), ...[...frequency.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([p]) => p)])].slice(0, 30);
  const columns = list.columns && list.columns.length > 0 ? list.columns : offered.slice(0, DEFAULT_COLUMNS);
  const label = (p: string) => labelOf(p, language, labels, data.find((d) => d.view.labels.has(p))?.view.labels);
  const sortable = (key: string, name: string) => (orderKey === key ? html`<th scope="col" aria-sort="${key === 'newest' ? 'descending' : 'ascending'}">${name}</th>` : html`<th scope="col"><a href="${parts.link({ order: key })}" title="${t.views.sortBy(name)}">${name}</a></th>`);
  return html`<details class="choose-columns"><summary>${t.views.columns}</summary>
<form method="get" action="${parts.documentUrl}"><input type="hidden" name="view" value="table"><input type="hidden" name="order" value="${orderKey}">
<fieldset><legend>${t.views.columns}</legend>${offered.map((p) => html`<label><input type="checkbox" name="col" value="${p}"${columns.includes(p) ? html` checked` : ''}> ${label(p)}</label> `)}</fieldset>
<p><button type="submit">${t.views.showColumns}</button></p></form></details>
<div class="table-scroll"><table class="child-table">
<thead><tr>${sortable('title', t.views.title)}${columns.map((p) => sortable(p, label(p)))}${sortable('newest', t.views.modified)}</tr></thead>
<tbody>${data.map((d, i) => html`<tr><th scope="row"><a href="${d.url}">${parts.titleOf(i)}</a></th>${columns.map((p) => {
    const values = d.values(p);
    return html`<td>${values.map((value, n) => html`${n > 0 ? ', ' : ''}${valueOf(value, p, d.view, parts.context(i), 1)}`)}</td>`;
  })}<td>${parts.time(i)}</td></tr>`)}</tbody></table></div>`;
}

/** The map view: the page's children with coordinates as points on the world, projected equirectangularly (x = long + 180, y = 90 − lat), and listed. */
function map(located: { i: number; at: { lat: number; long: number } }[], data: ChildData[], titleOf: (i: number) => string, frame: FrameOf): Html {
  const { t, language } = frame;
  if (located.length === 0) return html`<p>${t.views.noCoordinates}</p>`;
  const degrees = new Intl.NumberFormat(language, { maximumFractionDigits: 4 });
  return html`<figure class="child-map"><svg viewBox="0 0 360 180" aria-labelledby="child-map-caption">
<image href="${assetUrls(frame.base, 'world-110m.svg')}" width="360" height="180"/>
${located.map(({ i, at }) => html`<a href="${data[i]!.url}" aria-label="${titleOf(i)}"><circle cx="${(at.long + 180).toFixed(2)}" cy="${(90 - at.lat).toFixed(2)}" r="2.2"><title>${titleOf(i)}</title></circle></a>`)}
</svg><figcaption id="child-map-caption">${t.views.mapCaption(located.length)}</figcaption></figure>
<ul class="child-list located">${located.map(({ i, at }) => html`<li><a href="${data[i]!.url}">${titleOf(i)}</a> <span class="coordinates">${degrees.format(at.lat)}°, ${degrees.format(at.long)}°</span></li>`)}</ul>`;
}
