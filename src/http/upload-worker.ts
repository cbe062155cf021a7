/**
 * A worker of the uploads pool (upload-reader.ts): the body of an upload read apart, off the thread
 * that answers requests. A form is parsed whole (undici's multipart parser, built into Node, runs
 * without a break) to its one file; the bytes are refused when empty or not the image their media
 * type names, and hashed.
 */
import { createHash } from 'node:crypto';
import contentType from 'content-type';
import { LodestoneError } from '../errors.js';
import { objectHeader } from '../git/objects.js';
import { GIF, JPEG, MEDIA_TYPE_SYNTAX, MULTIPART_FORM, OCTET_STREAM, PNG, WEBP } from '../rdf/media-types.js';
import { lowerThreadPriority, serveCalls } from '../util/worker.js';
import type { ReadFile, UploadWork } from './upload-reader.js';

/** The first bytes of the image types a browser shows, by media type: a file that claims one must be one. */
const SIGNATURES: Record<string, (b: Buffer) => boolean> = {
  [PNG]: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  [JPEG]: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  [GIF]: (b) => /^GIF8[79]a$/.test(b.toString('latin1', 0, 6)),
  [WEBP]: (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP',
};

/** The media type of a Content-Type, lower-cased without parameters; '' when unreadable. */
function mediaOf(header: string): string {
  try {
    return contentType.parse(header).type;
  } catch {
    return '';
  }
}

async function read({ body, contentType: header, limit }: UploadWork): Promise<ReadFile> {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const type = mediaOf(header);
  if (type !== MULTIPART_FORM) {
    if (!MEDIA_TYPE_SYNTAX.test(type) || type.startsWith('multipart/')) throw new LodestoneError('UnsupportedMediaType', `"${header.slice(0, 100)}" is not a media type a file can be uploaded with`);
    return { ...hashed(checked(bytes, type)), mediaType: type };
  }
  let form: FormData;
  try {
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'Content-Type': header } }).formData();
  } catch {
    throw new LodestoneError('BadRequest', 'the form cannot be read as multipart/form-data');
  }
  // a form with no file chosen still sends its part, with no name and nothing in it
  const file = [...form.values()].find((value): value is File => typeof value !== 'string' && (value.size > 0 || value.name !== ''));
  if (!file) throw new LodestoneError('BadRequest', 'the form has no file: choose a file to upload');
  if (file.size > limit) throw new LodestoneError('TooLarge', `a file uploaded here holds at most ${limit} bytes (serve --upload-limit)`, { headers: { Connection: 'close' } });
  const declared = mediaOf(file.type);
  const mediaType = MEDIA_TYPE_SYNTAX.test(declared) ? declared : OCTET_STREAM;
  const title = form.get('title');
  return { ...hashed(checked(Buffer.from(await file.arrayBuffer()), mediaType)), mediaType, fileName: file.name || undefined, title: typeof title === 'string' ? title : undefined };
}

/** The bytes, refused when empty or when they are not the image their media type says. */
function checked(bytes: Buffer, type: string): Buffer {
  if (bytes.length === 0) throw new LodestoneError('BadRequest', 'the file is empty: there is nothing to upload');
  const signature = SIGNATURES[type];
  if (signature && !signature(bytes)) throw new LodestoneError('UnsupportedMediaType', `the file is not ${type}: its bytes do not begin as that type’s do; send its own media type`);
  return bytes;
}

/** The bytes with their SHA-1 (the file's name) and their git blob id. */
function hashed(bytes: Buffer): { bytes: Uint8Array; sha1: string; blobId: string } {
  const sha1 = createHash('sha1').update(bytes).digest('hex');
  const blobId = createHash('sha1').update(objectHeader('blob', bytes.length)).update(bytes).digest('hex');
  return { bytes, sha1, blobId };
}

lowerThreadPriority(5); // hashing and parsing yield the CPU to the thread answering requests
serveCalls<UploadWork>((request) => read(request));
