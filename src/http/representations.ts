/**
 * Representations of current documents: ETags computed from the blob id without serialising
 * (DESIGN.md, "ETag"), keyed with the server's secret, and serialisations cached by blob id and
 * media type, so a repeated GET of an unchanged document does no RDF work at all.
 */
import { createHmac } from 'node:crypto';
import { serialise, writableTypes } from '../rdf/formats.js';
import { ByteCache } from '../util/byte-cache.js';
import { memo } from '../util/memo.js';

/**
 * The ETags of this server: an HMAC under its key (`DIR/secrets/etag.key`, made by the composition
 * root) over the document URL, the version (a git blob id, or a digest of a graph or page) and the
 * media type, 160 bits in base64url. Unkeyed, a digest of public inputs would let anyone who may
 * only HEAD a document test a guess of its content against its ETag (issue 25); keyed, it tells
 * nothing but "changed or not". Strong and opaque; every ETag of a document or graph is made here.
 */
export class Etags {
  private readonly digest: (text: string) => string;

  constructor(key: Buffer) {
    if (key.length < 32) throw new Error('the ETag key must be at least 32 bytes');
    this.digest = memo((text) => `"${createHmac('sha256', key).update(text).digest().subarray(0, 20).toString('base64url')}"`);
  }

  /** The ETag of `url` at `version` (a blob id, or a digest of the content) in `mediaType`. */
  of(url: string, version: string, mediaType: string): string {
    return this.digest(`${url}\0${version}\0${mediaType}`);
  }

  /** The ETags of a document version in every RDF format but `except`, by media type (to explain a 412). */
  otherRepresentations(url: string, version: string, except: string): Map<string, string> {
    return new Map(writableTypes.filter((type) => type !== except).map((type) => [type, this.of(url, version, type)]));
  }
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

  /** The key of the serialisation of blob `blobId` in `mediaType` (its variant appended), for `peekKey`. */
  key(blobId: string, mediaType: string): string {
    return `${blobId} ${mediaType}`;
  }

  /** The cached serialisation, if there is one. */
  peek(blobId: string, mediaType: string): Buffer | undefined {
    return this.entries.get(this.key(blobId, mediaType));
  }

  /** The cached serialisation under `key` (from `key`), if there is one: a repeated look-up builds no string. */
  peekKey(key: string): Buffer | undefined {
    return this.entries.get(key);
  }

  /**
   * The document (canonical N-Triples, blob `blobId`) in `mediaType`; a `variant` (e.g. the public
   * view of an agent document) is cached apart and `ntriples` gives its lines.
   */
  async get(blobId: string, mediaType: string, ntriples: () => string, variant = ''): Promise<Buffer> {
    const key = this.key(blobId, mediaType + variant);
    const hit = this.entries.get(key);
    if (hit) return hit;
    const body = Buffer.from(await serialise(ntriples(), mediaType), 'utf8');
    this.entries.put(key, body);
    return body;
  }
}
