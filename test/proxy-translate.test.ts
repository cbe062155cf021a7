/**
 * What the proxy does to a response, pure (src/rdf/html-json-ld.ts, sparql-results.ts,
 * translate.ts): the JSON-LD blocks of an HTML page found where an HTML tokenizer finds script
 * elements (not in comments, attribute values or other raw text), each block parsed with the page
 * URL as base and its blank nodes its own; SPARQL results read in JSON and XML and written in
 * JSON, XML, CSV and TSV without losing a term. RDF from elsewhere read as the server keeps it
 * (N-Triples lines, sorted): blank nodes labelled apart, the same way for the same source.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLodestoneError } from '../src/errors.js';
import { jsonLdBlocks } from '../src/rdf/html-json-ld.js';
import { readResults, writeResults, type Results } from '../src/rdf/sparql-results.js';
import { pageTriples, translate } from '../src/rdf/translate.js';
import { termToNTriples } from '../src/rdf/ntriples.js';

const PAGE = 'https://example.org/books/prince';

describe('the JSON-LD blocks of an HTML page', () => {
  it('finds every script element typed application/ld+json, in order, whatever the spelling of its tag and type', () => {
    const html = `<!DOCTYPE html><html><head>
      <script type="application/ld+json">{"a":1}</script>
      <SCRIPT TYPE='Application/LD+JSON ; charset=utf-8'>{"b":2}</SCRIPT >
      <script type=application&#x2F;ld+json>{"c":3}</script>
      <script type="text/javascript">var s = '<script type="application/ld+json">{"no":1}</script>';</script>
      <script src="x.js" type="module"></script>
      </head><body><script
        data-x=">" type="application/ld+json">{"d":4}</script/></body></html>`;
    assert.deepEqual(jsonLdBlocks(html), ['{"a":1}', '{"b":2}', '{"c":3}', '{"d":4}']);
  });

  it('skips what only looks like one: in comments, attribute values, other raw text elements, after plaintext', () => {
    const html = `<!-- <script type="application/ld+json">{"comment":1}</script> -->
      <div title='<script type="application/ld+json">{"attribute":1}</script>'></div>
      <textarea><script type="application/ld+json">{"textarea":1}</script></textarea>
      <style>/* <script type="application/ld+json">{"style":1}</script> */</style>
      <title><script type="application/ld+json">{"title":1}</script></title>
      <![CDATA[ x ]]><? pi ?>
      <script type="application/ld+json">{"real":1}</script>
      <plaintext><script type="application/ld+json">{"plaintext":1}</script>`;
    assert.deepEqual(jsonLdBlocks(html), ['{"real":1}']);
  });

  it('reads a block cut off by the end of the page to the end, and a page of many `<` and unclosed tags', () => {
    assert.deepEqual(jsonLdBlocks('<script type="application/ld+json">{"cut":'), ['{"cut":']);
    const hostile = '<'.repeat(500_000) + '<a '.repeat(100_000) + '<script type="application/ld+json">{}</script>';
    assert.deepEqual(jsonLdBlocks(hostile), []); // one pass: each `<` is looked at once
  });

  it('parses each block with the page URL as base and the bundled schema.org context, keeping blank nodes of different blocks apart', () => {
    const html = `<script type="application/ld+json">{"@context":"https://schema.org","@id":"#book","@type":"Book","name":"Le Petit Prince","author":{"@id":"_:a"}}</script>
      <script type="application/ld+json">{"@context":"http://schema.org/","@id":"_:a","name":"Saint-Exupéry"}</script>
      <script type="application/ld+json">{"@context":"https://schema.org/docs/jsonldcontext.jsonld","@id":"/about","url":"https://example.org/"}</script>`;
    const lines = pageTriples(html, PAGE).map((q) => `${termToNTriples(q.subject)} ${termToNTriples(q.predicate)} ${termToNTriples(q.object)}`);
    assert.ok(lines.includes(`<${PAGE}#book> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://schema.org/Book>`), lines.join('\n'));
    assert.ok(lines.includes(`<${PAGE}#book> <http://schema.org/name> "Le Petit Prince"`));
    assert.ok(lines.includes('<https://example.org/about> <http://schema.org/url> <https://example.org/>'), 'url is an IRI, /about against the page');
    const author = lines.find((l) => l.includes('/author>'))!.split(' ')[2];
    const named = lines.find((l) => l.endsWith('"Saint-Exupéry"'))!.split(' ')[0];
    assert.notEqual(author, named, 'a blank node label is the block’s own');
  });

  it('refuses a page without a block, and one whose blocks all fail, saying why; leaves out a failing block among good ones', () => {
    assert.throws(() => pageTriples('<html><body>no data</body></html>', PAGE), (error: unknown) => isLodestoneError(error, 'SyntaxError') && /no <script type="application\/ld\+json">/.test(error.message));
    const remote = '<script type="application/ld+json">{"@context":"http://127.0.0.1:9/context.jsonld","name":"x"}</script>';
    assert.throws(() => pageTriples(remote + '<script type="application/ld+json">{not json</script>', PAGE), (error: unknown) => isLodestoneError(error, 'SyntaxError') && /block 1: .*remote JSON-LD @context/.test(error.message) && /block 2/.test(error.message));
    const file = '<script type="application/ld+json">{"@context":"file:///etc/passwd","name":"x"}</script>';
    assert.throws(() => pageTriples(file, PAGE), (error: unknown) => isLodestoneError(error, 'SyntaxError'));
    const good = '<script type="application/ld+json">{"@context":"https://schema.org/","@id":"#x","name":"kept"}</script>';
    assert.equal(pageTriples(remote + good, PAGE).length, 1);
  });
});

describe('SPARQL results', () => {
  const select: Results = {
    vars: ['s', 'label', 'n', 'empty'],
    bindings: [
      { s: { type: 'uri', value: 'http://example.org/a' }, label: { type: 'literal', value: 'Tab\there, "quoted", comma', 'xml:lang': 'en' }, n: { type: 'literal', value: '42', datatype: 'http://www.w3.org/2001/XMLSchema#integer' } },
      { s: { type: 'bnode', value: 'b0' }, label: { type: 'literal', value: 'line\nbreak & <angle>' } },
    ],
  };

  it('reads JSON and XML, and reads back what it writes in either without losing a term', () => {
    for (const type of ['application/sparql-results+json', 'application/sparql-results+xml']) {
      assert.deepEqual(readResults(writeResults(select, type), type), select, type);
      assert.deepEqual(readResults(writeResults({ boolean: true }, type), type), { boolean: true }, type);
      assert.deepEqual(readResults(writeResults({ boolean: false }, type), type), { boolean: false }, type);
    }
    const foreign = `<?xml version="1.0"?><!-- a comment --><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="x"/></head><results><result><binding name="x"><literal><![CDATA[<b>&amp;</b>]]></literal></binding></result></results></sparql>`;
    assert.deepEqual(readResults(foreign, 'application/sparql-results+xml'), { vars: ['x'], bindings: [{ x: { type: 'literal', value: '<b>&amp;</b>' } }] });
  });

  it('writes CSV and TSV as the W3C formats say, and ASK as the local endpoint does', () => {
    assert.equal(writeResults(select, 'text/csv'), 's,label,n,empty\r\nhttp://example.org/a,"Tab\there, ""quoted"", comma",42,\r\n_:b0,"line\nbreak & <angle>",,\r\n');
    assert.equal(writeResults(select, 'text/tab-separated-values'), '?s\t?label\t?n\t?empty\n<http://example.org/a>\t"Tab\\there, \\"quoted\\", comma"@en\t"42"^^<http://www.w3.org/2001/XMLSchema#integer>\t\n_:b0\t"line\\nbreak & <angle>"\t\t\n');
    assert.equal(writeResults({ boolean: true }, 'text/csv'), '_askResult\r\ntrue\r\n');
  });

  it('refuses what is not results, and XML that declares entities', () => {
    assert.throws(() => readResults('{"head":{}}', 'application/sparql-results+json'), (error: unknown) => isLodestoneError(error, 'SyntaxError'));
    assert.throws(() => readResults('<!DOCTYPE x [<!ENTITY e "x">]><sparql/>', 'application/sparql-results+xml'), (error: unknown) => isLodestoneError(error, 'SyntaxError') && /DOCTYPE/.test(error.message));
    assert.throws(() => readResults('<html/>', 'application/sparql-results+xml'), (error: unknown) => isLodestoneError(error, 'SyntaxError'));
  });
});

describe('RDF from elsewhere, as the server keeps it', () => {
  // a remote WebID document, an ontology document: read into N-Triples lines in some worker of a pool, merged or searched there
  const kept = (text: string, mediaType: string, base: string) => translate({ kind: 'rdf', text, mediaType, base, to: 'application/n-triples', sorted: true });
  const labels = (ntriples: string) => new Set([...ntriples.matchAll(/_:(\S+)/g)].map((m) => m[1]!));

  it('labels blank nodes alike for the same source, on any thread, and apart for two sources', async () => {
    const turtle = '@prefix ex: <http://example.org/> .\n<#me> ex:key [ ex:modulus "ab" ] ; ex:knows _:friend .\n_:friend ex:name "F" .\n';
    const once = await kept(turtle, 'text/turtle', 'https://a.example/profile');
    assert.equal(await kept(turtle, 'text/turtle', 'https://a.example/profile'), once, 'the same source, the same lines (a parser numbers its blank nodes per thread)');
    assert.equal(labels(once).size, 2);
    const other = await kept(turtle, 'text/turtle', 'https://b.example/profile');
    assert.deepEqual([...labels(once)].filter((label) => labels(other).has(label)), [], 'two sources share no blank node');
    const xml = `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/"><rdf:Description rdf:about="#me"><ex:key><rdf:Description><ex:modulus>ab</ex:modulus></rdf:Description></ex:key></rdf:Description></rdf:RDF>`;
    const fromXml = await kept(xml, 'application/rdf+xml', 'https://a.example/profile');
    assert.equal(await kept(xml, 'application/rdf+xml', 'https://a.example/profile'), fromXml);
  });
});
