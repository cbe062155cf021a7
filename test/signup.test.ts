/**
 * WebID-TLS signup as a pure module (src/auth/signup.ts): the two form shapes, every refusal with its
 * code, status and field; the agent and key documents parsed back (the modulus is the certificate's);
 * the PKCS#12 file opened by node-forge, Node's TLS, the openssl CLI and curl (when installed), with
 * the WebID as SubjectAltName, refused under a wrong password, and presented in a real TLS handshake.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { X509Certificate, createHash, createPrivateKey } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, request as httpsRequest, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createSecureContext, type TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import forge from 'node-forge';
import { mailto } from '../src/auth/agent-document.js';
import { issueCredentials, rsaPublicKey, webIdsOf } from '../src/auth/certificates.js';
import { createSignup, parseSignup, type SignupRequest, type SignupResult } from '../src/auth/signup.js';
import { isLodestoneError, type ErrorCode } from '../src/errors.js';
import { toHttpError } from '../src/http/http-error.js';
import { ns } from '../src/rdf/namespaces.js';
import { parseRdf } from '../src/rdf/ntriples.js';
import { removeTempDirs, tempDir } from './helpers.js';

after(removeTempDirs);

const execFileAsync = promisify(execFile);

const FORM = 'application/x-www-form-urlencoded';
const ADMIN = 'https://localhost:4443/admin/';
const LACL = 'https://w3id.org/atomgraph/linkeddatahub/admin/acl#';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

const valid = { name: 'Alice Example', email: 'alice@example.org', password: 'correct horse' };

function refusal(body: string, code: ErrorCode, field: string, message: RegExp): void {
  assert.throws(() => parseSignup(body, FORM), (error: unknown) => {
    assert.ok(isLodestoneError(error, code), `expected ${code}, got ${String(error)}`);
    assert.equal(error.data.field, field);
    assert.match(error.message, message);
    assert.ok(error.message.length < 400, 'the message does not echo a long value');
    assert.equal(toHttpError(error).status, code === 'SyntaxError' ? 400 : 422);
    return true;
  });
}

function hasCommand(command: string, ...args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}

describe('parseSignup: plain form fields', () => {
  it('reads name, email and password, ignoring other fields', () => {
    assert.deepEqual(parseSignup(form({ ...valid, submit: 'Sign up' }), FORM), valid);
    assert.deepEqual(parseSignup('name=Alice+Example&email=alice%40example.org&password=correct%20horse', FORM), valid);
  });

  it('trims the name and the address, lower-cases the domain, keeps the password as typed', () => {
    const parsed = parseSignup(form({ name: '  Zoë  ', email: ' Zoe.Doe@Example.ORG ', password: '  spaced  ' }), FORM);
    assert.deepEqual(parsed, { name: 'Zoë', email: 'Zoe.Doe@example.org', password: '  spaced  ' });
  });

  it('accepts the boundaries: a 200-character name, an 8- and a 256-character password', () => {
    assert.equal(parseSignup(form({ ...valid, name: 'n'.repeat(200) }), FORM).name.length, 200);
    assert.equal(parseSignup(form({ ...valid, password: '12345678' }), FORM).password, '12345678');
    assert.equal(parseSignup(form({ ...valid, password: 'p'.repeat(256) }), FORM).password.length, 256);
  });

  it('refuses missing, empty and malformed fields with 422, naming the field', () => {
    refusal('', 'ConstraintViolation', 'name', /"name" is missing/);
    refusal(form({ email: valid.email, password: valid.password }), 'ConstraintViolation', 'name', /"name" is missing/);
    refusal(form({ ...valid, name: '' }), 'ConstraintViolation', 'name', /"name" is empty/);
    refusal(form({ ...valid, name: '   ' }), 'ConstraintViolation', 'name', /"name" is empty/);
    refusal(form({ ...valid, name: 'n'.repeat(201) }), 'ConstraintViolation', 'name', /"name" is 201 characters long; at most 200/);
    refusal(form({ ...valid, name: 'x'.repeat(1 << 20) }), 'ConstraintViolation', 'name', /"name" is 1048576 characters long/);
    refusal(form({ ...valid, name: 'Alice\nExample' }), 'ConstraintViolation', 'name', /"name" holds a control character \(U\+000A\) at character 6/);
    refusal(form({ ...valid, name: 'Alice\u0000' }), 'ConstraintViolation', 'name', /"name" holds a control character \(U\+0000\)/);
    refusal(form({ name: valid.name, password: valid.password }), 'ConstraintViolation', 'email', /"email" is missing/);
    for (const email of ['not-an-address', 'alice@', '@example.org', 'al ice@example.org', 'alice@exa_mple.org', 'alice@@example.org']) {
      refusal(form({ ...valid, email }), 'ConstraintViolation', 'email', /"email" is not an e-mail address/);
    }
    refusal(form({ ...valid, email: `${'a'.repeat(250)}@example.org` }), 'ConstraintViolation', 'email', /"email" is 262 characters long/);
    refusal(form({ ...valid, email: 'alice@example.org\r\nBcc: bob@example.org' }), 'ConstraintViolation', 'email', /"email" holds a control character/);
    refusal(form({ name: valid.name, email: valid.email }), 'ConstraintViolation', 'password', /"password" is missing/);
    refusal(form({ ...valid, password: '1234567' }), 'ConstraintViolation', 'password', /"password" is 7 characters long; at least 8/);
    refusal(form({ ...valid, password: 'p'.repeat(257) }), 'ConstraintViolation', 'password', /"password" is 257 characters long; at most 256/);
    refusal(form({ ...valid, password: 'pass\tword' }), 'ConstraintViolation', 'password', /"password" holds a control character/);
  });

  it('refuses a repeated field with 422', () => {
    refusal(`${form(valid)}&name=Bob`, 'ConstraintViolation', 'name', /"name" is given 2 times/);
    refusal(`${form(valid)}&email=bob%40example.org`, 'ConstraintViolation', 'email', /"email" is given 2 times/);
    refusal(`${form(valid)}&password=${encodeURIComponent(valid.password)}`, 'ConstraintViolation', 'password', /"password" is given 2 times/);
  });

  it('refuses broken percent-encoding with 400, naming the field', () => {
    refusal('name=Alice%zzExample&email=alice%40example.org&password=correct+horse', 'SyntaxError', 'name', /"name" is not valid form encoding: the "%" at character 6/);
    refusal('name=Alice%2&email=alice%40example.org&password=correct+horse', 'SyntaxError', 'name', /"name" is not valid form encoding/);
    refusal('name=Alice&email=alice%40example.org&password=caf%E9+caf%E9', 'SyntaxError', 'password', /"password" is not valid form encoding: its %-escapes are not UTF-8/);
    refusal('name=Alice&em%ail=alice%40example.org', 'SyntaxError', '2', /the name of field 2 is not valid form encoding/);
  });

  it('never echoes the password in a refusal', () => {
    assert.throws(() => parseSignup(form({ ...valid, password: 'seven77' }), FORM), (error: Error) => !error.message.includes('seven77'));
  });
});

describe('parseSignup: RDF/POST', () => {
  const prefix = `rdf=&n=foaf&v=${encodeURIComponent(ns.foaf)}&n=cert&v=${encodeURIComponent(ns.cert)}&n=lacl&v=${encodeURIComponent(LACL)}`;
  const person = (statements: string) => `${prefix}&sb=person&pu=${encodeURIComponent(ns.rdf + 'type')}&ou=${encodeURIComponent(ns.foaf + 'Person')}${statements}`;
  const lit = (property: string, value: string) => `&pn=${property.split(':')[0]}&pv=${property.split(':')[1]}&ol=${encodeURIComponent(value)}`;
  const key = (...passwords: string[]) => `&pn=cert&pv=key&ob=key&sb=key&pu=${encodeURIComponent(ns.rdf + 'type')}&ou=${encodeURIComponent(ns.cert + 'X509Certificate')}${passwords.map((p) => lit('lacl:password', p)).join('')}`;
  const mbox = (address: string) => `&pn=foaf&pv=mbox&ou=${encodeURIComponent('mailto:' + address)}`;

  it("reads LinkedDataHub's shape: given and family name, mbox, a key with the password typed twice", () => {
    const body = person(lit('foaf:givenName', 'Alice') + lit('foaf:familyName', 'Example') + mbox('alice@example.org') + key('correct horse', 'correct horse'));
    assert.deepEqual(parseSignup(body, FORM), valid);
  });

  it('reads foaf:name, a literal mbox and a password said of the person; foaf:name wins over the parts', () => {
    const body = person(lit('foaf:name', 'Alice Example') + lit('foaf:givenName', 'A.') + lit('foaf:mbox', 'alice@example.org') + lit('lacl:password', 'correct horse'));
    assert.deepEqual(parseSignup(body, FORM), valid);
  });

  it('decodes a percent-encoded mailto: IRI', () => {
    const body = person(lit('foaf:name', 'Alice') + `&pn=foaf&pv=mbox&ou=${encodeURIComponent('mailto:al%7Bice@example.org')}` + key('correct horse'));
    assert.equal(parseSignup(body, FORM).email, 'al{ice@example.org');
  });

  it('refuses what it cannot use, naming the property', () => {
    const rest = mbox('alice@example.org') + key('correct horse');
    refusal(`${prefix}&sb=someone${lit('foaf:name', 'Alice')}${rest}`, 'ConstraintViolation', 'name', /describes no foaf:Person/);
    refusal(person(lit('foaf:name', 'Alice') + rest) + `&sb=other&pu=${encodeURIComponent(ns.rdf + 'type')}&ou=${encodeURIComponent(ns.foaf + 'Person')}`, 'ConstraintViolation', 'name', /describes 2 foaf:Person resources/);
    refusal(person(rest), 'ConstraintViolation', 'name', /^foaf:name is missing/);
    refusal(person(lit('foaf:name', 'Alice') + lit('foaf:name', 'Bob') + rest), 'ConstraintViolation', 'name', /foaf:name is given 2 different values/);
    refusal(person(`&pn=foaf&pv=name&ou=${encodeURIComponent('http://example.org/alice')}` + rest), 'ConstraintViolation', 'name', /foaf:name must be a literal/);
    refusal(person(`&pn=foaf&pv=name&ou=${encodeURIComponent('http://example.org/' + 'a'.repeat(1 << 20))}` + rest), 'ConstraintViolation', 'name', /foaf:name must be a literal/);
    refusal(person(lit('foaf:givenName', 'Alice\n') + rest), 'ConstraintViolation', 'name', /foaf:givenName\/foaf:familyName holds a control character/);
    refusal(person(lit('foaf:name', 'Alice') + key('correct horse')), 'ConstraintViolation', 'email', /^foaf:mbox is missing/);
    refusal(person(lit('foaf:name', 'Alice') + mbox('alice') + key('correct horse')), 'ConstraintViolation', 'email', /foaf:mbox is not an e-mail address/);
    refusal(person(lit('foaf:name', 'Alice') + mbox('alice@example.org?subject=hi') + key('correct horse')), 'ConstraintViolation', 'email', /without "\?" header fields/);
    refusal(person(lit('foaf:name', 'Alice') + `&pn=foaf&pv=mbox&ou=${encodeURIComponent('http://example.org/alice')}` + key('correct horse')), 'ConstraintViolation', 'email', /mailto: IRI or a literal/);
    refusal(person(lit('foaf:name', 'Alice') + mbox('alice@example.org') + key()), 'ConstraintViolation', 'password', /^lacl:password is missing/);
    refusal(person(lit('foaf:name', 'Alice') + mbox('alice@example.org') + key('correct horse', 'correct h0rse')), 'ConstraintViolation', 'password', /confirmation must be equal/);
    refusal(person(lit('foaf:name', 'Alice') + mbox('alice@example.org') + key('short')), 'ConstraintViolation', 'password', /lacl:password is 5 characters long/);
  });

  it('refuses broken RDF/POST with 400', () => {
    assert.throws(() => parseSignup('rdf=&zz=1', FORM), (error: unknown) => isLodestoneError(error, 'SyntaxError') && /unknown field "zz"/.test(error.message));
    refusal(`${person('')}&pn=foaf&pv=name&ol=Al%ice`, 'SyntaxError', 'ol', /the field "ol" is not valid form encoding/);
  });
});

describe('createSignup', () => {
  // A name and a password outside ASCII, to hold every reader of the certificate and the PKCS#12 file to it.
  const request: SignupRequest = { name: 'Zoë Ångström 李 😀', email: 'zoe@example.org', password: 'pässwörd 李 ✓' };
  let result: SignupResult;
  let dir: string;

  before(async () => {
    result = await createSignup(request, ADMIN);
    dir = tempDir('signup');
  });

  const agentUrl = () => ADMIN + result.agentPath;
  const keyUrl = () => ADMIN + result.keyPath;

  function certificateOf(pkcs12: Buffer, password: string): { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey; friendlyName: unknown } {
    const pfx = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(pkcs12.toString('binary')), password);
    const certBags = pfx.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? [];
    const keyBags = pfx.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag! })[forge.pki.oids.pkcs8ShroudedKeyBag!] ?? [];
    assert.equal(certBags.length, 1);
    assert.equal(keyBags.length, 1);
    return { cert: certBags[0]!.cert!, key: keyBags[0]!.key as forge.pki.rsa.PrivateKey, friendlyName: keyBags[0]!.attributes.friendlyName?.[0] };
  }

  function pfxFile(name: string, bytes: Buffer): string {
    const file = join(dir, name);
    writeFileSync(file, bytes, { mode: 0o600 });
    return file;
  }

  it('mints the WebID, the agent path and the key path under the admin base', () => {
    assert.match(result.agentPath, new RegExp(`^acl/agents/${UUID}/$`));
    assert.match(result.keyPath, new RegExp(`^acl/public-keys/${UUID}/$`));
    assert.equal(result.webId, `${ADMIN}${result.agentPath}#this`);
    assert.notEqual(result.agentPath.slice('acl/agents/'.length), result.keyPath.slice('acl/public-keys/'.length));
  });

  it('writes the agent document: a foaf:Agent and foaf:Person with name, mbox and cert:key, and no secret', () => {
    const quads = parseRdf(result.agentTurtle, { format: 'text/turtle', baseIRI: agentUrl() });
    const about = (subject: string, predicate: string) => quads.filter((q) => q.subject.value === subject && q.predicate.value === predicate).map((q) => q.object);
    assert.deepEqual(about(agentUrl(), ns.foaf + 'primaryTopic').map((o) => o.value), [result.webId]);
    assert.deepEqual(about(result.webId, ns.rdf + 'type').map((o) => o.value).sort(), [ns.foaf + 'Agent', ns.foaf + 'Person']);
    const names = about(result.webId, ns.foaf + 'name');
    assert.equal(names.length, 1);
    assert.equal(names[0]!.value, request.name);
    assert.equal(names[0]!.termType, 'Literal');
    assert.deepEqual(about(result.webId, ns.foaf + 'mbox').map((o) => [o.termType, o.value]), [['NamedNode', 'mailto:zoe@example.org']]);
    assert.deepEqual(about(result.webId, ns.foaf + 'mbox_sha1sum').map((o) => o.value), [createHash('sha1').update('mailto:zoe@example.org').digest('hex')]);
    assert.deepEqual(about(result.webId, ns.cert + 'key').map((o) => [o.termType, o.value]), [['NamedNode', `${keyUrl()}#this`]]);
    for (const text of [result.agentTurtle, result.keyTurtle]) {
      assert.ok(!text.includes(request.password), 'no password');
      assert.ok(!/PRIVATE KEY|BEGIN/.test(text), 'no key material');
    }
    assert.ok(quads.every((q) => q.object.value !== request.password));
  });

  it('writes the key document in the shape bootstrap writes; the modulus is the certificate key modulus', () => {
    const quads = parseRdf(result.keyTurtle, { format: 'text/turtle', baseIRI: keyUrl() });
    const keyIri = `${keyUrl()}#this`;
    const one = (predicate: string) => {
      const found = quads.filter((q) => q.subject.value === keyIri && q.predicate.value === predicate).map((q) => q.object);
      assert.equal(found.length, 1, predicate);
      return found[0]!;
    };
    assert.deepEqual(quads.filter((q) => q.subject.value === keyUrl()).map((q) => [q.predicate.value, q.object.value]), [[ns.foaf + 'primaryTopic', keyIri]]);
    assert.equal(one(ns.rdf + 'type').value, ns.cert + 'RSAPublicKey');
    const modulus = one(ns.cert + 'modulus');
    const exponent = one(ns.cert + 'exponent');
    assert.equal(modulus.termType === 'Literal' && modulus.datatype.value, ns.xsd + 'hexBinary');
    assert.equal(exponent.termType === 'Literal' && exponent.datatype.value, ns.xsd + 'integer');
    const { cert, key } = certificateOf(result.pkcs12, request.password);
    const x509 = new X509Certificate(forge.pki.certificateToPem(cert));
    assert.deepEqual(rsaPublicKey(x509), { modulus: modulus.value, exponent: Number(exponent.value) });
    assert.equal(modulus.value, (cert.publicKey as forge.pki.rsa.PublicKey).n.toString(16));
    assert.match(modulus.value, /^[0-9a-f]+$/);
    assert.equal(key.n.bitLength(), 2048);
    assert.equal(exponent.value, '65537');
  });

  it('issues a one-year clientAuth certificate naming the WebID, with the private key of the published modulus', () => {
    const { cert, key, friendlyName } = certificateOf(result.pkcs12, request.password);
    const x509 = new X509Certificate(forge.pki.certificateToPem(cert));
    assert.deepEqual(webIdsOf(x509), [result.webId]);
    assert.deepEqual(x509.keyUsage, ['1.3.6.1.5.5.7.3.2']); // extended key usage: id-kp-clientAuth
    assert.equal(x509.subject, `CN=${request.name}`);
    assert.equal(friendlyName, request.name);
    const days = (Date.parse(x509.validTo) - Date.parse(x509.validFrom)) / 86_400_000;
    assert.ok(days >= 365 && days <= 366.01, `valid ${days} days`);
    assert.ok(Date.parse(x509.validFrom) <= Date.now());
    assert.equal(key.n.toString(16), (cert.publicKey as forge.pki.rsa.PublicKey).n.toString(16));
    assert.ok(x509.checkPrivateKey(createPrivateKey(forge.pki.privateKeyToPem(key))));
  });

  it('opens in node-forge and in Node TLS with the password, and in neither with a wrong one', () => {
    assert.doesNotThrow(() => certificateOf(result.pkcs12, request.password));
    assert.doesNotThrow(() => createSecureContext({ pfx: result.pkcs12, passphrase: request.password }));
    for (const wrong of ['passwörd 李 ✓', 'pässwörd 李 ✓ ', '']) {
      assert.throws(() => certificateOf(result.pkcs12, wrong), /MAC could not be verified|Invalid password/);
      assert.throws(() => createSecureContext({ pfx: result.pkcs12, passphrase: wrong }), /mac verify failure/i);
    }
  });

  it('opens with the openssl CLI: 3DES key bag, SHA-1 MAC', (t) => {
    if (!hasCommand('openssl', 'version')) return t.skip('openssl is not installed');
    const file = pfxFile('zoe.p12', result.pkcs12);
    execFileSync('openssl', ['pkcs12', '-info', '-noout', '-in', file, '-passin', `pass:${request.password}`], { stdio: 'pipe' });
    const dump = spawnSync('openssl', ['pkcs12', '-info', '-nodes', '-in', file, '-passin', `pass:${request.password}`], { encoding: 'utf8' });
    assert.equal(dump.status, 0, dump.stderr);
    assert.match(dump.stdout + dump.stderr, /Shrouded Keybag: pbeWithSHA1And3-KeyTripleDES-CBC, Iteration 10000/);
    assert.match(dump.stdout + dump.stderr, /MAC: sha1, Iteration 10000/);
    assert.match(dump.stdout, /-----BEGIN PRIVATE KEY-----/);
    const certPem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(dump.stdout)?.[0];
    assert.deepEqual(webIdsOf(new X509Certificate(certPem!)), [result.webId]);
    const wrong = spawnSync('openssl', ['pkcs12', '-info', '-noout', '-in', file, '-passin', 'pass:wrong password'], { encoding: 'utf8' });
    assert.notEqual(wrong.status, 0);
    assert.match(wrong.stderr, /mac verify|invalid password/i);
  });

  describe('in a TLS handshake', () => {
    let server: Server;
    let url: string;

    before(async () => {
      const credentials = await issueCredentials({ commonName: 'localhost', dnsNames: ['localhost'], ips: ['127.0.0.1'] });
      server = createServer({ cert: credentials.certPem, key: credentials.keyPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        res.end(peer.subjectaltname ?? 'no certificate');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    });

    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('Node presents the certificate from the pfx', async () => {
      const body = await new Promise<string>((resolve, reject) => {
        const req = httpsRequest(url, { pfx: result.pkcs12, passphrase: request.password, rejectUnauthorized: false }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(body, `URI:${result.webId}`);
    });

    it('curl presents it with --cert-type P12 -E file:password, and refuses a wrong password', async (t) => {
      if (!hasCommand('curl', '--version')) return t.skip('curl is not installed');
      const file = pfxFile('curl.p12', result.pkcs12);
      // Asynchronously: the server answering curl runs in this process. curl 7.88 reads `-E` as PEM
      // unless told P12 (later versions guess it from the .p12 extension).
      const { stdout } = await execFileAsync('curl', ['-sS', '-k', '--max-time', '10', '--cert-type', 'P12', '-E', `${file}:${request.password}`, url], { encoding: 'utf8' });
      assert.equal(stdout, `URI:${result.webId}`);
      await assert.rejects(execFileAsync('curl', ['-sS', '-k', '--max-time', '10', '--cert-type', 'P12', '-E', `${file}:wrong password`, url]), /could not parse PKCS12|mac verify|curl: \(58\)/i);
    });
  });
});

describe('the mailto: IRI of an agent document (RFC 6068 §2)', () => {
  it('keeps unreserved characters and the some-delims, and percent-encodes the rest', () => {
    assert.equal(mailto("a.b-c_d~e!$'()*+,;:x@example.org"), "mailto:a.b-c_d~e!$'()*+,;:x@example.org");
    assert.equal(mailto('a#b%c&d/e=f?g^h`i{j|k}l@example.org'), 'mailto:a%23b%25c%26d%2Fe%3Df%3Fg%5Eh%60i%7Bj%7Ck%7Dl@example.org');
  });

  it('encodes a non-ASCII local part over its UTF-8 bytes, and lower-cases the domain', () => {
    assert.equal(mailto('zoë@Example.ORG'), 'mailto:zo%C3%AB@example.org');
    assert.equal(mailto('中@example.org'), 'mailto:%E4%B8%AD@example.org');
  });
});
