/**
 * Document hierarchy metadata (SPEC §2.2), which belongs to the server: a client cannot forge or
 * remove it through PUT, POST or PATCH. `serverTriples` recognises it in any graph; `withMetadata`
 * strips what a client sent and adds the server's own: the type (dh:Item by default, dh:Container
 * when the client asked for it at creation, def:Root and dh:Container for the root), the link to
 * the parent, dct:created (kept from creation), one dct:modified, dct:creator and acl:owner. Pure.
 */
import type { Quad } from '@rdfjs/types';
import { DataFactory } from 'n3';
import { hasTriple } from '../rdf/canonical-lines.js';
import { ns, RDF_TYPE } from '../rdf/namespaces.js';

const { namedNode, literal, quad } = DataFactory;

const DH_ITEM = ns.dh + 'Item';
const DH_CONTAINER = ns.dh + 'Container';
const DEF_ROOT = ns.def + 'Root';
const metadataPredicates = new Set([
  ns.dct + 'created',
  ns.dct + 'modified',
  ns.dct + 'creator',
  ns.acl + 'owner',
  ns.sioc + 'has_container',
  ns.sioc + 'has_parent',
]);
/** The types the server puts on documents (and nobody else may): access control never lets them be made subclasses of anything (access/policy.ts). */
export const HIERARCHY_TYPES: ReadonlySet<string> = new Set([DH_ITEM, DH_CONTAINER, DEF_ROOT]);

export function isServerTriple(q: Quad, documentUrl: string): boolean {
  if (q.subject.termType !== 'NamedNode' || q.subject.value !== documentUrl) return false;
  if (metadataPredicates.has(q.predicate.value)) return true;
  return q.predicate.value === RDF_TYPE && HIERARCHY_TYPES.has(q.object.value);
}

export interface Metadata {
  kind: 'root' | 'container' | 'item';
  created: string;
  creator: string | undefined;
  owner: string | undefined;
}

/** The metadata recorded in a stored graph, or undefined when it has none. */
export function readMetadata(graph: readonly Quad[], documentUrl: string): Metadata | undefined {
  let kind: Metadata['kind'] | undefined;
  let created: string | undefined;
  let creator: string | undefined;
  let owner: string | undefined;
  for (const q of graph) {
    if (q.subject.value !== documentUrl) continue;
    const p = q.predicate.value;
    if (p === RDF_TYPE && q.object.value === DEF_ROOT) kind = 'root';
    else if (p === RDF_TYPE && q.object.value === DH_CONTAINER && kind !== 'root') kind = 'container';
    else if (p === RDF_TYPE && q.object.value === DH_ITEM && !kind) kind = 'item';
    else if (p === ns.dct + 'created') created = q.object.value;
    else if (p === ns.dct + 'creator') creator = q.object.value;
    else if (p === ns.acl + 'owner') owner = q.object.value;
  }
  return kind && created ? { kind, created, creator, owner } : undefined;
}

/** Whether a client graph asks for a container: `<doc> a dh:Container`. */
export function asksForContainer(graph: readonly Quad[], documentUrl: string): boolean {
  return graph.some((q) => q.subject.value === documentUrl && q.predicate.value === RDF_TYPE && q.object.value === DH_CONTAINER);
}

/** xsd:dateTime in UTC with milliseconds (SPEC §2.2). */
export function timestamp(date: Date): string {
  return date.toISOString();
}

export interface MetadataInput {
  documentUrl: string;
  /** The parent container's URL; undefined for the root. */
  parentUrl: string | undefined;
  metadata: Metadata;
  modified: string;
}

/** The client's triples without anything the server owns, plus the server's metadata. */
export function withMetadata(graph: readonly Quad[], input: MetadataInput): Quad[] {
  const doc = namedNode(input.documentUrl);
  const dateTime = namedNode(ns.xsd + 'dateTime');
  const out = graph.filter((q) => !isServerTriple(q, input.documentUrl));
  const { kind, created, creator, owner } = input.metadata;
  if (kind === 'root') out.push(quad(doc, namedNode(RDF_TYPE), namedNode(DEF_ROOT)), quad(doc, namedNode(RDF_TYPE), namedNode(DH_CONTAINER)));
  else out.push(quad(doc, namedNode(RDF_TYPE), namedNode(kind === 'container' ? DH_CONTAINER : DH_ITEM)));
  if (input.parentUrl) {
    // SPEC §2.2: items link to their container, containers to their parent
    out.push(quad(doc, namedNode(ns.sioc + (kind === 'item' ? 'has_container' : 'has_parent')), namedNode(input.parentUrl)));
  }
  out.push(quad(doc, namedNode(ns.dct + 'created'), literal(created, dateTime)));
  out.push(quad(doc, namedNode(ns.dct + 'modified'), literal(input.modified, dateTime)));
  if (creator) out.push(quad(doc, namedNode(ns.dct + 'creator'), namedNode(creator)));
  if (owner) out.push(quad(doc, namedNode(ns.acl + 'owner'), namedNode(owner)));
  return out;
}

export function isContainerGraph(ntriples: string, documentUrl: string): boolean {
  return hasTriple(ntriples, documentUrl, RDF_TYPE, DH_CONTAINER);
}
