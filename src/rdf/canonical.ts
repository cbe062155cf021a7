/**
 * Canonical bytes of a document graph (DESIGN.md, "Canonical bytes"): N-Triples, one triple per
 * line, sorted by code point, no duplicates, each line ending in `\n`, UTF-8. Blank nodes are
 * labelled by RDFC-1.0 with its work limits on, so the same graph always gives the same bytes and a
 * hostile graph is refused instead of hanging the server. Pure: no I/O.
 */
import type { Quad, Term } from '@rdfjs/types';
import { DataFactory } from 'n3';
import { canonize } from 'rdf-canonize';
import { LodestoneError } from '../errors.js';
import { tripleLine } from './ntriples.js';

export interface CanonicalLimits {
  /** Most distinct blank nodes one document may hold. */
  maxBlankNodes: number;
  /** RDFC-1.0 work factor: 1 allows O(n) deep iterations (rdf-canonize's default). */
  maxWorkFactor: number;
  /** Milliseconds canonicalisation may take before the graph is refused. */
  timeoutMs: number;
}

export const defaultCanonicalLimits: CanonicalLimits = {
  maxBlankNodes: 10_000,
  maxWorkFactor: 1,
  timeoutMs: 5_000,
};

const surrogate = /[\uD800-\uDFFF]/;

/** Sorts lines by Unicode code point (UTF-16 order differs only when astral characters occur). */
function sortByCodePoint(lines: string[]): string[] {
  if (!lines.some((line) => surrogate.test(line))) return lines.sort();
  return lines.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** Joins sorted lines into the canonical text, dropping duplicates. */
function joinUnique(lines: string[]): string {
  let text = '';
  let previous: string | undefined;
  for (const line of sortByCodePoint(lines)) {
    if (line === previous) continue;
    text += line + '\n';
    previous = line;
  }
  return text;
}

function blankNodeLabels(quads: readonly Quad[]): Set<string> {
  const labels = new Set<string>();
  for (const quad of quads) {
    if (quad.subject.termType === 'BlankNode') labels.add(quad.subject.value);
    if (quad.object.termType === 'BlankNode') labels.add(quad.object.value);
  }
  return labels;
}

/** The triples of `quads` (graphs ignored) as canonical N-Triples text. */
export async function canonicalNTriples(
  quads: readonly Quad[],
  limits: CanonicalLimits = defaultCanonicalLimits,
): Promise<string> {
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
  const canonicalIdMap = new Map<string, string>();
  try {
    await canonize(triples, {
      algorithm: 'RDFC-1.0',
      canonicalIdMap,
      maxWorkFactor: limits.maxWorkFactor,
      signal: AbortSignal.timeout(limits.timeoutMs),
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new LodestoneError(
      'CanonicalizationLimit',
      `the blank nodes of this graph are too costly to label canonically (${reason})`,
    );
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
export async function canonicalBytes(
  quads: readonly Quad[],
  limits: CanonicalLimits = defaultCanonicalLimits,
): Promise<Buffer> {
  return Buffer.from(await canonicalNTriples(quads, limits), 'utf8');
}
