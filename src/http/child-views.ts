/**
 * What a container's page shows of its children (pages/container-views.ts draws it): the view
 * (`?view=list|table|grid|map`), the order (`?order=newest|title|name|<property IRI>`), the table's
 * columns (`?col=<IRI>`, repeated) and the page, all read from the query so every view is a link.
 * `?search=` lists instead the documents below whose titles or labels match (documents/search.ts).
 * Only children the viewer may read are counted, ordered and shown; each comes with its own
 * triples (about itself, its `#this` and its blank nodes, as the viewer is shown them) for the cells.
 */
import { childrenOf } from '../documents/children.js';
import type { ChildList, ChildView } from '../pages/container-views.js';
import { linesOf } from '../rdf/canonical-lines.js';
import { linesInView, viewOf } from './document-read.js';
import type { Context } from './state.js';

const VIEWS: readonly ChildView[] = ['list', 'table', 'grid', 'map'];
/** Children per page, by view: a map is read at a glance, so it holds more. */
const SIZES: Record<ChildView, number> = { list: 20, table: 20, grid: 24, map: 200 };
/** At most this many lines of a child are sent to its cells (a child may hold 20,000 triples). */
const LINES_PER_CHILD = 200;
const WEB_IRI = /^https?:\/\/[^<>"{}|^`\\\s]+$/;
const NONE: ReadonlySet<never> = new Set();

/** The lines of `ntriples` a child's cells draw from: about the child, its `#this`, its blank nodes. */
function cellLines(ntriples: string, url: string): string {
  const own = [`<${url}> `, `<${url}#this> `, '_:'];
  return linesOf(ntriples).filter((line) => own.some((start) => line.startsWith(start))).slice(0, LINES_PER_CHILD).map((line) => `${line}\n`).join('');
}

/** The children of the container at `documentUrl` as its page shows them. */
export async function childList(ctx: Context, documentUrl: string): Promise<ChildList> {
  const { runtime, agent, served } = ctx.state;
  const { documents } = runtime;
  const query = new URLSearchParams(ctx.querystring);
  const view = VIEWS.find((v) => v === query.get('view')) ?? 'list';
  const asked = query.get('order') ?? 'newest';
  const order: ChildList['order'] = asked === 'title' || asked === 'name' ? asked : WEB_IRI.test(asked) ? { property: asked } : 'newest';
  const columns = query.getAll('col').filter((c) => WEB_IRI.test(c)).slice(0, 12);
  const size = SIZES[view];
  const pageNumber = Math.max(1, Math.min(1_000_000, Number.parseInt(query.get('page') ?? '1', 10) || 1));
  const offset = (pageNumber - 1) * size;
  const readable = await runtime.access.readableGraphs(runtime, agent);
  const search = (query.get('search') ?? '').trim().slice(0, 200);
  let found: { total: number; children: { url: string; title?: string; modified?: string }[] };
  if (search !== '') {
    // the titles of this container's documents, at any depth (of the whole dataspace from the root)
    const { total, results } = await documents.titles.search(documentUrl.slice(documents.base.length), search, offset, size, readable);
    found = { total, children: results.map((r) => ({ url: documents.url(r.path), title: r.title })) };
  } else if (typeof order === 'string') {
    // path order is the kept listing's own (documents/child-listing.ts): a slice, whatever the size;
    // newest first and by title, a sort of it kept until the next commit (documents/search.ts)
    const relative = documentUrl.slice(documents.base.length);
    const arrange = order === 'name' ? undefined : await documents.titles.arrangement(order);
    await documents.children.ready();
    const page = documents.children.page(relative, offset, size, readable, true, arrange);
    found = { total: page.total!, children: page.paths.map((path) => ({ url: documents.url(path) })) };
  } else {
    // by a column: the index sorts (documents/children.ts)
    found = await childrenOf(documents, documentUrl, { order, offset, size, holder: agent, timeoutMs: served.sparqlTimeoutMs, readable: readable?.graphs });
  }
  const children = await Promise.all(
    found.children.map(async (child) => {
      const path = child.url.slice(documents.base.length);
      const read = await documents.read(path);
      // as the viewer would be shown the child's own page (an agent's e-mail only to itself and its owners)
      const ntriples = read ? cellLines(linesInView(read.bytes.toString('utf8'), viewOf(runtime, path, agent, NONE)), child.url) : '';
      return { url: child.url, title: child.title, modified: child.modified, ntriples };
    }),
  );
  return { total: found.total, children, order, page: pageNumber, size, view, columns, ...(search !== '' && { search }) };
}
