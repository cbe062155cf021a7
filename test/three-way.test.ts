import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeDocument } from '../src/rdf/three-way.js';

const t = (s: string, p: string, o: string) => `<https://e.x/${s}> <https://e.x/${p}> "${o}" .`;
const merged = (outcome: ReturnType<typeof mergeDocument>) => ('merged' in outcome ? outcome.merged : assert.fail(`conflicts: ${JSON.stringify(outcome)}`));

describe('three-way merge of triple sets (rdf/three-way.ts)', () => {
  it('keeps a base triple iff both sides kept it, and adds what either side added', () => {
    const base = [t('a', 'p', '1'), t('b', 'p', '1'), t('c', 'p', '1')];
    const ours = [t('a', 'p', '1'), t('b', 'p', '1'), t('c', 'p', '1'), t('d', 'p', 'ours')];
    const theirs = [t('a', 'p', '1'), t('c', 'p', '1'), t('e', 'p', 'theirs')]; // removed b
    assert.equal(merged(mergeDocument(base, ours, theirs)), [t('a', 'p', '1'), t('c', 'p', '1'), t('d', 'p', 'ours'), t('e', 'p', 'theirs')].join('\n') + '\n');
  });

  it('reports both sides changing one subject and predicate differently, and agrees when they changed it alike', () => {
    const base = [t('a', 'title', 'x'), t('a', 'other', 'y')];
    const outcome = mergeDocument(base, [t('a', 'title', 'ours'), t('a', 'other', 'y')], [t('a', 'title', 'theirs'), t('a', 'other', 'changed')]);
    assert.ok('conflicts' in outcome);
    assert.deepEqual(outcome.conflicts, [{ subject: '<https://e.x/a>', predicate: '<https://e.x/title>', base: [t('a', 'title', 'x')], ours: [t('a', 'title', 'ours')], theirs: [t('a', 'title', 'theirs')] }]);
    assert.equal(merged(mergeDocument(base, [t('a', 'title', 'same'), t('a', 'other', 'y')], [t('a', 'title', 'same'), t('a', 'other', 'y')])), [t('a', 'other', 'y'), t('a', 'title', 'same')].join('\n') + '\n');
  });

  it('lets `settle` resolve a group (the server’s dct:modified)', () => {
    const outcome = mergeDocument([t('d', 'modified', '1')], [t('d', 'modified', '2')], [t('d', 'modified', '3')], (_key, o, th) => [[...o, ...th].sort().pop()!]);
    assert.equal(merged(outcome), t('d', 'modified', '3') + '\n');
  });

  it('deletes a document deleted on one side and untouched on the other; a change on the other side conflicts', () => {
    const base = [t('a', 'p', '1')];
    assert.equal(merged(mergeDocument(base, undefined, base)), null);
    assert.equal(merged(mergeDocument(base, base, undefined)), null);
    const outcome = mergeDocument(base, undefined, [t('a', 'p', '2')]);
    assert.ok('conflicts' in outcome && outcome.deleted === 'ours' && outcome.conflicts.length === 1);
    assert.equal(merged(mergeDocument(undefined, undefined, [t('a', 'p', '2')])), t('a', 'p', '2') + '\n'); // added on one side
  });

  it('sorts the result by code point, as canonical files are', () => {
    // UTF-16 order puts the surrogate pair of U+1F600 before U+FFFD; code-point order after
    const out = merged(mergeDocument([], [t('a', 'p', '\u{1F600}'), t('a', 'p', '\uFFFD')], []))!;
    assert.deepEqual(out.trimEnd().split('\n'), [t('a', 'p', '\uFFFD'), t('a', 'p', '\u{1F600}')]);
  });
});
