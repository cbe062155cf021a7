/**
 * The canonical-line scans of src/rdf/canonical-lines.ts:
 * - `iriStatements`, which decides who shapes a dataspace, finds the statements of a predicate line
 *   by line, and a literal that holds the text of such a statement (a signup name, a comment) is
 *   never one;
 * - `objectTerms`: the objects of a subject and predicate found by a binary search in canonical
 *   N-Triples agree with a full parse, for every subject and predicate of a document (IRIs and blank
 *   nodes, literals with escapes, datatypes and languages, a line of a megabyte, the first and the
 *   last line) and for ones it lacks; a remote document's sorted translation (rdf/translate.ts) is
 *   searched the same way.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalBytes } from '../src/rdf/canonical.js';
import { iriStatements, lexicalForm, lineDifference, objectIris, objectTerms, replaceLiteral } from '../src/rdf/canonical-lines.js';
import { parseRdf, termToNTriples } from '../src/rdf/ntriples.js';
import { translate } from '../src/rdf/translate.js';

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

const EX = 'http://example.org/';
const CERT = 'http://www.w3.org/ns/auth/cert#';

function document(): string {
  const lines = [
    `<${EX}me> <${CERT}key> _:k1 .`,
    `<${EX}me> <${CERT}key> _:k2 .`,
    `<${EX}me> <${CERT}key> <${EX}keys#a> .`,
    `_:k1 <${CERT}modulus> "00ABCDEF"^^<http://www.w3.org/2001/XMLSchema#hexBinary> .`,
    `_:k1 <${CERT}exponent> "65537"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
    `_:k2 <${CERT}modulus> "1234" .`,
    `<${EX}me> <${EX}name> "Zoë \\"Z\\" \\u00E9"@fr .`,
    `<${EX}me> <${EX}long> "${'x'.repeat(1_000_000)}" .`,
    `<${EX}a> <${EX}p> <${EX}b> .`,
    `<${EX}zz> <${EX}p> "last" .`,
  ];
  for (let i = 0; i < 5000; i++) lines.push(`<${EX}me> <${EX}n> "${i}"^^<http://www.w3.org/2001/XMLSchema#integer> .`);
  return lines.join('\n');
}

describe('objectTerms', () => {
  it('finds what a full parse finds, for every subject and predicate of a canonical document and for absent ones', async () => {
    const bytes = await canonicalBytes(parseRdf(document()));
    const quads = parseRdf(bytes.toString('utf8'), { keepBlankNodeLabels: true });
    const pairs = new Map<string, [string, string]>();
    for (const q of quads) pairs.set(`${termToNTriples(q.subject)} ${q.predicate.value}`, [termToNTriples(q.subject), q.predicate.value]);
    pairs.set('absent', [`<${EX}nobody>`, `${EX}p`]);
    pairs.set('absent predicate', [`<${EX}me>`, `${EX}nothing`]);
    pairs.set('before all', [`<${EX}0>`, `${EX}p`]);
    pairs.set('after all', ['_:zzz', `${EX}p`]);
    for (const [subject, predicate] of pairs.values()) {
      const expected = quads.filter((q) => termToNTriples(q.subject) === subject && q.predicate.value === predicate).map((q) => termToNTriples(q.object)).sort();
      assert.deepEqual(objectTerms(bytes, subject, predicate).sort(), expected, `${subject} <${predicate}>`);
    }
    assert.equal(objectTerms(bytes, `<${EX}me>`, `${EX}n`).length, 5000);
    assert.deepEqual(objectTerms(bytes, `<${EX}me>`, `${EX}name`).map(lexicalForm), ['Zoë "Z" é']);
    assert.equal(lexicalForm(`<${EX}a>`), undefined);
  });

  it('searches a remote document’s sorted translation', async () => {
    const turtle = `@prefix cert: <${CERT}> . <#me> cert:key [ cert:modulus "ABCD" ; cert:exponent 3 ] ; <${EX}n> ${Array.from({ length: 1000 }, (_, i) => i).join(', ')} .`;
    const bytes = Buffer.from(await translate({ kind: 'rdf', text: turtle, mediaType: 'text/turtle', base: `${EX}card`, to: 'application/n-triples', sorted: true }));
    const [key] = objectTerms(bytes, `<${EX}card#me>`, `${CERT}key`);
    assert.match(key ?? '', /^_:/);
    assert.deepEqual(objectTerms(bytes, key!, `${CERT}modulus`).map(lexicalForm), ['ABCD']);
    assert.deepEqual(objectTerms(bytes, key!, `${CERT}exponent`).map(lexicalForm), ['3']);
  });
});

describe('objectIris', () => {
  it('finds the IRI object of every line a full parse finds, and none in a literal or a datatype', async () => {
    const forged = [`<${EX}f> <${EX}p> "x <${EX}in-literal> ." .`, `<${EX}f> <${EX}p> "y <${EX}in-typed> ."^^<${EX}type> .`, `<${EX}f> <${EX}p> "z\\n<${EX}s> <${EX}p> <${EX}after-newline> ." .`];
    const bytes = await canonicalBytes(parseRdf([document(), ...forged].join('\n')));
    const text = bytes.toString('utf8');
    const expected = parseRdf(text).flatMap((q) => (q.object.termType === 'NamedNode' ? [q.object.value] : []));
    assert.deepEqual(objectIris(text), expected);
    assert.deepEqual(objectIris(`<${EX}a> <${EX}p> <${EX}b> .`), [`${EX}b`]);
    assert.deepEqual(objectIris(''), []);
  });
});

describe('replaceLiteral', () => {
  const modified = 'http://purl.org/dc/terms/modified';
  const text = [
    `<${EX}a> <${EX}note> "<${EX}d> <${modified}> \\"2026-01-01\\"" .`,
    `<${EX}d> <${modified}> "2026-01-01"^^<http://www.w3.org/2001/XMLSchema#dateTime> .`,
    `<${EX}e> <${modified}> "2026-01-01"^^<http://www.w3.org/2001/XMLSchema#dateTime> .`,
    '',
  ].join('\n');

  it('rewrites the literal of that subject and predicate only, never text inside another literal', () => {
    const swapped = replaceLiteral(text, `${EX}d`, modified, '2026-01-01', '2025-$&-12');
    assert.deepEqual(lineDifference(text, swapped), {
      removed: [`<${EX}d> <${modified}> "2026-01-01"^^<http://www.w3.org/2001/XMLSchema#dateTime> .`],
      added: [`<${EX}d> <${modified}> "2025-$&-12"^^<http://www.w3.org/2001/XMLSchema#dateTime> .`],
    });
    assert.equal(replaceLiteral(text, `${EX}d`, modified, '1999', '2000'), text);
    assert.equal(replaceLiteral(text, `${EX}nobody`, modified, '2026-01-01', '2000'), text);
  });
});
