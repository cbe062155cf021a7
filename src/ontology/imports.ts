/**
 * The imports of a namespace ontology: what its ontologies name with `owl:imports` and no owners'
 * document declares. They are fetched in the background, never while a write waits: concurrently,
 * breadth first, all of a round under one deadline (10 s for the whole closure), and at most 32
 * documents and 8 MiB of their N-Triples are kept in all (IMPORT_LIMITS); what is left out, and
 * why, is logged once. An import is kept until it is forgotten (admin/clear) or no ontology
 * reaches it any more; one forgotten is still used until its new copy arrives or fails.
 */
import { iriStatements } from '../rdf/canonical-lines.js';
import { ns } from '../rdf/namespaces.js';
import { documentIri } from '../rdf/iri.js';

export interface ImportLimits {
  /** Import documents in a closure, fetched or not; those past it are left out. */
  count: number;
  /** N-Triples bytes of every import kept, together. */
  bytes: number;
  /** One deadline for a round of fetches, imports of imports included. */
  deadlineMs: number;
}

export const IMPORT_LIMITS: ImportLimits = { count: 32, bytes: 8 * 1024 * 1024, deadlineMs: 10_000 };

/** The largest body fetched for one import (safe-fetch's default). */
const DOCUMENT_BYTES = 2 * 1024 * 1024;
const IMPORTS = ns.owl + 'imports';

type Outcome = { ntriples: string } | { failure: string };

export interface ImportsOptions {
  /** Fetches (or reads, for a shipped vocabulary) and parses one import within `timeoutMs`, at most `maxBytes` of body; throws why it cannot. */
  load: (url: string, limits: { timeoutMs: number; maxBytes: number }) => Promise<{ ntriples: string }>;
  log: (line: string) => void;
  /** What the log lines name: the namespace ontology of this admin dataspace. */
  name: string;
  limits?: Partial<ImportLimits>;
}

/** The imports of some ontology texts, as far as they have arrived. */
export interface Composition {
  /** The N-Triples of the imports in the closure, breadth first. */
  texts: string[];
  /** Every import reached (arrived, failed or on its way), by document URL. */
  imports: string[];
  /** Imports reached that are not here yet (never fetched, or forgotten and not fetched again). */
  missing: string[];
}


const MiB = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

export class ImportedOntologies {
  readonly limits: ImportLimits;
  /** Counts arrivals and forgettings: a closure composed at one version holds what had arrived by then. */
  version = 0;
  private readonly known = new Map<string, Outcome>();
  /** Imports forgotten (admin/clear), used until their new copy arrives or fails. */
  private readonly stale = new Map<string, { ntriples: string }>();
  private readonly logged = new Set<string>();
  private round: Promise<void> | undefined;
  /** Counts forgettings: a fetch started before one is not kept. */
  private epoch = 0;

  constructor(private readonly options: ImportsOptions) {
    this.limits = { ...IMPORT_LIMITS, ...options.limits };
  }

  /** The N-Triples bytes kept (arrived and stale imports): never more than `limits.bytes`. */
  keptBytes(): number {
    let total = 0;
    for (const outcome of [...this.known.values(), ...this.stale.values()]) if ('ntriples' in outcome) total += outcome.ntriples.length;
    return total;
  }

  /**
   * The imports of `roots` (the owners' ontology texts; `declared` the ontologies they declare,
   * never fetched), breadth first through what has arrived, within the limits. With `prune`, what
   * it no longer reaches is dropped (not while a round is under way: it composes older roots).
   */
  compose(roots: readonly string[], declared: ReadonlySet<string>, prune = false): Composition {
    const texts: string[] = [];
    const imports: string[] = [];
    const missing: string[] = [];
    const reached = new Set<string>();
    let bytes = 0;
    let past = false;
    const queue = [...roots];
    for (let text = queue.shift(); text !== undefined; text = queue.shift()) {
      for (const { object } of iriStatements(text, IMPORTS)) {
        const url = documentIri(object);
        if (declared.has(url) || reached.has(url) || !/^https?:\/\//.test(url)) continue;
        reached.add(url);
        if (imports.length >= this.limits.count) {
          if (!past) this.once(`<${url}> and any further ones are left out: the ontology imports more than ${this.limits.count} documents`);
          past = true;
          continue;
        }
        imports.push(url);
        const outcome = this.known.get(url) ?? this.stale.get(url);
        if (!this.known.has(url)) missing.push(url);
        if (!outcome || !('ntriples' in outcome)) continue;
        if (bytes + outcome.ntriples.length > this.limits.bytes) {
          this.once(`<${url}> is left out: the imports would hold more than ${MiB(this.limits.bytes)}`);
          continue;
        }
        bytes += outcome.ntriples.length;
        texts.push(outcome.ntriples);
        queue.push(outcome.ntriples);
      }
    }
    if (prune && !this.round) {
      for (const url of [...this.known.keys(), ...this.stale.keys()]) {
        if (reached.has(url)) continue;
        this.known.delete(url);
        this.stale.delete(url);
      }
    }
    return { texts, imports, missing };
  }

  /** Fetches, in the background, what the closure of `roots` misses, unless a round is under way; `arrived` runs when the round is over. */
  fetchMissing(roots: readonly string[], declared: ReadonlySet<string>, arrived: () => void): void {
    if (this.round) return;
    this.round = this.fetchRound(roots, declared).finally(() => {
      this.round = undefined;
      arrived();
    });
  }

  /** The round of fetches under way, if any: it settles by its deadline. */
  pending(): Promise<void> | undefined {
    return this.round;
  }

  /** Forgets every import, or the one at `url` (a document URL): they are fetched again, and used until their new copy arrives or fails. */
  forget(url?: string): void {
    for (const [known, outcome] of this.known) {
      if (url !== undefined && known !== url) continue;
      this.known.delete(known);
      if ('ntriples' in outcome) this.stale.set(known, outcome);
    }
    for (const line of this.logged) if (url === undefined || line.startsWith(`<${url}> `)) this.logged.delete(line);
    this.epoch++;
    this.version++;
  }

  /** One round: every import missing, then the imports of those that arrive, until none is missing or the deadline passes (those left are failures). */
  private async fetchRound(roots: readonly string[], declared: ReadonlySet<string>): Promise<void> {
    const deadline = Date.now() + this.limits.deadlineMs;
    const epoch = this.epoch;
    const tried = new Set<string>();
    for (;;) {
      const missing = this.compose(roots, declared).missing.filter((url) => !tried.has(url));
      if (missing.length === 0 || epoch !== this.epoch) return;
      for (const url of missing) tried.add(url);
      await Promise.all(missing.map((url) => this.fetchOne(url, deadline, epoch)));
      this.version++;
    }
  }

  private async fetchOne(url: string, deadline: number, epoch: number): Promise<void> {
    const left = deadline - Date.now();
    const room = () => this.limits.bytes - this.keptBytes() + (this.stale.get(url)?.ntriples.length ?? 0);
    let outcome: Outcome;
    if (left <= 0) outcome = { failure: `not fetched within the ${this.limits.deadlineMs / 1000} s the imports have` };
    else if (room() <= 0) outcome = { failure: `the imports hold ${MiB(this.limits.bytes)} already` };
    else {
      outcome = await withDeadline(this.options.load(url, { timeoutMs: left, maxBytes: Math.min(DOCUMENT_BYTES, room()) }), left).catch((error: unknown) => ({
        failure: error instanceof Error ? error.message : String(error),
      }));
      // checked when it arrives, with what arrived before it: what is kept never passes the limit
      if ('ntriples' in outcome && outcome.ntriples.length > room()) outcome = { failure: `it would take the imports past ${MiB(this.limits.bytes)}` };
    }
    if (epoch !== this.epoch) return; // forgotten meanwhile: the next round fetches it again
    this.stale.delete(url);
    this.known.set(url, outcome);
    if ('failure' in outcome) this.once(`<${url}> is left out: ${outcome.failure}`);
  }

  private once(line: string): void {
    if (this.logged.has(line)) return;
    this.logged.add(line);
    this.options.log(`namespace ontology of ${this.options.name}: the import ${line}`);
  }
}

/** `work`, or a rejection once `ms` have passed (the work is left to end by its own limits). */
function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within the ${Math.ceil(ms / 1000)} s left to the imports`)), ms).unref(); // it keeps no process alive
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
