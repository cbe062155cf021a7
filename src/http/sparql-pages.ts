/** The query page of `<base>sparql` for browsers (src/pages/sparql-page.ts draws it; the page drawer, a large answer in a worker). */
import { RESULTS_CSV, RESULTS_JSON, RESULTS_TSV, RESULTS_XML } from '../rdf/media-types.js';
import type { Drawing } from '../pages/draw.js';
import { messages } from '../pages/messages.js';
import { DOCUMENT_FORMATS } from './document-pages.js';
import { frameDataOf, sendPage } from './html.js';
import type { Context } from './state.js';

const RESULT_NAMES: Record<string, string> = {
  [RESULTS_JSON]: 'JSON',
  [RESULTS_XML]: 'XML',
  [RESULTS_CSV]: 'CSV',
  [RESULTS_TSV]: 'TSV',
};

const ROWS_PER_PAGE = 50;
/** An answer larger than this is offered as downloads only. */
const PAGE_ANSWER_BYTES = 4 * 1024 * 1024;

export interface QueryOutcome {
  query: string;
  defaultGraphs: string[];
  namedGraphs: string[];
  /** Whether the answer is a graph (CONSTRUCT, DESCRIBE). */
  graph?: boolean;
  /** The answer: SPARQL results JSON, or N-Triples for a graph. */
  body?: string;
  error?: string;
  /** The status of a failed query's page (default 400). */
  status?: number;
  /** The `version` asked for (the "as of" field), and the commit the answer reflects. */
  version?: string;
  asOf?: { commit: string; time: number };
}

export async function sparqlHtml(ctx: Context, endpoint: string, outcome: QueryOutcome | undefined, formats: readonly string[]): Promise<void> {
  const { served, runtime } = ctx.state;
  const frame = await frameDataOf(ctx);
  const pageNumber = Math.max(1, Number.parseInt(new URLSearchParams(ctx.querystring).get('page') ?? '1', 10) || 1);
  let answer: { select: string } | { graph: string } | undefined;
  let error = outcome?.error;
  if (outcome?.body !== undefined && outcome.body.length > PAGE_ANSWER_BYTES) {
    // too large to read on a page: the downloads still have it all
    error = messages(frame.language).tooLargeToShow(Math.round(outcome.body.length / 1024 / 1024));
  } else if (outcome?.body !== undefined) {
    answer = outcome.graph ? { graph: outcome.body } : { select: outcome.body };
  }
  const named = (type: string) => ({ type, name: RESULT_NAMES[type] ?? DOCUMENT_FORMATS.find((f) => f.type === type)?.name ?? type });
  const drawing: Drawing = {
    page: 'sparql',
    input: {
      frame,
      endpoint,
      query: outcome?.query ?? '',
      defaultGraphs: outcome?.defaultGraphs ?? [],
      namedGraphs: outcome?.namedGraphs ?? [],
      version: outcome?.version ?? '',
      asOf: outcome?.asOf,
      answer,
      formats: formats.map(named),
      page: pageNumber,
      size: ROWS_PER_PAGE,
      error,
      downloadsOnly: error !== undefined && outcome?.error === undefined,
    },
  };
  sendPage(ctx, outcome?.error ? (outcome.status ?? 400) : 200, frame.language, await served.pages.draw(drawing, runtime.labels.current()));
}
