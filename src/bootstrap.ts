/**
 * First start on an empty data directory (DESIGN.md, "Command line"): the root documents of the
 * end-user and admin dataspaces, the admin containers `acl/agents/`, `acl/public-keys/`,
 * `acl/groups/`, `acl/authorizations/` and `ontologies/` (the owners' ontology documents), the
 * owner and secretary agents with their public keys, their client certificates in `secrets/`, and
 * the server's TLS certificate. The owner and the secretary are agents of the first pair's admin
 * dataspace and own every pair; a pair declared later gets its documents on the first start that
 * finds its repositories empty. The secrets are written last, so an interrupted bootstrap runs
 * again on the next start. Later starts read the agents back from their certificates.
 */
import { X509Certificate, randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DataFactory } from 'n3';
import type { Quad } from '@rdfjs/types';
import type { DocumentService } from './documents/document-service.js';
import { ns, RDF_TYPE } from './rdf/namespaces.js';
import { hasTriple } from './rdf/canonical-lines.js';
import { tripleLine } from './rdf/ntriples.js';
import { defaultAccessDocuments } from './access/default-access.js';
import { ONTOLOGIES } from './ontology/governing.js';
import { agentDocument, publicKeyDocument } from './auth/agent-document.js';
import { issueCredentials, pkcs12Of, readCredentials, rsaPublicKey, webIdsOf, writeCredentials, writeSecretFile, type Credentials } from './auth/certificates.js';
import { documentIri } from './rdf/iri.js';
import { NTRIPLES, TURTLE } from './rdf/media-types.js';

const { namedNode, literal, quad } = DataFactory;

/** The document services of an end-user dataspace and its admin dataspace. */
export interface PairServices {
  endUser: DocumentService;
  admin: DocumentService;
}

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
  /** The owner's certificate for a browser (PKCS#12) and the file that holds its password. */
  ownerPkcs12: { file: string; passwordFile: string };
}

export function secretsDir(data: string): string {
  return join(data, 'secrets');
}

function agentFrom(credentialsFile: string, certPem: string, adminBase: string): Agent {
  const webId = webIdsOf(new X509Certificate(certPem))[0];
  if (!webId || !webId.startsWith(adminBase)) throw new Error(`${credentialsFile} does not name an agent of ${adminBase}`);
  return { webId, documentPath: documentIri(webId.slice(adminBase.length)), credentialsFile };
}

async function putDocument(service: DocumentService, relativePath: string, agent: string, triples: Quad[]): Promise<void> {
  const text = triples.map(tripleLine).join('\n') + '\n';
  await service.write({ method: 'PUT', relativePath, agent, body: { text, mediaType: NTRIPLES } });
}

async function putTurtle(service: DocumentService, relativePath: string, agent: string, text: string): Promise<void> {
  await service.write({ method: 'PUT', relativePath, agent, body: { text, mediaType: TURTLE } });
}

function titled(url: string, title: string, container = false): Quad[] {
  const doc = namedNode(url);
  const out = [quad(doc, namedNode(ns.dct + 'title'), literal(title))];
  if (container) out.push(quad(doc, namedNode(RDF_TYPE), namedNode(ns.dh + 'Container')));
  return out;
}

function webIdOf(adminBase: string, id: string): string {
  return `${adminBase}acl/agents/${id}/#this`;
}

/** Writes an agent's key and WebID documents (naming the agent it delegates to); its credentials are issued (in parallel) before. */
async function createAgent(admin: DocumentService, name: string, credentialsFile: string, id: string, credentials: Credentials, delegates?: string): Promise<{ agent: Agent; credentials: Credentials }> {
  const adminBase = admin.dataspace.base;
  const keyPath = `acl/public-keys/${randomUUID()}/`;
  const documentPath = `acl/agents/${id}/`;
  const webId = webIdOf(adminBase, id);
  await putTurtle(admin, keyPath, webId, publicKeyDocument(rsaPublicKey(credentials.certPem)!));
  await putTurtle(admin, documentPath, webId, agentDocument({ name, key: `${adminBase}${keyPath}#this`, delegates }));
  return { agent: { webId, documentPath, credentialsFile }, credentials };
}

/** The server's TLS certificate names the host of the first admin dataspace, every other host a dataspace is declared at, and localhost. */
function serverCredentials(pairs: readonly PairServices[]): Promise<Credentials> {
  const hostOf = (service: DocumentService) => new URL(service.dataspace.base).hostname;
  const host = hostOf(pairs[0]!.admin);
  const others = pairs.flatMap((pair) => [hostOf(pair.endUser), hostOf(pair.admin)]).filter((h) => h !== host && h !== 'localhost');
  return issueCredentials({ commonName: host, dnsNames: [host, ...new Set(others), 'localhost'], ips: ['127.0.0.1', '::1'] });
}

/**
 * The agents and the server's credentials of a data directory made before, written nowhere: a
 * replica's, whose documents come from its primary (its secrets/ copied from the primary's).
 */
export async function existingAgents(data: string, adminBase: string, log: (line: string) => void): Promise<Bootstrapped> {
  const dir = secretsDir(data);
  const [ownerFile, secretaryFile, serverFile] = ['owner.pem', 'secretary.pem', 'server.pem'].map((name) => join(dir, name)) as [string, string, string];
  for (const file of [ownerFile, secretaryFile, serverFile]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: a replica starts with a copy of its primary's system.ttl and secrets/ (README: "Read replicas")`);
  }
  return {
    owner: agentFrom(ownerFile, (await readCredentials(ownerFile)).certPem, adminBase),
    secretary: agentFrom(secretaryFile, (await readCredentials(secretaryFile)).certPem, adminBase),
    server: await readCredentials(serverFile),
    serverFile,
    ownerPkcs12: await ownerPkcs12(dir, ownerFile, log),
  };
}

/** Bootstraps the data directory for `pairs`, whose first pair's admin dataspace holds the owner and the secretary. */
export async function bootstrap(data: string, pairs: readonly PairServices[], log: (line: string) => void): Promise<Bootstrapped> {
  const first = pairs[0];
  if (!first) throw new Error('there is no dataspace to bootstrap');
  const dir = secretsDir(data);
  const ownerFile = join(dir, 'owner.pem');
  const secretaryFile = join(dir, 'secretary.pem');
  const serverFile = join(dir, 'server.pem');
  const adminBase = first.admin.dataspace.base;
  const agentsExist = existsSync(ownerFile) && existsSync(secretaryFile);
  // the owner's WebID is chosen first: the containers are created on the owner's behalf
  const [ownerId, secretaryId] = [randomUUID(), randomUUID()];
  // RSA keys take 50–500 ms each: the three are made side by side, on the thread pool
  const [serverMade, ownerMade, secretaryMade] = await Promise.all([
    existsSync(serverFile) ? undefined : serverCredentials(pairs),
    agentsExist ? undefined : issueCredentials({ commonName: 'Owner', webId: webIdOf(adminBase, ownerId) }),
    agentsExist ? undefined : issueCredentials({ commonName: 'Secretary', webId: webIdOf(adminBase, secretaryId) }),
  ]);
  if (serverMade) await writeCredentials(serverFile, serverMade);
  const server = await readCredentials(serverFile);
  let owner: Agent;
  let secretary: Agent;
  let made: { owner: Credentials; secretary: Credentials } | undefined;
  if (!ownerMade || !secretaryMade) {
    owner = agentFrom(ownerFile, (await readCredentials(ownerFile)).certPem, adminBase);
    secretary = agentFrom(secretaryFile, (await readCredentials(secretaryFile)).certPem, adminBase);
  } else {
    log(`bootstrapping ${first.endUser.dataspace.base} and ${adminBase}`);
    await writeRoots(first, webIdOf(adminBase, ownerId));
    // the owner delegates to the secretary, which carries the owner's proxied requests (SPEC §4.5.9)
    const madeOwner = await createAgent(first.admin, 'Owner', ownerFile, ownerId, ownerMade, webIdOf(adminBase, secretaryId));
    const madeSecretary = await createAgent(first.admin, 'Secretary', secretaryFile, secretaryId, secretaryMade);
    [owner, secretary] = [madeOwner.agent, madeSecretary.agent];
    made = { owner: madeOwner.credentials, secretary: madeSecretary.credentials };
  }
  for (const pair of pairs.slice(1)) {
    if (pair.endUser.dataspace.store.head !== undefined && pair.admin.dataspace.store.head !== undefined) continue;
    log(`bootstrapping ${pair.endUser.dataspace.base} and ${pair.admin.dataspace.base}`);
    await writeRoots(pair, owner.webId);
  }
  for (const pair of pairs) await writeAccessDocuments(pair, owner.webId, secretary.webId, log);
  await delegateOwner(first.admin, owner, secretary.webId, log);
  if (made) {
    await writeCredentials(secretaryFile, made.secretary);
    await writeCredentials(ownerFile, made.owner);
  }
  return { owner, secretary, server, serverFile, ownerPkcs12: await ownerPkcs12(dir, ownerFile, log) };
}

/**
 * The owner's certificate as a browser imports it, `owner.p12`, made when missing (new data
 * directories and those made before it), under a random password kept beside it in
 * `owner.p12.password` (both 0600): a documented password would open anyone's copy.
 */
async function ownerPkcs12(dir: string, ownerFile: string, log: (line: string) => void): Promise<Bootstrapped['ownerPkcs12']> {
  const file = join(dir, 'owner.p12');
  const passwordFile = join(dir, 'owner.p12.password');
  if (existsSync(file) && existsSync(passwordFile)) return { file, passwordFile };
  const password = randomBytes(12).toString('base64url');
  await writeSecretFile(passwordFile, `${password}\n`);
  await writeSecretFile(file, pkcs12Of(await readCredentials(ownerFile), password, 'Lodestone owner'));
  log(`wrote ${file}, the owner's certificate for a browser (its password is in ${passwordFile})`);
  return { file, passwordFile };
}

/**
 * The groups (owners, writers, readers) and the default authorizations (issue 4), written once:
 * when the last of them is missing (a new data directory, or one made before access control).
 */
async function writeAccessDocuments({ endUser, admin }: PairServices, ownerWebId: string, secretaryWebId: string, log: (line: string) => void): Promise<void> {
  const documents = defaultAccessDocuments({ endUserBase: endUser.dataspace.base, adminBase: admin.dataspace.base, ownerWebId, secretaryWebId });
  if (admin.blobId(documents[documents.length - 1]!.path) !== undefined) return; // written last: all are there
  log(`writing the default groups and authorizations to ${admin.dataspace.base}acl/`);
  if (admin.blobId('acl/access-requests/') === undefined) {
    await putDocument(admin, 'acl/access-requests/', ownerWebId, titled(`${admin.dataspace.base}acl/access-requests/`, 'Access requests', true));
  }
  for (const document of documents) await putTurtle(admin, document.path, ownerWebId, document.turtle);
}

/** A data directory made before the proxy: its owner gets `acl:delegates <secretary>`, which new ones are made with. */
async function delegateOwner(admin: DocumentService, owner: Agent, secretaryWebId: string, log: (line: string) => void): Promise<void> {
  const document = await admin.read(owner.documentPath);
  if (!document || hasTriple(document.bytes.toString('utf8'), owner.webId, ns.acl + 'delegates', secretaryWebId)) return;
  log(`the owner ${owner.webId} now delegates to the secretary (acl:delegates), who carries the owner's proxied requests`);
  await admin.write({ method: 'PATCH', relativePath: owner.documentPath, agent: owner.webId, update: `INSERT { <${owner.webId}> <${ns.acl}delegates> <${secretaryWebId}> } WHERE {}` });
}

/** The root documents of a pair and the admin containers, those that are missing, written on the owner's behalf. */
async function writeRoots({ endUser, admin }: PairServices, ownerWebId: string): Promise<void> {
  const adminBase = admin.dataspace.base;
  const documents: Array<[DocumentService, string, Quad[]]> = [
    [endUser, '', titled(endUser.dataspace.base, 'Lodestone')],
    [admin, '', titled(adminBase, 'Lodestone administration')],
    [admin, 'acl/', titled(`${adminBase}acl/`, 'Access control', true)],
    ...(
      [['agents', 'Agents'], ['public-keys', 'Public keys'], ['groups', 'Groups'], ['authorizations', 'Authorizations']] as const
    ).map(([path, title]): [DocumentService, string, Quad[]] => [admin, `acl/${path}/`, titled(`${adminBase}acl/${path}/`, title, true)]),
    // the namespace ontology's documents: only the owners write here (their authorization's acl:default on the admin base)
    [admin, ONTOLOGIES, titled(`${adminBase}${ONTOLOGIES}`, 'Ontologies', true)],
  ];
  for (const [service, path, triples] of documents) {
    if (service.blobId(path) === undefined) await putDocument(service, path, ownerWebId, triples);
  }
}
