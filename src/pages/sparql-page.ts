/**
 * The query page at `<base>sparql`: the query in an editor (CodeMirror with SPARQL highlighting
 * when scripts run, a plain textarea otherwise), the dataset parameters, and the answer: SELECT as
 * a table a page at a time with a chart of its columns (Chart.js: bar, line, scatter, pie), ASK as
 * a sentence, CONSTRUCT and DESCRIBE as a document view, each downloadable in every result format.
 * An "as of" field (a commit id or a date) sends `version=`: the answer is then the dataspace's as
 * that commit left it, and says which commit and when (issue 30).
 */
import type { Quad } from '@rdfjs/types';
import { GraphView, propertyTable, resourceOrder, termLink, type ViewContext } from './graph-view.js';
import { html, type Html } from './html.js';
import { labelOf, type Labels } from './labels.js';
import { assetUrls } from './assets.js';
import { page, type Frame } from './layout.js';
import { SPARQL_QUERY } from '../rdf/media-types.js';

export interface SparqlResultsJson {
  head: { vars?: string[] };
  results?: { bindings: Record<string, { type: string; value: string; 'xml:lang'?: string; datatype?: string } | undefined>[] };
  boolean?: boolean;
}

export interface SparqlPage {
  frame: Omit<Frame, 'title' | 'kind' | 'breadcrumbs'>;
  endpoint: string;
  query: string;
  defaultGraphs: readonly string[];
  namedGraphs: readonly string[];
  /** The "as of" field as sent (a commit id or a date; empty: now). */
  version: string;
  /** The commit a past answer reflects, and its time (seconds since the epoch). */
  asOf?: { commit: string; time: number };
  /** The labels of the dataspace's pages. */
  labels: Labels;
  /** The answer, when a query ran. */
  answer?: { select: SparqlResultsJson } | { graph: readonly Quad[] };
  /** Download formats of the answer. */
  formats: readonly { type: string; name: string }[];
  /** 1-based page of a SELECT table. */
  page: number;
  size: number;
  /** A query that failed: its message (status 400); or why the answer is not shown. */
  error?: string;
  /** The answer ran but is too large to draw: only the download links are shown. */
  downloadsOnly?: boolean;
}

const EXAMPLE = 'SELECT ?document ?title WHERE {\n  GRAPH ?document { ?s <http://purl.org/dc/terms/title> ?title }\n}\nLIMIT 100';

/** The parameters that ask the page's query again: the query, its dataset and the commit it ran at (not the date: a later commit could take its place). */
function queryParams(input: SparqlPage): URLSearchParams {
  const params = new URLSearchParams({ query: input.query });
  for (const g of input.defaultGraphs) params.append('default-graph-uri', g);
  for (const g of input.namedGraphs) params.append('named-graph-uri', g);
  if (input.asOf) params.set('version', input.asOf.commit);
  return params;
}

function downloadLinks(input: SparqlPage): Html {
  const params = queryParams(input);
  return html`<p class="downloads">${input.frame.t.download} ${input.formats.map((f, i) => {
    const link = new URLSearchParams(params);
    link.set('accept', f.type);
    return html`${i > 0 ? ' · ' : ''}<a href="${input.endpoint}?${link.toString()}" type="${f.type}" download>${f.name}</a>`;
  })}</p>`;
}

function cell(binding: { type: string; value: string; 'xml:lang'?: string; datatype?: string } | undefined, context: ViewContext): Html {
  if (!binding) return html``;
  if (binding.type === 'uri') return termLink(binding.value, labelOf(binding.value, context.language, context.labels), context);
  if (binding.type === 'bnode') return html`<span class="blank">_:${binding.value}</span>`;
  return binding['xml:lang'] ? html`<span lang="${binding['xml:lang']}">${binding.value}</span>` : html`${binding.value}`;
}

function selectTable(input: SparqlPage, results: SparqlResultsJson, context: ViewContext): Html {
  const { t } = input.frame;
  if (results.boolean !== undefined) return html`<p class="ask-result">${results.boolean ? t.askTrue : t.askFalse}</p>`;
  const vars = results.head.vars ?? [];
  const rows = results.results?.bindings ?? [];
  if (rows.length === 0) return html`<p>${t.noResults}</p>`;
  const pages = Math.max(1, Math.ceil(rows.length / input.size));
  const current = Math.min(Math.max(1, input.page), pages);
  const shown = rows.slice((current - 1) * input.size, current * input.size);
  const pageLink = (n: number) => {
    const params = queryParams(input);
    params.set('page', String(n));
    return `${input.endpoint}?${params.toString()}`;
  };
  return html`<p class="count">${t.resultCount(rows.length)}</p>
<div class="table-scroll"><table class="results" id="results-table">
<thead><tr>${vars.map((v) => html`<th scope="col">${v}</th>`)}</tr></thead>
<tbody>${shown.map((row) => html`<tr>${vars.map((v) => html`<td data-value="${row[v]?.value ?? ''}">${cell(row[v], context)}</td>`)}</tr>\n`)}</tbody>
</table></div>
${pages > 1 && html`<nav class="pager" aria-label="${t.pageOf(current, pages)}">${current > 1 && html`<a href="${pageLink(current - 1)}" rel="prev">${t.previous}</a>`} <span>${t.pageOf(current, pages)}</span> ${current < pages && html`<a href="${pageLink(current + 1)}" rel="next">${t.next}</a>`}</nav>`}
${vars.length >= 1 && chartForm(vars, t, input.frame.base)}`;
}

function chartForm(vars: readonly string[], t: Frame['t'], base: string): Html {
  const options = (selected: number) => vars.map((v, i) => html`<option value="${v}"${i === selected ? html` selected` : ''}>${v}</option>`);
  return html`<section class="chart" aria-labelledby="chart-heading"><h2 id="chart-heading">${t.chart}</h2>
<form class="chart-form" data-scripts="${assetUrls(base, 'chart.js')}">
<p><label for="chart-type">${t.chartType}</label> <select id="chart-type" name="type"><option value="bar">${t.chartBar}</option><option value="line">${t.chartLine}</option><option value="scatter">${t.chartScatter}</option><option value="pie">${t.chartPie}</option></select>
<label for="chart-labels">${t.chartLabels}</label> <select id="chart-labels" name="labels">${options(0)}</select>
<label for="chart-values">${t.chartValues}</label> <select id="chart-values" name="values">${options(Math.min(1, vars.length - 1))}</select></p>
<p><button type="submit">${t.drawChart}</button></p>
</form>
<div class="chart-box"><canvas id="chart-canvas" role="img" aria-label="${t.chart}"></canvas></div>
</section>`;
}

function graphView(input: SparqlPage, quads: readonly Quad[], context: ViewContext): Html {
  if (quads.length === 0) return html`<p>${input.frame.t.noResults}</p>`;
  const view = new GraphView(quads);
  return html`<p class="count">${input.frame.t.resultCount(quads.length)}</p>
${resourceOrder(view, context.documentUrl).map(({ key, iri }) => html`<section class="resource"><h3>${iri ? termLink(iri, view.titleOf(iri, context.language) ?? labelOf(iri, context.language, context.labels, view.labels), context) : input.frame.t.blankNode}</h3>${propertyTable(view, key, context)}</section>`)}`;
}

/** Which commit a past answer reflects, and when it was made; a link to the same query now. */
function asOfNote(input: SparqlPage, asOf: { commit: string; time: number }): Html {
  const { t, language } = input.frame;
  const when = new Intl.DateTimeFormat(language, { dateStyle: 'long', timeStyle: 'long', timeZone: 'UTC' }).format(new Date(asOf.time * 1000));
  const now = queryParams(input);
  now.delete('version');
  return html`<p class="as-of" role="note">${t.answerAsOf(when)} <code>${asOf.commit.slice(0, 12)}</code>. <a href="${input.endpoint}?${now.toString()}">${t.askNow}</a></p>`;
}

export function sparqlPage(input: SparqlPage): Html {
  const { t, language } = input.frame;
  const context: ViewContext = { language, t, documentUrl: input.endpoint, base: input.frame.base, labels: input.labels };
  const answer = input.answer;
  const body = html`<h1>${t.sparqlTitle}</h1>
<form class="sparql-form" method="get" action="${input.endpoint}">
<p><label for="query">${t.query}</label></p>
<textarea id="query" name="query" rows="12" spellcheck="false" required data-editor="${SPARQL_QUERY}" data-scripts="${assetUrls(input.frame.base, 'codemirror.js', 'codemirror-sparql.js')}" data-styles="${assetUrls(input.frame.base, 'codemirror.css')}">${input.query || EXAMPLE}</textarea>
<details${input.defaultGraphs.length + input.namedGraphs.length > 0 ? html` open` : ''}><summary>${t.dataset}</summary>
<p><label for="default-graph-uri">${t.defaultGraphs}</label></p>
<textarea id="default-graph-uri" class="graph-list" name="default-graph-uri" rows="2">${input.defaultGraphs.join('\n')}</textarea>
<p><label for="named-graph-uri">${t.namedGraphs}</label></p>
<textarea id="named-graph-uri" class="graph-list" name="named-graph-uri" rows="2">${input.namedGraphs.join('\n')}</textarea>
</details>
<p><label for="version">${t.asOf}</label> <input id="version" name="version" type="text" value="${input.version}" placeholder="2026-01-31, 7a5a760" aria-describedby="version-help" spellcheck="false" autocomplete="off"></p>
<p id="version-help" class="help">${t.asOfHelp}</p>
<p><button type="submit">${t.runQuery}</button></p>
</form>
${input.error && html`<div class="query-error" role="alert"><p>${t.serverMessage(input.error)}</p></div>`}
${input.downloadsOnly && downloadLinks(input)}
${answer && html`<section class="answer" aria-labelledby="answer-heading"><h2 id="answer-heading">${t.results}</h2>
${input.asOf && asOfNote(input, input.asOf)}
${downloadLinks(input)}
${'select' in answer ? selectTable(input, answer.select, context) : graphView(input, answer.graph, context)}
</section>`}`;
  return page({ ...input.frame, title: t.sparqlTitle, kind: 'page-sparql', breadcrumbs: [{ label: t.home, href: input.frame.base }, { label: t.sparqlTitle, href: input.endpoint }]}, body);
}
