/**
 * The one read path: what a GET or HEAD of a current document or of a memento answers (headers,
 * validator; the body named by its blob, type and variant, not yet serialised), as pure functions of
 * what is known about the document. The Koa routes (documents.ts, memento.ts) and the read fast
 * path (fast-read.ts) both answer from these, so the two cannot drift apart.
 */
import { LINK_FORMAT, SPARQL_UPDATE } from '../rdf/media-types.js';
import type { Mode } from '../access/access-control.js';
import { LodestoneError } from '../errors.js';
import { withoutPredicate } from '../rdf/canonical-lines.js';
import { ns } from '../rdf/namespaces.js';
import { writableTypes } from '../rdf/formats.js';
import { accessLinks } from './authorize.js';
import { isAdminDataspace } from './dataspace-role.js';
import { contentTypeOf, type Etags } from './representations.js';
import type { DataspaceRuntime } from './state.js';
import { documentIri } from '../rdf/iri.js';

const READ_MODE = `<${ns.acl}Read>; rel="${ns.acl}mode"`;
/** The variant of an agent document that readers other than the agent and its owners get (DESIGN.md, "Access defaults"). */
export const PUBLIC_VIEW = ';public';
const MBOX = ns.foaf + 'mbox';

/** A read of a document or memento, before its preconditions are judged (reply.ts `judge`). */
export interface ReadReply {
  headers: Record<string, string>;
  /** The Content-Type of the representation. */
  contentType: string;
  /** The strong validator. */
  etag: string;
  /** The ETags of the version's other representations (to say why an If-Match failed). */
  others?: () => ReadonlyMap<string, string>;
  /** The representation to send; none for a HEAD that may not read (SPEC §4.6.7). */
  body?: { blobId: string; type: string; variant: string };
}

/** A 406 naming what is offered; `headers` go out with the error (Vary, Link). */
export function notAcceptable(offered: readonly string[] = writableTypes, headers?: Record<string, string>): LodestoneError {
  return new LodestoneError('NotAcceptable', `none of the requested media types is available; available: ${offered.join(', ')}`, headers && { headers });
}

/** An HTTP date, RFC 1123 form: `Sun, 06 Nov 1994 08:49:37 GMT` (zero-padded day). */
export function httpDate(seconds: number): string {
  return new Date(seconds * 1000).toUTCString();
}

/** The Link values every document of a versioned dataspace carries (SPEC §9.1, TimeMap 4). */
export function versionLinks(documentUrl: string): string {
  return `<${documentUrl}?timemap>; rel="timemap"; type="${LINK_FORMAT}", <${documentUrl}?timegate>; rel="timegate"`;
}

/**
 * The `Link` header of every response about a current document: its timemap and timegate (SPEC
 * §9.1) and the agent with the modes it holds (issue 4).
 */
export function documentLinks(runtime: DataspaceRuntime, documentUrl: string, agent: string | undefined, modes: ReadonlySet<Mode> | undefined): string | undefined {
  const links = modes ? accessLinks(agent, modes) : [];
  if (runtime.documents.history) links.unshift(versionLinks(documentUrl));
  return links.length ? links.join(', ') : undefined;
}

/**
 * The variant of the document at `relativePath` that `agent`, holding `modes` there, is shown
 * (DESIGN.md, "Access defaults"; issue 25): an agent document's foaf:mbox only for the agent itself
 * and its owners (the agents holding Control there, the server's owner among them); everyone else,
 * anonymous or not, gets PUBLIC_VIEW, where foaf:mbox_sha1sum stands for it.
 */
export function viewOf(runtime: DataspaceRuntime, relativePath: string, agent: string | undefined, modes: ReadonlySet<Mode>): string {
  if (!isAdminDataspace(runtime) || !relativePath.startsWith('acl/agents/')) return '';
  const itself = agent !== undefined && documentIri(agent) === runtime.documents.url(relativePath);
  return itself || modes.has('Control') ? '' : PUBLIC_VIEW;
}

/** The predicates whose lines `variant` does not show. */
export function hiddenIn(variant: string): string[] {
  return variant === PUBLIC_VIEW ? [MBOX] : [];
}

/** Canonical N-Triples lines as `variant` shows them. */
export function linesInView(ntriples: string, variant: string): string {
  return variant === PUBLIC_VIEW ? withoutPredicate(ntriples, MBOX) : ntriples;
}

export interface CurrentRead {
  runtime: DataspaceRuntime;
  relativePath: string;
  agent: string | undefined;
  /** The modes the agent holds on the document (already authorized). */
  modes: ReadonlySet<Mode>;
  /** The document's blob at HEAD; undefined when there is none. */
  blobId: string | undefined;
  /** The negotiated media type; undefined when nothing offered is acceptable. */
  type: string | undefined;
  etags: Etags;
}

/** GET or HEAD of a current document (SPEC §4.1, §4.6): NotFound, NotAcceptable, or what to send. */
export function currentDocumentReply(read: CurrentRead): ReadReply {
  const { runtime, relativePath, blobId, type } = read;
  const documentUrl = runtime.documents.url(relativePath);
  // Accept-Patch on every read: rdflib.js decides from a GET whether a document is editable
  const headers: Record<string, string> = { Vary: 'Accept', 'Accept-Patch': SPARQL_UPDATE };
  const links = documentLinks(runtime, documentUrl, read.agent, read.modes);
  if (links) headers.Link = links;
  if (!blobId) throw new LodestoneError('NotFound', `there is no document at ${documentUrl}`, { headers });
  if (!type) throw notAcceptable(writableTypes, headers);
  const variant = viewOf(runtime, relativePath, read.agent, read.modes);
  const etag = read.etags.of(documentUrl, blobId, type + variant);
  const others = () => read.etags.otherRepresentations(documentUrl, blobId, type + variant);
  return { headers, contentType: contentTypeOf(type), etag, others, body: { blobId, type, variant } };
}

/**
 * Whether shared caches may keep a memento shown in `variant` (issue 25): only when anonymous agents,
 * holding `anonymousModes` on the document, may read it and are shown that same variant.
 */
export function sharedView(runtime: DataspaceRuntime, relativePath: string, variant: string, anonymousModes: ReadonlySet<Mode>): boolean {
  return anonymousModes.has('Read') && variant === viewOf(runtime, relativePath, undefined, anonymousModes);
}

/** The headers of a memento (SPEC §2.5, §5.5, §8.4); `shared`: what anonymous agents read, else only the asker's own cache keeps it. */
export function mementoHeaders(documentUrl: string, sha: string, time: number, shared: boolean): Record<string, string> {
  return {
    'Memento-Datetime': httpDate(time),
    ETag: `"${sha}"`, // SPEC §2.5: a memento's ETag is its commit SHA
    // SPEC §8.4: mementos never change; a private document's are no shared cache's to keep (RFC 9111 §5.2.2.7)
    'Cache-Control': `${shared ? 'public' : 'private'}, max-age=31536000, immutable`,
    Link: `<${documentUrl}>; rel="original", ${versionLinks(documentUrl)}, ${READ_MODE}`, // only acl:Read
  };
}

/**
 * GET or HEAD of a memento, found at `found` (undefined: NotFound), in `type` (undefined:
 * NotAcceptable), shown in `view.variant` (viewOf), `view.shared` saying whether anonymous agents read it so.
 */
export function mementoReply(documentUrl: string, sha: string, found: { blob: string; time: number } | undefined, type: string | undefined, view: { variant: string; shared: boolean }): ReadReply {
  const vary = { Vary: 'Accept' };
  if (!found) throw new LodestoneError('NotFound', `${documentUrl} did not exist at commit ${sha}, or there is no such commit`, { headers: vary });
  if (!type) throw notAcceptable(writableTypes, vary);
  const { ETag: etag, ...headers } = mementoHeaders(documentUrl, sha, found.time, view.shared);
  return { headers: { Vary: 'Accept', ...headers }, contentType: contentTypeOf(type), etag: etag!, body: { blobId: found.blob, type, variant: view.variant } };
}
