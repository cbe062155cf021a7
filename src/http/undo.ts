/**
 * Undo at scale over HTTP (issue 30): `POST <container>?restore=<commit or xsd:dateTime>&recursive`
 * restores the container and every document under it as then, and `POST <container>?revert=<commit>`
 * reverts a commit within it (`<base>?revert=`: across the dataspace); each is one commit, under an
 * If-Match on the addressed container (RFC 9110 §13.1.1), with Write on every document it changes.
 * The work is the document service's (src/documents/undo.ts).
 */
import type { UndoRequest, UndoResult } from '../documents/undo.js';
import { LodestoneError } from '../errors.js';
import { holds } from './authorize.js';
import { emptyBody } from './body.js';
import { requestMessage } from './commit-message.js';
import { admitWrite, writeConditions } from './documents.js';
import type { Context, Decided } from './state.js';

/** What the request asks of the undo: its preconditions, message, and the agent's access to each document changed. */
function undoRequest(ctx: Context, { path: relativePath, type }: Decided): UndoRequest {
  const { runtime, agent } = ctx.state;
  admitWrite(ctx, relativePath);
  return {
    relativePath,
    agent,
    conditions: writeConditions(ctx, runtime.documents.url(relativePath), type),
    message: requestMessage(ctx),
    mayChange: async (path, version) =>
      holds(await runtime.access.modesOn(runtime, path, agent), 'Write') && (version === undefined || holds(await runtime.access.modesOn(runtime, path, agent, { blob: version }), 'Read')),
  };
}

function undoOf(ctx: Context) {
  const undo = ctx.state.runtime.documents.undo;
  if (!undo) throw new LodestoneError('NotFound', `${ctx.state.runtime.documents.base} is not versioned: it has no history to restore or revert`);
  return undo;
}

function answer(ctx: Context, request: UndoRequest, result: UndoResult): void {
  if (result.blobId) ctx.set('ETag', request.conditions.tagOf(result.blobId));
  ctx.status = 204;
  emptyBody(ctx);
}

/** `POST <container>?restore=<commit or date>&recursive`: the container and everything under it as then, in one commit. */
export async function restoreRecursive(ctx: Context, decided: Decided): Promise<void> {
  const undo = undoOf(ctx);
  const target = new URLSearchParams(ctx.querystring).get('restore') ?? '';
  const request = undoRequest(ctx, decided);
  answer(ctx, request, await undo.restore(request, target));
}

/** `POST <container>?revert=<commit>`: the commit's changes to the documents under the container undone, in one commit. */
export async function revert(ctx: Context, decided: Decided): Promise<void> {
  const undo = undoOf(ctx);
  const sha = new URLSearchParams(ctx.querystring).get('revert') ?? '';
  const request = undoRequest(ctx, decided);
  answer(ctx, request, await undo.revert(request, sha));
}
