/**
 * Ontology constraints (SPEC §2.5, §7, issue 21) over real HTTPS: a SHACL shape in an ontology
 * document of the admin dataspace makes every write of a non-conforming document 422 with the
 * validation report in the error body, and nothing committed (PUT, POST, PATCH, and an edit of a
 * file in the working tree, one made while the server was stopped too, which is logged instead); conforming writes go in; the report is
 * bounded; shapes reach the instances of subclasses.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import oxigraph from 'oxigraph';
import type { Quad } from '@rdfjs/types';
import { ns } from '../src/rdf/namespaces.js';
import { commitCount, removeTempDirs } from './helpers.js';
import { assertRdfError, header, putTurtle, startServer, turtle, type TestServer } from './http-helpers.js';

let s: TestServer;
let repo: string;
const lines: string[] = [];
before(async () => {
  s = await startServer([], undefined, (line) => lines.push(line));
  repo = s.running.runtimes[0]!.dataspace.store.dir;
  await putTurtle(s, '/admin/ontologies/', `<> a <${ns.dh}Container> .`);
  await putTurtle(s, '/admin/ontologies/books/', `
    @prefix owl: <${ns.owl}> . @prefix rdfs: <${ns.rdfs}> . @prefix sh: <${ns.sh}> . @prefix dct: <${ns.dct}> . @prefix xsd: <${ns.xsd}> .
    <#> a owl:Ontology .
    <#Novel> rdfs:subClassOf <#Book> .
    <#BookShape> a sh:NodeShape ; sh:targetClass <#Book> ;
      sh:property [ sh:path dct:title ; sh:minCount 1 ; sh:maxCount 1 ; sh:datatype xsd:string ; sh:message "a book has one title" ] .`);
});
after(async () => {
  await s.close();
  removeTempDirs();
});

const book = () => `${s.admin}ontologies/books/#`;
const parse = (body: string): Quad[] => oxigraph.parse(body, { format: 'text/turtle', base_iri: s.base }) as unknown as Quad[];

/** Asserts a 422 whose body carries a SHACL report with `results` results, one about dct:title; returns the title. */
function assertViolation(res: { status: number; headers: Record<string, string | string[] | undefined>; body: string }, results = 1): string {
  const title = assertRdfError(res, 422, { title: /does not conform to the shapes of the namespace ontology/ });
  const quads = parse(res.body);
  const report = quads.find((q) => q.predicate.value === ns.rdf + 'type' && q.object.value === ns.sh + 'ValidationReport');
  assert.ok(report, res.body);
  assert.ok(quads.some((q) => q.subject.equals(report.subject) && q.predicate.value === ns.sh + 'conforms' && q.object.value === 'false'));
  assert.equal(quads.filter((q) => q.subject.equals(report.subject) && q.predicate.value === ns.sh + 'result').length, results);
  assert.ok(quads.some((q) => q.predicate.value === ns.sh + 'resultPath' && q.object.value === ns.dct + 'title'));
  assert.ok(quads.some((q) => q.predicate.value === ns.sh + 'resultMessage' && q.object.value === 'a book has one title'));
  return title;
}

describe('SHACL shapes of the namespace ontology', () => {
  it('refuse a non-conforming PUT with the report, and take a conforming one (201)', async () => {
    const before = commitCount(repo);
    const res = await s.request('PUT', '/dune/', { headers: turtle, body: `<#this> a <${book()}Novel> .` });
    const title = assertViolation(res);
    assert.match(title, new RegExp(`<${s.base}dune/#this> <${ns.dct}title>: a book has one title`));
    assert.equal(commitCount(repo), before, 'nothing committed');
    assertRdfError(await s.request('GET', '/dune/'), 404);
    const ok = await s.request('PUT', '/dune/', { headers: turtle, body: `<#this> a <${book()}Novel> ; <${ns.dct}title> "Dune" .` });
    assert.equal(ok.status, 201, ok.body);
    assert.equal(commitCount(repo), before + 1);
  });

  it('refuse a POST that breaks a shape, and take one that does not', async () => {
    const before = commitCount(repo);
    const etag = () => s.request('HEAD', '/dune/').then((r) => String(header(r, 'etag')));
    assertViolation(await s.request('POST', '/dune/', { headers: { ...turtle, 'If-Match': await etag() }, body: `<#this> <${ns.dct}title> "Dune Messiah" .` }));
    assert.equal(commitCount(repo), before);
    const ok = await s.request('POST', '/dune/', { headers: { ...turtle, 'If-Match': await etag() }, body: `<#this> <${ns.dct}date> "1965" .` });
    assert.equal(ok.status, 204, ok.body);
    assert.equal(commitCount(repo), before + 1);
  });

  it('refuse a PATCH that breaks a shape, and take one that does not', async () => {
    const before = commitCount(repo);
    const etag = () => s.request('HEAD', '/dune/').then((r) => String(header(r, 'etag')));
    const update = { 'Content-Type': 'application/sparql-update' };
    assertViolation(await s.request('PATCH', '/dune/', { headers: { ...update, 'If-Match': await etag() }, body: `DELETE WHERE { <#this> <${ns.dct}title> ?t }` }));
    assert.equal(commitCount(repo), before);
    const ok = await s.request('PATCH', '/dune/', { headers: { ...update, 'If-Match': await etag() }, body: `DELETE { <#this> <${ns.dct}title> ?t } INSERT { <#this> <${ns.dct}title> "Dune (1965)" } WHERE { <#this> <${ns.dct}title> ?t }` });
    assert.equal(ok.status, 204, ok.body);
    assert.equal(commitCount(repo), before + 1);
  });

  it('leave an edit of the working tree that breaks a shape uncommitted, with a log line, and commit one that does not', async () => {
    const runtime = s.running.runtimes[0]!;
    const path = 'graphs/dune.nt';
    const file = join(repo, path);
    await runtime.dataspace.settled();
    const before = commitCount(repo);
    const subject = `<${s.base}dune/#this>`;
    writeFileSync(file, `${subject} <${ns.rdf}type> <${book()}Novel> .\n`);
    await runtime.dataspace.workingTree.fileChanged(path);
    assert.equal(commitCount(repo), before, 'not committed');
    assert.ok(lines.some((line) => line.includes(file) && line.includes('not committed') && line.includes('a book has one title')), lines.join('\n'));
    writeFileSync(file, `${subject} <${ns.rdf}type> <${book()}Novel> .\n${subject} <${ns.dct}title> "Dune, edited" .\n`);
    await runtime.dataspace.workingTree.fileChanged(path);
    assert.equal(commitCount(repo), before + 1, 'committed');
    assert.match((await s.request('GET', '/dune/', { headers: { Accept: 'application/n-triples' } })).body, /Dune, edited/);
  });

  it('leave an edit made while the server was stopped that breaks a shape uncommitted at the next start, with a log line', async () => {
    const { data, port } = s;
    await s.close();
    const file = join(repo, 'graphs/stopped.nt');
    writeFileSync(file, `<${s.base}stopped/#this> <${ns.rdf}type> <${book()}Novel> .\n`);
    const before = commitCount(repo);
    s = await startServer(['--port', String(port)], data, (line) => lines.push(line)); // the same base
    assert.equal(commitCount(repo), before, 'not committed');
    assertRdfError(await s.request('GET', '/stopped/'), 404);
    assert.ok(lines.some((line) => line.includes(file) && line.includes('not committed') && line.includes('a book has one title')), lines.join('\n'));
  });

  it('bound the report: the first 20 results are described, all are counted', async () => {
    const many = Array.from({ length: 30 }, (_, i) => `<#n${i}> a <${book()}Book> .`).join('\n');
    const res = await s.request('PUT', '/many/', { headers: turtle, body: many });
    const title = assertViolation(res, 20);
    assert.match(title, /\(30 violations\)/);
    assert.match(title, /and 27 more in the report/);
    assert.ok(res.body.length < 20_000, `${res.body.length} bytes`);
  });

  it('stop constraining once the shape is gone', async () => {
    const tag = String(header(await s.request('HEAD', '/admin/ontologies/books/'), 'etag'));
    assert.equal((await s.request('DELETE', '/admin/ontologies/books/', { headers: { 'If-Match': tag } })).status, 204);
    const res = await s.request('PUT', '/untitled/', { headers: turtle, body: `<#this> a <${book()}Book> .` });
    assert.equal(res.status, 201, res.body);
  });
});
