/**
 * Canonical bytes of a document graph (DESIGN.md, "Canonical bytes"): N-Triples, one triple per
 * line, sorted by code point, no duplicates, each line ending in `\n`, UTF-8. Blank nodes are
 * labelled by RDFC-1.0 with a bound on its deep work and, past it, by symmetric-labels.ts (which
 * labels what RDFC-1.0 cannot afford: cliques, long cycles), so the same graph always gives the
 * same bytes and a hostile graph is refused. Writes are labelled in two steps: shallow where they are composed,
 * and deep, only when alike blank nodes need it, in a worker with a deadline. Pure: no I/O.
 */
import type { Quad, Term } from '@rdfjs/types';
import { DataFactory } from 'n3';
import { canonize } from 'rdf-canonize';
import { LodestoneError } from '../errors.js';
import { joinUnique, tripleLine } from './ntriples.js';
import { symmetricLabels, TooMuchWork } from './symmetric-labels.js';

export interface CanonicalLimits {
  /** Most distinct blank nodes one document may hold. */
  maxBlankNodes: number;
  /**
   * RDFC-1.0's deep iterations (its Hash N-Degree Quads calls): 0 labels only blank nodes that
   * their own triples tell apart, which every graph without look-alike blank nodes needs and which
   * takes linear time. Alike ones (a cycle, twins) need more; RDFC-1.0's work on a clique grows
   * factorially (a K8 needs over 262,144, more than 12 s here).
   */
  maxDeepIterations: number;
  /**
   * Past that, the work symmetric-labels.ts may spend (a blank node coloured once is one unit): a K8
   * or a 1,000-node cycle fits in 2,000,000; a 5,000-node cycle reaches it in about a second here. 0: none.
   */
  symmetricWork: number;
}

/**
 * RDFC-1.0's deep work is tried only on graphs of at most this many blank nodes, and for as many
 * deep iterations: everything earlier versions stored (their bound was one iteration per blank
 * node) keeps its labels, and a graph RDFC-1.0 cannot finish cheaply goes to symmetric-labels.ts
 * at once. A count, so isomorphic graphs choose alike.
 */
const RDFC_DEEP_NODES = 256;

/** What a write is labelled with where it is composed: no deep work, so a costly graph is set aside quickly. */
export const shallowLimits: CanonicalLimits = { maxBlankNodes: 10_000, maxDeepIterations: 0, symmetricWork: 0 };

/** What a graph set aside gets in the labelling worker, which also stops it at a deadline. */
export const deepLimits: CanonicalLimits = { maxBlankNodes: 10_000, maxDeepIterations: RDFC_DEEP_NODES, symmetricWork: 2_000_000 };

function blankNodeLabels(quads: readonly Quad[]): Set<string> {
  const labels = new Set<string>();
  for (const quad of quads) {
    if (quad.subject.termType === 'BlankNode') labels.add(quad.subject.value);
    if (quad.object.termType === 'BlankNode') labels.add(quad.object.value);
  }
  return labels;
}

/** Thrown when the blank nodes need deeper work than the limits allow; carries how many are alike. */
export function tooAlike(blankNodes: number, limits: CanonicalLimits): LodestoneError {
  return new LodestoneError(
    'CanonicalizationLimit',
    `this graph's ${blankNodes} blank nodes are too alike to be told apart within the server's limits: ` +
      'give these blank nodes IRIs, or properties that tell them apart',
    { blankNodes, deep: limits.maxDeepIterations === 0 },
  );
}

/** The triples of `quads` (graphs ignored) as canonical N-Triples text. */
export async function canonicalNTriples(quads: readonly Quad[], limits: CanonicalLimits = deepLimits): Promise<string> {
  const triples = quads.map((q) => DataFactory.quad(q.subject, q.predicate, q.object));
  const labels = blankNodeLabels(triples);
  if (labels.size === 0) return joinUnique(triples.map(tripleLine));
  if (labels.size > limits.maxBlankNodes) {
    throw new LodestoneError(
      'TooManyBlankNodes',
      `the graph has ${labels.size} blank nodes; at most ${limits.maxBlankNodes} are accepted in one document`,
      { blankNodes: labels.size, limit: limits.maxBlankNodes },
    );
  }
  let canonicalIdMap = new Map<string, string>();
  // each deep iteration of RDFC-1.0 may walk the whole graph: past a few hundred blank nodes, its
  // bound would cost seconds before the symmetric labelling takes over, so that goes first there
  const deep = labels.size <= RDFC_DEEP_NODES ? limits.maxDeepIterations : 0;
  try {
    await canonize(triples, { algorithm: 'RDFC-1.0', canonicalIdMap, maxDeepIterations: deep });
  } catch (error) {
    if (!/deep iterations/i.test(error instanceof Error ? error.message : '')) throw error;
    if (limits.symmetricWork === 0) throw tooAlike(labels.size, limits);
    try {
      canonicalIdMap = symmetricLabels(triples, limits.symmetricWork);
    } catch (failure) {
      if (failure instanceof TooMuchWork) throw tooAlike(labels.size, limits);
      throw failure;
    }
  }
  const relabel = (term: Term): Term =>
    term.termType === 'BlankNode' ? DataFactory.blankNode(canonicalIdMap.get(term.value) ?? term.value) : term;
  return joinUnique(
    triples.map((q) =>
      tripleLine(DataFactory.quad(relabel(q.subject) as Quad['subject'], q.predicate, relabel(q.object) as Quad['object'])),
    ),
  );
}

/** Canonical bytes of a graph: what is stored in git. */
export async function canonicalBytes(quads: readonly Quad[], limits: CanonicalLimits = deepLimits): Promise<Buffer> {
  return Buffer.from(await canonicalNTriples(quads, limits), 'utf8');
}

/**
 * Canonical bytes without deep work, or, for a graph whose blank nodes need it, the graph as
 * N-Triples (its own labels) to be labelled where a costly graph holds up no one else.
 */
export async function shallowCanonicalBytes(quads: readonly Quad[]): Promise<Buffer | { deep: string }> {
  try {
    return await canonicalBytes(quads, shallowLimits);
  } catch (error) {
    if (!(error instanceof LodestoneError && error.data.deep)) throw error;
    return { deep: quads.map((q) => tripleLine(DataFactory.quad(q.subject, q.predicate, q.object))).join('\n') + '\n' };
  }
}
