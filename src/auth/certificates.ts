/**
 * Keys and X.509 certificates (DESIGN.md, "Certificates"): RSA keys from node:crypto, certificates
 * built and signed with node-forge. Client certificates carry the agent's WebID as a
 * SubjectAltName URI; the server's names localhost and its loopback addresses. PEM files hold the
 * certificate followed by the private key and are written with mode 0600; a signup's credentials
 * go out as a password-protected PKCS#12 file (a quarter of a second of work: run in a worker).
 */
import { X509Certificate, createPublicKey, generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { promises as fsp } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type forgeModule from 'node-forge';

/**
 * node-forge, loaded when a certificate or a PKCS#12 file is made (a bootstrap, a signup in its
 * worker): 0.05 s of a core and 40 modules that the thread answering requests, which
 * reads certificates with node:crypto alone, never needs.
 */
const load = createRequire(import.meta.url);
const forge = (): typeof forgeModule => load('node-forge') as typeof forgeModule;

export interface Credentials {
  certPem: string;
  keyPem: string;
}

export interface CertificateRequest {
  commonName: string;
  /** WebID, for client certificates; or several, in order (WebID-TLS tries each). */
  webId?: string | readonly string[];
  /** DNS names and IP addresses, for server certificates. */
  dnsNames?: string[];
  ips?: string[];
  days?: number;
}

/** A new RSA key, made on libuv's thread pool: 50–500 ms of work that never holds up requests. */
const makeKeyPair = promisify(generateKeyPair);

export async function generateKey(): Promise<string> {
  const { privateKey } = await makeKeyPair('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  return privateKey;
}

/** A self-signed certificate for the key in `keyPem`. */
export function selfSignedCertificate(keyPem: string, request: CertificateRequest): string {
  const { asn1, md, pki } = forge();
  const privateKey = pki.privateKeyFromPem(keyPem) as forgeModule.pki.rsa.PrivateKey;
  const cert = pki.createCertificate();
  cert.publicKey = pki.setRsaPublicKey(privateKey.n, privateKey.e);
  cert.serialNumber = '01' + randomBytes(15).toString('hex');
  const now = new Date();
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + (request.days ?? 3650) * 86_400_000);
  // a UTF8String, so that a name outside ASCII still makes a certificate Node can parse
  // (the typings call valueTagClass an ASN.1 class; forge reads it as the string type of the value)
  const subject = [{ name: 'commonName', value: request.commonName, valueTagClass: asn1.Type.UTF8 as unknown as forgeModule.asn1.Class }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  const altNames: Array<{ type: number; value?: string; ip?: string }> = [];
  for (const webId of typeof request.webId === 'string' ? [request.webId] : (request.webId ?? [])) altNames.push({ type: 6, value: webId }); // URI
  for (const dns of request.dnsNames ?? []) altNames.push({ type: 2, value: dns });
  for (const ip of request.ips ?? []) altNames.push({ type: 7, ip });
  const extensions: object[] = [{ name: 'basicConstraints', cA: false }];
  if (altNames.length) extensions.push({ name: 'subjectAltName', altNames });
  extensions.push(
    request.webId
      ? { name: 'extKeyUsage', clientAuth: true }
      : { name: 'extKeyUsage', serverAuth: true },
  );
  cert.setExtensions(extensions);
  cert.sign(privateKey, md.sha256.create());
  return pki.certificateToPem(cert);
}

export async function issueCredentials(request: CertificateRequest): Promise<Credentials> {
  const keyPem = await generateKey();
  return { keyPem, certPem: selfSignedCertificate(keyPem, request) };
}

/** Writes certificate + key as one PEM file, readable by its owner only. */
export async function writeCredentials(path: string, credentials: Credentials): Promise<void> {
  await writeSecretFile(path, credentials.certPem + credentials.keyPem);
}

export async function readCredentials(path: string): Promise<Credentials> {
  const pem = await fsp.readFile(path, 'utf8');
  const cert = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/.exec(pem)?.[0];
  const key = /-----BEGIN (?:RSA |EC )?PRIVATE KEY-----[\s\S]+?-----END (?:RSA |EC )?PRIVATE KEY-----\n?/.exec(pem)?.[0];
  if (!cert || !key) throw new Error(`${path} does not hold a certificate and a private key`);
  return { certPem: cert, keyPem: key };
}

/** PKCS#12 KDF and MAC iterations (OpenSSL's default is 2048). */
const PKCS12_ITERATIONS = 10_000;

export interface Pkcs12Request {
  /** The certificate's common name (at most 64 characters, RFC 5280 ub-common-name). */
  commonName: string;
  /** The name the key store shows. */
  friendlyName: string;
  webId: string;
  password: string;
  days: number;
}

/**
 * A new key and a client certificate naming `webId`, in a PKCS#12 file (DER) protected by the
 * password, with the certificate's public key: what signup hands out and what it publishes.
 */
export async function pkcs12Credentials(request: Pkcs12Request): Promise<{ pkcs12: Uint8Array; key: RsaPublicKey }> {
  const keyPem = await generateKey();
  const certPem = selfSignedCertificate(keyPem, { commonName: request.commonName, webId: request.webId, days: request.days });
  return { pkcs12: pkcs12Of({ certPem, keyPem }, request.password, request.friendlyName), key: rsaPublicKey(certPem)! };
}

/** Credentials as a PKCS#12 file (DER) protected by `password`: what a browser or an OS key store imports. */
export function pkcs12Of(credentials: Credentials, password: string, friendlyName: string): Buffer {
  const { asn1, pkcs12, pki } = forge();
  const privateKey = pki.privateKeyFromPem(credentials.keyPem) as forgeModule.pki.rsa.PrivateKey;
  const certificate = pki.certificateFromPem(credentials.certPem);
  // 3DES (pbeWithSHAAnd3-KeyTripleDES-CBC) with a SHA-1 MAC: read by OpenSSL 3 without the legacy
  // provider, Node's tls `pfx`, curl, browsers and OS key stores. forge's AES (PBES2) would feed
  // PBKDF2 the password's UTF-16 code units cut to bytes, so a non-ASCII password would not open.
  const der = pkcs12.toPkcs12Asn1(privateKey, certificate, password, { algorithm: '3des', count: PKCS12_ITERATIONS, friendlyName, generateLocalKeyId: true });
  return Buffer.from(asn1.toDer(der).getBytes(), 'binary');
}

/** Writes a secret file whole (0600, written aside then renamed), its folder made 0700 if missing. */
export async function writeSecretFile(path: string, bytes: string | Uint8Array): Promise<void> {
  await fsp.mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await fsp.writeFile(tmp, bytes, { mode: 0o600 });
  await fsp.rename(tmp, path);
}

export interface RsaPublicKey {
  /** Lower-case hexadecimal, without leading zeros. */
  modulus: string;
  exponent: number;
}

function base64urlToHex(value: string): string {
  return Buffer.from(value, 'base64url').toString('hex').replace(/^0+/, '');
}

export function rsaPublicKey(pem: string | X509Certificate): RsaPublicKey | undefined {
  const key = typeof pem === 'string' ? createPublicKey(pem) : pem.publicKey;
  const jwk = key.export({ format: 'jwk' });
  if (jwk.kty !== 'RSA' || !jwk.n || !jwk.e) return undefined;
  return { modulus: base64urlToHex(jwk.n), exponent: parseInt(base64urlToHex(jwk.e), 16) };
}

/** The WebIDs (SubjectAltName URIs) of a certificate. */
export function webIdsOf(cert: X509Certificate): string[] {
  const san = cert.subjectAltName ?? '';
  return [...san.matchAll(/URI:([^,]+)/g)].map((m) => m[1]!.trim());
}
