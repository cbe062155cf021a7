/**
 * WebID-TLS signup (SPEC §4.7 `admin/sign%20up`, §5; DESIGN.md "Authentication"): a form becomes an
 * agent document, its public-key document (the shapes bootstrap.ts writes) and a client certificate
 * with its private key in a password-protected PKCS#12 file. Nothing is stored here: the caller
 * writes the two documents. Neither document ever holds the password or the private key.
 *
 * Bodies accepted (application/x-www-form-urlencoded, percent-encoding checked strictly):
 * - plain fields `name`, `email`, `password`, each exactly once; other fields (a submit button) are ignored;
 * - RDF/POST (first field `rdf=`), the shape of LinkedDataHub's signup form; other triples are ignored:
 *     <person> a foaf:Person ; foaf:name "…" (or foaf:givenName "…" ; foaf:familyName "…") ;
 *       foaf:mbox <mailto:…> (or "…") ; cert:key _:key .
 *     _:key a cert:X509Certificate ; lacl:password "…" (typed twice: equal values are one) .
 *   `lacl:password` may also be said of the person itself.
 */
import { randomUUID } from 'node:crypto';
import type { Quad, Term } from '@rdfjs/types';
import { LodestoneError } from '../errors.js';
import { ns, RDF_TYPE } from '../rdf/namespaces.js';
import { termToNTriples } from '../rdf/ntriples.js';
import { parseRdfPost } from '../rdf/rdf-post.js';
import { agentDocument, publicKeyDocument } from './agent-document.js';
import { pkcs12Credentials, type Pkcs12Request, type RsaPublicKey } from './certificates.js';
import { FORM } from '../rdf/media-types.js';

export interface SignupRequest {
  name: string;
  email: string;
  password: string;
}

export interface SignupResult {
  /** `<adminBase>acl/agents/<uuid>/#this`. */
  webId: string;
  /** `acl/agents/<uuid>/`, relative to the admin base. */
  agentPath: string;
  agentTurtle: string;
  /** `acl/public-keys/<uuid>/`, relative to the admin base. */
  keyPath: string;
  keyTurtle: string;
  /** DER PKCS#12: certificate and private key, 3DES-encrypted and MACed with the form's password. */
  pkcs12: Buffer;
}

/** LinkedDataHub's admin ACL vocabulary, for `lacl:password` only (the one term of it Lodestone reads). */
const LACL = ns.lacl;
/** Relative IRIs of an RDF/POST body resolve here: the person's own IRI is never used, a new WebID is minted. */
const FORM_BASE = 'https://signup.invalid/';
const NAME_MAX = 200;
const EMAIL_MAX = 254; // RFC 5321 §4.5.3.1.3 path limit, less the angle brackets
const PASSWORD_MIN = 8;
const PASSWORD_MAX = 256;
/** RFC 5280 ub-common-name: a longer name is cut in the certificate, never in the agent document. */
const COMMON_NAME_MAX = 64;
/** HTML, "valid e-mail address" (https://html.spec.whatwg.org/#valid-e-mail-address): what browsers accept in <input type=email>. */
const EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
const CONTROL = /[\p{Cc}\u2028\u2029]/u;

type Field = keyof SignupRequest;
/** How each field is named to the client: as a form field or as an RDF property. */
type Labels = Record<Field, string>;

const plainLabels: Labels = { name: 'the field "name"', email: 'the field "email"', password: 'the field "password"' };

function violation(field: Field, message: string): LodestoneError {
  return new LodestoneError('ConstraintViolation', message, { field });
}

function length(value: string): number {
  return [...value].length;
}

/** A client's value in a message: quoted, and cut so that a refusal never echoes a megabyte. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 100 ? value.slice(0, 100) + '…' : value);
}

/** One key or value of an urlencoded body. `+` is a space; a `%` must start an escape, and the escapes must be UTF-8. */
function decodeComponent(raw: string, label: string, field: string): string {
  const bad = /%(?![0-9A-Fa-f]{2})/.exec(raw);
  if (bad) throw new LodestoneError('SyntaxError', `${label} is not valid form encoding: the "%" at character ${bad.index + 1} is not followed by two hexadecimal digits`, { field });
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    throw new LodestoneError('SyntaxError', `${label} is not valid form encoding: its %-escapes are not UTF-8`, { field });
  }
}

/** application/x-www-form-urlencoded (WHATWG URL §5.1), but refusing what the standard would silently repair. */
export function formFields(body: string): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  body.split('&').forEach((part, i) => {
    if (part === '') return;
    const eq = part.indexOf('=');
    const key = decodeComponent(eq < 0 ? part : part.slice(0, eq), `the name of field ${i + 1}`, String(i + 1));
    fields.push([key, decodeComponent(eq < 0 ? '' : part.slice(eq + 1), `the field "${key}"`, key)]);
  });
  return fields;
}

/** The checks both body shapes share, and that createSignup repeats: the result is safe to put in a document and a certificate. */
function validated(raw: Partial<SignupRequest>, labels: Labels): SignupRequest {
  const present = (field: Field): string => {
    const value = raw[field];
    if (value === undefined) throw violation(field, `${labels[field]} is missing`);
    const control = CONTROL.exec(value);
    if (control) throw violation(field, `${labels[field]} holds a control character (U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}) at character ${length(value.slice(0, control.index)) + 1}`);
    return value;
  };
  const name = present('name').normalize('NFC').trim();
  if (!name) throw violation('name', `${labels.name} is empty`);
  if (length(name) > NAME_MAX) throw violation('name', `${labels.name} is ${length(name)} characters long; at most ${NAME_MAX} are allowed`);
  const email = present('email').trim();
  if (!email) throw violation('email', `${labels.email} is empty`);
  if (length(email) > EMAIL_MAX) throw violation('email', `${labels.email} is ${length(email)} characters long; an e-mail address has at most ${EMAIL_MAX}`);
  if (!EMAIL.test(email)) throw violation('email', `${labels.email} is not an e-mail address: ${quoted(email)}`);
  const password = present('password');
  if (length(password) < PASSWORD_MIN) throw violation('password', `${labels.password} is ${length(password)} characters long; at least ${PASSWORD_MIN} are needed`);
  if (length(password) > PASSWORD_MAX) throw violation('password', `${labels.password} is ${length(password)} characters long; at most ${PASSWORD_MAX} are allowed`);
  const at = email.lastIndexOf('@');
  return { name, email: email.slice(0, at) + email.slice(at).toLowerCase(), password };
}

function plainRequest(fields: Array<[string, string]>): SignupRequest {
  const raw: Partial<SignupRequest> = {};
  for (const field of ['name', 'email', 'password'] as const) {
    const values = fields.filter(([key]) => key === field);
    if (values.length > 1) throw violation(field, `${plainLabels[field]} is given ${values.length} times; give it once`);
    raw[field] = values[0]?.[1];
  }
  return validated(raw, plainLabels);
}

function rdfPostRequest(body: string): SignupRequest {
  const quads = parseRdfPost(body, FORM_BASE);
  const objects = (subjects: readonly Term[], predicate: string): Quad['object'][] => {
    const found = new Map<string, Quad['object']>();
    for (const q of quads) if (q.predicate.value === predicate && subjects.some((s) => s.equals(q.subject))) found.set(termToNTriples(q.object), q.object);
    return [...found.values()];
  };
  const persons = [...new Map(quads.filter((q) => q.predicate.value === RDF_TYPE && q.object.value === ns.foaf + 'Person').map((q) => [termToNTriples(q.subject), q.subject])).values()];
  if (persons.length !== 1) throw violation('name', persons.length ? `the RDF/POST body describes ${persons.length} foaf:Person resources; sign up one at a time` : 'the RDF/POST body describes no foaf:Person (rdf:type foaf:Person)');
  const text = (field: Field, property: string, values: Quad['object'][]): string | undefined => {
    if (values.length > 1) throw violation(field, `${property} is given ${values.length} different values; give one`);
    const value = values[0];
    if (value && value.termType !== 'Literal') throw violation(field, `${property} must be a literal, not ${quoted(termToNTriples(value))}`);
    return value?.value;
  };
  const fullName = text('name', 'foaf:name', objects(persons, ns.foaf + 'name'));
  const given = text('name', 'foaf:givenName', objects(persons, ns.foaf + 'givenName'));
  const family = text('name', 'foaf:familyName', objects(persons, ns.foaf + 'familyName'));
  const parts = [given, family].filter((part): part is string => part !== undefined);
  const name = fullName ?? (parts.length ? parts.join(' ') : undefined);
  const nameLabel = fullName !== undefined || !parts.length ? 'foaf:name' : 'foaf:givenName/foaf:familyName';
  const mboxes = objects(persons, ns.foaf + 'mbox');
  if (mboxes.length > 1) throw violation('email', `foaf:mbox is given ${mboxes.length} different values; give one`);
  const email = mboxes[0] && (mboxes[0].termType === 'Literal' ? mboxes[0].value : mailtoAddress(mboxes[0]));
  const keys = objects(persons, ns.cert + 'key');
  const passwords = objects([...persons, ...keys], LACL + 'password');
  if (passwords.length > 1) throw violation('password', 'lacl:password is given different values; the password and its confirmation must be equal');
  const password = text('password', 'lacl:password', passwords);
  return validated({ name, email, password }, { name: nameLabel, email: 'foaf:mbox', password: 'lacl:password' });
}

/** RFC 6068: the address of a `mailto:` IRI, percent-decoded; header fields (`?subject=`) are refused. */
function mailtoAddress(term: Quad['object']): string {
  const iri = term.value;
  if (term.termType !== 'NamedNode' || !/^mailto:/i.test(iri)) throw violation('email', `foaf:mbox must be a mailto: IRI or a literal, not ${quoted(termToNTriples(term))}`);
  if (/[?#]/.test(iri)) throw violation('email', `foaf:mbox must be a plain mailto: IRI, without "?" header fields or a fragment: ${quoted(iri)}`);
  try {
    return decodeURIComponent(iri.slice('mailto:'.length));
  } catch {
    throw violation('email', `foaf:mbox is not a valid mailto: IRI: its %-escapes are not UTF-8`);
  }
}

/**
 * Parses and validates a signup form. Unreadable bodies (bad percent-encoding, broken RDF/POST) are
 * a SyntaxError (400); a missing, repeated or malformed field is a ConstraintViolation (422). The
 * message names the field, and `data.field` is `name`, `email` or `password`.
 */
export function parseSignup(body: string, mediaType: typeof FORM): SignupRequest {
  if (mediaType !== FORM) throw new LodestoneError('SyntaxError', `a signup is a form (${FORM}), not ${mediaType}`);
  const fields = formFields(body);
  return fields[0]?.[0] === 'rdf' ? rdfPostRequest(body) : plainRequest(fields);
}

/** Where the key, the certificate and the PKCS#12 file are made: a worker pool in the server (signup-workers.ts), here by default. */
export type IssueCredentials = (request: Pkcs12Request) => Promise<{ pkcs12: Uint8Array; key: RsaPublicKey }>;

/**
 * Mints the agent: a new WebID and key IRI, an RSA 2048 key, the two documents and the PKCS#12 file.
 * `adminBase` is the admin dataspace's base URL, ending in `/`. The request is validated again.
 */
export async function createSignup(request: SignupRequest, adminBase: string, delegates?: string, issue: IssueCredentials = pkcs12Credentials): Promise<SignupResult> {
  if (!adminBase.endsWith('/')) throw new Error(`the admin base ${adminBase} does not end in "/"`);
  const { name, email, password } = validated(request, plainLabels);
  const agentPath = `acl/agents/${randomUUID()}/`;
  const keyPath = `acl/public-keys/${randomUUID()}/`;
  const webId = `${adminBase}${agentPath}#this`;
  const keyIri = `${adminBase}${keyPath}#this`;
  const commonName = [...name].slice(0, COMMON_NAME_MAX).join('').trim();
  const { pkcs12, key } = await issue({ commonName, friendlyName: name, webId, password, days: 365 });
  const agentTurtle = agentDocument({ name, person: true, email, key: keyIri, delegates });
  const keyTurtle = publicKeyDocument(key);
  return { webId, agentPath, agentTurtle, keyPath, keyTurtle, pkcs12: Buffer.from(pkcs12.buffer, pkcs12.byteOffset, pkcs12.byteLength) };
}
