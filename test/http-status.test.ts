/**
 * `<base>status` (DESIGN.md "Replicas and status", issue 29) over real HTTPS: the owner reads the
 * dataspace and its admin pair, HEAD as git names it, the indexed commit once a read has synced,
 * documents counted in the tree and triples in the index, in JSON and in RDF; a signed-up stranger,
 * a reader of everything and anonymous visitors are refused with the same 403 as any endpoint.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Parser } from 'n3';
import { ns } from '../src/rdf/namespaces.js';
import { STATUS } from '../src/http/status.js';
import { git, headOf } from './helpers.js';
import { assertRdfError, header, putTurtle, serverForFile, signUp, type TestServer } from './http-helpers.js';

let s: TestServer;
let repo: string;
serverForFile(async (server, dir) => {
  s = server;
  repo = dir;
  await putTurtle(s, '/status-a/', '<#this> <http://purl.org/dc/terms/title> "a" ; <http://example.org/n> 1 .');
});

interface Status {
  dataspaces: { dataspace: string; role: string; branch: string; head: string; headTime: string; index: { kind: string; commit: string; current: boolean }; documents: number; triples: number; mirror: unknown }[];
}

describe('status', () => {
  it('gives the owner HEAD as git names it, the index at it, and the sizes, in JSON, never cached', async () => {
    await s.request('GET', '/sparql?query=ASK%7B%7D', { headers: { Accept: 'application/sparql-results+json' } }); // a query syncs the index
    const res = await s.request('GET', '/status');
    assert.equal(res.status, 200, res.body);
    assert.match(header(res, 'content-type') ?? '', /^application\/json/);
    assert.equal(header(res, 'cache-control'), 'no-store');
    const body = JSON.parse(res.body) as Status;
    const [mine, admin] = body.dataspaces;
    assert.equal(mine?.dataspace, s.base);
    assert.equal(mine?.role, 'end-user');
    assert.equal(mine?.head, headOf(repo));
    assert.equal(mine?.index.commit, mine?.head);
    assert.equal(mine?.index.current, true);
    assert.equal(mine?.index.kind, 'embedded');
    const files = git(repo, 'ls-tree', '-r', '--name-only', 'HEAD').split('\n').filter((f) => f.endsWith('.nt'));
    assert.equal(mine?.documents, files.length);
    assert.equal(mine?.triples, await s.running.runtimes[0]!.dataspace.index.size());
    assert.ok(mine!.triples >= 2);
    assert.equal(new Date(mine!.headTime).getTime() / 1000, Number(git(repo, 'log', '-1', '--format=%ct').trim()));
    assert.equal(mine?.mirror, null);
    assert.equal(admin?.role, 'admin');
    assert.equal(admin?.dataspace, s.admin);
  });

  it('follows a write: HEAD moves and the document is counted', async () => {
    const before = (JSON.parse((await s.request('GET', '/status')).body) as Status).dataspaces[0]!;
    await putTurtle(s, '/status-b/', '<#this> <http://purl.org/dc/terms/title> "b" .');
    const after = (JSON.parse((await s.request('GET', '/status')).body) as Status).dataspaces[0]!;
    assert.equal(after.head, headOf(repo));
    assert.notEqual(after.head, before.head);
    assert.equal(after.documents, before.documents + 1);
  });

  it('is RDF too: each dataspace a void:Dataset with its sizes and HEAD', async () => {
    const res = await s.request('GET', '/status', { headers: { Accept: 'text/turtle' } });
    assert.equal(res.status, 200, res.body);
    const quads = new Parser().parse(res.body);
    const of = (p: string) => quads.find((q) => q.subject.value === s.base && q.predicate.value === p)?.object.value;
    assert.equal(of(ns.rdf + 'type'), 'http://rdfs.org/ns/void#Dataset');
    assert.equal(of(STATUS + 'head'), headOf(repo));
    assert.ok(Number(of('http://rdfs.org/ns/void#documents')) >= 2);
  });

  it('is for owners only: anonymous, a signed-up stranger and an agent who may read and write everything get the 403 of any endpoint', async () => {
    const stranger = await signUp(s, 'Status Stranger');
    const rule = `<#this> a <${ns.acl}Authorization> ; <${ns.acl}agent> <${stranger.webId}> ; <${ns.acl}mode> <${ns.acl}Read>, <${ns.acl}Write> ; <${ns.acl}accessTo> <${s.base}> ; <${ns.acl}default> <${s.base}> .`;
    const reader = await signUp(s, 'Status Reader');
    const readRule = rule.replaceAll(stranger.webId, reader.webId);
    assert.equal((await s.request('PUT', '/admin/acl/authorizations/status-reader/', { headers: { 'Content-Type': 'text/turtle' }, body: readRule })).status, 201);
    for (const as of ['anonymous', { pem: stranger.pem }, { pem: reader.pem }] as const) {
      const res = await s.request('GET', '/status', { as });
      assertRdfError(res, 403);
      assert.doesNotMatch(res.body, /documents|triples|[0-9a-f]{40}/, 'the refusal tells nothing of what it guards');
      assert.equal(header(res, 'lodestone-commit'), undefined, 'nor when the dataspace was last written');
    }
    // the stranger's own profile gives it no Control of the dataspace either
    assertRdfError(await s.request('GET', '/admin/status', { as: { pem: stranger.pem } }), 403);
  });
});
