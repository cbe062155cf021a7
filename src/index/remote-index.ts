/**
 * A dataspace's index on a SPARQL server (engine.ts Engine: Oxigraph server, Fuseki, Virtuoso).
 * Its one input is `syncTo(commit)`: the trees of the indexed commit and the target are diffed and
 * the changed documents' graphs replaced, in batches, with whole graphs (so a replay is harmless),
 * or, from a marker at one commit, by the lines changed since it where the engine takes them
 * (graph-change.ts; a graph the engine refused is listed beside the repository and sent whole).
 * Targets that come during a round collapse into the next; each round releases the syncs it reached.
 *
 * The marker, exact after a crash at any point: it names the commit the graphs reflect and, while
 * a sync is under way, the commit it goes to ("<from> <to>"). It is written with the first batch
 * (or before it, by itself, when the engine is not transactional or the sync takes several
 * batches) and set to the target with the last. At start, a marker "<from> <to>" is repaired by
 * replacing every graph that differs from HEAD in either commit. An engine that keeps no marker
 * (keepsMarker false) has it kept here, beside the repository, written before each sync's first
 * batch and after its last. No marker: the dataspace is cleared and loaded by the engine's bulk path.
 *
 * Queries run on the engine side by side (it is multi-threaded): at most `maxQueries` at once and
 * `maxPerHolder` for one agent, so one agent's runaway queries leave room for its own cheap ones
 * and for everyone else's. A query waits for the target at its call (read-your-writes).
 */
import { createHash } from 'node:crypto';
import { LodestoneError, isLodestoneError } from '../errors.js';
import { fileDocument } from '../document-paths.js';
import { firstNonStatementLine } from '../rdf/canonical-lines.js';
import { serialise } from '../rdf/formats.js';
import { RESULTS_JSON, readResults, resultTypes, writeResults } from '../rdf/sparql-results.js';
import { ObjectStore } from '../store/objects.js';
import { TreeCache, diffTrees, type FileDiff } from '../store/trees.js';
import { graphChange } from './graph-change.js';
import { Admission } from './admission.js';
import { IndexFiles } from './index-files.js';
import { engineError, type DataspaceIndex, type Engine, type EngineDataset, type EngineSpace, type GraphReplacement } from './engine.js';
import type { QueryRequest } from './index-core.js';

export interface RemoteIndexOptions {
  engine: Engine;
  id: string;
  gitdir: string;
  prefix: string;
  base: string;
  log?: (line: string) => void;
  onInvalid?: (path: string, message: string) => void;
  /** Graphs per replace request (default 200). */
  batch?: number;
  maxQueries?: number;
  maxPerHolder?: number;
}

/** The marker's text: the commit reflected and, during a sync, the one it goes to ("-" for an empty branch). */
interface Marker {
  at: string | undefined;
  to?: string | undefined;
}
const EMPTY = '-';
/** A graph no engine holds: the dataset of a list that kept nothing. */
const NO_GRAPH = 'urn:x-lodestone:no-graph';
const showMarker = (m: Marker) => [m.at ?? EMPTY, ...('to' in m ? [m.to ?? EMPTY] : [])].join(' ');
function readMarker(text: string): Marker {
  const [at, to] = text.trim().split(/\s+/);
  const commit = (s: string) => (s === EMPTY ? undefined : s);
  return to === undefined ? { at: commit(at!) } : { at: commit(at!), to: commit(to) };
}

export class RemoteIndex implements DataspaceIndex {
  readonly kind: DataspaceIndex['kind'];
  private readonly engine: Engine;
  private readonly space: EngineSpace;
  private readonly objects: ObjectStore;
  private readonly trees: TreeCache;
  private readonly log: (line: string) => void;
  private readonly graphs = new Set<string>();
  private marker: Marker | undefined;
  private readonly files: IndexFiles;
  private opened: Promise<void> | undefined;
  private target: { commit: string | undefined; seq: number } | undefined;
  private reached = 0;
  private running: Promise<void> | undefined;
  /** syncTo and queries waiting for a target (by its number) to be reached. */
  private waiters: Array<{ seq: number; done: (error?: Error) => void }> = [];
  private closed = false;
  private readonly admission: Admission;

  constructor(private readonly options: RemoteIndexOptions) {
    this.engine = options.engine;
    this.kind = options.engine.kind;
    this.space = { id: options.id, base: options.base };
    this.objects = new ObjectStore(options.gitdir);
    this.trees = new TreeCache(this.objects);
    this.files = new IndexFiles(options.gitdir, this.kind);
    const max = options.maxQueries ?? 16;
    this.admission = new Admission(max, options.maxPerHolder ?? Math.max(2, Math.floor(max / 2)));
    this.log = options.log ?? ((line) => console.error(line));
  }

  get indexedCommit(): string | undefined {
    return this.marker && !('to' in this.marker) ? this.marker.at : undefined;
  }

  recordHead(): number {
    return 0; // the sync reads the changed files from the packs itself
  }

  follow(commit: string | undefined): void {
    if (this.closed) return;
    if (!this.target || this.target.commit !== commit) this.target = { commit, seq: (this.target?.seq ?? 0) + 1 };
    this.start();
  }

  async syncTo(commit: string | undefined): Promise<void> {
    this.follow(commit);
    await this.reach(this.target!.seq);
  }

  /** Resolves once the index reflects the target numbered `seq` or a later one: after the round that reaches it, not after the last round of a busy spell. */
  private reach(seq: number): Promise<void> {
    if (this.reached >= seq) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error('the index is closed'));
    const reached = new Promise<void>((resolve, reject) => this.waiters.push({ seq, done: (error) => (error ? reject(error) : resolve()) }));
    this.start();
    return reached;
  }

  /** Runs rounds unless they run; once they stop, again for a waiter that came as they stopped. */
  private start(): void {
    this.running ??= this.run().finally(() => {
      this.running = undefined;
      if (this.waiters.length && !this.closed) this.start();
    });
  }

  /**
   * Syncs to the newest target, round after round, until it is reached; each round releases the
   * waiters it reached. A failure is logged and fails every waiter (the next call tries again).
   */
  private async run(): Promise<void> {
    while (this.target && this.reached < this.target.seq && !this.closed) {
      const { commit, seq } = this.target;
      try {
        await this.open();
        await this.syncOnce(commit);
        this.reached = seq;
        this.settle((waiter) => waiter.seq <= seq);
      } catch (error) {
        this.log(`index (${this.kind}) could not sync to ${commit ?? 'an empty branch'}: ${detailOf(error)}`);
        this.settle(() => true, asEngineError(error));
        return;
      }
    }
    if (this.closed) this.settle(() => true, new Error('the index is closed'));
  }

  private settle(which: (waiter: { seq: number }) => boolean, error?: Error): void {
    const done = this.waiters.filter(which);
    this.waiters = this.waiters.filter((waiter) => !which(waiter));
    for (const waiter of done) waiter.done(error);
  }

  /** Reads the marker once: repairs an interrupted sync, or loads everything when there is none. */
  private open(): Promise<void> {
    this.opened ??= (async () => {
      const found = this.engine.keepsMarker ? await this.engine.open(this.space) : (await this.engine.open(this.space), await this.files.readMarker());
      if (found === undefined || (found !== null && !found.trim())) return this.loadAll(this.target?.commit);
      const marker = readMarker(found ?? EMPTY);
      const files = await this.filesAt(marker.at);
      // a marker kept here may outlive the engine's data (a server started afresh, or in memory)
      if (!this.engine.keepsMarker && !(await this.holds(files))) return this.loadAll(this.target?.commit);
      for (const file of files) this.graphs.add(this.graphName(file.path)!);
      this.marker = marker;
      if ('to' in marker) await this.syncOnce(this.target?.commit); // the repair: both commits' differences
    })().catch((error) => {
      this.opened = undefined;
      throw error;
    });
    return this.opened;
  }

  /** Whether the engine holds the graphs of a few of `files` (the first, the middle and the last that have triples). */
  private async holds(files: FileDiff[]): Promise<boolean> {
    const sample = [...new Set([files[0], files[files.length >> 1], files[files.length - 1]])].filter((f): f is FileDiff => f !== undefined);
    const graphs = (await Promise.all(sample.map((f) => this.replacement(f)))).filter((r) => r.ntriples).map((r) => r.graph);
    if (graphs.length === 0) return true;
    const ask = `ASK { ${graphs.map((g) => `GRAPH <${g}> { ?s${graphs.indexOf(g)} ?p${graphs.indexOf(g)} ?o${graphs.indexOf(g)} }`).join(' ')} }`;
    const answer = await this.engine.query(this.space, ask, { union: true, graphs: () => graphs }, false, AbortSignal.timeout(30_000));
    return answer.kind === 'results' && (JSON.parse(answer.json) as { boolean?: boolean }).boolean === true;
  }

  /** Every document file at `commit`, as differences from an empty tree. */
  private async filesAt(commit: string | undefined): Promise<FileDiff[]> {
    const tree = commit ? (await this.objects.readCommit(commit)).tree : undefined;
    return (await diffTrees(this.trees, undefined, tree, this.options.prefix)).filter((d) => this.graphName(d.path));
  }

  /** Clears the dataspace in the engine and loads `commit` by its bulk path. */
  private async loadAll(commit: string | undefined): Promise<void> {
    const started = Date.now();
    await this.writeMarker({ at: undefined, to: commit }, true);
    await this.engine.clear(this.space);
    this.graphs.clear();
    const files = await this.filesAt(commit);
    const replacement = (file: FileDiff) => this.replacement(file);
    async function* graphs(): AsyncGenerator<GraphReplacement> {
      for (const file of files) yield await replacement(file);
    }
    await this.engine.bulkLoad(this.space, graphs(), showMarker({ at: commit }));
    for (const file of files) if (file.after) this.graphs.add(this.graphName(file.path)!);
    this.marker = { at: commit };
    if (!this.engine.keepsMarker) await this.files.writeMarker(showMarker(this.marker));
    await this.files.loadedWhole();
    this.log(`${this.space.id}: index (${this.kind}) loaded ${files.length} documents from ${commit ?? 'an empty branch'} in ${Date.now() - started} ms`);
  }

  /** Replaces the graphs that differ between the marker's commits and `commit`, then sets the marker to it. */
  private async syncOnce(commit: string | undefined): Promise<void> {
    const marker = this.marker!;
    if (!('to' in marker) && marker.at === commit) return;
    const tree = async (c: string | undefined) => (c ? (await this.objects.readCommit(c)).tree : undefined);
    const target = await tree(commit);
    const changed = new Map<string, FileDiff>();
    for (const from of 'to' in marker ? [marker.at, marker.to] : [marker.at]) {
      for (const diff of await diffTrees(this.trees, await tree(from), target, this.options.prefix)) if (this.graphName(diff.path)) changed.set(diff.path, diff);
    }
    const files = [...changed.values()];
    const size = this.options.batch ?? 200;
    const going: Marker = { at: marker.at, to: commit };
    const several = files.length > size || !this.engine.transactional;
    // from here until the last batch is answered the engine holds one commit's graphs or the other's
    // (a request that failed may yet have been applied): a retry replays from both, whole
    this.marker = going;
    if (several || !this.engine.keepsMarker) await this.writeMarker(going, several);
    // with the marker at one commit, each graph holds its version there: only the changed lines need sending
    const exact = !('to' in marker);
    for (let i = 0; i < files.length || i === 0; i += size) {
      const last = i + size >= files.length;
      const batch = await Promise.all(files.slice(i, i + size).map((file) => this.replacement(file, exact)));
      await this.replaceBatch(batch, showMarker(last ? { at: commit } : going));
    }
    this.marker = { at: commit };
    if (!this.engine.keepsMarker) await this.files.writeMarker(showMarker(this.marker));
  }

  /** Replaces one batch; when the engine refuses a batch as invalid RDF, each graph alone, an invalid one left empty. */
  private async replaceBatch(batch: GraphReplacement[], marker: string): Promise<void> {
    try {
      await this.engine.replace(this.space, batch, marker);
    } catch (error) {
      if (!isLodestoneError(error, 'SyntaxError') || batch.length === 0) throw error;
      for (const one of batch) {
        await this.engine.replace(this.space, [one], marker).catch(async (alone: unknown) => {
          if (!isLodestoneError(alone, 'SyntaxError')) throw alone;
          this.options.onInvalid?.(one.graph, (alone as Error).message);
          await this.files.refuse(one.graph); // before the graph is emptied: its next version is then sent whole
          await this.engine.replace(this.space, [{ graph: one.graph, ntriples: null }], marker);
        });
      }
    }
    for (const { graph, ntriples } of batch) {
      if (ntriples) this.graphs.add(graph);
      else this.graphs.delete(graph);
    }
  }

  private async writeMarker(marker: Marker, inEngine: boolean): Promise<void> {
    if (!this.engine.keepsMarker) return this.files.writeMarker(showMarker(marker));
    if (inEngine) await this.engine.replace(this.space, [], showMarker(marker));
  }

  /**
   * A document's graph and its N-Triples, blank nodes labelled apart per document; with the lines
   * changed since `file.before` too when `exact` (the engine holds that version: graph-change.ts).
   */
  private async replacement(file: FileDiff, exact = false): Promise<GraphReplacement> {
    const graph = this.graphName(file.path)!;
    if (!file.after) return { graph, ntriples: null };
    const ntriples = await this.indexedText(file.after, graph, file.path);
    if (!exact || !file.before || !ntriples || (await this.files.refusedGraphs()).has(graph)) return { graph, ntriples };
    const change = graphChange((await this.indexedText(file.before, graph)) ?? '', ntriples);
    return change ? { graph, ntriples, change } : { graph, ntriples };
  }

  /** A blob's N-Triples as the engine is given them, or null when empty or left out (reported when `path` is given). */
  private async indexedText(blob: string, graph: string, path?: string): Promise<string | null> {
    const text = (await this.objects.readTyped(blob, 'blob')).toString('utf8');
    // the text goes inside an update or a load as it is: a line that is not one whole statement
    // (a file edited by hand) could close the block it is put in and write elsewhere, so it is left out
    const bad = firstNonStatementLine(text);
    if (bad) {
      if (path) this.options.onInvalid?.(path, `line ${bad} is not one N-Triples statement`);
      return null;
    }
    return scopeBlankNodes(text.endsWith('\n') || text === '' ? text : text + '\n', graph) || null;
  }

  private graphName(path: string): string | undefined {
    const relative = fileDocument(path, this.options.prefix);
    return relative === undefined ? undefined : this.options.base + relative;
  }

  async query(request: QueryRequest, timeoutMs: number, holder = 'anonymous'): Promise<string | boolean> {
    if (this.closed) throw new Error('the index is closed');
    if (!this.target) this.follow(undefined);
    const signal = AbortSignal.timeout(timeoutMs);
    const overTime = () => new LodestoneError('QueryTimeout', `the query ran past its ${timeoutMs} ms limit and was stopped`);
    const stop = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(overTime()), { once: true }));
    stop.catch(() => undefined);
    await Promise.race([this.reach(this.target!.seq), stop]);
    await this.admission.acquire(holder, signal).catch(() => {
      throw overTime();
    });
    try {
      const graphResult = !resultTypes.includes(request.format);
      const answer = await this.engine.query(this.space, request.query, this.datasetOf(request), graphResult, signal).catch((error: unknown) => {
        throw signal.aborted ? overTime() : asEngineError(error);
      });
      if (answer.kind === 'graph') return serialise(answer.ntriples, request.format);
      return writeResults(readResults(answer.json, RESULTS_JSON), request.format);
    } catch (error) {
      if (isLodestoneError(error, 'IndexUnavailable')) this.log(`${this.space.id}: index (${this.kind}): ${detailOf(error)}`);
      throw error;
    } finally {
      this.admission.release(holder);
    }
  }

  /**
   * The dataset: the lists given, kept to this dataspace's graphs; else every document of it.
   * (Lodestone's own queries without a dataset use only GRAPH patterns, whose named graphs are the
   * same either way.)
   */
  private datasetOf(request: QueryRequest): EngineDataset {
    // an empty list is a graph that is never written: engines read a missing list as "all graphs" (SPARQL 1.1 Protocol §2.1.4 leaves it to them)
    const ours = (graphs: readonly string[] | undefined) => {
      const kept = (graphs ?? []).filter((g) => g.startsWith(this.options.base) && this.graphs.has(g));
      return kept.length ? kept : [NO_GRAPH];
    };
    if (request.defaultGraphs || request.namedGraphs) return { union: false, defaultGraphs: ours(request.defaultGraphs), namedGraphs: ours(request.namedGraphs) };
    return { union: true, graphs: () => [...this.graphs] };
  }

  /** Clears the dataspace in the engine and loads `commit` again, by the bulk path. */
  async rebuild(commit: string | undefined): Promise<void> {
    await this.running?.catch(() => undefined);
    this.opened = (async () => {
      await this.engine.open(this.space);
      await this.loadAll(commit);
    })();
    await this.opened.catch((error: unknown) => {
      this.opened = undefined;
      throw error;
    });
    await this.syncTo(commit);
  }

  async dump(): Promise<string> {
    await this.reach(this.target?.seq ?? 0);
    return this.engine.dump(this.space);
  }

  /** The triples of the dataspace's graphs, counted by the engine (a dump of millions would not fit a string). */
  async size(): Promise<number> {
    await this.reach(this.target?.seq ?? 0);
    const graphs = this.graphs;
    const answer = await this.engine.query(this.space, 'SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }', { union: true, graphs: () => [...graphs] }, false, AbortSignal.timeout(10 * 60_000));
    const rows = answer.kind === 'results' ? (JSON.parse(answer.json) as { results?: { bindings?: Array<{ n?: { value: string } }> } }).results?.bindings : undefined;
    return Number(rows?.[0]?.n?.value ?? 0);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.running?.catch(() => undefined);
    this.settle(() => true, new Error('the index is closed'));
    await this.engine.close();
    await this.objects.close(); // its packs' file handles
  }
}

/** Relabels blank nodes `_:x` as `_:g<hash of the graph>_x` (the embedded index's labels): one document's blank nodes are its own. */
export function scopeBlankNodes(ntriples: string, graph: string): string {
  if (!ntriples.includes('_:')) return ntriples;
  const scope = `g${createHash('sha1').update(graph).digest('hex').slice(0, 16)}_`;
  return ntriples.replace(/^_:([^\s"<>]+) /gm, `_:${scope}$1 `).replace(/ _:([^\s"<>]+) \.$/gm, ` _:${scope}$1 .`);
}

/** An engine's failure as the client may see it: Lodestone's own errors as they are, anything else a bare 503 (the rest goes to the log). */
function asEngineError(error: unknown): Error {
  return isLodestoneError(error) ? error : engineError(error instanceof Error ? error.message : String(error));
}

function detailOf(error: unknown): string {
  const detail = isLodestoneError(error) ? error.data.detail : undefined;
  return typeof detail === 'string' ? detail : error instanceof Error ? error.message : String(error);
}
