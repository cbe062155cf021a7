/**
 * The shipped vocabularies (src/net/vocabularies.ts) as the proxy reads them: a term of a slash
 * namespace is the lines about it, found in the file's lines by subject (made once, so a stranger
 * asking for term after term costs no scan of schema.org's 2.7 MB each), the same lines a scan finds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Vocabularies, shippedDocument } from '../src/net/vocabularies.js';

/** The lines a scan of the whole file finds about `term`, each ending in a newline. */
const scanned = (text: string, term: string) => text.split('\n').filter((line) => line.startsWith(`<${term}> `)).map((line) => line + '\n').join('');

describe('shipped vocabularies', () => {
  for (const namespace of ['http://xmlns.com/foaf/0.1/', 'http://schema.org/']) {
    it(`gives terms of ${namespace} (one in 25, and the last) the lines a scan finds, and an unknown term none`, async () => {
      const vocabularies = new Vocabularies();
      const whole = shippedDocument(namespace)!;
      const { text } = await vocabularies.read(whole);
      const subjects = new Set(text.split('\n').filter((line) => line.startsWith(`<${namespace}`)).map((line) => line.slice(1, line.indexOf('> '))));
      const terms = [...subjects].filter((subject) => subject !== namespace && !/[/#]/.test(subject.slice(namespace.length)));
      assert.ok(terms.length > 50, `${terms.length} terms`);
      for (const term of terms.filter((_, i) => i % 25 === 0 || i === terms.length - 1)) {
        const document = shippedDocument(term);
        assert.deepEqual(document, { file: whole.file, term });
        assert.equal((await vocabularies.read(document!)).text, scanned(text, term), term);
      }
      const unknown = await vocabularies.read({ file: whole.file, term: `${namespace}NoSuchTerm` });
      assert.equal(unknown.text, '');
      assert.equal((await vocabularies.read({ file: whole.file, term: `https${namespace.slice(4)}Person` })).text, '', 'IRIs are matched as they are written');
    });
  }
});
