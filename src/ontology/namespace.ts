/**
 * The namespace ontology of a pair of dataspaces (SPEC §4.7 `ns`): the ontology documents of the
 * admin dataspace (every document that declares an `owl:Ontology`), the documents of the packages
 * the end-user dataspace imports (`packages/<sha1 of the package IRI>/`, packages.ts; one of a
 * package no longer imported does not count), and what they import with `owl:imports` from
 * elsewhere: a vocabulary that ships with Lodestone from its package, any other fetched under the
 * outgoing-address rules; kept in memory (at most 32 imports, each at most 2 MiB; one that cannot
 * be had is logged and left out). The asserted graph is rebuilt
 * when the admin dataspace's HEAD or the imports change and stays the same object while they do
 * not, so a write asks for it at the cost of a comparison. `clear` forgets every fetched import
 * (or one, and the proxy caches' entries for it, through the purge hooks) and rebuilds.
 *
 * The ontology's SHACL shapes validate every write of the end-user dataspace's documents
 * (SPEC §2.5, §7): a document that does not conform is refused with a ConstraintViolation that
 * carries the validation report (bounded: see workers.ts).
 */
import { createHash } from 'node:crypto';
import type { Dataspace } from '../dataspace.js';
import { fileDocument } from '../document-paths.js';
import { LodestoneError } from '../errors.js';
import { NQUADS, readableTypes } from '../rdf/formats.js';
import { ns } from '../rdf/namespaces.js';
import type { FetchedDocument } from '../net/safe-fetch.js';
import { Vocabularies, shippedDocument } from '../net/vocabularies.js';
import type { OntologyWorkers } from './workers.js';

const ONTOLOGY_LINE = ` <${ns.rdf}type> <${ns.owl}Ontology> .`;
const ONTOLOGY = new RegExp(`^<([^>]*)> <${ns.rdf}type> <${ns.owl}Ontology> \\.$`, 'gm');
const IMPORTS = new RegExp(`^\\S+ <${ns.owl}imports> <([^>]*)> \\.$`, 'gm');
const MAX_IMPORTS = 32;

export interface Closure {
  /** A digest of the asserted graph: its version. */
  key: string;
  /** The asserted graph as N-Triples, one triple per line, sorted, no duplicates. */
  ntriples: string;
  /** Whether it holds SHACL shapes (any term of the SHACL namespace). */
  hasShapes: boolean;
  /** The ontologies in it, by IRI. */
  ontologies: string[];
}

/**
 * What a proxy cache offers `admin/clear`: dropping what it holds of a URL (an ontology, named with
 * or without its fragment). Register one with `NamespaceOntology.onPurge(cache.purge)`.
 */
export type PurgeHook = (uri: string) => void | Promise<void>;

export interface NamespaceOntologyOptions {
  admin: Dataspace;
  /** The packages the end-user dataspace imports (its settings). */
  imports: () => Promise<string[]>;
  /** GET of an ontology on the web, under the outgoing-address rules (net/safe-fetch.ts). */
  fetch: (url: string) => Promise<FetchedDocument>;
  workers: OntologyWorkers;
  log: (line: string) => void;
  /** The shipped vocabularies (net/vocabularies.ts): the proxy's, or a reader of their own. */
  vocabularies?: Vocabularies;
}

/** Where the document of a package lives in the admin dataspace. */
export function packagePath(packageIri: string): string {
  return `packages/${createHash('sha1').update(packageIri).digest('hex')}/`;
}

/** An IRI without its fragment: the URL an ontology is fetched from, and what names it when imports are compared. */
function documentIri(iri: string): string {
  const hash = iri.indexOf('#');
  return hash < 0 ? iri : iri.slice(0, hash);
}

export class NamespaceOntology {
  private built: { head: string | undefined; imports: string; generation: number; closure: Closure } | undefined;
  private building: { key: string; closure: Promise<Closure> } | undefined;
  /** What each admin blob holds: whether it is an ontology document, and then its triples relabelled. */
  private readonly blobs = new Map<string, { ontology: false } | { ontology: true; ntriples: string }>();
  /** Fetched imports by document URL: their N-Triples, or why they could not be had. */
  private readonly fetched = new Map<string, Promise<{ ntriples: string } | { failure: string }>>();
  private generation = 0;
  /** The last ontology built, and what it was built from (the generation and the ontology documents' blobs). */
  private previous: { from: string; closure: Closure } | undefined;
  private readonly purgeHooks = new Set<PurgeHook>();

  private readonly vocabularies: Vocabularies;

  constructor(private readonly options: NamespaceOntologyOptions) {
    this.vocabularies = options.vocabularies ?? new Vocabularies();
  }

  /** The namespace ontology last built, if any, without building one (pages take labels from it, and never wait for a fetch). */
  lastBuilt(): Closure | undefined {
    return this.built?.closure;
  }

  /** The namespace ontology as things are now. */
  async current(): Promise<Closure> {
    const head = this.options.admin.store.head;
    const imports = (await this.options.imports()).sort().join('\n');
    const generation = this.generation;
    const built = this.built;
    if (built && built.head === head && built.imports === imports && built.generation === generation) return built.closure;
    const key = `${head}\n${generation}\n${imports}`;
    if (this.building?.key === key) return this.building.closure;
    if (this.building) {
      await this.building.closure.catch(() => undefined); // one build at a time; it was of an earlier state
      return this.current();
    }
    const closure = this.build(imports);
    this.building = { key, closure };
    try {
      const done = await closure;
      this.built = { head, imports, generation, closure: done };
      return done;
    } finally {
      if (this.building?.closure === closure) this.building = undefined;
    }
  }

  /**
   * Forgets every cached ontology (the fetched imports, the documents read) and the closure: the
   * next use rebuilds. With `uri`, forgets that ontology alone, has the purge hooks drop it from
   * the proxy caches, and rebuilds at once.
   */
  async clear(uri?: string): Promise<void> {
    this.generation++;
    if (uri === undefined) {
      this.fetched.clear();
      this.blobs.clear();
    } else {
      this.fetched.delete(documentIri(uri));
      for (const hook of this.purgeHooks) await hook(uri);
      await this.current();
    }
  }

  /** Registers a proxy cache's purge; returns its removal. */
  onPurge(hook: PurgeHook): () => void {
    this.purgeHooks.add(hook);
    return () => this.purgeHooks.delete(hook);
  }

  /** A SPARQL query over `closure` with RDFS entailment materialised, its results in `format` (workers.ts). */
  query(closure: Closure, query: string, format: string, base: string): Promise<string | boolean> {
    return this.options.workers.query({ key: closure.key, ntriples: closure.ntriples }, query, format, base);
  }

  /**
   * Refuses (422, with the SHACL validation report) a document of the end-user dataspace that does
   * not conform to the shapes of the namespace ontology; `bytes` are its canonical N-Triples.
   */
  async validate(url: string, bytes: Buffer): Promise<void> {
    const closure = await this.current();
    if (!closure.hasShapes) return;
    const verdict = await this.options.workers.validate({ key: closure.key, ntriples: closure.ntriples }, bytes.toString('utf8'));
    if (verdict.conforms) return;
    const shown = verdict.summary.slice(0, 3);
    const more = verdict.count - shown.length;
    throw new LodestoneError(
      'ConstraintViolation',
      `${url} does not conform to the shapes of the namespace ontology (${verdict.count} violation${verdict.count === 1 ? '' : 's'}): ${shown.join('; ')}${more > 0 ? `; and ${more} more in the report` : ''}`,
      { report: verdict.report },
    );
  }

  private async build(imports: string): Promise<Closure> {
    const { admin, workers } = this.options;
    const imported = new Set(imports ? imports.split('\n').map(packagePath) : []);
    const parts: string[] = [];
    const sources: string[] = [];
    const seen = new Set<string>();
    for (const [file, blobId] of admin.store.listFiles()) {
      const relative = fileDocument(file, admin.store.prefix);
      if (relative === undefined || (relative.startsWith('packages/') && !imported.has(relative))) continue;
      seen.add(blobId);
      let known = this.blobs.get(blobId);
      if (!known) {
        const text = (await admin.store.readBlob(blobId)).toString('utf8');
        known = text.includes(ONTOLOGY_LINE) ? { ontology: true, ntriples: await workers.parse(text, 'application/n-triples', admin.base + relative) } : { ontology: false };
        this.blobs.set(blobId, known);
      }
      if (known.ontology) {
        parts.push(known.ntriples);
        sources.push(blobId);
      }
    }
    for (const blobId of this.blobs.keys()) if (!seen.has(blobId)) this.blobs.delete(blobId);
    // the same ontology documents (and nothing cleared): the same ontology, however the rest of the admin dataspace moved
    const from = `${this.generation}\n${sources.sort().join('\n')}`;
    if (this.previous?.from === from) return this.previous.closure;
    // owl:imports of ontologies no document here declares, breadth first
    const declared = (text: string) => [...text.matchAll(ONTOLOGY)].map((m) => documentIri(m[1]!));
    const local = new Set(parts.flatMap(declared));
    const wanted: string[] = [];
    const queue = [...parts];
    for (let text = queue.shift(); text !== undefined; text = queue.shift()) {
      for (const match of text.matchAll(IMPORTS)) {
        const url = documentIri(match[1]!);
        if (local.has(url) || wanted.includes(url) || !/^https?:\/\//.test(url)) continue;
        if (wanted.length >= MAX_IMPORTS) {
          this.options.log(`namespace ontology of ${admin.base}: more than ${MAX_IMPORTS} imports; <${url}> and any further ones are left out`);
          break;
        }
        wanted.push(url);
        const got = await this.fetchImport(url);
        if ('ntriples' in got) {
          parts.push(got.ntriples);
          queue.push(got.ntriples);
        }
      }
    }
    const lines = [...new Set(parts.join('').split('\n'))].filter(Boolean).sort();
    const ntriples = lines.length ? lines.join('\n') + '\n' : '';
    const closure = {
      key: createHash('sha1').update(ntriples).digest('hex'),
      ntriples,
      hasShapes: ntriples.includes(`<${ns.sh}`),
      ontologies: [...new Set([...local, ...wanted])].sort(),
    };
    this.previous = { from, closure };
    return closure;
  }

  /** An imported ontology, fetched once (until cleared); a failure is logged once and remembered as well. */
  private fetchImport(url: string): Promise<{ ntriples: string } | { failure: string }> {
    let pending = this.fetched.get(url);
    if (!pending) {
      pending = this.load(url).catch((error: unknown) => {
        const failure = error instanceof Error ? error.message : String(error);
        this.options.log(`namespace ontology of ${this.options.admin.base}: the import <${url}> is left out: ${failure}`);
        return { failure };
      });
      this.fetched.set(url, pending);
    }
    return pending;
  }

  /**
   * Fetches and parses an RDF document from the web (an import, a package, its ontology); throws
   * why it cannot. A vocabulary that ships with Lodestone is read from its package, never fetched.
   */
  async load(url: string): Promise<{ ntriples: string }> {
    const shipped = shippedDocument(url);
    if (shipped && !shipped.term) return { ntriples: await this.options.workers.parse((await this.vocabularies.read(shipped)).text, NQUADS, url) };
    const got = await this.options.fetch(url);
    if (got.status !== 200) throw new LodestoneError('ConstraintViolation', `${url} answered ${got.status}`);
    const type = got.mediaType === 'text/plain' ? 'application/n-triples' : got.mediaType;
    if (!type || !readableTypes.includes(type) || type === 'application/x-www-form-urlencoded') throw new LodestoneError('ConstraintViolation', `${url} is not RDF (${got.mediaType ?? 'no media type'})`);
    return { ntriples: await this.options.workers.parse(got.body, type, got.url) };
  }
}
