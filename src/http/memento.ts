/**
 * Memento (RFC 7089; SPEC §4.3, §9.1) on document URLs of a versioned dataspace, the route table's
 * handlers: `?version=<sha>` is the document as at that commit, `?timemap` lists its versions
 * (PROV-O in the RDF formats, or link-format), `?timegate` redirects to the version closest to
 * `Accept-Datetime`, `?diff=<sha>&to=<sha>` compares two versions, `POST ?restore=<sha>` restores
 * one. The history itself is the document service's (src/documents/history.ts).
 */
import { LINK_FORMAT } from '../rdf/media-types.js';
import { emptyBody } from './body.js';
import { closestVersion, timemapGraph, type DocumentHistory, type Version } from '../documents/history.js';
import { LodestoneError } from '../errors.js';
import { linesOf } from '../rdf/canonical-lines.js';
import { HTML, PLAIN, serialiseQuads } from '../rdf/formats.js';
import { httpDate, linesInView, mementoReply, sharedView, versionLinks, viewOf } from './document-read.js';
import { admitWrite, readReply, writeConditions } from './documents.js';
import { forbidden, holds } from './authorize.js';
import { historyQuery } from './history-query.js';
import { requestMessage } from './commit-message.js';
import { namesOf } from './html.js';
import { restoreRecursive } from './undo.js';
import { diffHtml, mementoHtml, timemapHtml } from './document-pages.js';
import { contentTypeOf } from './representations.js';
import type { Reply } from './reply.js';
import type { Context, Decided } from './state.js';

// RFC 7089 §2.1.1: Accept-Datetime is an HTTP-date in the IMF-fixdate form (RFC 1123)
export const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * The request's document (authorized by dispatch), the variant of it the agent is shown (viewOf),
 * and its dataspace's history (NotFound when it has none).
 */
export function historyOf(ctx: Context, { path: relativePath, modes, type }: Decided): { relativePath: string; documentUrl: string; history: DocumentHistory; variant: string } {
  const documentUrl = ctx.state.runtime.documents.url(relativePath);
  const history = ctx.state.runtime.documents.history;
  if (!history) {
    if (historyQuery(ctx.querystring)?.kind === 'timemap' && type === LINK_FORMAT) {
      throw new LodestoneError('NotAcceptable', `${documentUrl} is not in a versioned dataspace, so it has no link-format TimeMap`);
    }
    throw new LodestoneError('NotFound', `${ctx.state.runtime.documents.base} is not versioned: it has no mementos`);
  }
  return { relativePath, documentUrl, history, variant: viewOf(ctx.state.runtime, relativePath, ctx.state.agent, modes) };
}

/**
 * 403 unless the agent may read `version` as it was: its own owners and types, under the rules of
 * the URL. Whoever holds a document now (its acl:owner: a stranger who made it again at the URL of
 * a deleted one, say) holds nothing by that on what others wrote there before.
 */
async function requireReadOf(ctx: Context, relativePath: string, documentUrl: string, version: { blob: string }): Promise<void> {
  const { runtime, agent } = ctx.state;
  if (!holds(await runtime.access.modesOn(runtime, relativePath, agent, version), 'Read')) throw forbidden('Read', agent, documentUrl);
}

/** A version the request names, `sha` (a commit id, perhaps abbreviated), readable by the agent; NotFound when there is none. */
async function readableVersion(ctx: Context, history: DocumentHistory, relativePath: string, documentUrl: string, sha: string): Promise<void> {
  const found = await history.at(relativePath, sha);
  if (!found) throw new LodestoneError('NotFound', `${documentUrl} did not exist at commit ${sha}, or there is no such commit`);
  await requireReadOf(ctx, relativePath, documentUrl, found);
}

const mementoUrl = (documentUrl: string) => (v: Version) => `${documentUrl}?version=${v.commit}`;

/** The versions of the document, or NotFound when it has none. */
async function versionsOf(history: DocumentHistory, relativePath: string, documentUrl: string): Promise<Version[]> {
  const list = await history.mementos(relativePath);
  if (list.length === 0) throw new LodestoneError('NotFound', `${documentUrl} has no versions`);
  return list;
}

export async function version(ctx: Context, decided: Decided): Promise<Reply | void> {
  const { runtime } = ctx.state;
  const { relativePath, documentUrl, history, variant } = historyOf(ctx, decided);
  const sha = new URLSearchParams(ctx.querystring).get('version') ?? '';
  const found = await history.at(relativePath, sha);
  if (found) await requireReadOf(ctx, relativePath, documentUrl, found);
  const commit = found?.commit ?? sha;
  if (decided.type === HTML && found) return mementoHtml(ctx, relativePath, decided.modes, found, await history.bytesOf(found));
  const anonymous = found ? await runtime.access.modesOn(runtime, relativePath, undefined, found) : new Set<never>();
  const reply = mementoReply(documentUrl, commit, found, decided.type, { variant, shared: sharedView(runtime, relativePath, variant, anonymous) });
  if (commit !== sha) reply.headers['Content-Location'] = `${documentUrl}?version=${commit}`; // an abbreviated id: the memento's own URL
  ctx.state.served.caches.rememberMemento(documentUrl, commit, found!); // the read fast path answers the next one
  return readReply(ctx, reply, async () => (await history.bytesOf(found!)).toString('utf8'));
}

export async function timegate(ctx: Context, decided: Decided): Promise<void> {
  const { relativePath, documentUrl, history } = historyOf(ctx, decided);
  const list = await versionsOf(history, relativePath, documentUrl);
  const header = ctx.get('Accept-Datetime');
  let chosen = list[list.length - 1]!;
  if (header) {
    if (!HTTP_DATE.test(header.trim()) || Number.isNaN(Date.parse(header))) {
      throw new LodestoneError('BadRequest', `Accept-Datetime "${header}" is not an HTTP date such as "Sun, 06 Nov 1994 08:49:37 GMT"`);
    }
    chosen = closestVersion(list, Date.parse(header) / 1000);
  }
  ctx.status = 302;
  ctx.set('Location', mementoUrl(documentUrl)(chosen));
  ctx.vary('Accept-Datetime');
  ctx.set('Link', `<${documentUrl}>; rel="original", ${versionLinks(documentUrl)}`);
  emptyBody(ctx);
}

export async function timemap(ctx: Context, decided: Decided): Promise<Reply | void> {
  const { relativePath, documentUrl, history } = historyOf(ctx, decided);
  const list = await versionsOf(history, relativePath, documentUrl);
  const type = decided.type!;
  if (type === HTML) return timemapHtml(ctx, relativePath, documentUrl, list, await history.messages(list.map((v) => v.commit)));
  // the names are those the agent may read (namesOf): they are part of what the TimeMap is for it
  const names = type === LINK_FORMAT ? {} : await namesOf(ctx, list.map((v) => v.author));
  const key = `${documentUrl}\n${list[list.length - 1]!.commit}\n${list.length}\n${type}\n${JSON.stringify(names)}`;
  const { timemaps } = ctx.state.served.caches;
  const body = async () => {
    let made = timemaps.get(key);
    if (!made) {
      made = Buffer.from(type === LINK_FORMAT ? linkFormat(documentUrl, list) : await serialiseQuads(timemapGraph(documentUrl, list, mementoUrl(documentUrl), { names, messages: await history.messages(list.map((v) => v.commit)) }), type));
      timemaps.put(key, made);
    }
    return made;
  };
  // a TimeMap changes with every version of its document: its validator is the versions it lists, in the type sent
  return { headers: { Link: `<${documentUrl}>; rel="original"` }, contentType: contentTypeOf(type), etag: ctx.state.served.etags.of(`${documentUrl}?timemap`, key, type), body };
}

/** RFC 7089 §5.1.1: the TimeMap in link-format. */
function linkFormat(documentUrl: string, list: readonly Version[]): string {
  const memento = mementoUrl(documentUrl);
  const entries = [
    `<${documentUrl}>; rel="original"`,
    `<${documentUrl}?timemap>; rel="self"; type="${LINK_FORMAT}"; from="${httpDate(list[0]!.time)}"; until="${httpDate(list[list.length - 1]!.time)}"`,
    `<${documentUrl}?timegate>; rel="timegate"`,
    ...list.map((v, i) => {
      const rel = [i === 0 ? 'first' : '', i === list.length - 1 ? 'last' : '', 'memento'].filter(Boolean).join(' ');
      return `<${memento(v)}>; rel="${rel}"; datetime="${httpDate(v.time)}"`;
    }),
  ];
  return entries.join(',\n') + '\n';
}

/** The triples removed and added between two versions (`?diff=<sha>&to=<sha>`; without `to`, the current document), one per line with `-` or `+`, as text/plain. */
export async function diff(ctx: Context, decided: Decided): Promise<Reply | void> {
  const { relativePath, documentUrl, history, variant } = historyOf(ctx, decided);
  const query = new URLSearchParams(ctx.querystring);
  const [from, to] = [query.get('diff') ?? '', query.get('to') ?? undefined];
  for (const sha of to === undefined ? [from] : [from, to]) await readableVersion(ctx, history, relativePath, documentUrl, sha);
  const change = await history.diff(relativePath, from, to);
  // the agent is shown the lines it would be shown of either version (an agent document's foaf:mbox only to the agent and its owners)
  const [removed, added] = [change.removed, change.added].map((lines) => linesOf(linesInView(lines.join('\n'), variant))) as [string[], string[]];
  if (decided.type === HTML) return diffHtml(ctx, documentUrl, from, to, { removed, added });
  const lines = [...removed.map((l) => `- ${l}`), ...added.map((l) => `+ ${l}`)];
  return { contentType: contentTypeOf(PLAIN), body: () => lines.join('\n') + (lines.length ? '\n' : '') };
}

/** `POST <document>?restore=<sha>` (SPEC §3): one new commit with that version's triples, under the same preconditions as any write; with `recursive`, a container and all under it (undo.ts). */
export async function restore(ctx: Context, decided: Decided): Promise<void> {
  if (new URLSearchParams(ctx.querystring).has('recursive')) return restoreRecursive(ctx, decided);
  const { relativePath, documentUrl, history } = historyOf(ctx, decided);
  admitWrite(ctx, relativePath); // a restore is a write like another: the version restored is no larger than it was
  const message = requestMessage(ctx);
  const sha = new URLSearchParams(ctx.querystring).get('restore') ?? '';
  await readableVersion(ctx, history, relativePath, documentUrl, sha); // what is restored is read first
  const conditions = writeConditions(ctx, documentUrl, decided.type);
  const result = await history.restore(relativePath, sha, ctx.state.agent, conditions, message);
  if (result.blobId) ctx.set('ETag', conditions.tagOf(result.blobId));
  ctx.status = result.status === 'created' ? 201 : 204;
  if (result.status === 'created') ctx.set('Location', documentUrl);
  emptyBody(ctx);
}
