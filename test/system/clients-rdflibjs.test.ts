/**
 * rdflib.js 2.4 (the Solid library, from npm) against a running server, its requests sent by
 * undici's fetch with the owner's client certificate: the Fetcher loads the document (and keeps its
 * ETag and Accept-Patch), every format rdflib.js parses is read, the awkward document is written
 * back in every format rdflib.js writes (PUT with If-Match and the Accept of the read), and
 * UpdateManager edits it with the ETag. rdflib.js has no isomorphism test: graphs are compared
 * through the server's canonical N-Triples (RDFC-1.0 blank node labels).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import * as $rdf from 'rdflib';
import { Agent, fetch } from 'undici';
import { fileAtHead } from '../helpers.js';
import { assertRdfError, serverForFile, type TestServer } from '../http-helpers.js';
import { EX, NOTE, UNICORN_TITLE, contentOf, markerLine, putAwkward, storedContent } from '../client-helpers.js';

type Store = ReturnType<typeof $rdf.graph>;
const COMPACTED = 'application/ld+json;profile="http://www.w3.org/ns/json-ld#compacted"';

/** Parses `text` into a fresh store (JSON-LD parses asynchronously, hence the callback). */
function parseInto(text: string, type: string, url: string): Promise<Store> {
  const store = $rdf.graph();
  return new Promise((resolve, reject) => $rdf.parse(text, store, url, type, (error) => (error ? reject(error) : resolve(store))));
}

/** Serialises every statement of `store` as `type` (JSON-LD serialises asynchronously). */
function serialiseAs(store: Store, type: string, url: string): Promise<string> {
  return new Promise((resolve, reject) => $rdf.serialize(null, store, url, type, (error, text) => (error ? reject(error) : resolve(text ?? ''))));
}

/** The canonical content of what rdflib.js holds, through its own Turtle writer (which keeps UTF-8 raw). */
async function contentOfStore(store: Store, url: string): Promise<string> {
  return contentOf(await serialiseAs(store, 'text/turtle', url), url, 'text/turtle');
}

describe('rdflib.js 2.4 (npm) with undici fetch', () => {
  let s: TestServer;
  let repo: string;
  let readUrl: string;
  let dispatcher: Agent | undefined;
  let fetcher: $rdf.Fetcher;
  let store: Store;
  after(() => dispatcher?.close()); // registered first, so it runs before the server closes
  serverForFile(async (server, dir) => {
    s = server;
    repo = dir;
    dispatcher = new Agent({ connect: { cert: s.ownerPem, key: s.ownerPem, rejectUnauthorized: false } });
    readUrl = await putAwkward(s, 'rdflibjs-read/');
  }, [], { tls: true }); // a real client over the wire
  const newFetcher = () => {
    store = $rdf.graph();
    fetcher = new $rdf.Fetcher(store, { fetch: ((url: string, init?: object) => fetch(url, { ...init, dispatcher })) as never });
    return fetcher;
  };
  const get = async (url: string, accept: string) => {
    const res = await newFetcher().webOperation('GET', url, { headers: { Accept: accept } } as never);
    return { text: (res as unknown as { responseText: string }).responseText, etag: res.headers.get('etag') ?? '', contentType: res.headers.get('content-type') ?? '' };
  };

  it('loads the document with the Fetcher (Turtle, for its Accept), which keeps the ETag, and UpdateManager finds it editable by SPARQL (Accept-Patch on GET)', async () => {
    const doc = $rdf.sym(readUrl);
    const res = await newFetcher().load(doc);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/turtle; charset=utf-8');
    assert.match(res.headers.get('etag') ?? '', /^"[^"]+"$/);
    assert.equal(store.any($rdf.sym(`${readUrl}#this`), $rdf.sym('http://purl.org/dc/terms/title'), null, doc)?.value, UNICORN_TITLE);
    assert.equal(store.any($rdf.sym(`${readUrl}#this`), $rdf.sym(`${EX}note`), null, doc)?.value, NOTE);
    assert.equal(new $rdf.UpdateManager(store).editable(readUrl, store), 'SPARQL');
    const turtle = $rdf.serialize(doc, store, readUrl, 'text/turtle') ?? '';
    assert.ok(turtle.includes(UNICORN_TITLE), turtle);
  });

  it('parses every format rdflib.js reads: Turtle, N-Triples (as Turtle), RDF/XML, JSON-LD expanded and compacted, N-Quads', async () => {
    const expected = await storedContent(s, readUrl);
    for (const [accept, type] of [['text/turtle', 'text/turtle'], ['application/n-triples', 'text/turtle'], ['application/rdf+xml', 'application/rdf+xml'], ['application/ld+json', 'application/ld+json'], [COMPACTED, 'application/ld+json'], ['application/n-quads', 'application/n-quads']] as const) {
      const { text, contentType } = await get(readUrl, accept);
      assert.match(contentType, /; charset=utf-8$/, accept);
      assert.equal(await contentOfStore(await parseInto(text, type, readUrl), readUrl), expected, accept);
    }
  });

  it('writes the document back in every format rdflib.js writes (putBack for Turtle), with If-Match and the Accept of the read: stored as sent; its RDF/XML of nested blank nodes is invalid and refused', async () => {
    const url = await putAwkward(s, 'rdflibjs-roundtrip/');
    const doc = $rdf.sym(url);
    const writtenBy = $rdf.sym(`${EX}writtenBy`);
    /** Replaces the `ex:writtenBy` of `<document#this>` in `graph` (the document's graph, or the default graph). */
    const mark = (graph: Store, document: string, marker: string, inDocument = true) => {
      graph.removeMany($rdf.sym(`${document}#this`), writtenBy, undefined, undefined);
      graph.add($rdf.sym(`${document}#this`), writtenBy, $rdf.lit(marker), inDocument ? $rdf.sym(document) : undefined);
    };

    // Turtle, as a Solid app does: load, change the store, putBack with the ETag the load got
    const loaded = await newFetcher().load(doc);
    mark(store, url, 'rdflib.js putBack text/turtle \u{1F984}');
    const put = await fetcher.putBack(doc, { contentType: 'text/turtle', headers: { 'If-Match': loaded.headers.get('etag') ?? '', Accept: fetcher.acceptString() } } as never);
    assert.equal(put.status, 200);
    const sent = $rdf.graph();
    sent.addAll(store.statementsMatching(undefined, undefined, undefined, doc));
    assert.equal(await storedContent(s, url), await contentOfStore(sent, url));

    // rdflib.js 2.4 writes a list it holds as a Collection (its Turtle and JSON-LD parsers make one)
    // ending in rdf:nill in N-Triples and N-Quads, a bug of its writer: N-Triples is read as N-Quads
    // here (that parser makes no Collection), and the bug is shown, not sent.
    const asTurtle = await parseInto((await get(url, 'text/turtle')).text, 'text/turtle', url);
    assert.match(await serialiseAs(asTurtle, 'application/n-triples', url), /rdf-syntax-ns#nill>/);

    const roundTrip = async (target: string, accept: string, readType: string, writeType: string) => {
      const { text, etag } = await get(target, accept);
      const graph = await parseInto(text, readType, target);
      const marker = `rdflib.js ${writeType} \u{1F984}`;
      mark(graph, target, marker, readType !== 'application/n-quads'); // N-Quads are read into the default graph
      const body = await serialiseAs(graph, writeType, target);
      const res = await fetcher.webOperation('PUT', target, { contentType: writeType, body, headers: { 'If-Match': etag, Accept: accept } } as never);
      assert.equal(res.status, 200, writeType);
      assert.equal(await storedContent(s, target), await contentOfStore(graph, target), `${writeType}: what rdflib.js wrote is what is stored`);
      assert.ok(fileAtHead(repo, new URL(target).pathname.slice(1))?.includes(markerLine(target, marker)), `${writeType}: in git`);
    };
    await roundTrip(url, 'application/n-triples', 'application/n-quads', 'application/n-triples');
    await roundTrip(url, 'application/ld+json', 'application/ld+json', 'application/ld+json');
    await roundTrip(url, 'application/n-quads', 'application/n-quads', 'application/n-quads');

    // rdflib.js 2.4's RDF/XML writer nests a blank node as an <rdf:Description> inside
    // rdf:parseType="Resource", which RDF/XML forbids (rapper and Python rdflib refuse it too):
    // Lodestone answers 400 saying so, and keeps the document. Without blank nodes, RDF/XML round-trips.
    const before = await storedContent(s, url);
    const { text, etag } = await get(url, 'application/rdf+xml');
    const body = await serialiseAs(await parseInto(text, 'application/rdf+xml', url), 'application/rdf+xml', url);
    const refused = await s.request('PUT', url, { headers: { 'Content-Type': 'application/rdf+xml', Accept: 'application/rdf+xml', 'If-Match': etag }, body });
    assertRdfError(refused, 400, { format: 'application/rdf+xml', title: /^invalid application\/rdf\+xml: .*rdf-syntax-ns#Description/ });
    assert.equal(await storedContent(s, url), before);
    const flat = new URL('rdflibjs-flat/', s.base).href;
    assert.equal((await s.request('PUT', flat, { headers: { 'Content-Type': 'text/turtle' }, body: `<#this> <http://purl.org/dc/terms/title> "${UNICORN_TITLE}"@de ; <${EX}note> ${JSON.stringify(NOTE)} .` })).status, 201);
    await roundTrip(flat, 'application/rdf+xml', 'application/rdf+xml', 'application/rdf+xml');
  });

  it('edits with UpdateManager and the ETag: a DELETE/INSERT … WHERE (a blank node\'s label) works; INSERT DATA is refused (SPEC §4.2), so is an update without If-Match; the Fetcher PATCHes an INSERT … WHERE', async () => {
    const url = await putAwkward(s, 'rdflibjs-update/');
    const doc = $rdf.sym(url);
    const loaded = await newFetcher().load(doc);
    const updater = new $rdf.UpdateManager(store);
    const options = { headers: { 'If-Match': loaded.headers.get('etag') ?? '', Accept: fetcher.acceptString() } };
    const part = store.any($rdf.sym(`${url}#this`), $rdf.sym(`${EX}part`), null, doc) as $rdf.BlankNode;
    const label = $rdf.sym(`${EX}label`);
    const old = $rdf.st(part, label, $rdf.lit('outer'), doc);
    const edited = $rdf.st(part, label, $rdf.lit('outer, edited \u{1F984}'), doc);
    await assert.rejects(updater.update([old], [edited], undefined, false, {} as never) as Promise<void>, /428 \(Precondition Required\)/);
    await updater.update([old], [edited], undefined, false, options as never);
    const stored = await s.request('GET', url, { headers: { Accept: 'application/n-triples' } });
    assert.match(stored.body, /^_:\S+ <http:\/\/example.org\/ns#label> "outer, edited \u{1F984}" \.$/mu);
    assert.doesNotMatch(stored.body, /"outer" \./);
    const etag = String(stored.headers.etag);
    const plain = $rdf.st($rdf.sym(`${url}#this`), $rdf.sym(`${EX}plain`), $rdf.lit('x'), doc);
    await assert.rejects(updater.update([], [plain], undefined, false, { headers: { 'If-Match': etag, Accept: 'application/n-triples' } } as never) as Promise<void>, /422 \(Unprocessable Entity\)/);
    // the same insertion as one INSERT … WHERE, sent by the Fetcher
    const body = `INSERT { <#this> <${EX}plain> "x \u{1F984}" } WHERE {}`;
    const patched = await fetcher.webOperation('PATCH', url, { contentType: 'application/sparql-update', body, headers: { 'If-Match': etag, Accept: 'application/n-triples' } } as never);
    assert.equal(patched.status, 204);
    assert.ok((await storedContent(s, url)).includes(`<${url}#this> <${EX}plain> "x \u{1F984}" .`));
  });
});
