/**
 * `<base>.git/info/refs` and `<base>.git/git-upload-pack`: a dataspace's repository over git's
 * smart HTTP protocol (gitprotocol-http(5)), read-only, for the server's own secretary only
 * (DESIGN.md "Replicas and status": replicas hold its certificate; the row needs it). So
 * `git clone -c http.sslCert=secretary.pem https://host/.git` copies the history a replica follows.
 * Push is not offered: `service=git-receive-pack` is refused. The pack is made in a child process
 * (store/upload-pack.ts), its bytes streamed as they come.
 */
import { createGunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { LodestoneError } from '../errors.js';
import { GIT_ADVERTISEMENT as ADVERTISEMENT, GIT_HEAD_PACK as HEAD_PACK, GIT_REQUEST as REQUEST, GIT_RESULT as RESULT } from '../rdf/media-types.js';
import { PLAIN } from '../rdf/formats.js';
import { mediaTypeOf } from './body.js';
import type { Context } from './state.js';

/** A client's wants and haves: a few hundred bytes per ref and per commit it has (git sends them gzipped when large). */
const REQUEST_LIMIT = 16 * 1024 * 1024;
/** How long a replica's question for a new HEAD is held open. */
const HEAD_WAIT_MS = 20_000;

/** GET and HEAD of `info/refs?service=git-upload-pack`: the refs advertisement. */
export async function gitRefs(ctx: Context): Promise<void> {
  const service = new URLSearchParams(ctx.querystring).get('service');
  if (service === 'git-receive-pack') throw new LodestoneError('Forbidden', 'this repository is read-only over HTTP: every write is a request to the server');
  if (service !== 'git-upload-pack') throw new LodestoneError('BadRequest', 'only git’s smart HTTP protocol is served: ask for info/refs?service=git-upload-pack');
  ctx.set('Cache-Control', 'no-cache');
  ctx.type = ADVERTISEMENT;
  ctx.body = await ctx.state.served.uploadPack.advertise(ctx.state.runtime.documents.repository, ctx.get('Git-Protocol') || undefined);
}

/** POST of `git-upload-pack`: the pack of what the client wants and has not, streamed as git makes it. */
export async function gitUploadPack(ctx: Context): Promise<void> {
  if (mediaTypeOf(ctx) !== REQUEST) throw new LodestoneError('UnsupportedMediaType', `send a git upload-pack request as ${REQUEST}`);
  const encoding = ctx.get('Content-Encoding');
  if (encoding !== '' && encoding !== 'gzip') throw new LodestoneError('UnsupportedMediaType', `a git request is sent plain or gzipped, not ${encoding}`);
  const body = encoding === 'gzip' ? ctx.req.pipe(createGunzip()) : ctx.req;
  ctx.set('Cache-Control', 'no-cache');
  ctx.type = RESULT;
  ctx.body = await ctx.state.served.uploadPack.pack(ctx.state.runtime.documents.repository, ctx.get('Git-Protocol') || undefined, bounded(body, REQUEST_LIMIT));
}

/**
 * GET of `head?after=<sha>`: the branch's HEAD (40 hex digits, or nothing for an empty branch) as
 * soon as it is not `after`, held open up to 20 s: a replica learns of each commit at once without
 * asking again and again (Lodestone's own, beside git's protocol). With `&pack=1`, the commits
 * from `after` come with it: a line `<HEAD> <number of commits>`, then a pack stream (git's format,
 * whole objects) of what they hold beyond `after`, so a round spawns no process on either side;
 * when that cannot be made (a long way behind, a merge) the answer is the HEAD alone and the
 * replica fetches with git.
 */
export async function gitHead(ctx: Context): Promise<void> {
  const query = new URLSearchParams(ctx.querystring);
  const after = query.get('after') ?? undefined;
  if (after !== undefined && !/^[0-9a-f]{40}$/.test(after)) throw new LodestoneError('BadRequest', 'after= names a commit by its 40 hexadecimal digits');
  const gone = new AbortController();
  ctx.res.once('close', () => gone.abort()); // the replica went away (the response's close: the request's comes once it is read)
  const { documents } = ctx.state.runtime;
  const head = await documents.headAfter(after, HEAD_WAIT_MS, gone.signal);
  ctx.set('Cache-Control', 'no-store');
  const packed = query.get('pack') === '1' && after !== undefined && head !== undefined && head !== after && !gone.signal.aborted ? await documents.headPack(after, head) : undefined;
  if (packed) {
    ctx.type = HEAD_PACK;
    ctx.body = Buffer.concat([Buffer.from(`${head} ${packed.commits}\n`), packed.pack]);
    return;
  }
  ctx.type = `${PLAIN}; charset=utf-8`;
  ctx.body = `${head ?? ''}\n`;
}

/** `input`, cut off with an error past `limit` bytes (git then stops: the client sees the request refused). */
function bounded(input: Readable, limit: number): Readable {
  let seen = 0;
  return Readable.from(
    (async function* () {
      for await (const chunk of input) {
        seen += (chunk as Buffer).length;
        if (seen > limit) throw new LodestoneError('TooLarge', `a git request of more than ${limit} bytes`);
        yield chunk as Buffer;
      }
    })(),
  );
}
