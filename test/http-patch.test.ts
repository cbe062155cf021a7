/**
 * PATCH (SPEC §4.2, §4.6) over real HTTPS: the allowed update forms answer 204 with a new ETag
 * and the change is in GET and in git; every other form is a 422 that names the rule and leaves
 * git untouched; PATCH sees the request document's graph and nothing else.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { commitCount, fileAtHead, git, headOf } from './helpers.js';
import { assertRdfError, turtle, type Response, type TestServer, serverForFile } from './http-helpers.js';

const SPARQL_UPDATE = { 'Content-Type': 'application/sparql-update' };
const DCT = 'http://purl.org/dc/terms/';
const EX = 'http://example.org/ns#';
const PREFIXES = `PREFIX dct: <${DCT}>\nPREFIX ex: <${EX}>\n`;

let s: TestServer;
let dir: string;

serverForFile(async (server, repo) => {
  s = server;
  dir = repo;
});

/** Creates `path` with the Turtle `body` and returns its ETag (as Turtle, the default). */
async function create(path: string, body: string): Promise<string> {
  const res = await s.request('PUT', path, { headers: turtle, body });
  assert.equal(res.status, 201, res.body);
  return String(res.headers.etag);
}

async function current(path: string): Promise<{ etag: string; ntriples: string }> {
  const res = await s.request('GET', path, { headers: { Accept: 'application/n-triples' } });
  assert.equal(res.status, 200, res.body);
  const etag = await s.request('HEAD', path);
  return { etag: String(etag.headers.etag), ntriples: res.body };
}

function patch(path: string, update: string, etag?: string, headers: Record<string, string> = SPARQL_UPDATE): Promise<Response> {
  return s.request('PATCH', path, { headers: { ...headers, ...(etag ? { 'If-Match': etag } : {}) }, body: update });
}

const seed = `@prefix dct: <${DCT}> . @prefix ex: <${EX}> .
<#this> dct:title "Old" ; ex:n 1 ; ex:tag "a", "b" .
<#other> ex:tag "c" .`;

describe('PATCH: the allowed forms (SPEC §4.2.2)', () => {
  /** Runs one allowed PATCH and checks the response, GET, git and the commit; returns the new file. */
  async function allowed(path: string, update: string): Promise<string> {
    const etag = await create(path, seed);
    const before = headOf(dir);
    const res = await patch(path, PREFIXES + update, etag);
    assert.equal(res.status, 204, res.body);
    assert.equal(res.body, '');
    const tag = String(res.headers.etag);
    assert.ok(res.headers.etag && tag !== etag, 'a new ETag');
    assert.equal((await current(path)).etag, tag, 'the ETag of the 204 is the one GET gives now');
    assert.equal(git(dir, 'rev-parse', 'HEAD~1').trim(), before, 'exactly one new commit');
    assert.equal(git(dir, 'log', '-1', '--format=%s').trim(), `PATCH ${s.base}${path}`);
    const file = fileAtHead(dir, path)!;
    assert.equal((await current(path)).ntriples, file, 'GET as N-Triples is the file in git');
    return file;
  }

  it('DELETE { … } INSERT { … } WHERE { … }', async () => {
    const doc = `${s.base}p-delete-insert/`;
    const file = await allowed('p-delete-insert/', 'DELETE { <#this> dct:title ?t } INSERT { <#this> dct:title "New" } WHERE { <#this> dct:title ?t }');
    assert.ok(file.includes(`<${doc}#this> <${DCT}title> "New" .\n`), file);
    assert.ok(!file.includes('"Old"'), file);
    assert.ok(file.includes(`<${doc}#this> <${EX}n> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .\n`), 'other triples are kept');
  });

  it('INSERT { … } WHERE { … }', async () => {
    const doc = `${s.base}p-insert-where/`;
    const file = await allowed('p-insert-where/', 'INSERT { ?s ex:copy ?t } WHERE { ?s ex:tag ?t }');
    for (const [s1, t] of [['this', 'a'], ['this', 'b'], ['other', 'c']]) assert.ok(file.includes(`<${doc}#${s1}> <${EX}copy> "${t}" .\n`), file);
    assert.ok(file.includes('"Old"'));
  });

  it('DELETE { … } WHERE { … }', async () => {
    const file = await allowed('p-delete-where-clause/', 'DELETE { <#this> ex:tag ?x } WHERE { <#this> ex:tag ?x }');
    assert.ok(!file.includes('"a"') && !file.includes('"b"'), file);
    assert.ok(file.includes(`<${s.base}p-delete-where-clause/#other> <${EX}tag> "c" .\n`), 'only what the WHERE matched is deleted');
  });

  it('DELETE WHERE { … } (the shorthand)', async () => {
    const file = await allowed('p-delete-where/', 'DELETE WHERE { <#this> ex:n ?n }');
    assert.ok(!file.includes(`<${EX}n>`), file);
    assert.ok(file.includes('"Old"'));
  });

  it('keeps the server metadata even when the update deletes it', async () => {
    const path = 'p-metadata/';
    const doc = s.base + path;
    const etag = await create(path, seed);
    const created = /<[^>]+> <http:\/\/purl.org\/dc\/terms\/created> ("[^"]+"\^\^<[^>]+>) \./.exec(fileAtHead(dir, path)!)![1];
    const res = await patch(path, `DELETE WHERE { <${doc}> ?p ?o }`, etag);
    assert.equal(res.status, 204, res.body);
    const file = fileAtHead(dir, path)!;
    assert.ok(file.includes(`<${doc}> <${DCT}created> ${created} .\n`), file);
    assert.ok(file.includes(`<${doc}> <http://rdfs.org/sioc/ns#has_container> <${s.base}> .\n`), file);
  });
});

describe('PATCH: refused forms answer 422 naming the rule, and change nothing (SPEC §4.2)', () => {
  const refused: Array<[string, string, RegExp]> = [
    ['INSERT DATA', 'INSERT DATA { <#this> ex:a 1 }', /INSERT DATA is not allowed/],
    ['DELETE DATA', 'DELETE DATA { <#this> dct:title "Old" }', /DELETE DATA is not allowed/],
    ['LOAD', 'LOAD <http://example.org/data.ttl>', /LOAD is not allowed/],
    ['CLEAR GRAPH', 'CLEAR GRAPH <http://example.org/g>', /CLEAR is not allowed/],
    ['CLEAR DEFAULT', 'CLEAR DEFAULT', /CLEAR is not allowed/],
    ['DROP', 'DROP ALL', /DROP is not allowed/],
    ['two operations separated by ;', 'INSERT { <#this> ex:a 1 } WHERE {} ;\nDELETE WHERE { <#this> ex:n ?n }', /2 operations; exactly one/],
    ['GRAPH in the WHERE clause', 'DELETE { ?s ?p ?o } WHERE { GRAPH <http://example.org/g> { ?s ?p ?o } }', /GRAPH is not allowed/],
    ['GRAPH in the INSERT template', 'INSERT { GRAPH <http://example.org/g> { <#this> ex:a 1 } } WHERE {}', /GRAPH is not allowed/],
    ['GRAPH in the DELETE template', 'DELETE { GRAPH ?g { ?s ?p ?o } } WHERE { ?s ?p ?o }', /GRAPH is not allowed/],
    ['GRAPH in DELETE WHERE', 'DELETE WHERE { GRAPH ?g { ?s ?p ?o } }', /GRAPH is not allowed/],
    ['GRAPH nested in OPTIONAL', 'DELETE { <#this> ex:n ?y } WHERE { <#this> ex:n ?y OPTIONAL { GRAPH ?g { ?x ?p ?o } } }', /GRAPH is not allowed/],
    ['GRAPH in a subquery', 'DELETE { <#this> ex:n ?x } WHERE { { SELECT ?x WHERE { GRAPH ?g { ?x ?p ?o } } } }', /GRAPH is not allowed/],
    ['GRAPH in FILTER EXISTS', 'DELETE { <#this> ex:n ?y } WHERE { <#this> ex:n ?y FILTER EXISTS { GRAPH ?g { ?x ?p ?o } } }', /GRAPH is not allowed/],
    ['WITH <g>', 'WITH <http://example.org/g> DELETE { ?s ex:n ?o } INSERT { ?s ex:m ?o } WHERE { ?s ex:n ?o }', /WITH and USING are not allowed/],
    ['USING <g>', 'DELETE { ?s ex:n ?o } USING <http://example.org/g> WHERE { ?s ex:n ?o }', /WITH and USING are not allowed/],
    ['USING NAMED <g>', 'DELETE { ?s ex:n ?o } USING NAMED <http://example.org/g> WHERE { ?s ex:n ?o }', /WITH and USING are not allowed/],
    ['SERVICE', 'INSERT { <#this> ex:a ?o } WHERE { SERVICE <http://127.0.0.1:1/sparql> { ?s ?p ?o } }', /SERVICE is not allowed/],
    ['a SELECT query', 'SELECT * WHERE { ?s ?p ?o }', /is a query; PATCH takes a SPARQL update/],
    ['a syntactically broken update', 'DELETE { <#this> ex:n ?x WHERE { <#this> ex:n ?x }', /not a SPARQL update/],
    ['an empty body', '', /0 operations/],
  ];

  let etag: string;
  let file: string;
  before(async () => {
    etag = await create('p-refused/', seed);
    file = fileAtHead(dir, 'p-refused/')!;
  });

  for (const [name, update, rule] of refused) {
    it(`${name} → 422`, async () => {
      const headBefore = headOf(dir);
      const count = commitCount(dir);
      const res = await patch('p-refused/', update === '' ? '' : PREFIXES + update, etag);
      assertRdfError(res, 422, { title: rule });
      assert.equal(headOf(dir), headBefore, 'HEAD did not move');
      assert.equal(commitCount(dir), count);
      assert.equal(fileAtHead(dir, 'p-refused/'), file, 'the document is unchanged');
      assert.equal((await current('p-refused/')).etag, etag, 'the ETag is unchanged');
    });
  }
});

describe('PATCH: status codes around the update', () => {
  it('PATCH of a missing document is 404 and creates nothing', async () => {
    const before = headOf(dir);
    assertRdfError(await patch('p-missing/', `${PREFIXES}INSERT { <#this> ex:a 1 } WHERE {}`), 404);
    assertRdfError(await patch('p-missing/', `${PREFIXES}INSERT { <#this> ex:a 1 } WHERE {}`, '"whatever"'), 404);
    assert.equal(headOf(dir), before);
    assert.equal(fileAtHead(dir, 'p-missing/'), undefined);
  });

  it('PATCH with Content-Type text/turtle (or none) is 415, and nothing changes', async () => {
    const etag = await create('p-media-type/', seed);
    const before = headOf(dir);
    assertRdfError(await patch('p-media-type/', '<#this> <http://example.org/ns#a> 1 .', etag, turtle), 415, { title: /application\/sparql-update/ });
    assertRdfError(await s.request('PATCH', 'p-media-type/', { headers: { 'If-Match': etag }, body: `${PREFIXES}INSERT { <#this> ex:a 1 } WHERE {}` }), 415);
    assert.equal(headOf(dir), before);
  });

  it('PATCH of an existing document without a precondition is 428; with a stale ETag 412; nothing changes', async () => {
    const etag = await create('p-precondition/', seed);
    const update = `${PREFIXES}INSERT { <#this> ex:a 1 } WHERE {}`;
    const before = headOf(dir);
    const file = fileAtHead(dir, 'p-precondition/');
    const required = await patch('p-precondition/', update);
    assertRdfError(required, 428);
    assertRdfError(await s.request('PATCH', 'p-precondition/', { headers: { ...SPARQL_UPDATE, 'If-Match': '' }, body: update }), 428);
    assertRdfError(await patch('p-precondition/', update, '"stale"'), 412);
    const failed = await patch('p-precondition/', update, `W/${etag}`);
    assertRdfError(failed, 412);
    assert.equal(failed.headers.etag, etag, 'the 412 carries the current ETag');
    assert.equal(headOf(dir), before, 'HEAD did not move');
    assert.equal(fileAtHead(dir, 'p-precondition/'), file);
    // and with the right one it goes through
    assert.equal((await patch('p-precondition/', update, etag)).status, 204);
  });

  it('the ETag quoted must be that of the representation the Accept of the PATCH selects (SPEC §4.6.6)', async () => {
    await create('p-accept/', seed);
    const xmlTag = String((await s.request('HEAD', 'p-accept/', { headers: { Accept: 'application/rdf+xml' } })).headers.etag);
    const before = headOf(dir);
    const update = `${PREFIXES}INSERT { <#this> ex:a 1 } WHERE {}`;
    assertRdfError(await patch('p-accept/', update, xmlTag), 412);
    assert.equal(headOf(dir), before);
    const res = await s.request('PATCH', 'p-accept/', { headers: { ...SPARQL_UPDATE, Accept: 'application/rdf+xml', 'If-Match': xmlTag }, body: update });
    assert.equal(res.status, 204, res.body);
    assert.equal(res.headers.etag, (await s.request('HEAD', 'p-accept/', { headers: { Accept: 'application/rdf+xml' } })).headers.etag);
  });

  it('If-None-Match: * on an existing document is 412', async () => {
    await create('p-none-match/', seed);
    const before = headOf(dir);
    assertRdfError(await s.request('PATCH', 'p-none-match/', { headers: { ...SPARQL_UPDATE, 'If-None-Match': '*' }, body: `${PREFIXES}INSERT { <#this> ex:a 1 } WHERE {}` }), 412);
    assert.equal(headOf(dir), before);
  });

  it('anonymous PATCH is 403 and changes nothing', async () => {
    const etag = await create('p-anonymous/', seed);
    const before = headOf(dir);
    assertRdfError(await s.request('PATCH', 'p-anonymous/', { as: 'anonymous', headers: { ...SPARQL_UPDATE, 'If-Match': etag }, body: `${PREFIXES}INSERT { <#this> ex:a 1 } WHERE {}` }), 403);
    assert.equal(headOf(dir), before);
  });
});

describe('PATCH that changes no triple', () => {
  it('leaves the document as it was: 204 with the ETag sent, no commit, not even a new dct:modified', async () => {
    const etag = await create('p-same/', seed);
    const file = fileAtHead(dir, 'p-same/');
    const head = headOf(dir);
    for (const update of [`DELETE { <#this> ex:n ?n } WHERE { <#this> ex:n ?n FILTER(?n = 7) }`, `INSERT { <#this> ex:tag "a" } WHERE {}`, `DELETE WHERE { <#this> ex:missing ?x }`]) {
      const res = await patch('p-same/', PREFIXES + update, etag);
      assert.equal(res.status, 204, res.body);
      assert.equal(res.headers.etag, etag, `${update}: the ETag sent says nothing changed`);
    }
    assert.equal(headOf(dir), head, 'no commit');
    assert.equal(fileAtHead(dir, 'p-same/'), file);
    const changed = await patch('p-same/', `${PREFIXES}INSERT { <#this> ex:tag "d" } WHERE {}`, etag);
    assert.notEqual(changed.headers.etag, etag, 'a change is a new version');
    assert.notEqual(headOf(dir), head);
  });
});

describe('PATCH sees the request document’s graph only (SPEC §4.2.5)', () => {
  it('a WHERE that matches triples of another document matches nothing, and the other document is untouched', async () => {
    await create('p-secret/', `<#this> <${EX}secret> "s3cr3t" ; <${EX}tag> "shared" .`);
    const etag = await create('p-scoped/', `<#this> <${EX}tag> "mine" .`);
    const secretBlob = git(dir, 'rev-parse', 'HEAD:graphs/p-secret.nt').trim();
    const res = await patch('p-scoped/', `${PREFIXES}INSERT { <#this> ex:copied ?v } WHERE { ?s ex:secret ?v }`, etag);
    assert.equal(res.status, 204, res.body);
    let file = fileAtHead(dir, 'p-scoped/')!;
    assert.ok(!file.includes('s3cr3t') && !file.includes(`<${EX}copied>`), file);

    const res2 = await patch('p-scoped/', `${PREFIXES}DELETE WHERE { ?s ex:tag ?t }`, String(res.headers.etag));
    assert.equal(res2.status, 204, res2.body);
    file = fileAtHead(dir, 'p-scoped/')!;
    assert.ok(!file.includes('"mine"'), 'the request document’s own triple is deleted');
    assert.equal(git(dir, 'rev-parse', 'HEAD:graphs/p-secret.nt').trim(), secretBlob, 'the other document is byte-identical');
    assert.ok(fileAtHead(dir, 'p-secret/')!.includes('"shared"'));

    // the other document's URL as the subject does not reach into it either
    const res3 = await patch('p-scoped/', `${PREFIXES}DELETE WHERE { <${s.base}p-secret/#this> ?p ?o }`, String(res2.headers.etag));
    assert.equal(res3.status, 204, res3.body);
    assert.equal(git(dir, 'rev-parse', 'HEAD:graphs/p-secret.nt').trim(), secretBlob);
  });

  it('relative IRIs in the update resolve against the document URL', async () => {
    const path = 'p-relative/';
    const etag = await create(path, seed);
    const res = await patch(path, `${PREFIXES}INSERT { <#new> ex:link <child/> } WHERE {}`, etag);
    assert.equal(res.status, 204, res.body);
    assert.ok(fileAtHead(dir, path)!.includes(`<${s.base}${path}#new> <${EX}link> <${s.base}${path}child/> .\n`), fileAtHead(dir, path));
  });
});

describe('PATCH keeps lexical forms (issue 27)', () => {
  it('copies a value and writes one in the form they were written in, not a store\'s canonical form', async () => {
    const XSD = 'http://www.w3.org/2001/XMLSchema#';
    const etag = await create('lexical/', `@prefix ex: <${EX}> . @prefix xsd: <${XSD}> .\n<#this> ex:n "042"^^xsd:integer ; ex:d "1.50"^^xsd:decimal ; ex:b "1"^^xsd:boolean .`);
    const copy = `${PREFIXES}PREFIX xsd: <${XSD}>\nINSERT { ?s ex:n2 ?n ; ex:d2 ?d ; ex:b2 ?b ; ex:w "007"^^xsd:integer ; ex:sum ?sum } WHERE { ?s ex:n ?n ; ex:d ?d ; ex:b ?b BIND (?n + 1 AS ?sum) }`;
    const res = await patch('lexical/', copy, etag);
    assert.equal(res.status, 204, res.body);
    const { ntriples } = await current('lexical/');
    for (const line of [`<${EX}n2> "042"^^<${XSD}integer>`, `<${EX}d2> "1.50"^^<${XSD}decimal>`, `<${EX}b2> "1"^^<${XSD}boolean>`, `<${EX}w> "007"^^<${XSD}integer>`, `<${EX}sum> "43"^^<${XSD}integer>`, `<${EX}n> "042"^^<${XSD}integer>`]) {
      assert.ok(ntriples.includes(line), `${line} in\n${ntriples}`);
    }
  });
});
