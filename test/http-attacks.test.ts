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
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Dataspace } from '../src/dataspace.js';
import { ns } from '../src/rdf/namespaces.js';
import { defaultSystemConfig } from '../src/system-config.js';
import { headOf, removeTempDirs, tempDir } from './helpers.js';
import { freePort, header, putTurtle, startServer, turtle, type TestServer } from './http-helpers.js';

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
