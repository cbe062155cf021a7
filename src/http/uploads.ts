/**
 * Uploads over HTTP (issue 28; the layout in git is documents/uploads.ts). `POST <base>uploads/`
 * takes a file: its bytes under their own media type (`curl --data-binary @photo.jpg -H
 * 'Content-Type: image/jpeg'`), or a form's multipart/form-data with one file part (the uploads
 * page). RDF sent there is appended to the container, as to any. The body is read no further than
 * the upload limit (413, nothing written), then parsed, checked and hashed in the uploads pool
 * (upload-reader.ts), so a large one holds up no other request. `GET <base>uploads/<sha1>` serves the bytes under the description's access control with
 * their media type and a strong ETag, never as active content of this origin: sandboxed, and
 * anything but plain images and text as an attachment.
 */
import { setImmediate as afterPendingIo } from 'node:timers/promises';
import contentType from 'content-type';
import { describedFile, storeUpload } from '../documents/uploads.js';
import { descriptionPath, UPLOADS, uploadBlobPath } from '../documents/upload-layout.js';
import { timestamp } from '../documents/metadata.js';
import { isLodestoneError, LodestoneError } from '../errors.js';
import { readableTypes } from '../rdf/formats.js';
import { AVIF, GIF, HTML, JPEG, MEDIA_TYPE_SYNTAX, MULTIPART_FORM, NTRIPLES, OCTET_STREAM, PLAIN, PNG, WEBP } from '../rdf/media-types.js';
import { readBody } from './body.js';
import { writeDocument } from './documents.js';
import type { Context, Decided, Reply } from './state.js';

/** Types shown in place when opened: images that run nothing, and plain text. Everything else is downloaded. */
const INLINE = new Set([PNG, JPEG, GIF, WEBP, AVIF, PLAIN]);
/** What every answer with a file's bytes says: never sniffed into another type, and a sandbox with no script, should a browser render it anyway. */
const CONTAINED = { 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "sandbox; default-src 'none'" };
/** Room for a form's boundaries and other fields around its file. */
const FORM_SLACK = 64 * 1024;

/** `POST <base>uploads/`: RDF goes to the container as to any document; anything else is a file. */
export async function postToUploads(ctx: Context, decided: Decided): Promise<void> {
  const header = ctx.get('Content-Type');
  const type = mediaOf(header);
  if (readableTypes.includes(type)) return writeDocument(ctx, decided);
  if (!header) throw new LodestoneError('UnsupportedMediaType', 'the upload has no Content-Type: send the file’s media type (an image’s, a PDF’s, …), or RDF to add to the container');
  const { runtime, agent, served } = ctx.state;
  const body = await uploadBody(ctx, type === MULTIPART_FORM ? served.uploadLimit + FORM_SLACK : served.uploadLimit);
  const file = await served.uploads.read(body, header, served.uploadLimit); // parsed, checked and hashed off this thread
  const documents = runtime.documents;
  await afterPendingIo(); // the write goes on after the reads that came in meanwhile
  // the same bytes sent again get the same answer: it tells nobody whether someone sent them first
  const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
  await storeUpload(documents, { ...file, bytes, agent, now: timestamp(new Date()) });
  const description = documents.url(descriptionPath(file.sha1));
  ctx.set('Link', `<${description}>; rel="describedby"`);
  if (type === MULTIPART_FORM && ctx.accepts(NTRIPLES, HTML) === HTML) {
    ctx.status = 303; // a form of the pages goes on to the file's page
    ctx.set('Location', description);
  } else {
    ctx.status = 201;
    ctx.set('Location', documents.url(UPLOADS + file.sha1));
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
  const type = mediaType && MEDIA_TYPE_SYNTAX.test(mediaType) ? mediaType : OCTET_STREAM;
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

/** The media type of a Content-Type header, lower-cased without parameters; '' when absent or unreadable. */
function mediaOf(header: string): string {
  try {
    return contentType.parse(header).type;
  } catch {
    return '';
  }
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
