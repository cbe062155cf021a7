/**
 * Document hierarchy metadata (SPEC §2.2, DESIGN.md "Vocabularies"): the type and the parent link,
 * dct:created (kept), dct:modified (one, renewed on every change), dct:creator and acl:owner (the
 * requesting agent). They belong to the server: PUT, POST and PATCH cannot forge or remove them.
 * After every write, the file in git is the canonical N-Triples of what GET returns.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Quad } from '@rdfjs/types';
import oxigraph from 'oxigraph';
import { canonicalNTriples } from '../src/rdf/canonical.js';
import { ns } from '../src/rdf/namespaces.js';
import { parseRdf } from '../src/rdf/ntriples.js';
import { commitCount, git } from './helpers.js';
import { turtle, type Response, type TestServer, serverForFile } from './http-helpers.js';


const SPARQL_UPDATE = { 'Content-Type': 'application/sparql-update' };
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const FAKE_AGENT = 'https://evil.example/agents/mallory/#this';

const RDF_TYPE = ns.rdf + 'type';
const DH_ITEM = ns.dh + 'Item';
const DH_CONTAINER = ns.dh + 'Container';
const DEF_ROOT = ns.def + 'Root';
const HAS_CONTAINER = ns.sioc + 'has_container';
const HAS_PARENT = ns.sioc + 'has_parent';
const CREATED = ns.dct + 'created';
const MODIFIED = ns.dct + 'modified';
const CREATOR = ns.dct + 'creator';
const OWNER = ns.acl + 'owner';

let s: TestServer;
let dir: string;
let ownerWebId: string;
let secretaryWebId: string;

serverForFile(async (server, repo) => {
  s = server;
  dir = repo;
  ownerWebId = s.running.agents.owner.webId;
  secretaryWebId = s.running.agents.secretary.webId;
});

function header(res: Response, name: string): string | undefined {
  const value = res.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

function url(path: string): string {
  return s.base + path.replace(/^\//, '');
}

/** `/a/b/` → `graphs/a/b.nt`; `/` → `graphs/root.nt`. */
function fileOf(path: string): string {
  const relative = path.replace(/^\//, '');
  return relative === '' ? 'graphs/root.nt' : `graphs/${relative.slice(0, -1)}.nt`;
}

interface Doc {
  quads: Quad[];
  /** The objects of `<document> <p> ?o`. */
  values(p: string): string[];
  /** The objects of `<document> <p> ?o` as terms. */
  terms(p: string): Quad['object'][];
}

async function read(path: string): Promise<Doc> {
  const res = await s.request('GET', path, { headers: { Accept: 'application/n-triples' } });
  assert.equal(res.status, 200, res.body);
  const quads = parseRdf(res.body);
  const subject = url(path);
  const terms = (p: string) => quads.filter((q) => q.subject.value === subject && q.predicate.value === p).map((q) => q.object);
  return { quads, terms, values: (p) => terms(p).map((t) => t.value).sort() };
}

async function etagOf(path: string): Promise<string> {
  const res = await s.request('HEAD', path);
  assert.equal(res.status, 200);
  return header(res, 'etag')!;
}

/** SPEC §9.1.3 / DESIGN.md: the file in git is the canonical N-Triples of what GET returns. */
async function assertStoredAsServed(path: string): Promise<void> {
  const served = await s.request('GET', path, { headers: { Accept: 'application/n-triples' } });
  assert.equal(served.status, 200);
  const stored = git(dir, 'cat-file', 'blob', `HEAD:${fileOf(path)}`);
  assert.equal(stored, await canonicalNTriples(parseRdf(served.body)), `${fileOf(path)} at HEAD is what GET serves`);
  const asTurtle = await s.request('GET', path, { headers: { Accept: 'text/turtle' } });
  assert.equal(stored, await canonicalNTriples(parseRdf(asTurtle.body, { format: 'text/turtle' })), 'and what the Turtle says');
}

/** Exactly one dct:created / dct:modified, both xsd:dateTime in UTC with milliseconds. */
function timestamps(d: Doc): { created: string; modified: string } {
  for (const p of [CREATED, MODIFIED]) {
    const terms = d.terms(p);
    assert.equal(terms.length, 1, `exactly one ${p}: ${terms.map((t) => t.value).join(', ')}`);
    const term = terms[0]!;
    assert.equal(term.termType, 'Literal');
    assert.equal(term.termType === 'Literal' && term.datatype.value, ns.xsd + 'dateTime');
    assert.match(term.value, TIMESTAMP);
  }
  return { created: d.values(CREATED)[0]!, modified: d.values(MODIFIED)[0]! };
}

/** Waits until the clock has moved past `iso`, so the next write must get a later timestamp. */
async function clockPast(iso: string): Promise<void> {
  while (Date.now() <= Date.parse(iso) + 1) await new Promise((r) => setTimeout(r, 2));
}

async function put(path: string, body: string, headers: Record<string, string> = {}, as?: 'owner' | 'secretary'): Promise<Response> {
  return s.request('PUT', path, { headers: { ...turtle, ...headers }, body, ...(as ? { as } : {}) });
}

describe('SPEC §2.2: the default case, an item', () => {
  it('types a new document dh:Item, links it to its container, and records created, modified, creator and owner', async () => {
    const count = commitCount(dir);
    const res = await put('/meta-item/', `<#this> <${ns.dct}title> "an item" .`);
    assert.equal(res.status, 201, res.body);
    assert.equal(commitCount(dir), count + 1);
    const d = await read('/meta-item/');
    assert.deepEqual(d.values(RDF_TYPE), [DH_ITEM]);
    assert.deepEqual(d.values(HAS_CONTAINER), [s.base]);
    assert.deepEqual(d.values(HAS_PARENT), []);
    const { created, modified } = timestamps(d);
    assert.equal(created, modified, 'a new document was modified when it was created');
    assert.deepEqual(d.values(CREATOR), [ownerWebId]);
    assert.deepEqual(d.values(OWNER), [ownerWebId]);
    assert.equal(d.terms(CREATOR)[0]!.termType, 'NamedNode');
    assert.equal(d.terms(OWNER)[0]!.termType, 'NamedNode');
    const title = d.quads.filter((q) => q.subject.value === url('/meta-item/') + '#this' && q.predicate.value === ns.dct + 'title');
    assert.equal(title[0]?.object.value, 'an item', 'the client’s own triples are kept');
    await assertStoredAsServed('/meta-item/');
  });

  it('links a nested item to its container, not to the root', async () => {
    assert.equal((await put('/meta-box/', `<> a <${DH_CONTAINER}> .`)).status, 201);
    assert.equal((await put('/meta-box/inner/', '')).status, 201);
    const d = await read('/meta-box/inner/');
    assert.deepEqual(d.values(RDF_TYPE), [DH_ITEM]);
    assert.deepEqual(d.values(HAS_CONTAINER), [url('/meta-box/')]);
    await assertStoredAsServed('/meta-box/inner/');
  });

  it('creates an item from an empty Turtle body (SPEC §2.2 rule 1)', async () => {
    const count = commitCount(dir);
    const res = await s.request('PUT', '/meta-empty/', { headers: turtle, body: '' });
    assert.equal(res.status, 201, res.body);
    assert.equal(commitCount(dir), count + 1);
    const d = await read('/meta-empty/');
    assert.deepEqual(d.values(RDF_TYPE), [DH_ITEM]);
    assert.deepEqual(d.values(HAS_CONTAINER), [s.base]);
    timestamps(d);
    assert.deepEqual(d.values(CREATOR), [ownerWebId]);
    assert.deepEqual(d.values(OWNER), [ownerWebId]);
    assert.ok(d.quads.every((q) => q.subject.value === url('/meta-empty/')), 'only metadata');
    assert.equal(d.quads.length, 6, 'type, container, created, modified, creator, owner');
    await assertStoredAsServed('/meta-empty/');
  });
});

describe('SPEC §2.2: the client asks for a container', () => {
  it('types it dh:Container, links it to its parent with sioc:has_parent, and keeps the client’s dct:title', async () => {
    const res = await put('/meta-container/', `<> a <${DH_CONTAINER}> ; <${ns.dct}title> "A container" .`);
    assert.equal(res.status, 201, res.body);
    const d = await read('/meta-container/');
    assert.deepEqual(d.values(RDF_TYPE), [DH_CONTAINER]);
    assert.deepEqual(d.values(HAS_PARENT), [s.base]);
    assert.deepEqual(d.values(HAS_CONTAINER), []);
    assert.deepEqual(d.values(ns.dct + 'title'), ['A container']);
    timestamps(d);
    assert.deepEqual(d.values(CREATOR), [ownerWebId]);
    assert.deepEqual(d.values(OWNER), [ownerWebId]);
    await assertStoredAsServed('/meta-container/');
  });

  it('links a nested container to its parent container', async () => {
    const res = await put('/meta-container/sub/', `<> a <${DH_CONTAINER}> .`);
    assert.equal(res.status, 201, res.body);
    const d = await read('/meta-container/sub/');
    assert.deepEqual(d.values(RDF_TYPE), [DH_CONTAINER]);
    assert.deepEqual(d.values(HAS_PARENT), [url('/meta-container/')]);
    await assertStoredAsServed('/meta-container/sub/');
  });

  it('keeps a container a container when a PUT sends dh:Item or leaves the type out', async () => {
    const res = await put('/meta-container/', `<> a <${DH_ITEM}> ; <${ns.dct}title> "Renamed" .`, { 'If-Match': await etagOf('/meta-container/') });
    assert.equal(res.status, 200, res.body);
    const d = await read('/meta-container/');
    assert.deepEqual(d.values(RDF_TYPE), [DH_CONTAINER]);
    assert.deepEqual(d.values(HAS_PARENT), [s.base]);
    assert.deepEqual(d.values(HAS_CONTAINER), []);
    assert.deepEqual(d.values(ns.dct + 'title'), ['Renamed']);
    await assertStoredAsServed('/meta-container/');
  });
});

describe('SPEC §2.2: the root document', () => {
  it('is def:Root and a dh:Container with no parent', async () => {
    const d = await read('/');
    assert.deepEqual(d.values(RDF_TYPE), [DH_CONTAINER, DEF_ROOT].sort());
    assert.deepEqual(d.values(HAS_PARENT), []);
    assert.deepEqual(d.values(HAS_CONTAINER), []);
    timestamps(d);
    assert.deepEqual(d.values(CREATOR), [ownerWebId]);
    assert.deepEqual(d.values(OWNER), [ownerWebId]);
    await assertStoredAsServed('/');
  });

  it('stays def:Root without a parent after a PUT that sends a parent and dh:Item', async () => {
    const before = await read('/');
    const res = await put('/', `<> a <${DH_ITEM}> ; <${HAS_PARENT}> <https://evil.example/> ; <${HAS_CONTAINER}> <https://evil.example/> ; <${ns.dct}title> "Lodestone" .`, {
      'If-Match': await etagOf('/'),
    });
    assert.equal(res.status, 200, res.body);
    const d = await read('/');
    assert.deepEqual(d.values(RDF_TYPE), [DH_CONTAINER, DEF_ROOT].sort());
    assert.deepEqual(d.values(HAS_PARENT), []);
    assert.deepEqual(d.values(HAS_CONTAINER), []);
    assert.equal(timestamps(d).created, timestamps(before).created);
    await assertStoredAsServed('/');
  });
});

describe('SPEC §2.2: dct:created stays, dct:modified is renewed on every change', () => {
  it('keeps dct:created and renews the one dct:modified across PUT, POST and PATCH', async () => {
    assert.equal((await put('/meta-times/', `<#this> <${ns.dct}title> "v1" .`)).status, 201);
    const first = timestamps(await read('/meta-times/'));
    let previous = first.modified;
    const steps: Array<[string, () => Promise<Response>]> = [
      ['PUT', async () => put('/meta-times/', `<#this> <${ns.dct}title> "v2" .`, { 'If-Match': await etagOf('/meta-times/') })],
      ['POST', async () => s.request('POST', '/meta-times/', { headers: { ...turtle, 'If-Match': await etagOf('/meta-times/') }, body: `<#this> <${ns.dct}description> "d" .` })],
      ['PATCH', async () => s.request('PATCH', '/meta-times/', { headers: { ...SPARQL_UPDATE, 'If-Match': await etagOf('/meta-times/') }, body: `DELETE WHERE { <#this> <${ns.dct}description> ?d }` })],
    ];
    for (const [method, write] of steps) {
      await clockPast(previous);
      const count = commitCount(dir);
      const res = await write();
      assert.ok(res.status === 200 || res.status === 204, `${method}: ${res.status} ${res.body}`);
      assert.equal(commitCount(dir), count + 1);
      const now = timestamps(await read('/meta-times/'));
      assert.equal(now.created, first.created, `${method} kept dct:created`);
      assert.ok(now.modified > previous, `${method} renewed dct:modified (${previous} → ${now.modified})`);
      assert.ok(now.modified >= now.created);
      previous = now.modified;
      await assertStoredAsServed('/meta-times/');
    }
  });
});

describe('SPEC §2.2: dct:creator and acl:owner are the requesting agent', () => {
  it('records the secretary when the secretary creates a document', async () => {
    const res = await put('/meta-by-secretary/', `<#this> <${ns.dct}title> "by the secretary" .`, {}, 'secretary');
    assert.equal(res.status, 201, res.body);
    const d = await read('/meta-by-secretary/');
    assert.deepEqual(d.values(CREATOR), [secretaryWebId]);
    assert.deepEqual(d.values(OWNER), [secretaryWebId]);
    assert.equal(git(dir, 'log', '-1', '--format=%an').trim(), secretaryWebId, 'the commit is authored by the secretary');
    await assertStoredAsServed('/meta-by-secretary/');
  });

  it('keeps the creator and owner when another agent later changes the document', async () => {
    const res = await put('/meta-by-secretary/', `<#this> <${ns.dct}title> "changed by the owner" .`, { 'If-Match': await etagOf('/meta-by-secretary/') }, 'owner');
    assert.equal(res.status, 200, res.body);
    const d = await read('/meta-by-secretary/');
    assert.deepEqual(d.values(CREATOR), [secretaryWebId]);
    assert.deepEqual(d.values(OWNER), [secretaryWebId]);
    assert.equal(git(dir, 'log', '-1', '--format=%an').trim(), ownerWebId, 'the commit is authored by the owner');
    await assertStoredAsServed('/meta-by-secretary/');
  });
});

describe('SPEC §2.2: clients cannot forge or remove the metadata', () => {
  const forged = (path: string) =>
    [
      `<${url(path)}> a <${DH_ITEM}> , <${DEF_ROOT}> ;`,
      `  <${CREATED}> "2000-01-01T00:00:00.000Z"^^<${ns.xsd}dateTime> ;`,
      `  <${MODIFIED}> "2000-01-02T00:00:00.000Z"^^<${ns.xsd}dateTime> ;`,
      `  <${CREATOR}> <${FAKE_AGENT}> ;`,
      `  <${OWNER}> <${FAKE_AGENT}> ;`,
      `  <${HAS_CONTAINER}> <https://evil.example/c/> ;`,
      `  <${HAS_PARENT}> <https://evil.example/p/> .`,
      `<${url(path)}#this> <${ns.dct}title> "kept" .`,
    ].join('\n');

  function assertServerMetadata(d: Doc, created?: string): void {
    assert.deepEqual(d.values(RDF_TYPE), [DH_ITEM]);
    assert.deepEqual(d.values(HAS_CONTAINER), [s.base]);
    assert.deepEqual(d.values(HAS_PARENT), []);
    const times = timestamps(d);
    assert.notEqual(times.created, '2000-01-01T00:00:00.000Z');
    assert.notEqual(times.modified, '2000-01-02T00:00:00.000Z');
    if (created) assert.equal(times.created, created);
    assert.deepEqual(d.values(CREATOR), [ownerWebId]);
    assert.deepEqual(d.values(OWNER), [ownerWebId]);
  }

  it('PUT creating: the server’s values win over forged ones', async () => {
    const res = await put('/meta-forge-put/', forged('/meta-forge-put/'));
    assert.equal(res.status, 201, res.body);
    const d = await read('/meta-forge-put/');
    assert.ok(Date.now() - Date.parse(timestamps(d).created) < 24 * 3600_000, 'created is now, not the forged date');
    assertServerMetadata(d);
    assert.equal(d.quads.find((q) => q.predicate.value === ns.dct + 'title')?.object.value, 'kept');
    await assertStoredAsServed('/meta-forge-put/');
  });

  it('PUT replacing: forged values are dropped and the metadata cannot be removed', async () => {
    const { created } = timestamps(await read('/meta-forge-put/'));
    const forging = await put('/meta-forge-put/', forged('/meta-forge-put/'), { 'If-Match': await etagOf('/meta-forge-put/') });
    assert.equal(forging.status, 200, forging.body);
    assertServerMetadata(await read('/meta-forge-put/'), created);
    const removing = await put('/meta-forge-put/', `<#this> <${ns.dct}title> "no metadata sent" .`, { 'If-Match': await etagOf('/meta-forge-put/') });
    assert.equal(removing.status, 200, removing.body);
    assertServerMetadata(await read('/meta-forge-put/'), created);
    await assertStoredAsServed('/meta-forge-put/');
  });

  it('POST: forged values are not appended', async () => {
    assert.equal((await put('/meta-forge-post/', '')).status, 201);
    const { created } = timestamps(await read('/meta-forge-post/'));
    const res = await s.request('POST', '/meta-forge-post/', { headers: { ...turtle, 'If-Match': await etagOf('/meta-forge-post/') }, body: forged('/meta-forge-post/') });
    assert.equal(res.status, 204, res.body);
    const d = await read('/meta-forge-post/');
    assertServerMetadata(d, created);
    assert.equal(d.quads.find((q) => q.predicate.value === ns.dct + 'title')?.object.value, 'kept');
    await assertStoredAsServed('/meta-forge-post/');
  });

  it('PATCH: deleting dct:created or inserting a second dct:modified leaves exactly the server’s', async () => {
    assert.equal((await put('/meta-forge-patch/', '')).status, 201);
    const { created } = timestamps(await read('/meta-forge-patch/'));
    const updates = [
      `DELETE { <> <${CREATED}> ?c } WHERE { <> <${CREATED}> ?c }`,
      `INSERT { <> <${MODIFIED}> "2000-01-02T00:00:00.000Z"^^<${ns.xsd}dateTime> } WHERE {}`,
      `DELETE WHERE { <> <${CREATOR}> ?a ; <${OWNER}> ?o }`,
      `DELETE { <> a <${DH_ITEM}> ; <${HAS_CONTAINER}> ?c } INSERT { <> a <${DH_CONTAINER}> ; <${HAS_PARENT}> <https://evil.example/p/> ; <${OWNER}> <${FAKE_AGENT}> } WHERE { <> <${HAS_CONTAINER}> ?c }`,
      forged('/meta-forge-patch/').replace(/^/, 'INSERT {\n').replace(/$/, '\n} WHERE {}'),
    ];
    for (const update of updates) {
      const count = commitCount(dir);
      const sent = await etagOf('/meta-forge-patch/');
      const res = await s.request('PATCH', '/meta-forge-patch/', { headers: { ...SPARQL_UPDATE, 'If-Match': sent }, body: update });
      assert.equal(res.status, 204, `${update}\n${res.body}`);
      // the server's metadata put back, what is left changed or not: a commit when it did, none (and the same ETag) when it did not
      if (header(res, 'etag') === sent) assert.equal(commitCount(dir), count, 'a PATCH that changes nothing makes no commit');
      else assert.equal(commitCount(dir), count + 1);
      assertServerMetadata(await read('/meta-forge-patch/'), created);
      await assertStoredAsServed('/meta-forge-patch/');
    }
  });
});

describe('every representation carries the same triples as the stored file', () => {
  it('Turtle, RDF/XML and JSON-LD keep typed literals as stored (dct:created-like timestamps keep .000, xsd:long stays xsd:long)', async () => {
    const typed = [
      `"2020-01-01T00:00:00.000Z"^^<${ns.xsd}dateTime>`,
      `"412"^^<${ns.xsd}long>`,
      `"1.50"^^<${ns.xsd}decimal>`,
      `"01"^^<${ns.xsd}integer>`,
      `"1"^^<${ns.xsd}int>`,
    ];
    const body = typed.map((l) => `<${url('/meta-formats/')}#this> <${ns.rdf}value> ${l} .`).join('\n');
    assert.equal((await put('/meta-formats/', body, { 'Content-Type': 'application/n-triples' })).status, 201);
    const expected = git(dir, 'cat-file', 'blob', `HEAD:${fileOf('/meta-formats/')}`);
    for (const literal of typed) assert.ok(expected.includes(literal), `the stored file has ${literal}`);
    for (const format of ['text/turtle', 'application/rdf+xml', 'application/ld+json']) {
      const res = await s.request('GET', '/meta-formats/', { headers: { Accept: format } });
      assert.equal(res.status, 200);
      const quads = oxigraph.parse(res.body, { format, base_iri: url('/meta-formats/') }) as unknown as Quad[];
      assert.equal(await canonicalNTriples(quads), expected, `${format} says what the stored file says`);
    }
  });
});
