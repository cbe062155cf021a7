/**
 * Search over the titles and labels of a dataspace's documents (dct:title, rdfs:label,
 * skos:prefLabel, foaf:name of a document or its `#this`): a table of every document's words kept
 * in memory beside the index, built once from it (one SPARQL query, on first use) and then updated
 * from each commit's file diff (the store's `head` event: only changed files are read), so a
 * search is a scan of short strings (a few ms at 100,000 documents), never a query. Matching is
 * by every word of the query, ignoring case and accents. Who may read a result is the caller's.
 */
import { literalsOf } from '../rdf/canonical-lines.js';
import { RESULTS_JSON } from '../rdf/media-types.js';
import { TITLE_PREDICATES } from '../rdf/namespaces.js';
import { fileDocument } from '../document-paths.js';
import type { HeadChange } from '../store/git-store.js';
import type { DocumentService } from './document-service.js';
import { ReadableUrls, type Readable } from './readable-urls.js';

const TITLES = new Set(TITLE_PREDICATES);
/** How long the one query that builds the table may take (it reads every title once). */
const BUILD_TIMEOUT_MS = 120_000;

/** Text folded for matching: lower case, accents off, runs of space as one. */
export function folded(text: string): string {
  return text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

interface Entry {
  /** What the document is called (its first title, as pages pick it). */
  title: string;
  /** Every title and label, folded. */
  words: string;
}

export interface Found {
  total: number;
  results: { path: string; title: string }[];
}

export class TitleSearch {
  private readonly entries = new Map<string, Entry>();
  private built: Promise<void> | undefined;
  private applying: Promise<void> = Promise.resolve();
  private readonly readable = new ReadableUrls();

  constructor(private readonly documents: DocumentService) {}

  /**
   * The documents below `under` (a relative path; `` for all) whose titles and labels hold
   * every word of `query`, readable ones only, by title then path: `size` from `offset`, counted.
   */
  async search(under: string, query: string, offset: number, size: number, readable?: Readable): Promise<Found> {
    await this.ready();
    await this.applying; // the commits already made are in: a client finds what it just wrote
    const words = folded(query).split(' ').filter(Boolean);
    const base = this.documents.base;
    const matches: { path: string; title: string }[] = [];
    for (const [path, entry] of this.entries) {
      if (path === under || !path.startsWith(under) || !words.every((word) => entry.words.includes(word))) continue;
      if (readable && !this.readable.has(readable, base + path)) continue;
      matches.push({ path, title: entry.title });
    }
    matches.sort((a, b) => a.title.localeCompare(b.title) || (a.path < b.path ? -1 : 1));
    return { total: matches.length, results: matches.slice(offset, offset + size) };
  }

  private ready(): Promise<void> {
    // a build that failed (the index busy past its time) is tried again by the next search
    this.built ??= this.build().catch((error: unknown) => {
      this.built = undefined;
      throw error;
    });
    return this.built;
  }

  /** Every title from the index, once; commits that land meanwhile are applied after it, in order. */
  private async build(): Promise<void> {
    const store = this.documents.dataspace.store;
    let pending: HeadChange[] | undefined = [];
    const follow = (change: HeadChange) => {
      if (pending) pending.push(change);
      else this.follow(change);
    };
    store.on('head', follow);
    const predicates = TITLE_PREDICATES.map((p) => `<${p}>`).join(', ');
    const query = `SELECT ?doc ?p ?t WHERE { GRAPH ?doc { ?s ?p ?t FILTER(?p IN (${predicates}) && isLiteral(?t) && (?s = ?doc || STR(?s) = CONCAT(STR(?doc), "#this"))) } }`;
    let answer: { results: { bindings: Record<string, { value: string }>[] } };
    try {
      answer = JSON.parse(String(await this.documents.query({ query, format: RESULTS_JSON }, this.documents.head(), BUILD_TIMEOUT_MS, undefined))) as typeof answer;
    } catch (error) {
      store.off('head', follow);
      throw error;
    }
    const byDocument = new Map<string, { predicate: string; value: string }[]>();
    for (const b of answer.results.bindings) {
      const list = byDocument.get(b.doc!.value) ?? [];
      list.push({ predicate: b.p!.value, value: b.t!.value });
      byDocument.set(b.doc!.value, list);
    }
    for (const [url, titles] of byDocument) if (url.startsWith(this.documents.base)) this.set(url.slice(this.documents.base.length), titles);
    const waiting = pending;
    pending = undefined;
    for (const change of waiting) this.follow(change);
    await this.applying;
  }

  /** Applies a commit after those before it; a file that cannot be read leaves its entry as it was (the next change of it mends it). */
  private follow(change: HeadChange): void {
    this.applying = this.applying.then(() => this.apply(change)).catch(() => undefined);
  }

  private set(path: string, titles: { predicate: string; value: string }[]): void {
    if (titles.length === 0) {
      this.entries.delete(path);
      return;
    }
    const best = [...titles].sort((a, b) => TITLE_PREDICATES.indexOf(a.predicate) - TITLE_PREDICATES.indexOf(b.predicate))[0]!;
    this.entries.set(path, { title: best.value, words: folded(titles.map((t) => t.value).join(' ')) });
  }

  /** A commit's changed files: each read again (a deleted one dropped). */
  private async apply(change: HeadChange): Promise<void> {
    const store = this.documents.dataspace.store;
    for (const file of change.files) {
      const path = fileDocument(file.path, store.prefix);
      if (path === undefined) continue;
      if (!file.after) {
        this.entries.delete(path);
        continue;
      }
      const url = this.documents.url(path);
      const text = (await store.readBlob(file.after)).toString('utf8');
      this.set(path, [...literalsOf(text, TITLES)].filter((l) => l.subject === url || l.subject === `${url}#this`));
    }
  }
}
