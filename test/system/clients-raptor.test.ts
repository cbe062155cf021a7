/**
 * Raptor's rapper and Rasqal's roqet from Debian (raptor2-utils, rasqal-utils), with curl, against
 * a running server. Neither can present a client certificate (nor accept a self-signed server
 * certificate), so curl talks to the server with the owner's certificate and they read what it
 * fetched from standard input, exactly as the README's table shows. rapper parses every format it
 * reads and re-serialises the awkward document in every format it writes (PUT back by curl with
 * If-Match, compared through the server's canonical N-Triples and in git); it reads CONSTRUCT
 * answers; roqet reads SELECT and ASK answers.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Quad } from '@rdfjs/types';
import oxigraph from 'oxigraph';
import { fileAtHead, git, tempDir } from '../helpers.js';
import { serverForFile, type TestServer } from '../http-helpers.js';
import { DCT, EX, NOTE, UNICORN_TITLE, clientSuite, contentOf, markerLine, putAwkward, runClient, runs, storedContent } from '../client-helpers.js';

const curl = runs('curl', '--version');
const SELECT = `SELECT ?s ?title ?note WHERE { GRAPH ?g { ?s <${DCT}title> ?title ; <${EX}note> ?note } }`;
const SELECT_TITLES = `SELECT ?s ?title WHERE { GRAPH ?g { ?s <${DCT}title> ?title } }`;
const ASK = `ASK { GRAPH ?g { ?s <${DCT}title> "${UNICORN_TITLE}"@de } }`;
const CONSTRUCT = `CONSTRUCT { ?s <${DCT}title> ?title ; <${EX}note> ?note } WHERE { GRAPH ?g { ?s <${DCT}title> ?title ; <${EX}note> ?note } }`;

/** Runs a bash pipeline (errors anywhere in it fail) with the given variables in its environment. */
const sh = (script: string, env: Record<string, string>) => runClient('bash', ['-c', `set -euo pipefail\n${script}`], env);

const RS = 'http://www.w3.org/2001/sw/DataAccess/tests/result-set#';

/** The rows of a result set written by roqet as Turtle (the DAWG result-set vocabulary). */
function resultRows(turtle: string): Record<string, Quad['object']>[] {
  const quads = oxigraph.parse(turtle, { format: 'text/turtle', base_iri: 'urn:x:' }) as unknown as Quad[];
  const objects = (subject: Quad['subject'] | Quad['object'], predicate: string) => quads.filter((q) => q.subject.equals(subject) && q.predicate.value === predicate).map((q) => q.object);
  return quads.filter((q) => q.predicate.value === `${RS}solution`).map((solution) => {
    const row: Record<string, Quad['object']> = {};
    for (const binding of objects(solution.object, `${RS}binding`)) row[objects(binding, `${RS}variable`)[0]!.value] = objects(binding, `${RS}value`)[0]!;
    return row;
  });
}

clientSuite('rapper (Raptor 2) with curl', curl && runs('rapper', '--version'), 'apt-get install raptor2-utils curl', () => {
  let s: TestServer;
  let repo: string;
  let cert: string;
  let readUrl: string;
  serverForFile(async (server, dir) => {
    s = server;
    repo = dir;
    cert = server.running.agents.owner.credentialsFile;
    readUrl = await putAwkward(s, 'raptor-read/');
  }, [], { tls: true }); // a real client over the wire

  it('parses the document in every format rapper reads: Turtle, N-Triples, RDF/XML, N-Quads, TriG, and text/plain as N-Triples', async () => {
    const expected = await storedContent(s, readUrl);
    for (const [accept, parser] of [['text/turtle', 'turtle'], ['application/n-triples', 'ntriples'], ['application/rdf+xml', 'rdfxml'], ['application/n-quads', 'nquads'], ['application/trig', 'trig'], ['text/plain', 'ntriples']] as const) {
      const out = await sh('curl -ksS -f -E "$CERT" -H "Accept: $ACCEPT" "$URL" | rapper -q -i "$PARSER" -o ntriples - "$URL"', { CERT: cert, ACCEPT: accept, PARSER: parser, URL: readUrl });
      assert.ok(out.includes('\\U0001F984'), `${accept}: rapper read the character outside the BMP (it writes it escaped)`);
      assert.equal(await contentOf(out, readUrl), expected, `${accept}: rapper's graph is the stored one`);
    }
  });

  it('re-serialises the document in every RDF format rapper writes and Lodestone reads, PUT back by curl with If-Match', async () => {
    const url = await putAwkward(s, 'raptor-roundtrip/');
    let expected = await storedContent(s, url);
    const work = tempDir('rapper');
    const commitsBefore = Number(git(repo, 'rev-list', '--count', 'HEAD', '--', 'graphs/raptor-roundtrip.nt').trim());
    const writers = [['turtle', 'text/turtle'], ['ntriples', 'application/n-triples'], ['rdfxml-abbrev', 'application/rdf+xml'], ['rdfxml', 'application/rdf+xml'], ['nquads', 'application/n-quads']] as const;
    for (const [serializer, type] of writers) {
      const marker = `rapper ${serializer} \u{1F984}`;
      // One GET gives the body and its ETag; a line naming the writer is added to the Turtle, which
      // rapper parses and writes in its format; curl PUTs that with If-Match and the Accept of the GET.
      const status = await sh([
        'etag=$(curl -ksS -f -E "$CERT" -H "Accept: text/turtle" -o "$WORK/doc.ttl" -w "%header{etag}" "$URL")',
        'printf "<#this> <http://example.org/ns#writtenBy> \\"%s\\" .\\n" "$MARKER" >> "$WORK/doc.ttl"',
        'rapper -q -i turtle -o "$SERIALIZER" "$WORK/doc.ttl" "$URL" > "$WORK/out"',
        'curl -ksS -E "$CERT" -X PUT -H "If-Match: $etag" -H "Accept: text/turtle" -H "Content-Type: $TYPE" --data-binary @"$WORK/out" -o /dev/null -w "%{http_code}" "$URL"',
      ].join('\n'), { CERT: cert, URL: url, WORK: work, MARKER: marker, SERIALIZER: serializer, TYPE: type });
      assert.equal(status, '200', serializer);
      expected = await contentOf(`${expected}${markerLine(url, marker)}\n`, url);
      assert.equal(await storedContent(s, url), expected, `${serializer}: what rapper wrote is what is stored`);
      assert.ok(fileAtHead(repo, 'raptor-roundtrip/')?.includes(markerLine(url, marker)), `${serializer}: in the file at HEAD`);
    }
    const commitsAfter = Number(git(repo, 'rev-list', '--count', 'HEAD', '--', 'graphs/raptor-roundtrip.nt').trim());
    assert.equal(commitsAfter - commitsBefore, writers.length, 'one commit per PUT');
  });

  it('reads CONSTRUCT answers in Turtle, N-Triples, RDF/XML, N-Quads and TriG', async () => {
    for (const [accept, parser] of [['text/turtle', 'turtle'], ['application/n-triples', 'ntriples'], ['application/rdf+xml', 'rdfxml'], ['application/n-quads', 'nquads'], ['application/trig', 'trig']] as const) {
      const out = await sh('curl -ksS -f -E "$CERT" -H "Accept: $ACCEPT" --data-urlencode "query=$QUERY" "$ENDPOINT" | rapper -q -i "$PARSER" -o ntriples - "$ENDPOINT"', { CERT: cert, ACCEPT: accept, PARSER: parser, QUERY: CONSTRUCT, ENDPOINT: `${s.base}sparql` });
      const quads = oxigraph.parse(out, { format: 'application/n-triples' }) as unknown as Quad[];
      const about = (predicate: string) => quads.filter((q) => q.subject.value === `${readUrl}#this` && q.predicate.value === predicate).map((q) => q.object.value);
      assert.deepEqual(about(`${DCT}title`), [UNICORN_TITLE], accept);
      assert.deepEqual(about(`${EX}note`), [NOTE], accept);
    }
  });

  clientSuite('roqet (Rasqal)', runs('roqet', '--version'), 'apt-get install rasqal-utils', () => {
    const results = (accept: string, format: string, query: string) =>
      sh('curl -ksS -f -E "$CERT" -H "Accept: $ACCEPT" --data-urlencode "query=$QUERY" "$ENDPOINT" | roqet -q -t /dev/stdin -R "$FORMAT" -r turtle', { CERT: cert, ACCEPT: accept, FORMAT: format, QUERY: query, ENDPOINT: `${s.base}sparql` });

    it('reads SELECT answers in SPARQL XML, TSV and CSV', async () => {
      for (const [accept, format] of [['application/sparql-results+xml', 'xml'], ['text/tab-separated-values', 'tsv']] as const) {
        const row = resultRows(await results(accept, format, SELECT)).find((r) => r.s?.value === `${readUrl}#this`);
        assert.ok(row, accept);
        assert.equal(row.title?.value, UNICORN_TITLE, accept);
        assert.equal(row.title?.termType === 'Literal' && row.title.language, 'de', accept);
        assert.equal(row.note?.value, NOTE, accept);
      }
      // roqet's CSV reader ends a value at a line break, even inside quotes: single-line values only.
      const row = resultRows(await results('text/csv', 'csv', SELECT_TITLES)).find((r) => r.s?.value === `${readUrl}#this`);
      assert.equal(row?.title?.value, UNICORN_TITLE);
    });

    it('reads an ASK answer in CSV (the _askResult column, as Jena writes it)', async () => {
      const rows = resultRows(await results('text/csv', 'csv', ASK));
      assert.deepEqual(rows.map((r) => r._askResult?.value), ['true']);
    });
  });
});
