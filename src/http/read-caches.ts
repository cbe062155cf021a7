/**
 * What the read routes keep between requests, built once by the composition root and passed in
 * (the app's `Served`, the read fast path): mementos found (immutable: their blob and time, for the
 * fast path), TimeMaps and blame serialised, SPARQL answers, parsed query shapes, what a page takes
 * from a document's text, and the titles of the documents pages name. Each is bounded.
 */
import type { Titles } from '../pages/labels.js';
import type { QueryShape } from '../rdf/sparql-text.js';
import { ByteCache } from '../util/byte-cache.js';

/** A memento found: its blob and commit time. */
export interface FoundMemento {
  blob: string;
  time: number;
}

/** What a document's page takes from its text for a view, whoever looks (document-pages.ts): kept by document URL, blob and view, since a blob never changes. */
export interface PageFacts {
  /** The view's lines (the document, or an agent document's public view). */
  text: string;
  /** Whether the page lists children: the dataspace's root, or a dh:Container. */
  container: boolean;
  /** The lines the page draws (TRIPLES_PER_PAGE at most), and how many there are when that is not all. */
  shown: { ntriples: string; truncated?: { shown: number; total: number } };
  /** The IRI objects of the lines drawn: the page names those it may. */
  named: string[];
}

/** A SPARQL answer kept (sparql.ts): its body, its media type, and when it was computed. */
export interface CachedAnswer {
  body: string;
  type: string;
  at: number;
}

const SPARQL_BYTES = 32 * 1024 * 1024;
const MEMENTOS = 100_000;
/** Document versions whose titles are kept (a few hundred bytes each). */
const TITLED_BLOBS = 10_000;

export class ReadCaches {
  private readonly mementos = new Map<string, FoundMemento>();
  /** A TimeMap changes only with a new version of its document: serialised once per version and format (a thousand versions are ~130 KB). */
  readonly timemaps = new ByteCache<Buffer>(16 * 1024 * 1024, (body) => body.length);
  /** Blame of a document changes only with a new version of it: written once per version, view and format. */
  readonly blames = new ByteCache<Buffer>(32 * 1024 * 1024, (body) => body.length);
  /** SPARQL answers by dataspace, agent's readable graphs, query and format. */
  readonly answers = new ByteCache<CachedAnswer>(SPARQL_BYTES, (entry) => entry.body.length, SPARQL_BYTES / 8);
  /** What pages take from documents' text (PageFacts), by document URL, blob and view. */
  readonly pageFacts = new ByteCache<PageFacts>(16 * 1024 * 1024, (facts) => facts.text.length + (facts.shown.ntriples === facts.text ? 0 : facts.shown.ntriples.length));
  /** Parsed query shapes by base and query text; cleared when full. */
  readonly shapes = new Map<string, QueryShape>();
  private readonly titles = new Map<string, Titles>();

  /**
   * The titles of a document's version (pages/labels.ts `titlesOf`), by its blob: a blob never
   * changes, so a page naming the documents it links reads and scans each version once. Who may
   * read them is the caller's to decide, every time.
   */
  titlesOf(blob: string, make: () => Titles): Titles {
    const kept = this.titles.get(blob);
    if (kept) return kept;
    const titles = make();
    if (this.titles.size >= TITLED_BLOBS) this.titles.clear();
    this.titles.set(blob, titles);
    return titles;
  }

  /** The titles kept of a blob, if any (titlesOf). */
  titlesKept(blob: string): Titles | undefined {
    return this.titles.get(blob);
  }

  /** The blob and time of a memento served before, if any. */
  memento(documentUrl: string, sha: string): FoundMemento | undefined {
    return this.mementos.get(`${documentUrl}?version=${sha}`);
  }

  /** Keeps a memento found (a memento never changes), for the read fast path. */
  rememberMemento(documentUrl: string, sha: string, found: FoundMemento): void {
    if (this.mementos.size >= MEMENTOS) this.mementos.clear();
    this.mementos.set(`${documentUrl}?version=${sha}`, { blob: found.blob, time: found.time });
  }
}
