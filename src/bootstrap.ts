/**
 * First start on an empty data directory (DESIGN.md, "Command line"): the root documents of the
 * end-user and admin dataspaces, the admin containers `acl/agents/`, `acl/public-keys/`,
 * `acl/groups/`, `acl/authorizations/`, the owner and secretary agents with their public keys,
 * their client certificates in `secrets/`, and the server's TLS certificate. The secrets are
 * written last, so an interrupted bootstrap runs again on the next start. Later starts read the
 * agents back from their certificates.
 */
import { X509Certificate, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DataFactory } from 'n3';
import type { Quad } from '@rdfjs/types';
import type { DocumentService } from './documents/document-service.js';
import { NTRIPLES } from './rdf/formats.js';
import { ns } from './rdf/namespaces.js';
import { tripleLine } from './rdf/ntriples.js';
import { defaultAccessDocuments } from './access/policy.js';
import { issueCredentials, readCredentials, rsaPublicKey, webIdsOf, writeCredentials, type Credentials } from './auth/certificates.js';

const { namedNode, literal, quad } = DataFactory;

export interface Agent {
  webId: string;
  /** Relative path of the agent's document in the admin dataspace. */
  documentPath: string;
  credentialsFile: string;
}

export interface Bootstrapped {
  owner: Agent;
  secretary: Agent;
  server: Credentials;
  serverFile: string;
}

export function secretsDir(data: string): string {
  return join(data, 'secrets');
}

function agentFrom(credentialsFile: string, certPem: string, adminBase: string): Agent {
  const webId = webIdsOf(new X509Certificate(certPem))[0];
  if (!webId || !webId.startsWith(adminBase)) throw new Error(`${credentialsFile} does not name an agent of ${adminBase}`);
  return { webId, documentPath: webId.slice(adminBase.length).replace(/#.*$/, ''), credentialsFile };
}

async function putDocument(service: DocumentService, relativePath: string, agent: string, triples: Quad[]): Promise<void> {
  const text = triples.map(tripleLine).join('\n') + '\n';
  await service.write({ method: 'PUT', relativePath, agent, body: { text, mediaType: NTRIPLES }, precondition: () => undefined });
}

function titled(url: string, title: string, container = false): Quad[] {
  const doc = namedNode(url);
  const out = [quad(doc, namedNode(ns.dct + 'title'), literal(title))];
  if (container) out.push(quad(doc, namedNode(ns.rdf + 'type'), namedNode(ns.dh + 'Container')));
  return out;
}

async function createAgent(admin: DocumentService, name: string, adminBase: string, credentialsFile: string, id = randomUUID()): Promise<{ agent: Agent; credentials: Credentials }> {
  const keyId = randomUUID();
  const documentPath = `acl/agents/${id}/`;
  const webId = `${adminBase}${documentPath}#this`;
  const credentials = issueCredentials({ commonName: name, webId });
  const key = rsaPublicKey(credentials.certPem)!;
  const keyDoc = `${adminBase}acl/public-keys/${keyId}/`;
  const keyIri = namedNode(`${keyDoc}#this`);
  await putDocument(admin, `acl/public-keys/${keyId}/`, webId, [
    quad(namedNode(keyDoc), namedNode(ns.foaf + 'primaryTopic'), keyIri),
    quad(keyIri, namedNode(ns.rdf + 'type'), namedNode(ns.cert + 'RSAPublicKey')),
    quad(keyIri, namedNode(ns.cert + 'modulus'), literal(key.modulus, namedNode(ns.xsd + 'hexBinary'))),
    quad(keyIri, namedNode(ns.cert + 'exponent'), literal(String(key.exponent), namedNode(ns.xsd + 'integer'))),
  ]);
  const agentIri = namedNode(webId);
  await putDocument(admin, documentPath, webId, [
    quad(namedNode(`${adminBase}${documentPath}`), namedNode(ns.foaf + 'primaryTopic'), agentIri),
    quad(agentIri, namedNode(ns.rdf + 'type'), namedNode(ns.foaf + 'Agent')),
    quad(agentIri, namedNode(ns.foaf + 'name'), literal(name)),
    quad(agentIri, namedNode(ns.cert + 'key'), keyIri),
  ]);
  return { agent: { webId, documentPath, credentialsFile }, credentials };
}

export async function bootstrap(data: string, endUser: DocumentService, admin: DocumentService, log: (line: string) => void): Promise<Bootstrapped> {
  const dir = secretsDir(data);
  const ownerFile = join(dir, 'owner.pem');
  const secretaryFile = join(dir, 'secretary.pem');
  const serverFile = join(dir, 'server.pem');
  const adminBase = admin.dataspace.base;
  if (!existsSync(serverFile)) {
    const host = new URL(adminBase).hostname;
    await writeCredentials(serverFile, issueCredentials({ commonName: host, dnsNames: [host, 'localhost'], ips: ['127.0.0.1', '::1'] }));
  }
  const server = await readCredentials(serverFile);
  if (existsSync(ownerFile) && existsSync(secretaryFile)) {
    const owner = agentFrom(ownerFile, (await readCredentials(ownerFile)).certPem, adminBase);
    const secretary = agentFrom(secretaryFile, (await readCredentials(secretaryFile)).certPem, adminBase);
    await writeAccessDocuments(endUser, admin, owner.webId, secretary.webId, log);
    return { owner, secretary, server, serverFile };
  }
  log(`bootstrapping ${endUser.dataspace.base} and ${adminBase}`);
  const owner = await createOwnerFirst(endUser, admin, adminBase, ownerFile);
  const secretary = await createAgent(admin, 'Secretary', adminBase, secretaryFile);
  await writeAccessDocuments(endUser, admin, owner.agent.webId, secretary.agent.webId, log);
  await writeCredentials(secretaryFile, secretary.credentials);
  await writeCredentials(ownerFile, owner.credentials);
  return { owner: owner.agent, secretary: secretary.agent, server, serverFile };
}

/**
 * The groups (owners, writers, readers) and the default authorizations (issue 4), written once:
 * when the last of them is missing (a new data directory, or one made before access control).
 */
async function writeAccessDocuments(endUser: DocumentService, admin: DocumentService, ownerWebId: string, secretaryWebId: string, log: (line: string) => void): Promise<void> {
  const documents = defaultAccessDocuments({ endUserBase: endUser.dataspace.base, adminBase: admin.dataspace.base, ownerWebId, secretaryWebId });
  if (admin.blobId(documents[documents.length - 1]!.path) !== undefined) return; // written last: all are there
  log(`writing the default groups and authorizations to ${admin.dataspace.base}acl/`);
  if (admin.blobId('acl/access-requests/') === undefined) {
    await putDocument(admin, 'acl/access-requests/', ownerWebId, titled(`${admin.dataspace.base}acl/access-requests/`, 'Access requests', true));
  }
  for (const document of documents) {
    await admin.write({ method: 'PUT', relativePath: document.path, agent: ownerWebId, body: { text: document.turtle, mediaType: 'text/turtle' }, precondition: () => undefined });
  }
}

/** The containers are created on the owner's behalf, so the owner's WebID is chosen first. */
async function createOwnerFirst(endUser: DocumentService, admin: DocumentService, adminBase: string, ownerFile: string) {
  const id = randomUUID();
  const webId = `${adminBase}acl/agents/${id}/#this`;
  await putDocument(endUser, '', webId, titled(endUser.dataspace.base, 'Lodestone'));
  await putDocument(admin, '', webId, titled(adminBase, 'Lodestone administration'));
  await putDocument(admin, 'acl/', webId, titled(`${adminBase}acl/`, 'Access control', true));
  for (const [path, title] of [['agents', 'Agents'], ['public-keys', 'Public keys'], ['groups', 'Groups'], ['authorizations', 'Authorizations']] as const) {
    await putDocument(admin, `acl/${path}/`, webId, titled(`${adminBase}acl/${path}/`, title, true));
  }
  return createAgent(admin, 'Owner', adminBase, ownerFile, id);
}
