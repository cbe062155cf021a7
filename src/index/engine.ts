/**
 * What a dataspace asks of its index, whatever holds it (DataspaceIndex), and what an index on a
 * SPARQL server asks of the server (Engine). The embedded index (index.ts: Oxigraph in query lanes)
 * and the index on a server (remote-index.ts, driving one Engine: engines/*.ts) both have the one
 * input `syncTo(commit)` and answer queries at HEAD or later.
 */
import { LodestoneError } from '../errors.js';
import type { FileDiff } from '../store/trees.js';
import type { QueryRequest } from './index-core.js';

/** The kinds of index a dataspace can have (system.ttl, `serve --index <kind>:<url>`). */
export const INDEX_KINDS = ['embedded', 'oxigraph-server', 'fuseki', 'virtuoso'] as const;
export type IndexKind = (typeof INDEX_KINDS)[number];

/** A dataspace's kind of index, and the server's URL for a kind other than embedded. */
export interface IndexChoice {
  kind: IndexKind;
  endpoint?: string;
}

/**
 * Reads `embedded` or `<kind>:<endpoint URL>` (`serve --index`, `lds:index` in system.ttl); throws
 * a message for `where` (the flag or the file) that lists the kinds.
 */
export function parseIndexChoice(text: string, where: string): IndexChoice {
  const at = text.indexOf(':');
  const kind = (at < 0 ? text : text.slice(0, at)) as IndexKind;
  const endpoint = at < 0 ? undefined : text.slice(at + 1);
  const kinds = `embedded, ${INDEX_KINDS.slice(1).map((k) => `${k}:<URL>`).join(', ')}`;
  if (!INDEX_KINDS.includes(kind)) throw new Error(`${where}: "${text}" is not a kind of index; give one of ${kinds}`);
  if (kind === 'embedded') {
    if (endpoint !== undefined) throw new Error(`${where}: the embedded index takes no URL`);
    return { kind };
  }
  let url: URL | undefined;
  try {
    url = new URL(endpoint ?? '');
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol)) throw new Error(`${where}: ${kind} needs the server's http(s) URL, as in ${kind}:http://127.0.0.1:${DEFAULT_PORTS[kind]}/`);
  return { kind, endpoint: url.href };
}

/** An endpoint URL taken apart: the server's root (no credentials, query or fragment; a path ending in "/") and the user and password it carried. */
export function splitEndpoint(endpoint: string): { root: URL; credentials?: { username: string; password: string } } {
  const root = new URL(endpoint);
  const credentials = root.username || root.password ? { username: decodeURIComponent(root.username), password: decodeURIComponent(root.password) } : undefined;
  root.username = '';
  root.password = '';
  root.search = '';
  root.hash = '';
  if (!root.pathname.endsWith('/')) root.pathname += '/';
  return credentials ? { root, credentials } : { root };
}

/** An endpoint URL as logs and messages show it: without credentials (a Virtuoso URL may carry its user and password). */
export function shownEndpoint(endpoint: string | undefined): string {
  if (!endpoint || !URL.canParse(endpoint)) return String(endpoint);
  return splitEndpoint(endpoint).root.href;
}

const DEFAULT_PORTS: Record<Exclude<IndexKind, 'embedded'>, number> = { 'oxigraph-server': 7878, fuseki: 3030, virtuoso: 8890 };

/** A dataspace's index, as the dataspace and the document service use it. */
export interface DataspaceIndex {
  readonly kind: IndexKind;
  /** The commit the index reflects (undefined before it is loaded, or for an empty branch). */
  readonly indexedCommit: string | undefined;
  /** Records a new HEAD of the store (its tree and the changed files); returns how many files wait to be indexed. */
  recordHead(before: string | undefined, after: string, tree: string, files: readonly FileDiff[]): number;
  /** Makes `commit` the target without waiting: queries from now on run at it or later. */
  follow(commit: string | undefined): void;
  /** Brings the index to `commit`; resolves once it reflects it or a later target. */
  syncTo(commit: string | undefined): Promise<void>;
  /** Runs a query at the target or later; throws QueryTimeout past `timeoutMs`. `holder` names who asks (fairness). */
  query(request: QueryRequest, timeoutMs: number, holder?: string): Promise<string | boolean>;
  /** Throws the index away and builds it again from `commit`. */
  rebuild(commit: string | undefined): Promise<void>;
  /** Every quad of the index as N-Quads, graphs named by document URL (tests, reindex). */
  dump(): Promise<string>;
  /** Triples held. */
  size(): Promise<number>;
  close(): Promise<void>;
}

/** One dataspace as an engine holds it. */
export interface EngineSpace {
  /** The dataspace's short name (its folder). */
  id: string;
  /** Its base URL: every graph of it is named base + a document's relative path. */
  base: string;
}

/** One graph to replace: its new N-Triples (blank nodes already labelled apart per document), or null to drop it. */
export interface GraphReplacement {
  graph: string;
  ntriples: string | null;
  /**
   * Given when the engine's graph holds the previous version exactly (no blank nodes in either):
   * N-Triples lines to delete, then lines to add, that make it `ntriples`. An engine may apply them
   * instead of replacing the graph (fewer triples to parse and index); the lines to add include the
   * kept literals a deletion could take with it where the engine stores literals by value.
   */
  change?: { removed: string; added: string };
}

/**
 * The dataset a query runs over, decided by Lodestone, never by the query: the union of the
 * dataspace's documents as the default graph and each of them as a named graph (`graphs` lists
 * them, for an engine that cannot keep a dataspace's graphs apart by other means), or the lists given.
 */
export type EngineDataset =
  | { union: true; graphs: () => readonly string[] }
  | { union: false; defaultGraphs: readonly string[]; namedGraphs: readonly string[] };

/** Results as the engine gives them, for Lodestone to write in the format asked (rdf/sparql-results.ts, rdf/formats.ts). */
export type EngineAnswer = { kind: 'results'; json: string } | { kind: 'graph'; ntriples: string };

/**
 * A SPARQL server holding dataspaces' indexes. It never sees a query Lodestone has not checked
 * (no SERVICE, no LOAD, no update, no graph outside the dataspace), and it keeps for each
 * dataspace a marker: the commit its graphs reflect.
 */
export interface Engine {
  readonly kind: Exclude<IndexKind, 'embedded'>;
  /**
   * Whether the engine keeps the marker. One that cannot keep it out of every query's sight
   * (Oxigraph: a union default graph spans all of its graphs) leaves it to the index, which keeps
   * it beside the repository (remote-index.ts); `open` then returns undefined and `replace` ignores it.
   */
  readonly keepsMarker: boolean;
  /** Whether one `replace` call is applied whole or not at all (Oxigraph, Fuseki; not Virtuoso). */
  readonly transactional: boolean;
  /**
   * Makes the engine ready to hold `space` (its dataset or reader made if missing); returns the
   * marker found (undefined: none, nothing indexed; null: an empty one). A marker is a short text
   * the index writes and reads (commit ids, `-` for an empty branch); the engine keeps it as it is.
   */
  open(space: EngineSpace): Promise<string | null | undefined>;
  /**
   * Replaces graphs (none: only the marker) and sets the marker: in one transaction where the
   * engine has them (Oxigraph, Fuseki), else graphs first and the marker last (Virtuoso).
   * Replaying the same call is harmless.
   */
  replace(space: EngineSpace, graphs: readonly GraphReplacement[], marker: string): Promise<void>;
  /** Empties the dataspace (its graphs and marker), for a rebuild. */
  clear(space: EngineSpace): Promise<void>;
  /** Loads graphs into an empty dataspace by the engine's bulk path where it has one (else as `replace`), then sets the marker. */
  bulkLoad(space: EngineSpace, graphs: AsyncIterable<GraphReplacement>, marker: string): Promise<void>;
  /** Runs a checked query over `dataset`; `signal` aborts it (the engine is asked to stop where it can). */
  query(space: EngineSpace, query: string, dataset: EngineDataset, graphResult: boolean, signal: AbortSignal): Promise<EngineAnswer>;
  /** Every quad of the dataspace as N-Quads (tests). */
  dump(space: EngineSpace): Promise<string>;
  close(): Promise<void>;
}

/**
 * An engine that failed or did not answer: 503 to the client, which is told only that the index's
 * server is unavailable (where it is, and what it said, are for the log: `detail`).
 */
export function engineError(detail: string): LodestoneError {
  return new LodestoneError('IndexUnavailable', "the SPARQL server that holds this dataspace's index is not available; try again shortly", { detail, retryAfter: 5 });
}
