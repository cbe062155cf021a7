/**
 * WebID-TLS (DESIGN.md, "Authentication"): the client certificate names a WebID (SubjectAltName
 * URI); the agent is that WebID when the certificate's RSA key is one of the `cert:key`s the WebID
 * document lists (cert:modulus, cert:exponent). No certificate, or an expired or unreadable one,
 * means anonymous; a key the WebID document does not list is a 401. WebID documents are local
 * documents or, through the lookup, remote ones fetched under the outgoing-address rules; either
 * way they are read as N-Triples lines (rdf/canonical-lines.ts), never parsed on this thread.
 * Work per certificate is bounded: its first MAX_WEBIDS URIs are tried, MAX_DOCUMENTS documents
 * read; verdicts are kept per certificate until the documents they were read from change (a
 * refusal 30 s at most), one verification per certificate runs at a time, and verifications that
 * read documents are limited per client address (429): so many a minute, MAX_CHECKING at once.
 */
import { X509Certificate } from 'node:crypto';
import { LodestoneError } from '../errors.js';
import { lexicalForm, objectTerms } from '../rdf/canonical-lines.js';
import { ns } from '../rdf/namespaces.js';
import { ByteCache } from '../util/byte-cache.js';
import type { RateLimit } from '../util/rate-limit.js';
import { rsaPublicKey, webIdsOf, type RsaPublicKey } from './certificates.js';
import { documentIri } from '../rdf/iri.js';

/** WebID documents by URL: undefined when there is none (or it cannot be read). */
export interface DocumentLookup {
  blobId(documentUrl: string): string | undefined;
  /** The document as N-Triples, one triple a line: a stored document's canonical bytes, a remote one's translation. */
  read(documentUrl: string): Promise<{ blobId: string; ntriples: Buffer } | undefined>;
}

export interface WebIdVerifierOptions {
  /** Verifications that read documents, per client address; none without it. */
  rate?: RateLimit;
  /** Certificates whose verdict is kept (default 10,000), those used longest ago dropped first. */
  maxCached?: number;
}

/** The SubjectAltName URIs of one certificate that are tried; the others are ignored (a certificate may list thousands). */
export const MAX_WEBIDS = 3;
/** Documents read for one certificate at most (WebID documents and the documents of their keys), one after another. */
const MAX_DOCUMENTS = 6;
/** Certificates of one client address checked at once (so a few addresses cannot take every remote fetch, remote-webid.ts). */
const MAX_CHECKING = 2;
/** How long a refusal is kept when the documents it read have not changed (a remote one that failed may come back). */
const REFUSAL_MS = 30_000;
/** A WebID that N-Triples writes as it is: anything else would need escapes to be found in a document. */
const PLAIN_IRI = /^https?:\/\/[^\s<>"{}|\\^`]+$/;

export function parseCertificate(der: Buffer): X509Certificate | undefined {
  try {
    return new X509Certificate(der);
  } catch {
    return undefined;
  }
}


/** A verdict that needs the WebID document read. */
export const UNKNOWN = Symbol('unknown');

interface Verdict {
  /** The verified WebID, or why the certificate was refused. */
  webId?: string;
  refusal?: string;
  /** The blob ids of the documents it was read from (undefined: the document was not there). */
  blobs: Map<string, string | undefined>;
  /** When a refusal is no longer believed. */
  until?: number;
}

function unauthenticated(message: string): LodestoneError {
  return new LodestoneError('Unauthenticated', message);
}

export class WebIdVerifier {
  /** Verdicts by certificate fingerprint, the longest unused dropped first. */
  private readonly cache: ByteCache<Verdict>;
  private readonly pending = new Map<string, Promise<string>>();

  constructor(
    private readonly lookup: DocumentLookup,
    private readonly options: WebIdVerifierOptions = {},
  ) {
    const maxCached = options.maxCached ?? 10_000;
    this.cache = new ByteCache<Verdict>(maxCached, () => 1, maxCached); // counted in verdicts
  }

  /**
   * The verified WebID of a certificate, or undefined for anonymous (no usable certificate).
   * Throws Unauthenticated when the certificate names a WebID whose document does not list its key,
   * TooManyRequests when `client` has had too many certificates verified lately.
   */
  async verify(cert: X509Certificate | undefined, client?: string, now = new Date()): Promise<string | undefined> {
    const known = this.known(cert, now);
    if (known !== UNKNOWN || !cert) return known === UNKNOWN ? undefined : known;
    const { fingerprint } = this.factsOf(cert);
    const cached = this.cache.get(fingerprint);
    if (cached?.refusal !== undefined && this.holds(cached, now)) throw unauthenticated(cached.refusal);
    let pending = this.pending.get(fingerprint);
    if (!pending) {
      this.admit(client);
      pending = this.check(cert, fingerprint, now).finally(() => {
        this.pending.delete(fingerprint);
        this.release(client);
      });
      this.pending.set(fingerprint, pending);
    }
    return pending;
  }

  /** Certificates of each client address being checked now. */
  private readonly checking = new Map<string, number>();

  /** Lets a client have one more certificate checked (TooManyRequests past its rate, or while it has MAX_CHECKING checked already). */
  private admit(client: string | undefined): void {
    if (client === undefined) return;
    if ((this.checking.get(client) ?? 0) >= MAX_CHECKING) throw new LodestoneError('TooManyRequests', `certificates from this address are being checked already; try again in a few seconds`, { retryAfter: 5 });
    const waitMs = this.options.rate?.take(client) ?? 0;
    if (waitMs > 0) throw new LodestoneError('TooManyRequests', `too many new client certificates checked from this address; try again in ${Math.ceil(waitMs / 1000)} s`, { retryAfter: Math.ceil(waitMs / 1000) });
    this.checking.set(client, (this.checking.get(client) ?? 0) + 1);
  }

  private release(client: string | undefined): void {
    if (client === undefined) return;
    const left = (this.checking.get(client) ?? 1) - 1;
    if (left > 0) this.checking.set(client, left);
    else this.checking.delete(client);
  }

  /**
   * The verdict when it needs no document read: anonymous (undefined) for no, an expired or a
   * WebID-less certificate, the WebID when a verification of this certificate is cached and its
   * documents are unchanged, and UNKNOWN otherwise. Synchronous, for the read fast path.
   */
  known(cert: X509Certificate | undefined, now?: Date): string | undefined | typeof UNKNOWN {
    if (!cert) return undefined;
    now ??= new Date(); // not for a request without a certificate: the read fast path calls this for every GET
    const facts = this.factsOf(cert);
    if (facts.from > now.getTime() || facts.to < now.getTime()) return undefined;
    const cached = this.cache.get(facts.fingerprint);
    if (cached?.webId !== undefined && this.holds(cached, now)) return cached.webId;
    if (!facts.webIds.length) return undefined;
    return UNKNOWN;
  }

  // A connection keeps its certificate object: its validity, fingerprint and WebIDs are read once, not per request.
  private readonly facts = new WeakMap<X509Certificate, { from: number; to: number; fingerprint: string; webIds: string[] }>();

  private factsOf(cert: X509Certificate): { from: number; to: number; fingerprint: string; webIds: string[] } {
    let facts = this.facts.get(cert);
    if (!facts) {
      const webIds = webIdsOf(cert).filter((id) => /^https?:\/\//.test(id));
      this.facts.set(cert, (facts = { from: Date.parse(cert.validFrom), to: Date.parse(cert.validTo), fingerprint: cert.fingerprint256, webIds }));
    }
    return facts;
  }

  /** Whether a kept verdict still holds: its documents are unchanged (and a refusal is recent). */
  private holds(verdict: Verdict, now: Date): boolean {
    if (verdict.until !== undefined && verdict.until <= now.getTime()) return false;
    for (const [url, blobId] of verdict.blobs) if (this.lookup.blobId(url) !== blobId) return false;
    return true;
  }

  private async check(cert: X509Certificate, fingerprint: string, now: Date): Promise<string> {
    const { webIds } = this.factsOf(cert);
    const tried = webIds.slice(0, MAX_WEBIDS);
    const key = rsaPublicKey(cert);
    if (!key) throw unauthenticated('the client certificate does not hold an RSA key');
    const blobs = new Map<string, string | undefined>();
    for (const webId of tried) {
      if (await this.listsKey(webId, key, blobs)) {
        this.remember(fingerprint, { webId, blobs });
        return webId;
      }
    }
    const ignored = webIds.length - tried.length;
    const rest = ignored === 1 ? 'names 1 more URI, which was not tried' : `names ${ignored} more URIs, which were not tried`;
    const refusal = `the key of the client certificate is not a cert:key of ${tried.join(', ')}${ignored ? `; the certificate ${rest} (a certificate is checked against its first ${MAX_WEBIDS} SubjectAltName URIs)` : ''}`;
    this.remember(fingerprint, { refusal, blobs, until: now.getTime() + REFUSAL_MS });
    throw unauthenticated(refusal);
  }

  private remember(fingerprint: string, verdict: Verdict): void {
    this.cache.delete(fingerprint); // a verdict replaces the one its documents changed under
    this.cache.put(fingerprint, verdict);
  }

  /** A document's N-Triples, its blob id noted in `blobs`; undefined when it is not there or too many were read for this certificate. */
  private async text(url: string, blobs: Map<string, string | undefined>): Promise<Buffer | undefined> {
    if (blobs.size >= MAX_DOCUMENTS && !blobs.has(url)) return undefined;
    const document = await this.lookup.read(url);
    blobs.set(url, document?.blobId);
    return document?.ntriples;
  }

  /** Whether the WebID document of `principal` says `<principal> acl:delegates <delegate>` (delegation, issue 4). */
  async delegates(principal: string, delegate: string): Promise<boolean> {
    if (!PLAIN_IRI.test(principal)) return false;
    const profile = await this.text(documentIri(principal), new Map());
    return profile !== undefined && objectTerms(profile, `<${principal}>`, ns.acl + 'delegates').includes(`<${delegate}>`);
  }

  private async listsKey(webId: string, key: RsaPublicKey, blobs: Map<string, string | undefined>): Promise<boolean> {
    if (!PLAIN_IRI.test(webId)) return false;
    const profile = await this.text(documentIri(webId), blobs);
    if (!profile) return false;
    for (const keyTerm of objectTerms(profile, `<${webId}>`, ns.cert + 'key')) {
      const texts = [profile];
      // a key described in a document of its own (signup's public-keys/): read that one too
      const keyDocument = keyTerm.startsWith('<') ? documentIri(keyTerm.slice(1, -1)) : undefined;
      if (keyDocument && keyDocument !== documentIri(webId)) {
        const other = await this.text(keyDocument, blobs);
        if (other) texts.push(other);
      }
      const values = (predicate: string) => texts.flatMap((text) => objectTerms(text, keyTerm, predicate).map(lexicalForm)).filter((v): v is string => v !== undefined);
      const modulus = values(ns.cert + 'modulus').map((m) => m.toLowerCase().replace(/^0+/, ''));
      const exponent = values(ns.cert + 'exponent').map(Number);
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
