/**
 * The system configuration (SPEC §9.1): `DIR/system.ttl` describes each dataspace by its base URL.
 * A dataspace is versioned when it has `lds:versioningRepository`, a `doap:GitRepository` with
 * `doap:location` (the mirror; none means local history only), `repo:branch` (default `main`) and
 * `repo:pathPrefix` (default `graphs`). Access tokens live apart, as `a:authToken` on the repository
 * resource in `DIR/secrets/credentials.ttl` (mode 0600), and are never logged. Read at startup; a
 * new data directory gets a file that versions the end-user dataspace locally.
 */
import { existsSync, promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { ns } from './rdf/namespaces.js';
import { parseRdf } from './rdf/ntriples.js';

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

export function systemConfigFile(data: string): string {
  return join(data, 'system.ttl');
}

export function defaultSystemConfig(endUserBase: string): string {
  return [
    `@prefix lds: <${ns.lds}> .`,
    `@prefix doap: <${ns.doap}> .`,
    `@prefix repo: <${ns.repo}> .`,
    '',
    '# The end-user dataspace keeps its history (Memento) in its own repository; add doap:location',
    '# to mirror it to GitHub, with the access token as a:authToken in secrets/credentials.ttl.',
    `<${endUserBase}> lds:versioningRepository <urn:lodestone:repository:end-user> .`,
    '<urn:lodestone:repository:end-user> a doap:GitRepository ;',
    '  repo:branch "main" ;',
    '  repo:pathPrefix "graphs" .',
    '',
  ].join('\n');
}

/** The versioning of each dataspace base that has some; writes the default file when there is none. */
export async function readVersioning(data: string, endUserBase: string, log: (line: string) => void = () => undefined): Promise<Map<string, VersioningConfig>> {
  const file = systemConfigFile(data);
  if (!existsSync(file)) {
    await fsp.mkdir(data, { recursive: true });
    await fsp.writeFile(file, defaultSystemConfig(endUserBase));
  }
  const config = parseRdf(await fsp.readFile(file, 'utf8'), { format: 'text/turtle', baseIRI: endUserBase });
  const credentialsFile = join(data, 'secrets', 'credentials.ttl');
  const credentials = (await credentialsEnabled(credentialsFile, log)) ? parseRdf(await fsp.readFile(credentialsFile, 'utf8'), { format: 'text/turtle' }) : [];
  const value = (graph: typeof config, subject: string, predicate: string) => graph.find((q) => q.subject.value === subject && q.predicate.value === predicate)?.object.value;
  const out = new Map<string, VersioningConfig>();
  for (const q of config) {
    if (q.predicate.value !== ns.lds + 'versioningRepository') continue;
    const repository = q.object.value;
    out.set(q.subject.value, {
      repository,
      location: value(config, repository, ns.doap + 'location'),
      branch: value(config, repository, ns.repo + 'branch') ?? 'main',
      pathPrefix: value(config, repository, ns.repo + 'pathPrefix') ?? 'graphs',
      token: value(credentials, repository, ns.a + 'authToken'),
    });
  }
  return out;
}

/**
 * The credentials secret is enabled when its file exists and only its owner may read it (like an
 * SSH key): a file others can read is refused, with a log line saying how to fix it.
 */
async function credentialsEnabled(file: string, log: (line: string) => void): Promise<boolean> {
  const stat = await fsp.stat(file).catch(() => undefined);
  if (!stat) return false;
  if ((stat.mode & 0o077) !== 0) {
    log(`${file} can be read by others: its tokens are not used (chmod 600 it to enable them)`);
    return false;
  }
  return true;
}
