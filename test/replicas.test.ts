/**
 * Read replicas (issue 29) on loopback: a primary over real TLS and two replicas that follow it
 * with git (`serve --replica-of`, the secretary's certificate, the primary's own certificate
 * trusted). A write to the primary reaches both, in git and over HTTP; a write sent to a replica is
 * answered with a 307 to the primary, where it lands; `Lodestone-Min-Commit` reads one's own
 * writes; a replica without the secretary's certificate is refused; with the primary stopped the
 * replicas serve reads, a replica restarted meanwhile too, and it catches up once the primary is back.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { git, headOf, removeTempDirs, tempDir } from './helpers.js';
import { header, signUp, startServer, type TestServer } from './http-helpers.js';

const TURTLE = { 'Content-Type': 'text/turtle' };
let primary: TestServer;
let port: number;
let ca: string;
const replicas: TestServer[] = [];

/** A replica's data directory: the primary's system.ttl and secrets/, as the README says to copy them. */
function replicaData(secretaryPem?: string): string {
  const dir = tempDir('replica');
  cpSync(join(primary.data, 'system.ttl'), join(dir, 'system.ttl'));
  cpSync(join(primary.data, 'secrets'), join(dir, 'secrets'), { recursive: true });
  if (secretaryPem) writeFileSync(join(dir, 'secrets', 'secretary.pem'), secretaryPem, { mode: 0o600 });
  return dir;
}

/** A replica's waits made short: a commit that does not come is sent on after 300 ms, a primary away is tried again within 400 ms. */
const QUICK = { replicaTimings: { minCommitWaitMs: 300, retryFirstMs: 50, retryMostMs: 400 } };
const startReplica = (dir: string) => startServer(['--replica-of', primary.base, '--replica-ca', ca, '--base', primary.base], dir, undefined, QUICK);
const endUserRepo = (s: TestServer) => s.running.runtimes[0]!.dataspace.store.dir;

before(async () => {
  primary = await startServer([], undefined, undefined, {}, { tls: true });
  port = primary.port;
  const dir = tempDir('replica-ca');
  mkdirSync(dir, { recursive: true });
  ca = join(dir, 'server.pem');
  writeFileSync(ca, primary.running.agents.server.certPem);
  assert.equal((await primary.request('PUT', '/replicated/', { headers: TURTLE, body: '<#this> <http://purl.org/dc/terms/title> "before the replicas" .' })).status, 201);
  for (let i = 0; i < 2; i++) replicas.push(await startReplica(replicaData()));
});
after(async () => {
  await Promise.all([primary.close(), ...replicas.map((r) => r.close())]);
  removeTempDirs();
});

/** Polls `read` until it holds, for up to `ms`. */
async function eventually(read: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await read())) {
    if (Date.now() > deadline) throw new Error('not within the time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('read replicas', () => {
  it('start as copies of the primary, SHA for SHA, and say so in their status', async () => {
    for (const replica of replicas) {
      assert.equal(headOf(endUserRepo(replica)), headOf(endUserRepo(primary)));
      const res = await replica.request('GET', '/replicated/', { headers: { Accept: 'text/turtle' } });
      assert.equal(res.status, 200, res.body);
      assert.match(res.body, /before the replicas/);
      assert.equal(header(res, 'lodestone-commit'), headOf(endUserRepo(primary)));
      const status = JSON.parse((await replica.request('GET', '/status')).body) as { dataspaces: { replica: { primary: string; caughtUp: boolean } | null }[] };
      assert.equal(status.dataspaces[0]!.replica?.primary, primary.base);
    }
  });

  it('follow a write to the primary, in git and over HTTP, and read it at once with Lodestone-Min-Commit', async () => {
    const put = await primary.request('PUT', '/followed/', { headers: TURTLE, body: '<#this> <http://purl.org/dc/terms/title> "followed" .' });
    assert.equal(put.status, 201);
    const commit = header(put, 'lodestone-commit')!;
    assert.equal(commit, headOf(endUserRepo(primary)));
    for (const replica of replicas) {
      const res = await replica.request('GET', '/followed/', { headers: { Accept: 'text/turtle', 'Lodestone-Min-Commit': commit } });
      assert.equal(res.status, 200, res.body);
      assert.match(res.body, /"followed"/);
      assert.equal(git(endUserRepo(replica), 'show', `${commit}:graphs/followed.nt`).includes('"followed"'), true);
      const query = encodeURIComponent('SELECT ?t WHERE { GRAPH ?g { ?s <http://purl.org/dc/terms/title> ?t } }');
      const answers = await replica.request('GET', `/sparql?query=${query}`, { headers: { Accept: 'application/sparql-results+json', 'Lodestone-Min-Commit': commit } });
      assert.match(answers.body, /"followed"/);
      // the commit came with the primary's answer to the replica's question for HEAD: no git fetch spawned
      const status = JSON.parse((await replica.request('GET', '/status')).body) as { dataspaces: { replica: { rounds: { packed: number; fetched: number }; lagCommits: number } }[] };
      assert.ok(status.dataspaces[0]!.replica.rounds.packed >= 1, JSON.stringify(status.dataspaces[0]!.replica));
      assert.equal(status.dataspaces[0]!.replica.lagCommits, 0);
      git(endUserRepo(replica), 'fsck', '--strict', '--no-dangling');
    }
  });

  it('name a document’s own last commit, so a public document’s answers tell nothing of writes to a private one, and still read one’s own writes', async () => {
    const acl = 'http://www.w3.org/ns/auth/acl#';
    const rule = `<#this> a <${acl}Authorization> ; <${acl}agentClass> <http://xmlns.com/foaf/0.1/Agent> ; <${acl}mode> <${acl}Read> ; <${acl}accessTo> <${primary.base}open/> .`;
    assert.equal((await primary.request('PUT', '/admin/acl/authorizations/open-read/', { headers: TURTLE, body: rule })).status, 201);
    const written = await primary.request('PUT', '/open/', { headers: TURTLE, body: '<#this> <http://purl.org/dc/terms/title> "open" .' });
    assert.equal(written.status, 201);
    const openCommit = header(written, 'lodestone-commit')!;
    const privateWrite = await primary.request('PUT', '/closed/', { headers: TURTLE, body: '<#this> <http://purl.org/dc/terms/title> "closed" .' });
    const closedCommit = header(privateWrite, 'lodestone-commit')!;
    assert.notEqual(closedCommit, openCommit);
    assert.equal(closedCommit, headOf(endUserRepo(primary)));
    for (const server of [primary, ...replicas]) {
      // anonymous, on the fast path and through Koa (a Min-Commit request), in RDF and HTML, GET and HEAD
      for (const headers of [{ Accept: 'text/turtle' }, { Accept: 'text/html' }, { Accept: 'text/turtle', 'Lodestone-Min-Commit': closedCommit }] as Record<string, string>[]) {
        for (const method of ['GET', 'HEAD']) {
          const res = await server.request(method, '/open/', { as: 'anonymous', headers });
          assert.equal(res.status, 200, `${method} ${JSON.stringify(headers)}: ${res.body}`);
          assert.equal(header(res, 'lodestone-commit'), openCommit, `${server === primary ? 'primary' : 'replica'} ${method} ${JSON.stringify(headers)}`);
        }
      }
      // the private one names its own; a SPARQL answer reflects the whole dataspace (its readers read every graph)
      assert.equal(header(await server.request('GET', '/closed/', { headers: { Accept: 'text/turtle', 'Lodestone-Min-Commit': closedCommit } }), 'lodestone-commit'), closedCommit);
      const ask = await server.request('GET', `/sparql?query=${encodeURIComponent('ASK {}')}`, { headers: { Accept: 'application/sparql-results+json', 'Lodestone-Min-Commit': closedCommit } });
      assert.equal(header(ask, 'lodestone-commit'), closedCommit);
    }
  });

  it('send writes to the primary with a 307, where they land; the replica never commits', async () => {
    const replica = replicas[0]!;
    const before = headOf(endUserRepo(replica));
    const body = '<#this> <http://purl.org/dc/terms/title> "sent on" .';
    const res = await replica.request('PUT', '/sent-on/?x=1', { headers: TURTLE, body });
    assert.equal(res.status, 307);
    assert.equal(header(res, 'location'), `${primary.base}sent-on/?x=1`);
    const landed = await primary.request('PUT', header(res, 'location')!, { headers: TURTLE, body });
    assert.equal(landed.status, 201);
    const commit = header(landed, 'lodestone-commit')!;
    assert.equal((await replica.request('GET', '/sent-on/', { headers: { 'Lodestone-Min-Commit': commit, Accept: 'text/turtle' } })).status, 200);
    assert.notEqual(headOf(endUserRepo(replica)), before);
    assert.equal(headOf(endUserRepo(replica)), headOf(endUserRepo(primary)), 'the replica holds the primary’s commits, and none of its own');
    for (const method of ['POST', 'PATCH', 'DELETE']) assert.equal((await replica.request(method, '/sent-on/', { headers: TURTLE, body: '' })).status, 307, method);
    // nor does anything inside it write (a login's new agent, say): the copy would part from the primary's history
    await assert.rejects(replica.running.runtimes[1]!.documents.write({ method: 'PUT', relativePath: 'acl/agents/inside/', agent: undefined, body: { text: '<#this> a <http://xmlns.com/foaf/0.1/Agent> .', mediaType: 'text/turtle' } }), /read replica/);
    assert.equal(headOf(endUserRepo(replica)), headOf(endUserRepo(primary)));
    // a replica follows main only: a branch, its change request and its merge are the primary's, whatever the method
    for (const [method, path] of [['GET', '/sent-on/?branch=draft'], ['PUT', '/sent-on/?branch=draft'], ['GET', '/?branch=draft&changes'], ['POST', '/?branch=draft&changes']] as const) {
      const sent = await replica.request(method, path, { headers: TURTLE, body: method === 'PUT' ? body : undefined });
      assert.equal(sent.status, 307, `${method} ${path}`);
      assert.equal(header(sent, 'location'), `${primary.base}${path.slice(1)}`);
    }
    // a query sent by POST is a read: answered here
    const query = await replica.request('POST', '/sparql', { headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' }, body: 'ASK {}' });
    assert.equal(query.status, 200);
  });

  it('send a read to the primary when the commit it asks for does not come, and refuse a malformed one', async () => {
    const res = await replicas[1]!.request('GET', '/followed/', { headers: { 'Lodestone-Min-Commit': 'f'.repeat(40) } });
    assert.equal(res.status, 307);
    assert.equal(header(res, 'location'), `${primary.base}followed/`);
    assert.equal((await replicas[1]!.request('GET', '/followed/', { headers: { 'Lodestone-Min-Commit': 'HEAD' } })).status, 400);
  });

  it('refuse to start a replica that holds another certificate than the secretary’s: the primary does not serve it', async () => {
    const stranger = await signUp(primary, 'Would-be Replica');
    await assert.rejects(startReplica(replicaData(stranger.pem)), /403/);
  });

  it('serve reads with the primary stopped, a replica restarted meanwhile too, which catches up once the primary is back', async () => {
    const head = headOf(endUserRepo(primary));
    const primaryData = primary.data;
    await primary.close();
    for (const replica of replicas) assert.equal((await replica.request('GET', '/followed/', { headers: { Accept: 'text/turtle' } })).status, 200);
    const restartedData = replicas[1]!.data;
    await replicas[1]!.close();
    replicas[1] = await startReplica(restartedData);
    assert.equal(headOf(endUserRepo(replicas[1]!)), head);
    assert.equal((await replicas[1]!.request('GET', '/followed/', { headers: { Accept: 'text/turtle' } })).status, 200);
    primary = await startServer(['--port', String(port)], primaryData, undefined, {}, { tls: true });
    const put = await primary.request('PUT', '/after-the-outage/', { headers: TURTLE, body: '<#this> <http://purl.org/dc/terms/title> "back" .' });
    assert.equal(put.status, 201);
    for (const replica of replicas) {
      await eventually(async () => (await replica.request('GET', '/after-the-outage/', { headers: { Accept: 'text/turtle' } })).status === 200);
    }
  });
});
