/**
 * A SPARQL query of the past (issue 30): which commit it asks for, `version=` (a commit id, or a
 * date for the query page's "as of" field) or an `Accept-Datetime` header (RFC 7089 §2.1.1), and
 * which graphs the agent may read there. Those are the graphs it may read now (the same rule as a
 * query at HEAD), less any whose document differed then and was not readable by it as it was: a
 * past version is judged by its own owners and types, as a memento is (memento.ts), so whoever
 * holds a URL now holds nothing by that on what an earlier owner wrote there.
 */
import { LodestoneError } from '../errors.js';
import type { PastCommit } from '../documents/past-commits.js';
import type { Readable } from '../documents/readable-urls.js';
import { holds } from './authorize.js';
import { HTTP_DATE } from './memento.js';
import type { Context } from './state.js';

/** The commit a past query runs at, and whether a date named it (the answer then has a Memento-Datetime). */
export interface PastAsk extends PastCommit {
  byDate: boolean;
}

/** An ISO 8601 date, with a time or without (the query page's "as of" field). */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** The past commit the request asks for by `version` (from the query string or the form) or Accept-Datetime; undefined: HEAD. */
export async function pastAsked(ctx: Context, version: string | undefined): Promise<PastAsk | undefined> {
  const { documents } = ctx.state.runtime;
  const text = version?.trim() ?? ''; // an empty "as of" field: now
  // RFC 7089 §4.1: Accept-Datetime asks nothing of a resource without a past (it is ignored there)
  const header = documents.past ? ctx.get('Accept-Datetime').trim() : '';
  if (text === '' && header === '') return undefined;
  if (!documents.past) throw new LodestoneError('NotFound', `${documents.base} is not versioned: it has no past to query`);
  if (text !== '') {
    if (ISO_DATE.test(text)) return { ...(await documents.past.byDate(dateOf(text, `version=${text}`))), byDate: true };
    return { ...(await documents.past.byId(text)), byDate: false };
  }
  // RFC 7089 §2.1.1: an HTTP-date in the IMF-fixdate form
  if (!HTTP_DATE.test(header)) throw new LodestoneError('BadRequest', `Accept-Datetime "${header.slice(0, 64)}" is not an HTTP date such as "Sun, 06 Nov 1994 08:49:37 GMT"`);
  return { ...(await documents.past.byDate(dateOf(header, 'Accept-Datetime'))), byDate: true };
}

function dateOf(text: string, where: string): Date {
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T23:59:59Z` : text); // a day: as of its end
  if (Number.isNaN(date.getTime())) throw new LodestoneError('BadRequest', `${where} is not a date`);
  return date;
}

/**
 * The graphs of `readable` (what the agent may read now) it may read at `commit`: those whose
 * document is the same there as now, and those that differ when their version at `commit` was
 * readable by the agent as it was. Work in proportion to the documents that differ.
 */
export async function readableAt(ctx: Context, readable: Readable, commit: string): Promise<Readable> {
  const { runtime, agent } = ctx.state;
  const differ = await runtime.documents.past!.differing(commit);
  const graphs: string[] = [];
  for (const graph of readable.graphs) {
    const relative = graph.slice(runtime.dataspace.base.length);
    if (!differ.has(relative)) graphs.push(graph);
    else {
      const blob = differ.get(relative);
      if (blob && holds(await runtime.access.modesOn(runtime, relative, agent, { blob }), 'Read')) graphs.push(graph);
    }
  }
  return { key: `${readable.key}\n${commit}`, graphs };
}
