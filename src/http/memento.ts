/**
 * Memento (RFC 7089; SPEC §4.3, §9.1) on document URLs of a versioned dataspace: `?version=<sha>`
 * is the document as at that commit, `?timemap` lists its versions (PROV-O in the RDF formats, or
 * link-format), `?timegate` redirects to the version closest to `Accept-Datetime`. Versions come
 * from the dataspace's VersionIndex; bodies from the blobs the commits recorded.
 */
import type Koa from 'koa';
import { DataFactory } from 'n3';
import type { Quad } from '@rdfjs/types';
import { LodestoneError } from '../errors.js';
import { NTRIPLES, serialiseQuads, writableTypes } from '../rdf/formats.js';
import { ns } from '../rdf/namespaces.js';
import type { Version } from '../store/version-index.js';
import { HttpError } from './http-error.js';
import { acceptOf, negotiate } from './negotiate.js';
import { checkWrite, conditionsOf } from './preconditions.js';
import { etag, type RepresentationCache } from './representations.js';
import type { State } from './state.js';
import { ByteCache } from '../util/byte-cache.js';

export const LINK_FORMAT = 'application/link-format';
const SHA = /^[0-9a-f]{40}$/;
// RFC 7089 §2.1.1: Accept-Datetime is an HTTP-date in the IMF-fixdate form (RFC 1123)
const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const READ_MODE = `<${ns.acl}Read>; rel="${ns.acl}mode"`;

export type MementoQuery =
  | { kind: 'version'; sha: string }
  | { kind: 'timemap' }
  | { kind: 'timegate' }
  | { kind: 'diff'; from: string; to: string | undefined }
  | { kind: 'restore'; sha: string };

export function mementoQuery(querystring: string): MementoQuery | undefined {
  if (querystring === '') return undefined;
  const query = new URLSearchParams(querystring);
  if (query.has('version')) return { kind: 'version', sha: query.get('version') ?? '' };
  if (query.has('timemap')) return { kind: 'timemap' };
  if (query.has('timegate')) return { kind: 'timegate' };
  if (query.has('diff')) return { kind: 'diff', from: query.get('diff') ?? '', to: query.get('to') ?? undefined };
  if (query.has('restore')) return { kind: 'restore', sha: query.get('restore') ?? '' };
  return undefined;
}

/** An HTTP date, RFC 1123 form: `Sun, 06 Nov 1994 08:49:37 GMT` (zero-padded day). */
export function httpDate(seconds: number): string {
  return new Date(seconds * 1000).toUTCString();
}

/** The Link headers every document of a versioned dataspace carries (SPEC §9.1, TimeMap 4). */
/** The headers of a memento (SPEC §2.5, §5.5, §8.4), but Vary and Content-Type. */
export function mementoHeaders(documentUrl: string, sha: string, time: number): Record<string, string> {
  return {
    'Memento-Datetime': httpDate(time),
    ETag: `"${sha}"`, // SPEC §2.5: a memento's ETag is its commit SHA
    'Cache-Control': 'public, max-age=31536000, immutable', // mementos never change
    Link: `<${documentUrl}>; rel="original", ${versionLinks(documentUrl)}, ${READ_MODE}`, // only acl:Read
  };
}

// A memento is immutable: once found, its blob and time are kept for the read fast path.
const remembered = new Map<string, { blob: string; time: number }>();

/** The blob and time of a memento served before, if any. */
export function knownMemento(documentUrl: string, sha: string): { blob: string; time: number } | undefined {
  return remembered.get(`${documentUrl}?version=${sha}`);
}

export function versionLinks(documentUrl: string): string {
  return `<${documentUrl}?timemap>; rel="timemap"; type="${LINK_FORMAT}", <${documentUrl}?timegate>; rel="timegate"`;
}

/**
 * The version closest in time to `wanted` (seconds), ties going to the more recent (SPEC §9.1,
 * TimeGate 1). `list` runs oldest first and must not be empty.
 */
export function closestVersion(list: readonly Version[], wanted: number): Version {
  let chosen = list[0]!;
  let distance = Infinity;
  for (const v of list) {
    if (Math.abs(v.time - wanted) <= distance) {
      chosen = v;
      distance = Math.abs(v.time - wanted);
    }
  }
  return chosen;
}

function mementos(versions: readonly Version[]): Version[] {
  return versions.filter((v) => v.blob !== null);
}

export interface MementoContext {
  documentUrl: string;
  /** The document's file in the repository. */
  path: string;
  representations: RepresentationCache;
}

export async function handleMemento(ctx: Koa.ParameterizedContext<State>, query: MementoQuery, options: MementoContext): Promise<void> {
  const { dataspace } = ctx.state.runtime;
  const { documentUrl, path } = options;
  const index = dataspace.versions;
  const accept = acceptOf(ctx.headers, ctx.querystring);
  if (ctx.method === 'OPTIONS') {
    ctx.set('Allow', 'GET, HEAD, OPTIONS');
    ctx.status = 204;
    return;
  }
  if (query.kind === 'restore') {
    if (ctx.method !== 'POST') throw new HttpError(405, 'restore a version with POST <document>?restore=<sha>', { Allow: 'POST, OPTIONS' });
  } else if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
    throw new HttpError(405, 'versions are read-only: write to the document itself', { Allow: 'GET, HEAD, OPTIONS' });
  }
  if (query.kind === 'timemap' && !index && negotiate(accept, [...writableTypes, LINK_FORMAT]) === LINK_FORMAT) {
    throw new HttpError(406, `${documentUrl} is not in a versioned dataspace, so it has no link-format TimeMap`);
  }
  if (!index) throw new LodestoneError('NotFound', `${dataspace.base} is not versioned: it has no mementos`);
  await index.idle();
  const list = mementos(index.of(path));
  const memento = (v: Version) => `${documentUrl}?version=${v.commit}`;
  ctx.vary('Accept');

  if (query.kind === 'restore') return restore(ctx, query.sha, options);
  if (query.kind === 'diff') return diff(ctx, query, options);

  if (query.kind === 'version') {
    if (!SHA.test(query.sha)) throw new HttpError(400, `"${query.sha}" is not a commit id (40 lower-case hexadecimal digits)`);
    const found = await index.blobAt(path, query.sha);
    if (!found) throw new LodestoneError('NotFound', `${documentUrl} did not exist at commit ${query.sha}, or there is no such commit`);
    const type = negotiate(accept, writableTypes);
    if (!type) throw new HttpError(406, `none of the requested media types is available; available: ${writableTypes.join(', ')}`);
    const bytes = await dataspace.store.readBlob(found.blob);
    ctx.set(mementoHeaders(documentUrl, query.sha, found.time));
    ctx.type = type;
    ctx.body = await options.representations.get(found.blob, type, () => bytes.toString('utf8'));
    remembered.set(`${documentUrl}?version=${query.sha}`, found); // the read fast path answers the next one
    if (remembered.size > 100_000) remembered.clear();
    return;
  }

  if (list.length === 0) throw new LodestoneError('NotFound', `${documentUrl} has no versions`);

  if (query.kind === 'timegate') {
    const header = ctx.get('Accept-Datetime');
    let chosen = list[list.length - 1]!;
    if (header) {
      if (!HTTP_DATE.test(header.trim()) || Number.isNaN(Date.parse(header))) {
        throw new HttpError(400, `Accept-Datetime "${header}" is not an HTTP date such as "Sun, 06 Nov 1994 08:49:37 GMT"`);
      }
      chosen = closestVersion(list, Date.parse(header) / 1000);
    }
    ctx.status = 302;
    ctx.set('Location', memento(chosen));
    ctx.vary('Accept-Datetime');
    ctx.set('Link', `<${documentUrl}>; rel="original", ${versionLinks(documentUrl)}`);
    ctx.body = '';
    return;
  }

  const type = negotiate(accept, [...writableTypes, LINK_FORMAT]);
  if (!type) throw new HttpError(406, `none of the requested media types is available; available: ${[...writableTypes, LINK_FORMAT].join(', ')}`);
  ctx.set('Link', `<${documentUrl}>; rel="original"`);
  ctx.type = type;
  // A TimeMap changes only with a new version of its document: serialised once per version and format.
  const key = `${documentUrl}\n${list[list.length - 1]!.commit}\n${list.length}\n${type}`;
  const cached = timemaps.get(key);
  if (cached) {
    ctx.body = cached;
    return;
  }
  const body = Buffer.from(await timemapBody(documentUrl, list, memento, type));
  timemaps.put(key, body);
  ctx.body = body;
}

// kept as bytes: a TimeMap of a thousand versions is ~130 KB, not worth encoding per request
const timemaps = new ByteCache<Buffer>(16 * 1024 * 1024, (body) => body.length);

async function timemapBody(documentUrl: string, list: readonly Version[], memento: (v: Version) => string, type: string): Promise<string> {
  if (type === LINK_FORMAT) {
    // RFC 7089 §5.1.1
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
  return serialiseQuads(timemapGraph(documentUrl, list, memento), type);
}

/** SPEC §9.1, TimeMap 1: one prov:Collection with a prov:Entity per memento. */
function timemapGraph(documentUrl: string, list: readonly Version[], memento: (v: Version) => string): Quad[] {
  const { namedNode, literal, quad } = DataFactory;
  const type = namedNode(ns.rdf + 'type');
  const collection = namedNode(`${documentUrl}?timemap`);
  const out: Quad[] = [quad(collection, type, namedNode(ns.prov + 'Collection'))];
  list.forEach((v, i) => {
    const entity = namedNode(memento(v));
    out.push(
      quad(collection, namedNode(ns.prov + 'hadMember'), entity),
      quad(entity, type, namedNode(ns.prov + 'Entity')),
      quad(entity, namedNode(ns.prov + 'specializationOf'), namedNode(documentUrl)),
      quad(entity, namedNode(ns.prov + 'generatedAtTime'), literal(new Date(v.time * 1000).toISOString(), namedNode(ns.xsd + 'dateTime'))),
    );
    if (i > 0) out.push(quad(entity, namedNode(ns.prov + 'wasRevisionOf'), namedNode(memento(list[i - 1]!))));
    if (/^https?:\/\//.test(v.author)) out.push(quad(entity, namedNode(ns.dct + 'creator'), namedNode(v.author)));
  });
  return out;
}

/** The file of `path` at commit `sha` (400 for a malformed id, 404 when absent there). */
async function versionBlob(ctx: Koa.ParameterizedContext<State>, sha: string, options: MementoContext): Promise<Buffer> {
  if (!SHA.test(sha)) throw new HttpError(400, `"${sha}" is not a commit id (40 lower-case hexadecimal digits)`);
  const found = await ctx.state.runtime.dataspace.versions!.blobAt(options.path, sha);
  if (!found) throw new LodestoneError('NotFound', `${options.documentUrl} did not exist at commit ${sha}, or there is no such commit`);
  return ctx.state.runtime.dataspace.store.readBlob(found.blob);
}

/**
 * A diff between two versions (`?diff=<sha>&to=<sha>`; without `to`, the current document): the
 * triples removed and added, one per line with `-` or `+`, as text/plain.
 */
async function diff(ctx: Koa.ParameterizedContext<State>, query: { from: string; to: string | undefined }, options: MementoContext): Promise<void> {
  const lines = (bytes: Buffer | undefined) => new Set((bytes?.toString('utf8') ?? '').split('\n').filter(Boolean));
  const from = lines(await versionBlob(ctx, query.from, options));
  const to = lines(query.to ? await versionBlob(ctx, query.to, options) : (await ctx.state.runtime.dataspace.store.read(options.path))?.bytes);
  const removed = [...from].filter((l) => !to.has(l)).map((l) => `- ${l}`);
  const added = [...to].filter((l) => !from.has(l)).map((l) => `+ ${l}`);
  ctx.type = 'text/plain';
  ctx.body = [...removed, ...added].join('\n') + (removed.length + added.length ? '\n' : '');
}

/**
 * Restores a version (`POST <document>?restore=<sha>`, SPEC §3): one new commit whose triples are
 * that version's (the server's metadata apart), under the same preconditions as any write.
 */
async function restore(ctx: Koa.ParameterizedContext<State>, sha: string, options: MementoContext): Promise<void> {
  const bytes = await versionBlob(ctx, sha, options);
  const { documents } = ctx.state.runtime;
  const relative = options.documentUrl.slice(ctx.state.runtime.dataspace.base.length);
  const type = negotiate(acceptOf(ctx.headers, ''), writableTypes) ?? 'not acceptable';
  const conditions = conditionsOf(ctx.headers);
  const result = await documents.write({
    method: 'POST',
    relativePath: relative,
    agent: ctx.state.agent,
    body: { text: bytes.toString('utf8'), mediaType: NTRIPLES },
    replace: true,
    note: `Restores the version of ${sha}.`,
    precondition: (current) => checkWrite(conditions, current === undefined ? undefined : etag(options.documentUrl, current, type)),
  });
  if (result.blobId) ctx.set('ETag', etag(options.documentUrl, result.blobId, type));
  ctx.status = result.status === 'created' ? 201 : 204;
  if (result.status === 'created') ctx.set('Location', options.documentUrl);
  ctx.body = '';
}
