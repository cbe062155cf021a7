/**
 * The bundled schema.org JSON-LD context, pure: what is derived from the schema-dts package (as
 * schema.org's own generator derives it), which URLs name it, where `@context` references are
 * inlined, the bound on them, and the triples parseBody then gives; other remote contexts are
 * still refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLodestoneError } from '../src/errors.js';
import { parseBody } from '../src/rdf/formats.js';
import { bundledContext, inlineBundledContexts, MAX_INLINED } from '../src/rdf/json-ld-contexts.js';
import { termToNTriples } from '../src/rdf/ntriples.js';
import { deriveSchemaOrgContext, schemaOrgContext } from '../src/rdf/schema-org-context.js';

const S = 'http://schema.org/';
const BASE = 'https://localhost/doc/';

function triples(json: unknown): string[] {
  return parseBody(JSON.stringify(json), 'application/ld+json', BASE)
    .map((q) => `${termToNTriples(q.subject)} ${termToNTriples(q.predicate)} ${termToNTriples(q.object)}`.replace(/_:\S+/g, '_:b'))
    .sort();
}

describe('the schema.org context', () => {
  const context = schemaOrgContext() as Record<string, unknown>;

  it('is built once, frozen, with @vocab http://schema.org/ and the id/type aliases', () => {
    assert.equal(schemaOrgContext(), context);
    assert.ok(Object.isFrozen(context));
    assert.equal(context['@vocab'], S);
    assert.equal(context.id, '@id');
    assert.equal(context.type, '@type');
    assert.equal(context.schema, S);
  });

  it('coerces to IRIs the properties whose range has URL and no Text, and types Date ones with schema:Date', () => {
    for (const property of ['url', 'sameAs', 'image', 'logo', 'contentUrl', 'license']) {
      assert.deepEqual(context[property], { '@id': `schema:${property}`, '@type': '@id' }, property);
    }
    for (const property of ['startDate', 'birthDate', 'datePublished', 'dateModified']) {
      assert.deepEqual(context[property], { '@id': `schema:${property}`, '@type': `${S}Date` }, property);
    }
    // Text in the range, DateTime/Time only, or a plain property: left to @vocab, as the real context does
    for (const property of ['additionalType', 'startTime', 'name', 'description', 'author']) assert.equal(context[property], undefined, property);
  });

  it('refuses a schema.d.ts it cannot read rather than ship a context without coercions', () => {
    assert.throws(() => deriveSchemaOrgContext('export type X = string;\n'), /found 0 schema.org properties/);
  });

  it('is named by every spelling pages use, and by nothing else', () => {
    for (const url of ['http://schema.org', 'http://schema.org/', 'https://schema.org', 'https://schema.org/', 'https://schema.org/docs/jsonldcontext.jsonld', 'https://schema.org/docs/jsonldcontext.json', 'http://schema.org/docs/jsonldcontext.jsonld', 'http://schema.org/docs/jsonldcontext.json']) {
      assert.equal(bundledContext(url), context, url);
    }
    for (const url of ['https://schema.org/Person', 'https://www.schema.org/', 'https://schema.org.example/', 'https://example.org/schema.org', 'ftp://schema.org/', 'https://schema.org//', 'https://schema.org/docs/jsonldcontext.jsonl']) {
      assert.equal(bundledContext(url), undefined, url);
    }
  });
});

describe('inlining bundled contexts', () => {
  const inlined = (json: unknown): unknown => JSON.parse(inlineBundledContexts(JSON.stringify(json)));
  /** The value at `path` in parsed JSON. */
  const at = (json: unknown, ...path: Array<string | number>): unknown => path.reduce<unknown>((value, key) => (value as Record<string | number, unknown>)[key], json);

  it('replaces the reference at the top, in arrays, in nested nodes and in scoped contexts', () => {
    const context = JSON.parse(JSON.stringify(schemaOrgContext()));
    const out = inlined({
      '@context': ['https://schema.org/', { ex: 'http://example.org/', 'ex:scoped': { '@context': 'http://schema.org' } }],
      knows: { '@context': 'https://schema.org/docs/jsonldcontext.jsonld', name: 'Bob' },
    });
    assert.deepEqual(at(out, '@context', 0), context);
    assert.deepEqual(at(out, '@context', 1, 'ex:scoped', '@context'), context);
    assert.deepEqual(at(out, 'knows', '@context'), context);
  });

  it('leaves JSON literals, other contexts, texts without a reference and non-JSON as they are', () => {
    const literal = { '@context': { data: { '@id': 'http://example.org/data', '@type': '@json' } }, data: { '@value': { '@context': 'https://schema.org/' } } };
    const text = JSON.stringify(literal);
    assert.equal(inlineBundledContexts(text), text);
    const other = JSON.stringify({ '@context': ['https://example.org/context.jsonld'], name: 'see https://schema.org/' });
    assert.equal(inlineBundledContexts(other), other);
    assert.equal(inlineBundledContexts('{"@context": "https://schema.org/", '), '{"@context": "https://schema.org/", ');
  });

  it(`inlines at most ${MAX_INLINED} references, then refuses the body`, () => {
    const nodes = (n: number) => ({ '@context': 'https://schema.org/', '@graph': Array.from({ length: n - 1 }, (_, i) => ({ '@context': 'https://schema.org', name: `n${i}` })) });
    assert.equal((at(inlined(nodes(MAX_INLINED)), '@graph') as unknown[]).length, MAX_INLINED - 1);
    assert.throws(
      () => inlineBundledContexts(JSON.stringify(nodes(MAX_INLINED + 1))),
      (error: unknown) => isLodestoneError(error, 'SyntaxError') && /more than 64 references to the bundled schema.org context/.test(error.message),
    );
  });

  it('walks a body nested 100,000 deep without running out of stack', () => {
    const deep = `{"@context": "https://schema.org/", "@id": "#this", "p": ${'{"p": '.repeat(99_999)}1${'}'.repeat(100_000)}`;
    assert.throws(() => inlineBundledContexts(deep), (error: unknown) => isLodestoneError(error, 'SyntaxError') && /nested too deeply/.test(error.message));
  });
});

describe('parseBody with the schema.org context', () => {
  it('gives the triples the real context gives: schema.org IRIs, url and sameAs as IRIs, dates typed', () => {
    for (const spelling of ['https://schema.org/', 'http://schema.org']) {
      assert.deepEqual(
        triples({
          '@context': spelling,
          id: '#this',
          type: 'Person',
          name: 'Ada Lovelace',
          url: 'https://ada.example/',
          sameAs: ['https://www.wikidata.org/wiki/Q7259', 'other'],
          birthDate: '1815-12-10',
          'dc:title': 'Countess',
          knows: { '@type': 'Person', name: 'Charles Babbage' },
        }),
        [
          `_:b <${S}name> "Charles Babbage"`,
          `_:b <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${S}Person>`,
          `<${BASE}#this> <${S}knows> _:b`,
          `<${BASE}#this> <${S}birthDate> "1815-12-10"^^<${S}Date>`,
          `<${BASE}#this> <${S}name> "Ada Lovelace"`,
          `<${BASE}#this> <${S}sameAs> <${BASE}other>`,
          `<${BASE}#this> <${S}sameAs> <https://www.wikidata.org/wiki/Q7259>`,
          `<${BASE}#this> <${S}url> <https://ada.example/>`,
          `<${BASE}#this> <http://purl.org/dc/elements/1.1/title> "Countess"`,
          `<${BASE}#this> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${S}Person>`,
        ].sort(),
        spelling,
      );
    }
  });

  it('still refuses any other remote context, alone or beside the bundled one', () => {
    for (const json of [
      { '@context': 'https://example.org/context.jsonld', name: 'x' },
      { '@context': ['https://schema.org/', 'https://example.org/context.jsonld'], name: 'x' },
      { '@context': { '@import': 'https://schema.org/' }, name: 'x' },
    ]) {
      assert.throws(
        () => parseBody(JSON.stringify(json), 'application/ld+json', BASE),
        (error: unknown) => isLodestoneError(error, 'SyntaxError') && /remote JSON-LD @context documents are not fetched/.test(error.message),
        JSON.stringify(json),
      );
    }
  });
});
