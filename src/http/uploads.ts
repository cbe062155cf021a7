/**
 * Uploads over HTTP (issue 28; the layout in git is documents/uploads.ts). `POST <base>uploads/`
 * takes a file: its bytes under their own media type (`curl --data-binary @photo.jpg -H
 * 'Content-Type: image/jpeg'`), or a form's multipart/form-data with one file part (the uploads
 * page). RDF sent there is appended to the container, as to any. The body is read no further than
 * the upload limit (413, nothing written) and hashed in slices, so a large one holds up no other
 * request. `GET <base>uploads/<sha1>` serves the bytes under the description's access control with
 * their media type and a strong ETag, never as active content of this origin: sandboxed, and
 * anything but plain images and text as an attachment.
 */
import { createHash } from 'node:crypto';
import { setImmediate as afterPendingIo } from 'node:timers/promises';
import contentType from 'content-type';
import { describedFile, storeUpload } from '../documents/uploads.js';
import { descriptionPath, UPLOADS, uploadBlobPath } from '../documents/upload-layout.js';
import { timestamp } from '../documents/metadata.js';
import { isLodestoneError, LodestoneError } from '../errors.js';
import { objectHeader } from '../git/objects.js';
import { readableTypes } from '../rdf/formats.js';
import { AVIF, GIF, HTML, JPEG, MULTIPART_FORM, NTRIPLES, OCTET_STREAM, PLAIN, PNG, WEBP } from '../rdf/media-types.js';
import { readBody } from './body.js';
import { writeDocument } from './documents.js';
import type { Context, Decided, Reply } from './state.js';

/** Types shown in place when opened: images that run nothing, and plain text. Everything else is downloaded. */
const INLINE = new Set([PNG, JPEG, GIF, WEBP, AVIF, PLAIN]);
/** What every answer with a file's bytes says: never sniffed into another type, and a sandbox with no script, should a browser render it anyway. */
const CONTAINED = { 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "sandbox; default-src 'none'" };
/** The first bytes of the image types a browser shows, by media type: a file that claims one must be one. */
const SIGNATURES: Record<string, (b: Buffer) => boolean> = {
  [PNG]: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  [JPEG]: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  [GIF]: (b) => /^GIF8[79]a$/.test(b.toString('latin1', 0, 6)),
  [WEBP]: (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP',
};
/** RFC 9110 §8.3.1: type "/" subtype, both tokens. */
const MEDIA_TYPE = /^[a-z0-9!#$%&'*+.^_`|~-]+\/[a-z0-9!#$%&'*+.^_`|~-]+$/;
/** How much is hashed between two turns of the event loop. */
const SLICE = 1 << 20;
/** Room for a form's boundaries and other fields around its file. */
const FORM_SLACK = 64 * 1024;

/** `POST <base>uploads/`: RDF goes to the container as to any document; anything else is a file. */
export async function postToUploads(ctx: Context, decided: Decided): Promise<void> {
  const type = mediaOf(ctx.get('Content-Type'));
  if (type !== undefined && readableTypes.includes(type)) return writeDocument(ctx, decided);
  const file = type === MULTIPART_FORM ? await fileOfForm(ctx) : await fileOfBody(ctx, type);
  const { sha1, blobId } = await fingerprint(file.bytes);
  const { runtime, agent } = ctx.state;
  const documents = runtime.documents;
  await afterPendingIo(); // the write goes on after the reads that came in meanwhile
  // the same bytes sent again get the same answer: it tells nobody whether someone sent them first
  await storeUpload(documents, { ...file, sha1, blobId, agent, now: timestamp(new Date()) });
  const fileUrl = documents.url(UPLOADS + sha1);
  const description = documents.url(descriptionPath(sha1));
  ctx.set('Link', `<${description}>; rel="describedby"`);
  if (type === MULTIPART_FORM && ctx.accepts(NTRIPLES, HTML) === HTML) {
    ctx.status = 303; // a form of the uploads page goes on to the file's page
    ctx.set('Location', description);
  } else {
    ctx.status = 201;
    ctx.set('Location', fileUrl);
  }
  ctx.body = '';
  ctx.remove('Content-Type');
}

/** `GET <base>uploads/<sha1>`: the bytes, once authorized on their description (dispatch). */
export async function serveUpload(ctx: Context, { captured, path }: Decided): Promise<Reply> {
  const sha1 = captured[0]!;
  const { runtime } = ctx.state;
  const documents = runtime.documents;
  const fileUrl = documents.url(UPLOADS + sha1);
  const description = await documents.read(path);
  const blobId = runtime.dataspace.store.blobId(uploadBlobPath(runtime.dataspace.store.prefix, sha1));
  if (!description || !blobId) throw new LodestoneError('NotFound', `there is no file at ${fileUrl}`);
  const { mediaType, fileName } = describedFile(description.bytes, fileUrl);
  const type = mediaType && MEDIA_TYPE.test(mediaType) ? mediaType : OCTET_STREAM;
  const inline = INLINE.has(type);
  if (!inline) ctx.attachment(fileName ?? sha1, { type: 'attachment' });
  // SPEC §8.5: uploads are cached; the bytes of a URL never change, but who may read them can
  const everyone = (await runtime.access.modesOn(runtime, path, undefined)).has('Read');
  const headers: Record<string, string> = {
    ...CONTAINED,
    'Cache-Control': everyone ? 'public, max-age=31536000, immutable' : 'private, no-cache',
    Link: `<${documents.url(path)}>; rel="describedby"`,
  };
  return { etag: `"${sha1}"`, headers, contentType: type, body: () => runtime.dataspace.store.readBlob(blobId) };
}

/** The media type of a Content-Type header, lower-cased without parameters; undefined when absent, '' when unreadable. */
function mediaOf(header: string): string | undefined {
  if (!header) return undefined;
  try {
    return contentType.parse(header).type;
  } catch {
    return '';
  }
}

interface Sent {
  bytes: Buffer;
  mediaType: string;
  fileName?: string;
  title?: string;
}

/** A file sent as the body, under its own media type. */
async function fileOfBody(ctx: Context, type: string | undefined): Promise<Sent> {
  if (type === undefined) throw new LodestoneError('UnsupportedMediaType', 'the upload has no Content-Type: send the file’s media type (an image’s, a PDF’s, …), or RDF to add to the container');
  if (!MEDIA_TYPE.test(type) || type.startsWith('multipart/')) throw new LodestoneError('UnsupportedMediaType', `"${ctx.get('Content-Type').slice(0, 100)}" is not a media type a file can be uploaded with`);
  const bytes = await uploadBody(ctx, ctx.state.served.uploadLimit);
  return { bytes: checked(bytes, type), mediaType: type };
}

/** The one file of a form (multipart/form-data), with its name and an optional `title` field. */
async function fileOfForm(ctx: Context): Promise<Sent> {
  const limit = ctx.state.served.uploadLimit;
  const body = await uploadBody(ctx, limit + FORM_SLACK);
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.length), { headers: { 'Content-Type': ctx.get('Content-Type') } }).formData();
  } catch {
    throw new LodestoneError('BadRequest', 'the form cannot be read as multipart/form-data');
  }
  const file = [...form.values()].find((value): value is File => typeof value !== 'string' && (value.size > 0 || value.name !== ''));
  if (!file) throw new LodestoneError('BadRequest', 'the form has no file: choose a file to upload');
  if (file.size > limit) throw tooLarge(limit);
  const title = form.get('title');
  const mediaType = mediaOf(file.type) || OCTET_STREAM;
  const bytes = checked(Buffer.from(await file.arrayBuffer()), MEDIA_TYPE.test(mediaType) ? mediaType : OCTET_STREAM);
  return { bytes, mediaType, fileName: file.name || undefined, title: typeof title === 'string' ? title : undefined };
}

/** The request body up to `limit` bytes, with a 413 that names the upload limit. */
async function uploadBody(ctx: Context, limit: number): Promise<Buffer> {
  try {
    return await readBody(ctx.req, limit);
  } catch (error) {
    if (isLodestoneError(error, 'TooLarge')) throw tooLarge(ctx.state.served.uploadLimit);
    throw error;
  }
}

function tooLarge(limit: number): LodestoneError {
  return new LodestoneError('TooLarge', `a file uploaded here holds at most ${limit} bytes (serve --upload-limit)`, { headers: { Connection: 'close' } });
}

/** The bytes, refused when empty or when they are not the image their media type says. */
function checked(bytes: Buffer, type: string): Buffer {
  if (bytes.length === 0) throw new LodestoneError('BadRequest', 'the file is empty: there is nothing to upload');
  const signature = SIGNATURES[type];
  if (signature && !signature(bytes)) throw new LodestoneError('UnsupportedMediaType', `the file is not ${type}: its bytes do not begin as that type’s do; send its own media type`);
  return bytes;
}

/** The SHA-1 of the bytes (the file's name) and their git blob id, hashed a slice at a time. */
async function fingerprint(bytes: Buffer): Promise<{ sha1: string; blobId: string }> {
  const sha1 = createHash('sha1');
  const blob = createHash('sha1').update(objectHeader('blob', bytes.length));
  for (let at = 0; at < bytes.length; at += SLICE) {
    const slice = bytes.subarray(at, at + SLICE);
    sha1.update(slice);
    blob.update(slice);
    if (at + SLICE < bytes.length) await afterPendingIo();
  }
  return { sha1: sha1.digest('hex'), blobId: blob.digest('hex') };
}
