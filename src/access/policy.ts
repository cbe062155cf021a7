/**
 * The authorization decision of one dataspace (SPEC §5 "Access control"), pure: Web Access Control
 * as LinkedDataHub uses it, read from the graphs of the dataspace's admin dataspace. Four steps: who
 * asks (a WebID or anonymous), what the request needs (a Mode), what they may do (the modes of the
 * matching authorizations, plus the rights of a document's acl:owner), decide. Authorizations count
 * only from documents under `<admin>acl/authorizations/` and group members only from documents under
 * `<admin>acl/groups/`, so an agent who may edit its own WebID document, or anyone appending an
 * access request, cannot grant itself anything. The class hierarchy that `acl:accessToClass`
 * follows is given (the owners' documents only, ontology/governing.ts), and the types the server
 * itself puts on documents (dh:Item, dh:Container, def:Root) are never subclasses of anything in
 * it: no ontology turns a rule about a class into a rule about every document. Built once per
 * change of the admin dataspace.
 */
import type { Quad } from '@rdfjs/types';
import { HIERARCHY_TYPES } from '../documents/metadata.js';
import { ns, RDF_TYPE } from '../rdf/namespaces.js';

export type Mode = 'Read' | 'Write' | 'Append' | 'Control';

export interface Target {
  /** The document URL (with trailing slash), e.g. https://localhost:4443/things/a/ */
  url: string;
  /** rdf:type IRIs of the document resource itself (e.g. dh:Item, dh:Container, def:Root). */
  types: readonly string[];
  /** acl:owner of the document, if any: the owner may Read, Write and Append it. */
  owners: readonly string[];
}

const SUBCLASS_OF = ns.rdfs + 'subClassOf';
const AUTHORIZATION = ns.acl + 'Authorization';
const EVERYONE = ns.foaf + 'Agent';
const AUTHENTICATED = ns.acl + 'AuthenticatedAgent';
const MODES = new Map<string, Mode>([[ns.acl + 'Read', 'Read'], [ns.acl + 'Write', 'Write'], [ns.acl + 'Append', 'Append'], [ns.acl + 'Control', 'Control']]);
const OWNER_MODES: readonly Mode[] = ['Read', 'Write', 'Append']; // the document's acl:owner, never Control
/** Agents whose decisions are kept on one target object (beyond them, they are made again). */
const DECISIONS_PER_TARGET = 1_000;

interface Authorization {
  iri: string;
  modes: ReadonlySet<Mode>;
}

/** The authorizations that share one "what" (an accessTo URL, a class, a default container), by "who". */
interface Bucket {
  everyone: Authorization[];
  authenticated: Authorization[];
  agents: Map<string, Authorization[]>;
  groups: Map<string, Authorization[]>;
}

interface Draft {
  types: string[];
  modes: Set<Mode>;
  accessTo: string[];
  accessToClass: string[];
  default: string[];
  agents: string[];
  agentClasses: string[];
  groups: string[];
}

interface Decision {
  modes: ReadonlySet<Mode>;
  authorizations: readonly string[];
}

/** The properties of an authorization that name a "what" or a "who", and the Draft list each fills. */
const FIELDS = new Map<string, 'accessTo' | 'accessToClass' | 'default' | 'agents' | 'agentClasses' | 'groups'>([
  [ns.acl + 'accessTo', 'accessTo'],
  [ns.acl + 'accessToClass', 'accessToClass'],
  [ns.acl + 'default', 'default'],
  [ns.acl + 'agent', 'agents'],
  [ns.acl + 'agentClass', 'agentClasses'],
  [ns.acl + 'agentGroup', 'groups'],
]);

const toKey = (url: string) => 'to\n' + url;
const classKey = (iri: string) => 'class\n' + iri;
const defaultKey = (url: string) => 'default\n' + url;

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Refuses a base that is not an absolute URL ending with '/' (a dataspace's, SPEC §2.1). */
export function requireBase(name: string, value: string): void {
  if (!value.endsWith('/') || !URL.canParse(value)) throw new Error(`${name} must be an absolute URL ending with '/': ${value}`);
}

/**
 * The containers whose `acl:default` reaches a document: its ancestors by URL, root first, never the
 * document itself (WAC: acl:accessTo names a resource, acl:default the resources a container holds).
 * Only documents inherit (SPEC §2.1: document URLs end with '/'); endpoints such as `sparql` or
 * `settings` are named by acl:accessTo. A dataspace's containers stop at its base: the admin
 * dataspace is a dataspace of its own although its URLs sit under the end-user root, and an
 * end-user dataspace at a path (`/second/`) inherits nothing from the containers above it.
 */
function containersOf(url: string, adminBase: string, endUserBase: string | undefined): string[] {
  if (!url.endsWith('/')) return [];
  const base = url.startsWith(adminBase) ? adminBase : endUserBase !== undefined && url.startsWith(endUserBase) ? endUserBase : undefined;
  const floor = base ? base.length - 1 : url.indexOf('/', url.indexOf('://') + 3);
  const out: string[] = [];
  for (let i = floor; i >= 0 && i < url.length - 1; i = url.indexOf('/', i + 1)) out.push(url.slice(0, i + 1));
  return out;
}

/** The targets of the rules that let everyone read, sorted (Policy.publicReadRules). */
export interface PublicReadRules {
  readonly accessTo: readonly string[];
  readonly accessToClass: readonly string[];
  readonly default: readonly string[];
}

export class Policy {
  private readonly buckets = new Map<string, Bucket>();
  private readonly groupsOf = new Map<string, string[]>();
  private readonly parents = new Map<string, string[]>();
  private readonly superclasses = new Map<string, readonly string[]>();
  private readonly byTarget = new WeakMap<Target, Map<string, Decision>>();
  private readonly publicRead = { accessTo: new Set<string>(), accessToClass: new Set<string>(), default: new Set<string>() };
  private publicReadSorted: PublicReadRules | undefined;

  private constructor(
    private readonly adminBase: string,
    private readonly endUserBase: string | undefined,
  ) {}

  /**
   * Builds the policy of ONE dataspace from the graphs of its admin dataspace (graph name = document
   * URL) and the class hierarchy (rdfs:subClassOf triples of the documents that shape the dataspace;
   * those whose subclass is a type the server puts on documents are ignored). Graphs
   * outside `<adminBase>acl/authorizations/` and `<adminBase>acl/groups/` are ignored, so are those of
   * another dataspace's admin. Pass JS terms (see `toJsQuads`), not Oxigraph's.
   */
  static build(input: { adminBase: string; endUserBase?: string; graphs: Iterable<{ url: string; quads: readonly Quad[] }>; subClassOf?: readonly Quad[] }): Policy {
    requireBase('adminBase', input.adminBase);
    const policy = new Policy(input.adminBase, input.endUserBase);
    for (const q of input.subClassOf ?? []) {
      if (q.predicate.value !== SUBCLASS_OF || q.subject.termType !== 'NamedNode' || q.object.termType !== 'NamedNode') continue;
      if (HIERARCHY_TYPES.has(q.subject.value)) continue; // dh:Item, dh:Container, def:Root are what they are
      push(policy.parents, q.subject.value, q.object.value);
    }
    const authorizationsUnder = input.adminBase + 'acl/authorizations/';
    const groupsUnder = input.adminBase + 'acl/groups/';
    const drafts = new Map<string, Draft>();
    for (const graph of input.graphs) {
      if (graph.url.length > authorizationsUnder.length && graph.url.startsWith(authorizationsUnder)) readAuthorizations(graph.quads, drafts);
      else if (graph.url.length > groupsUnder.length && graph.url.startsWith(groupsUnder)) policy.readMembers(graph.quads);
    }
    for (const [iri, draft] of drafts) {
      if (draft.modes.size === 0 || !draft.types.some((type) => policy.classesOf(type).includes(AUTHORIZATION))) continue;
      if (draft.modes.has('Write')) draft.modes.add('Append'); // WAC, access modes: acl:Append is contained in acl:Write
      policy.index({ iri, modes: draft.modes }, draft);
    }
    return policy;
  }

  /** The modes `agent` (undefined = anonymous) holds on `target`; Write brings Append along. */
  modes(agent: string | undefined, target: Target): ReadonlySet<Mode> {
    const granted = this.decide(agent, target).modes;
    if (agent === undefined || !target.owners.includes(agent)) return granted;
    return new Set([...granted, ...OWNER_MODES]);
  }

  /** Whether `agent` holds `mode` on target; Append is also granted by Write (WAC: Write implies Append). */
  allows(agent: string | undefined, target: Target, mode: Mode): boolean {
    if (agent !== undefined && mode !== 'Control' && target.owners.includes(agent)) return true;
    return this.decide(agent, target).modes.has(mode);
  }

  /** The authorizations (their IRIs, sorted) that give `agent` any mode on `target`; owner rights come from no authorization. */
  authorizationsFor(agent: string | undefined, target: Target): string[] {
    return [...this.decide(agent, target).authorizations];
  }

  /**
   * Public read (for sitemap.xml): what anonymous agents may read, as the authorizations say it:
   * document URLs, classes, and containers whose documents inherit (`default`).
   */
  publicReadRules(): PublicReadRules {
    // a policy is built once and never changes: sorted once (every page's footer asks, sitemap.ts)
    this.publicReadSorted ??= { accessTo: [...this.publicRead.accessTo].sort(), accessToClass: [...this.publicRead.accessToClass].sort(), default: [...this.publicRead.default].sort() };
    return this.publicReadSorted;
  }

  private readMembers(quads: readonly Quad[]): void {
    for (const q of quads) {
      if (q.predicate.value === ns.foaf + 'member' && q.subject.termType === 'NamedNode' && q.object.termType === 'NamedNode') push(this.groupsOf, q.object.value, q.subject.value);
    }
  }

  private index(authorization: Authorization, draft: Draft): void {
    const keys = [...draft.accessTo.map(toKey), ...draft.accessToClass.map(classKey), ...draft.default.map(defaultKey)];
    for (const key of keys) {
      let bucket = this.buckets.get(key);
      if (!bucket) this.buckets.set(key, (bucket = { everyone: [], authenticated: [], agents: new Map(), groups: new Map() }));
      if (draft.agentClasses.includes(EVERYONE)) bucket.everyone.push(authorization);
      else if (draft.agentClasses.includes(AUTHENTICATED)) bucket.authenticated.push(authorization);
      for (const agent of draft.agents) push(bucket.agents, agent, authorization);
      for (const group of draft.groups) push(bucket.groups, group, authorization);
    }
    if (draft.agentClasses.includes(EVERYONE) && authorization.modes.has('Read')) {
      for (const url of draft.accessTo) this.publicRead.accessTo.add(url);
      for (const iri of draft.accessToClass) this.publicRead.accessToClass.add(iri);
      for (const url of draft.default) this.publicRead.default.add(url);
    }
  }

  /** The class and its superclasses through rdfs:subClassOf, transitively; a cycle ends where it began. */
  private classesOf(type: string): readonly string[] {
    let known = this.superclasses.get(type);
    if (known) return known;
    const seen = new Set([type]);
    const queue = [type];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      for (const parent of this.parents.get(next) ?? []) {
        if (seen.has(parent)) continue;
        seen.add(parent);
        queue.push(parent);
      }
    }
    this.superclasses.set(type, (known = [...seen]));
    return known;
  }

  /** What the authorizations grant: only the buckets of the target's URL, classes and containers are read. */
  private decide(agent: string | undefined, target: Target): Decision {
    // a target is kept by access-control.ts (per document and blob, or per URL no document has) and asked again and again: its decisions hang on it
    let decisions = this.byTarget.get(target);
    const known = decisions?.get(agent ?? '');
    if (known) return known;
    const decision = this.decideNow(agent, target);
    if (!decisions) this.byTarget.set(target, (decisions = new Map()));
    if (decisions.size >= DECISIONS_PER_TARGET) decisions.clear();
    decisions.set(agent ?? '', decision);
    return decision;
  }

  private decideNow(agent: string | undefined, target: Target): Decision {
    const keys = [toKey(target.url), ...containersOf(target.url, this.adminBase, this.endUserBase).map(defaultKey)];
    for (const type of target.types) for (const cls of this.classesOf(type)) keys.push(classKey(cls));
    const groups = agent === undefined ? [] : (this.groupsOf.get(agent) ?? []);
    const matched = new Set<Authorization>();
    const add = (list: readonly Authorization[] | undefined) => list?.forEach((a) => matched.add(a));
    for (const key of keys) {
      const bucket = this.buckets.get(key);
      if (!bucket) continue;
      add(bucket.everyone); // acl:agentClass foaf:Agent: anyone, anonymous included
      if (agent === undefined) continue;
      add(bucket.authenticated); // acl:agentClass acl:AuthenticatedAgent: anyone with a WebID
      add(bucket.agents.get(agent));
      for (const group of groups) add(bucket.groups.get(group));
    }
    const modes = new Set<Mode>();
    for (const a of matched) for (const mode of a.modes) modes.add(mode);
    return { modes, authorizations: [...new Set([...matched].map((a) => a.iri))].sort() };
  }
}

function readAuthorizations(quads: readonly Quad[], drafts: Map<string, Draft>): void {
  for (const q of quads) {
    if (q.subject.termType !== 'NamedNode' || q.object.termType !== 'NamedNode') continue;
    const predicate = q.predicate.value;
    const field = FIELDS.get(predicate);
    if (!field && predicate !== RDF_TYPE && predicate !== ns.acl + 'mode') continue;
    let draft = drafts.get(q.subject.value);
    if (!draft) drafts.set(q.subject.value, (draft = { types: [], modes: new Set(), accessTo: [], accessToClass: [], default: [], agents: [], agentClasses: [], groups: [] }));
    if (field) draft[field].push(q.object.value);
    else if (predicate === RDF_TYPE) draft.types.push(q.object.value);
    else {
      const mode = MODES.get(q.object.value);
      if (mode) draft.modes.add(mode);
    }
  }
}
