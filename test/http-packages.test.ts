/**
 * Packages (LinkedDataHub 6, issue 21) over real HTTPS, from an origin on the loopback interface
 * (the server runs with --allow-internal-urls): a settings PATCH that imports a package fetches its
 * description and ontology, materialises them once as a document of the admin dataspace, and the
 * next request sees the ontology in `ns` (with the vocabulary it imports, which ships with the
 * server), its shapes on writes and its class hierarchy in access control (an owners' rule about a
 * class reaches the package's subclass); importing it again changes nothing; removing the import
 * removes the document, the ontology and the hierarchy; a package that cannot be
 * loaded is 422 with the configuration unchanged, and an internal address is refused without
 * --allow-internal-urls.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isLodestoneError } from '../src/errors.js';
import { safeFetch } from '../src/net/safe-fetch.js';
import { packagePath } from '../src/ontology/governing.js';
import { NamespaceOntology } from '../src/ontology/namespace.js';
import { installPackage } from '../src/ontology/packages.js';
import { OntologyWorkers } from '../src/ontology/workers.js';
import { Vocabularies } from '../src/net/vocabularies.js';
import { startPool } from '../src/threads.js';
import { ns } from '../src/rdf/namespaces.js';
import { parseRdf } from '../src/rdf/ntriples.js';
import { commitCount } from './helpers.js';
import { assertRdfError, putTurtle, serverForFile, turtle, type TestServer } from './http-helpers.js';
import { startRdfOrigin, type RdfOrigin } from './rdf-origin.js';

let s: TestServer;
let origin: RdfOrigin;
let adminRepo: string;
before(async () => {
  origin = await startRdfOrigin();
});
after(() => origin.close());
serverForFile(async (server) => {
  s = server;
  adminRepo = s.running.runtimes[1]!.dataspace.store.dir;
  // anyone reads a skos:Concept; a document of the package's subclass of it, made before the package is imported
  await putTurtle(s, '/admin/acl/authorizations/concepts/', `<#this> a <${ns.acl}Authorization> ; <${ns.acl}agentClass> <${ns.foaf}Agent> ; <${ns.acl}mode> <${ns.acl}Read> ; <${ns.acl}accessToClass> <http://www.w3.org/2004/02/skos/core#Concept> .`);
  await putTurtle(s, '/concept/', `<> a <${origin.base}skos/ns.ttl#Term> .`);
}, ['--allow-internal-urls']);

const UPDATE = { 'Content-Type': 'application/sparql-update' };
const patch = (body: string) => s.request('PATCH', '/settings', { headers: UPDATE, body });
const pkg = () => `${origin.base}skos/#this`;
const vocab = () => `${origin.base}skos/ns.ttl#`;
const systemTtl = () => readFileSync(join(s.data, 'system.ttl'), 'utf8');
const ask = async (query: string) => JSON.parse((await s.request('GET', `/ns?query=${encodeURIComponent(query)}`, { headers: { Accept: 'application/sparql-results+json' }, as: 'anonymous' })).body).boolean as boolean;

function servePackage(): void {
  origin.serve('skos/', `@prefix lds: <${ns.lds}> . @prefix ldt: <${ns.ldt}> . @prefix dct: <${ns.dct}> .
    <#this> a lds:Package ; dct:title "SKOS" ; ldt:ontology <ns.ttl#> ; <https://w3id.org/atomgraph/client#stylesheet> <layout.xsl> .`);
  origin.serve('skos/ns.ttl', `@prefix owl: <${ns.owl}> . @prefix rdfs: <${ns.rdfs}> . @prefix sh: <${ns.sh}> . @prefix skos: <http://www.w3.org/2004/02/skos/core#> .
    <#> a owl:Ontology ; rdfs:label "SKOS package ontology" ; owl:imports <http://www.w3.org/2004/02/skos/core> .
    <#Term> rdfs:subClassOf skos:Concept .
    <#TermShape> a sh:NodeShape ; sh:targetClass skos:Concept ; sh:property [ sh:path skos:prefLabel ; sh:minCount 1 ; sh:message "a concept has a preferred label" ] .`);
}

describe('packages', () => {
  it('are imported by a settings PATCH: materialised once in the admin dataspace, in ns, constraining writes and in access control at the next request', async () => {
    servePackage();
    assertRdfError(await s.request('GET', '/concept/', { as: 'anonymous' }), 403);
    const commits = commitCount(adminRepo);
    const res = await patch(`INSERT { <> <${ns.ldh}import> <${pkg()}> } WHERE {}`);
    assert.equal(res.status, 204, res.body);
    assert.match(systemTtl(), new RegExp(`<${pkg().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}>`));
    const document = await s.request('GET', `/admin/${packagePath(pkg())}`, { headers: { Accept: 'application/n-triples' } });
    assert.equal(document.status, 200, document.body);
    const graph = parseRdf(document.body);
    assert.ok(graph.some((q) => q.subject.value === pkg() && q.object.value === ns.lds + 'Package'), 'the package description');
    assert.ok(graph.some((q) => q.subject.value === `${vocab()}Term`), 'the package ontology');
    assert.equal(commitCount(adminRepo), commits + 2, 'the packages/ container and the package document');
    assert.equal(await ask(`ASK { <${vocab()}Term> <${ns.rdfs}subClassOf> <http://www.w3.org/2004/02/skos/core#Concept> }`), true, 'in ns');
    assert.equal(await ask(`ASK { <http://www.w3.org/2004/02/skos/core#Concept> <${ns.rdfs}label> ?label }`), true, 'the SKOS it imports, read from the vocabulary that ships with the server');
    const term = `<#this> a <${vocab()}Term> .`;
    assertRdfError(await s.request('PUT', '/term/', { headers: turtle, body: term }), 422, { title: /a concept has a preferred label/ });
    assert.equal((await s.request('GET', '/concept/', { as: 'anonymous' })).status, 200, 'the owners’ rule about skos:Concept reaches the package’s subclass');
    // importing it again fetches nothing and changes nothing
    const hits = origin.hits('skos/');
    assert.equal((await patch(`INSERT { <> <${ns.ldh}import> <${pkg()}> } WHERE {}`)).status, 204);
    assert.equal(origin.hits('skos/'), hits);
    assert.equal(commitCount(adminRepo), commits + 2, 'one document');
  });

  it('are removed by the matching DELETE: the document and the ontology go', async () => {
    const res = await patch(`DELETE WHERE { <> <${ns.ldh}import> <${pkg()}> }`);
    assert.equal(res.status, 204, res.body);
    assert.doesNotMatch(systemTtl(), /skos\/#this/);
    assertRdfError(await s.request('GET', `/admin/${packagePath(pkg())}`), 404);
    assert.equal(await ask(`ASK { <${vocab()}Term> ?p ?o }`), false);
    assert.equal((await s.request('PUT', '/term/', { headers: turtle, body: `<#this> a <${vocab()}Term> .` })).status, 201, 'its shapes no longer apply');
    assertRdfError(await s.request('GET', '/concept/', { as: 'anonymous' }), 403);
  });

  it('answer 422 when they cannot be loaded, leaving the settings as they were', async () => {
    const file = systemTtl();
    const commits = commitCount(adminRepo);
    const importing = (iri: string) => patch(`INSERT { <> <${ns.ldh}import> <${iri}> } WHERE {}`);
    assertRdfError(await importing(`${origin.base}missing/#this`), 422, { title: /cannot be loaded: .*answered 404/ });
    origin.serve('plain/', 'just text', 'text/plain; charset=utf-8');
    assertRdfError(await importing(`${origin.base}plain/#this`), 422, { title: /cannot be loaded/ });
    origin.serve('notapackage/', `<#this> <${ns.dct}title> "no type" .`);
    assertRdfError(await importing(`${origin.base}notapackage/#this`), 422, { title: /does not describe it as an lds:Package/ });
    origin.serve('noontology/', `<#this> a <${ns.lds}Package> ; <${ns.ldt}ontology> <${origin.base}gone.ttl#> .`);
    assertRdfError(await importing(`${origin.base}noontology/#this`), 422, { title: /gone.ttl answered 404/ });
    assert.equal(systemTtl(), file);
    assert.equal(commitCount(adminRepo), commits);
  });

  it('are refused at an internal address unless the server allows internal URLs', async () => {
    servePackage();
    const workers = new OntologyWorkers({ validation: startPool('shapes'), queries: startPool('ontologyQueries') });
    try {
      const admin = s.running.runtimes[1]!;
      const guarded = new NamespaceOntology({ admin: admin.dataspace, imports: async () => [], fetch: (url) => safeFetch(url, { allowInternal: false }), workers, vocabularies: new Vocabularies(), log: () => undefined });
      await assert.rejects(installPackage(guarded, admin.documents, pkg(), s.running.agents.owner.webId), (error) => isLodestoneError(error, 'ConstraintViolation') && /cannot be loaded: .*--allow-internal-urls/.test(error.message));
      assertRdfError(await s.request('GET', `/admin/${packagePath(pkg())}`), 404);
    } finally {
      await workers.close();
    }
  });
});
