/**
 * The document operations of one dataspace, below HTTP: reads, and writes as read-check-write
 * steps under the dataspace's write lock (SPEC §4.6.8), so that exactly one of several writers
 * quoting one ETag wins. Built-in constraints (SPEC §7): the root cannot be deleted, the owner's and
 * secretary's agent documents cannot be modified or deleted, a document is created only under an
 * existing container, and a container with children cannot be deleted.
 */
import type { Dataspace } from '../dataspace.js';
import { agentIdentity } from '../dataspace.js';
import { LodestoneError } from '../errors.js';
import { blobObject } from '../store/objects.js';
import { documentSegments, parentDocumentPath } from '../store/paths.js';
import { composeDocument, type ComposeInput } from './compose.js';
import { isContainerGraph, timestamp } from './metadata.js';
import { validateUpdate } from './patch.js';

export type WriteMethod = 'PUT' | 'POST' | 'PATCH' | 'DELETE';

export interface WriteRequest {
  method: WriteMethod;
  /** Canonical relative path of the document (`a/b/`, `` for the root). */
  relativePath: string;
  /** The writing agent's WebID, or undefined for anonymous. */
  agent: string | undefined;
  /** PUT and POST: the request body and its media type. */
  body?: { text: string; mediaType: string };
  /** PATCH: the SPARQL update. */
  update?: string;
  /** Called under the lock with the current blob id (undefined: absent); throws to refuse. */
  precondition(current: string | undefined): void;
  /** Replace the graph with the body whatever the method (restoring an earlier version). */
  replace?: boolean;
  /** A second paragraph for the commit message (the first line is always `<METHOD> <url>`). */
  note?: string;
}

export interface WriteResult {
  status: 'created' | 'replaced' | 'updated' | 'deleted';
  /** The new blob id; undefined after a delete. */
  blobId: string | undefined;
  commit: string | undefined;
}

export const READ_ONLY_ALLOW = 'GET, HEAD, OPTIONS';
export const ROOT_ALLOW = 'GET, HEAD, PUT, POST, PATCH, OPTIONS';

export interface DocumentServiceOptions {
  /** Relative paths of documents that cannot be modified or deleted (owner, secretary). */
  protectedPaths?: Iterable<string>;
  clock?: () => Date;
  /** Where composeDocument runs: the composer worker in a server, in-process by default. */
  compose?: (input: ComposeInput) => Promise<Buffer>;
}

export class DocumentService {
  private readonly protectedPaths: Set<string>;
  private readonly clock: () => Date;
  private readonly compose: (input: ComposeInput) => Promise<Buffer>;

  constructor(
    readonly dataspace: Dataspace,
    options: DocumentServiceOptions = {},
  ) {
    this.protectedPaths = new Set(options.protectedPaths ?? []);
    this.clock = options.clock ?? (() => new Date());
    this.compose = options.compose ?? composeDocument;
  }

  protect(relativePath: string): void {
    this.protectedPaths.add(relativePath);
  }

  url(relativePath: string): string {
    return this.dataspace.base + relativePath;
  }

  /** The current document's canonical N-Triples bytes, with its blob id. */
  read(relativePath: string): Promise<{ blobId: string; bytes: Buffer } | undefined> {
    return this.dataspace.read(relativePath);
  }

  /** The blob id of a document at HEAD, without reading it. */
  blobId(relativePath: string): string | undefined {
    return this.dataspace.store.blobId(this.dataspace.fileOf(relativePath));
  }

  async write(request: WriteRequest): Promise<WriteResult> {
    const { method, relativePath } = request;
    if (method === 'PATCH') validateUpdate(request.update ?? '', this.url(relativePath));
    const segments = documentSegments(relativePath);
    const path = this.dataspace.fileOf(relativePath);
    const url = this.url(relativePath);
    if (this.protectedPaths.has(relativePath)) {
      throw new LodestoneError('MethodNotAllowed', 'the owner’s and the secretary’s agent documents cannot be modified or deleted', { allow: READ_ONLY_ALLOW });
    }
    if (method === 'DELETE' && segments.length === 0) {
      throw new LodestoneError('MethodNotAllowed', 'the root document cannot be deleted', { allow: ROOT_ALLOW });
    }
    const parentPath = parentDocumentPath(relativePath);
    const parentUrl = parentPath === undefined ? undefined : this.url(parentPath);
    const { commit, result } = await this.dataspace.store.transact<Omit<WriteResult, 'commit'>>(async (view) => {
      const current = view.blobId(path);
      if (current === undefined && method !== 'PUT' && !request.replace) throw new LodestoneError('NotFound', `there is no document at ${url}`);
      request.precondition(current);
      const now = timestamp(this.clock());
      const author = agentIdentity(request.agent);
      const message = `${method} ${url}${request.note ? `\n\n${request.note}` : ''}`;
      if (method === 'DELETE') {
        if (view.hasFilesUnder(path.slice(0, -3))) {
          throw new LodestoneError('Conflict', `${url} is a container that still has documents; delete them first`);
        }
        return { intent: { changes: [{ path, bytes: null }], author, message }, result: { status: 'deleted' as const, blobId: undefined } };
      }
      if (current === undefined && parentPath !== undefined) {
        const parent = await view.read(this.dataspace.fileOf(parentPath));
        if (!parent || !isContainerGraph(parent.toString('utf8'), parentUrl!)) {
          throw new LodestoneError('ConstraintViolation', `the parent container ${parentUrl} does not exist; a document can only be created in an existing container`, { parent: parentUrl });
        }
      }
      const existing = current === undefined ? undefined : (await view.read(path))!.toString('utf8');
      // a restore (POST with a whole earlier version) replaces the graph, as a PUT does
      const composeMethod = request.replace ? 'PUT' : method;
      const bytes = await this.compose({ method: composeMethod, url, parentUrl, existing, body: request.body, update: request.update, agent: request.agent, now });
      const status = current === undefined ? ('created' as const) : method === 'PUT' ? ('replaced' as const) : ('updated' as const);
      return { intent: { changes: [{ path, bytes }], author, message }, result: { status, blobId: blobObject(bytes).id } };
    });
    return { ...result, commit };
  }
}
