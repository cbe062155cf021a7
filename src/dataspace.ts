/**
 * One dataspace's storage, assembled: the git store (truth), the index worker (derived, fed only
 * by `syncTo` on every new HEAD), the working tree and the watcher. Document-level reads and writes
 * here take relative document paths (`a/b/`) and RDF graphs; HTTP concerns live above.
 */
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import type { Quad } from '@rdfjs/types';
import type { DataspaceIndex, IndexChoice } from './index/engine.js';
import { engineFor } from './index/engines.js';
import { Index } from './index/index.js';
import type { QueryRequest } from './index/index-core.js';
import { RemoteIndex } from './index/remote-index.js';
import { canonicalBytes, type CanonicalLimits } from './rdf/canonical.js';
import type { DiskClient } from './store/disk.js';
import { Branches } from './store/branches.js';
import { CommentThreads } from './store/comment-threads.js';
import { GitStore, type Identity } from './store/git-store.js';
import { documentFile } from './document-paths.js';
import { VersionLog } from './store/version-log.js';
import { ANONYMOUS, WorkingTree } from './store/worktree.js';
import { Watcher } from './watch/watcher.js';

/** When the index follows new commits without being asked (a query syncs it first anyway). */
export interface IndexLag {
  /** Once no new HEAD has come for this long... */
  quietMs: number;
  /** ...or once the oldest HEAD it does not reflect is this old, while commits keep coming... */
  maxMs: number;
  /** ...or once this many documents have changed since the last sync (a query waits for no more). */
  maxDocuments: number;
}

const defaultIndexLag: IndexLag = { quietMs: 50, maxMs: 1000, maxDocuments: 64 };

export interface DataspaceDescription {
  id: string;
  base: string;
  branch: string;
  prefix: string;
}

export function descriptionFile(gitdir: string): string {
  return join(gitdir, 'lodestone', 'dataspace.json');
}

export interface DataspaceOptions {
  /** On a read replica: the primary whose copy this is (no write is made here; store/git-store.ts). */
  followerOf?: string;
  /** Short name, used for its folder and in logs. */
  id: string;
  /** Base URL, ending in '/'. */
  base: string;
  /** The repository's working tree. */
  dir: string;
  prefix?: string;
  branch?: string;
  /** Watch the working tree and the branch for changes made by people and git clients. */
  watch?: boolean;
  limits?: CanonicalLimits;
  log?: (line: string) => void;
  /** Serve the history through Memento (SPEC §9.1); the default bootstrap versions the end-user dataspace. */
  versioned?: boolean;
  indexLag?: Partial<IndexLag>;
  /** Where files edited by people get deep blank-node labelling (the composer's pool in a server). */
  labelDeep?: (ntriples: string, what: string) => Promise<Buffer>;
  /** Ontology constraints on files edited by people, those found at start included (the namespace ontology of an end-user dataspace's pair). */
  validate?: (url: string, bytes: Buffer) => Promise<void>;
  /** Replicas of the index that SPARQL queries run on, each in its own worker (default 1; see src/index/index.ts). */
  queryLanes?: number;
  /** An embedded index starts its lanes at its first query rather than as the dataspace opens (src/index/index.ts `onFirstUse`). */
  indexOnFirstUse?: boolean;
  /** Where the index lives: embedded (the default), or a SPARQL server (src/index/engine.ts). */
  index?: IndexChoice;
  /** The SPARQL timeout, for a server that takes its own (Fuseki, Virtuoso). */
  queryTimeoutMs?: number;
  /** Lanes that may start beside them while queries are slow (default 1), and when a query is slow (default 500 ms). */
  extraQueryLanes?: number;
  slowQueryMs?: number;
  /** The disk worker's client the server shares between dataspaces; without it the store builds its own. */
  disk?: DiskClient;
}

/** The git identity of an agent: its WebID as the name, an e-mail on an `.invalid` domain. */
export function agentIdentity(webId: string | undefined): Identity {
  if (!webId) return ANONYMOUS;
  return { name: webId, email: `${createHash('sha1').update(webId).digest('hex').slice(0, 16)}@webid.lodestone.invalid` };
}

export class Dataspace {
  readonly id: string;
  readonly base: string;
  readonly store: GitStore;
  /** Drafts of the dataspace, as branches of its repository (DESIGN "Branches"). */
  readonly branches: Branches;
  /** The comment threads of the branches' change requests (refs/lodestone/comments/<name>). */
  readonly commentThreads: CommentThreads;
  readonly index: DataspaceIndex;
  readonly workingTree: WorkingTree;
  readonly versions: VersionLog | undefined;
  private watcher: Watcher | undefined;
  private readonly limits: CanonicalLimits | undefined;
  private indexing: Promise<void> = Promise.resolve();
  private closing = false;
  private indexTimer: NodeJS.Timeout | undefined;
  /** When the first HEAD the index does not reflect came, and the last one. */
  private unindexedSince = 0;
  private lastHead = 0;
  private readonly log: (line: string) => void;
  private readonly indexLag: IndexLag;
  /** The embedded index past queries run on when the dataspace's own is on a SPARQL server (queryAt). */
  private pastIndex: Index | undefined;

  private constructor(options: DataspaceOptions, store: GitStore) {
    this.id = options.id;
    this.base = options.base;
    this.store = store;
    this.branches = new Branches(store);
    this.commentThreads = new CommentThreads(store);
    this.limits = options.limits;
    const log = (this.log = options.log ?? ((line: string) => console.error(line)));
    this.indexLag = { ...defaultIndexLag, ...options.indexLag };
    const onInvalid = (path: string, message: string) => log(`${options.id}: ${path} is not valid N-Triples and is not indexed: ${message}`);
    const choice = options.index ?? { kind: 'embedded' };
    this.index =
      choice.kind === 'embedded'
        ? new Index({
            gitdir: store.gitdir,
            prefix: store.prefix,
            base: options.base,
            lanes: options.queryLanes,
            extraLanes: options.extraQueryLanes,
            slowAfterMs: options.slowQueryMs,
            onFirstUse: options.indexOnFirstUse,
            log: (line) => log(`${options.id}: ${line}`),
            onInvalid,
            cachedBlob: (id) => store.cachedBlob(id),
          })
        : new RemoteIndex({ engine: engineFor(choice.kind, choice.endpoint!, options.queryTimeoutMs), id: options.id, gitdir: store.gitdir, prefix: store.prefix, base: options.base, log, onInvalid });
    this.workingTree = new WorkingTree({ store, base: options.base, log, labelDeep: options.labelDeep, validate: options.validate, takeCommits: options.watch === true });
    this.versions = options.versioned ? new VersionLog(store) : undefined;
    // The index follows HEAD once a burst of commits pauses (and at least every second, or every
    // 64 changed documents, during a long one) rather than once per commit: a document rewritten
    // many times in the burst is replaced in the index once, and the writes leave more CPU to
    // reads. Queries sync first, so they always see HEAD.
    store.on('head', (change) => {
      const pending = this.index.recordHead(change.before, change.after, change.tree, change.files);
      this.lastHead = performance.now();
      if (pending >= this.indexLag.maxDocuments) return this.syncIndex();
      if (this.indexTimer) return;
      this.unindexedSince = this.lastHead;
      this.scheduleIndexSync(Math.min(this.indexLag.quietMs, this.indexLag.maxMs));
    });
  }

  private scheduleIndexSync(delay: number): void {
    this.indexTimer = setTimeout(() => {
      const wait = Math.min(this.lastHead + this.indexLag.quietMs, this.unindexedSince + this.indexLag.maxMs) - performance.now();
      if (wait > 1) this.scheduleIndexSync(wait);
      else this.syncIndex();
    }, delay);
  }

  /** Brings the index to HEAD in the background; a failure is logged (one that comes of closing is not). */
  private syncIndex(): void {
    clearTimeout(this.indexTimer);
    this.indexTimer = undefined;
    this.indexing = this.index.syncTo(this.store.head).catch((error) => {
      if (!this.closing) this.log(`${this.id}: index: ${(error as Error).message}`);
    });
  }

  static async open(options: DataspaceOptions): Promise<Dataspace> {
    const store = await GitStore.open({ dir: options.dir, prefix: options.prefix, branch: options.branch, disk: options.disk, followerOf: options.followerOf });
    // How this repository is served, for tools that open it without the server (`lodestone reindex`).
    const description: DataspaceDescription = { id: options.id, base: options.base, branch: store.branch, prefix: store.prefix };
    await fsp.writeFile(descriptionFile(store.gitdir), JSON.stringify(description, null, 2) + '\n');
    const dataspace = new Dataspace(options, store);
    // a repository made by an earlier version, or by hand, may be open to the host's other users
    if (((await fsp.stat(store.dir)).mode & 0o077) !== 0) dataspace.log(`${options.id}: ${store.dir} may be entered by other users of this host, and it holds every document, private ones too: chmod 700 it`);
    // The index loads in its worker while the server starts and answers: a query waits for it
    // (queries follow HEAD), a document read or write does not need it.
    dataspace.syncIndex();
    await dataspace.versions?.build();
    await dataspace.workingTree.reconcile();
    if (options.watch) {
      const log = dataspace.log;
      dataspace.watcher = new Watcher({
        store,
        workingTree: dataspace.workingTree,
        log,
        onReindexRequest: async () => {
          const started = Date.now();
          await dataspace.index.rebuild(store.head);
          log(`${options.id}: index rebuilt from ${store.head ?? 'an empty branch'} in ${Date.now() - started} ms`);
        },
      });
      await dataspace.watcher.start();
      await store.refresh(); // a commit made while the watcher was starting
    }
    return dataspace;
  }

  fileOf(relativePath: string): string {
    return documentFile(relativePath, this.store.prefix);
  }

  /** The current canonical bytes of a document and their blob id, or undefined. */
  read(relativePath: string): Promise<{ blobId: string; bytes: Buffer } | undefined> {
    return this.store.read(this.fileOf(relativePath));
  }

  /** Replaces a document's graph; resolves to the commit, or undefined when nothing changed. */
  async put(relativePath: string, graph: readonly Quad[], agent?: string, method = 'PUT'): Promise<string | undefined> {
    const path = this.fileOf(relativePath);
    const bytes = await canonicalBytes(graph, this.limits);
    return this.store.write({ changes: [{ path, bytes }], author: agentIdentity(agent), message: `${method} ${this.base}${relativePath}` });
  }

  async delete(relativePath: string, agent?: string): Promise<string | undefined> {
    const path = this.fileOf(relativePath);
    return this.store.write({ changes: [{ path, bytes: null }], author: agentIdentity(agent), message: `DELETE ${this.base}${relativePath}` });
  }

  /** Resolves when the index, the working tree and the watcher have caught up with everything so far. */
  async settled(): Promise<void> {
    await this.watcher?.idle();
    await this.store.refresh();
    await this.indexing;
    await this.index.syncTo(this.store.head);
    await this.workingTree.idle();
    await this.versions?.idle();
  }

  /**
   * Runs a query over the documents as the past commit `at` left them (issue 30): on the embedded
   * index's lanes (index.ts moves one there by tree diff); for an index on a SPARQL server, on an
   * embedded index of its own, made at the first such query, one lane kept at the last commit asked.
   */
  queryAt(request: QueryRequest, at: string, timeoutMs: number, holder: string | undefined): Promise<string | boolean> {
    if (this.index instanceof Index) return this.index.query(request, timeoutMs, holder, at);
    this.pastIndex ??= new Index({ gitdir: this.store.gitdir, prefix: this.store.prefix, base: this.base, lanes: 1, extraLanes: 0, log: (line) => this.log(`${this.id} (past queries): ${line}`) });
    this.pastIndex.follow(at);
    return this.pastIndex.query(request, timeoutMs, holder, at);
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.pastIndex?.close();
    clearTimeout(this.indexTimer);
    await this.watcher?.close();
    this.workingTree.close();
    await this.workingTree.idle();
    await this.versions?.idle();
    await this.index.close();
    await this.store.close();
  }
}
