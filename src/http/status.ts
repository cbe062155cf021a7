/**
 * `<base>status` (DESIGN.md "Replicas and status", issue 29): what an owner needs to see that a
 * dataspace is well, for it and the other dataspace of its pair (they share their owners): the
 * branch's HEAD and its time, the commit its index reflects and the index's kind, how many documents
 * and triples it holds, and its mirror's state and lag. JSON by default (`jq`-friendly), or RDF in
 * any format (VoID for the sizes, the terms below for the rest). Never cached: it is now.
 */
import { DataFactory } from 'n3';
import type { Quad, Quad_Object } from '@rdfjs/types';
import { JSON_TYPE } from '../rdf/media-types.js';
import { ns, RDF_TYPE } from '../rdf/namespaces.js';
import { serialiseQuads } from '../rdf/formats.js';
import type { DataspaceRuntime } from '../runtime.js';
import type { RepositoryStatus } from '../documents/repository-status.js';
import { contentTypeOf } from './representations.js';
import type { Reply } from './reply.js';
import type { Context, Decided, ReplicaView } from './state.js';

const { namedNode, literal, quad } = DataFactory;

/** The status terms (README "Status"), and VoID's for sizes. */
export const STATUS = 'https://w3id.org/lodestone/status#';
const VOID = 'http://rdfs.org/ns/void#';

export interface DataspaceStatus extends RepositoryStatus {
  dataspace: string;
  role: 'end-user' | 'admin';
  mirror: { location: string; state: string; lag: number; pushed: string | null; lastError: string | null; updated: string } | null;
  /** On a read replica: its primary, the primary's HEAD as last heard, and how far behind it this copy is. */
  replica: ReturnType<ReplicaView['status']> | null;
}

/** The status of one dataspace, read now. */
export async function statusOf(runtime: DataspaceRuntime, replica: ReplicaView | undefined): Promise<DataspaceStatus> {
  const pushed = runtime.mirror?.status();
  return {
    dataspace: runtime.documents.base,
    role: runtime.role === 'admin' ? 'admin' : 'end-user',
    ...(await runtime.documents.status()),
    mirror: pushed
      ? { location: pushed.location, state: pushed.state, lag: pushed.lag, pushed: pushed.pushed?.local ?? null, lastError: pushed.lastError ?? null, updated: pushed.updated }
      : null,
    replica: replica?.status(runtime.documents.base) ?? null,
  };
}

/** The status as RDF: each dataspace a void:Dataset. */
export function statusQuads(statuses: readonly DataspaceStatus[]): Quad[] {
  const quads: Quad[] = [];
  const integer = (n: number) => literal(String(n), namedNode(ns.xsd + 'integer'));
  for (const s of statuses) {
    const it = namedNode(s.dataspace);
    const add = (p: string, o: Quad_Object) => quads.push(quad(it, namedNode(p), o));
    add(RDF_TYPE, namedNode(VOID + 'Dataset'));
    add(VOID + 'documents', integer(s.documents));
    add(VOID + 'triples', integer(s.triples));
    add(STATUS + 'role', literal(s.role));
    add(STATUS + 'branch', literal(s.branch));
    if (s.head) add(STATUS + 'head', literal(s.head));
    if (s.headTime) add(STATUS + 'headTime', literal(s.headTime, namedNode(ns.xsd + 'dateTime')));
    add(STATUS + 'indexKind', literal(s.index.kind));
    if (s.index.commit) add(STATUS + 'indexedCommit', literal(s.index.commit));
    if (s.mirror) {
      add(STATUS + 'mirror', namedNode(s.mirror.location));
      add(STATUS + 'mirrorState', literal(s.mirror.state));
      add(STATUS + 'mirrorLag', integer(s.mirror.lag));
      if (s.mirror.lastError) add(STATUS + 'mirrorError', literal(s.mirror.lastError));
    }
    if (s.replica) {
      add(STATUS + 'primary', namedNode(s.replica.primary));
      if (s.replica.primaryHead) add(STATUS + 'primaryHead', literal(s.replica.primaryHead));
      add(STATUS + 'caughtUp', literal(String(s.replica.caughtUp), namedNode(ns.xsd + 'boolean')));
      if (s.replica.lagSeconds !== null) add(STATUS + 'lagSeconds', literal(s.replica.lagSeconds.toFixed(3), namedNode(ns.xsd + 'decimal')));
      if (s.replica.lagCommits !== null) add(STATUS + 'lagCommits', integer(s.replica.lagCommits));
    }
  }
  return quads;
}

/** GET and HEAD of `<base>status`: the route table's handler (owners only: the row needs Control). */
export async function status(ctx: Context, { type }: Decided): Promise<Reply> {
  const { runtime, served } = ctx.state;
  // the pair first as it asked: the dataspace asked about, then the other of its pair
  const pair = [runtime, ...served.runtimes.filter((r) => r !== runtime && r.access === runtime.access)];
  const statuses = await Promise.all(pair.map((r) => statusOf(r, served.replica)));
  const headers = { 'Cache-Control': 'no-store' };
  if (type === undefined || type === JSON_TYPE) {
    return { headers, contentType: `${JSON_TYPE}; charset=utf-8`, body: () => Promise.resolve(JSON.stringify({ dataspaces: statuses }, null, 2) + '\n') };
  }
  return { headers, contentType: contentTypeOf(type), body: () => serialiseQuads(statusQuads(statuses), type) };
}
