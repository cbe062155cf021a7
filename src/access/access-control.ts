/**
 * Access control at run time (SPEC §5, issue 4): the Policy of the admin dataspace, rebuilt when
 * the admin dataspace's HEAD moves (authorizations and groups are its documents; the class
 * hierarchy comes from the documents that shape the dataspace, ontology/governing.ts, never from
 * an agent's own), and the target of a request: a document's URL, its types and owners (read from
 * its canonical N-Triples once per blob id). The owner of the server holds every mode without a
 * decision (the shortcut); everybody else goes through the Policy, whose decisions are cached
 * until the next admin commit.
 */
import type { Quad } from '@rdfjs/types';
import { DataFactory } from 'n3';
import type { Dataspace } from '../dataspace.js';
import { iriObjects, iriStatements } from '../rdf/canonical-lines.js';
import { ns, RDF_TYPE } from '../rdf/namespaces.js';
import { parseRdf } from '../rdf/ntriples.js';
import { fileDocument } from '../document-paths.js';
import { shapesDataspace } from '../ontology/governing.js';
import { Policy, type Mode, type Target } from './policy.js';
import { documentIri } from '../rdf/iri.js';

export type { Mode, Target } from './policy.js';
const SUBCLASS_OF = ns.rdfs + 'subClassOf';
export const ALL_MODES: ReadonlySet<Mode> = new Set<Mode>(['Read', 'Write', 'Append', 'Control']);

/** The acl:mode IRIs of a set of modes, in a stable order. */
export function modeIris(modes: ReadonlySet<Mode>): string[] {
  return (['Read', 'Write', 'Append', 'Control'] as const).filter((m) => modes.has(m)).map((m) => ns.acl + m);
}

/** The rdfs:subClassOf statements between IRIs in a stored document (canonical N-Triples), without a parse. */
function hierarchy(ntriples: string): Quad[] {
  const { namedNode, quad } = DataFactory;
  return iriStatements(ntriples, SUBCLASS_OF).flatMap(({ subject, object }) => (subject === undefined ? [] : [quad(namedNode(subject), namedNode(SUBCLASS_OF), namedNode(object))]));
}

/** Types and owners of the document `url` from its canonical N-Triples, without a parse. */
function describe(url: string, bytes: Buffer): { types: string[]; owners: string[] } {
  return { types: iriObjects(bytes, url, RDF_TYPE), owners: iriObjects(bytes, url, ns.acl + 'owner') };
}

export class AccessControl {
  private built: { head: string | undefined; refreshes: number; policy: Policy } | undefined;
  /** Counts `refresh` calls: a policy built before one is built again. */
  private refreshes = 0;
  private building: Promise<Policy> | undefined;
  /** Per admin document: its triples when it is an authorization or a group, its rdfs:subClassOf statements when it shapes the dataspace. */
  private readonly parsed = new Map<string, { blobId: string; quads: Quad[]; subClassOf?: Quad[] }>();
  private readonly targets = new Map<string, Target>();
  private readonly blobless = new Map<string, Target>();

  /** Counts policy builds: decisions derived from a policy are keyed by it. */
  generation = 0;
  constructor(
    private readonly admin: Dataspace,
    /** The base of the end-user dataspace whose admin `admin` is: its containers stop there. */
    private readonly endUserBase?: string,
    /** The packages the end-user dataspace imports (its settings): their documents shape it too. Read when the policy is built. */
    private readonly packages: () => Promise<string[]> = async () => [],
    /** The server's owner (bootstrapped before access control is built): every mode on every document of both dataspaces, without a decision. */
    readonly owner?: string,
  ) {}

  /** The policy for the admin dataspace's current HEAD, if it is built (for the read fast path). */
  current(): Policy | undefined {
    const built = this.built;
    return built && built.head === this.admin.store.head && built.refreshes === this.refreshes ? built.policy : undefined;
  }

  /**
   * Has the policy built again at its next use although the admin HEAD did not move: the settings
   * now import other packages (a settings edit writes the package's document before the file says
   * so). A hand edit of the settings file counts from the next admin commit.
   */
  refresh(): void {
    this.refreshes++;
  }

  /** The policy for the current HEAD, built (from the changed documents only) when it moved. */
  async policy(): Promise<Policy> {
    const current = this.current();
    if (current) return current;
    this.building ??= this.build().finally(() => (this.building = undefined));
    return this.building;
  }

  private async build(): Promise<Policy> {
    const head = this.admin.store.head;
    const refreshes = this.refreshes;
    const packages = await this.packages();
    const graphs: { url: string; quads: Quad[] }[] = [];
    const subClassOf: Quad[] = [];
    const seen = new Set<string>();
    for (const [file, blobId] of this.admin.store.listFiles()) {
      const relative = fileDocument(file, this.admin.store.prefix);
      if (relative === undefined) continue;
      const url = this.admin.base + relative;
      seen.add(url);
      let entry = this.parsed.get(url);
      const policy = relative.startsWith('acl/authorizations/') || relative.startsWith('acl/groups/');
      const shaping = shapesDataspace(relative, packages);
      if (entry?.blobId !== blobId || (shaping && !entry.subClassOf)) {
        // only authorizations, groups and the class hierarchy of the owners' documents matter here: the rest is not read
        const text = policy || shaping ? (await this.admin.store.readBlob(blobId)).toString('utf8') : '';
        entry = { blobId, quads: policy ? parseRdf(text) : [], subClassOf: shaping ? hierarchy(text) : undefined };
        this.parsed.set(url, entry);
      }
      graphs.push({ url, quads: entry.quads });
      if (shaping) subClassOf.push(...entry.subClassOf!);
    }
    for (const url of this.parsed.keys()) if (!seen.has(url)) this.parsed.delete(url);
    const policy = Policy.build({ adminBase: this.admin.base, endUserBase: this.endUserBase, graphs, subClassOf });
    this.built = { head, refreshes, policy };
    this.generation++;
    return policy;
  }

  /** The target for `url` whose current blob is `blobId` (undefined: no such document), when its bytes are at hand. */
  targetOf(url: string, blobId: string | undefined, bytes: () => Buffer | undefined): Target | undefined {
    if (!blobId) return this.withoutDocument(url);
    const key = `${url}\n${blobId}`;
    let target = this.targets.get(key);
    if (!target) {
      const canonical = bytes();
      if (canonical === undefined) return undefined;
      target = { url, ...describe(url, canonical) };
      if (this.targets.size > 50_000) this.targets.clear();
      this.targets.set(key, target);
    }
    return target;
  }

  /**
   * The target of a URL no document has (an endpoint, a document not yet made), kept so that the
   * policy's decisions on it are (policy.ts): a few, since anyone may ask for any URL.
   */
  withoutDocument(url: string): Target {
    let target = this.blobless.get(url);
    if (!target) {
      target = { url, types: [], owners: [] };
      if (this.blobless.size >= 1_000) this.blobless.clear();
      this.blobless.set(url, target);
    }
    return target;
  }

  /** The triples of an authorization (from its document in the admin dataspace). */
  describe(iri: string): Quad[] {
    const graph = this.parsed.get(documentIri(iri));
    return graph ? graph.quads.filter((q) => q.subject.value === iri) : [];
  }

  /** The target for the document at `relativePath` of `runtime` (existing or not). */
  async targetFor(runtime: DocumentsOf, relativePath: string, version?: Version): Promise<Target> {
    const url = runtime.dataspace.base + relativePath;
    const blobId = version ? version.blob : runtime.documents.blobId(relativePath);
    const store = runtime.dataspace.store;
    const target = this.targetOf(url, blobId, () => (blobId ? store.cachedBlob(blobId) : undefined));
    if (target) return target;
    const bytes = await store.readBlob(blobId!);
    return this.targetOf(url, blobId, () => bytes)!;
  }

  /** The modes `agent` holds on `target` under `policy` (the owner: all of them). */
  modesWith(policy: Policy, agent: string | undefined, target: Target): ReadonlySet<Mode> {
    if (agent !== undefined && agent === this.owner) return ALL_MODES;
    return policy.modes(agent, target);
  }

  /**
   * The modes `agent` holds on the document at `relativePath` (or on its earlier `version`: a
   * version is judged as it was, its own types and owners, so whoever owns the document now holds
   * nothing by that on what an earlier owner wrote at the same URL) when they can be decided from memory
   * (the owner; a built policy and the document's bytes cached), else undefined. For the read fast
   * path, and the first try of every decision.
   */
  modesNow(runtime: DocumentsOf, relativePath: string, agent: string | undefined, version?: Version): ReadonlySet<Mode> | undefined {
    if (agent !== undefined && agent === this.owner) return ALL_MODES;
    const policy = this.current();
    if (!policy) return undefined;
    const blobId = version ? version.blob : runtime.documents.blobId(relativePath);
    const store = runtime.dataspace.store;
    const target = this.targetOf(runtime.dataspace.base + relativePath, blobId, () => (blobId ? store.cachedBlob(blobId) : undefined));
    return target && policy.modes(agent, target);
  }

  /** The modes `agent` holds on the document at `relativePath` (existing or not), reading what it must. */
  async modesOn(runtime: DocumentsOf, relativePath: string, agent: string | undefined, version?: Version): Promise<ReadonlySet<Mode>> {
    return this.modesNow(runtime, relativePath, agent, version) ?? this.modesWith(await this.policy(), agent, await this.targetFor(runtime, relativePath, version));
  }

  private readonly readable = new Map<string, string[]>();

  /**
   * The documents of `runtime` that `agent` may read, or undefined when it may read them all
   * without a decision (the owner). Computed once per agent, data HEAD and policy.
   */
  async readableGraphs(runtime: DocumentsOf, agent: string | undefined): Promise<{ key: string; graphs: string[] } | undefined> {
    if (agent !== undefined && agent === this.owner) return undefined;
    const policy = await this.policy();
    const store = runtime.dataspace.store;
    const key = `${agent ?? ''}\n${runtime.dataspace.base}\n${store.head ?? ''}\n${this.generation}`;
    let graphs = this.readable.get(key);
    if (!graphs) {
      graphs = [];
      for (const file of store.listFiles().keys()) {
        const relative = fileDocument(file, store.prefix);
        if (relative === undefined) continue;
        if (policy.modes(agent, await this.targetFor(runtime, relative)).has('Read')) graphs.push(runtime.dataspace.base + relative);
      }
      if (this.readable.size > 1000) this.readable.clear();
      this.readable.set(key, graphs);
    }
    return { key, graphs };
  }
}

/** A version of a document: its blob in some commit. */
type Version = { blob: string };

/** A dataspace and its documents, as a decision needs them. */
type DocumentsOf = { dataspace: Dataspace; documents: { blobId(path: string): string | undefined } };
