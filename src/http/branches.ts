/**
 * Branches over HTTP (issue 30): `<document>?branch=<name>` reads the document as the branch has it
 * (writes are the document handlers', documents.ts, given the branch), and `<base>?branch=<name>&changes`
 * is the branch's change request: GET its diff against main (text/plain, one `-`/`+` line per
 * triple under a `# <document>` line, as `?diff=` answers, or a page; only documents the agent may read), POST
 * merges it (If-Match: the branch's HEAD, which the GET gives as its ETag), DELETE discards it.
 * Dispatch has decided access (authorize.ts `branch`). Branches are drafts of end-user dataspaces only.
 */
import { ChangeRequestComments } from '../documents/change-request-comments.js';
import { LodestoneError } from '../errors.js';
import { HTML, PLAIN } from '../rdf/formats.js';
import { lineTerms } from '../rdf/canonical-lines.js';
import { labelOf } from '../pages/labels.js';
import { changeRequestPage, type ChangedDocumentView } from '../pages/change-request-page.js';
import { frameOf, namesOf, sendPage } from './html.js';
import { contentTypeOf } from './representations.js';
import { holds } from './authorize.js';
import { emptyBody } from './body.js';
import { currentDocumentReply } from './document-read.js';
import { readReply } from './documents.js';
import { branchOf } from './branch-of.js';
import type { Reply } from './reply.js';
import { COMMIT_HEADER, type Context, type Decided } from './state.js';

/** GET or HEAD of a document as the branch has it; 404 when the branch or the document on it does not exist. */
export async function readOnBranch(ctx: Context, { path, modes, type }: Decided): Promise<Reply> {
  const { runtime, agent } = ctx.state;
  const name = branchOf(ctx)!;
  const blobId = await runtime.documents.changeRequests.blobOn(name, path);
  const reply = currentDocumentReply({ runtime, relativePath: path, agent, modes, blobId, type, etags: ctx.state.served.etags });
  if (!holds(modes, 'Read')) reply.body = undefined; // SPEC §4.6.7, as on main
  return readReply(ctx, reply, async (id) => (await runtime.documents.blob(id)).toString('utf8'));
}

/** The ETags an `If-Match` lists (RFC 9110 §13.1.1); undefined when it is absent or empty. */
function ifMatch(ctx: Context): string[] | undefined {
  const header = ctx.get('If-Match').trim();
  return header === '' ? undefined : header.split(',').map((tag) => tag.trim());
}

/** The change request as a page: its triples labelled (people and documents by the names their pages give them), the merge form for one who may write, the comments and their form for one who may comment. */
async function changeRequestHtml(ctx: Context, name: string, head: string, documents: ChangedDocumentView[], canWrite: boolean, canComment: boolean, merged: string | undefined): Promise<void> {
  const frame = await frameOf(ctx);
  const service = ctx.state.runtime.documents.comments;
  const comments = ChangeRequestComments.posts((await service.thread(name)).ntriples);
  const iris = documents.flatMap((d) => [...d.removed, ...d.added].flatMap((line) => (lineTerms(line) ?? []).filter((term, i) => i !== 1 && term.startsWith('<')).map((term) => term.slice(1, -1))));
  const names = await namesOf(ctx, [...iris, ...comments.flatMap((c) => (c.creator ? [c.creator] : []))]);
  const labels = ctx.state.runtime.labels.current();
  const label = (iri: string) => names[iri] ?? labelOf(iri, frame.language, labels);
  const thread = { url: service.threadUrl(name), comments: comments.map((c) => ({ ...c, name: c.creator && names[c.creator] })), canComment };
  sendPage(ctx, 200, frame.language, changeRequestPage(frame, name, head, documents, canWrite, label, thread, merged));
}

/** The change request: GET its diff, POST a merge, DELETE a discard. */
export async function changeRequest(ctx: Context, decided: Decided): Promise<Reply | void> {
  const { runtime, agent } = ctx.state;
  const name = branchOf(ctx)!;
  const requests = runtime.documents.changeRequests;
  if (ctx.state.relative !== '') throw new LodestoneError('BadRequest', `a branch's change request is at ${runtime.documents.base}?branch=${encodeURIComponent(name)}&changes`);
  const changed = await requests.changed(name);
  if (!changed) throw new LodestoneError('NotFound', `there is no branch ${name} with changes you may see`); // authorize.ts answered first
  if (ctx.method === 'GET' || ctx.method === 'HEAD') {
    const access = runtime.access;
    const readable = [];
    let canComment = agent !== undefined; // as the comments' row decides: Append on every document the branch changed
    for (const document of changed.documents) {
      const modes = await access.modesOn(runtime, document.relativePath, agent);
      if (holds(modes, 'Read')) readable.push(document);
      if (!holds(modes, 'Append')) canComment = false;
    }
    const diff = await requests.diff(readable);
    if (decided.type === HTML) return changeRequestHtml(ctx, name, changed.head, diff, holds(decided.modes, 'Write'), canComment, changed.merged);
    const lines = diff.flatMap((d) => [`# ${d.url}`, ...d.removed.map((l) => `- ${l}`), ...d.added.map((l) => `+ ${l}`)]);
    // the ETag is the branch's HEAD: what a merge quotes in If-Match, so it merges what was reviewed
    return { contentType: contentTypeOf(PLAIN), etag: `"${changed.head}"`, headers: { 'Cache-Control': 'private, no-cache' }, body: () => lines.join('\n') + '\n' };
  }
  // a merge or a discard says which version of the branch it means (RFC 6585 §3: 428 without)
  const tags = ifMatch(ctx);
  if (ctx.method === 'POST' && !tags) throw new LodestoneError('PreconditionRequired', `a merge needs If-Match with the branch's ETag ("${changed.head}" now, from GET ${runtime.documents.base}?branch=${name}&changes)`);
  const expected = tags === undefined || tags.includes('*') ? changed.head : tags.map((t) => t.replace(/^W\//, '').replace(/"/g, '')).find((t) => t === changed.head);
  if (expected === undefined) throw new LodestoneError('PreconditionFailed', `the branch ${name} is at "${changed.head}", not ${tags!.join(', ')}`, { etag: `"${changed.head}"` });
  if (ctx.method === 'DELETE') await requests.discard(name, expected);
  else {
    const { commit } = await requests.merge(name, expected, agent);
    if (commit) ctx.set(COMMIT_HEADER, commit); // the answer reflects main's new commit
  }
  ctx.status = 204;
  emptyBody(ctx);
}
