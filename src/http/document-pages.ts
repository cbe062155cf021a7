/**
 * The pages of documents and of their history (src/pages/ draws them): a current document (with
 * the editor for agents with Write, the children of a container), a memento with its banner, the
 * TimeMap, and a comparison of two versions. Each is answered where the RDF of the same URL is,
 * once negotiation chose HTML; access was decided before, as for the RDF.
 */
import type { Mode } from '../access/access-control.js';
import { childrenOf, type ChildOrder } from '../documents/children.js';
import type { Version } from '../documents/history.js';
import { documentPage, type ChildList } from '../pages/document-page.js';
import { diffPage, timemapPage } from '../pages/history-page.js';
import { literalsOf } from '../rdf/canonical-lines.js';
import { addVocabularyLabels, labelsVersion } from '../pages/labels.js';
import type { Html } from '../pages/html.js';
import { ByteCache } from '../util/byte-cache.js';
import { JSONLD_COMPACTED, TURTLE, writableTypes } from '../rdf/formats.js';
import { ns } from '../rdf/namespaces.js';
import { parseRdf } from '../rdf/ntriples.js';
import { holds } from './authorize.js';
import { documentLinks, linesInView, SPARQL_UPDATE, viewOf } from './document-read.js';
import { frameOf, sendPage } from './html.js';
import type { Context } from './state.js';

const FORMAT_NAMES: Record<string, string> = {
  'text/turtle': 'Turtle',
  'application/n-triples': 'N-Triples',
  'application/rdf+xml': 'RDF/XML',
  'application/ld+json': 'JSON-LD',
  [JSONLD_COMPACTED]: 'JSON-LD (compacted)',
  'application/n-quads': 'N-Quads',
  'application/trig': 'TriG',
};

/** Every RDF format a document is served in, named for people. */
export const DOCUMENT_FORMATS = [...writableTypes, JSONLD_COMPACTED].filter((type) => FORMAT_NAMES[type]).map((type) => ({ type, name: FORMAT_NAMES[type]! }));

const CHILDREN_PER_PAGE = 20;
/** A page draws at most this many triples of a document (2 MiB of N-Triples hold ~20,000): drawing all would hold the thread that answers everyone. */
const TRIPLES_PER_PAGE = 3_000;

/** The triples a page draws (canonical lines are sorted, so a subject's triples stay together), and how many there are when that is not all. */
function shownTriples(ntriples: string): { quads: ReturnType<typeof parseRdf>; truncated?: { shown: number; total: number } } {
  let end = -1;
  let count = 0;
  while (count < TRIPLES_PER_PAGE && (end = ntriples.indexOf('\n', end + 1)) >= 0) count++;
  if (end < 0 || end === ntriples.length - 1) return { quads: parseRdf(ntriples) };
  const total = count + ntriples.slice(end + 1).split('\n').filter(Boolean).length;
  return { quads: parseRdf(ntriples.slice(0, end + 1)), truncated: { shown: count, total } };
}

/** The children of a container to show: a page of them, each one the agent may read. */
async function childList(ctx: Context, documentUrl: string): Promise<ChildList> {
  const { runtime, agent, served } = ctx.state;
  const query = new URLSearchParams(ctx.querystring);
  const order: ChildOrder = query.get('order') === 'title' ? 'title' : 'newest';
  const pageNumber = Math.max(1, Math.min(1_000_000, Number.parseInt(query.get('page') ?? '1', 10) || 1));
  const { total, children } = await childrenOf(runtime.documents, documentUrl, { order, offset: (pageNumber - 1) * CHILDREN_PER_PAGE, size: CHILDREN_PER_PAGE, holder: agent, timeoutMs: served.sparqlTimeoutMs });
  const base = runtime.documents.base;
  const readable = await Promise.all(children.map(async (child) => child.url.startsWith(base) && holds(await runtime.access.modesOn(runtime, child.url.slice(base.length), agent), 'Read')));
  return { total, children: children.filter((_, i) => readable[i]), order, page: pageNumber, size: CHILDREN_PER_PAGE };
}

const labelledClosures = new Set<string>();
/** Pages of items already drawn: drawing one of a few thousand triples takes tens of milliseconds of the thread that answers everyone. */
const drawnPages = new ByteCache<Html>(32 * 1024 * 1024, (page) => page.text.length * 2);

/**
 * The labels of the dataspace's namespace ontology (its classes and properties) join those the
 * pages use, once per version of it; only a version already built is read: a page never waits
 * for an ontology to be fetched.
 */
function ontologyLabels(runtime: Context['state']['runtime']): void {
  const closure = runtime.ontology?.lastBuilt();
  if (!closure || labelledClosures.has(closure.key)) return;
  labelledClosures.add(closure.key);
  const found = literalsOf(closure.ntriples, new Set([ns.rdfs + 'label', 'http://www.w3.org/2004/02/skos/core#prefLabel']));
  addVocabularyLabels([...found].map((l) => ({ iri: l.subject, language: l.language, label: l.value })));
}

/** The page of the current document at `relativePath` (authorized: the agent holds `modes`). */
export async function documentHtml(ctx: Context, relativePath: string, modes: ReadonlySet<Mode>, document: { blobId: string; bytes: Buffer }): Promise<void> {
  const { runtime, agent, served } = ctx.state;
  const documentUrl = runtime.documents.url(relativePath);
  const frame = await frameOf(ctx);
  ontologyLabels(runtime);
  const canonical = document.bytes.toString('utf8');
  const text = linesInView(canonical, viewOf(runtime, relativePath, agent, modes));
  const write = holds(modes, 'Write');
  const container = documentUrl === runtime.documents.base || text.includes(`<${documentUrl}> <${ns.rdf}type> <${ns.dh}Container> .`);
  const links = documentLinks(runtime, documentUrl, agent, modes);
  if (links) ctx.set('Link', links);
  ctx.set('Accept-Patch', SPARQL_UPDATE);
  // a page of an item is kept by everything it is drawn from (a container's lists its children, which change apart)
  const key = container ? undefined : [document.blobId, frame.url, frame.language, agent ?? '', frame.visitor.name ?? '', [...modes].sort().join(' '), labelsVersion(), frame.visitor.providers.join(' ')].join('\n');
  const kept = key === undefined ? undefined : drawnPages.get(key);
  if (kept) return sendPage(ctx, 200, frame.language, kept);
  const content = documentPage({
    frame,
    documentUrl,
    ...shownTriples(text),
    formats: DOCUMENT_FORMATS,
    modes: { write, append: holds(modes, 'Append') },
    // the editor writes Turtle, so it quotes the Turtle representation's ETag
    etag: write ? served.etags.of(documentUrl, document.blobId, TURTLE) : undefined,
    turtle: write ? (await served.representations.get(document.blobId, TURTLE, () => text)).toString('utf8') : undefined,
    children: container ? await childList(ctx, documentUrl) : undefined,
    versioned: runtime.documents.history !== undefined,
  });
  if (key !== undefined) drawnPages.put(key, content);
  sendPage(ctx, 200, frame.language, content);
}

/** The page of a memento: the document as it was, with the banner; restore for agents with Write. */
export async function mementoHtml(ctx: Context, relativePath: string, found: { commit: string; time: number; blob: string }, bytes: Buffer): Promise<void> {
  const { runtime, agent } = ctx.state;
  const documentUrl = runtime.documents.url(relativePath);
  const frame = await frameOf(ctx);
  const modes = await runtime.access.modesOn(runtime, relativePath, agent);
  const write = holds(modes, 'Write');
  const current = runtime.documents.blobId(relativePath);
  const content = documentPage({
    frame,
    documentUrl,
    ...shownTriples(linesInView(bytes.toString('utf8'), viewOf(runtime, relativePath, agent, modes))),
    formats: DOCUMENT_FORMATS,
    modes: { write, append: false },
    versioned: true,
    // restore is a write like any other: it quotes the current document's ETag (Turtle, as the script asks)
    memento: { sha: found.commit, time: new Date(found.time * 1000), currentEtag: write && current ? ctx.state.served.etags.of(documentUrl, current, TURTLE) : undefined },
  });
  sendPage(ctx, 200, frame.language, content);
}

export async function timemapHtml(ctx: Context, documentUrl: string, versions: readonly Version[]): Promise<void> {
  const frame = await frameOf(ctx);
  sendPage(ctx, 200, frame.language, timemapPage(frame, documentUrl, versions.map((v) => ({ commit: v.commit, time: v.time, author: v.author, deleted: v.blob === null }))));
}

/** The page of a comparison of two versions, of the lines the agent may be shown (memento.ts `diff`). */
export async function diffHtml(ctx: Context, documentUrl: string, from: string, to: string | undefined, change: { removed: string[]; added: string[] }): Promise<void> {
  const frame = await frameOf(ctx);
  sendPage(ctx, 200, frame.language, diffPage(frame, documentUrl, from, to, change));
}

/** Lodestone's page of another server's RDF, read through the proxy (read only; every format through the proxy too). */
export async function proxiedPage(ctx: Context, url: string, ntriples: string): Promise<void> {
  const frame = await frameOf(ctx);
  const proxied = (type: string) => `${frame.base}?uri=${encodeURIComponent(url)}&accept=${encodeURIComponent(type)}`;
  const content = documentPage({ frame, documentUrl: url, ...shownTriples(ntriples), formats: DOCUMENT_FORMATS, formatLink: proxied, modes: { write: false, append: false }, versioned: false });
  sendPage(ctx, 200, frame.language, content);
}
