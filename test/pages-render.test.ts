/**
 * The pages as pure functions (src/pages/): every value is escaped, titles and labels are chosen
 * as the issue says, values are drawn by kind, the language is negotiated.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { documentPage, documentTitle, breadcrumbsOf } from '../src/pages/document-page.js';
import { GraphView } from '../src/pages/graph-view.js';
import { html, raw } from '../src/pages/html.js';
import { DataspaceLabels, LabelTable, Labels, labelOf, localName, PAGE_TERMS } from '../src/pages/labels.js';
import { messages, pageLanguage } from '../src/pages/messages.js';
import { parseRdf } from '../src/rdf/ntriples.js';
import { DataFactory } from 'n3';
import type { Quad } from '@rdfjs/types';

const BASE = 'https://example.org/';
const DOC = `${BASE}things/one/`;
const frame = (language: 'en' | 'es' = 'en') => ({ language, t: messages(language), base: BASE, url: DOC, visitor: { webId: undefined, adminBase: `${BASE}admin/`, providers: [], signup: true } });

const pageTerms = new Labels([{ key: 'page-terms', table: new LabelTable(PAGE_TERMS) }]);

function render(ntriples: string | Quad[], language: 'en' | 'es' = 'en', labels = pageTerms): string {
  return documentPage({ frame: frame(language), documentUrl: DOC, quads: typeof ntriples === 'string' ? parseRdf(ntriples) : ntriples, labels, formats: [{ type: 'text/turtle', name: 'Turtle' }], modes: { write: false, append: false }, versioned: false }).text;
}

describe('pages', () => {
  it('escapes every value: a literal, an IRI, a language tag cannot become markup', () => {
    // terms no parser would let through, made directly: the page must not trust its input
    const { quad, namedNode, literal } = DataFactory;
    const page = render([
      quad(namedNode(`${DOC}#this`), namedNode('http://purl.org/dc/terms/title'), literal('<script>alert(1)</script> & "quotes"')),
      quad(namedNode(`${DOC}#this`), namedNode('https://example.org/p"><img src=x onerror=alert(1)>'), literal('x', 'en"><b>')),
    ]);
    assert.ok(!page.includes('<script>alert(1)'), 'no script from a literal');
    assert.ok(page.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;'));
    assert.ok(!/<img src=x/.test(page), 'no element from an IRI');
    assert.equal(html`<p title="${'"><b>'}">${raw('<i>ok</i>')}${['a', '<b>']}</p>`.text, '<p title="&quot;&gt;&lt;b&gt;"><i>ok</i>a&lt;b&gt;</p>');
  });

  it('links and loads only http(s) IRIs: javascript: and data: IRIs are text, in every position', () => {
    const { quad, namedNode, literal } = DataFactory;
    const hostile = ['javascript:alert(document.domain)', 'JavaScript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'data:image/svg+xml,<svg onload=alert(1)>', 'vbscript:msgbox', 'file:///etc/passwd'];
    const page = render(hostile.flatMap((iri) => [
      quad(namedNode(`${DOC}#this`), namedNode('http://xmlns.com/foaf/0.1/img'), namedNode(iri)),
      quad(namedNode(`${DOC}#this`), namedNode('http://www.w3.org/2000/01/rdf-schema#seeAlso'), namedNode(iri)),
      quad(namedNode(`${DOC}#this`), namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#type'), namedNode(iri)),
      quad(namedNode(`${DOC}#this`), namedNode(iri), literal('a value')),
      quad(namedNode(iri), namedNode('http://purl.org/dc/terms/title'), literal('a subject')),
      quad(namedNode(`${DOC}#this`), namedNode('https://example.org/ns#typed'), literal('x', namedNode(iri))),
    ]));
    for (const [, attribute, value] of page.matchAll(/\b(href|src|action|formaction)="([^"]*)"/g)) {
      assert.match(value!, /^(https?:|\/|#|\?)/, `${attribute}="${value}" is a web link`);
    }
    assert.ok(page.includes('title="javascript:alert(document.domain)"'), 'the IRI is still shown');
    assert.ok(!/<img[^>]+src="(?!https?:)/.test(page), 'no image from another scheme');
    assert.match(render(`<${DOC}#this> <http://xmlns.com/foaf/0.1/img> <https://images.example/cat.png> .\n`), /<img src="https:\/\/images\.example\/cat\.png"/, 'http(s) images still show');
  });

  it('titles a document from its #this, then itself, in the page language first, then its name', () => {
    const view = new GraphView(parseRdf(`<${DOC}#this> <http://www.w3.org/2000/01/rdf-schema#label> "Label" .
<${DOC}#this> <http://purl.org/dc/terms/title> "Title"@en .
<${DOC}#this> <http://purl.org/dc/terms/title> "Título"@es .
`));
    assert.equal(documentTitle(view, DOC, frame('en')), 'Title', 'dct:title before rdfs:label');
    assert.equal(documentTitle(view, DOC, frame('es')), 'Título');
    assert.equal(documentTitle(new GraphView([]), DOC, frame()), 'one');
    assert.deepEqual(breadcrumbsOf(DOC, BASE, 'Home', 'Title').map((c) => c.label), ['Home', 'things', 'Title']);
    assert.equal(localName('http://xmlns.com/foaf/0.1/primaryTopic'), 'primary topic');
    assert.equal(localName('http://rdfs.org/sioc/ns#has_parent'), 'has parent');
  });

  it('draws values by kind: images, external IRIs through the proxy, dates, numbers, languages, nested blank nodes, lists', () => {
    const page = render(`<${DOC}#this> <http://xmlns.com/foaf/0.1/img> <https://images.example/cat.png> .
<${DOC}#this> <http://www.w3.org/2000/01/rdf-schema#seeAlso> <https://elsewhere.example/doc> .
<${DOC}#this> <http://purl.org/dc/terms/created> "2024-05-01"^^<http://www.w3.org/2001/XMLSchema#date> .
<${DOC}#this> <https://example.org/ns#count> "12345"^^<http://www.w3.org/2001/XMLSchema#integer> .
<${DOC}#this> <http://purl.org/dc/terms/description> "hola"@es .
<${DOC}#this> <http://xmlns.com/foaf/0.1/knows> _:b .
_:b <http://xmlns.com/foaf/0.1/name> "Bob" .
<${DOC}#this> <https://example.org/ns#steps> _:l1 .
_:l1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> "one" .
_:l1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> _:l2 .
_:l2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> "two" .
_:l2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .
`);
    assert.match(page, /<img src="https:\/\/images\.example\/cat\.png" alt="cat.png" loading="lazy">/);
    assert.ok(page.includes(`href="${BASE}?uri=${encodeURIComponent('https://elsewhere.example/doc')}"`), 'an external IRI opens through the proxy');
    assert.match(page, /<time datetime="2024-05-01">May 1, 2024<\/time>/);
    assert.match(page, /<data value="12345">12,345<\/data>/);
    assert.match(page, /<span lang="es" class="literal">hola<\/span>/);
    assert.match(page, /<div class="nested">[^]*Bob/);
    assert.match(page, /<ol class="list" aria-label="list"><li><span class="literal">one<\/span><\/li><li><span class="literal">two<\/span><\/li><\/ol>/);
    assert.match(render(`<${DOC}#this> <http://purl.org/dc/terms/created> "2024-05-01"^^<http://www.w3.org/2001/XMLSchema#date> .\n`, 'es'), /1 de mayo de 2024/);
  });

  it('labels per dataspace: its ontology’s labels replaced (not added to) when it changes, never renaming a shared term, never another dataspace’s', () => {
    const shared = new LabelTable(PAGE_TERMS);
    const label = (iri: string, text: string) => `<${iri}> <http://www.w3.org/2000/01/rdf-schema#label> "${text}"@en .\n`;
    let ontology: { key: string; ntriples: string } | undefined = { key: 'v1', ntriples: label('https://example.org/ns#colour', 'favourite colour') + label('http://purl.org/dc/terms/title', 'PWNED') };
    const mine = new DataspaceLabels(shared, () => ontology);
    const theirs = new DataspaceLabels(shared, () => undefined);
    assert.equal(labelOf('https://example.org/ns#colour', 'en', mine.current()), 'favourite colour');
    assert.equal(labelOf('http://purl.org/dc/terms/title', 'en', mine.current()), 'title', 'a shared label is not renamed by an ontology');
    assert.equal(labelOf('https://example.org/ns#colour', 'en', theirs.current()), 'colour', 'another dataspace does not see it');
    const before = mine.current().key;
    ontology = { key: 'v2', ntriples: label('https://example.org/ns#size', 'size in cm') };
    assert.notEqual(mine.current().key, before, 'a page drawn with the old labels is not the new one');
    assert.equal(labelOf('https://example.org/ns#colour', 'en', mine.current()), 'colour', 'the old version’s labels are gone');
    assert.equal(labelOf('https://example.org/ns#size', 'en', mine.current()), 'size in cm');
    assert.match(render(`<${DOC}#this> <https://example.org/ns#size> "12" .\n`, 'en', mine.current()), />size in cm<\/a>/);
  });

  it('chooses the language from ?lang=, then Accept-Language, then English', () => {
    assert.equal(pageLanguage('es-ES,es;q=0.9', null), 'es');
    assert.equal(pageLanguage('es-ES,es;q=0.9', 'en'), 'en');
    assert.equal(pageLanguage('fr, de', null), 'en');
    assert.equal(pageLanguage(undefined, 'xx'), 'en');
  });
});
