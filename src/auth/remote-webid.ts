/**
 * Remote WebID documents for the WebID-TLS verifier: fetched (through safeFetch, passed in as
 * `fetch`), read with the server's own RDF parsers into N-Triples lines, and cached for their
 * max-age (default 5 min, at most 1 h). Concurrent reads of one URL share one fetch, and only
 * `maxInFlight` URLs are fetched at once (past that, 503: anyone can name documents of theirs in a
 * certificate); a failure is cached briefly too, so a certificate naming an unreachable WebID does
 * not make the server fetch on every request.
 */
import { createHash } from 'node:crypto';
import { LodestoneError } from '../errors.js';
import { JSONLD, NTRIPLES, RDFXML, TURTLE } from '../rdf/formats.js';
import { toNTriples } from '../rdf/translate.js';
import type { FetchedDocument } from '../net/safe-fetch.js';
import { documentIri } from '../rdf/iri.js';

export interface RemoteDocument {
  /** The document's triples as N-Triples, one a line, sorted by code point (blank nodes labelled apart: rdf/translate.ts `toNTriples`). */
  ntriples: Buffer;
  /** SHA-1 of the fetched body: changes exactly when the bytes do. */
  blobId: string;
}

export interface RemoteWebIdsOptions {
  fetch: (url: string) => Promise<FetchedDocument>;
  /**
   * Reads a fetched document (text, media type, base) into N-Triples, its lines sorted as a stored
   * document's are (rdf/translate.ts `toNTriples`). The server reads it off the thread that answers
   * requests (a remote document is content from anyone); default: here.
   */
  parse?: (text: string, mediaType: string, base: string) => Promise<string>;
  /** Documents fetched at once at most (default 32: the verifier lets one address have 2 fetched at once); a read of another while they are is refused with Busy. */
  maxInFlight?: number;
  /** How long a document is reused when its response has no max-age; default 5 min. Capped at 1 h, like max-age. */
  ttlMs?: number;
  /** Documents (and failures) kept, least recently used dropped first; default 1000. */
  maxEntries?: number;
  /** How long a failure is remembered; default 30 s. */
  failureTtlMs?: number;
  /** Milliseconds since the epoch; default Date.now. */
  now?: () => number;
}

interface Entry {
  expires: number;
  document?: RemoteDocument;
  reason?: string;
}

const MAX_TTL_MS = 60 * 60_000;
const parsedTypes = new Set([TURTLE, NTRIPLES, RDFXML, JSONLD]);


export class RemoteWebIds {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<Entry>>();
  private readonly fetch: (url: string) => Promise<FetchedDocument>;
  private readonly parse: NonNullable<RemoteWebIdsOptions['parse']>;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly failureTtlMs: number;
  private readonly maxInFlight: number;
  private readonly now: () => number;

  constructor(options: RemoteWebIdsOptions) {
    this.fetch = options.fetch;
    this.parse = options.parse ?? toNTriples;
    this.maxInFlight = options.maxInFlight ?? 32;
    this.ttlMs = Math.min(options.ttlMs ?? 5 * 60_000, MAX_TTL_MS);
    this.maxEntries = options.maxEntries ?? 1000;
    this.failureTtlMs = options.failureTtlMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  /** The document's triples and blob id, or undefined when it cannot be fetched or parsed (see failure()); Busy when too many are being fetched. */
  async read(documentUrl: string): Promise<RemoteDocument | undefined> {
    const url = documentIri(documentUrl);
    const cached = this.entries.get(url);
    if (cached && cached.expires > this.now()) {
      this.remember(url, cached); // most recently used
      return cached.document;
    }
    let pending = this.pending.get(url);
    if (!pending) {
      if (this.pending.size >= this.maxInFlight) throw new LodestoneError('Busy', 'the server is reading too many remote WebID documents just now; try again in a few seconds', { retryAfter: 5 });
      pending = this.load(url).finally(() => this.pending.delete(url));
      this.pending.set(url, pending);
    }
    return (await pending).document;
  }

  /** The blob id of a cached, still fresh document; undefined when it must be read again. Synchronous. */
  blobId(documentUrl: string): string | undefined {
    const entry = this.entries.get(documentIri(documentUrl));
    return entry && entry.expires > this.now() ? entry.document?.blobId : undefined;
  }

  /** Why the latest read of the document gave undefined, for the log; undefined when it succeeded. */
  failure(documentUrl: string): string | undefined {
    return this.entries.get(documentIri(documentUrl))?.reason;
  }

  private async load(url: string): Promise<Entry> {
    const failed = (reason: string): Entry => this.remember(url, { expires: this.now() + this.failureTtlMs, reason: `${url}: ${reason}` });
    let fetched: FetchedDocument;
    try {
      fetched = await this.fetch(url);
    } catch (error) {
      return failed(error instanceof Error ? error.message : String(error));
    }
    if (fetched.status < 200 || fetched.status > 299) return failed(`answered ${fetched.status}`);
    if (!fetched.mediaType || !parsedTypes.has(fetched.mediaType)) return failed(`${fetched.mediaType ?? 'no media type'} is not an RDF format the server reads`);
    let ntriples: string;
    try {
      ntriples = await this.parse(fetched.body, fetched.mediaType, fetched.url); // RFC 3986 §5.1.3: the base is the URL retrieved, after redirects
    } catch (error) {
      return failed(error instanceof Error ? error.message : String(error));
    }
    const ttl = Math.min(fetched.maxAge === undefined ? this.ttlMs : fetched.maxAge * 1000, MAX_TTL_MS);
    const blobId = createHash('sha1').update(fetched.body).digest('hex');
    return this.remember(url, { expires: this.now() + ttl, document: { ntriples: Buffer.from(ntriples), blobId } });
  }

  private remember(url: string, entry: Entry): Entry {
    this.entries.delete(url);
    this.entries.set(url, entry);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
    return entry;
  }
}
