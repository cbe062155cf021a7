/**
 * Canonical blank-node labels for graphs RDFC-1.0 cannot label within its bound: alike blank nodes
 * in symmetric structures (a clique of `foaf:knows`, a long cycle), where RDFC-1.0's work grows
 * factorially (a K8 needs over 262,144 deep iterations). Individualisation and refinement, as graph
 * canonisers do: blank nodes are coloured by their own triples, colours refined by their
 * neighbours' until stable, and where a class stays larger than one each of its members is tried
 * in turn; the labelling whose sorted N-Triples is least is canonical. Subtrees that an
 * automorphism found on the way maps onto explored ones are skipped, so symmetry costs little.
 * Every choice is made on colours, predicates and text, never on input labels: isomorphic graphs
 * get the same bytes. Work is counted and bounded. Pure: no I/O.
 */
import type { Quad, Term } from '@rdfjs/types';
import { DataFactory } from 'n3';
import { joinUnique, termToNTriples, tripleLine } from './ntriples.js';

/** Thrown past the work bound; the caller words the refusal. */
export class TooMuchWork extends Error {}

interface Edge {
  /** `>` subject to object, `<` object to subject, with the predicate IRI. */
  key: string;
  to: number;
}

interface Leaf {
  text: string;
  colour: Int32Array;
  path: number[];
}

/** Sorted, duplicate-free N-Triples lines of `triples`, their blank nodes named by `name`. */
function serialise(triples: readonly Quad[], name: (label: string) => string): string {
  const relabel = (term: Term): Term => (term.termType === 'BlankNode' ? DataFactory.blankNode(name(term.value)) : term);
  const lines = triples.map((q) => tripleLine(DataFactory.quad(relabel(q.subject) as Quad['subject'], q.predicate, relabel(q.object) as Quad['object'])));
  return joinUnique(lines);
}

/**
 * Canonical labels (`c14n0`, `c14n1`, …) for the blank nodes of `triples`, as a map from the
 * input labels. Throws TooMuchWork once `budget` units of work (a vertex coloured once) are spent.
 */
export function symmetricLabels(triples: readonly Quad[], budget: number): Map<string, string> {
  const labels: string[] = [];
  const index = new Map<string, number>();
  const add = (term: Term) => {
    if (term.termType === 'BlankNode' && !index.has(term.value)) index.set(term.value, labels.push(term.value) - 1);
  };
  for (const q of triples) {
    add(q.subject);
    add(q.object);
  }
  const n = labels.length;
  const own: string[][] = labels.map(() => []);
  const edges: Edge[][] = labels.map(() => []);
  for (const q of triples) {
    const s = q.subject.termType === 'BlankNode' ? index.get(q.subject.value)! : -1;
    const o = q.object.termType === 'BlankNode' ? index.get(q.object.value)! : -1;
    // RDFC-1.0's first-degree view: the node itself is _:a, any other blank node _:z
    for (const v of new Set([s, o])) {
      if (v < 0) continue;
      const view = (term: Term, at: number) => (at < 0 ? termToNTriples(term) : at === v ? '_:a' : '_:z');
      own[v]!.push(`${view(q.subject, s)} ${termToNTriples(q.predicate)} ${view(q.object, o)}`);
    }
    if (s >= 0 && o >= 0 && s !== o) {
      edges[s]!.push({ key: `>${q.predicate.value}`, to: o });
      edges[o]!.push({ key: `<${q.predicate.value}`, to: s });
    }
  }
  let work = 0;
  /** Ranks vertices by (current colour, signature): cells only split, in an order no label decides. */
  const rank = (colour: Int32Array, signature: (v: number) => string): { colour: Int32Array; cells: number } => {
    work += n;
    if (work > budget) throw new TooMuchWork();
    const keyed = Array.from({ length: n }, (_, v) => ({ v, c: colour[v]!, s: signature(v) }));
    keyed.sort((a, b) => a.c - b.c || (a.s < b.s ? -1 : a.s > b.s ? 1 : 0));
    const next = new Int32Array(n);
    let cells = 0;
    keyed.forEach((item, i) => {
      if (i > 0 && (item.c !== keyed[i - 1]!.c || item.s !== keyed[i - 1]!.s)) cells++;
      next[item.v] = cells;
    });
    return { colour: next, cells: cells + 1 };
  };
  const refine = (start: Int32Array): Int32Array => {
    let current = rank(start, () => '');
    for (;;) {
      const colour = current.colour;
      const next = rank(colour, (v) => edges[v]!.map((e) => `${e.key} ${colour[e.to]}`).sort().join('\n'));
      if (next.cells === current.cells) return colour;
      current = next;
    }
  };
  const individualise = (colour: Int32Array, v: number): Int32Array => colour.map((c, u) => (u === v || c < colour[v]! ? c : c + 1));

  const automorphisms: Int32Array[] = [];
  let first: Leaf | undefined;
  let best: Leaf | undefined;
  const inverse = (colour: Int32Array) => {
    const at = new Int32Array(n);
    colour.forEach((c, v) => (at[c] = v));
    return at;
  };
  const divergence = (a: number[], b: number[]) => {
    let d = 0;
    while (a[d] === b[d]) d++;
    return d;
  };
  /** A leaf: returns the depth whose node goes on (its parent's, or further up past an automorphism). */
  const leaf = (colour: Int32Array, path: number[]): number => {
    const text = serialise(triples, (label) => `c14n${colour[index.get(label)!]}`);
    for (const known of [first, best]) {
      if (known && known.text === text) {
        const to = inverse(colour);
        automorphisms.push(known.colour.map((c) => to[c]!)); // maps the known leaf's nodes onto this one's
        return divergence(path, known.path);
      }
    }
    const found = { text, colour, path };
    first ??= found;
    if (!best || text < best.text) best = found;
    return path.length - 1;
  };
  /** Whether `v` is in the orbit of an explored sibling under the automorphisms that fix `path`. */
  const sameOrbit = (v: number, explored: number[], path: number[]): boolean => {
    const parent = Int32Array.from({ length: n }, (_, i) => i);
    const find = (x: number): number => (parent[x] === x ? x : (parent[x] = find(parent[x]!)));
    for (const g of automorphisms) {
      if (path.some((p) => g[p] !== p)) continue;
      g.forEach((to, from) => (parent[find(from)] = find(to)));
    }
    return explored.some((u) => find(u) === find(v));
  };
  const search = (start: Int32Array, path: number[]): number => {
    const colour = refine(start);
    const cells = new Map<number, number[]>();
    colour.forEach((c, v) => cells.set(c, [...(cells.get(c) ?? []), v]));
    if (cells.size === n) return leaf(colour, path);
    const target = [...cells.entries()].filter(([, members]) => members.length > 1).sort((a, b) => a[0] - b[0])[0]![1];
    const explored: number[] = [];
    for (const v of target) {
      if (sameOrbit(v, explored, path)) continue;
      explored.push(v);
      const resume = search(individualise(colour, v), [...path, v]);
      if (resume < path.length) return resume;
    }
    return path.length - 1;
  };
  const initial = rank(new Int32Array(n), (v) => own[v]!.sort().join('\n')).colour;
  search(initial, []);
  const canonical = best!.colour;
  return new Map(labels.map((label, v) => [label, `c14n${canonical[v]}`]));
}
