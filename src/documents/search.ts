/**
 * The titles, labels and times of a dataspace's documents (dct:title, rdfs:label, skos:prefLabel,
 * foaf:name of a document or its `#this`; its dct:modified), kept in memory beside the index: built
 * once from it (one SPARQL query, on first use), then updated from each commit's file diff (the
 * store's `head` event: only changed files are read). A search is a scan of short strings (every
 * word of the query, case and accents aside), and a container's children newest first or by title
 * a sort kept until the next commit: neither queries anything. Who may read a result is the caller's.
 */
import { literalsOf } from '../rdf/canonical-lines.js';
import { ns, TITLE_PREDICATES } from '../rdf/namespaces.js';
import { fileDocument } from '../document-paths.js';
import type { GitStore, HeadChange } from '../store/git-store.js';
import { ReadableUrls, type Readable } from './readable-urls.js';

const MODIFIED = `${ns.dct}modified`;
const READ = new Set([...TITLE_PREDICATES, MODIFIED]);
/** How long the one query that builds the table may take (it reads every title once). */
const BUILD_TIMEOUT_MS = 120_000;
const MAX_WORDS = 8;
/** Documents entered between two turns of the event loop while the table is built. */
const CHUNK = 5_000;

/** Text folded for matching: lower case, accents off, runs of space as one. */
export function folded(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return text.toLowerCase().replace(/ +/g, ' ').trim(); // plain ASCII: nothing to take off
  return text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

interface Entry {
  /** What the document is called (its first title, as pages pick it). */
  title: string | undefined;
  /** Every title and label, folded. */
  words: string;
  /** The title folded, to sort by. */
  key: string;
  /** Its dct:modified, as written. */
  modified: string | undefined;
}

export interface Found {
  total: number;
  results: { path: string; title: string }[];
}

/** How a container's children are arranged from the table: newest first, or by title (folded), then by path. */
export type Arrangement = (paths: readonly string[]) => readonly string[];

export class TitleSearch {
  private readonly entries = new Map<string, Entry>();
  private built: Promise<void> | undefined;
  private applying: Promise<void> = Promise.resolve();
  private readonly readable = new ReadableUrls();
  /** Arranged children, by container and order, until the next commit. */
  private arranged = new Map<readonly string[], readonly string[]>();
  private arrangedBy: string | undefined;

  constructor(
    private readonly store: Pick<GitStore, 'on' | 'off' | 'readBlob' | 'prefix'>,
    private readonly base: string,
    /** Runs a SELECT on the index at HEAD or later, answering SPARQL results JSON. */
    private readonly select: (query: string, timeoutMs: number) => Promise<string>,
  ) {}

  /**
   * The documents below `under` (a relative path; `` for all) whose titles and labels hold
   * every word of `query`, readable ones only, by title then path: `size` from `offset`, counted.
   */
  async search(under: string, query: string, offset: number, size: number, readable?: Readable): Promise<Found> {
    await this.ready();
    await this.applying; // the commits already made are in: a client finds what it just wrote
    // at most 8 distinct words: a scan is documents × words, on the thread that answers requests
    const words = [...new Set(folded(query).split(' ').filter(Boolean))].slice(0, MAX_WORDS);
    const base = this.base;
    const matches: { path: string; title: string; key: string }[] = [];
    for (const [path, entry] of this.entries) {
      if (path === under || !path.startsWith(under) || !entry.title || !words.every((word) => entry.words.includes(word))) continue;
      if (readable && !this.readable.has(readable, base + path)) continue;
      matches.push({ path, title: entry.title, key: entry.key });
    }
    matches.sort((a, b) => (a.key === b.key ? (a.path < b.path ? -1 : 1) : a.key < b.key ? -1 : 1));
    return { total: matches.length, results: matches.slice(offset, offset + size).map(({ path, title }) => ({ path, title })) };
  }

  /** How to arrange a container's children `order` (a list from the kept listing; every commit that changes a file drops the arrangements). */
  async arrangement(order: 'newest' | 'title'): Promise<Arrangement> {
    await this.ready();
    await this.applying;
    return (paths) => {
      if (this.arrangedBy !== order) {
        this.arranged = new Map();
        this.arrangedBy = order;
      }
      let sorted = this.arranged.get(paths);
      if (!sorted) {
        const key = (path: string) => (order === 'newest' ? (this.entries.get(path)?.modified ?? '') : this.entries.get(path)?.key || folded(path));
        const keyed = paths.map((path) => ({ path, key: key(path) }));
        const sign = order === 'newest' ? -1 : 1;
        keyed.sort((a, b) => (a.key === b.key ? (a.path < b.path ? -1 : 1) : a.key < b.key ? -sign : sign));
        sorted = keyed.map((k) => k.path);
        this.arranged.set(paths, sorted);
      }
      return sorted;
    };
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
    const store = this.store;
    let pending: HeadChange[] | undefined = [];
    const follow = (change: HeadChange) => {
      if (pending) pending.push(change);
      else this.follow(change);
    };
    store.on('head', follow);
    const predicates = TITLE_PREDICATES.map((p) => `<${p}>`).join(', ');
    const query = `SELECT ?doc ?p ?t WHERE { GRAPH ?doc { ?s ?p ?t FILTER((?p IN (${predicates}) && isLiteral(?t) && (?s = ?doc || STR(?s) = CONCAT(STR(?doc), "#this"))) || (?p = <${MODIFIED}> && ?s = ?doc)) } }`;
    let answer: { results: { bindings: Record<string, { value: string }>[] } };
    try {
      answer = JSON.parse(await this.select(query, BUILD_TIMEOUT_MS)) as typeof answer;
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
    let done = 0;
    for (const [url, titles] of byDocument) {
      if (++done % CHUNK === 0) await new Promise((resolve) => setImmediate(resolve)); // other requests are answered meanwhile
      if (url.startsWith(this.base)) this.set(url.slice(this.base.length), titles);
    }
    const waiting = pending;
    pending = undefined;
    for (const change of waiting) this.follow(change);
    await this.applying;
  }

  /** Applies a commit after those before it; a file that cannot be read leaves its entry as it was (the next change of it mends it). */
  private follow(change: HeadChange): void {
    this.applying = this.applying.then(() => this.apply(change)).catch(() => undefined);
  }

  private set(path: string, values: { predicate: string; value: string }[]): void {
    this.arranged = new Map();
    const titles = values.filter((v) => v.predicate !== MODIFIED).sort((a, b) => TITLE_PREDICATES.indexOf(a.predicate) - TITLE_PREDICATES.indexOf(b.predicate));
    const modified = values.find((v) => v.predicate === MODIFIED)?.value;
    if (titles.length === 0 && modified === undefined) this.entries.delete(path);
    else this.entries.set(path, { title: titles[0]?.value, words: folded(titles.map((t) => t.value).join(' ')), key: folded(titles[0]?.value ?? ''), modified });
  }

  /** A commit's changed files: each read again (a deleted one dropped). */
  private async apply(change: HeadChange): Promise<void> {
    const store = this.store;
    for (const file of change.files) {
      const path = fileDocument(file.path, store.prefix);
      if (path === undefined) continue;
      if (!file.after) {
        this.set(path, []);
        continue;
      }
      const url = this.base + path;
      const text = (await store.readBlob(file.after)).toString('utf8');
      this.set(path, [...literalsOf(text, READ)].filter((l) => l.subject === url || (l.subject === `${url}#this` && l.predicate !== MODIFIED)));
    }
  }
}
