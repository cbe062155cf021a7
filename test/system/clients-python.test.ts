/**
 * Python rdflib with requests, and SPARQLWrapper, from Debian (python3-rdflib, python3-requests,
 * python3-sparqlwrapper), against a running server with the owner's client certificate: every
 * format read and parsed, the awkward document round-tripped in every format rdflib writes (PUT
 * with If-Match, compared with rdflib.compare.isomorphic and in git), and SELECT, ASK and CONSTRUCT
 * in every results format. The clients are the scripts in test/clients/.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import { fileAtHead, git } from '../helpers.js';
import { serverForFile, type TestServer } from '../http-helpers.js';
import { NOTE, PYTHON, UNICORN_TITLE, clientSuite, contentOf, markerLine, putAwkward, runClient, runs, storedContent } from '../client-helpers.js';

const script = (name: string) => fileURLToPath(new URL(`../clients/${name}`, import.meta.url));
const installed = runs(PYTHON, '-c', 'import rdflib, requests, SPARQLWrapper');

interface Read { accept: string; contentType: string; encoding: string; triples: number; title: string; note: string; isomorphic: boolean }
interface RoundTrip { accept: string; put: number; putBody: string; isomorphic: boolean; marker: string; stale: number; staleTitle: string }
interface Term { value: string; lang: string | null }
interface Queries {
  select: { format: string; method: string; contentType: string; rows: Record<string, Term>[] }[];
  ask: { format: string; method: string; contentType: string; answer: boolean | { header: string; value: string } }[];
  construct: { format: string; contentType: string; triples: number; titles: string[]; notes: string[] }[];
}

const SERVED = ['application/n-triples', 'text/turtle', 'application/rdf+xml', 'application/ld+json', 'application/ld+json;profile="http://www.w3.org/ns/json-ld#compacted"', 'application/n-quads', 'application/trig', 'text/plain'];

clientSuite('Python rdflib 6, requests and SPARQLWrapper', installed, 'apt-get install python3-rdflib python3-requests python3-sparqlwrapper (the tests run /usr/bin/python3)', () => {
  let s: TestServer;
  let repo: string;
  let cert: string;
  let readUrl: string;
  serverForFile(async (server, dir) => {
    s = server;
    repo = dir;
    cert = server.running.agents.owner.credentialsFile;
    readUrl = await putAwkward(s, 'python-read/');
  }, [], { tls: true }); // a real client over the wire
  const python = async <T>(name: string, ...args: string[]): Promise<T> => JSON.parse(await runClient(PYTHON, [script(name), ...args])) as T;

  it('reads the document in every format Lodestone serves, decoded as the charset the server names, each graph isomorphic to the N-Triples one', async () => {
    const reads = await python<Read[]>('rdflib_requests.py', 'read', readUrl, cert);
    assert.deepEqual(reads.map((r) => r.accept), SERVED);
    for (const r of reads) {
      assert.match(r.contentType, /; charset=utf-8$/, r.accept);
      assert.equal(r.encoding, 'utf-8', `requests decodes ${r.accept} as UTF-8`);
      assert.equal(r.title, UNICORN_TITLE, r.accept);
      assert.equal(r.note, NOTE, r.accept);
      assert.ok(r.isomorphic, `${r.accept}: isomorphic to the N-Triples graph`);
      assert.equal(r.triples, reads[0]!.triples, r.accept);
    }
  });

  it('round-trips the document in every format rdflib writes: PUT with If-Match and the Accept of the read, stored isomorphic, a stale ETag refused', async () => {
    const url = await putAwkward(s, 'python-roundtrip/');
    const original = await storedContent(s, url);
    const commitsBefore = Number(git(repo, 'rev-list', '--count', 'HEAD', '--', 'graphs/python-roundtrip.nt').trim());
    const trips = await python<RoundTrip[]>('rdflib_requests.py', 'roundtrip', url, cert);
    assert.deepEqual(trips.map((t) => t.accept), SERVED.filter((type) => type !== 'text/plain'));
    for (const t of trips) {
      assert.equal(t.put, 200, `${t.accept}: ${t.putBody}`);
      assert.ok(t.isomorphic, `${t.accept}: what rdflib sent is what is stored`);
      assert.equal(t.stale, 412, t.accept);
      assert.equal(t.staleTitle, 'the document has changed since the ETag in If-Match was read', t.accept);
    }
    const last = trips.at(-1)!.marker;
    assert.equal(await storedContent(s, url), await contentOf(`${original}${markerLine(url, last)}\n`, url), 'the stored graph is the original plus the last marker');
    assert.ok(fileAtHead(repo, 'python-roundtrip/')?.includes(markerLine(url, last)), 'the marker is in the file at HEAD');
    const commitsAfter = Number(git(repo, 'rev-list', '--count', 'HEAD', '--', 'graphs/python-roundtrip.nt').trim());
    assert.equal(commitsAfter - commitsBefore, trips.length, 'one commit per PUT');
  });

  it('PATCHes a DELETE/INSERT … WHERE update with If-Match', async () => {
    const url = await putAwkward(s, 'python-patch/');
    const patched = await python<{ status: number; etag: string | null; notes: string[] }>('rdflib_requests.py', 'patch', url, cert);
    assert.equal(patched.status, 204);
    assert.match(patched.etag ?? '', /^"[^"]+"$/, 'the 204 carries the new ETag');
    assert.deepEqual(patched.notes, ['patched by requests \u{1F984}']);
  });

  it('runs SELECT, ASK and CONSTRUCT with SPARQLWrapper in every results format, the character outside the BMP intact', async () => {
    const out = await python<Queries>('sparqlwrapper_queries.py', `${s.base}sparql`, cert, readUrl);
    assert.deepEqual(out.select.map((r) => `${r.format} ${r.method}`), ['json GET', 'json POST', 'xml GET', 'xml POST', 'csv GET', 'csv POST', 'tsv GET', 'tsv POST']);
    for (const r of out.select) {
      assert.match(r.contentType, /; charset=utf-8$/);
      assert.equal(r.rows.length, 1, `${r.format} ${r.method}: one row, for the document`);
      const row = r.rows[0]!;
      assert.equal(row.s?.value, `${readUrl}#this`);
      assert.equal(row.title!.value, UNICORN_TITLE);
      assert.equal(row.title!.lang, r.format === 'csv' ? null : 'de', 'CSV has no language tags');
      assert.equal(row.note!.value, NOTE);
    }
    for (const r of out.ask) {
      if (r.format === 'json' || r.format === 'xml') assert.equal(r.answer, true, `${r.format} ${r.method}`);
      else assert.deepEqual(r.answer, { header: r.format === 'csv' ? '_askResult' : '?_askResult', value: 'true' });
    }
    assert.deepEqual(out.construct.map((c) => c.format), ['turtle', 'n-triples', 'rdf/xml', 'json-ld', 'n-quads', 'trig']);
    for (const c of out.construct) {
      assert.deepEqual(c.titles, [UNICORN_TITLE], c.format);
      assert.deepEqual(c.notes, [NOTE], c.format);
      assert.equal(c.triples, 2, c.format);
    }
  });
});
