/**
 * Document endpoints (SPEC §4.1): GET, HEAD, PUT, POST, PATCH, DELETE and OPTIONS on
 * `/<path>/`. Parses and negotiates at the edge, hands a plain write request to the
 * DocumentService, and answers with the statuses and headers of SPEC §3, §4.6 and DESIGN.md's
 * LinkedDataHub habits (201 with Location, 204 with the new ETag for POST and PATCH).
 */
import { setImmediate as afterPendingIo } from 'node:timers/promises';
import type Koa from 'koa';
import contentType from 'content-type';
import { LodestoneError } from '../errors.js';
import { ns } from '../rdf/namespaces.js';
import { readableTypes, writableTypes } from '../rdf/formats.js';
import { canonicalDocumentPath, parentDocumentPath } from '../store/paths.js';
import type { Mode } from '../access/access-control.js';
import { accessLinks, needOf, requireMode } from './authorize.js';
import type { WriteMethod } from '../documents/document-service.js';
import { decodeUtf8, readBody } from './body.js';
import { HttpError } from './http-error.js';
import { acceptOf, negotiate } from './negotiate.js';
import { checkRead, checkWrite, conditionsOf } from './preconditions.js';
import { handleMemento, mementoQuery, versionLinks, type MementoQuery } from './memento.js';
import { contentTypeOf, etag, type RepresentationCache } from './representations.js';
import type { DataspaceRuntime, State } from './state.js';

export const SPARQL_UPDATE = 'application/sparql-update';
export const DOCUMENT_ALLOW = 'GET, HEAD, PUT, POST, PATCH, DELETE, OPTIONS';

export interface DocumentHandlerOptions {
  bodyLimit: number;
  representations: RepresentationCache;
}

function notAcceptable(): HttpError {
  return new HttpError(406, `none of the requested media types is available; available: ${writableTypes.join(', ')}`);
}

/** The media type of a request body, or a 415 naming what is accepted. */
function requestType(ctx: Koa.Context, accepted: readonly string[]): string {
  const header = ctx.get('Content-Type');
  if (!header) throw new HttpError(415, `the request has no Content-Type; accepted: ${accepted.join(', ')}`);
  let type: string;
  try {
    type = contentType.parse(header).type;
  } catch {
    throw new HttpError(415, `the request has an unreadable Content-Type "${header}"; accepted: ${accepted.join(', ')}`);
  }
  if (!accepted.includes(type)) throw new HttpError(415, `${type} is not accepted here; accepted: ${accepted.join(', ')}`);
  return type;
}

/**
 * The `Link` header of every response about a current document: its timemap and timegate (SPEC
 * §9.1) and the agent with the modes it holds (issue 4).
 */
export function documentLinks(runtime: DataspaceRuntime, documentUrl: string, agent: string | undefined, modes: ReadonlySet<Mode> | undefined): string | undefined {
  const links = modes ? accessLinks(agent, modes) : [];
  if (runtime.dataspace.versions) links.unshift(versionLinks(documentUrl));
  return links.length ? links.join(', ') : undefined;
}

const PUBLIC_VIEW = ';public';
const MBOX = `> <${ns.foaf}mbox> <`;

/** DESIGN.md, "Access defaults": anonymous readers of an agent document see its e-mail only as foaf:mbox_sha1sum. */
export function publicAgentView(runtime: DataspaceRuntime, relativePath: string, agent: string | undefined): boolean {
  return agent === undefined && runtime.role === 'admin' && relativePath.startsWith('acl/agents/');
}

function withoutMailboxes(ntriples: string): string {
  return ntriples
    .split('\n')
    .filter((line) => !line.includes(MBOX))
    .join('\n');
}

/** Authorizes the request (403 otherwise) and returns the modes the agent holds on the document. */
async function authorizeDocument(ctx: Koa.ParameterizedContext<State>, relativePath: string, memento: MementoQuery | undefined): Promise<ReadonlySet<Mode> | undefined> {
  const { runtime, agent } = ctx.state;
  const { access } = runtime;
  const url = runtime.dataspace.base + relativePath;
  if (ctx.method === 'OPTIONS') return undefined;
  const need = memento ? (memento.kind === 'restore' ? 'Write' : 'Read') : needOf(ctx.method);
  if (!need) return undefined;
  const modes = await access.modesOn(runtime, relativePath, agent);
  const creating = !memento && (ctx.method === 'PUT' || ctx.method === 'POST') && runtime.documents.blobId(relativePath) === undefined;
  const parent = parentDocumentPath(relativePath);
  if (creating && parent !== undefined) {
    // SPEC §5: a new document is authorized against its parent container
    requireMode(await access.modesOn(runtime, parent, agent), 'Append', agent, runtime.dataspace.base + parent);
  } else {
    requireMode(modes, need, agent, url);
  }
  return modes;
}

export function documentHandler(options: DocumentHandlerOptions): Koa.Middleware<State> {
  return async (ctx) => {
    const { runtime } = ctx.state;
    const documents = runtime.documents;
    const relativePath = canonicalDocumentPath(ctx.state.relative);
    const documentUrl = runtime.dataspace.base + relativePath;
    const accept = acceptOf(ctx.headers, ctx.querystring);
    const memento = mementoQuery(ctx.querystring);
    const modes = await authorizeDocument(ctx, relativePath, memento);
    if (memento) return handleMemento(ctx, memento, { documentUrl, path: runtime.dataspace.fileOf(relativePath), representations: options.representations });
    const responseType = negotiate(accept, writableTypes);
    ctx.vary('Accept');
    const links = documentLinks(runtime, documentUrl, ctx.state.agent, modes);
    if (links) ctx.set('Link', links);

    switch (ctx.method) {
      case 'GET':
      case 'HEAD': {
        const document = await documents.read(relativePath);
        if (!document) throw new LodestoneError('NotFound', `there is no document at ${documentUrl}`);
        if (!responseType) throw notAcceptable();
        const variant = publicAgentView(runtime, relativePath, ctx.state.agent) ? PUBLIC_VIEW : '';
        const tag = etag(documentUrl, document.blobId, responseType + variant);
        ctx.set('ETag', tag);
        const outcome = checkRead(conditionsOf(ctx.headers), tag);
        if (outcome === 'failed') throw new LodestoneError('PreconditionFailed', 'the document has changed since the ETag in If-Match was read', { etag: tag });
        if (outcome === 'not-modified') {
          ctx.status = 304;
          return;
        }
        ctx.type = contentTypeOf(responseType); // before the body: N-Triples starts with '<' and Koa would call it HTML
        const text = () => (variant ? withoutMailboxes(document.bytes.toString('utf8')) : document.bytes.toString('utf8'));
        ctx.body = await options.representations.get(document.blobId, responseType, text, variant);
        return;
      }
      case 'OPTIONS':
        ctx.set('Allow', DOCUMENT_ALLOW);
        ctx.set('Accept-Post', readableTypes.join(', '));
        ctx.set('Accept-Patch', SPARQL_UPDATE);
        ctx.status = 204;
        return;
      case 'PUT':
      case 'POST':
      case 'PATCH':
      case 'DELETE':
        break;
      default:
        throw new HttpError(405, `${ctx.method} is not supported on documents`, { Allow: DOCUMENT_ALLOW });
    }

    const method = ctx.method as WriteMethod;
    let body: { text: string; mediaType: string } | undefined;
    let update: string | undefined;
    if (method === 'PUT' || method === 'POST') {
      const mediaType = requestType(ctx, readableTypes);
      body = { text: decodeUtf8(await readBody(ctx.req, options.bodyLimit)), mediaType };
    } else if (method === 'PATCH') {
      requestType(ctx, [SPARQL_UPDATE]);
      update = decodeUtf8(await readBody(ctx.req, options.bodyLimit));
    }
    // SPEC §4.6.6: the validator is the ETag of the representation this request's Accept selects
    const validatorType = responseType ?? 'not acceptable';
    const conditions = conditionsOf(ctx.headers);
    await afterPendingIo(); // the write goes on after the reads that came in meanwhile
    const result = await documents.write({
      method,
      relativePath,
      agent: ctx.state.agent,
      body,
      update,
      precondition: (current) => checkWrite(conditions, current === undefined ? undefined : etag(documentUrl, current, validatorType)),
    });
    if (result.blobId) ctx.set('ETag', etag(documentUrl, result.blobId, validatorType));
    if (result.status === 'created') {
      ctx.status = 201;
      ctx.set('Location', documentUrl);
      ctx.body = '';
    } else if (result.status === 'replaced') {
      ctx.status = 200;
      ctx.body = '';
    } else {
      ctx.status = 204;
    }
  };
}
