import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { canonicalBytes, canonicalNTriples } from '../src/rdf/canonical.js';
import { parseRdf } from '../src/rdf/ntriples.js';
import { blobObject } from '../src/git/objects.js';
import { isLodestoneError } from '../src/errors.js';
import { git, nt, removeTempDirs, tempDir } from './helpers.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

after(removeTempDirs);

describe('canonical bytes', () => {
  it('gives one blob for two inputs of one graph with different blank node labels', async () => {
    const a = await canonicalBytes(nt('_:x <http://ex/p> "1" .\n_:y <http://ex/p> "2" .\n<http://ex/s> <http://ex/o> _:x .\n_:x <http://ex/q> _:y .\n'));
    const b = await canonicalBytes(
      parseRdf('@prefix ex: <http://ex/> . ex:s ex:o [ ex:p "1" ; ex:q [ ex:p "2" ] ] .', { format: 'text/turtle' }),
    );
    assert.deepEqual(a, b);
    assert.equal(blobObject(a).id, blobObject(b).id);
    assert.match(a.toString(), /_:c14n0/);
  });

  it('agrees with git on the blob id', async () => {
    const bytes = await canonicalBytes(nt('<http://ex/s> <http://ex/p> "é" .\n'));
    const dir = tempDir('blob');
    writeFileSync(join(dir, 'f'), bytes);
    assert.equal(git(dir, 'hash-object', '--no-filters', 'f').trim(), blobObject(bytes).id);
  });

  it('sorts by code point, removes duplicates and ends every line with \\n', async () => {
    const text = await canonicalNTriples(
      nt('<http://ex/b> <http://ex/p> "x" .\n<http://ex/a> <http://ex/p> "\u{1F600}" .\n<http://ex/a> <http://ex/p> "\uFFFD" .\n<http://ex/b> <http://ex/p> "x" .\n'),
    );
    assert.equal(text, '<http://ex/a> <http://ex/p> "\uFFFD" .\n<http://ex/a> <http://ex/p> "\u{1F600}" .\n<http://ex/b> <http://ex/p> "x" .\n');
  });

  it('writes literals in canonical N-Triples', async () => {
    const text = await canonicalNTriples(
      parseRdf(
        '@prefix xsd: <http://www.w3.org/2001/XMLSchema#> . <http://ex/s> <http://ex/p> "a\\tb\\n\\"c\\"\\\\" , "x"^^xsd:string , "chat"@fr , "1"^^xsd:integer , "\\u0001" .',
        { format: 'text/turtle' },
      ),
    );
    assert.equal(
      text,
      [
        '<http://ex/s> <http://ex/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .',
        '<http://ex/s> <http://ex/p> "\\u0001" .',
        '<http://ex/s> <http://ex/p> "a\\tb\\n\\"c\\"\\\\" .',
        '<http://ex/s> <http://ex/p> "chat"@fr .',
        '<http://ex/s> <http://ex/p> "x" .',
        '',
      ].join('\n'),
    );
  });

  it('gives the empty graph as empty bytes', async () => {
    assert.equal((await canonicalBytes([])).length, 0);
  });

  it('refuses a blank-node explosion instead of hanging', async () => {
    let text = '';
    for (let i = 0; i < 100_000; i++) text += `_:b${i} <http://ex/p> "${i}" .\n`;
    await assert.rejects(canonicalBytes(nt(text)), (e) => isLodestoneError(e, 'TooManyBlankNodes'));
  });

  it('labels two 200-node cycles, which RDFC-1.0 alone cannot afford, and refuses a 5,000-node one past the work bound', async () => {
    let text = '';
    for (let c = 0; c < 2; c++) for (let i = 0; i < 200; i++) text += `_:c${c}n${i} <http://ex/p> _:c${c}n${(i + 1) % 200} .\n`;
    assert.equal((await canonicalNTriples(nt(text))).split('\n').length, 401);
    text = '';
    for (let i = 0; i < 5000; i++) text += `_:n${i} <http://ex/p> _:n${(i + 1) % 5000} .\n`;
    await assert.rejects(canonicalBytes(nt(text)), (e) => isLodestoneError(e, 'CanonicalizationLimit'));
  });
});

describe('N-Triples parse errors', () => {
  it('carry the line and column', () => {
    assert.throws(
      () => parseRdf('<http://ex/s> <http://ex/p> <http://ex/o> .\n<http://ex/s> <http://ex/p> bad .\n'),
      (e) => isLodestoneError(e, 'SyntaxError') && e.data.line === 2 && e.data.column === 29 && /line 2, column 29/.test(e.message),
    );
  });

  it('refuse relative IRIs in N-Triples', () => {
    assert.throws(() => parseRdf('<s> <http://ex/p> "x" .\n'), (e) => isLodestoneError(e, 'SyntaxError'));
  });
});
