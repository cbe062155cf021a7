/**
 * The pages of documents and of their history (src/pages/ draws them): a current document (with
 * the editor for agents with Write, the children of a container), a memento with its banner, the
 * TimeMap, and a comparison of two versions. Each is answered where the RDF of the same URL is,
 * once negotiation chose HTML; access was decided before, as for the RDF. Document pages are drawn
 * by the page drawer (page-drawer.ts: kept once drawn, large ones in a worker) from what they show.
 */
import { JSONLD, NQUADS, NTRIPLES, RDFXML, SPARQL_UPDATE, TRIG } from '../rdf/media-types.js';
import type { Mode } from '../access/access-control.js';
import type { Version } from '../documents/history.js';
import { childList } from './child-views.js';
import type { Drawing, FrameData } from '../pages/draw.js';
import { diffPage, timemapPage } from '../pages/history-page.js';
import { JSONLD_COMPACTED, TURTLE, writableTypes } from '../rdf/formats.js';
import { firstLines, hasTriple, objectIris } from '../rdf/canonical-lines.js';
import { ns, RDF_TYPE } from '../rdf/namespaces.js';
import { holds } from './authorize.js';
import { documentLinks, linesInView, viewOf } from './document-read.js';
import { frameDataOf, frameOf, namesOf, sendPage } from './html.js';
import type { Context } from './state.js';
import type { PageFacts } from './read-caches.js';
import type { LodestoneError } from '../errors.js';
import { sendError } from './error-middleware.js';
import { isAdminDataspace } from './dataspace-role.js';
import { UPLOADS } from '../documents/upload-layout.js';
import { toHttpError } from './http-error.js';
import { instanceFormsOf, propertyChoicesOf } from './instance-forms.js';

const FORMAT_NAMES: Record<string, string> = {
  [TURTLE]: 'Turtle',
  [NTRIPLES]: 'N-Triples',
  [RDFXML]: 'RDF/XML',
  [JSONLD]: 'JSON-LD',
  [JSONLD_COMPACTED]: 'JSON-LD',
  [NQUADS]: 'N-Quads',
  [TRIG]: 'TriG',
};

/** Every RDF format a document is served in, named for people. */
export const DOCUMENT_FORMATS = [...writableTypes, JSONLD_COMPACTED].filter((type) => FORMAT_NAMES[type]).map((type) => ({ type, name: FORMAT_NAMES[type]!, ...(type === JSONLD_COMPACTED ? { note: 'compacted' as const } : {}) }));

/** A page draws at most this many triples of a document (2 MiB of N-Triples hold ~20,000): drawing all would hold the thread that answers everyone. */
const TRIPLES_PER_PAGE = 3_000;

/** The triples a page draws (canonical lines are sorted, so a subject's triples stay together), and how many there are when that is not all. */
function shownTriples(ntriples: string): { ntriples: string; truncated?: { shown: number; total: number } } {
  return firstLines(ntriples, TRIPLES_PER_PAGE);
}

/** What a page of a document is drawn from besides its data: who looks, with which modes, in which language, at which URL. */
function keyOf(frame: FrameData, agent: string | undefined, modes: ReadonlySet<Mode>, ...more: string[]): string {
  return [frame.url, frame.language, agent ?? '', frame.visitor.name ?? '', frame.visitor.certificate ? 'certificate' : '', frame.visitor.admin ? 'admin' : '', frame.sitemap ? 'sitemap' : '', [...modes].sort().join(' '), frame.visitor.providers.join(' '), ...more].join('\n');
}

/** Where the page of `relativePath` offers `agent` to upload a file: `<base>uploads/` on the root's page and its own, to agents with Append there; else undefined. */
export async function uploadTarget(ctx: Context, relativePath: string): Promise<string | undefined> {
  const { runtime, agent } = ctx.state;
  if ((relativePath !== '' && relativePath !== UPLOADS) || isAdminDataspace(runtime)) return undefined;
  return (await runtime.access.modesOn(runtime, UPLOADS, agent)).has('Append') ? runtime.documents.url(UPLOADS) : undefined;
}

/** What the page of the document at `documentUrl` takes from its text in `view` (kept per blob: read-caches.ts PageFacts). */
function pageFactsOf(ctx: Context, documentUrl: string, view: string, document: { blobId: string; bytes: Buffer }): PageFacts {
  const { served, runtime } = ctx.state;
  const key = `${documentUrl}\n${document.blobId}\n${view}`;
  const kept = served.caches.pageFacts.get(key);
  if (kept) return kept;
  const text = linesInView(document.bytes.toString('utf8'), view);
  const shown = shownTriples(text);
  const facts = { text, container: documentUrl === runtime.documents.base || hasTriple(text, documentUrl, RDF_TYPE, ns.dh + 'Container'), shown, named: objectIris(shown.ntriples) };
  served.caches.pageFacts.put(key, facts);
  return facts;
}

/** The page of the current document at `relativePath` (authorized: the agent holds `modes`). */
export async function documentHtml(ctx: Context, relativePath: string, modes: ReadonlySet<Mode>, document: { blobId: string; bytes: Buffer }): Promise<void> {
  const { runtime, agent, served } = ctx.state;
  const documentUrl = runtime.documents.url(relativePath);
  const { text, container, shown, named } = pageFactsOf(ctx, documentUrl, viewOf(runtime, relativePath, agent, modes), document);
  const { documents } = runtime;
  // what the server would refuse whoever asks is not offered (SPEC §7: the root is never deleted, the owner's and secretary's agent documents never changed)
  const write = holds(modes, 'Write') && !documents.refusal(relativePath, 'PATCH');
  const remove = !write || documents.refusal(relativePath, 'DELETE') ? 'refused' : documents.hasChildren(relativePath) ? 'not-empty' : 'offered';
  const children = container ? await childList(ctx, documentUrl) : undefined;
  const names = await namesOf(ctx, named);
  // the page echoes only what it reads of the query (a container's order and page): any other query string is the same page
  const instanceForms = children && holds(modes, 'Append') ? await instanceFormsOf(ctx) : undefined;
  const frame = await frameDataOf(ctx, children ? { ...(children.search !== undefined && { search: children.search }), view: children.view ?? 'list', order: typeof children.order === 'object' ? children.order.property : children.order, page: String(children.page), ...(instanceForms?.chosen ? { forClass: instanceForms.chosen.iri } : {}) } : {});
  const links = documentLinks(runtime, documentUrl, agent, modes);
  if (links) ctx.set('Link', links);
  ctx.set('Accept-Patch', SPARQL_UPDATE);
  // kept by everything it is drawn from: the blob, the children shown, who looks, how
  const uploadTo = await uploadTarget(ctx, relativePath);
  const key = keyOf(frame, agent, modes, document.blobId, remove, JSON.stringify(names), children ? JSON.stringify(children) : '', uploadTo ?? '');
  const drawing: Drawing = {
    page: 'document',
    input: {
      frame,
      documentUrl,
      ...shown,
      formats: DOCUMENT_FORMATS,
      modes: { write, append: holds(modes, 'Append'), delete: remove },
      names,
      // the editor writes Turtle, so it quotes the Turtle representation's ETag
      etag: write ? served.etags.of(documentUrl, document.blobId, TURTLE) : undefined,
      turtle: write ? (await served.representations.get(document.blobId, TURTLE, () => text)).toString('utf8') : undefined,
      children,
      uploadTo,
      versioned: runtime.documents.history !== undefined,
      instanceForms,
      propertyChoices: write ? await propertyChoicesOf(ctx) : undefined,
    },
  };
  sendPage(ctx, 200, frame.language, await served.pages.draw(drawing, runtime.labels.current(), key));
}

/** The page of a memento: the document as it was, with the banner; restore for agents with Write (`modes`: those held on the document now). */
export async function mementoHtml(ctx: Context, relativePath: string, modes: ReadonlySet<Mode>, found: { commit: string; time: number; blob: string }, bytes: Buffer): Promise<void> {
  const { runtime, agent, served } = ctx.state;
  const documentUrl = runtime.documents.url(relativePath);
  const frame = await frameDataOf(ctx, { version: found.commit });
  const write = holds(modes, 'Write');
  const current = runtime.documents.blobId(relativePath);
  const { shown, named } = pageFactsOf(ctx, documentUrl, viewOf(runtime, relativePath, agent, modes), { blobId: found.blob, bytes });
  const names = await namesOf(ctx, named);
  const drawing: Drawing = {
    page: 'document',
    input: {
      frame,
      documentUrl,
      ...shown,
      names,
      formats: DOCUMENT_FORMATS,
      modes: { write, append: false },
      versioned: true,
      // restore is a write like any other: it quotes the current document's ETag (Turtle, as the script asks)
      memento: { sha: found.commit, time: new Date(found.time * 1000), currentEtag: write && current ? served.etags.of(documentUrl, current, TURTLE) : undefined },
    },
  };
  const key = keyOf(frame, agent, modes, found.blob, current ?? '', JSON.stringify(names));
  sendPage(ctx, 200, frame.language, await served.pages.draw(drawing, runtime.labels.current(), key));
}

/**
 * The 404 page of a deleted document: to an agent that may read its last version, a link to its
 * history and, with Write, restore; to any other, the plain 404 (a refusal never says what it
 * guards: that a document was there is told only to those who could read it). False: no history to show.
 */
export async function deletedHtml(ctx: Context, relativePath: string, modes: ReadonlySet<Mode>, notFound: LodestoneError): Promise<boolean> {
  const { runtime, agent } = ctx.state;
  const history = runtime.documents.history;
  if (!history || !holds(modes, 'Read')) return false;
  const last = [...(await history.mementos(relativePath))].reverse().find((v) => v.blob !== null);
  if (!last || !holds(await runtime.access.modesOn(runtime, relativePath, agent, { blob: last.blob! }), 'Read')) return false;
  const http = toHttpError(notFound);
  await sendError(ctx, http.status, http.message, http.headers, undefined, { past: { documentUrl: runtime.documents.url(relativePath), restore: holds(modes, 'Write') ? last.commit : undefined } });
  return true;
}

/** The TimeMap's page; `relativePath` absent now: its newest version was deleted after. */
export async function timemapHtml(ctx: Context, relativePath: string, documentUrl: string, versions: readonly Version[], messages: ReadonlyMap<string, string>): Promise<void> {
  const frame = await frameOf(ctx);
  const deleted = ctx.state.runtime.documents.blobId(relativePath) === undefined;
  const names = await namesOf(ctx, versions.map((v) => v.author));
  sendPage(ctx, 200, frame.language, timemapPage(frame, documentUrl, versions.map((v) => ({ commit: v.commit, time: v.time, author: v.author, name: names[v.author], message: messages.get(v.commit) })), deleted));
}

/** The page of a comparison of two versions, of the lines the agent may be shown (memento.ts `diff`). */
export async function diffHtml(ctx: Context, documentUrl: string, from: string, to: string | undefined, change: { removed: string[]; added: string[] }): Promise<void> {
  const frame = await frameOf(ctx);
  sendPage(ctx, 200, frame.language, diffPage(frame, documentUrl, from, to, change));
}

/** The page of a system graph that is no document (`settings`, `ns`): drawn as a document is, read only, without history. */
export async function systemGraphPage(ctx: Context, url: string, ntriples: string): Promise<void> {
  const { runtime, served } = ctx.state;
  const frame = await frameDataOf(ctx);
  const drawing: Drawing = { page: 'document', input: { frame, documentUrl: url, ...shownTriples(ntriples), formats: DOCUMENT_FORMATS, modes: { write: false, append: false }, versioned: false } };
  sendPage(ctx, 200, frame.language, await served.pages.draw(drawing, runtime.labels.current()));
}

/** Lodestone's page of another server's RDF, read through the proxy (read only; every format through the proxy too). */
export async function proxiedPage(ctx: Context, url: string, ntriples: string): Promise<void> {
  const { runtime, served } = ctx.state;
  const frame = await frameDataOf(ctx, { uri: url });
  const drawing: Drawing = { page: 'document', input: { frame, documentUrl: url, ...shownTriples(ntriples), formats: DOCUMENT_FORMATS, formatsAt: `${frame.base}?uri=${encodeURIComponent(url)}`, source: url, modes: { write: false, append: false }, versioned: false } };
  sendPage(ctx, 200, frame.language, await served.pages.draw(drawing, runtime.labels.current()));
}
