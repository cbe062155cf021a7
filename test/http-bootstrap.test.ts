/**
 * `lodestone serve` on an empty data directory (DESIGN.md, "Command line"; src/bootstrap.ts): the
 * real CLI as a child process bootstraps both dataspaces, the owner and secretary agents with their
 * public keys and client certificates, and the server's TLS certificate; a restart on the same
 * directory bootstraps nothing again and keeps every document. Checked against git and the files.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Quad } from '@rdfjs/types';
import { serveOptions } from '../src/config.js';
import { ns } from '../src/rdf/namespaces.js';
import { parseRdf } from '../src/rdf/ntriples.js';
import { commitCount, git, removeTempDirs, tempDir } from './helpers.js';
import { freePort, sendRequest, type Response } from './http-helpers.js';

const RDF_TYPE = ns.rdf + 'type';

interface Cli {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts `node bin/lodestone.js serve` and resolves once it prints `listening on <base>`. */
async function startCli(data: string, port: number): Promise<Cli> {
  const child = spawn(process.execPath, ['bin/lodestone.js', 'serve', '--data', data, '--port', String(port)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = `listening on https://localhost:${port}/`;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${ready}" within 60 s\nstdout:\n${out}\nstderr:\n${err}`)), 60_000);
    const check = () => {
      if (out.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`lodestone serve exited with ${code} before listening\nstdout:\n${out}\nstderr:\n${err}`));
    });
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function stopCli(cli: Cli): Promise<number | null> {
  if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGTERM');
  return cli.exited;
}

function send(url: string, options: { method?: string; pem?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Response> {
  return sendRequest(url, { method: options.method ?? 'GET', headers: options.headers, rejectUnauthorized: false, agent: false, ...(options.pem ? { cert: options.pem, key: options.pem } : {}) }, options.body);
}

const ntriples = { Accept: 'application/n-triples' };

function objectsOf(graph: readonly Quad[], subject: string, predicate: string): Quad['object'][] {
  return graph.filter((q) => q.subject.value === subject && q.predicate.value === predicate).map((q) => q.object);
}

function certificateOf(pem: string): string {
  const cert = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/.exec(pem)?.[0];
  assert.ok(cert, 'the PEM file holds a certificate');
  return cert;
}

function modulusOf(cert: X509Certificate): { modulus: string; exponent: number } {
  const jwk = cert.publicKey.export({ format: 'jwk' });
  assert.equal(jwk.kty, 'RSA');
  return {
    modulus: Buffer.from(jwk.n!, 'base64url').toString('hex').replace(/^0+/, ''),
    exponent: parseInt(Buffer.from(jwk.e!, 'base64url').toString('hex'), 16),
  };
}

after(removeTempDirs);

describe('lodestone serve on an empty data directory', () => {
  const data = tempDir('bootstrap');
  const endUserRepo = join(data, 'dataspaces', 'end-user');
  const adminRepo = join(data, 'dataspaces', 'admin');
  let port: number;
  let base: string;
  let admin: string;
  let cli: Cli;
  let ownerPem: string;
  let secretaryPem: string;
  let ownerWebId: string;
  let secretaryWebId: string;

  before(async () => {
    port = await freePort();
    base = `https://localhost:${port}/`;
    admin = `${base}admin/`;
    cli = await startCli(data, port);
    ownerPem = readFileSync(join(data, 'secrets', 'owner.pem'), 'utf8');
    secretaryPem = readFileSync(join(data, 'secrets', 'secretary.pem'), 'utf8');
    ownerWebId = /owner WebID: (\S+)/.exec(cli.stdout())?.[1] ?? '';
    secretaryWebId = /URI:([^,\s]+)/.exec(new X509Certificate(certificateOf(secretaryPem)).subjectAltName ?? '')?.[1] ?? '';
  });

  after(async () => {
    if (cli) await stopCli(cli);
  });

  it('prints the owner’s WebID and the certificate paths', () => {
    const out = cli.stdout();
    assert.ok(ownerWebId, `stdout names the owner's WebID:\n${out}`);
    assert.match(ownerWebId, new RegExp(`^${admin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}acl/agents/[0-9a-f-]{36}/#this$`));
    assert.ok(out.includes(join(data, 'secrets', 'owner.pem')), 'stdout names owner.pem');
    assert.ok(out.includes(join(data, 'secrets', 'secretary.pem')), 'stdout names secretary.pem');
  });

  it('writes owner.pem and secretary.pem (certificate, then key, mode 0600) and server.pem', () => {
    for (const name of ['owner.pem', 'secretary.pem', 'server.pem']) {
      const file = join(data, 'secrets', name);
      assert.ok(existsSync(file), `${file} exists`);
      const pem = readFileSync(file, 'utf8');
      const cert = pem.indexOf('-----BEGIN CERTIFICATE-----');
      const key = pem.search(/-----BEGIN (RSA |EC )?PRIVATE KEY-----/);
      assert.ok(cert >= 0 && key > cert, `${name} holds the certificate followed by the private key`);
      assert.equal(statSync(file).mode & 0o777, 0o600, `${name} is readable by its owner only`);
    }
    const server = new X509Certificate(certificateOf(readFileSync(join(data, 'secrets', 'server.pem'), 'utf8')));
    assert.ok(server.checkHost('localhost'), `the server certificate names localhost (${server.subjectAltName})`);
  });

  it('writes owner.p12 for a browser under a random password kept beside it (0600 both), and says what to import and open, never the password', () => {
    const file = join(data, 'secrets', 'owner.p12');
    const passwordFile = join(data, 'secrets', 'owner.p12.password');
    for (const f of [file, passwordFile]) assert.equal(statSync(f).mode & 0o777, 0o600, `${f} is readable by its owner only`);
    const password = readFileSync(passwordFile, 'utf8').trim();
    assert.match(password, /^[\w-]{16}$/);
    // it opens with that password and holds the owner's certificate and key
    const context = createSecureContext({ pfx: readFileSync(file), passphrase: password });
    assert.ok(context);
    assert.throws(() => createSecureContext({ pfx: readFileSync(file), passphrase: 'lodestone' }));
    const out = cli.stdout();
    assert.ok(out.includes(`import ${file}`) && out.includes(passwordFile) && out.includes(`then open ${base}`), out);
    assert.ok(!out.includes(password) && !cli.stderr().includes(password), 'the password is never printed');
  });

  it('issues client certificates whose SubjectAltName URI is the agent’s WebID', () => {
    const owner = new X509Certificate(certificateOf(ownerPem));
    const secretary = new X509Certificate(certificateOf(secretaryPem));
    const uri = (cert: X509Certificate) => [...(cert.subjectAltName ?? '').matchAll(/URI:([^,\s]+)/g)].map((m) => m[1]);
    assert.deepEqual(uri(owner), [ownerWebId]);
    const [secretaryUri] = uri(secretary);
    assert.ok(secretaryUri, 'the secretary certificate names a WebID');
    assert.match(secretaryUri, /\/admin\/acl\/agents\/[0-9a-f-]{36}\/#this$/);
    assert.ok(secretaryUri.startsWith(admin));
    assert.notEqual(secretaryUri, ownerWebId);
    assert.equal(secretaryUri, secretaryWebId);
  });

  it('answers a request made with the owner’s certificate over HTTPS', async () => {
    const res = await send(base, { pem: ownerPem, headers: ntriples });
    assert.equal(res.status, 200, res.body);
    const graph = parseRdf(res.body);
    const types = objectsOf(graph, base, RDF_TYPE).map((t) => t.value);
    assert.ok(types.includes(ns.def + 'Root'), `the end-user root is a def:Root: ${types.join(', ')}`);
    assert.ok(types.includes(ns.dh + 'Container'), `the end-user root is a dh:Container: ${types.join(', ')}`);
    const put = await send(`${base}before-restart/`, { method: 'PUT', pem: ownerPem, headers: { 'Content-Type': 'text/turtle' }, body: '<#this> <http://example.org/says> "kept" .' });
    assert.equal(put.status, 201, put.body);
  });

  it('creates the admin root and the containers acl/, acl/agents/, acl/public-keys/, acl/groups/, acl/authorizations/, ontologies/', async () => {
    const root = await send(admin, { pem: ownerPem, headers: ntriples });
    assert.equal(root.status, 200, root.body);
    const rootTypes = objectsOf(parseRdf(root.body), admin, RDF_TYPE).map((t) => t.value);
    assert.ok(rootTypes.includes(ns.def + 'Root'), `the admin root is a def:Root: ${rootTypes.join(', ')}`);
    assert.ok(rootTypes.includes(ns.dh + 'Container'), `the admin root is a container: ${rootTypes.join(', ')}`);
    const files = git(adminRepo, 'ls-tree', '-r', '--name-only', 'HEAD').split('\n');
    assert.ok(files.includes('graphs/root.nt'), 'the admin root is in git');
    for (const path of ['acl/', 'acl/agents/', 'acl/public-keys/', 'acl/groups/', 'acl/authorizations/', 'ontologies/']) {
      const res = await send(admin + path, { pem: ownerPem, headers: ntriples });
      assert.equal(res.status, 200, `${path}: ${res.body}`);
      const types = objectsOf(parseRdf(res.body), admin + path, RDF_TYPE).map((t) => t.value);
      assert.deepEqual(types, [ns.dh + 'Container'], `${path} is a dh:Container`);
      assert.ok(files.includes(`graphs/${path.slice(0, -1)}.nt`), `${path} is in git`);
    }
    assert.ok(git(endUserRepo, 'ls-tree', '-r', '--name-only', 'HEAD').split('\n').includes('graphs/root.nt'), 'the end-user root is in git');
  });

  for (const who of ['owner', 'secretary'] as const) {
    it(`publishes the ${who}’s agent document with a cert:key whose modulus is the certificate’s`, async () => {
      const webId = who === 'owner' ? ownerWebId : secretaryWebId;
      const pem = who === 'owner' ? ownerPem : secretaryPem;
      const documentUrl = webId.replace(/#this$/, '');
      assert.match(documentUrl, new RegExp(`^${admin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}acl/agents/[0-9a-f-]{36}/$`));
      const res = await send(documentUrl, { pem: ownerPem, headers: ntriples });
      assert.equal(res.status, 200, res.body);
      const agent = parseRdf(res.body);
      assert.ok(objectsOf(agent, webId, RDF_TYPE).some((t) => t.value === ns.foaf + 'Agent'), `${webId} is a foaf:Agent`);
      const keys = objectsOf(agent, webId, ns.cert + 'key');
      assert.equal(keys.length, 1, 'one cert:key');
      const keyIri = keys[0]!.value;
      const keyDocument = keyIri.replace(/#.*$/, '');
      assert.ok(keyDocument.startsWith(`${admin}acl/public-keys/`), `the key ${keyIri} is under acl/public-keys/`);
      const keyRes = await send(keyDocument, { pem: ownerPem, headers: ntriples });
      assert.equal(keyRes.status, 200, keyRes.body);
      const key = parseRdf(keyRes.body);
      const modulus = objectsOf(key, keyIri, ns.cert + 'modulus');
      const exponent = objectsOf(key, keyIri, ns.cert + 'exponent');
      assert.equal(modulus.length, 1);
      assert.equal(exponent.length, 1);
      assert.equal(modulus[0]!.termType, 'Literal');
      assert.equal((modulus[0] as Quad['object'] & { datatype: { value: string } }).datatype.value, ns.xsd + 'hexBinary');
      const expected = modulusOf(new X509Certificate(certificateOf(pem)));
      assert.equal(modulus[0]!.value.toLowerCase().replace(/^0+/, ''), expected.modulus, 'the published modulus is the certificate’s');
      assert.equal(Number(exponent[0]!.value), expected.exponent);
      // both documents are files in the admin repository
      const files = git(adminRepo, 'ls-tree', '-r', '--name-only', 'HEAD').split('\n');
      assert.ok(files.includes(`graphs/${documentUrl.slice(admin.length, -1)}.nt`));
      assert.ok(files.includes(`graphs/${keyDocument.slice(admin.length, -1)}.nt`));
    });
  }

  it('leaves both repositories clean for git fsck', () => {
    for (const dir of [endUserRepo, adminRepo]) {
      assert.ok(commitCount(dir) > 0, `${dir} has commits`);
      git(dir, 'fsck', '--strict', '--no-dangling');
    }
  });

  it('does not bootstrap again when restarted on the same directory, and keeps the documents', async () => {
    const countsBefore = [commitCount(endUserRepo), commitCount(adminRepo)];
    const headsBefore = [git(endUserRepo, 'rev-parse', 'HEAD'), git(adminRepo, 'rev-parse', 'HEAD')];
    const code = await stopCli(cli);
    assert.equal(code, 0, `SIGTERM stops the server cleanly\n${cli.stderr()}`);
    assert.deepEqual([commitCount(endUserRepo), commitCount(adminRepo)], countsBefore, 'stopping makes no commit');

    cli = await startCli(data, port);
    const out = cli.stdout();
    assert.doesNotMatch(out, /bootstrapping/, 'the second start does not bootstrap');
    assert.equal(/owner WebID: (\S+)/.exec(out)?.[1], ownerWebId, 'the same owner');
    assert.equal(readFileSync(join(data, 'secrets', 'owner.pem'), 'utf8'), ownerPem, 'owner.pem is unchanged');
    assert.equal(readFileSync(join(data, 'secrets', 'secretary.pem'), 'utf8'), secretaryPem, 'secretary.pem is unchanged');
    assert.deepEqual([commitCount(endUserRepo), commitCount(adminRepo)], countsBefore, 'the restart makes no commit');
    assert.deepEqual([git(endUserRepo, 'rev-parse', 'HEAD'), git(adminRepo, 'rev-parse', 'HEAD')], headsBefore);
    const agents = git(adminRepo, 'ls-tree', '--name-only', 'HEAD', 'graphs/acl/agents/').split('\n').filter(Boolean);
    assert.equal(agents.length, 2, `still two agents: ${agents.join(', ')}`);

    const kept = await send(`${base}before-restart/`, { pem: ownerPem, headers: ntriples });
    assert.equal(kept.status, 200, kept.body);
    assert.ok(objectsOf(parseRdf(kept.body), `${base}before-restart/#this`, 'http://example.org/says').some((o) => o.value === 'kept'));
    // the old certificate still authenticates the same owner
    const put = await send(`${base}after-restart/`, { method: 'PUT', pem: ownerPem, headers: { 'Content-Type': 'text/turtle' }, body: '' });
    assert.equal(put.status, 201, put.body);
    const created = await send(`${base}after-restart/`, { pem: ownerPem, headers: ntriples });
    assert.deepEqual(objectsOf(parseRdf(created.body), `${base}after-restart/`, ns.dct + 'creator').map((o) => o.value), [ownerWebId]);
    assert.equal(commitCount(endUserRepo), countsBefore[0]! + 1, 'one commit for the one write');
    for (const dir of [endUserRepo, adminRepo]) git(dir, 'fsck', '--strict', '--no-dangling');
  });
});

describe('lodestone serve --help', () => {
  it('documents every flag of src/config.ts', async () => {
    const child = spawn(process.execPath, ['bin/lodestone.js', 'serve', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    assert.equal(code, 0);
    for (const [name, spec] of Object.entries(serveOptions) as Array<[string, { description: string; default?: string | boolean }]>) {
      const line = out.split('\n').find((l) => new RegExp(`^\\s*--${name}(\\s|$)`).test(l));
      assert.ok(line, `--help lists --${name}:\n${out}`);
      assert.ok(line.includes(spec.description), `--${name} has its description`);
      if (typeof spec.default === 'string') assert.ok(line.includes(spec.default), `--${name} shows its default ${spec.default}`);
    }
  });
});
