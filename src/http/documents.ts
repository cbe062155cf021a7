/**
 * Document endpoints (SPEC §4.1): GET, HEAD, PUT, POST, PATCH, DELETE and OPTIONS on
 * `/<path>/`, the route table's handlers, given what dispatch decided (the modes held, the type
 * negotiated). Parses at the edge, hands a plain write request with its preconditions as a value to
 * the DocumentService, and answers with the statuses and headers of SPEC §3, §4.6 and
 * DESIGN.md's LinkedDataHub habits (201 with Location, 204 with the new ETag for POST and PATCH).
 * Reads return the reply of the one read path (document-read.ts), which dispatch sends (reply.ts).
 */
import { asksForPage, childListing } from './child-listing.js';
import { SPARQL_UPDATE } from '../rdf/media-types.js';
import { setImmediate as afterPendingIo } from 'node:timers/promises';
import type { WriteMethod } from '../documents/document-service.js';
import { conditionsOf, WriteConditions } from '../documents/preconditions.js';
import { isLodestoneError, LodestoneError } from '../errors.js';
import { HTML, readableTypes } from '../rdf/formats.js';
import { forbidden, holds } from './authorize.js';
import { decodeUtf8, emptyBody, mediaTypeOf, readBody } from './body.js';
import { currentDocumentReply, documentLinks, linesInView, type ReadReply } from './document-read.js';
import { deletedHtml, documentHtml } from './document-pages.js';
import { isAdminDataspace } from './dataspace-role.js';
import { clientOf } from './quotas.js';
import { requestMessage } from './commit-message.js';
import { branchOf } from './branch-of.js';
import type { Reply } from './reply.js';
import type { Context, Decided } from './state.js';


/** The media type of a request body, or a 415 naming what is accepted. */
export function requestType(ctx: Context, accepted: readonly string[]): string {
  const header = ctx.get('Content-Type');
  if (!header) throw new LodestoneError('UnsupportedMediaType', `the request has no Content-Type; accepted: ${accepted.join(', ')}`);
  const type = mediaTypeOf(ctx);
  if (!type) throw new LodestoneError('UnsupportedMediaType', `the request has an unreadable Content-Type "${header}"; accepted: ${accepted.join(', ')}`);
  if (!accepted.includes(type)) throw new LodestoneError('UnsupportedMediaType', `${type} is not accepted here; accepted: ${accepted.join(', ')}`);
  return type;
}

/** A read of the one read path as the reply to send: its body serialised when sent (cached per blob, type and view). */
export function readReply(ctx: Context, { body, ...reply }: ReadReply, text: (blobId: string) => Promise<string>): Reply {
  const made = async ({ blobId, type, variant }: NonNullable<ReadReply['body']>) => {
    const lines = await text(blobId);
    return ctx.state.served.representations.get(blobId, type, () => linesInView(lines, variant), variant);
  };
  return { ...reply, body: body && (() => made(body)) };
}

/** The preconditions of a write (SPEC §4.6.6): judged against the ETag of the representation this request's Accept selects. */
export function writeConditions(ctx: Context, documentUrl: string, type: string | undefined): WriteConditions {
  const { etags } = ctx.state.served;
  const validatorType = type ?? 'not acceptable';
  return new WriteConditions(conditionsOf(ctx.headers), { of: (blobId) => etags.of(documentUrl, blobId, validatorType), others: (blobId) => etags.otherRepresentations(documentUrl, blobId, validatorType) });
}

export async function readDocument(ctx: Context, { path: relativePath, modes, type }: Decided): Promise<Reply | void> {
  const { runtime, agent } = ctx.state;
  const document = await runtime.documents.read(relativePath);
  if (type === HTML && document) return documentHtml(ctx, relativePath, modes, document);
  if (type && document && asksForPage(ctx.querystring)) return childListing(ctx, relativePath, modes, type);
  let reply: ReadReply;
  try {
    reply = currentDocumentReply({ runtime, relativePath, agent, modes, blobId: document?.blobId, type, etags: ctx.state.served.etags });
  } catch (error) {
    // a deleted document's page links to its history, for those who may read it
    if (type === HTML && isLodestoneError(error, 'NotFound') && (await deletedHtml(ctx, relativePath, modes, error))) return;
    throw error;
  }
  // SPEC §4.6.7: HEAD gives an agent that may not read the validator, and nothing of the content (no page, no length)
  if (!holds(modes, 'Read')) reply.body = undefined;
  const answer = readReply(ctx, reply, async () => document!.bytes.toString('utf8'));
  const made = answer.body;
  if (made) {
    answer.body = () =>
      Promise.resolve(made()).catch((error: unknown) => {
        // the stored file itself does not parse (committed by hand with git): the server's data, not the request, is at fault
        if (!isLodestoneError(error, 'SyntaxError')) throw error;
        throw new LodestoneError('Corrupt', `${runtime.documents.url(relativePath)} is stored as ${runtime.documents.fileOf(relativePath)}, which is not valid N-Triples (${error.message}): correct or revert that commit`);
      });
  }
  return answer;
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

export const writeDocument = (ctx: Context, decided: Decided) => write(ctx, ctx.method as WriteMethod, decided);
export const deleteDocument = (ctx: Context, decided: Decided) => write(ctx, 'DELETE', decided);

async function write(ctx: Context, method: WriteMethod, { path: relativePath, modes, type }: Decided): Promise<void> {
  const { runtime, agent } = ctx.state;
  const documents = runtime.documents;
  const documentUrl = documents.url(relativePath);
  const maxBytes = admitWrite(ctx, relativePath);
  const note = requestMessage(ctx); // refused before the body is read
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
  const asked = writeConditions(ctx, documentUrl, type);
  // SPEC §5: a PUT authorized by Append on the parent (no Write here) creates, and replaces no document made since
  const conditions = method === 'PUT' && !holds(modes, 'Write') ? asked.creatingOnly(() => forbidden('Write', agent, documentUrl)) : asked;
  await afterPendingIo(); // the write goes on after the reads that came in meanwhile
  const result = await documents.write({ method, relativePath, agent, body, update, readable: holds(modes, 'Read'), maxBytes, conditions, branch: branchOf(ctx), note });
  if (result.blobId) ctx.set('ETag', conditions.tagOf(result.blobId));
  if (result.status === 'created' || result.status === 'replaced') {
    ctx.status = result.status === 'created' ? 201 : 200;
    if (result.status === 'created') ctx.set('Location', documentUrl);
    emptyBody(ctx);
  } else {
    ctx.status = 204;
  }
}
