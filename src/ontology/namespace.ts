/**
 * The namespace ontology of a pair of dataspaces (SPEC §4.7 `ns`): the ontology documents among
 * the admin documents that shape the dataspace (governing.ts: the owners' `ontologies/` and the
 * imported packages), each known by an `owl:Ontology` among its own parsed triples, and what they
 * import (imports.ts: fetched in the background under one deadline, bounded in number and bytes).
 * A write is checked against the ontology as it stands (`now`): the owners' documents as they are
 * at that moment (a shape just written applies to the next write) and the imports that have
 * arrived; it never waits for a fetch, and one under way joins the ontology when it arrives (a
 * rebuild follows). `ns` and admin/clear wait for the fetches under way (`current`, at most their
 * deadline). The asserted graph stays the same object while neither the ontology documents nor the
 * imports change, so a write asks for it at the cost of a comparison.
 *
 * The ontology's SHACL shapes validate every write of the end-user dataspace's documents
 * (SPEC §2.5, §7): a document that does not conform is refused with a ConstraintViolation that
 * carries the validation report (bounded: see workers.ts).
 */
import { createHash } from 'node:crypto';
import type { Dataspace } from '../dataspace.js';
import { LodestoneError } from '../errors.js';
import { joinUnique } from '../rdf/ntriples.js';
import { iriStatements } from '../rdf/canonical-lines.js';
import { NQUADS, NTRIPLES, PLAIN, RDFPOST, readableTypes } from '../rdf/formats.js';
import { ns, RDF_TYPE } from '../rdf/namespaces.js';
import type { FetchedDocument } from '../net/safe-fetch.js';
import { shippedDocument, type Vocabularies } from '../net/vocabularies.js';
import { toNTriples } from '../rdf/translate.js';
import { shapingDocuments } from './governing.js';
import { ImportedOntologies, type ImportLimits } from './imports.js';
import { documentIri } from '../rdf/iri.js';
import type { OntologyWorkers } from './workers.js';
import { ByteCache } from '../util/byte-cache.js';

export interface Closure {
  /** A digest of the asserted graph: its version. */
  key: string;
  /** The asserted graph as N-Triples, one triple per line, sorted, no duplicates. */
  ntriples: string;
  /** Whether it holds SHACL shapes (any term of the SHACL namespace). */
  hasShapes: boolean;
  /** The ontologies in it (declared by the owners' documents, or imported), by document IRI. */
  ontologies: string[];
}

/**
 * What a proxy cache offers `admin/clear`: dropping what it holds of a URL (an ontology, named with
 * or without its fragment): the composition root gives it as the `purge` option.
 */
export type PurgeHook = (uri: string) => void | Promise<void>;

export interface NamespaceOntologyOptions {
  admin: Dataspace;
  /** The packages the end-user dataspace imports (its settings). */
  imports: () => Promise<string[]>;
  /** GET of an ontology on the web, under the outgoing-address rules (net/safe-fetch.ts), within the limits given. */
  fetch: (url: string, limits?: { timeoutMs?: number; maxBytes?: number }) => Promise<FetchedDocument>;
  workers: OntologyWorkers;
  /** RDF from elsewhere as N-Triples, blank nodes labelled apart (rdf/translate.ts `toNTriples`: net/remote-rdf.ts's pool in a server, on this thread by default). */
  toNTriples?: (text: string, mediaType: string, base: string) => Promise<string>;
  log: (line: string) => void;
  /** The shipped vocabularies (net/vocabularies.ts), the server's one reader of them. */
  vocabularies: Vocabularies;
  /** What admin/clear with `uri=` also purges (the proxy's cache), given at construction. */
  purge?: PurgeHook;
  /** Bounds of the imports (imports.ts IMPORT_LIMITS by default). */
  importLimits?: Partial<ImportLimits>;
}

/** The owners' ontology documents as they are: their triples, and the ontologies they declare. */
interface Local {
  /** Which documents (their blob ids) and which forgetting: the same key, the same ontology. */
  key: string;
  texts: string[];
  declared: Set<string>;
}

const OWL_ONTOLOGY = ns.owl + 'Ontology';

/**
 * Whether N-Triples may name owl:Ontology: they hold its IRI as written, or a `\u` escape, which
 * could spell it. Most shaping documents (the containers, every document of a package that is no
 * ontology) do not, and are known as no ontology without a parse in the remote-RDF pool.
 */
function mayNameOntology(ntriples: string): boolean {
  return ntriples.includes(OWL_ONTOLOGY) || /\\[uU]/.test(ntriples);
}

export class NamespaceOntology {
  /** What each shaping blob holds: the ontologies it declares (none: it is no ontology document) and then its triples relabelled. */
  private readonly documents = new Map<string, { ontologies: string[]; ntriples: string }>();
  private scanned: { key: string; local: Local } | undefined;
  private scanning: { key: string; local: Promise<Local> } | undefined;
  private built: { key: string; closure: Closure } | undefined;
  private generation = 0;
  private readonly purgeHooks = new Set<PurgeHook>();
  /** Answers of `ns?query=` by ontology version, query, format and base: anyone may ask, so they are bounded by bytes. */
  private readonly answers = new ByteCache<string | boolean>(16 * 1024 * 1024, (answer) => (typeof answer === 'string' ? answer.length * 2 : 8));
  private readonly vocabularies: Vocabularies;
  private readonly toNTriples: (text: string, mediaType: string, base: string) => Promise<string>;
  /** The imports fetched, and the round of fetches under way. */
  readonly imported: ImportedOntologies;

  constructor(private readonly options: NamespaceOntologyOptions) {
    this.vocabularies = options.vocabularies;
    this.toNTriples = options.toNTriples ?? toNTriples;
    if (options.purge) this.purgeHooks.add(options.purge);
    this.imported = new ImportedOntologies({
      load: (url, limits) => this.load(url, limits),
      log: options.log,
      name: options.admin.base,
      limits: options.importLimits,
    });
  }

  /** The namespace ontology last built, if any, without building one (pages take labels from it, and never wait for a fetch). */
  lastBuilt(): Closure | undefined {
    return this.built?.closure;
  }

  /**
   * The namespace ontology as it stands: the owners' ontology documents as they are now, and the
   * imports that have arrived. Starts fetching the imports still missing, and never waits for them.
   */
  async now(): Promise<Closure> {
    const local = await this.local();
    const key = `${local.key}\n${this.imported.version}`;
    const built = this.built;
    if (built?.key === key) return built.closure;
    const composed = this.imported.compose(local.texts, local.declared, true);
    if (composed.missing.length) {
      // when they have arrived (or failed), the ontology is built again, for the pages' labels too
      this.imported.fetchMissing(local.texts, local.declared, () => void this.now().catch((error: Error) => this.options.log(`namespace ontology of ${this.options.admin.base}: ${error.message}`)));
    }
    const ntriples = joinUnique([...local.texts, ...composed.texts].join('').split('\n').filter(Boolean));
    const closure: Closure = {
      key: createHash('sha1').update(ntriples).digest('hex'),
      ntriples,
      hasShapes: ntriples.includes(`<${ns.sh}`),
      ontologies: [...new Set([...local.declared, ...composed.imports])].sort(),
    };
    this.built = { key, closure };
    return closure;
  }

  /** The namespace ontology once the fetches under way have arrived or passed their deadline: what `ns` answers. */
  async current(): Promise<Closure> {
    let closure = await this.now();
    // a round may find imports of imports, or documents changed meanwhile: a few rounds at most
    for (let round = 0; round < 3; round++) {
      const pending = this.imported.pending();
      if (!pending) break;
      await pending;
      closure = await this.now();
    }
    return closure;
  }

  /**
   * Forgets every cached ontology (the fetched imports, the documents read): they are read again.
   * With `uri`, forgets that ontology alone, has the purge hooks drop it from the proxy caches,
   * and rebuilds at once (fetching it again). A forgotten import counts until its new copy is in.
   */
  async clear(uri?: string): Promise<void> {
    this.generation++;
    if (uri === undefined) {
      this.imported.forget();
      this.documents.clear();
    } else {
      this.imported.forget(documentIri(uri));
      for (const hook of this.purgeHooks) await hook(uri);
      await this.current();
    }
  }

  /** Registers another purge hook besides the one given at construction (a seam for tests); returns its removal. */
  onPurge(hook: PurgeHook): () => void {
    this.purgeHooks.add(hook);
    return () => this.purgeHooks.delete(hook);
  }

  /** A SPARQL query over `closure` with RDFS entailment materialised, its results in `format` (workers.ts), kept once answered. */
  async query(closure: Closure, query: string, format: string, base: string): Promise<string | boolean> {
    const key = JSON.stringify([closure.key, query, format, base]);
    const kept = this.answers.get(key);
    if (kept !== undefined) return kept;
    const answer = await this.options.workers.query({ key: closure.key, ntriples: closure.ntriples }, query, format, base);
    this.answers.put(key, answer);
    return answer;
  }

  /**
   * Refuses (422, with the SHACL validation report) a document of the end-user dataspace that does
   * not conform to the shapes of the namespace ontology as it stands; `bytes` are its canonical
   * N-Triples. Never waits for an import on its way: it is checked when it has arrived.
   */
  async validate(url: string, bytes: Buffer): Promise<void> {
    const closure = await this.now();
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

  /** The owners' ontology documents for the admin HEAD and packages of now, read again only when they moved; one read at a time. */
  private async local(): Promise<Local> {
    const packages = await this.options.imports();
    const key = `${this.options.admin.store.head}\n${[...packages].sort().join('\n')}\n${this.generation}`;
    if (this.scanned?.key === key) return this.scanned.local;
    if (this.scanning?.key === key) return this.scanning.local;
    if (this.scanning) {
      await this.scanning.local.catch(() => undefined); // it read an earlier state
      return this.local();
    }
    const local = this.scan(packages);
    this.scanning = { key, local };
    try {
      const done = await local;
      this.scanned = { key, local: done };
      return done;
    } finally {
      if (this.scanning?.local === local) this.scanning = undefined;
    }
  }

  private async scan(packages: readonly string[]): Promise<Local> {
    const { admin } = this.options;
    const texts: string[] = [];
    const sources: string[] = [];
    const declared = new Set<string>();
    const seen = new Set<string>();
    for (const { relative, blobId } of shapingDocuments(admin.store, packages)) {
      seen.add(blobId);
      let known = this.documents.get(blobId);
      if (!known) {
        const text = (await admin.store.readBlob(blobId)).toString('utf8');
        const ntriples = mayNameOntology(text) ? await this.toNTriples(text, NTRIPLES, admin.base + relative) : '';
        // an ontology document declares an owl:Ontology in its own triples (a literal that says so declares nothing)
        const ontologies = iriStatements(ntriples, RDF_TYPE).flatMap((s) => (s.subject !== undefined && s.object === OWL_ONTOLOGY ? [s.subject] : []));
        known = { ontologies, ntriples: ontologies.length ? ntriples : '' };
        this.documents.set(blobId, known);
      }
      if (known.ontologies.length === 0) continue;
      texts.push(known.ntriples);
      sources.push(blobId);
      for (const iri of known.ontologies) declared.add(documentIri(iri));
    }
    for (const blobId of this.documents.keys()) if (!seen.has(blobId)) this.documents.delete(blobId);
    // the same ontology documents (and nothing forgotten): the same ontology, however the rest of the admin dataspace moved
    const key = `${this.generation}\n${sources.sort().join('\n')}`;
    const previous = this.scanned?.local;
    return previous?.key === key ? previous : { key, texts, declared };
  }

  /**
   * Fetches and parses an RDF document from the web (an import, a package, its ontology); throws
   * why it cannot. A vocabulary that ships with Lodestone is read from its package, never fetched.
   */
  async load(url: string, options: { timeoutMs?: number; maxBytes?: number } = {}): Promise<{ ntriples: string }> {
    const shipped = shippedDocument(url);
    if (shipped && !shipped.term) return { ntriples: await this.toNTriples((await this.vocabularies.read(shipped)).text, NQUADS, url) };
    const got = await this.options.fetch(url, { timeoutMs: options.timeoutMs, maxBytes: options.maxBytes });
    if (got.status !== 200) throw new LodestoneError('ConstraintViolation', `${url} answered ${got.status}`);
    const type = got.mediaType === PLAIN ? NTRIPLES : got.mediaType;
    if (!type || !readableTypes.includes(type) || type === RDFPOST) throw new LodestoneError('ConstraintViolation', `${url} is not RDF (${got.mediaType ?? 'no media type'})`);
    return { ntriples: await this.toNTriples(got.body, type, got.url) };
  }
}
