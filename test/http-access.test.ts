/**
 * Access control over real HTTPS with real client certificates (SPEC §5, issue 4): the bootstrap's
 * groups and authorizations; each rule kind (acl:agent, acl:agentClass, acl:agentGroup; acl:accessTo,
 * acl:accessToClass through rdfs:subClassOf, acl:default) deciding GET, HEAD, POST, PUT; owner
 * rights; authorizations outside the admin dataspace ignored; HEAD for an append-only agent giving
 * an ETag its write can use; decisions following commits to the admin dataspace; the SPARQL
 * endpoint answering over readable documents only; the modes advertised in Link. Refusals are
 * checked against git: 403 and HEAD did not move.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ns } from '../src/rdf/namespaces.js';
import { git, headOf } from './helpers.js';
import { assertRdfError, certifiedAgent, header, putTurtle, serverForFile, type TestServer, turtle } from './http-helpers.js';

let s: TestServer;
let repo: string;
serverForFile(async (server, dir) => {
  s = server;
  repo = dir;
  for (const path of ['shared/', 'private/', 'drop-box/', 'reports/', 'space/']) {
    const res = await s.request('PUT', path, { headers: turtle, body: `<> a <${ns.dh}Container> .` });
    assert.equal(res.status, 201, res.body);
  }
  await s.request('PUT', 'shared/doc/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "shared" .' });
  await s.request('PUT', 'private/doc/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "private" .' });
  await s.request('PUT', 'drop-box/inbox/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "inbox" .' });
  await s.request('PUT', 'reports/annual/', { headers: turtle, body: '<> a <https://example.org/ns#AnnualReport> .' });
});

const EX = 'https://example.org/ns#';

/** A new agent with its WebID document and key in the admin dataspace, and its certificate. */
const agent = (name: string) => certifiedAgent(s, name);

/** PUTs a document of the admin dataspace as the owner. */
function adminPut(path: string, body: string): Promise<void> {
  return putTurtle(s, `/admin/${path}`, body);
}

/** An authorization document in the admin dataspace. */
async function authorize(slug: string, rule: string): Promise<void> {
  await adminPut(`acl/authorizations/${slug}/`, `<#this> a <${ns.acl}Authorization> ; ${rule} .`);
}

const as = (who: { pem: string }) => ({ as: { pem: who.pem } });

describe('access control: the bootstrap', () => {
  it('writes the groups owners, writers, readers and the default authorizations into the admin repository', () => {
    const adminRepo = s.running.runtimes[1]!.dataspace.store.dir;
    const files = git(adminRepo, 'ls-tree', '-r', '--name-only', 'HEAD', 'graphs/acl/').split('\n');
    for (const file of ['graphs/acl/groups/owners.nt', 'graphs/acl/groups/writers.nt', 'graphs/acl/groups/readers.nt', 'graphs/acl/authorizations/owners.nt', 'graphs/acl/authorizations/public.nt']) {
      assert.ok(files.includes(file), file);
    }
    assert.match(git(adminRepo, 'show', 'HEAD:graphs/acl/groups/owners.nt'), new RegExp(`<${ns.foaf}member> <${s.running.agents.owner.webId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}>`));
  });

  it('keeps everything private from anonymous agents but WebID documents and public keys', async () => {
    assertRdfError(await s.request('GET', '/', { as: 'anonymous' }), 403);
    assertRdfError(await s.request('GET', 'shared/doc/', { as: 'anonymous' }), 403);
    assertRdfError(await s.request('GET', `/sparql?query=${encodeURIComponent('ASK {}')}`, { as: 'anonymous' }), 403);
    assertRdfError(await s.request('GET', 'shared/doc/?timemap', { as: 'anonymous' }), 403);
    assert.equal((await s.request('GET', `/admin/${s.running.agents.owner.documentPath}`, { as: 'anonymous' })).status, 200);
    assertRdfError(await s.request('GET', '/admin/acl/authorizations/owners/', { as: 'anonymous' }), 403);
  });

  it('lets the secretary (a writer) read and write end-user documents and query, but not the admin dataspace', async () => {
    assert.equal((await s.request('GET', 'shared/doc/', { as: 'secretary' })).status, 200);
    assert.equal((await s.request('PUT', 'shared/by-secretary/', { as: 'secretary', headers: turtle, body: '' })).status, 201);
    assert.equal((await s.request('GET', `/sparql?query=${encodeURIComponent('ASK {}')}`, { as: 'secretary' })).status, 200);
    assertRdfError(await s.request('GET', '/admin/acl/authorizations/owners/', { as: 'secretary' }), 403);
  });
});

describe('access control: rules', () => {
  it('acl:agent with acl:Read: GET 200 and the modes in Link; PUT 403 and HEAD did not move; decisions follow admin commits', async () => {
    const alice = await agent('Alice');
    assertRdfError(await s.request('GET', 'shared/doc/', as(alice)), 403);
    await authorize('alice-read', `<${ns.acl}agent> <${alice.webId}> ; <${ns.acl}mode> <${ns.acl}Read> ; <${ns.acl}accessTo> <${s.base}shared/doc/>`);
    const got = await s.request('GET', 'shared/doc/', as(alice));
    assert.equal(got.status, 200, got.body);
    const link = String(header(got, 'link'));
    assert.match(link, new RegExp(`<${ns.acl}Read>; rel="${ns.acl}mode"`));
    assert.doesNotMatch(link, /acl#Write>/);
    assert.ok(link.includes(`<${alice.webId}>; rel="${ns.acl}agent"`));
    const before = headOf(repo);
    assertRdfError(await s.request('PUT', 'shared/doc/', { ...as(alice), headers: { ...turtle, 'If-Match': String(header(got, 'etag')) }, body: '' }), 403);
    assert.equal(headOf(repo), before, 'HEAD did not move');
    assertRdfError(await s.request('GET', 'private/doc/', as(alice)), 403);
  });

  it('acl:Append alone: HEAD gives the ETag (SPEC §4.6.7), POST with it appends, GET and PUT are 403', async () => {
    const bob = await agent('Bob');
    await authorize('bob-append', `<${ns.acl}agent> <${bob.webId}> ; <${ns.acl}mode> <${ns.acl}Append> ; <${ns.acl}accessTo> <${s.base}drop-box/inbox/>`);
    const head = await s.request('HEAD', 'drop-box/inbox/', as(bob));
    assert.equal(head.status, 200);
    const tag = String(header(head, 'etag'));
    assert.match(String(header(head, 'link')), /acl#Append>/);
    const post = await s.request('POST', 'drop-box/inbox/', { ...as(bob), headers: { ...turtle, 'If-Match': tag }, body: '<#note> <http://purl.org/dc/terms/title> "from Bob" .' });
    assert.equal(post.status, 204, post.body);
    assert.match(git(repo, 'show', 'HEAD:graphs/drop-box/inbox.nt'), /from Bob/);
    assertRdfError(await s.request('GET', 'drop-box/inbox/', as(bob)), 403);
    assertRdfError(await s.request('PUT', 'drop-box/inbox/', { ...as(bob), headers: { ...turtle, 'If-Match': String(header(post, 'etag')) }, body: '' }), 403);
  });

  it('acl:agentGroup: a member of the readers group reads, and stops when removed', async () => {
    const carol = await agent('Carol');
    assertRdfError(await s.request('GET', 'shared/doc/', as(carol)), 403);
    const group = `${s.admin}acl/groups/readers/`;
    const res = await s.request('PATCH', group, { headers: { 'Content-Type': 'application/sparql-update', 'If-Match': String(header(await s.request('HEAD', group), 'etag')) }, body: `INSERT { <#this> <${ns.foaf}member> <${carol.webId}> } WHERE {}` });
    assert.equal(res.status, 204, res.body);
    assert.equal((await s.request('GET', 'shared/doc/', as(carol))).status, 200);
    assert.equal((await s.request('GET', 'private/doc/', as(carol))).status, 200, 'readers read every end-user document');
    assertRdfError(await s.request('PUT', 'shared/doc/', { ...as(carol), headers: turtle, body: '' }), 403);
  });

  it('acl:agentClass acl:AuthenticatedAgent and foaf:Agent', async () => {
    const dan = await agent('Dan');
    await authorize('authenticated-shared', `<${ns.acl}agentClass> <${ns.acl}AuthenticatedAgent> ; <${ns.acl}mode> <${ns.acl}Read> ; <${ns.acl}default> <${s.base}shared/>`);
    assert.equal((await s.request('GET', 'shared/doc/', as(dan))).status, 200);
    assertRdfError(await s.request('GET', 'shared/doc/', { as: 'anonymous' }), 403);
    await authorize('everyone-shared', `<${ns.acl}agentClass> <${ns.foaf}Agent> ; <${ns.acl}mode> <${ns.acl}Read> ; <${ns.acl}accessTo> <${s.base}shared/doc/>`);
    assert.equal((await s.request('GET', 'shared/doc/', { as: 'anonymous' })).status, 200);
  });

  it('acl:accessToClass follows rdfs:subClassOf declared in the owners’ ontologies (admin/ontologies/)', async () => {
    const erin = await agent('Erin');
    await authorize('erin-reports', `<${ns.acl}agent> <${erin.webId}> ; <${ns.acl}mode> <${ns.acl}Read> ; <${ns.acl}accessToClass> <${EX}Report>`);
    assertRdfError(await s.request('GET', 'reports/annual/', as(erin)), 403);
    await adminPut('ontologies/reports/', `<${EX}AnnualReport> <${ns.rdfs}subClassOf> <${EX}Report> .`);
    assert.equal((await s.request('GET', 'reports/annual/', as(erin))).status, 200);
  });

  it('a document’s acl:owner reads and writes it without an authorization; creating needs Append on the parent', async () => {
    const frank = await agent('Frank');
    assertRdfError(await s.request('PUT', 'space/franks/', { ...as(frank), headers: turtle, body: '' }), 403);
    await authorize('frank-append', `<${ns.acl}agent> <${frank.webId}> ; <${ns.acl}mode> <${ns.acl}Append> ; <${ns.acl}accessTo> <${s.base}space/>`);
    const created = await s.request('PUT', 'space/franks/', { ...as(frank), headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "mine" .' });
    assert.equal(created.status, 201, created.body);
    const got = await s.request('GET', 'space/franks/', as(frank));
    assert.equal(got.status, 200, 'the owner reads');
    assert.match(String(header(got, 'link')), /acl#Write>/);
    const put = await s.request('PUT', 'space/franks/', { ...as(frank), headers: { ...turtle, 'If-Match': String(header(got, 'etag')) }, body: '' });
    assert.equal(put.status, 200, 'the owner writes');
  });

  it('ignores authorizations that are not documents of the admin dataspace’s acl/authorizations/', async () => {
    const gina = await agent('Gina');
    // in the end-user dataspace, and in the agent's own WebID document
    await s.request('PUT', 'shared/fake-authorization/', { headers: turtle, body: `<#this> a <${ns.acl}Authorization> ; <${ns.acl}agent> <${gina.webId}> ; <${ns.acl}mode> <${ns.acl}Read> ; <${ns.acl}accessTo> <${s.base}private/doc/> .` });
    assertRdfError(await s.request('GET', 'private/doc/', as(gina)), 403);
  });
});

describe('access control: SPARQL answers over readable documents only', () => {
  it('restricts the dataset of an agent to the named graphs it may read', async () => {
    const hana = await agent('Hana');
    await authorize('hana', `<${ns.acl}agent> <${hana.webId}> ; <${ns.acl}mode> <${ns.acl}Read> ; <${ns.acl}accessTo> <${s.base}shared/doc/>, <${s.base}sparql>`);
    const query = 'SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?g';
    const res = await s.request('GET', `/sparql?query=${encodeURIComponent(query)}`, { ...as(hana), headers: { Accept: 'application/sparql-results+json' } });
    assert.equal(res.status, 200, res.body);
    const graphs = (JSON.parse(res.body) as { results: { bindings: { g: { value: string } }[] } }).results.bindings.map((b) => b.g.value);
    // shared/doc/ by her own rule; the rest of shared/ by the AuthenticatedAgent rule above
    assert.ok(graphs.includes(`${s.base}shared/doc/`));
    for (const g of graphs) assert.ok(g.startsWith(`${s.base}shared/`), g);
    const titles = await s.request('GET', `/sparql?query=${encodeURIComponent('SELECT ?t WHERE { ?s <http://purl.org/dc/terms/title> ?t }')}`, { ...as(hana), headers: { Accept: 'text/csv' } });
    assert.doesNotMatch(titles.body, /private/);
    const asked = await s.request('GET', `/sparql?query=${encodeURIComponent('SELECT ?t WHERE { ?s <http://purl.org/dc/terms/title> ?t }')}&default-graph-uri=${encodeURIComponent(`${s.base}private/doc/`)}`, { ...as(hana), headers: { Accept: 'text/csv' } });
    assert.doesNotMatch(asked.body, /private/, 'an unreadable graph named in the dataset stays out');
    const owner = await s.request('GET', `/sparql?query=${encodeURIComponent(query)}`, { headers: { Accept: 'application/sparql-results+json' } });
    assert.ok((JSON.parse(owner.body) as { results: { bindings: unknown[] } }).results.bindings.length > 3, 'the owner sees everything');
  });
});

describe('access control: delegation (On-Behalf-Of)', () => {
  it('lets the secretary act as an agent whose WebID document delegates to it, and only then', async () => {
    const ivy = await agent('Ivy');
    const ivyDoc = ivy.webId.replace(/#this$/, '').slice(s.admin.length);
    const keyIri = `${s.admin}acl/public-keys/${ivyDoc.split('/')[2]}/#this`;
    await adminPut(ivyDoc, `<#this> a <${ns.foaf}Agent> ; <${ns.foaf}name> "Ivy" ; <${ns.cert}key> <${keyIri}> ; <${ns.acl}delegates> <${s.running.agents.secretary.webId}> .`);
    await authorize('ivy-read', `<${ns.acl}agent> <${ivy.webId}> ; <${ns.acl}mode> <${ns.acl}Read> ; <${ns.acl}accessTo> <${s.base}private/doc/>`);
    const got = await s.request('GET', 'private/doc/', { as: 'secretary', headers: { 'On-Behalf-Of': ivy.webId } });
    assert.equal(got.status, 200, got.body);
    assert.ok(String(header(got, 'link')).includes(`<${ivy.webId}>; rel="${ns.acl}agent"`), 'the request is Ivy’s');
    const before = headOf(repo);
    assertRdfError(await s.request('PUT', 'private/doc/', { as: 'secretary', headers: { ...turtle, 'On-Behalf-Of': ivy.webId, 'If-Match': String(header(got, 'etag')) }, body: '' }), 403);
    assert.equal(headOf(repo), before, 'Ivy may only read, whoever carries her request');
    const jack = await agent('Jack'); // does not delegate
    assertRdfError(await s.request('GET', 'private/doc/', { as: 'secretary', headers: { 'On-Behalf-Of': jack.webId } }), 403);
    assertRdfError(await s.request('GET', 'private/doc/', { ...as(ivy), headers: { 'On-Behalf-Of': jack.webId } }), 403); // only the secretary delegates
  });
});

describe('access control: each mode × each rule kind, over HTTPS', () => {
  // who: acl:agent, acl:agentGroup (a group of its own), acl:agentClass acl:AuthenticatedAgent;
  // what: acl:accessTo, acl:accessToClass, acl:default; mode: Read (GET), Append (POST), Write (PUT),
  // Control (advertised in Link). Each combination gets a fresh document; the agent may do what
  // the mode allows and nothing the others would.
  const modes = ['Read', 'Append', 'Write', 'Control'] as const;
  const whos = ['agent', 'agentGroup', 'agentClass'] as const;
  const whats = ['accessTo', 'accessToClass', 'default'] as const;

  it('grants exactly the mode named, whichever way the agent and the document are named', async () => {
    await s.request('PUT', 'matrix/', { headers: turtle, body: `<> a <${ns.dh}Container> .` });
    const agents = { agent: await agent('Matrix agent'), agentGroup: await agent('Matrix member'), agentClass: await agent('Matrix authenticated') };
    await adminPut('acl/groups/matrix/', `<#this> a <${ns.foaf}Group> ; <${ns.foaf}member> <${agents.agentGroup.webId}> .`);
    let n = 0;
    for (const mode of modes) {
      for (const who of whos) {
        for (const what of whats) {
          n++;
          const me = agents[who];
          const container = `matrix/c${n}/`;
          const path = `${container}doc/`;
          const cls = `${EX}Matrix${n}`;
          await s.request('PUT', container, { headers: turtle, body: `<> a <${ns.dh}Container> .` });
          const created = await s.request('PUT', path, { headers: turtle, body: `<> a <${cls}> . <#this> <http://purl.org/dc/terms/title> "${n}" .` });
          assert.equal(created.status, 201, created.body);
          const whoRule = who === 'agent' ? `<${ns.acl}agent> <${me.webId}>` : who === 'agentGroup' ? `<${ns.acl}agentGroup> <${s.admin}acl/groups/matrix/#this>` : `<${ns.acl}agentClass> <${ns.acl}AuthenticatedAgent>`;
          const whatRule = what === 'accessTo' ? `<${ns.acl}accessTo> <${s.base}${path}>` : what === 'accessToClass' ? `<${ns.acl}accessToClass> <${cls}>` : `<${ns.acl}default> <${s.base}${container}>`;
          await authorize(`matrix-${n}`, `${whoRule} ; <${ns.acl}mode> <${ns.acl}${mode}> ; ${whatRule}`);
          const label = `${mode} by ${who} on ${what}`;
          const head = await s.request('HEAD', path, as(me));
          assert.equal(head.status, 200, `${label}: HEAD with any mode`);
          assert.match(String(header(head, 'link')), new RegExp(`acl#${mode}>; rel="${ns.acl.replace(/[.#]/g, '\\$&')}mode"`), label);
          const tag = String(header(head, 'etag'));
          const get = await s.request('GET', path, as(me));
          assert.equal(get.status, mode === 'Read' ? 200 : 403, `${label}: GET`);
          const post = await s.request('POST', path, { ...as(me), headers: { ...turtle, 'If-Match': tag }, body: `<#more> <http://purl.org/dc/terms/title> "appended" .` });
          assert.equal(post.status, mode === 'Append' || mode === 'Write' ? 204 : 403, `${label}: POST`);
          const current = String(header(await s.request('HEAD', path), 'etag'));
          const put = await s.request('PUT', path, { ...as(me), headers: { ...turtle, 'If-Match': current }, body: `<> a <${cls}> .` });
          assert.equal(put.status, mode === 'Write' ? 200 : 403, `${label}: PUT`);
        }
      }
    }
  });
});
