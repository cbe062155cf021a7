/**
 * graph-change.ts: the lines a sync sends to take an engine's graph from one version of a document
 * to the next, and when it sends the whole graph instead.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { graphChange } from '../src/index/graph-change.js';

const s = '<https://a.test/d#this>';
const lines = (n: number, tag = 'v') => Array.from({ length: n }, (_, i) => `${s} <http://ex/p${i}> "${tag}${i}" .\n`).join('');
const INT = '<http://www.w3.org/2001/XMLSchema#integer>';

describe('a graph changed by lines', () => {
  it('deletes the removed lines and adds the new ones', () => {
    const before = lines(10);
    const after = before.replace(`"v3"`, `"w3"`) + `${s} <http://ex/new> <https://a.test/x> .\n`;
    assert.deepEqual(graphChange(before, after), {
      removed: `${s} <http://ex/p3> "v3" .\n`,
      added: `${s} <http://ex/p3> "w3" .\n${s} <http://ex/new> <https://a.test/x> .\n`,
    });
    assert.deepEqual(graphChange('', lines(3)), undefined, 'a new graph is sent whole');
    assert.deepEqual(graphChange(lines(10), lines(10, 'w')), undefined, 'no smaller than the graph: sent whole');
  });

  it('adds back the kept lines a deletion could take with it: a literal the engine holds as the same term, the same triple spaced otherwise', () => {
    const before = `${s} <http://ex/n> "042"^^${INT} .\n${s} <http://ex/n> "42"^^${INT} .\n${s} <http://ex/q> <https://a.test/o> .\n${s}  <http://ex/q>  <https://a.test/o> .\n` + lines(10);
    const after = `${s} <http://ex/n> "42"^^${INT} .\n${s}  <http://ex/q>  <https://a.test/o> .\n` + lines(10);
    assert.deepEqual(graphChange(before, after), {
      removed: `${s} <http://ex/n> "042"^^${INT} .\n${s} <http://ex/q> <https://a.test/o> .\n`,
      added: `${s} <http://ex/n> "42"^^${INT} .\n${s}  <http://ex/q>  <https://a.test/o> .\n`,
    });
  });

  it('sends the whole graph when either version has blank nodes or \\u escapes', () => {
    const before = lines(10);
    assert.equal(graphChange(before + `${s} <http://ex/k> _:gabc_b0 .\n`, before), undefined);
    assert.equal(graphChange(before, before + `_:gabc_b0 <http://ex/k> "x" .\n`), undefined);
    assert.equal(graphChange(before, before + `${s} <http://ex/k\\u0041> "x" .\n`), undefined);
  });
});
