/**
 * The canonical-line scans of src/rdf/canonical-lines.ts that decide who shapes a dataspace:
 * `iriStatements` finds the statements of a predicate line by line, and a literal that holds the
 * text of such a statement (a signup name, a comment) is never one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { iriStatements } from '../src/rdf/canonical-lines.js';

const TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const ONTOLOGY = 'http://www.w3.org/2002/07/owl#Ontology';
const NAME = 'http://xmlns.com/foaf/0.1/name';

describe('iriStatements', () => {
  it('finds the statements of a predicate, with IRI or blank subjects, wherever the line is', () => {
    const text = [`<http://a/> <${TYPE}> <${ONTOLOGY}> .`, `<http://a/> <${NAME}> "A" .`, `_:b0 <${TYPE}> <http://c/C> .`, `<http://d/> <${TYPE}> <http://d/D> .`].join('\n');
    assert.deepEqual(iriStatements(text, TYPE), [
      { subject: 'http://a/', object: ONTOLOGY },
      { subject: undefined, object: 'http://c/C' },
      { subject: 'http://d/', object: 'http://d/D' },
    ]);
    assert.deepEqual(iriStatements(text + '\n', NAME), [], 'a literal object is no IRI statement');
    assert.deepEqual(iriStatements(`<http://a/> <${TYPE}> <${ONTOLOGY}> .\r\n`, TYPE), [{ subject: 'http://a/', object: ONTOLOGY }]);
  });

  it('never takes a literal that holds the text of a statement for one', () => {
    const forged = [
      `<http://a/#this> <${NAME}> "x <${TYPE}> <${ONTOLOGY}> ." .`,
      `<http://a/#this> <${NAME}> "x <${TYPE}> <${ONTOLOGY}> .\\n<http://b/> <${TYPE}> <${ONTOLOGY}> ." .`,
      `<http://a/#this> <${NAME}> "x <${TYPE}> <http://e"^^<http://x/> .`,
      `<http://a/#this> <${NAME}> "<http://f/> <${TYPE}> <${ONTOLOGY}> ."@en .`,
    ].join('\n');
    assert.deepEqual(iriStatements(forged, TYPE), []);
  });
});
