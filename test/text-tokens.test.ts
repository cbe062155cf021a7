/**
 * The one lexer of Turtle's and SPARQL's strings, IRIs and comments (src/rdf/text-tokens.ts), and
 * the two scans that use it: cutting Turtle into statements, bounding SPARQL's nesting. A bracket,
 * `#` or `.` inside a token means nothing to either.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boundNesting, MAX_SPARQL_NESTING } from '../src/rdf/sparql-text.js';
import { commentEnd, iriEnd, stringEnd } from '../src/rdf/text-tokens.js';
import { splitTurtle } from '../src/rdf/turtle-statements.js';

describe('text tokens', () => {
  it('steps over strings, short and long, with escaped quotes', () => {
    assert.equal(stringEnd('"a\\"b" .', 0), 6);
    assert.equal(stringEnd(`'''it's "x" ''' .`, 0), 15);
    assert.equal(stringEnd('"unclosed\nnext', 0), 9, 'a short string ends at its line end');
    assert.equal(stringEnd('"""long\nstring', 0), 14, 'a long string may hold line ends');
  });

  it('steps over IRIs, escapes in them included, and not over a less-than sign', () => {
    assert.equal(iriEnd('<http://ex/a\\u0020.> .', 0), 20);
    assert.equal(iriEnd('?a < ?b', 3), undefined);
    assert.equal(iriEnd('<< <a> >>', 0), undefined);
    assert.equal(commentEnd('# a { ( [\nb', 0), 10);
  });

  it('lets Turtle statements hold dots in IRIs, strings and comments', () => {
    const text = '<http://ex/a\\u0020.b> <http://ex/p> "x. y" . # c.\n<http://ex/c> <http://ex/p> \'\'\'z.\n\'\'\' .\n';
    assert.deepEqual(
      splitTurtle(text).filter((p) => p.kind === 'statement').map((p) => p.text),
      ['<http://ex/a\\u0020.b> <http://ex/p> "x. y" .', "<http://ex/c> <http://ex/p> '''z.\n''' ."],
    );
  });

  it('counts SPARQL brackets outside strings, IRIs and comments only', () => {
    const deep = '{'.repeat(MAX_SPARQL_NESTING + 1);
    boundNesting(`SELECT * { ?s ?p "${deep}" . ?s ?p <http://ex/${'('.repeat(3)}> # ${deep}\n FILTER(?s < ?p) }`, 'the query');
    assert.throws(() => boundNesting(`SELECT * ${deep}`, 'the query'), /nests groups more than/);
  });
});
