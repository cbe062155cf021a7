/** Sorted lists, kept sorted: the merge of two lists already in one order (git's, for trees and the stage). */

/**
 * `a` and `b`, each sorted by `compare`, as one sorted list; on a tie `a`'s element comes first.
 * Each element of `b` finds its place in `a` by binary search and the run of `a` before it is
 * copied without comparing: a create in a folder of n entries costs log n comparisons, not n
 * (git's tree order compares names with a surrogate test each, which made this a create's largest
 * cost on the main thread: bench --only scale).
 */
export function mergeSorted<T>(a: readonly T[], b: readonly T[], compare: (x: T, y: T) => number): T[] {
  const out = new Array<T>(a.length + b.length);
  let i = 0;
  let k = 0;
  for (const item of b) {
    // the first element of a[i..] that sorts after `item` (ties stay before it)
    let low = i;
    let high = a.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compare(a[middle]!, item) <= 0) low = middle + 1;
      else high = middle;
    }
    while (i < low) out[k++] = a[i++]!;
    out[k++] = item;
  }
  while (i < a.length) out[k++] = a[i++]!;
  return out;
}
