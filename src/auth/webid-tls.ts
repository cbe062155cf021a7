/**
 * WebID-TLS (DESIGN.md, "Authentication"): the client certificate names a WebID (SubjectAltName
 * URI); the agent is that WebID when the certificate's RSA key is one of the `cert:key`s the WebID
 * document lists (cert:modulus, cert:exponent). No certificate, or an expired or unreadable one,
 * means anonymous; a key the WebID document does not list is a 401. Results are cached per
 * certificate until the documents they were read from change. WebID documents are local documents
 * or, through the lookup, remote ones fetched under the outgoing-address rules.
 */
import { X509Certificate } from 'node:crypto';
import type { Quad } from '@rdfjs/types';
import { LodestoneError } from '../errors.js';
import { ns } from '../rdf/namespaces.js';
import { rsaPublicKey, webIdsOf } from './certificates.js';

/** Local documents by URL: undefined when no local dataspace holds them. */
export interface DocumentLookup {
  blobId(documentUrl: string): string | undefined;
  read(documentUrl: string): Promise<{ blobId: string; quads: Quad[] } | undefined>;
}

export function parseCertificate(der: Buffer): X509Certificate | undefined {
  try {
    return new X509Certificate(der);
  } catch {
    return undefined;
  }
}

function documentOf(iri: string): string {
  const hash = iri.indexOf('#');
  return hash < 0 ? iri : iri.slice(0, hash);
}

function objects(graph: readonly Quad[], subject: string, predicate: string): Quad['object'][] {
  return graph.filter((q) => q.subject.value === subject && q.predicate.value === predicate).map((q) => q.object);
}

/** A verdict that needs the WebID document read. */
export const UNKNOWN = Symbol('unknown');

export class WebIdVerifier {
  private readonly cache = new Map<string, { webId: string; blobs: Map<string, string> }>();

  constructor(private readonly lookup: DocumentLookup) {}

  /**
   * The verified WebID of a certificate, or undefined for anonymous (no usable certificate).
   * Throws Unauthenticated when the certificate names a WebID whose document does not list its key.
   */
  async verify(cert: X509Certificate | undefined, now = new Date()): Promise<string | undefined> {
    const known = this.known(cert, now);
    if (known !== UNKNOWN || !cert) return known === UNKNOWN ? undefined : known;
    const webIds = webIdsOf(cert).filter((id) => /^https?:\/\//.test(id));
    const key = rsaPublicKey(cert);
    if (!key) throw new LodestoneError('Unauthenticated', 'the client certificate does not hold an RSA key');
    for (const webId of webIds) {
      const blobs = new Map<string, string>();
      if (await this.listsKey(webId, key, blobs)) {
        this.cache.set(this.factsOf(cert).fingerprint, { webId, blobs });
        return webId;
      }
    }
    throw new LodestoneError('Unauthenticated', `the key of the client certificate is not a cert:key of ${webIds.join(', ')}`);
  }

  /**
   * The verdict when it needs no document read: anonymous (undefined) for no, an expired or a
   * WebID-less certificate, the WebID when a verification of this certificate is cached and its
   * documents are unchanged, and UNKNOWN otherwise. Synchronous, for the read fast path.
   */
  known(cert: X509Certificate | undefined, now = new Date()): string | undefined | typeof UNKNOWN {
    if (!cert) return undefined;
    const facts = this.factsOf(cert);
    if (facts.from > now.getTime() || facts.to < now.getTime()) return undefined;
    const cached = this.cache.get(facts.fingerprint);
    if (cached && this.unchanged(cached.blobs)) return cached.webId;
    if (!webIdsOf(cert).some((id) => /^https?:\/\//.test(id))) return undefined;
    return UNKNOWN;
  }

  // A connection keeps its certificate object: its validity and fingerprint are read once, not per request.
  private readonly facts = new WeakMap<X509Certificate, { from: number; to: number; fingerprint: string }>();

  private factsOf(cert: X509Certificate): { from: number; to: number; fingerprint: string } {
    let facts = this.facts.get(cert);
    if (!facts) this.facts.set(cert, (facts = { from: Date.parse(cert.validFrom), to: Date.parse(cert.validTo), fingerprint: cert.fingerprint256 }));
    return facts;
  }

  private unchanged(blobs: Map<string, string>): boolean {
    for (const [url, blobId] of blobs) if (this.lookup.blobId(url) !== blobId) return false;
    return true;
  }

  private async graph(url: string, blobs: Map<string, string>): Promise<Quad[]> {
    const document = await this.lookup.read(url);
    if (!document) return [];
    blobs.set(url, document.blobId);
    return document.quads;
  }

  /** Whether the WebID document of `principal` says `<principal> acl:delegates <delegate>` (delegation, issue 4). */
  async delegates(principal: string, delegate: string): Promise<boolean> {
    const profile = await this.graph(documentOf(principal), new Map());
    return objects(profile, principal, ns.acl + 'delegates').some((o) => o.value === delegate);
  }

  private async listsKey(webId: string, key: { modulus: string; exponent: number }, blobs: Map<string, string>): Promise<boolean> {
    const profile = await this.graph(documentOf(webId), blobs);
    for (const keyTerm of objects(profile, webId, ns.cert + 'key')) {
      const keyGraph = keyTerm.termType === 'NamedNode' && documentOf(keyTerm.value) !== documentOf(webId) ? [...profile, ...(await this.graph(documentOf(keyTerm.value), blobs))] : profile;
      const modulus = objects(keyGraph, keyTerm.value, ns.cert + 'modulus').map((t) => t.value.toLowerCase().replace(/^0+/, ''));
      const exponent = objects(keyGraph, keyTerm.value, ns.cert + 'exponent').map((t) => Number(t.value));
      if (modulus.includes(key.modulus) && exponent.includes(key.exponent)) return true;
    }
    return false;
  }
}

/**
 * RFC 9440: `Client-Cert: :<base64 DER>:` (a structured-field byte sequence); or the URL-encoded PEM
 * nginx gives as `$ssl_client_escaped_cert`, so `proxy_set_header Client-Cert $ssl_client_escaped_cert;` is all nginx needs.
 */
export function clientCertHeader(value: string | undefined): X509Certificate | undefined {
  const trimmed = value?.trim() ?? '';
  const match = /^:([A-Za-z0-9+/=]+):$/.exec(trimmed);
  if (match) return parseCertificate(Buffer.from(match[1]!, 'base64'));
  if (!trimmed.startsWith('-----BEGIN')) return undefined;
  try {
    return new X509Certificate(decodeURIComponent(trimmed));
  } catch {
    return undefined;
  }
}
