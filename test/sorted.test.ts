/** mergeSorted (util/sorted.ts): the merge by binary search gives what a stable sort of both lists gives. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeSorted } from '../src/util/sorted.js';

test('mergeSorted equals a stable sort of a then b, ties keeping a first, for lists of every shape', () => {
  let seed = 7;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const byKey = (x: { key: number }, y: { key: number }) => x.key - y.key;
  for (let round = 0; round < 500; round++) {
    const list = (side: string, n: number) => Array.from({ length: n }, (_, i) => ({ key: random(20), side, i })).sort(byKey);
    const a = list('a', random(30));
    const b = list('b', random(round % 5 === 0 ? 30 : 3));
    const expected = [...a, ...b].sort(byKey); // Array.prototype.sort is stable: a's elements first on a tie
    assert.deepEqual(mergeSorted(a, b, byKey), expected);
  }
  assert.deepEqual(mergeSorted([], [], byKeyOf), []);
});

function byKeyOf(x: number, y: number): number {
  return x - y;
}
