/**
 * Representations of current documents: ETags computed from the blob id without serialising
 * (DESIGN.md, "ETag"), and serialisations cached by blob id and media type, so a repeated GET of an
 * unchanged document does no RDF work at all.
 */
import { createHash } from 'node:crypto';
import { serialise } from '../rdf/formats.js';
import { memo } from '../util/memo.js';

const digest = memo((key: string) => `"${createHash('sha1').update(key).digest('base64url')}"`);

/** A digest over the document URL, the blob id and the media type: strong and opaque. */
export function etag(url: string, blobId: string, mediaType: string): string {
  return digest(`${url}\0${blobId}\0${mediaType}`);
}

export class RepresentationCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly capacity = 64 * 1024 * 1024) {}

  /** The document (canonical N-Triples, blob `blobId`) in `mediaType`. */
  async get(blobId: string, mediaType: string, ntriples: () => string): Promise<Buffer> {
    const key = `${blobId} ${mediaType}`;
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key); // most recently used goes last
      this.entries.set(key, hit);
      return hit;
    }
    const body = Buffer.from(await serialise(ntriples(), mediaType), 'utf8');
    this.entries.set(key, body);
    this.bytes += body.length;
    for (const [oldest, value] of this.entries) {
      if (this.bytes <= this.capacity) break;
      this.entries.delete(oldest);
      this.bytes -= value.length;
    }
    return body;
  }
}
