/**
 * The system configuration (SPEC §9.1): `DIR/system.ttl` describes each dataspace by its base URL.
 * A dataspace is versioned when it has `lds:versioningRepository`, a `doap:GitRepository` with
 * `doap:location` (the mirror; none means local history only), `repo:branch` (default `main`) and
 * `repo:pathPrefix` (default `graphs`). An admin dataspace offers OpenID Connect login (SPEC §4.7,
 * §5.1) with each `lds:oidcProvider`, an `lds:OidcProvider` with `rdfs:label` (its name in
 * `oauth2/login/<name>`: letters, digits, `-`, `_`), `lds:issuer` and `lds:clientId`; one without a
 * client id or secret is declared but disabled. Secrets live apart, in `DIR/secrets/credentials.ttl`
 * (mode 0600): `a:authToken` on a repository resource, `a:clientSecret` on a provider resource; they
 * are never logged. A dataspace trusts the pages of each `lds:corsOrigin` (an origin, such as
 * `<https://app.example>`) with its visitors' credentials (http/origins.ts). The cookie key is
 * `DIR/secrets/session.key`, the ETags' `DIR/secrets/etag.key` (32 random bytes each, mode 0600);
 * the secret a trusted proxy sends, `DIR/secrets/proxy-secret` (made when `--trusted-proxy` is
 * first given). Read at
 * startup, from the one reader of the file (system-file.ts); a new data directory gets a file that
 * declares the default pair of dataspaces (registry.ts tells the dataspaces a file declares),
 * versions the end-user dataspace locally and declares the `google` and `orcid` providers, disabled.
 */
import { TURTLE } from './rdf/media-types.js';
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fsp } from 'node:fs';
import { dirname, join } from 'node:path';
import { webOrigin } from './net/web-origin.js';
import { ns } from './rdf/namespaces.js';
import { parseRdf } from './rdf/ntriples.js';
import { declaredPairs, defaultPair, type DataspacePair } from './registry.js';
import type { SystemFile } from './system-file.js';
import { parseIndexChoice, type IndexChoice } from './index/engine.js';

export interface VersioningConfig {
  /** The repository resource in the configuration. */
  repository: string;
  /** `doap:location`: the hosted repository to mirror to, or undefined for local history only. */
  location: string | undefined;
  branch: string;
  pathPrefix: string;
  /** `a:authToken` from the credentials file; never log it. */
  token: string | undefined;
}

export interface OidcProviderDeclaration {
  /** The provider resource in the configuration. */
  resource: string;
  /** `rdfs:label`: the path segment of `oauth2/login/<name>` and `oauth2/authorize/<name>`. */
  name: string;
  /** `lds:issuer`: the issuer identifier, where OpenID Connect Discovery starts. */
  issuer: string;
  /** `lds:clientId`, or undefined: the provider is disabled. */
  clientId: string | undefined;
  /** `a:clientSecret` from the credentials file, or undefined: the provider is disabled. Never log it. */
  clientSecret: string | undefined;
}

export interface SystemConfig {
  /** The versioning of each dataspace base that has some. */
  versioning: Map<string, VersioningConfig>;
  /** The OpenID providers declared for each (admin) dataspace base, in the order of the file. */
  oidcProviders: Map<string, OidcProviderDeclaration[]>;
  /** The origins each dataspace base trusts with credentials besides its own (`lds:corsOrigin`), as origins. */
  corsOrigins: Map<string, string[]>;
  /** Each dataspace base's index, where system.ttl gives one (`lds:index "fuseki:http://…/"`). */
  indexes: Map<string, IndexChoice>;
}

export function systemConfigFile(data: string): string {
  return join(data, 'system.ttl');
}

export function defaultSystemConfig(endUserBase: string): string {
  const { endUser, admin } = defaultPair(endUserBase);
  const adminBase = admin.base;
  return [
    `@prefix lapp: <${ns.lapp}> .`,
    `@prefix dct: <${ns.dct}> .`,
    `@prefix lds: <${ns.lds}> .`,
    `@prefix doap: <${ns.doap}> .`,
    `@prefix repo: <${ns.repo}> .`,
    `@prefix rdfs: <${ns.rdfs}> .`,
    '',
    '# The dataspaces: pairs of an end-user dataspace and its admin dataspace, each with the name of',
    '# its folder dataspaces/<id> (letters, digits, - or _). Declare more pairs the same way, at',
    '# another path or host name, and restart: each gets its own repositories, index and access control.',
    `<${endUserBase}> a lapp:EndUserApplication ;`,
    `  dct:identifier "${endUser.id}" ;`,
    `  lapp:adminApplication <${adminBase}> .`,
    `<${adminBase}> a lapp:AdminApplication ;`,
    `  dct:identifier "${admin.id}" .`,
    '',
    '# The end-user dataspace keeps its history (Memento) in its own repository; add doap:location',
    '# to mirror it to GitHub, with the access token as a:authToken in secrets/credentials.ttl.',
    `<${endUserBase}> lds:versioningRepository <urn:lodestone:repository:end-user> .`,
    '<urn:lodestone:repository:end-user> a doap:GitRepository ;',
    '  repo:branch "main" ;',
    '  repo:pathPrefix "graphs" .',
    '',
    '# Another origin\'s pages act as anonymous here: a visitor\'s certificate or login counts on this',
    '# server\'s own pages only. To trust an origin\'s pages with them (an app of your own), declare it',
    `# (<${endUserBase}> lds:corsOrigin <https://app.example> .) and restart; serve --cors-origin trusts one everywhere.`,
    '',
    '# The index SPARQL queries read is embedded (in the server) unless a dataspace names a SPARQL server',
    `# (<${endUserBase}> lds:index "fuseki:http://127.0.0.1:3030/" .; also oxigraph-server:, virtuoso:) and the`,
    '# server restarts; serve --index names one for every end-user dataspace (docs/reference.md: "Index on a SPARQL server").',
    '',
    '# OpenID Connect login for browsers, disabled until a client is registered with the provider: add',
    '# lds:clientId "…" here and <urn:lodestone:oidc:NAME> a:clientSecret "…" . to secrets/credentials.ttl',
    `# (mode 0600), register ${adminBase}oauth2/authorize/NAME as the redirect URI, and restart.`,
    `<${adminBase}> lds:oidcProvider <urn:lodestone:oidc:google>, <urn:lodestone:oidc:orcid> .`,
    '<urn:lodestone:oidc:google> a lds:OidcProvider ;',
    '  rdfs:label "google" ;',
    '  lds:issuer <https://accounts.google.com> .',
    '<urn:lodestone:oidc:orcid> a lds:OidcProvider ;',
    '  rdfs:label "orcid" ;',
    '  lds:issuer <https://orcid.org> .',
    '',
  ].join('\n');
}

/**
 * The pairs of dataspaces the data directory serves (registry.ts), the one at the file's base
 * first; the default pair when there is no configuration file yet. Writes nothing, so it may run
 * before the base is checked.
 */
export async function readDataspaces(system: SystemFile): Promise<DataspacePair[]> {
  if (!system.exists()) return [defaultPair(system.baseIRI)];
  return declaredPairs((await system.read()).graph, system.file, system.baseIRI);
}

/** Reads the system configuration (`data`'s system.ttl, through `system`) and its secrets; writes the default file when there is none. */
export async function readSystemConfig(system: SystemFile, data: string, log: (line: string) => void = () => undefined): Promise<SystemConfig> {
  const file = system.file;
  await system.createIfMissing(() => defaultSystemConfig(system.baseIRI));
  const config = (await system.read()).graph;
  const credentialsFile = join(data, 'secrets', 'credentials.ttl');
  const credentials = (await credentialsEnabled(credentialsFile, log)) ? parseRdf(await fsp.readFile(credentialsFile, 'utf8'), { format: TURTLE }) : [];
  const value = (graph: typeof config, subject: string, predicate: string) => graph.find((q) => q.subject.value === subject && q.predicate.value === predicate)?.object.value;
  const versioning = new Map<string, VersioningConfig>();
  const oidcProviders = new Map<string, OidcProviderDeclaration[]>();
  const corsOrigins = new Map<string, string[]>();
  const indexes = new Map<string, IndexChoice>();
  for (const q of config) {
    if (q.predicate.value === ns.lds + 'versioningRepository') {
      const repository = q.object.value;
      versioning.set(q.subject.value, {
        repository,
        location: value(config, repository, ns.doap + 'location'),
        branch: value(config, repository, ns.repo + 'branch') ?? 'main',
        pathPrefix: value(config, repository, ns.repo + 'pathPrefix') ?? 'graphs',
        token: value(credentials, repository, ns.a + 'authToken'),
      });
    } else if (q.predicate.value === ns.lds + 'oidcProvider') {
      const resource = q.object.value;
      const name = value(config, resource, ns.rdfs + 'label');
      const issuer = value(config, resource, ns.lds + 'issuer');
      if (!name || !/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`${file}: the OpenID provider <${resource}> needs an rdfs:label of letters, digits, - or _ (its name in oauth2/login/<name>)`);
      if (!issuer || !/^https?:\/\//.test(issuer)) throw new Error(`${file}: the OpenID provider ${name} needs an lds:issuer, the provider's https URL`);
      const declared = oidcProviders.get(q.subject.value) ?? [];
      if (declared.some((p) => p.name === name)) throw new Error(`${file}: two OpenID providers of <${q.subject.value}> are named ${name}`);
      declared.push({ resource, name, issuer, clientId: value(config, resource, ns.lds + 'clientId'), clientSecret: value(credentials, resource, ns.a + 'clientSecret') });
      oidcProviders.set(q.subject.value, declared);
    } else if (q.predicate.value === ns.lds + 'corsOrigin') {
      const origin = webOrigin(q.object.value);
      if (!origin) throw new Error(`${file}: lds:corsOrigin of <${q.subject.value}> must be an origin such as <https://app.example.org> (scheme, host and port only), not "${q.object.value}"`);
      corsOrigins.set(q.subject.value, [...(corsOrigins.get(q.subject.value) ?? []), origin]);
    } else if (q.predicate.value === ns.lds + 'index') {
      indexes.set(q.subject.value, parseIndexChoice(q.object.value, `${file}: lds:index of <${q.subject.value}>`));
    }
  }
  return { versioning, oidcProviders, corsOrigins, indexes };
}

/**
 * The key that signs login and session cookies: `DIR/secrets/session.key`, 32 random bytes made on
 * first start. Undefined (and a log line saying why) when it is unusable: then nobody can log in
 * with OpenID Connect, and no session cookie is believed.
 */
export async function readSessionKey(data: string, log: (line: string) => void = () => undefined): Promise<Buffer | undefined> {
  return readKey(data, 'session.key', log, 'the session key is not used and OpenID Connect login is off', 'OpenID Connect login is off');
}

/**
 * The key of the ETags (http/representations.ts, issue 25): `DIR/secrets/etag.key`, 32 random bytes
 * made on first start, so a client's ETag holds across restarts. When it is unusable (a log line
 * says why), a key for this run only: ETags then change at each start, and writes quoting an old
 * one are refused (412), which is safe.
 */
export async function readEtagKey(data: string, log: (line: string) => void = () => undefined): Promise<Buffer> {
  return (await readKey(data, 'etag.key', log, 'a key for this run is used, so ETags change at each start', 'ETags change at each start')) ?? randomBytes(32);
}

/** A 32-byte key kept in `DIR/secrets/<name>`, made on first use; undefined when it is unusable (`consequence` goes in the log line). */
async function readKey(data: string, name: string, log: (line: string) => void, othersMayRead: string, tooShort: string): Promise<Buffer | undefined> {
  const file = join(data, 'secrets', name);
  await makeOnce(file, () => randomBytes(32));
  if (!(await ownerOnly(file, log, `${othersMayRead} (chmod 600 it to use it)`))) return undefined;
  const key = await fsp.readFile(file);
  if (key.length < 32) {
    log(`${file} holds ${key.length} bytes, fewer than 32: ${tooShort} (delete the file to have a new key made)`);
    return undefined;
  }
  return key;
}

/**
 * The secret a trusted proxy sends in `Lodestone-Proxy-Secret` (http/authenticate.ts): the text of
 * `file` (`--trusted-proxy-secret-file`), else of `DIR/secrets/proxy-secret`, made on first need
 * (32 random bytes as hex, mode 0600). Throws, stopping the start, when the file is missing, others
 * may read it, or it holds fewer than 16 characters: a proxy nobody can verify must not be believed.
 */
export async function readProxySecret(data: string, file?: string): Promise<{ secret: string; file: string }> {
  const path = file ?? join(data, 'secrets', 'proxy-secret');
  if (!file) await makeOnce(path, () => Buffer.from(randomBytes(32).toString('hex') + '\n'));
  if (!existsSync(path)) throw new Error(`--trusted-proxy-secret-file ${path} does not exist: write the secret the proxy sends in Lodestone-Proxy-Secret there (mode 0600)`);
  let why = '';
  if (!(await ownerOnly(path, (line) => (why = line), 'no proxy is believed with a secret others may read (chmod 600 it)'))) throw new Error(why);
  const secret = (await fsp.readFile(path, 'utf8')).trim();
  if (secret.length < 16) throw new Error(`${path} holds a secret of ${secret.length} characters: the proxy secret must have 16 at least (delete the file to have one made)`);
  return { secret, file: path };
}

/** Makes `file` (mode 0600, in a folder only its owner may enter) with `content` when it does not exist yet. */
async function makeOnce(file: string, content: () => Buffer): Promise<void> {
  await fsp.mkdir(dirname(file), { recursive: true, mode: 0o700 });
  if (existsSync(file)) return;
  // written aside and linked into place: a crash leaves no half file, and of two servers starting on one directory the first one wins
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await fsp.writeFile(tmp, content(), { mode: 0o600 });
  await fsp.link(tmp, file).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  await fsp.unlink(tmp);
}

/** The credentials secret is enabled when its file exists and only its owner may read it (like an SSH key). */
async function credentialsEnabled(file: string, log: (line: string) => void): Promise<boolean> {
  if (!existsSync(file)) return false;
  return ownerOnly(file, log, 'its tokens are not used (chmod 600 it to enable them)');
}

/** Whether only the owner of `file` may read it; a file others can read is refused, with a log line saying how to fix it. */
async function ownerOnly(file: string, log: (line: string) => void, consequence: string): Promise<boolean> {
  const stat = await fsp.stat(file);
  if ((stat.mode & 0o077) !== 0) {
    log(`${file} can be read by others: ${consequence}`);
    return false;
  }
  return true;
}
