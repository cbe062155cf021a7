/**
 * The comments of a branch's change request over HTTP (issue 30): `<base>?branch=<name>&comments`.
 * GET/HEAD: the thread in every RDF format a document has, its ETag its last commit's (304 as
 * usual); POST of `text/plain`, or of the change request page's form (`content=`), adds a comment:
 * 201 with its IRI in Location (a browser's form is sent back to the page, 303). Dispatch has
 * decided access (authorize.ts `branch`: Read to read, Append on every changed document to comment).
 */
import { formFields } from '../auth/signup.js';
import { commentText, COMMENT_MAX } from '../documents/change-request-comments.js';
import { LodestoneError } from '../errors.js';
import { FORM, PLAIN } from '../rdf/media-types.js';
import { forbidden } from './authorize.js';
import { decodeUtf8, emptyBody, mediaTypeOf, readBody } from './body.js';
import { branchOf } from './branch-of.js';
import { graphReply } from './graph-reply.js';
import type { Reply } from './reply.js';
import type { Context, Decided } from './state.js';

/** A comment's body at most: its text, each character percent-encoded in UTF-8 (a form's worst case). */
const BODY_MAX = COMMENT_MAX * 4 * 3 + 1024;

export async function comments(ctx: Context, decided: Decided): Promise<Reply | void> {
  const { runtime, agent } = ctx.state;
  const name = branchOf(ctx)!;
  const service = runtime.documents.comments;
  if (ctx.state.relative !== '') throw new LodestoneError('BadRequest', `a change request's comments are at ${service.threadUrl(name)}`);
  if (ctx.method === 'GET' || ctx.method === 'HEAD') {
    const { head, ntriples } = await service.thread(name);
    const type = decided.type;
    if (type === undefined) return; // dispatch answers 406
    // serialisations cached by the thread's commit (at most THREAD_BYTES_MAX of N-Triples to write)
    const reply = graphReply(ctx, service.threadUrl(name), `comments:${head ?? 'none'}`, ntriples, type);
    return { ...reply, headers: { 'Cache-Control': 'private, no-cache', Link: `<${service.changesUrl(name)}>; rel="up"` } };
  }
  // a comment has an author: anonymous agents are refused as those without Append are (authorize.ts)
  if (agent === undefined) throw forbidden('Append', agent, service.changesUrl(name));
  const mediaType = mediaTypeOf(ctx);
  if (mediaType !== PLAIN && mediaType !== FORM) throw new LodestoneError('UnsupportedMediaType', `a comment is sent as ${PLAIN} (its text) or ${FORM} (a field "content"), not ${mediaType || 'without a Content-Type'}`);
  const body = decodeUtf8(await readBody(ctx.req, BODY_MAX));
  const raw = mediaType === PLAIN ? body : formFields(body).find(([field]) => field === 'content')?.[1];
  if (raw === undefined) throw new LodestoneError('BadRequest', 'the form has no field "content": it holds the comment’s text');
  const { iri } = await service.post(name, commentText(raw), agent);
  ctx.set('Location', iri);
  // the page's form without scripts: back to the change request, at the new comment (RFC 9110 §15.4.4)
  const page = mediaType === FORM && /\btext\/html\b/.test(ctx.get('Accept'));
  ctx.status = page ? 303 : 201;
  if (page) ctx.set('Location', `${service.changesUrl(name)}#${iri.slice(iri.indexOf('#') + 1)}`);
  emptyBody(ctx);
}
