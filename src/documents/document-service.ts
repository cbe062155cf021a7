/**
 * The document operations of one dataspace, below HTTP: reads, and writes as read-check-write
 * steps under the dataspace's write lock (SPEC §4.6.8), so that exactly one of several writers
 * quoting one ETag wins. Built-in constraints (SPEC §7): the root cannot be deleted, the owner's and
 * secretary's agent documents cannot be modified or deleted, a document is created only under an
 * existing container, and a container with children cannot be deleted. Ontology constraints
 * (SPEC §2.5), when the service is given a validator, check the composed document before it goes in.
 */
import type { Dataspace } from '../dataspace.js';
import { agentIdentity } from '../dataspace.js';
import { LodestoneError } from '../errors.js';
import type { QueryRequest } from '../index/index-core.js';
import { literalObject } from '../rdf/canonical-lines.js';
import { ns } from '../rdf/namespaces.js';
import { RESULTS_JSON } from '../rdf/media-types.js';
import { boundNesting } from '../rdf/sparql-text.js';
import { documentSegments, parentDocumentPath } from '../document-paths.js';
import { composeInProcess, labelDeeply, type ComposeInput } from './compose.js';
import { DocumentHistory, type BlameRunner } from './history.js';
import { PastCommits } from './past-commits.js';
import { Undo } from './undo.js';
import { ChildListing } from './child-listing.js';
import { TitleSearch } from './search.js';
import { ChangeRequests } from './change-requests.js';
import { ChangeRequestComments } from './change-request-comments.js';
import type { BranchWorkRunner } from './branch-work.js';
import type { WriteRequest, WriteResult } from './writes.js';
import { branchName } from '../store/branches.js';
import type { Transaction } from '../store/git-store.js';

export type { WriteMethod, WriteRequest, WriteResult } from './writes.js';
import { isContainerGraph, timestamp } from './metadata.js';
import { describedSha1, uploadBlobPath, uploadRefusal } from './upload-layout.js';

export const READ_ONLY_ALLOW = 'GET, HEAD, OPTIONS';
export const ROOT_ALLOW = 'GET, HEAD, PUT, POST, PATCH, OPTIONS';

export interface DocumentServiceOptions {
  /** Relative paths of documents that cannot be modified or deleted (owner, secretary). */
  protectedPaths?: Iterable<string>;
  clock?: () => Date;
  /** Where composeDocument runs: the composer's workers in a server (composer.ts), in-process by default. */
  compose?: (input: ComposeInput) => Promise<Buffer>;
  /** Canonical bytes of N-Triples whose blank nodes may need deep labelling (a revert's documents): the labelling pool in a server, in process by default. */
  label?: (ntriples: string, what: string) => Promise<Buffer>;
  /** Where blame runs: the `blame` pool in a server (history.ts), in process by default. */
  blame?: BlameRunner;
  /** Where a change request's diffs and merges run: the `branches` pool in a server (change-requests.ts), in process by default. */
  branchWork?: BranchWorkRunner;
  /** Ontology constraints (SPEC §2.5, §7): throws to refuse a document's new canonical bytes; none by default. */
  validate?: (url: string, bytes: Buffer) => Promise<void>;
}

import { repositoryStatus, type RepositoryStatus } from './repository-status.js';
import { objectsSince, packObjects } from '../store/head-pack.js';
export type { QueryRequest } from '../index/index-core.js';

export class DocumentService {
  /** The dataspace's base URL, ending in '/'. */
  readonly base: string;
  /** The documents' history, when the dataspace is versioned (SPEC §9.1). */
  readonly history: DocumentHistory | undefined;
  /** Restores of whole containers and reverts of commits, when the dataspace is versioned (undo.ts). */
  readonly undo: Undo | undefined;
  /** The commits a query of the past may name, when the dataspace is versioned (issue 30). */
  readonly past: PastCommits | undefined;
  /** Every container's children, kept in path order (a page of a large container is a slice). */
  readonly children: ChildListing;
  /** The titles and labels of every document, kept for search. */
  readonly titles: TitleSearch;
  /** Branches' changes against the main branch, and their merges (issue 30). */
  readonly changeRequests: ChangeRequests;
  /** The comment threads of change requests (issue 30). */
  readonly comments: ChangeRequestComments;
  private readonly protectedPaths: ReadonlySet<string>;
  private readonly clock: () => Date;
  private readonly compose: (input: ComposeInput) => Promise<Buffer>;
  private readonly validate: ((url: string, bytes: Buffer) => Promise<void>) | undefined;
  /** dct:modified by document and blob id: a blob never changes. */
  private readonly modifiedOf = new Map<string, string | undefined>();

  constructor(
    readonly dataspace: Dataspace,
    options: DocumentServiceOptions = {},
  ) {
    this.base = dataspace.base;
    this.history = dataspace.versions && new DocumentHistory(dataspace, dataspace.versions, this, options.blame);
    const history = this.history;
    this.past = history && new PastCommits(dataspace.store, dataspace.base, (sha) => history.commit(sha));
    this.children = new ChildListing(dataspace.store, dataspace.base);
    this.changeRequests = new ChangeRequests(dataspace, options.branchWork);
    this.comments = new ChangeRequestComments(dataspace);
    this.titles = new TitleSearch(dataspace.store, dataspace.base, async (query, timeoutMs) => String(await this.query({ query, format: RESULTS_JSON }, this.head(), timeoutMs, undefined)));
    this.protectedPaths = new Set(options.protectedPaths ?? []);
    this.clock = options.clock ?? (() => new Date());
    this.compose = options.compose ?? composeInProcess;
    this.undo = this.past && new Undo(dataspace, { past: this.past, url: (path) => this.url(path), refusal: (path, method) => this.refusal(path, method), clock: this.clock, canonical: options.label ?? labelDeeply });
    this.validate = options.validate;
  }

  url(relativePath: string): string {
    return this.dataspace.base + relativePath;
  }

  /** The current document's canonical N-Triples bytes, with its blob id. */
  read(relativePath: string): Promise<{ blobId: string; bytes: Buffer } | undefined> {
    return this.dataspace.read(relativePath);
  }

  /** The bytes of a blob of the repository (a document's version on a branch, say). */
  blob(id: string): Promise<Buffer> {
    return this.dataspace.store.readBlob(id);
  }

  /** Where the document is kept, for messages to the people who keep the repository: `graphs/a/b.nt in <dir>`. */
  fileOf(relativePath: string): string {
    return `${this.dataspace.fileOf(relativePath)} in ${this.dataspace.store.dir}`;
  }

  /** The blob id of a document at HEAD, without reading it. */
  blobId(relativePath: string): string | undefined {
    return this.dataspace.store.blobId(this.dataspace.fileOf(relativePath));
  }

  /** The git directory of the repository the documents are kept in (served to replicas: http/git-http.ts). */
  get repository(): string {
    return this.dataspace.store.gitdir;
  }

  /**
   * HEAD once it is not `after`: at once when it already differs, else at the next commit, or as it
   * is after `ms` or when `signal` aborts (a replica's question, held open: http/git-http.ts).
   */
  headAfter(after: string | undefined, ms: number, signal: AbortSignal): Promise<string | undefined> {
    const store = this.dataspace.store;
    if (store.head !== after || signal.aborted) return Promise.resolve(store.head);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        store.off('head', done);
        signal.removeEventListener('abort', done);
        resolve(store.head);
      };
      const timer = setTimeout(done, ms);
      store.on('head', done);
      signal.addEventListener('abort', done);
    });
  }

  /**
   * What a replica holding `after` lacks to reach `head`, as a pack stream of whole objects, and
   * the number of commits in it; undefined when git's own fetch should bring it (store/head-pack.ts).
   */
  async headPack(after: string, head: string): Promise<{ commits: number; pack: Buffer } | undefined> {
    const objects = await objectsSince(this.dataspace.store, head, after);
    if (!objects) return undefined;
    return { commits: objects.filter((o) => o.type === 'commit').length, pack: await packObjects(objects) };
  }

  /** How the repository and the index stand now (the status resource). */
  status(): Promise<RepositoryStatus> {
    return repositoryStatus(this.dataspace);
  }

  /**
   * The commit an answer about one document names (issue 29, `Lodestone-Commit`): the last that
   * changed its file (the version log knows those made before the store opened), so that a reader of
   * a public document learns nothing of the writes to others. It is HEAD or one of its ancestors: a
   * replica holding it holds the document as answered.
   */
  commitOf(relativePath: string): string | undefined {
    const file = this.dataspace.fileOf(relativePath);
    const last = this.dataspace.store.lastChange(file);
    if (last.sinceOpen) return last.commit;
    return this.dataspace.versions?.of(file).at(-1)?.commit ?? last.commit;
  }

  /** The commit the documents are at (undefined for an empty branch). */
  head(): string | undefined {
    return this.dataspace.store.head;
  }

  /**
   * Runs a SPARQL query over the documents at `head` or later (the index is told to follow it
   * first, so a client reads its own writes), within `timeoutMs`, on a lane `holder` may take;
   * given `at`, over the documents as that past commit left them (issue 30).
   */
  query(request: QueryRequest, head: string | undefined, timeoutMs: number, holder: string | undefined, at?: string): Promise<string | boolean> {
    if (at !== undefined) return this.dataspace.queryAt(request, at, timeoutMs, holder);
    this.dataspace.index.follow(head);
    return this.dataspace.index.query(request, timeoutMs, holder);
  }

  /** The document's dct:modified, read from its file without a parse (cached per version). */
  async modified(relativePath: string): Promise<string | undefined> {
    const blobId = this.blobId(relativePath);
    if (!blobId) return undefined;
    const key = `${relativePath}\n${blobId}`;
    if (!this.modifiedOf.has(key)) {
      const bytes = await this.dataspace.store.readBlob(blobId);
      if (this.modifiedOf.size > 50_000) this.modifiedOf.clear();
      this.modifiedOf.set(key, literalObject(bytes.toString('utf8'), this.url(relativePath), ns.dct + 'modified'));
    }
    return this.modifiedOf.get(key);
  }

  /**
   * The built-in constraint (SPEC §7) that refuses `method` on the document whoever asks, or
   * undefined: pages offer only what would not be refused so.
   */
  refusal(relativePath: string, method: WriteRequest['method']): LodestoneError | undefined {
    if (this.protectedPaths.has(relativePath)) {
      return new LodestoneError('MethodNotAllowed', 'the owner’s and the secretary’s agent documents cannot be modified or deleted', { allow: READ_ONLY_ALLOW });
    }
    if (method === 'DELETE' && relativePath === '') {
      return new LodestoneError('MethodNotAllowed', 'the root document cannot be deleted', { allow: ROOT_ALLOW });
    }
    return undefined;
  }

  /** Whether the document is a container that holds documents at HEAD (a DELETE of it is refused, SPEC §7). */
  hasChildren(relativePath: string): boolean {
    return this.dataspace.store.hasFilesUnder(this.dataspace.fileOf(relativePath).slice(0, -3));
  }

  /**
   * SPEC §4.6.8: read, change in memory, write back. The change is composed off the write lock
   * (parsing, a PATCH's WHERE, blank-node labelling: work whose cost the request decides), against
   * the document as HEAD has it; under the lock the write goes in only if the document is still
   * that version, else the preconditions are checked again and the change composed again. So a
   * costly request holds up no other writer, and exactly one of several writers quoting one ETag wins.
   */
  async write(request: WriteRequest): Promise<WriteResult> {
    const { method, relativePath } = request;
    if (method === 'PATCH') boundNesting(request.update ?? '', 'the update', 'InvalidUpdate'); // before a worker parses it
    documentSegments(relativePath); // a malformed path is refused first
    const path = this.dataspace.fileOf(relativePath);
    const url = this.url(relativePath);
    const refused = this.refusal(relativePath, method);
    if (refused) throw refused;
    const parentPath = parentDocumentPath(relativePath);
    const parentUrl = parentPath === undefined ? undefined : this.url(parentPath);
    const author = agentIdentity(request.agent);
    const message = `${method} ${url}${request.note ? `\n\n${request.note}` : ''}`;
    const described = describedSha1(relativePath);
    const blobPath = described === undefined ? undefined : uploadBlobPath(this.dataspace.store.prefix, described);
    const admissible = (current: string | undefined, blobThere: boolean) => {
      if (current === undefined && method !== 'PUT' && !request.replace) throw new LodestoneError('NotFound', `there is no document at ${url}`);
      const refusedForUploads = uploadRefusal(relativePath, current === undefined, blobThere, request.attach !== undefined);
      if (refusedForUploads) throw refusedForUploads;
      request.conditions?.check(current);
    };
    const { store, branches } = this.dataspace;
    const branch = request.branch === undefined ? undefined : branchName(request.branch, store.branch);
    const transact = <T>(run: Transaction<T>) => (branch === undefined ? store.transact(run) : branches.transact(branch, run));
    for (;;) {
      // on a branch, its files as its HEAD has them (the main branch's before its first write)
      const files = branch === undefined ? store.listFiles() : ((await branches.files(branch)) ?? store.listFiles());
      const composedOn = files.get(path);
      admissible(composedOn, blobPath !== undefined && files.get(blobPath) !== undefined); // refused before any work when it would be refused under the lock
      const bytes = method === 'DELETE' ? null : await this.composeOn(request, composedOn, url, parentUrl);
      if (bytes !== null && request.maxBytes !== undefined && bytes.length > request.maxBytes) {
        throw new LodestoneError('TooLarge', `${url} would hold ${bytes.length} bytes as N-Triples; this writer may leave it ${request.maxBytes} bytes at most`);
      }
      if (bytes !== null && this.validate) await this.validate(url, bytes); // off the lock too
      const { commit, result, blobIds } = await transact<Omit<WriteResult, 'commit' | 'blobId'> | 'moved'>(async (view) => {
        const current = view.blobId(path);
        if (current !== composedOn) {
          admissible(current, blobPath !== undefined && view.blobId(blobPath) !== undefined);
          return { result: 'moved' as const }; // written meanwhile, and still admissible: composed again
        }
        if (bytes === null) {
          if (view.hasFilesUnder(path.slice(0, -3))) {
            throw new LodestoneError('Conflict', `${url} is a container that still has documents; delete them first`);
          }
          // an uploaded file goes with its description (uploads.ts)
          const changes = [{ path, bytes: null }, ...(blobPath === undefined ? [] : [{ path: blobPath, bytes: null }])];
          return { intent: { changes, author, message }, result: { status: 'deleted' as const } };
        }
        if (current === undefined && parentPath !== undefined) {
          const parent = await view.read(this.dataspace.fileOf(parentPath));
          if (!parent || !isContainerGraph(parent.toString('utf8'), parentUrl!)) {
            throw new LodestoneError('ConstraintViolation', `the parent container ${parentUrl} does not exist; a document can only be created in an existing container`, { parent: parentUrl });
          }
        }
        const status = current === undefined ? ('created' as const) : method === 'PUT' ? ('replaced' as const) : ('updated' as const);
        return { intent: { changes: [{ path, bytes }, ...(request.attach ?? [])], author, message }, result: { status } };
      });
      if (result !== 'moved') return { ...result, blobId: blobIds.get(path) ?? undefined, commit }; // the store hashed the bytes
    }
  }

  /** The document's new canonical bytes, composed from its version `blobId` (undefined: absent). */
  private async composeOn(request: WriteRequest, blobId: string | undefined, url: string, parentUrl: string | undefined): Promise<Buffer> {
    const existing = blobId === undefined ? undefined : (await this.dataspace.store.readBlob(blobId)).toString('utf8');
    // a restore (POST with a whole earlier version) replaces the graph, as a PUT does
    const method = request.replace ? 'PUT' : (request.method as ComposeInput['method']);
    return this.compose({ method, url, parentUrl, existing, body: request.body, update: request.update, agent: request.agent, readable: request.readable, now: timestamp(this.clock()) });
  }
}
