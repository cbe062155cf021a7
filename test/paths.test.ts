import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalDocumentPath, documentFile, fileDocument, isDocumentPath } from '../src/document-paths.js';
import { isLodestoneError } from '../src/errors.js';

describe('document URL ↔ file path', () => {
  it('maps documents as DESIGN.md says', () => {
    assert.equal(documentFile(''), 'graphs/root.nt');
    assert.equal(documentFile('a/'), 'graphs/a.nt');
    assert.equal(documentFile('a/b/'), 'graphs/a/b.nt');
    assert.equal(documentFile('a/b/', 'data'), 'data/a/b.nt');
    assert.equal(fileDocument('graphs/root.nt'), '');
    assert.equal(fileDocument('graphs/a.nt'), 'a/');
    assert.equal(fileDocument('graphs/a/b.nt'), 'a/b/');
  });

  it('keeps a top-level /root/ document away from the root document', () => {
    assert.equal(documentFile('root/'), 'graphs/%72oot.nt');
    assert.equal(documentFile('root/x/'), 'graphs/%72oot/x.nt');
    assert.equal(documentFile('a/root/'), 'graphs/a/root.nt');
    assert.equal(fileDocument('graphs/%72oot.nt'), 'root/');
    assert.equal(fileDocument('graphs/root/x.nt'), undefined);
  });

  it('keeps a folder named like a document file apart from that file', () => {
    assert.equal(documentFile('a.nt/'), 'graphs/a%2Ent.nt');
    assert.equal(documentFile('a.nt/b/'), 'graphs/a%2Ent/b.nt');
    assert.notEqual(documentFile('a.nt/b/').split('/')[1], documentFile('a/').split('/')[1]);
    assert.equal(fileDocument('graphs/a%2Ent/b.nt'), 'a.nt/b/');
  });

  it('round-trips percent-encoded and Unicode names in one canonical form', () => {
    assert.equal(documentFile('caf%C3%A9/'), 'graphs/café.nt');
    assert.equal(documentFile('café/'), 'graphs/café.nt');
    assert.equal(fileDocument('graphs/café.nt'), 'caf%C3%A9/');
    assert.equal(documentFile('%7Euser/'), 'graphs/~user.nt');
    assert.equal(canonicalDocumentPath('caf%c3%a9/%7e/'), 'caf%C3%A9/~/');
    assert.equal(documentFile('a%2Fb/'), 'graphs/a%2Fb.nt');
    assert.equal(fileDocument('graphs/a%2Fb.nt'), 'a%2Fb/');
    assert.equal(documentFile('100%25/'), 'graphs/100%25.nt');
    assert.equal(fileDocument('graphs/100%25.nt'), '100%25/');
    assert.equal(documentFile('sign%20up/'), 'graphs/sign up.nt');
    assert.equal(fileDocument('graphs/sign up.nt'), 'sign%20up/');
    assert.equal(fileDocument('graphs/😀.nt'), '%F0%9F%98%80/');
  });

  it('refuses unsafe and malformed paths', () => {
    const refused = [
      '../', 'a/../', '%2E%2E/', '%2e/', './', '.git/', '.GIT/', 'a/.git/', '.Git/x/', 'a%00/', 'a%0A/', 'a%7F/',
      'a//b/', '/a/', '//', 'a', 'a/b', '%ZZ/', '%FF/', '%C3/', 'a%/', 'x'.repeat(300) + '/',
    ];
    for (const path of refused) {
      assert.throws(() => documentFile(path), (e) => isLodestoneError(e, 'InvalidPath'), `"${path}" should be refused`);
      assert.equal(isDocumentPath(path), false, `"${path}" names no document`);
    }
    for (const path of ['', 'a/', 'a/b/', '%C3%A9/', 'root/']) assert.equal(isDocumentPath(path), true, `"${path}" names a document`);
  });

  it('maps no document to files outside its canonical form', () => {
    for (const file of ['graphs/x.txt', 'other/a.nt', 'graphs/a%2fb.nt', 'graphs/%7Euser.nt', 'graphs/a.nt.nt', 'graphs/.git/x.nt', 'graphs/..nt', 'graphs/a%zz.nt', 'graphs/root/root.nt']) {
      assert.equal(fileDocument(file), undefined, file);
    }
  });

  it('is injective and round-trips for any path (property)', () => {
    const segment = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).filter((s) => {
      try {
        documentFile(encodeURIComponent(s) + '/');
        return true;
      } catch {
        return false;
      }
    });
    fc.assert(
      fc.property(fc.array(segment, { minLength: 0, maxLength: 4 }), fc.array(segment, { minLength: 0, maxLength: 4 }), (a, b) => {
        const pa = a.length ? a.map(encodeURIComponent).join('/') + '/' : '';
        const pb = b.length ? b.map(encodeURIComponent).join('/') + '/' : '';
        const fa = documentFile(pa);
        assert.equal(fileDocument(fa), canonicalDocumentPath(pa));
        assert.equal(fa === documentFile(pb), canonicalDocumentPath(pa) === canonicalDocumentPath(pb));
      }),
      { numRuns: 500 },
    );
  });
});
