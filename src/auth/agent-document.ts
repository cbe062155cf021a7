/**
 * The documents that make an agent (DESIGN.md, "Authentication"), for every place that makes one:
 * the owner and the secretary (bootstrap.ts), a signup (signup.ts) and an OpenID account (oidc.ts).
 * Both are Turtle relative to the document's own URL, whose `<#this>` is the agent or its key:
 * the WebID document (a foaf:Agent with foaf:name, and what the caller knows of it) and the public
 * key document (a cert:RSAPublicKey) its `cert:key` names.
 */
import { createHash } from 'node:crypto';
import { ns } from '../rdf/namespaces.js';
import { iri, text, topicDocument } from '../rdf/topic-document.js';
import type { RsaPublicKey } from './certificates.js';

export interface AgentDescription {
  /** `foaf:name`. */
  name: string;
  /** Also a `foaf:Person` (someone who signed up or logged in; the owner and the secretary are agents only). */
  person?: boolean;
  /** An e-mail address: `foaf:mbox <mailto:…>`, with the `foaf:mbox_sha1sum` anonymous readers see instead (DESIGN.md, "Access defaults"). */
  email?: string;
  /** `cert:key`: the IRI of the agent's public key (WebID-TLS). */
  key?: string;
  /** `foaf:account <#account>`: a `foaf:OnlineAccount` with the provider's issuer as its homepage and the subject as its name. */
  account?: { issuer: string; subject: string };
  /** `acl:delegates`: the agent that may act on this one's behalf (the secretary, for the proxy: SPEC §4.5.9). */
  delegates?: string;
}

/** The WebID document of `agent`: `<> foaf:primaryTopic <#this>`, the agent being `<#this>`. */
export function agentDocument(agent: AgentDescription): string {
  const mbox = agent.email === undefined ? undefined : mailto(agent.email);
  const properties = [
    `a foaf:Agent${agent.person ? ', foaf:Person' : ''}`,
    `foaf:name ${text(agent.name)}`,
    ...(mbox ? [`foaf:mbox ${iri(mbox)}`, `foaf:mbox_sha1sum ${text(createHash('sha1').update(mbox).digest('hex'))}`] : []),
    ...(agent.key ? [`cert:key ${iri(agent.key)}`] : []),
    ...(agent.account ? ['foaf:account <#account>'] : []),
    ...(agent.delegates ? [`<${ns.acl}delegates> ${iri(agent.delegates)}`] : []),
  ];
  const account = agent.account && `\n<#account> a foaf:OnlineAccount ;\n  foaf:accountServiceHomepage ${iri(agent.account.issuer)} ;\n  foaf:accountName ${text(agent.account.subject)} .\n`;
  return topicDocument(['foaf', 'cert'], undefined, properties, account);
}

/** The document of an RSA public key: `<> foaf:primaryTopic <#this>`, the key being `<#this>`. */
export function publicKeyDocument(key: RsaPublicKey): string {
  return topicDocument(['foaf', 'cert', 'xsd'], undefined, ['a cert:RSAPublicKey', `cert:modulus ${text(key.modulus)}^^xsd:hexBinary`, `cert:exponent ${text(String(key.exponent))}^^xsd:integer`]);
}

/**
 * RFC 6068 §2: the `mailto:` IRI of an address. The local part keeps unreserved characters and the
 * `some-delims` `!$'()*+,;:@`; every other byte of its UTF-8 form is percent-encoded. The domain is
 * lower-cased (domain names are case-insensitive, RFC 5321 §2.4), so one mailbox has one IRI and one
 * `foaf:mbox_sha1sum` however its owner typed it.
 */
export function mailto(email: string): string {
  const at = email.lastIndexOf('@');
  const local = Buffer.from(email.slice(0, at))
    .toString('latin1') // one character per UTF-8 byte
    .replace(/[^A-Za-z0-9\-._~!$'()*+,;:@]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'));
  return `mailto:${local}${email.slice(at).toLowerCase()}`;
}
