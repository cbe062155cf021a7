/**
 * The derived index of one dataspace: an Oxigraph store with one named graph per document (named
 * by the document URL) and an empty default graph. Its single input is `syncTo(commit)`, which
 * diffs the trees of the indexed commit and the target and replaces only the graphs whose files
 * changed. It always knows which commit it reflects. Runs inside the index worker.
 *
 * Oxigraph's in-memory store keeps the quads a removal took out (its snapshots are versioned), so
 * every replaced graph leaves its old quads behind, and dropping a graph, or querying it, gets
 * slower with each write to it: measured, dropping a 100-quad document rewritten 3,000 times
 * (among four) took 2.5 ms against 0.5 ms in a fresh store, and 16 ms after 12,000 rewrites, with
 * selective queries slowed alike. So once the quads removed since the store was made outnumber the
 * quads it holds (and at least `compactAfter`), the index copies its graphs into a fresh store, a
 * few at a time between the worker's requests, and the copy takes the old store's place.
 */
import { createHash } from 'node:crypto';
import { setImmediate as afterPendingWork } from 'node:timers/promises';
import oxigraph from 'oxigraph';
import { ObjectStore } from '../store/objects.js';
import { fileDocument } from '../document-paths.js';
import { TreeCache, diffTrees } from '../store/trees.js';
import { NQUADS, NTRIPLES } from '../rdf/media-types.js';

export interface IndexConfig {
  gitdir: string;
  prefix: string;
  /** The dataspace base URL; a document's graph name is base + its relative path. */
  base: string;
  /** The fewest removed quads that start a compaction (default 20,000). */
  compactAfter?: number;
  /** How long a compaction copies graphs before it lets the worker's requests in (default 4 ms). */
  compactionSliceMs?: number;
}

export interface SyncReport {
  commit: string | undefined;
  graphsReplaced: number;
  /** Files at the target commit that could not be parsed, with the parser's message. */
  invalid: Array<{ path: string; message: string }>;
}

/**
 * What changed from the commit `from` to the one synced to, sent by the main thread, which has the
 * new blobs in hand: the worker applies it without reading trees or blobs from the packs. It is
 * used only when the index reflects `from`; otherwise the commits' trees are diffed.
 */
export interface SyncDelta {
  from: string | undefined;
  /** The tree of the commit synced to. */
  tree: string;
  /** Each changed file with its new bytes, or null when it was deleted. */
  files: Array<{ path: string; bytes: Uint8Array | null }>;
}

export interface QueryRequest {
  /** The query that runs (the endpoint's: written again from its parse, without FROM). */
  query: string;
  /** The query as the client sent it, for the log line of a query stopped at its limit. */
  asSent?: string;
  /** SPARQL Protocol `default-graph-uri`; with `namedGraphs`, overrides the query's FROM. */
  defaultGraphs?: string[];
  namedGraphs?: string[];
  /** Without a dataset: whether the default graph is the union of the documents (no FROM). */
  unionDefaultGraph?: boolean;
  /** Media type of the result. */
  format: string;
}

const READ_AHEAD = 64;
/** What SPARQL's IRIREF production allows between `<` and `>`. */
const IRIREF = /^[^<>"{}|^`\\\x00-\x20]*$/;

/** A fresh store being filled with the current one's graphs; `copied` are the graphs it has. */
interface Compaction {
  store: oxigraph.Store;
  copied: Set<string>;
  /** Quads removed from the fresh store (graphs replaced after they were copied). */
  removed: number;
}

export class IndexCore {
  private current = new oxigraph.Store();
  private readonly objects: ObjectStore;
  private readonly trees: TreeCache;
  private commit: string | undefined;
  private tree: string | undefined;
  /** Quads in each document's graph (counted as lines), their sum, and the quads removed since the store was made. */
  private readonly quads = new Map<string, number>();
  private held = 0;
  private removed = 0;
  private compaction: Compaction | undefined;
  /** Compactions finished (for tests). */
  compactions = 0;

  constructor(private readonly config: IndexConfig) {
    this.objects = new ObjectStore(config.gitdir);
    this.trees = new TreeCache(this.objects);
  }

  get store(): oxigraph.Store {
    return this.current;
  }

  get indexedCommit(): string | undefined {
    return this.commit;
  }

  graphName(path: string): string | undefined {
    const relative = fileDocument(path, this.config.prefix);
    return relative === undefined ? undefined : this.config.base + relative;
  }

  async syncTo(commit: string | undefined, delta?: SyncDelta): Promise<SyncReport> {
    const report: SyncReport = { commit, graphsReplaced: 0, invalid: [] };
    if (commit === this.commit) return report;
    const initial = this.commit === undefined;
    if (delta && commit !== undefined && delta.from === this.commit) {
      for (const file of delta.files) this.replaceGraph(file.path, file.bytes, initial, report);
      this.commit = commit;
      this.tree = delta.tree;
      this.compactIfDue();
      return report;
    }
    const tree = commit ? (await this.objects.readCommit(commit)).tree : undefined;
    const diffs = await diffTrees(this.trees, this.tree, tree, this.config.prefix);
    for (let i = 0; i < diffs.length; i += READ_AHEAD) {
      const slice = diffs.slice(i, i + READ_AHEAD);
      const blobs = await Promise.all(slice.map((d) => (d.after ? this.objects.readTyped(d.after, 'blob') : null)));
      slice.forEach((diff, j) => this.replaceGraph(diff.path, blobs[j]!, initial, report));
    }
    this.commit = commit;
    this.tree = tree;
    this.compactIfDue();
    return report;
  }

  /** Replaces the graph of the document in file `path` with `bytes` (null: empties it). */
  private replaceGraph(path: string, bytes: Uint8Array | null, initial: boolean, report: SyncReport): void {
    const name = this.graphName(path);
    if (!name) return;
    const graph = oxigraph.namedNode(name);
    const buffer = bytes && (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    const loaded = fillGraph(this.current, graph, buffer, !initial, initial);
    if (typeof loaded === 'string') report.invalid.push({ path, message: loaded });
    const before = this.quads.get(name) ?? 0;
    const after = typeof loaded === 'number' ? loaded : 0;
    this.removed += before;
    this.held += after - before;
    if (after) this.quads.set(name, after);
    else this.quads.delete(name);
    const compaction = this.compaction;
    if (compaction) {
      // the fresh store takes the change too, and the graph needs no copying from then on
      const copied = compaction.copied.has(name);
      if (copied) compaction.removed += before;
      fillGraph(compaction.store, graph, buffer, copied, false);
      compaction.copied.add(name);
    }
    report.graphsReplaced++;
  }

  /** Starts a compaction once the removed quads outnumber the held ones (see the module comment). */
  private compactIfDue(): void {
    if (this.compaction || this.removed < Math.max(this.held, this.config.compactAfter ?? 20_000)) return;
    const compaction: Compaction = { store: new oxigraph.Store(), copied: new Set(), removed: 0 };
    this.compaction = compaction;
    void this.compact(compaction);
  }

  /**
   * Copies every graph into the compaction's store, letting the worker's pending requests in every
   * few milliseconds (they read and change the current store meanwhile, and replaceGraph keeps the
   * fresh one up to date), then puts the fresh store in the current one's place.
   */
  private async compact(compaction: Compaction): Promise<void> {
    let slice = performance.now();
    for (const name of [...this.quads.keys()]) {
      if (this.compaction !== compaction) return;
      if (compaction.copied.has(name)) continue;
      copyGraph(this.current, compaction.store, oxigraph.namedNode(name));
      compaction.copied.add(name);
      if (performance.now() - slice >= (this.config.compactionSliceMs ?? 4)) {
        await afterPendingWork();
        slice = performance.now();
      }
    }
    if (this.compaction !== compaction) return;
    const old = this.current;
    this.current = compaction.store;
    this.removed = compaction.removed;
    this.compaction = undefined;
    this.compactions++;
    // at once, not when the small wrapper object is collected (free is there, not in the typings)
    (old as oxigraph.Store & { free(): void }).free();
  }

  /** Gives up a compaction under way (the core is being replaced). */
  stop(): void {
    this.compaction = undefined;
  }

  /**
   * Runs a query. Without a dataset in the request, a query without FROM sees the union of the
   * documents as its default graph; `default-graph-uri` / `named-graph-uri` replace the dataset
   * (and with only `default-graph-uri`, GRAPH patterns match nothing: SPEC §4.4.3).
   */
  query(request: QueryRequest): string | boolean {
    const options: Parameters<oxigraph.Store['query']>[1] = { results_format: request.format };
    if (request.defaultGraphs || request.namedGraphs) {
      options.default_graph = (request.defaultGraphs ?? []).map((g) => oxigraph.namedNode(g));
      options.named_graphs = (request.namedGraphs ?? []).map((g) => oxigraph.namedNode(g));
    } else if (request.unionDefaultGraph) {
      options.use_default_graph_as_union = true;
    }
    return this.current.query(request.query, options) as string | boolean;
  }

  /** Every quad of the index as N-Quads (for tests and `lodestone reindex`). */
  dump(): string {
    return this.current.dump({ format: NQUADS });
  }
}

function hashLabel(value: string): string {
  return createHash('sha1').update(value).digest('hex').slice(0, 16);
}

/**
 * Empties `graph` in `store` (when `clear`), then loads `bytes` into it; returns the quads loaded
 * (counted as lines), or the parser's message, the graph left empty.
 */
function fillGraph(store: oxigraph.Store, graph: oxigraph.NamedNode, bytes: Buffer | null, clear: boolean, bulk: boolean): number | string {
  if (clear) clearGraph(store, graph);
  if (!bytes) return 0;
  try {
    loadGraph(store, bytes, graph, bulk);
    return countLines(bytes);
  } catch (error) {
    clearGraph(store, graph);
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Empties one document's graph. DROP GRAPH runs inside Oxigraph (measured: 0.4–2 ms for 100
 * quads, against 7–12 ms for matching and deleting them one by one through JavaScript objects);
 * a name SPARQL cannot write between angle brackets takes the slow way.
 */
function clearGraph(store: oxigraph.Store, graph: oxigraph.NamedNode): void {
  if (IRIREF.test(graph.value)) store.update(`DROP SILENT GRAPH <${graph.value}>`);
  else for (const quad of store.match(null, null, null, graph)) store.delete(quad);
}

/**
 * Loads one document. Blank node labels are scoped to a document (the canonical `_:c14n0` of two
 * documents are different nodes), so documents with blank nodes are relabelled per graph.
 */
function loadGraph(store: oxigraph.Store, bytes: Buffer, graph: oxigraph.NamedNode, bulk: boolean): void {
  if (bytes.indexOf('_:') < 0) {
    store.load(bytes, { format: NTRIPLES, to_graph_name: graph, no_transaction: bulk });
    return;
  }
  const scope = `g${hashLabel(graph.value)}_`;
  const quads = oxigraph.parse(bytes, { format: NTRIPLES });
  const scoped = (term: oxigraph.Term) => (term.termType === 'BlankNode' ? oxigraph.blankNode(scope + term.value) : term);
  for (const q of quads) {
    store.add(oxigraph.quad(scoped(q.subject) as oxigraph.Quad['subject'], q.predicate, scoped(q.object) as oxigraph.Quad['object'], graph));
  }
}

/**
 * Copies one graph from `from` into `to`, which does not have it yet: as N-Triples when it has no
 * blank nodes (Oxigraph's loader would give them new labels), quad by quad otherwise.
 */
function copyGraph(from: oxigraph.Store, to: oxigraph.Store, graph: oxigraph.NamedNode): void {
  const text = from.dump({ format: NTRIPLES, from_graph_name: graph });
  if (!text.includes('_:')) to.load(text, { format: NTRIPLES, to_graph_name: graph, no_transaction: true });
  else for (const quad of from.match(null, null, null, graph)) to.add(quad);
}

/** Lines of a file, a last one without its line feed included: at least 1 unless it is empty. */
function countLines(bytes: Buffer): number {
  let lines = bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? 1 : 0;
  for (let at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10, at + 1)) lines++;
  return lines;
}
