/**
 * RDF/POST parsing, pure: both literal forms of the grammar (qualifier after or before `ol`),
 * mixed sequences, the reading of `ol=1&lt=X&ol=2` (after wins, as AtomGraph Core reads it), and
 * the 400s for a qualifier left over or a bad language tag.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLodestoneError } from '../src/errors.js';
import { parseRdfPost } from '../src/rdf/rdf-post.js';

const BASE = 'https://localhost/doc/';
const P = 'http://example.org/ns#p';
const INT = 'http://www.w3.org/2001/XMLSchema#integer';
const DATE = 'http://www.w3.org/2001/XMLSchema#date';

/** The literal objects of a form whose subject and predicate are set, as N-Triples-like strings. */
function literals(fields: Array<[string, string]>): string[] {
  const body = new URLSearchParams([['rdf', ''], ['su', '#this'], ['pu', P], ...fields]).toString();
  return parseRdfPost(body, BASE).map((q) => {
    const o = q.object;
    if (o.termType !== 'Literal') return `<${o.value}>`;
    if (o.language) return `"${o.value}"@${o.language}`;
    return o.datatype.value === 'http://www.w3.org/2001/XMLSchema#string' ? `"${o.value}"` : `"${o.value}"^^<${o.datatype.value}>`;
  });
}

function refused(fields: Array<[string, string]>, message: RegExp): void {
  const body = new URLSearchParams([['rdf', ''], ['su', '#this'], ['pu', P], ...fields]).toString();
  assert.throws(
    () => parseRdfPost(body, BASE),
    (error: unknown) => isLodestoneError(error) && error.code === 'SyntaxError' && message.test(error.message),
  );
}

describe('RDF/POST literals', () => {
  it('reads the qualifier after the value (ol=11&lt=…), as HTML forms send it', () => {
    assert.deepEqual(literals([['ol', '11'], ['lt', INT]]), [`"11"^^<${INT}>`]);
    assert.deepEqual(literals([['ol', 'Bonjour'], ['ll', 'fr']]), ['"Bonjour"@fr']);
  });

  it('reads the qualifier before the value (lt=…&ol=11)', () => {
    assert.deepEqual(literals([['lt', INT], ['ol', '11']]), [`"11"^^<${INT}>`]);
    assert.deepEqual(literals([['ll', 'fr'], ['ol', 'Bonjour']]), ['"Bonjour"@fr']);
  });

  it('qualifies only the literal next to it in mixed sequences', () => {
    assert.deepEqual(literals([['ol', 'a'], ['ll', 'en'], ['ol', 'b']]), ['"a"@en', '"b"']);
    assert.deepEqual(literals([['lt', INT], ['ol', '1'], ['ol', '2']]), [`"1"^^<${INT}>`, '"2"']);
    assert.deepEqual(literals([['ol', '1'], ['lt', INT], ['ol', '2'], ['ll', 'de']]), [`"1"^^<${INT}>`, '"2"@de']);
    assert.deepEqual(literals([['ll', 'en'], ['ol', 'x'], ['ol', '2024-01-02'], ['lt', DATE], ['lt', INT], ['ol', '3']]), [
      '"x"@en',
      `"2024-01-02"^^<${DATE}>`,
      `"3"^^<${INT}>`,
    ]);
  });

  it('gives a qualifier between two literals to the one before it, as AtomGraph Core does', () => {
    assert.deepEqual(literals([['ol', '1'], ['lt', INT], ['ol', '2']]), [`"1"^^<${INT}>`, '"2"']);
    assert.deepEqual(literals([['ol', 'a'], ['ll', 'en'], ['ol', 'b'], ['ll', 'de']]), ['"a"@en', '"b"@de']);
  });

  it('keeps a qualifier from crossing other fields', () => {
    assert.deepEqual(literals([['ol', '1'], ['pu', `${P}2`], ['ol', '2'], ['lt', INT]]), ['"1"', `"2"^^<${INT}>`]);
  });

  it('takes an empty qualifier (an empty form field) for none', () => {
    assert.deepEqual(literals([['ol', 'a'], ['ll', ''], ['lt', ''], ['ol', 'b']]), ['"a"', '"b"']);
  });

  it('resolves a relative datatype IRI against the base, like every IRI of the form', () => {
    assert.deepEqual(literals([['ol', '1'], ['lt', '#type']]), [`"1"^^<${BASE}#type>`]);
  });

  it('refuses a qualifier left over, and a malformed language tag, naming the field', () => {
    refused([['lt', INT]], /"lt=" must come right before or right after an "ol=" field \(field 4\)/);
    refused([['ol', '1'], ['lt', INT], ['ll', 'en']], /"ll=" must come right before or right after an "ol=" field \(field 6\)/);
    refused([['lt', INT], ['ol', '1'], ['ll', 'en']], /"ll=" must come right before/);
    refused([['ll', 'en'], ['ou', 'http://example.org/o']], /"ll=" must come right before/);
    refused([['ol', 'x'], ['ll', 'en us']], /"en us" is not a language tag \(field 5\)/);
  });
});
