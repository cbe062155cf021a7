/**
 * Canonical labels for alike blank nodes (src/rdf/symmetric-labels.ts, and canonical.ts, which
 * falls back to it past RDFC-1.0's bound): the same graph gives the same bytes whatever its input
 * labels and triple order (a property over random graphs built to be symmetric, with the labelling
 * run directly, not only where RDFC-1.0 gives up); the labels are a bijection; cliques and cycles
 * that RDFC-1.0 cannot afford are labelled; past the work bound, a refusal that says what to do.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Quad } from '@rdfjs/types';
import fc from 'fast-check';
import { DataFactory } from 'n3';
import { canonicalNTriples, deepLimits } from '../src/rdf/canonical.js';
import { tripleLine } from '../src/rdf/ntriples.js';
import { symmetricLabels, TooMuchWork } from '../src/rdf/symmetric-labels.js';
import { isLodestoneError } from '../src/errors.js';

const { quad, blankNode, namedNode, literal } = DataFactory;
const P = ['http://ex/p', 'http://ex/q'].map((p) => namedNode(p));

/** The graph with blank node i named by `names[i]`, its triples in the order `order`. */
function build(edges: Array<[number, number, number]>, extra: Array<[number, number]>, names: string[], order: number[]): Quad[] {
  const triples = [
    ...edges.map(([s, p, o]) => quad(blankNode(names[s]!), P[p]!, blankNode(names[o]!))),
    ...extra.map(([s, v]) => quad(blankNode(names[s]!), P[0]!, literal(String(v)))),
  ];
  return order.map((i) => triples[i % triples.length]!);
}

function labelled(triples: Quad[]): string {
  const labels = symmetricLabels(triples, 10_000_000);
  const name = (t: Quad['subject'] | Quad['object']) => (t.termType === 'BlankNode' ? blankNode(labels.get(t.value)!) : t);
  const lines = triples.map((q) => tripleLine(quad(name(q.subject) as Quad['subject'], q.predicate, name(q.object) as Quad['object'])));
  return [...new Set(lines)].sort().join('\n');
}

const graph = fc
  .integer({ min: 2, max: 9 })
  .chain((n) =>
    fc.record({
      n: fc.constant(n),
      // a cycle or a clique of the first k nodes, plus random edges and a few literals
      shape: fc.constantFrom('cycle', 'clique', 'none'),
      k: fc.integer({ min: 2, max: n }),
      edges: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(1), fc.nat(n - 1)), { maxLength: 12 }),
      extra: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(2)), { maxLength: 3 }),
      names: fc.shuffledSubarray(Array.from({ length: 40 }, (_, i) => `n${i}`), { minLength: n, maxLength: n }),
      again: fc.shuffledSubarray(Array.from({ length: 40 }, (_, i) => `m${i}`), { minLength: n, maxLength: n }),
      seed: fc.integer(),
    }),
  );

function edgesOf(g: { n: number; shape: string; k: number; edges: Array<[number, number, number]> }): Array<[number, number, number]> {
  const out = [...g.edges];
  for (let i = 0; i < g.k; i++) {
    if (g.shape === 'cycle') out.push([i, 0, (i + 1) % g.k]);
    if (g.shape === 'clique') for (let j = 0; j < g.k; j++) if (i !== j) out.push([i, 0, j]);
  }
  return out;
}

function shuffled(length: number, seed: number): number[] {
  const order = Array.from({ length }, (_, i) => i);
  let x = seed | 1;
  for (let i = length - 1; i > 0; i--) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    const j = x % (i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

describe('symmetric blank-node labels', () => {
  it('give one output for every relabelling and ordering of a graph, and a bijection onto c14n0…', () => {
    fc.assert(
      fc.property(graph, (g) => {
        const edges = edgesOf(g);
        const count = edges.length + g.extra.length;
        if (count === 0) return;
        const a = build(edges, g.extra, g.names, Array.from({ length: count }, (_, i) => i));
        const b = build(edges, g.extra, g.again, shuffled(count, g.seed));
        assert.equal(labelled(a), labelled(b));
        const labels = symmetricLabels(a, 10_000_000);
        assert.deepEqual([...new Set(labels.values())].sort(), [...labels.keys()].map((_, i) => `c14n${i}`).sort());
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 300) },
    );
  });

  it('labels what RDFC-1.0 cannot afford (K8, K10, a 200-node cycle) with the same bytes for any input labels', async () => {
    const knows = namedNode('http://xmlns.com/foaf/0.1/knows');
    const clique = (n: number, prefix: string) => {
      const out: Quad[] = [];
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i !== j) out.push(quad(blankNode(`${prefix}${i}`), knows, blankNode(`${prefix}${j}`)));
      return out;
    };
    const cycle = (n: number, prefix: string, step: number) => Array.from({ length: n }, (_, i) => quad(blankNode(`${prefix}${(i * step) % n}`), knows, blankNode(`${prefix}${((i + 1) * step) % n}`)));
    for (const [a, b] of [
      [clique(8, 'a'), clique(8, 'b').reverse()],
      [clique(10, 'a'), clique(10, 'z')],
      [cycle(200, 'a', 1), cycle(200, 'b', 7)],
    ]) {
      const [x, y] = [await canonicalNTriples(a!, deepLimits), await canonicalNTriples(b!, deepLimits)];
      assert.equal(x, y);
      assert.match(x, /_:c14n0 /);
    }
  });

  it('refuses past its work bound, with words that say what to do', async () => {
    const cycle = Array.from({ length: 5000 }, (_, i) => quad(blankNode(`n${i}`), P[0]!, blankNode(`n${(i + 1) % 5000}`)));
    assert.throws(() => symmetricLabels(cycle, 100_000), TooMuchWork);
    await assert.rejects(canonicalNTriples(cycle, { ...deepLimits, symmetricWork: 100_000 }), (error) => isLodestoneError(error, 'CanonicalizationLimit') && /give these blank nodes IRIs/.test(error.message));
  });
});
