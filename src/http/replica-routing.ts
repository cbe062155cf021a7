/**
 * What a read replica does before a row's handler (issue 29): a write is sent to the primary with a
 * 307 (method and body kept: the client repeats it there, where it is authorized, checked and
 * committed; a forward would make the replica a second writer's proxy and hide where the write
 * landed), and a read that asks for at least a commit (`Lodestone-Min-Commit`) waits briefly for it,
 * else is sent to the primary too, so a client reads its own writes wherever it reads. What only the
 * primary holds (branches: a replica follows main) is sent there whatever the method.
 */
import { LodestoneError } from '../errors.js';
import { emptyBody } from './body.js';
import { MIN_COMMIT_HEADER, type Context } from './state.js';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True when the request was answered here (sent to the primary); false: the row answers it. */
export async function sentToPrimary(ctx: Context, postReads: boolean, primaryOnly = false): Promise<boolean> {
  const asked = ctx.get(MIN_COMMIT_HEADER);
  if (asked !== '' && !/^[0-9a-f]{40}$/.test(asked)) throw new LodestoneError('BadRequest', `${MIN_COMMIT_HEADER} names a commit by its 40 hexadecimal digits (a Lodestone-Commit an answer gave)`);
  const { replica } = ctx.state.served;
  if (!replica) return false; // the primary holds every commit it has answered with
  const writes = primaryOnly || (!READS.has(ctx.method) && !(ctx.method === 'POST' && postReads));
  if (!writes && (asked === '' || (await replica.reached(ctx.state.runtime.documents.base, asked)))) return false;
  ctx.status = 307;
  ctx.set('Location', replica.primaryUrl(ctx.state.url) + (ctx.querystring ? `?${ctx.querystring}` : ''));
  emptyBody(ctx);
  return true;
}
