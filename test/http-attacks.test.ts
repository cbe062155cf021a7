/**
 * Attacks on the boundaries of issue 25 tried from outside, after its fixes: each test is written as
 * the attacker and asserts the boundary holds (the source of truth unmoved). Here: an origin that one
 * dataspace trusts (`lds:corsOrigin`) is no one in another dataspace of the same server, through the
 * proxy (`?uri=`) too; a co-hosted process running as another user reads no repository. One
 * server: a pair at https://localhost:<port>/, its proxy allowed to reach loopback (as a server
 * reached at its public name reaches itself).
 */
import assert from 'node:assert/strict';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Dataspace } from '../src/dataspace.js';
import { ns } from '../src/rdf/namespaces.js';
import { defaultSystemConfig } from '../src/system-config.js';
import { headOf, removeTempDirs, tempDir } from './helpers.js';
import { freePort, header, putTurtle, signUp, startServer, turtle, type Response, type TestServer } from './http-helpers.js';

const END_USER_APP = 'https://dataspace-app.example'; // lds:corsOrigin of the end-user dataspace only

let s: TestServer;
let adminRepo: string;

before(async () => {
  const data = tempDir('attacks');
  chmodSync(data, 0o755); // as `mkdir data` leaves it: others may enter
  const port = await freePort();
  const base = `https://localhost:${port}/`;
  writeFileSync(join(data, 'system.ttl'), `${defaultSystemConfig(base)}\n<${base}> lds:corsOrigin <${END_USER_APP}> .\n`);
  s = await startServer(['--port', String(port), '--allow-internal-urls'], data);
  adminRepo = s.running.runtimes[1]!.dataspace.store.dir;
  await putTurtle(s, 'private/', `<#this> <${ns.dct}title> "private" .`);
});
after(async () => {
  await s?.close();
  removeTempDirs();
});

const proxied = (url: string) => `/?uri=${encodeURIComponent(url)}`;
const fromApp = { Origin: END_USER_APP, 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'cors' };

describe('an origin one dataspace trusts, in the owner’s browser', () => {
  it('acts as the owner in that dataspace', async () => {
    const res = await s.request('GET', 'private/', { headers: { ...fromApp, Accept: 'text/turtle' } });
    assert.equal(res.status, 200, res.body);
    assert.equal(header(res, 'access-control-allow-credentials'), 'true');
  });

  it('is anonymous in the admin dataspace, directly and through the end-user dataspace’s proxy', async () => {
    const owner = s.running.agents.owner.webId;
    const authorizations = `${s.admin}acl/authorizations/`;
    assert.equal((await s.request('GET', `${authorizations}owners/`, { headers: { ...fromApp, Accept: 'text/turtle' } })).status, 403, 'directly');
    const read = await s.request('GET', proxied(`${authorizations}owners/`), { headers: { ...fromApp, Accept: 'text/turtle' } });
    assert.equal(read.status, 403, `the proxy read the owners' authorization for the app: ${read.body.slice(0, 300)}`);
    const head = headOf(adminRepo);
    const grant = `<#this> a <${ns.acl}Authorization> ; <${ns.acl}agentClass> <${ns.foaf}Agent> ; <${ns.acl}mode> <${ns.acl}Read>, <${ns.acl}Write>, <${ns.acl}Control> ; <${ns.acl}accessTo> <${s.base}> ; <${ns.acl}default> <${s.base}> .`;
    const write = await s.request('PUT', proxied(`${authorizations}by-the-app/`), { headers: { ...fromApp, ...turtle }, body: grant });
    assert.equal(write.status, 403, `the proxy wrote an authorization as ${owner} for the app: ${write.body.slice(0, 300)}`);
    assert.equal(headOf(adminRepo), head, 'the admin HEAD did not move');
  });
});

describe('a stranger who may only add to a container', () => {
  it('creates a document there, and replaces none made while its body was coming', async () => {
    const stranger = await signUp(s, 'Mallory');
    const acl = ns.acl;
    await putTurtle(s, 'drop/', `<> a <${ns.dh}Container> .`);
    await putTurtle(s, '/admin/acl/authorizations/drop-append/', `<#this> a <${acl}Authorization> ; <${acl}agentClass> <${acl}AuthenticatedAgent> ; <${acl}mode> <${acl}Append> ; <${acl}accessTo> <${s.base}drop/> ; <${acl}default> <${s.base}drop/> .`);
    // the stranger's PUT is authorized as a creation (the document is not there yet, Append on drop/): watch for that decision
    const runtime = s.running.runtimes[0]!;
    const access = runtime.access;
    const modesOn = access.modesOn.bind(access);
    let decided!: () => void;
    const authorized = new Promise<void>((resolve) => (decided = resolve));
    access.modesOn = async (...args: Parameters<typeof modesOn>) => {
      const modes = await modesOn(...args);
      if (args[1] === 'drop/' && args[2] === stranger.webId) decided();
      return modes;
    };
    let finish!: () => void;
    const put = new Promise<Response>((resolve, reject) => {
      const req = httpsRequest(new URL('drop/report/', s.base), { method: 'PUT', headers: { ...turtle, 'If-Match': '*' }, cert: stranger.pem, key: stranger.pem, rejectUnauthorized: false, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.write('<#this> <http://purl.org/dc/terms/title> ');
      finish = () => req.end('"the stranger’s" .');
    });
    try {
      await authorized;
    } finally {
      access.modesOn = modesOn;
    }
    // meanwhile, the owner files a report there
    const made = await s.request('PUT', 'drop/report/', { headers: { ...turtle, 'If-None-Match': '*' }, body: '<#this> <http://purl.org/dc/terms/title> "the owner’s" .' });
    assert.equal(made.status, 201, made.body);
    const head = headOf(runtime.dataspace.store.dir);
    finish();
    const res = await put;
    assert.equal(res.status, 403, `the stranger, who may only add to drop/, replaced the owner’s report: ${res.status} ${res.body.slice(0, 300)}`);
    assert.equal(headOf(runtime.dataspace.store.dir), head, 'no commit');
    assert.match((await s.request('GET', 'drop/report/', { headers: { Accept: 'application/n-triples' } })).body, /the owner’s/);
    // with no document there, the same PUT creates one, as Append on the container allows
    const created = await s.request('PUT', 'drop/other/', { as: { pem: stranger.pem }, headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "the stranger’s" .' });
    assert.equal(created.status, 201, created.body);
  });
});

describe('a co-hosted process running as another user', () => {
  it('cannot enter a repository, whatever the data directory’s own mode', () => {
    for (const runtime of s.running.runtimes) {
      const dir = runtime.dataspace.store.dir;
      assert.equal(statSync(dir).mode & 0o077, 0, `${dir} is mode ${(statSync(dir).mode & 0o777).toString(8)}: others read every document in it`);
    }
  });

  it('is said at start when a repository made earlier is open to it', async () => {
    const dir = tempDir('open-repository');
    const first = await Dataspace.open({ id: 'old', base: 'https://localhost:4443/', dir, log: () => undefined });
    await first.close();
    chmodSync(dir, 0o755); // as an earlier version made it
    const lines: string[] = [];
    const again = await Dataspace.open({ id: 'old', base: 'https://localhost:4443/', dir, log: (line) => lines.push(line) });
    await again.close();
    assert.ok(lines.some((line) => line.includes(`${dir} may be entered by other users of this host`) && line.includes('chmod 700')), lines.join('\n'));
  });
});
