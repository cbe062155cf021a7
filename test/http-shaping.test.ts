/**
 * Who shapes a dataspace (issue 25, items 2 and 3; DESIGN.md "Who shapes a dataspace"), tried by a
 * stranger who signed up a minute ago, over real HTTPS with the certificate its signup gave it:
 * through its signup name, its own profile and its public key it declares ontologies with SHACL
 * shapes that refuse every write, labels of terms, imports (an origin on loopback that never
 * answers, a vocabulary) and `dh:Item rdfs:subClassOf` the classes of the owners' rules; it tries
 * to write under admin/ontologies/ and under its profile. None of it reaches `ns`, the shapes, the
 * pages' labels or access control, and none of its imports is fetched. Then the owners' own
 * ontologies: the server's types never become subclasses; a shape just written applies to the next
 * write; an import on its way holds no write (the write is checked against what has arrived) and
 * applies once it has arrived; hanging imports hold no GET or write, and the whole closure has one
 * deadline; many large imports are kept within the bound, and what is left out is logged.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { IMPORT_LIMITS } from '../src/ontology/imports.js';
import { ns } from '../src/rdf/namespaces.js';
import { parseRdf } from '../src/rdf/ntriples.js';
import { commitCount, removeTempDirs, waitFor } from './helpers.js';
import { assertRdfError, header, putTurtle, signUp, startServer, turtle, type Response, type Stranger, type TestServer } from './http-helpers.js';
import { Origin } from './origin-server.js';

const EX = 'http://example.org/shaping#';
const UPDATE = { 'Content-Type': 'application/sparql-update' };
const NT = { Accept: 'application/n-triples' };
/** Only a stall reaches this (a liveness bound, not a benchmark). */
const HANG_MS = 30_000;
const PREFIXES = `PREFIX owl: <${ns.owl}> PREFIX rdfs: <${ns.rdfs}> PREFIX sh: <${ns.sh}> PREFIX dct: <${ns.dct}> PREFIX dh: <${ns.dh}> PREFIX def: <${ns.def}> PREFIX ex: <${EX}>\n`;
const TURTLE_PREFIXES = PREFIXES.replace(/PREFIX (\S+) (<[^>]*>)/g, '@prefix $1 $2 .');
/** The imports' deadline here: shorter than the server's 10 s, so the file runs quickly. */
const DEADLINE_MS = 5_000;

let s: TestServer;
let origin: Origin;
let adminRepo: string;
const logs: string[] = [];
/** Responses the origin holds (never answered), and when the first of them was closed by the server. */
const held = new Map<string, ServerResponse>();
let firstClosed = 0;

before(async () => {
  origin = await new Origin().listen();
  for (let i = 0; i < 40; i++) {
    origin.on(`/hang/${i}`, (request, res) => {
      held.set(`${request.path}#${held.size}`, res);
      res.on('close', () => (firstClosed ||= Date.now()));
    });
  }
  origin.on('/stranger-vocab', { headers: { 'Content-Type': 'text/turtle' }, body: `<${EX}stranger> <${ns.rdfs}label> "fetched" .` });
  s = await startServer(['--allow-internal-urls'], undefined, (line) => logs.push(line), { importLimits: { deadlineMs: DEADLINE_MS } });
  adminRepo = s.running.runtimes[1]!.dataspace.store.dir;
  await s.request('PUT', 'private/', { headers: turtle, body: `<#this> <${EX}colour> "red" .` });
  // the owners' class rules: anyone reads ex:Published documents, any agent with a WebID reads and writes ex:Shared ones
  const rule = (slug: string, who: string, modes: string, what: string) =>
    putTurtle(s, `/admin/acl/authorizations/${slug}/`, `<#this> a <${ns.acl}Authorization> ; <${ns.acl}agentClass> <${who}> ; <${ns.acl}mode> ${modes} ; <${ns.acl}accessToClass> <${what}> .`);
  await rule('published', ns.foaf + 'Agent', `<${ns.acl}Read>`, EX + 'Published');
  await rule('shared', ns.acl + 'AuthenticatedAgent', `<${ns.acl}Read>, <${ns.acl}Write>`, EX + 'Shared');
  await s.request('PUT', 'published/', { headers: turtle, body: `<> a <${EX}Published> .` });
});
after(async () => {
  for (const res of held.values()) res.destroy();
  await origin?.close();
  await s?.close();
  removeTempDirs();
});

/** Signs up anonymously with `name` (http-helpers.ts), as anyone on the web can. */
const signUpAs = (name: string): Promise<Stranger> => signUp(s, name);

/** `work`, or a failure naming `what` once it has taken HANG_MS (a stall). */
function within<T>(what: string, work: Promise<T>, ms = HANG_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  return Promise.race([work, stalled]).finally(() => clearTimeout(timer));
}

/** The namespace ontology as anyone reads it (N-Triples). */
async function namespace(): Promise<string> {
  const res = await within('GET ns', s.request('GET', '/ns', { headers: NT, as: 'anonymous' }));
  assert.equal(res.status, 200, res.body);
  return res.body;
}

/** The document of the stranger's public key (its profile's cert:key). */
async function publicKeyOf(stranger: Stranger): Promise<string> {
  const profile = parseRdf((await s.request('GET', stranger.profile, { as: { pem: stranger.pem }, headers: NT })).body);
  return profile.find((q) => q.subject.value === stranger.webId && q.predicate.value === ns.cert + 'key')!.object.value.replace(/#.*$/, '');
}

/** A PATCH (SPARQL update) of an existing document by `as`, quoting the ETag it reads first. */
async function patch(as: { pem: string }, document: string, update: string): Promise<Response> {
  const head = await s.request('HEAD', document, { as });
  return s.request('PATCH', document, { as, headers: { ...UPDATE, 'If-Match': String(header(head, 'etag')) }, body: `${PREFIXES}${update}` });
}

let created = 0;
/** A PUT of a new document as the owner; its answer. */
function ownerPut(body = `<#this> <${ns.dct}title> "a document" .`): Promise<Response> {
  return s.request('PUT', `owner-${++created}/`, { headers: turtle, body });
}

/** Everything the stranger's ontologies say: shapes that refuse every document, labels, imports, subclasses. */
const hostileOntology = (imports: string[]) => `
  <#ontology> a owl:Ontology ; rdfs:label "The stranger's ontology" ${imports.map((url) => `; owl:imports <${url}>`).join(' ')} .
  <#refuseAll> a sh:NodeShape ; sh:targetSubjectsOf dct:modified ;
    sh:property [ sh:path dct:modified ; sh:maxCount 0 ; sh:message "refused by the stranger" ] .
  <#refuseItems> a sh:NodeShape ; sh:targetClass dh:Item ; sh:property [ sh:path ex:strangerSays ; sh:minCount 1 ] .
  ex:colour rdfs:label "Stranger's colour" .`;

/** The class hierarchy it would have: every document an instance of the classes of the owners' rules. */
const hostileHierarchy = `
  dh:Item rdfs:subClassOf ex:Published, ex:Shared .
  dh:Container rdfs:subClassOf ex:Published, ex:Shared .
  def:Root rdfs:subClassOf ex:Published, ex:Shared .
  ex:Nothing rdfs:subClassOf ex:Published .`;

describe('a stranger who signed up', () => {
  it('cannot make its signup name an ontology declaration', async () => {
    const stranger = await signUpAs(`x <${ns.rdf}type> <${ns.owl}Ontology> .`);
    assert.equal((await ownerPut()).status, 201);
    const ontology = await namespace();
    assert.ok(!ontology.includes(stranger.webId), 'nothing of its profile is in ns');
    assert.ok(!ontology.includes(ns.owl + 'Ontology'), 'ns declares no ontology');
  });

  it('cannot write under admin/ontologies/', async () => {
    const stranger = await signUpAs('Olive');
    const before = commitCount(adminRepo);
    const body = `<#> a <${ns.owl}Ontology> .`;
    assertRdfError(await s.request('PUT', '/admin/ontologies/stranger/', { as: { pem: stranger.pem }, headers: turtle, body }), 403);
    assertRdfError(await s.request('POST', '/admin/ontologies/', { as: { pem: stranger.pem }, headers: turtle, body }), 403);
    const container = await s.request('GET', '/admin/ontologies/', { as: { pem: stranger.pem } });
    assertRdfError(await s.request('PUT', '/admin/ontologies/', { as: { pem: stranger.pem }, headers: { ...turtle, 'If-Match': String(header(container, 'etag') ?? '*') }, body }), 403);
    assertRdfError(await s.request('PUT', '/admin/ontologies/stranger/', { as: 'anonymous', headers: turtle, body }), 403);
    assert.equal(commitCount(adminRepo), before, 'nothing was written');
  });

  it('makes its profile and its public key ontologies with shapes that refuse every write: none counts', async () => {
    const stranger = await signUpAs('Mallory');
    const key = await publicKeyOf(stranger);
    for (const document of [stranger.profile, key]) {
      const res = await patch({ pem: stranger.pem }, document, `INSERT { ${hostileOntology([])} } WHERE {}`);
      assert.equal(res.status, 204, `${document}: ${res.body}`);
    }
    // its profile is no container: nothing can be created under it
    assertRdfError(await s.request('PUT', `${stranger.profile}ontology/`, { as: { pem: stranger.pem }, headers: turtle, body: `${TURTLE_PREFIXES}${hostileOntology([])}` }), '4xx');
    const write = await ownerPut();
    assert.equal(write.status, 201, `the owner's write is not refused by the stranger's shapes: ${write.body}`);
    assertRdfError(await s.request('PUT', 'anonymous-write/', { as: 'anonymous', headers: turtle, body: '' }), 403);
    assertRdfError(await s.request('GET', 'private/', { as: 'anonymous' }), 403);
    const ontology = await namespace();
    for (const word of [stranger.profile, key, ns.sh, 'refused by the stranger']) assert.ok(!ontology.includes(word), `ns holds nothing of the stranger's (${word})`);
  });

  it('labels terms in its profile: neither ns nor the pages take them', async () => {
    const stranger = await signUpAs('Mike');
    const res = await patch({ pem: stranger.pem }, stranger.profile, `INSERT { <#labels> a owl:Ontology . ex:colour rdfs:label "Stranger's colour", "Stranger's colour"@en . } WHERE {}`);
    assert.equal(res.status, 204, res.body);
    assert.equal((await ownerPut()).status, 201);
    assert.ok(!(await namespace()).includes("Stranger's colour"), 'ns holds none of its labels');
    assert.ok(!JSON.stringify(s.running.runtimes[0]!.ontology!.lastBuilt()).includes('Stranger'), 'nor does the ontology the pages read');
    const page = await s.request('GET', 'private/', { headers: { Accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.body, /Stranger(&#39;|&#x27;|')s colour/, 'the page names the property without its label');
  });

  it('makes its profile import documents: none is fetched, and no write waits', async () => {
    const stranger = await signUpAs('Trent');
    const imports = [...Array.from({ length: 32 }, (_, i) => origin.url(`/hang/${i}`)), origin.url('/stranger-vocab')];
    const res = await patch({ pem: stranger.pem }, stranger.profile, `INSERT { ${hostileOntology(imports)} } WHERE {}`);
    assert.equal(res.status, 204, res.body);
    const write = await within('a write after the stranger named its imports', ownerPut());
    assert.equal(write.status, 201, write.body);
    await namespace();
    assert.deepEqual(origin.seen.map((seen) => seen.path), [], 'the origin heard nothing');
  });

  it('writes dh:Item rdfs:subClassOf the classes of the owners’ rules: access control is as it was', async () => {
    assert.equal((await s.request('GET', 'published/', { as: 'anonymous' })).status, 200, 'the owners’ rule holds for the class');
    const stranger = await signUpAs('Eve');
    for (const document of [stranger.profile, await publicKeyOf(stranger)]) {
      const patched = await patch({ pem: stranger.pem }, document, `INSERT { ${hostileHierarchy} } WHERE {}`);
      assert.equal(patched.status, 204, patched.body);
    }
    assert.equal((await ownerPut()).status, 201);

    for (const path of ['private/', '', '/admin/', '/admin/acl/authorizations/owners/', '/admin/ontologies/']) {
      assertRdfError(await s.request('GET', path, { as: 'anonymous' }), 403);
      assertRdfError(await s.request('GET', path, { as: { pem: stranger.pem } }), 403);
    }
    const before = [commitCount(adminRepo), commitCount(s.running.runtimes[0]!.dataspace.store.dir)];
    const owners = await s.request('HEAD', '/admin/acl/authorizations/owners/');
    const grab = `<#this> a <${ns.acl}Authorization> ; <${ns.acl}agent> <${stranger.webId}> ; <${ns.acl}mode> <${ns.acl}Control> ; <${ns.acl}default> <${s.admin}> .`;
    assertRdfError(await s.request('PUT', '/admin/acl/authorizations/owners/', { as: { pem: stranger.pem }, headers: { ...turtle, 'If-Match': String(header(owners, 'etag')) }, body: grab }), 403);
    assertRdfError(await s.request('PUT', '/admin/acl/authorizations/stranger/', { as: { pem: stranger.pem }, headers: turtle, body: grab }), 403);
    const privateTag = String(header(await s.request('HEAD', 'private/'), 'etag'));
    assertRdfError(await s.request('PUT', 'private/', { as: { pem: stranger.pem }, headers: { ...turtle, 'If-Match': privateTag }, body: '' }), 403);
    assertRdfError(await s.request('PUT', 'stranger-made/', { as: { pem: stranger.pem }, headers: turtle, body: '' }), 403);
    assert.deepEqual([commitCount(adminRepo), commitCount(s.running.runtimes[0]!.dataspace.store.dir)], before, 'nothing was written');
  });
});

describe('the owners’ ontologies', () => {
  it('never make the server’s own types subclasses for access control; their own classes are followed', async () => {
    await putTurtle(s, '/admin/ontologies/hierarchy/', `<${ns.dh}Item> <${ns.rdfs}subClassOf> <${EX}Published> . <${EX}Report> <${ns.rdfs}subClassOf> <${EX}Published> .`);
    assertRdfError(await s.request('GET', 'private/', { as: 'anonymous' }), 403);
    await s.request('PUT', 'report/', { headers: turtle, body: `<> a <${EX}Report> .` });
    assert.equal((await s.request('GET', 'report/', { as: 'anonymous' })).status, 200, 'a subclass the owners declare');
  });

  it('apply a shape just written to the next write; an import on its way holds no write, and applies once it has arrived', async () => {
    const waiting: ServerResponse[] = [];
    let given = false; // the server gave up on the import (its connection closed)
    origin.on('/slow-shapes', (_, res) => {
      waiting.push(res);
      res.on('close', () => (given = !res.writableEnded));
    });
    await putTurtle(s, '/admin/ontologies/books/', `${TURTLE_PREFIXES}
      <#> a owl:Ontology ; owl:imports <${origin.url('/slow-shapes')}> .
      <#BookShape> a sh:NodeShape ; sh:targetClass ex:Book ; sh:property [ sh:path dct:title ; sh:minCount 1 ; sh:message "a book has a title" ] .`);
    const book = (extra: string) => ownerPut(`<#this> a <${EX}Book> ${extra}.`);
    assertRdfError(await within('a write checked by a new shape', book('')), 422, { title: /a book has a title/ });
    await waitFor(() => waiting.length === 1, 5_000);
    assert.equal(given, false, 'the write was answered while the import was on its way');
    const meanwhile = await within('a write while an import is on its way', book(`; <${ns.dct}title> "Dune" `));
    assert.equal(meanwhile.status, 201, `checked against what has arrived: ${meanwhile.body}`);
    assert.equal(given, false, 'the import was still on its way');
    const shape = `<${EX}IsbnShape> a <${ns.sh}NodeShape> ; <${ns.sh}targetClass> <${EX}Book> ; <${ns.sh}property> [ <${ns.sh}path> <${EX}isbn> ; <${ns.sh}minCount> 1 ; <${ns.sh}message> "a book has an ISBN" ] .`;
    waiting[0]!.writeHead(200, { 'Content-Type': 'text/turtle' }).end(shape);
    assert.match(await namespace(), /a book has an ISBN/, 'ns answers once the import has arrived');
    assertRdfError(await book(`; <${ns.dct}title> "Emma" `), 422, { title: /a book has an ISBN/ });
    assert.equal((await book(`; <${ns.dct}title> "Emma" ; <${EX}isbn> "0141439580" `)).status, 201);
  });

  it('include a file edited by hand that spells owl:Ontology with \\u escapes; a file that never names it is no ontology', async () => {
    const admin = s.running.runtimes.find((r) => r.role === 'admin')!.dataspace;
    const doc = `${s.admin}ontologies/escaped/`;
    const escaped = (ns.owl + 'Ontology').replace('y', '\\u0079'); // the same IRI in N-Triples
    const lines = [
      `<${doc}#> <${ns.rdf}type> <${escaped}> .`,
      `<${doc}#shape> <${ns.rdf}type> <${ns.sh}NodeShape> .`,
      `<${doc}#shape> <${ns.sh}targetClass> <${EX}Escaped> .`,
      `<${doc}#shape> <${ns.sh}property> <${doc}#title> .`,
      `<${doc}#title> <${ns.sh}path> <${ns.dct}title> .`,
      `<${doc}#title> <${ns.sh}minCount> "1"^^<${ns.xsd}integer> .`,
      `<${doc}#title> <${ns.sh}message> "an escaped thing has a title" .`,
    ];
    const file = (relative: string) => admin.fileOf(relative);
    const bytes = (text: string) => Buffer.from(text + '\n');
    const author = { name: 'someone with git', email: 'git@example.org' };
    // the same shape in a file that never names owl:Ontology shapes nothing
    await admin.store.write({ changes: [{ path: file('ontologies/plain/'), bytes: bytes(lines.slice(1).join('\n').replaceAll(doc, `${s.admin}ontologies/plain/`)) }], author, message: 'a shape, no ontology' });
    assert.equal((await ownerPut(`<#this> a <${EX}Escaped> .`)).status, 201);
    await admin.store.write({ changes: [{ path: file('ontologies/escaped/'), bytes: bytes(lines.join('\n')) }], author, message: 'an ontology, escaped' });
    assertRdfError(await ownerPut(`<#this> a <${EX}Escaped> .`), 422, { title: /an escaped thing has a title/ });
    assert.equal((await ownerPut(`<#this> a <${EX}Escaped> ; <${ns.dct}title> "titled" .`)).status, 201);
  });

  it('hold no GET and no write while an import hangs; the closure has one deadline', async () => {
    const hanging = Array.from({ length: 8 }, (_, i) => origin.url(`/hang/${i}`));
    await putTurtle(s, '/admin/ontologies/hanging/', `<#> a <${ns.owl}Ontology> ${hanging.map((url) => `; <${ns.owl}imports> <${url}>`).join(' ')} .`);
    const started = Date.now();
    assert.equal((await within('the write that starts the fetches', ownerPut())).status, 201);
    await waitFor(() => held.size >= 8, 5_000);
    const gets: number[] = [];
    const puts: number[] = [];
    let answeredLast = 0;
    const until = Date.now() + 2_000;
    const going = () => Date.now() < until && firstClosed === 0;
    await Promise.all([
      (async () => {
        while (going()) {
          const t = Date.now();
          const res = await within('a GET', s.request('GET', 'private/', { headers: { Accept: 'text/turtle' } }));
          assert.equal(res.status, 200);
          gets.push(Date.now() - t);
          answeredLast = Date.now();
        }
      })(),
      (async () => {
        while (going()) {
          const t = Date.now();
          const res = await within('a small PUT', ownerPut());
          assert.equal(res.status, 201, res.body);
          puts.push(Date.now() - t);
          answeredLast = Date.now();
        }
      })(),
    ]);
    console.log(`# while 8 imports hang: ${gets.length} GETs (longest ${Math.max(...gets)} ms), ${puts.length} PUTs (longest ${Math.max(...puts)} ms)`);
    assert.ok(firstClosed === 0 || answeredLast <= firstClosed, 'every GET and PUT was answered while the imports hung');
    assert.ok(Math.max(...gets) < 1_000, `no GET over 1 s (longest ${Math.max(...gets)} ms)`);
    assert.ok(puts.length >= 2, `writes went on (${puts.length})`);
    await namespace();
    const took = Date.now() - started;
    assert.ok(took < 3 * DEADLINE_MS, `one deadline for the whole closure, not one per import: ns answered ${took} ms after the fetches began`);
    for (const url of hanging) assert.ok(logs.some((line) => line.includes(`<${url}> is left out`)), `${url} is logged as left out`);
  });

  it('keep many large imports within the bound, and log what is left out', async () => {
    const line = (doc: number, i: number) => `<${EX}large${doc}-${i}> <${ns.rdfs}comment> "${'a long comment of a large ontology '.repeat(2)}${i}" .\n`;
    const large = Array.from({ length: 16 }, (_, doc) => Array.from({ length: 6_000 }, (__, i) => line(doc, i)).join(''));
    large.forEach((body, doc) => origin.on(`/large/${doc}`, { headers: { 'Content-Type': 'application/n-triples' }, body }));
    const total = large.reduce((sum, body) => sum + body.length, 0);
    assert.ok(total > 1.5 * IMPORT_LIMITS.bytes, 'the imports hold more than the bound');
    await putTurtle(s, '/admin/ontologies/large/', `<#> a <${ns.owl}Ontology> ${large.map((_, doc) => `; <${ns.owl}imports> <${origin.url(`/large/${doc}`)}>`).join(' ')} .`);
    assert.equal((await within('a write while large imports arrive', ownerPut())).status, 201);
    const ontology = await namespace();
    const kept = s.running.runtimes[0]!.ontology!.imported.keptBytes();
    console.log(`# ${large.length} imports of ${Math.round(total / 1024 / 1024)} MiB: ${Math.round(kept / 1024 / 1024)} MiB kept, ns ${Math.round(ontology.length / 1024 / 1024)} MiB`);
    assert.ok(kept <= IMPORT_LIMITS.bytes, `what is kept stays within ${IMPORT_LIMITS.bytes} bytes (${kept})`);
    assert.ok(ontology.length < IMPORT_LIMITS.bytes + 64 * 1024, `ns holds the owners' documents and the imports within the bound (${ontology.length})`);
    assert.ok(ontology.includes(`${EX}large`), 'the imports that fit are in it');
    assert.ok(logs.some((l) => /large\/\d+> is left out: /.test(l)), 'what is left out is logged');
    assert.equal((await ownerPut()).status, 201, 'writes are checked as before');
    // no ontology reaches them any more: they are dropped
    const tag = String(header(await s.request('HEAD', '/admin/ontologies/large/'), 'etag'));
    assert.equal((await s.request('DELETE', '/admin/ontologies/large/', { headers: { 'If-Match': tag } })).status, 204);
    assert.equal((await ownerPut()).status, 201);
    assert.ok(s.running.runtimes[0]!.ontology!.imported.keptBytes() < 64 * 1024, 'the large imports are no longer kept');
  });
});

describe('a data directory made before admin/ontologies/', () => {
  it('says at start where ontologies go and which of its documents no longer shape anything, and commits nothing', async () => {
    const old = await startServer(['--allow-internal-urls']);
    const { data, port } = old;
    try {
      const container = await old.request('HEAD', '/admin/ontologies/', { headers: { Accept: 'text/turtle' } });
      assert.equal((await old.request('DELETE', '/admin/ontologies/', { headers: { 'If-Match': String(header(container, 'etag')) } })).status, 204);
      assert.equal((await old.request('PUT', '/admin/vocabulary/', { headers: turtle, body: `<#ns> a <${ns.owl}Ontology> .` })).status, 201);
    } finally {
      await old.close();
    }
    const lines: string[] = [];
    const again = await startServer(['--allow-internal-urls', '--port', String(port)], data, (line) => lines.push(line));
    try {
      const admin = again.running.runtimes[1]!.dataspace.store;
      const head = admin.head;
      await waitFor(() => lines.some((line) => line.includes('admin/ontologies/')));
      const said = lines.find((line) => line.includes('admin/ontologies/'))!;
      assert.match(said, /does not have: PUT it as a dh:Container/);
      assert.match(said, new RegExp(`move ${again.admin}vocabulary/ there`));
      assert.equal(admin.head, head, 'the server wrote nothing of its own accord');
    } finally {
      await again.close();
    }
  });
});
