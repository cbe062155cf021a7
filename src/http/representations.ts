/**
 * Representations of current documents: ETags computed from the blob id without serialising
 * (DESIGN.md, "ETag"), and serialisations cached by blob id and media type, so a repeated GET of an
 * unchanged document does no RDF work at all.
 */
import { createHash } from 'node:crypto';
import { serialise, writableTypes } from '../rdf/formats.js';
import { ByteCache } from '../util/byte-cache.js';
import { memo } from '../util/memo.js';

const digest = memo((key: string) => `"${createHash('sha1').update(key).digest('base64url')}"`);

/** A digest over the document URL, the blob id and the media type: strong and opaque. */
export function etag(url: string, blobId: string, mediaType: string): string {
  return digest(`${url}\0${blobId}\0${mediaType}`);
}

/** The Content-Type header of a representation: Turtle, a text type, names its charset. */
/** The ETags of a document version in every RDF format but `except`, by media type (to explain a 412). */
export function otherRepresentations(url: string, blobId: string, except: string): Map<string, string> {
  return new Map(writableTypes.filter((type) => type !== except).map((type) => [type, etag(url, blobId, type)]));
}

/** The Content-Type of a textual media type: every format Lodestone writes is UTF-8, and says so (Python requests would read Windows-1252). */
export function contentTypeOf(mediaType: string): string {
  return `${mediaType}; charset=utf-8`;
}

export class RepresentationCache {
  private readonly entries: ByteCache<Buffer>;

  constructor(capacity = 64 * 1024 * 1024) {
    this.entries = new ByteCache<Buffer>(capacity, (body) => body.length);
  }

  /** The cached serialisation, if there is one. */
  peek(blobId: string, mediaType: string): Buffer | undefined {
    return this.entries.get(`${blobId} ${mediaType}`);
  }

  /**
   * The document (canonical N-Triples, blob `blobId`) in `mediaType`; a `variant` (e.g. the public
   * view of an agent document) is cached apart and `ntriples` gives its lines.
   */
  async get(blobId: string, mediaType: string, ntriples: () => string, variant = ''): Promise<Buffer> {
    const key = `${blobId} ${mediaType}${variant}`;
    const hit = this.entries.get(key);
    if (hit) return hit;
    const body = Buffer.from(await serialise(ntriples(), mediaType), 'utf8');
    this.entries.put(key, body);
    return body;
  }
}
