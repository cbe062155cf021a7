/**
 * The groups and authorizations a new data directory starts with (DESIGN.md "Access defaults"),
 * written by the bootstrap as Turtle documents of the admin dataspace: owners, writers and readers,
 * and what anyone may do (read the namespace ontology and agents' documents, sign up, ask for
 * access). Policy (policy.ts) reads them like any other authorization.
 */
import { requireBase, type Mode } from './policy.js';
import { iri, text, topicDocument } from '../rdf/topic-document.js';

const PREFIXES = ['acl', 'foaf', 'rdfs', 'dct'] as const;

interface AuthorizationSpec {
  slug: string;
  title: string;
  comment: string;
  modes: Mode[];
  groups?: string[];
  everyone?: boolean;
  accessTo?: string[];
  default?: string[];
}

function authorizationDocument(spec: AuthorizationSpec): { path: string; turtle: string } {
  const lines = ['a acl:Authorization', `rdfs:label ${text(spec.title)}`, `rdfs:comment ${text(spec.comment)}`];
  if (spec.everyone) lines.push('acl:agentClass foaf:Agent');
  if (spec.groups?.length) lines.push(`acl:agentGroup ${spec.groups.map(iri).join(', ')}`);
  if (spec.accessTo?.length) lines.push(`acl:accessTo ${spec.accessTo.map(iri).join(', ')}`);
  if (spec.default?.length) lines.push(`acl:default ${spec.default.map(iri).join(', ')}`);
  lines.push(`acl:mode ${spec.modes.map((mode) => `acl:${mode}`).join(', ')}`);
  return { path: `acl/authorizations/${spec.slug}/`, turtle: topicDocument(PREFIXES, spec.title, lines) };
}

function groupDocument(slug: string, name: string, description: string, members: string[]): { path: string; turtle: string } {
  const lines = ['a foaf:Group', `foaf:name ${text(name)}`, `dct:description ${text(description)}`];
  if (members.length) lines.push(`foaf:member ${members.map(iri).join(', ')}`);
  return { path: `acl/groups/${slug}/`, turtle: topicDocument(PREFIXES, name, lines) };
}

/**
 * The bootstrap's groups and authorizations (DESIGN.md "Access defaults"), as Turtle documents with
 * paths relative to `adminBase`. Whole dataspaces are granted as acl:accessTo the root plus
 * acl:default on it, which reaches every document created later whatever its types; endpoints are
 * named one by one. Public: end-user `ns`, admin `access`, `sign up` (Read, Append),
 * `access/request` (Append), and every document under `acl/agents/` and `acl/public-keys/`.
 */
export function defaultAccessDocuments(input: { endUserBase: string; adminBase: string; ownerWebId: string; secretaryWebId: string }): { path: string; turtle: string }[] {
  const { endUserBase: user, adminBase: admin } = input;
  requireBase('endUserBase', user);
  requireBase('adminBase', admin);
  const group = (slug: string) => `${admin}acl/groups/${slug}/#this`;
  return [
    groupDocument('owners', 'Owners', 'Agents that own the dataspace: full control of it and of its administration', [input.ownerWebId]),
    groupDocument('writers', 'Writers', 'Agents that read and write the documents of the dataspace', [input.secretaryWebId]),
    groupDocument('readers', 'Readers', 'Agents that read the documents of the dataspace', []),
    authorizationDocument({
      slug: 'owners', title: 'Full control', comment: 'Owners have every mode on every document and endpoint of the dataspace and of its administration',
      modes: ['Read', 'Write', 'Append', 'Control'], groups: [group('owners')], default: [user, admin],
      accessTo: [user, `${user}sparql`, `${user}ns`, `${user}settings`, admin, `${admin}sparql`, `${admin}ns`, `${admin}settings`, `${admin}clear`, `${admin}access`, `${admin}access/request`, `${admin}sign%20up`],
    }),
    authorizationDocument({ slug: 'writers', title: 'Write access', comment: 'Writers read, write and append every document of the dataspace', modes: ['Read', 'Write', 'Append'], groups: [group('writers')], accessTo: [user], default: [user] }),
    authorizationDocument({ slug: 'readers', title: 'Read access', comment: 'Readers read every document of the dataspace', modes: ['Read'], groups: [group('readers')], accessTo: [user], default: [user] }),
    authorizationDocument({ slug: 'sparql', title: 'SPARQL access', comment: 'Writers and readers query the SPARQL endpoint of the dataspace', modes: ['Read'], groups: [group('writers'), group('readers')], accessTo: [`${user}sparql`] }),
    authorizationDocument({
      slug: 'public', title: 'Public access', comment: 'Anyone reads the namespace ontology, the access endpoint, agent WebID documents and public keys (WebID requires it)',
      modes: ['Read'], everyone: true, accessTo: [`${user}ns`, `${admin}access`], default: [`${admin}acl/agents/`, `${admin}acl/public-keys/`],
    }),
    authorizationDocument({ slug: 'sign-up', title: 'Sign up', comment: 'Anyone signs up with a WebID-TLS certificate', modes: ['Read', 'Append'], everyone: true, accessTo: [`${admin}sign%20up`] }),
    authorizationDocument({ slug: 'access-request', title: 'Access requests', comment: 'Anyone asks for access', modes: ['Append'], everyone: true, accessTo: [`${admin}access/request`] }),
  ];
}
