/**
 * The children of a container (the documents whose `sioc:has_parent` or `sioc:has_container` is
 * it) ordered by a property's value (a table column), a page at a time, with their titles and
 * times, counted: two SPARQL queries on the index (at 100,000 children, seconds: the other orders
 * are kept in memory instead, child-listing.ts),
 * so listing a container with many children costs the thread that answers requests nothing but
 * reading a few rows. Given the documents a viewer may read, both queries run over those only: the
 * count, the order and the pages never tell of a child the viewer cannot read.
 */
import { LodestoneError } from '../errors.js';
import { TITLE_PREDICATES } from '../rdf/namespaces.js';
import type { DocumentService } from './document-service.js';
import { RESULTS_JSON } from '../rdf/media-types.js';

/** By the value of a property of the child or its `#this` (those without one last). Newest first, by title and by name are the kept listing's (child-listing.ts, search.ts). */
export type ChildOrder = { property: string };

export interface Child {
  url: string;
  title: string | undefined;
  modified: string | undefined;
}

const PREFIXES = `PREFIX sioc: <http://rdfs.org/sioc/ns#>
PREFIX dct: <http://purl.org/dc/terms/>
`;
const TITLE_PATH = TITLE_PREDICATES.map((p) => `<${p}>`).join('|');

interface Bindings {
  results: { bindings: Record<string, { value: string } | undefined>[] };
}

export interface ChildrenOptions {
  order: ChildOrder;
  offset: number;
  size: number;
  holder: string | undefined;
  timeoutMs: number;
  /** The documents the viewer may read (undefined: every one, for the owner). */
  readable: readonly string[] | undefined;
}

/** The children of the container at `containerUrl` that the viewer may read, `size` from `offset`, and how many there are. */
export async function childrenOf(documents: DocumentService, containerUrl: string, options: ChildrenOptions): Promise<{ total: number; children: Child[] }> {
  if (/[<>"{}|^`\\\s]/.test(containerUrl)) throw new LodestoneError('BadRequest', `${containerUrl} cannot be named in a query`);
  if (options.readable?.length === 0) return { total: 0, children: [] };
  const head = documents.head();
  // the dataset is the readable documents (SPARQL 1.1 Protocol §2.1.4): GRAPH ?doc ranges over them only
  const dataset = options.readable ? { defaultGraphs: [...options.readable], namedGraphs: [...options.readable] } : {};
  const run = async (query: string) => JSON.parse(String(await documents.query({ query: PREFIXES + query, ...dataset, format: RESULTS_JSON }, head, options.timeoutMs, options.holder))) as Bindings;
  const member = `GRAPH ?doc { ?doc sioc:has_parent|sioc:has_container <${containerUrl}> }`;
  const count = await run(`SELECT (COUNT(DISTINCT ?doc) AS ?n) WHERE { ${member} }`);
  const total = Number(count.results.bindings[0]?.n?.value ?? 0);
  const by = options.order;
  if (!/^https?:\/\/[^<>"{}|^`\\\s]+$/.test(by.property)) throw new LodestoneError('BadRequest', `${by.property} cannot be named in a query`);
  const order = 'ORDER BY (!BOUND(?key)) ?key ?doc';
  const key = `OPTIONAL { GRAPH ?doc { ?k <${by.property}> ?v FILTER(?k = ?doc || STR(?k) = CONCAT(STR(?doc), "#this")) } }`;
  const rows = await run(`SELECT ?doc (SAMPLE(?t) AS ?title) (MAX(?m) AS ?modified) (MIN(?v) AS ?key) WHERE {
  ${member}
  ${key}
  OPTIONAL { GRAPH ?doc { ?doc dct:modified ?m } }
  OPTIONAL { GRAPH ?doc { ?s ${TITLE_PATH} ?t FILTER(?s = ?doc || STR(?s) = CONCAT(STR(?doc), "#this")) } }
} GROUP BY ?doc ${order} LIMIT ${Math.max(0, Math.floor(options.size))} OFFSET ${Math.max(0, Math.floor(options.offset))}`);
  const children = rows.results.bindings.map((b) => ({ url: b.doc!.value, title: b.title?.value, modified: b.modified?.value }));
  return { total, children };
}
