/**
 * WebID-TLS (DESIGN.md, "Authentication"; src/auth/webid-tls.ts, src/http/authenticate.ts): the
 * owner's certificate authenticates; no certificate, an expired one or one without a WebID is
 * anonymous (reads what is public, but writes answer 403); a certificate naming a WebID whose document does not
 * list its key is a 401. Behind a proxy (`--http`), RFC 9440 `Client-Cert` is believed only from a
 * trusted address, and never over HTTPS. Every refused write is checked against git.
 */
import assert from 'node:assert/strict';
import { X509Certificate, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import forge from 'node-forge';
import { issueCredentials, readCredentials } from '../src/auth/certificates.js';
import { ns } from '../src/rdf/namespaces.js';
import { parseRdf } from '../src/rdf/ntriples.js';
import { commitCount, git, removeTempDirs } from './helpers.js';
import { assertRdfError, makePublic, startServer, turtle, type TestServer } from './http-helpers.js';

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
    s = await startServer();
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

describe('Client-Cert behind a TLS-terminating proxy (--http --trusted-proxy 127.0.0.1)', () => {
  let s: TestServer;
  let repo: string;
  let ownerWebId: string;
  let ownerCertPem: string;

  before(async () => {
    s = await startServer(['--http', '--trusted-proxy', '127.0.0.1']);
    await makePublic(s);
    repo = s.running.runtimes[0]!.dataspace.store.dir;
    ownerWebId = s.running.agents.owner.webId;
    ownerCertPem = (await readCredentials(s.running.agents.owner.credentialsFile)).certPem;
  });
  after(() => s?.close());

  it('serves plain HTTP at an http:// base', () => {
    assert.match(s.base, /^http:\/\//);
  });

  it('authenticates the owner’s certificate in Client-Cert from 127.0.0.1', async () => {
    const before = commitCount(repo);
    const res = await s.request('PUT', 'via-proxy/', { headers: { ...turtle, 'Client-Cert': clientCertValue(ownerCertPem) }, body: '<#this> <http://example.org/p> "o" .', localAddress: '127.0.0.1' });
    assert.equal(res.status, 201, res.body);
    const got = await s.request('GET', 'via-proxy/', { headers: ntriples });
    assert.deepEqual(creatorOf(got.body, `${s.base}via-proxy/`), [ownerWebId]);
    assert.equal(commitCount(repo), before + 1);
    assert.equal(git(repo, 'log', '-1', '--format=%an').trim(), ownerWebId);
  });

  it('treats the same request from an untrusted address (127.0.0.2) as anonymous: PUT 403, no commit', async () => {
    const head = git(repo, 'rev-parse', 'HEAD');
    const res = await s.request('PUT', 'via-untrusted/', { headers: { ...turtle, 'Client-Cert': clientCertValue(ownerCertPem) }, body: '', localAddress: '127.0.0.2' });
    assertRdfError(res, 403);
    assert.equal(git(repo, 'rev-parse', 'HEAD'), head, 'HEAD did not move');
    const got = await s.request('GET', 'via-proxy/', { localAddress: '127.0.0.2' });
    assert.equal(got.status, 200, 'anonymous reads still work from an untrusted address');
  });

  it('treats a request from the trusted proxy without Client-Cert as anonymous', async () => {
    const head = git(repo, 'rev-parse', 'HEAD');
    assertRdfError(await s.request('PUT', 'no-client-cert/', { headers: turtle, body: '', localAddress: '127.0.0.1' }), 403);
    assert.equal(git(repo, 'rev-parse', 'HEAD'), head, 'HEAD did not move');
  });

  it('answers 401 to a Client-Cert naming the owner’s WebID with another key', async () => {
    const impostor = await issueCredentials({ commonName: 'x', webId: ownerWebId });
    const head = git(repo, 'rev-parse', 'HEAD');
    assertRdfError(await s.request('PUT', 'impostor/', { headers: { ...turtle, 'Client-Cert': clientCertValue(impostor.certPem) }, body: '', localAddress: '127.0.0.1' }), 401);
    assert.equal(git(repo, 'rev-parse', 'HEAD'), head, 'HEAD did not move');
  });
});
