/**
 * SPEC §4.1 over real HTTPS: every row of the document endpoint table, content negotiation
 * (default Turtle, q-values, `?accept=`, Vary), round trips through the four RDF formats, relative
 * IRIs resolved against the document URL, the bundled schema.org JSON-LD context, and RDF/POST.
 * Every write is checked in git as well.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Quad } from '@rdfjs/types';
import oxigraph from 'oxigraph';
import { canonicalNTriples } from '../src/rdf/canonical.js';
import { commitCount, fileAtHead, git, headOf } from './helpers.js';
import { assertRdfError, turtle, type Response, type TestServer, serverForFile } from './http-helpers.js';

const TURTLE = 'text/turtle';
const NTRIPLES = 'application/n-triples';
const RDFXML = 'application/rdf+xml';
const JSONLD = 'application/ld+json';
const RDFPOST = 'application/x-www-form-urlencoded';
const formats = [TURTLE, NTRIPLES, RDFXML, JSONLD] as const;

const DCT = 'http://purl.org/dc/terms/';
const EX = 'http://example.org/ns#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';

let s: TestServer;
let dir: string;

serverForFile(async (server, repo) => {
  s = server;
  dir = repo;
});

/** The client triples of a representation (server metadata about the document URL left out), canonical. */
async function clientGraph(text: string, mediaType: string, doc: string): Promise<string> {
  const quads = oxigraph.parse(text, { format: mediaType, base_iri: doc }) as unknown as Quad[];
  return canonicalNTriples(quads.filter((q) => !(q.subject.termType === 'NamedNode' && q.subject.value === doc)));
}

async function put(path: string, body: string, type = TURTLE): Promise<Response> {
  const res = await s.request('PUT', path, { headers: { 'Content-Type': type }, body });
  assert.equal(res.status, 201, `PUT ${path}: ${res.body}`);
  return res;
}

async function etagOf(path: string, accept?: string): Promise<string> {
  const res = await s.request('GET', path, accept ? { headers: { Accept: accept } } : {});
  assert.equal(res.status, 200, res.body);
  return String(res.headers.etag);
}

// One graph, written by hand in each request format, with relative IRIs where the format has them.
const turtleBody = `@prefix dct: <http://purl.org/dc/terms/> .
@prefix ex: <http://example.org/ns#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<#this> a ex:Thing ;
  dct:title "Round trip"@en, "Aller-retour"@fr ;
  ex:count "42"^^xsd:integer ;
  ex:note "line one\\nline \\"two\\" — ünïcode ✓" ;
  ex:part [ ex:label "anonymous" ] ;
  ex:link <http://example.org/other> .
`;
const ntriplesBody = (doc: string) => `<${doc}#this> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${EX}Thing> .
<${doc}#this> <${DCT}title> "Round trip"@en .
<${doc}#this> <${DCT}title> "Aller-retour"@fr .
<${doc}#this> <${EX}count> "42"^^<${XSD}integer> .
<${doc}#this> <${EX}note> "line one\\nline \\"two\\" \\u2014 \\u00FCn\\u00EFcode \\u2713" .
<${doc}#this> <${EX}part> _:part .
_:part <${EX}label> "anonymous" .
<${doc}#this> <${EX}link> <http://example.org/other> .
`;
const rdfxmlBody = `<?xml version="1.0" encoding="utf-8"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dct="http://purl.org/dc/terms/" xmlns:ex="http://example.org/ns#">
  <ex:Thing rdf:about="#this">
    <dct:title xml:lang="en">Round trip</dct:title>
    <dct:title xml:lang="fr">Aller-retour</dct:title>
    <ex:count rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">42</ex:count>
    <ex:note>line one
line "two" — ünïcode ✓</ex:note>
    <ex:part rdf:parseType="Resource"><ex:label>anonymous</ex:label></ex:part>
    <ex:link rdf:resource="http://example.org/other"/>
  </ex:Thing>
</rdf:RDF>
`;
const jsonldBody = JSON.stringify({
  '@context': { dct: DCT, ex: EX, xsd: XSD },
  '@id': '#this',
  '@type': 'ex:Thing',
  'dct:title': [
    { '@value': 'Round trip', '@language': 'en' },
    { '@value': 'Aller-retour', '@language': 'fr' },
  ],
  'ex:count': { '@value': '42', '@type': 'xsd:integer' },
  'ex:note': 'line one\nline "two" — ünïcode ✓',
  'ex:part': { 'ex:label': 'anonymous' },
  'ex:link': { '@id': 'http://example.org/other' },
});

const bodies: Record<(typeof formats)[number], (doc: string) => string> = {
  [TURTLE]: () => turtleBody,
  [NTRIPLES]: ntriplesBody,
  [RDFXML]: () => rdfxmlBody,
  [JSONLD]: () => jsonldBody,
};
const slug: Record<(typeof formats)[number], string> = { [TURTLE]: 'turtle', [NTRIPLES]: 'ntriples', [RDFXML]: 'rdfxml', [JSONLD]: 'jsonld' };

describe('document endpoints (SPEC §4.1 table)', () => {
  it('GET answers 200 with the document in Turtle, an ETag and Vary: Accept', async () => {
    await put('get-ok/', '<#this> <http://purl.org/dc/terms/title> "Hello" .');
    const res = await s.request('GET', 'get-ok/');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/turtle/);
    assert.match(String(res.headers.etag), /^"[^"]+"$/, 'a strong ETag');
    assert.match(String(res.headers.vary), /\bAccept\b/i);
    const quads = oxigraph.parse(res.body, { format: TURTLE, base_iri: `${s.base}get-ok/` });
    assert.ok(quads.some((q) => q.subject.value === `${s.base}get-ok/#this` && q.object.value === 'Hello'));
  });

  it('HEAD answers 200 with the ETag of GET for the same Accept and no body; each format has its own ETag', async () => {
    await put('head-ok/', '<#this> <http://purl.org/dc/terms/title> "Head" .');
    const tags = new Set<string>();
    for (const type of formats) {
      const got = await s.request('GET', 'head-ok/', { headers: { Accept: type } });
      const headed = await s.request('HEAD', 'head-ok/', { headers: { Accept: type } });
      assert.equal(headed.status, 200);
      assert.equal(headed.body, '');
      assert.equal(headed.headers.etag, got.headers.etag, `HEAD and GET agree on the ETag of ${type}`);
      assert.match(String(headed.headers['content-type']), new RegExp(`^${type.replace('+', '\\+')}`));
      tags.add(String(got.headers.etag));
    }
    assert.equal(tags.size, formats.length, 'SPEC §4.6.6: one ETag per representation');
  });

  it('GET of a missing document is 404 with an RDF error body, and Vary: Accept', async () => {
    const res = await s.request('GET', 'no-such-document/');
    assertRdfError(res, 404, { title: /no-such-document/ });
    assert.match(String(res.headers.vary), /\bAccept\b/i);
  });

  it('GET with an Accept that offers no RDF type is 406 and the body lists the available types', async () => {
    await put('not-acceptable/', '');
    const res = await s.request('GET', 'not-acceptable/', { headers: { Accept: 'image/png' } });
    const title = assertRdfError(res, 406);
    for (const type of formats) assert.ok(title.includes(type), `the 406 names ${type}: ${title}`);
    assert.ok(!title.includes(RDFPOST), 'RDF/POST is a request format only');
  });

  it('PUT creates (201, Location, ETag of the Turtle representation), then replaces with If-Match (200), one commit each', async () => {
    const before = commitCount(dir);
    const created = await s.request('PUT', 'put-doc/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "First" .' });
    assert.equal(created.status, 201, created.body);
    assert.equal(created.headers.location, `${s.base}put-doc/`);
    assert.equal(created.headers.etag, await etagOf('put-doc/'), 'the ETag of the 201 is the one GET gives');
    assert.equal(commitCount(dir), before + 1);
    assert.equal(git(dir, 'log', '-1', '--format=%s').trim(), `PUT ${s.base}put-doc/`);
    assert.match(fileAtHead(dir, 'put-doc/')!, new RegExp(`<${s.base}put-doc/#this> <${DCT}title> "First" \\.`));

    const replaced = await s.request('PUT', 'put-doc/', { headers: { ...turtle, 'If-Match': String(created.headers.etag) }, body: '<#this> <http://purl.org/dc/terms/title> "Second" .' });
    assert.equal(replaced.status, 200, replaced.body);
    assert.notEqual(replaced.headers.etag, created.headers.etag);
    assert.equal(replaced.headers.etag, await etagOf('put-doc/'));
    assert.equal(commitCount(dir), before + 2);
    const file = fileAtHead(dir, 'put-doc/')!;
    assert.match(file, /"Second"/);
    assert.doesNotMatch(file, /"First"/, 'PUT replaces the client triples');
  });

  it('an empty Turtle body creates an item with only the server metadata', async () => {
    const res = await s.request('PUT', 'empty-item/', { headers: turtle, body: '' });
    assert.equal(res.status, 201, res.body);
    const file = fileAtHead(dir, 'empty-item/')!;
    assert.match(file, new RegExp(`<${s.base}empty-item/> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://w3id.org/atomgraph/linkeddatahub/document-hierarchy#Item> \\.`));
    assert.match(file, new RegExp(`<${s.base}empty-item/> <http://rdfs.org/sioc/ns#has_container> <${s.base}> \\.`));
  });

  it('POST appends with If-Match and answers 204 with the new ETag, in one commit', async () => {
    const created = await put('post-doc/', '<#this> <http://purl.org/dc/terms/title> "Kept" .');
    const before = headOf(dir);
    const res = await s.request('POST', 'post-doc/', { headers: { ...turtle, 'If-Match': String(created.headers.etag) }, body: '<#this> <http://purl.org/dc/terms/description> "Added" .' });
    assert.equal(res.status, 204, res.body);
    assert.equal(res.body, '');
    assert.ok(res.headers.etag && res.headers.etag !== created.headers.etag);
    assert.equal(res.headers.etag, await etagOf('post-doc/'));
    assert.equal(git(dir, 'rev-parse', 'HEAD~1').trim(), before, 'exactly one new commit');
    const file = fileAtHead(dir, 'post-doc/')!;
    assert.match(file, /"Kept"/);
    assert.match(file, /"Added"/);
  });

  it('POST to a missing document is 404 and commits nothing', async () => {
    const before = headOf(dir);
    assertRdfError(await s.request('POST', 'post-missing/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "x" .' }), 404);
    assert.equal(headOf(dir), before);
    assert.equal(fileAtHead(dir, 'post-missing/'), undefined);
  });

  it('PUT and POST with an unsupported or missing Content-Type are 415, and nothing changes', async () => {
    const created = await put('unsupported/', '<#this> <http://purl.org/dc/terms/title> "Same" .');
    const before = headOf(dir);
    const file = fileAtHead(dir, 'unsupported/');
    const body = '<#this> <http://purl.org/dc/terms/title> "Other" .';
    const ifMatch = { 'If-Match': String(created.headers.etag) };
    assertRdfError(await s.request('PUT', 'unsupported/', { headers: { 'Content-Type': 'text/plain', ...ifMatch }, body }), 415, { title: /text\/plain/ });
    assertRdfError(await s.request('PUT', 'unsupported/', { headers: ifMatch, body }), 415);
    assertRdfError(await s.request('POST', 'unsupported/', { headers: { 'Content-Type': 'text/plain', ...ifMatch }, body }), 415);
    assertRdfError(await s.request('PUT', 'unsupported-new/', { headers: { 'Content-Type': 'application/json' }, body: '{}' }), 415);
    assertRdfError(await s.request('PUT', 'unsupported-new/', { headers: { 'Content-Type': 'application/sparql-update' }, body: 'INSERT DATA {}' }), 415);
    assert.equal(headOf(dir), before);
    assert.equal(fileAtHead(dir, 'unsupported/'), file);
    assert.equal(fileAtHead(dir, 'unsupported-new/'), undefined);
  });

  it('a 415 for a missing Content-Type says that the request has none', async () => {
    const before = headOf(dir);
    const title = assertRdfError(await s.request('PUT', 'no-content-type/', { body: '<#this> <http://purl.org/dc/terms/title> "x" .' }), 415);
    assert.match(title, /no Content-Type/, `a clear message, not "${title}"`);
    assert.equal(headOf(dir), before);
  });

  it('an RDF syntax error is 400 with the line in the message, and nothing changes', async () => {
    const before = headOf(dir);
    const broken = '@prefix dct: <http://purl.org/dc/terms/> .\n<#this> dct:title "ok" .\n<#this> dct:title "unterminated ;\n<#that> dct:title "x" .\n';
    assertRdfError(await s.request('PUT', 'syntax-ttl/', { headers: turtle, body: broken }), 400, { title: /line 3/ });
    const brokenNt = `<${s.base}syntax-nt/#a> <${DCT}title> "ok" .\n<${s.base}syntax-nt/#a> <${DCT}title> bad .\n`;
    assertRdfError(await s.request('PUT', 'syntax-nt/', { headers: { 'Content-Type': NTRIPLES }, body: brokenNt }), 400, { title: /line 2/ });
    assertRdfError(await s.request('PUT', 'syntax-xml/', { headers: { 'Content-Type': RDFXML }, body: '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description' }), 400, { title: /rdf\+xml/ });
    assertRdfError(await s.request('PUT', 'syntax-json/', { headers: { 'Content-Type': JSONLD }, body: '{"@id": "#this", ' }), 400, { title: /ld\+json/ });
    assertRdfError(await s.request('PUT', 'syntax-post/', { headers: { 'Content-Type': RDFPOST }, body: 'su=%23this&pu=x' }), 400, { title: /RDF\/POST/ });
    // A POST with broken Turtle to an existing document changes nothing either.
    const created = await put('syntax-existing/', '<#this> <http://purl.org/dc/terms/title> "Intact" .');
    const file = fileAtHead(dir, 'syntax-existing/');
    const mid = headOf(dir);
    assertRdfError(await s.request('POST', 'syntax-existing/', { headers: { ...turtle, 'If-Match': String(created.headers.etag) }, body: '<#this> <x:p> "a" .\n<#this> <x:p' }), 400, { title: /line 2/ });
    assert.equal(headOf(dir), mid);
    assert.equal(fileAtHead(dir, 'syntax-existing/'), file);
    for (const path of ['syntax-ttl/', 'syntax-nt/', 'syntax-xml/', 'syntax-json/', 'syntax-post/']) assert.equal(fileAtHead(dir, path), undefined);
    assert.equal(git(dir, 'rev-list', '--count', `${before}..HEAD`).trim(), '1', 'only the PUT of syntax-existing/ committed');
  });

  it('PUT outside an existing container is 422 (SPEC §2.1), and nothing changes', async () => {
    const before = headOf(dir);
    assertRdfError(await s.request('PUT', 'no-parent/child/', { headers: turtle, body: '' }), 422, { title: /container/ });
    assert.equal(headOf(dir), before);
  });

  it('a document URL without its trailing slash is redirected with 308, keeping the query', async () => {
    const before = headOf(dir);
    const res = await s.request('PUT', 'no-slash', { headers: turtle, body: '' });
    assert.equal(res.status, 308);
    assert.equal(res.headers.location, `${s.base}no-slash/`);
    const get = await s.request('GET', 'no-slash?accept=application%2Fn-triples');
    assert.equal(get.status, 308);
    assert.equal(get.headers.location, `${s.base}no-slash/?accept=application%2Fn-triples`);
    assert.equal(headOf(dir), before);
  });

  it('DELETE with If-Match answers 204 and removes the file in git; the root cannot be deleted (405)', async () => {
    const created = await put('to-delete/', '');
    const res = await s.request('DELETE', 'to-delete/', { headers: { 'If-Match': String(created.headers.etag) } });
    assert.equal(res.status, 204, res.body);
    assert.equal(fileAtHead(dir, 'to-delete/'), undefined);
    assert.equal(git(dir, 'log', '-1', '--format=%s').trim(), `DELETE ${s.base}to-delete/`);
    assertRdfError(await s.request('GET', 'to-delete/'), 404);
    const before = headOf(dir);
    const root = await s.request('DELETE', '', { headers: { 'If-Match': await etagOf('') } });
    assertRdfError(root, 405);
    assert.ok(root.headers.allow, 'a 405 carries Allow');
    assert.equal(headOf(dir), before);
  });
});

describe('round trips through every format', () => {
  for (const source of formats) {
    it(`a graph PUT as ${source} reads back as the same triples in every format`, async () => {
      const path = `round-trip-${slug[source]}/`;
      const doc = s.base + path;
      const expected = await clientGraph(turtleBody, TURTLE, doc);
      assert.equal(expected.split('\n').filter(Boolean).length, 8, 'the reference graph has 8 triples');
      const before = commitCount(dir);
      await put(path, bodies[source](doc), source);
      assert.equal(commitCount(dir), before + 1);
      // the source of truth: the canonical file in git holds exactly these client triples
      assert.equal(await clientGraph(fileAtHead(dir, path)!, NTRIPLES, doc), expected);
      for (const target of formats) {
        const res = await s.request('GET', path, { headers: { Accept: target } });
        assert.equal(res.status, 200);
        assert.match(String(res.headers['content-type']), new RegExp(`^${target.replace('+', '\\+')}`));
        assert.equal(await clientGraph(res.body, target, doc), expected, `${source} → ${target}`);
      }
    });
  }
});

describe('content negotiation', () => {
  let doc: string;
  before(async () => {
    doc = `${s.base}negotiate/`;
    await put('negotiate/', '<#this> <http://purl.org/dc/terms/title> "Negotiated" .');
  });

  const typeOf = (res: Response) => String(res.headers['content-type']).split(';')[0];

  it('Turtle is the default when there is no Accept, or when anything is accepted', async () => {
    assert.equal(typeOf(await s.request('GET', 'negotiate/')), TURTLE);
    assert.equal(typeOf(await s.request('GET', 'negotiate/', { headers: { Accept: '*/*' } })), TURTLE);
    assert.equal(typeOf(await s.request('GET', 'negotiate/', { headers: { Accept: '' } })), TURTLE);
  });

  it('q-values are honoured', async () => {
    assert.equal(typeOf(await s.request('GET', 'negotiate/', { headers: { Accept: 'application/rdf+xml;q=0.5, application/ld+json' } })), JSONLD);
    assert.equal(typeOf(await s.request('GET', 'negotiate/', { headers: { Accept: 'text/turtle;q=0.1, application/n-triples;q=0.9' } })), NTRIPLES);
    assert.equal(typeOf(await s.request('GET', 'negotiate/', { headers: { Accept: 'image/png, application/rdf+xml;q=0.2' } })), RDFXML);
    assertRdfError(await s.request('GET', 'negotiate/', { headers: { Accept: 'application/ld+json;q=0' } }), 406);
  });

  it('?accept= overrides the Accept header, and its ETag is that of the chosen format', async () => {
    const res = await s.request('GET', 'negotiate/?accept=application%2Fn-triples', { headers: { Accept: 'text/turtle' } });
    assert.equal(res.status, 200);
    assert.equal(typeOf(res), NTRIPLES);
    assert.match(res.body, new RegExp(`^<${doc}#this> <${DCT}title> "Negotiated" \\.$`, 'm'));
    assert.equal(res.headers.etag, await etagOf('negotiate/', NTRIPLES));
    const xml = await s.request('HEAD', 'negotiate/?accept=application/rdf%2Bxml');
    assert.equal(typeOf(xml), RDFXML);
  });

  it('every GET carries Vary: Accept, whatever the format', async () => {
    for (const type of formats) {
      const res = await s.request('GET', 'negotiate/', { headers: { Accept: type } });
      assert.match(String(res.headers.vary), /\bAccept\b/i, type);
    }
  });

  it('repeated GETs of an unchanged document give identical bytes and ETags in every format', async () => {
    for (const type of formats) {
      const first = await s.request('GET', 'negotiate/', { headers: { Accept: type } });
      const second = await s.request('GET', 'negotiate/', { headers: { Accept: type } });
      const third = await s.request('GET', 'negotiate/', { headers: { Accept: type } });
      assert.equal(second.body, first.body, type);
      assert.equal(third.body, first.body, type);
      assert.equal(second.headers.etag, first.headers.etag);
      assert.equal(second.headers['content-length'], first.headers['content-length']);
    }
  });
});

describe('relative IRIs', () => {
  const bodiesWithRelative: Array<[string, string, string]> = [
    ['turtle', TURTLE, '<#this> <http://purl.org/dc/terms/title> "Relative" ; <http://example.org/ns#link> <other/> .'],
    ['rdfxml', RDFXML, '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dct="http://purl.org/dc/terms/" xmlns:ex="http://example.org/ns#"><rdf:Description rdf:about="#this"><dct:title>Relative</dct:title><ex:link rdf:resource="other/"/></rdf:Description></rdf:RDF>'],
    ['jsonld', JSONLD, JSON.stringify({ '@id': '#this', [`${DCT}title`]: 'Relative', [`${EX}link`]: { '@id': 'other/' } })],
  ];
  for (const [name, type, body] of bodiesWithRelative) {
    it(`resolve against the document URL in ${type} (<#this> → <doc>#this)`, async () => {
      const path = `relative-${name}/`;
      const doc = s.base + path;
      await put(path, body, type);
      const file = fileAtHead(dir, path)!;
      assert.ok(file.includes(`<${doc}#this> <${DCT}title> "Relative" .\n`), file);
      assert.ok(file.includes(`<${doc}#this> <${EX}link> <${doc}other/> .\n`), file);
    });
  }

  it('N-Triples with a relative IRI is a 400 and creates nothing', async () => {
    const before = headOf(dir);
    assertRdfError(await s.request('PUT', 'relative-nt/', { headers: { 'Content-Type': NTRIPLES }, body: '<#this> <http://purl.org/dc/terms/title> "Relative" .\n' }), 400, { title: /line 1/ });
    assert.equal(headOf(dir), before);
    assertRdfError(await s.request('GET', 'relative-nt/'), 404);
  });
});

describe('JSON-LD with the schema.org context (bundled, never fetched)', () => {
  const SCHEMA = 'http://schema.org/';

  it('PUT with "@context": "https://schema.org/" or "http://schema.org" stores schema.org IRIs, url and sameAs as IRIs', async () => {
    for (const [path, context] of [['schema-org-https/', 'https://schema.org/'], ['schema-org-http/', 'http://schema.org']] as const) {
      const doc = s.base + path;
      const body = JSON.stringify({ '@context': context, '@id': '#this', '@type': 'Person', name: 'Ada', url: 'https://ada.example/', sameAs: 'https://www.wikidata.org/wiki/Q7259' });
      await put(path, body, JSONLD);
      const file = fileAtHead(dir, path)!;
      for (const line of [
        `<${doc}#this> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${SCHEMA}Person> .`,
        `<${doc}#this> <${SCHEMA}name> "Ada" .`,
        `<${doc}#this> <${SCHEMA}url> <https://ada.example/> .`,
        `<${doc}#this> <${SCHEMA}sameAs> <https://www.wikidata.org/wiki/Q7259> .`,
      ]) assert.ok(file.includes(line + '\n'), `${context}: ${line} in\n${file}`);
    }
  });

  it('another remote context, even beside schema.org, is still a 400 with an RDF error body, and nothing changes', async () => {
    const before = headOf(dir);
    const body = JSON.stringify({ '@context': ['https://schema.org/', 'https://example.org/context.jsonld'], '@id': '#this', name: 'Ada' });
    assertRdfError(await s.request('PUT', 'schema-org-other/', { headers: { 'Content-Type': JSONLD }, body }), 400, { title: /remote JSON-LD @context documents are not fetched/ });
    assert.equal(headOf(dir), before);
    assertRdfError(await s.request('GET', 'schema-org-other/'), 404);
  });
});

describe('RDF/POST (application/x-www-form-urlencoded)', () => {
  it('creates the triples of the form: language and datatype qualifiers (after and before the value), a URI object, a blank-node subject', async () => {
    const path = 'rdf-post/';
    const doc = s.base + path;
    const form = new URLSearchParams([
      ['rdf', ''],
      ['su', `${doc}#this`],
      ['pu', `${DCT}title`],
      ['ol', 'Hello'],
      ['ol', 'Bonjour'],
      ['ll', 'fr'],
      ['pu', `${EX}count`],
      ['lt', `${XSD}integer`],
      ['ol', '7'],
      ['pu', `${EX}part`],
      ['ob', 'b1'],
      ['sb', 'b1'],
      ['pu', `${EX}label`],
      ['ll', 'en'],
      ['ol', 'Blank'],
      ['pu', `${EX}link`],
      ['ou', 'http://example.org/other'],
      ['su', '#that'],
      ['pu', `${EX}seeAlso`],
      ['ou', '#this'],
    ]);
    const before = commitCount(dir);
    const res = await s.request('PUT', path, { headers: { 'Content-Type': RDFPOST }, body: form.toString() });
    assert.equal(res.status, 201, res.body);
    assert.equal(commitCount(dir), before + 1);
    const expected = await clientGraph(
      `@prefix dct: <${DCT}> . @prefix ex: <${EX}> . @prefix xsd: <${XSD}> .
       <#this> dct:title "Hello", "Bonjour"@fr ; ex:count "7"^^xsd:integer ; ex:part [ ex:label "Blank"@en ; ex:link <http://example.org/other> ] .
       <#that> ex:seeAlso <#this> .`,
      TURTLE,
      doc,
    );
    assert.equal(await clientGraph(fileAtHead(dir, path)!, NTRIPLES, doc), expected);
    const got = await s.request('GET', path, { headers: { Accept: NTRIPLES } });
    assert.equal(await clientGraph(got.body, NTRIPLES, doc), expected);
  });

  it('reads a qualifier sent after its value, as HTML forms send it: GET shows the typed literal', async () => {
    const path = 'rdf-post-after/';
    const form = new URLSearchParams([['rdf', ''], ['su', '#this'], ['pu', `${EX}count`], ['ol', '11'], ['lt', `${XSD}integer`], ['ol', '12']]);
    assert.equal((await s.request('PUT', path, { headers: { 'Content-Type': RDFPOST }, body: form.toString() })).status, 201);
    const got = await s.request('GET', path, { headers: { Accept: NTRIPLES } });
    assert.ok(got.body.includes(`<${s.base + path}#this> <${EX}count> "11"^^<${XSD}integer> .\n`), got.body);
    assert.ok(got.body.includes(`<${s.base + path}#this> <${EX}count> "12" .\n`), 'the next literal stays plain');
    assert.ok(fileAtHead(dir, path)!.includes(`<${s.base + path}#this> <${EX}count> "11"^^<${XSD}integer> .\n`), 'and so does the file in git');
  });

  it('appends with POST (204), and an unknown key is a 400 that changes nothing', async () => {
    const path = 'rdf-post-append/';
    const doc = s.base + path;
    const created = await put(path, '<#this> <http://purl.org/dc/terms/title> "Start" .');
    const appended = await s.request('POST', path, {
      headers: { 'Content-Type': RDFPOST, 'If-Match': String(created.headers.etag) },
      body: new URLSearchParams([['rdf', ''], ['su', '#this'], ['pu', `${DCT}description`], ['ol', 'More']]).toString(),
    });
    assert.equal(appended.status, 204, appended.body);
    const file = fileAtHead(dir, path)!;
    assert.ok(file.includes(`<${doc}#this> <${DCT}title> "Start" .\n`));
    assert.ok(file.includes(`<${doc}#this> <${DCT}description> "More" .\n`));
    const before = headOf(dir);
    assertRdfError(
      await s.request('POST', path, { headers: { 'Content-Type': RDFPOST, 'If-Match': String(appended.headers.etag) }, body: 'rdf=&su=%23this&zz=1' }),
      400,
      { title: /unknown field "zz"/ },
    );
    assert.equal(headOf(dir), before);
  });
});
