/**
 * The registry of dataspaces (src/registry.ts; DESIGN.md, "Dataspaces"): pairs of an end-user and
 * an admin dataspace declared in system.ttl as LinkedDataHub declares its applications, served side
 * by side by one server at other paths and host names. Each pair has its own repositories, index
 * and access control; a bad declaration stops the start with a message naming the file. Checked
 * against git, over real HTTPS (another host name is another Host header on the same port).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serveConfig } from '../src/config.js';
import { ns } from '../src/rdf/namespaces.js';
import { serve } from '../src/server.js';
import { commitCount, git, removeTempDirs, tempDir } from './helpers.js';
import { assertRdfError, freePort, startServer, turtle, type RequestOptions, type TestServer } from './http-helpers.js';

after(removeTempDirs);

const prefixes = `@prefix lapp: <${ns.lapp}> . @prefix dct: <${ns.dct}> .\n`;

/** The declaration of a pair: the end-user application at `base`, its admin application at `adminBase`. */
function pair(base: string, id: string, adminBase: string, adminId: string): string {
  return `<${base}> a lapp:EndUserApplication ; dct:identifier "${id}" ; lapp:adminApplication <${adminBase}> .\n<${adminBase}> a lapp:AdminApplication ; dct:identifier "${adminId}" .\n`;
}

const acl = ns.acl;
/** An authorization that lets anyone read `document`. */
const publicRead = (document: string) => `<#this> a <${acl}Authorization> ; <${acl}agentClass> <${ns.foaf}Agent> ; <${acl}mode> <${acl}Read> ; <${acl}accessTo> <${document}> .\n`;

const ASK = (value: string) => `sparql?query=${encodeURIComponent(`ASK { ?s <http://example.org/says> "${value}" }`)}`;

describe('dataspaces declared in system.ttl', () => {
  const data = tempDir('dataspaces');
  const lines: string[] = [];
  let s: TestServer;
  let port: number;
  let base: string;
  let second: string;
  let other: string;
  const repo = (id: string) => join(data, 'dataspaces', id);
  /** A request to the dataspace served at host 127.0.0.1 (the same server, another Host header). */
  const atOther = (method: string, path: string, options: RequestOptions = {}) => s.request(method, path, { ...options, headers: { ...options.headers, Host: `127.0.0.1:${port}` } });

  before(async () => {
    port = await freePort();
    base = `https://localhost:${port}/`;
    second = `${base}second/`;
    other = `https://127.0.0.1:${port}/`;
    writeFileSync(join(data, 'system.ttl'), prefixes + pair(second, 'second', `${second}admin/`, 'second-admin') + pair(base, 'end-user', `${base}admin/`, 'admin') + pair(other, 'other', `${other}admin/`, 'other-admin'));
    s = await startServer(['--port', String(port)], data, (line) => lines.push(line));
  });

  after(async () => {
    await s?.close();
  });

  it('opens every pair, the one at the base first, and bootstraps each', () => {
    assert.deepEqual(s.running.runtimes.map((r) => [r.dataspace.id, r.role, r.dataspace.base]), [
      ['end-user', 'end-user', base],
      ['admin', 'admin', `${base}admin/`],
      ['second', 'end-user', second],
      ['second-admin', 'admin', `${second}admin/`],
      ['other', 'end-user', other],
      ['other-admin', 'admin', `${other}admin/`],
    ]);
    for (const [endUser, admin] of [[base, `${base}admin/`], [second, `${second}admin/`], [other, `${other}admin/`]]) {
      assert.ok(lines.includes(`bootstrapping ${endUser} and ${admin}`), lines.join('\n'));
    }
    // the owner and the secretary are agents of the first pair, and own every pair
    assert.ok(s.running.agents.owner.webId.startsWith(`${base}admin/acl/agents/`));
  });

  it('serves each pair side by side: roots, admin containers, the owners group naming the one owner', async () => {
    for (const [root, request] of [[base, s.request], [second, s.request], [other, atOther]] as const) {
      const path = root === other ? '/' : root;
      const res = await request('GET', path, { headers: { Accept: 'application/n-triples' } });
      assert.equal(res.status, 200, `${root}: ${res.body}`);
      assert.match(res.body, new RegExp(`<${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}> <${ns.dct}title> "Lodestone"`));
      const owners = await request('GET', `${path}admin/acl/groups/owners/`, { headers: { Accept: 'application/n-triples' } });
      assert.equal(owners.status, 200, owners.body);
      assert.ok(owners.body.includes(`<${s.running.agents.owner.webId}>`), `the owners of ${root} are the one owner`);
    }
    // system endpoints go by role: the second admin dataspace has a signup form, the second end-user dataspace none
    assert.equal((await s.request('GET', `${second}admin/sign%20up`, { as: 'anonymous' })).status, 200);
    const asDocument = await s.request('GET', `${second}sign%20up`, { as: 'anonymous' });
    assert.equal(asDocument.status, (await s.request('GET', '/sign%20up', { as: 'anonymous' })).status);
    assert.notEqual(asDocument.status, 200);
  });

  it('keeps each dataspace in its own git repository', async () => {
    const before = Object.fromEntries(['end-user', 'second', 'other'].map((id) => [id, commitCount(repo(id))]));
    const put = await s.request('PUT', `${second}kept/`, { headers: turtle, body: '<#this> <http://example.org/says> "second" .' });
    assert.equal(put.status, 201, put.body);
    assert.equal(commitCount(repo('second')), before.second! + 1);
    assert.equal(git(repo('second'), 'log', '-1', '--format=%s').trim(), `PUT ${second}kept/`);
    assert.ok(git(repo('second'), 'ls-tree', '-r', '--name-only', 'HEAD').split('\n').includes('graphs/kept.nt'));
    assert.equal(commitCount(repo('end-user')), before['end-user'], 'no commit in the first end-user repository');
    assert.equal(commitCount(repo('other')), before.other, 'no commit in the other host’s repository');
    for (const id of ['end-user', 'admin', 'other', 'other-admin']) assert.doesNotMatch(git(repo(id), 'log', '--format=%s'), /second\/kept/);
    assert.match(git(repo('second-admin'), 'log', '--format=%s'), new RegExp(`PUT ${second}admin/acl/authorizations/`), 'the second admin holds its own authorizations');
  });

  it('answers a document of one dataspace 404 through the URL space of another', async () => {
    assert.equal((await atOther('PUT', '/only-other/', { headers: turtle, body: '<#this> <http://example.org/says> "other" .' })).status, 201);
    assert.equal((await s.request('PUT', '/only-first/', { headers: turtle, body: '<#this> <http://example.org/says> "first" .' })).status, 201);
    assertRdfError(await s.request('GET', '/only-other/'), 404);
    assertRdfError(await s.request('GET', `${second}only-other/`), 404);
    assertRdfError(await atOther('GET', '/only-first/'), 404);
    assertRdfError(await s.request('GET', `${second}only-first/`), 404);
    assertRdfError(await atOther('GET', '/kept/'), 404);
    assertRdfError(await s.request('GET', '/kept/'), 404);
    assert.equal((await s.request('GET', `${second}kept/`)).status, 200);
    assert.equal((await atOther('GET', '/only-other/')).status, 200);
  });

  it('queries each dataspace in its own index', async () => {
    const json = { Accept: 'application/sparql-results+json' };
    const answer = async (res: { status: number; body: string }) => {
      assert.equal(res.status, 200, res.body);
      return (JSON.parse(res.body) as { boolean: boolean }).boolean;
    };
    assert.equal(await answer(await s.request('GET', `${second}${ASK('second')}`, { headers: json })), true);
    assert.equal(await answer(await s.request('GET', `/${ASK('second')}`, { headers: json })), false);
    assert.equal(await answer(await atOther('GET', `/${ASK('second')}`, { headers: json })), false);
    assert.equal(await answer(await s.request('GET', `/${ASK('first')}`, { headers: json })), true);
    assert.equal(await answer(await s.request('GET', `${second}${ASK('first')}`, { headers: json })), false);
    assert.equal(await answer(await atOther('GET', `/${ASK('other')}`, { headers: json })), true);
    assert.equal(await answer(await s.request('GET', `/${ASK('other')}`, { headers: json })), false);
  });

  it('decides access in each pair by its own admin dataspace', async () => {
    // the second admin makes one of its documents public, and tries to make one of the first pair's public
    await s.request('PUT', `${second}shared/`, { headers: turtle, body: '<#this> <http://example.org/says> "shared" .' });
    await s.request('PUT', '/guarded/', { headers: turtle, body: '<#this> <http://example.org/says> "guarded" .' });
    for (const [slug, document] of [['public-shared', `${second}shared/`], ['foreign', `${base}guarded/`]]) {
      const res = await s.request('PUT', `${second}admin/acl/authorizations/${slug}/`, { headers: turtle, body: publicRead(document!) });
      assert.equal(res.status, 201, res.body);
    }
    assert.equal((await s.request('GET', `${second}shared/`, { as: 'anonymous' })).status, 200, 'public in the second pair');
    assertRdfError(await s.request('GET', '/guarded/', { as: 'anonymous' }), 403);
    // and the other way round: the first admin's authorization does nothing in the second pair
    await s.request('PUT', `${second}private/`, { headers: turtle, body: '<#this> <http://example.org/says> "private" .' });
    const res = await s.request('PUT', '/admin/acl/authorizations/foreign/', { headers: turtle, body: publicRead(`${second}private/`) + publicRead(`${base}guarded/`).replace('<#this>', '<#guarded>') });
    assert.equal(res.status, 201, res.body);
    assertRdfError(await s.request('GET', `${second}private/`, { as: 'anonymous' }), 403);
    assert.equal((await s.request('GET', '/guarded/', { as: 'anonymous' })).status, 200, 'public in the first pair');
    assertRdfError(await atOther('GET', '/only-other/', { as: 'anonymous' }), 403);
  });

  it('reindexes every declared dataspace from the command line', () => {
    const out = execFileSync(process.execPath, ['bin/lodestone.js', 'reindex', '--data', data], { encoding: 'utf8' });
    for (const id of ['end-user', 'admin', 'second', 'second-admin', 'other', 'other-admin']) assert.match(out, new RegExp(`^${id}: \\d+ documents`, 'm'));
  });

  it('bootstraps nothing again on a restart', async () => {
    const counts = () => ['end-user', 'admin', 'second', 'second-admin', 'other', 'other-admin'].map((id) => commitCount(repo(id)));
    await s.close();
    const before = counts();
    lines.length = 0;
    s = await startServer(['--port', String(port)], data, (line) => lines.push(line));
    assert.deepEqual(lines.filter((line) => /bootstrapping|writing the default/.test(line)), []);
    assert.deepEqual(counts(), before);
    assert.equal((await s.request('GET', `${second}kept/`)).status, 200);
  });
});

describe('a bad declaration of dataspaces', () => {
  /** Starts a server on a new data directory whose system.ttl is `declarations`; resolves to the error it stops with. */
  async function refusal(declarations: (base: string) => string): Promise<string> {
    const data = tempDir('bad-dataspaces');
    const port = await freePort();
    const base = `https://localhost:${port}/`;
    writeFileSync(join(data, 'system.ttl'), prefixes + declarations(base));
    const config = serveConfig(['--data', data, '--port', String(port), '--no-watch', '--access-log', 'off']);
    if (config === 'help') throw new Error('unexpected --help');
    let message = '';
    await assert.rejects(serve(config, () => undefined), (error: Error) => {
      message = error.message;
      return true;
    });
    assert.ok(message.startsWith(`${join(data, 'system.ttl')}: `), `the message names the file: ${message}`);
    return message;
  }

  it('stops the start when an end-user application has no admin application', async () => {
    assert.match(await refusal((base) => `<${base}> a lapp:EndUserApplication ; dct:identifier "end-user" .\n`), /<https:\/\/localhost:\d+\/> needs lapp:adminApplication/);
  });

  it('stops the start when the admin application is not declared', async () => {
    assert.match(await refusal((base) => `<${base}> a lapp:EndUserApplication ; dct:identifier "end-user" ; lapp:adminApplication <${base}admin/> .\n`), /admin\/>, the admin application of .* is not declared: add .* a lapp:AdminApplication/);
  });

  it('stops the start when two applications have the same id', async () => {
    const message = await refusal((base) => pair(base, 'end-user', `${base}admin/`, 'admin') + pair(`${base}second/`, 'second', `${base}second/admin/`, 'admin'));
    assert.match(message, /are both identified as "admin": give each its own dct:identifier/);
  });

  it('stops the start when an id is not a folder name', async () => {
    assert.match(await refusal((base) => pair(base, '../end-user', `${base}admin/`, 'admin')), /needs one dct:identifier of up to 64 letters, digits, - or _/);
  });

  it('stops the start when no pair is declared at the base', async () => {
    assert.match(await refusal((base) => pair(`${base}elsewhere/`, 'end-user', `${base}elsewhere/admin/`, 'admin')), /no lapp:EndUserApplication is declared at <https:\/\/localhost:\d+\/>, the server's base \(--base\): declare it, or start the server with --base set to one of <https:\/\/localhost:\d+\/elsewhere\/>/);
  });
});
