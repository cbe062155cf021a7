/**
 * Document endpoints (SPEC §4.1): GET, HEAD, PUT, POST, PATCH, DELETE and OPTIONS on
 * `/<path>/`, the route table's handlers. Parses and negotiates at the edge, hands a plain write
 * request to the DocumentService, and answers with the statuses and headers of SPEC §3, §4.6 and
 * DESIGN.md's LinkedDataHub habits (201 with Location, 204 with the new ETag for POST and PATCH).
 * Reads answer from the one read path (document-read.ts).
 */
import { setImmediate as afterPendingIo } from 'node:timers/promises';
import type { Mode } from '../access/access-control.js';
import { parentDocumentPath } from '../document-paths.js';
import type { WriteMethod } from '../documents/document-service.js';
import { isLodestoneError, LodestoneError } from '../errors.js';
import { HTML, readableTypes, writableTypes } from '../rdf/formats.js';
import { forbidden, holds, needOf, type Need } from './authorize.js';
import { decodeUtf8, emptyBody, mediaTypeOf, readBody } from './body.js';
import { currentDocumentReply, documentLinks, linesInView, SPARQL_UPDATE, type ReadReply } from './document-read.js';
import { acceptOf, DOCUMENT_TYPES, negotiateDocument } from './negotiate.js';
import { documentHtml } from './document-pages.js';
import { documentPathIn } from './locate.js';
import { isAdminDataspace } from './dataspace-role.js';
import { clientOf } from './quotas.js';
import { checkWrite, conditionsOf } from './preconditions.js';
import type { Context } from './state.js';


/** The media type of a request body, or a 415 naming what is accepted. */
export function requestType(ctx: Context, accepted: readonly string[]): string {
  const header = ctx.get('Content-Type');
  if (!header) throw new LodestoneError('UnsupportedMediaType', `the request has no Content-Type; accepted: ${accepted.join(', ')}`);
  const type = mediaTypeOf(ctx);
  if (!type) throw new LodestoneError('UnsupportedMediaType', `the request has an unreadable Content-Type "${header}"; accepted: ${accepted.join(', ')}`);
  if (!accepted.includes(type)) throw new LodestoneError('UnsupportedMediaType', `${type} is not accepted here; accepted: ${accepted.join(', ')}`);
  return type;
}

/** The canonical path of the request's document and its URL (400 when that URL lies in another dataspace). */
export function documentOf(ctx: Context): { relativePath: string; documentUrl: string } {
  const relativePath = documentPathIn(ctx.state.served.runtimes, ctx.state.runtime, ctx.state.relative);
  return { relativePath, documentUrl: ctx.state.runtime.documents.url(relativePath) };
}

/**
 * Authorizes a request on a document that needs `need` and returns the modes the agent holds there.
 * Creating a document (a PUT where none is) needs Append on its parent container instead (SPEC §5).
 * The refusal is the same whether or not the document exists (issue 25): a 403 naming the mode the
 * method needs on the document itself, never the parent, so a stranger cannot tell which URLs exist.
 */
export async function authorizeDocument(ctx: Context, relativePath: string, need: Need, creating = false): Promise<ReadonlySet<Mode>> {
  const { runtime, agent } = ctx.state;
  const { access, documents } = runtime;
  const modes = await access.modesOn(runtime, relativePath, agent);
  const parent = parentDocumentPath(relativePath);
  const allowed = creating && parent !== undefined ? holds(await access.modesOn(runtime, parent, agent), 'Append') : holds(modes, need);
  if (!allowed) throw forbidden(need, agent, documents.url(relativePath));
  return modes;
}

/** Sends a reply of the read path, serialising its body (cached per blob and type). */
export async function sendRead(ctx: Context, reply: ReadReply, text: (blobId: string) => Promise<string>): Promise<void> {
  ctx.status = reply.status;
  ctx.set(reply.headers);
  if (!reply.body) return;
  const { blobId, type, variant } = reply.body;
  const lines = await text(blobId);
  ctx.body = await ctx.state.served.representations.get(blobId, type, () => linesInView(lines, variant), variant);
}

export async function readDocument(ctx: Context): Promise<void> {
  const { runtime, agent } = ctx.state;
  const { relativePath } = documentOf(ctx);
  const modes = await authorizeDocument(ctx, relativePath, needOf(ctx.method)!);
  const document = await runtime.documents.read(relativePath);
  // SPEC §4.6.7: HEAD gives an agent that may not read the validator, and nothing of the content (no page, no length)
  const reads = holds(modes, 'Read');
  const type = negotiateDocument(acceptOf(ctx.headers, ctx.querystring), reads ? DOCUMENT_TYPES : writableTypes);
  if (type === HTML && document) return documentHtml(ctx, relativePath, modes, document);
  const reply = currentDocumentReply({ runtime, relativePath, agent, modes, blobId: document?.blobId, type, headers: ctx.headers, etags: ctx.state.served.etags });
  if (!reads) reply.body = undefined;
  await sendRead(ctx, reply, async () => document!.bytes.toString('utf8')).catch((error: unknown) => {
    // the stored file itself does not parse (committed by hand with git): the server's data, not the request, is at fault
    if (!isLodestoneError(error, 'SyntaxError')) throw error;
    throw new LodestoneError('Corrupt', `${runtime.documents.url(relativePath)} is stored as ${runtime.documents.fileOf(relativePath)}, which is not valid N-Triples (${error.message}): correct or revert that commit`);
  });
}

export async function documentOptions(ctx: Context): Promise<void> {
  ctx.set('Accept-Post', readableTypes.join(', '));
  ctx.set('Accept-Patch', SPARQL_UPDATE);
  ctx.status = 204;
}

/**
 * A write into an admin dataspace by an agent other than the owner and the secretary counts against
 * its quotas (429 past them, quotas.ts); gives the most bytes the document may hold after it
 * (undefined: no bound of its own). Writes into an end-user dataspace pass.
 */
export function admitWrite(ctx: Context, relativePath: string): number | undefined {
  const { runtime, agent, served } = ctx.state;
  if (!isAdminDataspace(runtime)) return undefined;
  served.quotas.adminWrite(agent, clientOf(ctx.req));
  return served.quotas.adminDocumentBytes(agent, relativePath);
}

/** The request body, refused past `maxBytes` as well as past the body limit. */
async function bodyText(ctx: Context, maxBytes: number | undefined): Promise<string> {
  const limit = ctx.state.served.bodyLimit;
  if (maxBytes === undefined || maxBytes >= limit) return decodeUtf8(await readBody(ctx.req, limit));
  return decodeUtf8(await readBody(ctx.req, maxBytes).catch((error: unknown) => {
    if (isLodestoneError(error, 'TooLarge')) throw new LodestoneError('TooLarge', `${error.message}: an agent's own document (its profile, its key) holds at most ${maxBytes} bytes`, error.data);
    throw error;
  }));
}

export const writeDocument = (ctx: Context) => write(ctx, ctx.method as WriteMethod);
export const deleteDocument = (ctx: Context) => write(ctx, 'DELETE');

async function write(ctx: Context, method: WriteMethod): Promise<void> {
  const { runtime, agent, served } = ctx.state;
  const documents = runtime.documents;
  const { relativePath, documentUrl } = documentOf(ctx);
  // only a PUT creates: a POST to a missing document needs Append on it, as on any, and is then a 404
  const creating = method === 'PUT' && documents.blobId(relativePath) === undefined;
  const modes = await authorizeDocument(ctx, relativePath, needOf(method)!, creating);
  const maxBytes = admitWrite(ctx, relativePath);
  const responseType = negotiateDocument(acceptOf(ctx.headers, ctx.querystring), writableTypes);
  ctx.vary('Accept');
  const links = documentLinks(runtime, documentUrl, agent, modes);
  if (links) ctx.set('Link', links);

  let body: { text: string; mediaType: string } | undefined;
  let update: string | undefined;
  if (method === 'PUT' || method === 'POST') {
    const mediaType = requestType(ctx, readableTypes);
    body = { text: await bodyText(ctx, maxBytes), mediaType };
  } else if (method === 'PATCH') {
    requestType(ctx, [SPARQL_UPDATE]);
    update = await bodyText(ctx, maxBytes);
  }
  // SPEC §4.6.6: the validator is the ETag of the representation this request's Accept selects
  const validatorType = responseType ?? 'not acceptable';
  const conditions = conditionsOf(ctx.headers);
  await afterPendingIo(); // the write goes on after the reads that came in meanwhile
  const result = await documents.write({
    method,
    relativePath,
    agent,
    body,
    update,
    readable: holds(modes, 'Read'),
    maxBytes,
    precondition: (current) => checkWrite(conditions, current === undefined ? undefined : served.etags.of(documentUrl, current, validatorType), () => served.etags.otherRepresentations(documentUrl, current!, validatorType)),
  });
  if (result.blobId) ctx.set('ETag', served.etags.of(documentUrl, result.blobId, validatorType));
  if (result.status === 'created' || result.status === 'replaced') {
    ctx.status = result.status === 'created' ? 201 : 200;
    if (result.status === 'created') ctx.set('Location', documentUrl);
    emptyBody(ctx);
  } else {
    ctx.status = 204;
  }
}
