/**
 * WebID-TLS (DESIGN.md, "Authentication"; src/auth/webid-tls.ts, src/http/authenticate.ts): the
 * owner's certificate authenticates; no certificate, an expired one or one without a WebID is
 * anonymous (reads what is public, but writes answer 403); a certificate naming a WebID whose document does not
 * list its key is a 401. Behind a proxy (`--http`), RFC 9440 `Client-Cert` is believed only from a
 * `--trusted-proxy` address (none by default) that sends the proxy secret, and never over HTTPS: a
 * header proves nothing about the private key, so one built from an agent's public key and signed
 * by any key must not be that agent. Every refused write is checked against git.
 */
import assert from 'node:assert/strict';
import { X509Certificate, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import forge from 'node-forge';
import { issueCredentials, readCredentials } from '../src/auth/certificates.js';
import { ns } from '../src/rdf/namespaces.js';
import { parseRdf } from '../src/rdf/ntriples.js';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { type WebIdVerifier } from '../src/auth/webid-tls.js';
import { serveConfig } from '../src/config.js';
import { Authenticator, PROXY_SECRET_HEADER } from '../src/http/authenticate.js';
import { readProxySecret } from '../src/system-config.js';
import { commitCount, git, removeTempDirs, tempDir } from './helpers.js';
import { assertRdfError, freePort, makePublic, sendRequest, startServer, turtle, type TestServer } from './http-helpers.js';

after(removeTempDirs);

const ntriples = { Accept: 'application/n-triples' };

function creatorOf(body: string, documentUrl: string): string[] {
  return parseRdf(body)
    .filter((q) => q.subject.value === documentUrl && q.predicate.value === ns.dct + 'creator')
    .map((q) => q.object.value);
}

/** A certificate for `keyPem` naming `webId`, valid from `notBefore` to `notAfter`, built with node-forge. */
function certificateFor(keyPem: string, webId: string | undefined, notBefore: Date, notAfter: Date): string {
  const privateKey = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(privateKey.n, privateKey.e);
  cert.serialNumber = '01' + randomBytes(15).toString('hex');
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = notAfter;
  const subject = [{ name: 'commonName', value: 'test' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  const extensions: object[] = [{ name: 'basicConstraints', cA: false }, { name: 'extKeyUsage', clientAuth: true }];
  if (webId) extensions.push({ name: 'subjectAltName', altNames: [{ type: 6, value: webId }] });
  cert.setExtensions(extensions);
  cert.sign(privateKey, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

/** RFC 9440: `:<base64 of the DER certificate>:`. */
function clientCertValue(pem: string): string {
  return `:${new X509Certificate(pem).raw.toString('base64')}:`;
}

const DAY = 86_400_000;

describe('WebID-TLS over HTTPS', () => {
  let s: TestServer;
  let repo: string;
  let ownerWebId: string;
  let ownerKeyPem: string;
  let ownerCertPem: string;

  before(async () => {
    s = await startServer([], undefined, undefined, {}, { tls: true }); // the TLS handshake itself
    await makePublic(s); // anonymous agents read here: the point is who they are, not what they may do
    repo = s.running.runtimes[0]!.dataspace.store.dir;
    ownerWebId = s.running.agents.owner.webId;
    const credentials = await readCredentials(s.running.agents.owner.credentialsFile);
    ownerKeyPem = credentials.keyPem;
    ownerCertPem = credentials.certPem;
  });
  after(() => s?.close());

  it('authenticates the owner’s certificate: the PUT is the owner’s, in the document and in git', async () => {
    const before = commitCount(repo);
    const res = await s.request('PUT', 'owned/', { headers: turtle, body: '<#this> <http://example.org/p> "o" .' });
    assert.equal(res.status, 201, res.body);
    const got = await s.request('GET', 'owned/', { headers: ntriples });
    assert.equal(got.status, 200);
    assert.deepEqual(creatorOf(got.body, `${s.base}owned/`), [ownerWebId]);
    assert.equal(commitCount(repo), before + 1);
    assert.equal(git(repo, 'log', '-1', '--format=%an').trim(), ownerWebId, 'the commit author is the owner’s WebID');
    assert.deepEqual(creatorOf(git(repo, 'show', 'HEAD:graphs/owned.nt'), `${s.base}owned/`), [ownerWebId]);
  });

  it('authenticates the secretary’s certificate as the secretary', async () => {
    const res = await s.request('PUT', 'by-secretary/', { as: 'secretary', headers: turtle, body: '' });
    assert.equal(res.status, 201, res.body);
    const got = await s.request('GET', 'by-secretary/', { headers: ntriples });
    assert.deepEqual(creatorOf(got.body, `${s.base}by-secretary/`), [s.running.agents.secretary.webId]);
  });

  it('treats a request without a certificate as anonymous: GET 200, PUT 403 and no commit', async () => {
    const got = await s.request('GET', 'owned/', { as: 'anonymous', headers: ntriples });
    assert.equal(got.status, 200, got.body);
    const head = git(repo, 'rev-parse', 'HEAD');
    const put = await s.request('PUT', 'anonymous-put/', { as: 'anonymous', headers: turtle, body: '' });
    assertRdfError(put, 403);
    assert.equal(git(repo, 'rev-parse', 'HEAD'), head, 'HEAD did not move');
    assert.equal((await s.request('GET', 'anonymous-put/')).status, 404);
  });

  it('answers 401 with an RDF error to a certificate naming the owner’s WebID with another key', async () => {
    const impostor = await issueCredentials({ commonName: 'x', webId: ownerWebId });
    const pem = impostor.certPem + impostor.keyPem;
    const head = git(repo, 'rev-parse', 'HEAD');
    assertRdfError(await s.request('GET', 'owned/', { as: { pem } }), 401);
    assertRdfError(await s.request('PUT', 'impostor/', { as: { pem }, headers: turtle, body: '' }), 401);
    assertRdfError(await s.request('PUT', 'owned/', { as: { pem }, headers: turtle, body: '' }), 401);
    assert.equal(git(repo, 'rev-parse', 'HEAD'), head, 'HEAD did not move');
  });

  it('answers 401 to a certificate naming a WebID that has no document here', async () => {
    const stranger = await issueCredentials({ commonName: 'x', webId: `${s.admin}acl/agents/00000000-0000-4000-8000-000000000000/#this` });
    assertRdfError(await s.request('GET', 'owned/', { as: { pem: stranger.certPem + stranger.keyPem } }), 401);
  });

  it('treats an expired certificate with the owner’s key and WebID as anonymous: GET 200, PUT 403', async () => {
    const now = Date.now();
    const pem = certificateFor(ownerKeyPem, ownerWebId, new Date(now - 2 * DAY), new Date(now - DAY)) + ownerKeyPem;
    assert.ok(new Date(new X509Certificate(pem).validTo).getTime() < now, 'the certificate has expired');
    // the same certificate, still valid, authenticates: only the dates differ
    const valid = certificateFor(ownerKeyPem, ownerWebId, new Date(now - 2 * DAY), new Date(now + DAY)) + ownerKeyPem;
    assert.equal((await s.request('PUT', 'valid-forge-cert/', { as: { pem: valid }, headers: turtle, body: '' })).status, 201);

    assert.equal((await s.request('GET', 'owned/', { as: { pem } })).status, 200);
    const head = git(repo, 'rev-parse', 'HEAD');
    assertRdfError(await s.request('PUT', 'expired/', { as: { pem }, headers: turtle, body: '' }), 403);
    assert.equal(git(repo, 'rev-parse', 'HEAD'), head, 'HEAD did not move');
  });

  it('treats a certificate that is not valid yet as anonymous', async () => {
    const now = Date.now();
    const pem = certificateFor(ownerKeyPem, ownerWebId, new Date(now + DAY), new Date(now + 2 * DAY)) + ownerKeyPem;
    assert.equal((await s.request('GET', 'owned/', { as: { pem } })).status, 200);
    const head = git(repo, 'rev-parse', 'HEAD');
    assertRdfError(await s.request('PUT', 'not-yet/', { as: { pem }, headers: turtle, body: '' }), 403);
    assert.equal(git(repo, 'rev-parse', 'HEAD'), head, 'HEAD did not move');
  });

  it('treats a certificate without a WebID SubjectAltName as anonymous: GET 200, PUT 403', async () => {
    const now = Date.now();
    for (const pem of [
      certificateFor(ownerKeyPem, undefined, new Date(now - DAY), new Date(now + DAY)) + ownerKeyPem, // the owner's key, no SAN
      (({ certPem, keyPem }) => certPem + keyPem)(await issueCredentials({ commonName: 'nobody' })),
    ]) {
      assert.equal((await s.request('GET', 'owned/', { as: { pem } })).status, 200);
      const head = git(repo, 'rev-parse', 'HEAD');
      assertRdfError(await s.request('PUT', 'no-webid/', { as: { pem }, headers: turtle, body: '' }), 403);
      assert.equal(git(repo, 'rev-parse', 'HEAD'), head, 'HEAD did not move');
    }
  });

  it('ignores a Client-Cert header over HTTPS, even from a trusted address', async () => {
    const head = git(repo, 'rev-parse', 'HEAD');
    const res = await s.request('PUT', 'client-cert-over-https/', { as: 'anonymous', headers: { ...turtle, 'Client-Cert': clientCertValue(ownerCertPem) }, body: '' });
    assertRdfError(res, 403);
    assert.equal(git(repo, 'rev-parse', 'HEAD'), head, 'HEAD did not move');
    // nor does it replace the TLS certificate of an authenticated request
    const secretary = await s.request('PUT', 'client-cert-with-tls/', { as: 'secretary', headers: { ...turtle, 'Client-Cert': clientCertValue(ownerCertPem) }, body: '' });
    assert.equal(secretary.status, 201, secretary.body);
    const got = await s.request('GET', 'client-cert-with-tls/', { headers: ntriples });
    assert.deepEqual(creatorOf(got.body, `${s.base}client-cert-with-tls/`), [s.running.agents.secretary.webId]);
  });
});

/**
 * A certificate naming `webId` whose public key is `publicKeyOf`'s, signed by another key: what an
 * attacker builds from an agent's public key document (the WebID check alone finds the key listed).
 */
function forgedCertificate(publicKeyOf: string, webId: string): string {
  const signer = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.certificateFromPem(publicKeyOf).publicKey;
  cert.serialNumber = '01' + randomBytes(15).toString('hex');
  cert.validity.notBefore = new Date(Date.now() - DAY);
  cert.validity.notAfter = new Date(Date.now() + DAY);
  const subject = [{ name: 'commonName', value: 'forged' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([{ name: 'subjectAltName', altNames: [{ type: 6, value: webId }] }]);
  cert.sign(signer.privateKey, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

describe('Client-Cert without a trusted proxy (--http alone)', () => {
  it('believes no address by default, and --trusted-proxy takes IP addresses with --http only', () => {
    const config = serveConfig(['--http']);
    assert.ok(config !== 'help');
    assert.deepEqual(config.trustedProxies, [], 'no proxy is trusted unless named');
    assert.throws(() => serveConfig(['--trusted-proxy', '127.0.0.1']), /--trusted-proxy is for --http/);
    assert.throws(() => serveConfig(['--http', '--trusted-proxy', 'proxy.example']), /takes IP addresses/);
  });

  it('ignores a Client-Cert from loopback when no proxy is trusted: the WebID is not even looked at', async () => {
    const lines: string[] = [];
    let asked = 0;
    const verifier = { known: (cert: unknown) => (cert ? (asked++, 'https://victim.example/#me') : undefined), verify: async (cert: unknown) => (cert ? (asked++, 'https://victim.example/#me') : undefined) } as unknown as WebIdVerifier;
    const authenticator = new Authenticator({ verifier, trustedProxies: [], log: (l) => lines.push(l) });
    const { certPem } = await issueCredentials({ commonName: 'x', webId: 'https://victim.example/#me' });
    const req = { method: 'PUT', headers: { host: 'localhost', 'client-cert': clientCertValue(certPem), [PROXY_SECRET_HEADER]: 'anything at all, guessed' }, socket: { remoteAddress: '127.0.0.1' } } as unknown as IncomingMessage;
    assert.equal(await authenticator.identify(req, 'http://localhost:8080/'), undefined);
    assert.equal(authenticator.known(req, 'http://localhost:8080/'), undefined);
    assert.equal(asked, 0, 'no certificate reached the verifier');
    assert.deepEqual(lines, ['a Client-Cert header was ignored (the request is anonymous): it came from 127.0.0.1, not a --trusted-proxy address; said once']);
  });
});

describe('Client-Cert behind a TLS-terminating proxy (--http --base https://… --trusted-proxy 127.0.0.1, and its secret)', () => {
  let s: TestServer;
  let port: number;
  let base: string;
  /** A request as the proxy sends it: plain HTTP from `localAddress` to the server, for the public https URL (Host). */
  const request = (method: string, path: string, options: { headers?: Record<string, string>; body?: string; localAddress?: string } = {}) => {
    const url = new URL(path, base);
    return sendRequest({ protocol: 'http:', hostname: '127.0.0.1', port, method, path: url.pathname, headers: { Host: url.host, ...options.headers }, ...(options.localAddress ? { localAddress: options.localAddress } : {}) }, {}, options.body);
  };
  let repo: string;
  let ownerWebId: string;
  let ownerCertPem: string;
  let secret: string;
  const lines: string[] = [];
  const fromProxy = () => ({ 'Lodestone-Proxy-Secret': secret });

  before(async () => {
    const data = tempDir('proxy');
    port = await freePort();
    base = `https://lodestone.test:${port}/`; // the public URL, which the proxy serves over TLS
    s = await startServer(['--http', '--port', String(port), '--base', base, '--trusted-proxy', '127.0.0.1'], data, (line) => lines.push(line), {}, { tls: true }); // a real proxy's connection
    await makePublic(s);
    repo = s.running.runtimes[0]!.dataspace.store.dir;
    ownerWebId = s.running.agents.owner.webId;
    ownerCertPem = (await readCredentials(s.running.agents.owner.credentialsFile)).certPem;
    const file = join(data, 'secrets', 'proxy-secret');
    secret = readFileSync(file, 'utf8').trim();
    assert.equal(statSync(file).mode & 0o777, 0o600, 'the secret is made readable by its owner only');
    assert.match(secret, /^[0-9a-f]{64}$/);
  });
  after(() => s?.close());

  it('serves plain HTTP for an https base, and says where the secret is without saying it', async () => {
    assert.equal(s.base, base);
    assert.equal((await request('GET', s.running.agents.owner.webId, { headers: ntriples })).status, 200, 'an https URL answered over plain HTTP');
    assert.ok(lines.some((l) => l.includes('trusted proxy 127.0.0.1') && l.includes('secrets/proxy-secret')), lines.join('\n'));
    assert.ok(!lines.join('\n').includes(secret), 'the secret is never logged');
  });

  it('authenticates the owner’s certificate in Client-Cert from 127.0.0.1 with the secret, as RFC 9440 or as nginx escapes it', async () => {
    const before = commitCount(repo);
    const res = await request('PUT', 'via-proxy/', { headers: { ...turtle, ...fromProxy(), 'Client-Cert': clientCertValue(ownerCertPem) }, body: '<#this> <http://example.org/p> "o" .', localAddress: '127.0.0.1' });
    assert.equal(res.status, 201, res.body);
    const got = await request('GET', 'via-proxy/', { headers: ntriples });
    assert.deepEqual(creatorOf(got.body, `${base}via-proxy/`), [ownerWebId]);
    assert.equal(commitCount(repo), before + 1);
    assert.equal(git(repo, 'log', '-1', '--format=%an').trim(), ownerWebId);
    // nginx: proxy_set_header Client-Cert $ssl_client_escaped_cert (the PEM, URL-encoded)
    const escaped = encodeURIComponent(ownerCertPem);
    const nginx = await request('PUT', 'via-nginx/', { headers: { ...turtle, ...fromProxy(), 'Client-Cert': escaped }, body: '', localAddress: '127.0.0.1' });
    assert.equal(nginx.status, 201, nginx.body);
    assert.equal(git(repo, 'log', '-1', '--format=%an').trim(), ownerWebId);
  });

  it('treats the same request from an untrusted address (127.0.0.2), secret and all, as anonymous: PUT 403, no commit', async () => {
    const head = git(repo, 'rev-parse', 'HEAD');
    const res = await request('PUT', 'via-untrusted/', { headers: { ...turtle, ...fromProxy(), 'Client-Cert': clientCertValue(ownerCertPem) }, body: '', localAddress: '127.0.0.2' });
    assertRdfError(res, 403);
    assert.equal(git(repo, 'rev-parse', 'HEAD'), head, 'HEAD did not move');
    const got = await request('GET', 'via-proxy/', { localAddress: '127.0.0.2' });
    assert.equal(got.status, 200, 'anonymous reads still work from an untrusted address');
  });

  it('treats a Client-Cert from the trusted address without the secret, or with a wrong one, as anonymous', async () => {
    const head = git(repo, 'rev-parse', 'HEAD');
    for (const headers of [{}, { 'Lodestone-Proxy-Secret': secret.slice(0, -1) }, { 'Lodestone-Proxy-Secret': secret + '0' }, { 'Lodestone-Proxy-Secret': '' }] as Record<string, string>[]) {
      const res = await request('PUT', 'no-secret/', { headers: { ...turtle, ...headers, 'Client-Cert': clientCertValue(ownerCertPem) }, body: '', localAddress: '127.0.0.1' });
      assertRdfError(res, 403);
      assert.ok(!res.body.includes(secret.slice(0, 16)), 'the refusal says nothing of the secret');
    }
    assert.equal(git(repo, 'rev-parse', 'HEAD'), head, 'HEAD did not move');
    assert.ok(!lines.join('\n').includes(secret.slice(0, 16)), 'the secret is never logged');
  });

  it('a certificate built from the owner’s public key but signed by another key is not the owner without the secret (issue 25, item 5)', async () => {
    const forged = forgedCertificate(ownerCertPem, ownerWebId);
    const head = git(repo, 'rev-parse', 'HEAD');
    for (const localAddress of ['127.0.0.1', '127.0.0.2']) {
      const res = await request('PUT', 'forged/', { headers: { ...turtle, 'Client-Cert': clientCertValue(forged) }, body: '<#this> <http://example.org/p> "forged" .', localAddress });
      assertRdfError(res, 403);
    }
    assert.equal(git(repo, 'rev-parse', 'HEAD'), head, 'HEAD did not move');
    assert.equal((await request('GET', 'forged/')).status, 404);
  });

  it('counts signups by the client the proxy names in X-Real-IP, and by the connection when the secret is not sent', async () => {
    const signup = (headers: Record<string, string>, localAddress: string, i: number) =>
      request('POST', '/admin/sign%20up', { headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams({ name: `Client ${i}`, email: `client${i}-${localAddress}@example.org`, password: 'correct horse battery' }).toString(), localAddress });
    // six clients behind the proxy: one signup each, none refused although all come from the proxy's address
    for (let i = 1; i <= 6; i++) assert.equal((await signup({ ...fromProxy(), 'X-Real-IP': `198.51.100.${i}` }, '127.0.0.1', i)).status, 201);
    // without the secret, X-Real-IP is anyone's word: the connection's address counts, and its sixth signup is refused
    const statuses: number[] = [];
    for (let i = 1; i <= 6; i++) statuses.push((await signup({ 'X-Real-IP': `203.0.113.${i}` }, '127.0.0.3', 10 + i)).status);
    assert.deepEqual(statuses, [201, 201, 201, 201, 201, 429]);
  });

  it('treats a request from the trusted proxy without Client-Cert as anonymous', async () => {
    const head = git(repo, 'rev-parse', 'HEAD');
    assertRdfError(await request('PUT', 'no-client-cert/', { headers: { ...turtle, ...fromProxy() }, body: '', localAddress: '127.0.0.1' }), 403);
    assert.equal(git(repo, 'rev-parse', 'HEAD'), head, 'HEAD did not move');
  });

  it('answers 401 to a Client-Cert naming the owner’s WebID with another key', async () => {
    const impostor = await issueCredentials({ commonName: 'x', webId: ownerWebId });
    const head = git(repo, 'rev-parse', 'HEAD');
    assertRdfError(await request('PUT', 'impostor/', { headers: { ...turtle, ...fromProxy(), 'Client-Cert': clientCertValue(impostor.certPem) }, body: '', localAddress: '127.0.0.1' }), 401);
    assert.equal(git(repo, 'rev-parse', 'HEAD'), head, 'HEAD did not move');
  });
});

describe('the proxy secret file', () => {
  it('refuses to start on a secret others may read, or one too short, and takes --trusted-proxy-secret-file', async () => {
    const data = tempDir('proxy-secret');
    const file = join(data, 'given-secret');
    writeFileSync(file, 'x'.repeat(40) + '\n', { mode: 0o644 });
    await assert.rejects(readProxySecret(data, file), /can be read by others/);
    chmodSync(file, 0o600);
    assert.deepEqual(await readProxySecret(data, file), { secret: 'x'.repeat(40), file });
    writeFileSync(file, 'short\n', { mode: 0o600 });
    await assert.rejects(readProxySecret(data, file), /16 at least/);
    await assert.rejects(readProxySecret(data, join(data, 'missing')), /does not exist/);
    const made = await readProxySecret(data);
    assert.equal(made.file, join(data, 'secrets', 'proxy-secret'));
    assert.deepEqual(await readProxySecret(data), made, 'made once, then read');
  });
});
