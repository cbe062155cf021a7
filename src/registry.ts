/**
 * The dataspaces a server holds (DESIGN.md, "Dataspaces"): pairs of an end-user dataspace and its
 * admin dataspace, declared in `DIR/system.ttl` the way LinkedDataHub declares its applications:
 * `<endUserBase> a lapp:EndUserApplication ; lapp:adminApplication <adminBase> ; dct:identifier "id" .`
 * and `<adminBase> a lapp:AdminApplication ; dct:identifier "id" .` The id names the dataspace's
 * folder `DIR/dataspaces/<id>` and its log lines. The pair at the server's base comes first (the
 * default pair: its admin dataspace holds the owner and the secretary); a file that declares no
 * application serves the default pair alone, `end-user` at the base and `admin` at `<base>admin/`.
 */
import { join } from 'node:path';
import type { Quad } from '@rdfjs/types';
import { ns, RDF_TYPE } from './rdf/namespaces.js';

/** What a dataspace is for: documents (`end-user`), or the agents and policy of its end-user dataspace (`admin`). */
export type Role = 'end-user' | 'admin';

export interface DataspaceSpec {
  /** Short name: the folder `DIR/dataspaces/<id>` and the prefix of the dataspace's log lines. */
  id: string;
  /** Base URL, ending in '/'. */
  base: string;
  role: Role;
}

export interface DataspacePair {
  endUser: DataspaceSpec;
  admin: DataspaceSpec;
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;

export function dataspaceDir(data: string, id: string): string {
  return join(data, 'dataspaces', id);
}

/** The default instance: an end-user dataspace at the base URL and its admin dataspace under it. */
export function defaultPair(base: string): DataspacePair {
  return {
    endUser: { id: 'end-user', base, role: 'end-user' },
    admin: { id: 'admin', base: new URL('admin/', base).href, role: 'admin' },
  };
}

/** Every dataspace of `pairs`, each end-user dataspace followed by its admin. */
export function dataspacesOf(pairs: readonly DataspacePair[]): DataspaceSpec[] {
  return pairs.flatMap((pair) => [pair.endUser, pair.admin]);
}

/**
 * The pairs `config` (the triples of the system configuration `file`) declares, the one whose
 * end-user base is `base` first when there is one (see `requireDefaultPair`), the others in the
 * order of the file; the default pair at `base` when it declares no application. A bad declaration
 * throws, naming `file` and what to fix.
 */
export function declaredPairs(config: readonly Quad[], file: string, base: string): DataspacePair[] {
  const values = (subject: string, predicate: string) => config.filter((q) => q.subject.value === subject && q.predicate.value === predicate).map((q) => q.object.value);
  const typed = (type: string) => [...new Set(config.filter((q) => q.predicate.value === RDF_TYPE && q.object.value === type).map((q) => q.subject.value))];
  const endUsers = typed(ns.lapp + 'EndUserApplication');
  const admins = typed(ns.lapp + 'AdminApplication');
  if (endUsers.length === 0 && admins.length === 0) return [defaultPair(base)];
  const fail = (message: string): never => {
    throw new Error(`${file}: ${message}`);
  };

  const ids = new Map<string, string>();
  const spec = (application: string, role: Role): DataspaceSpec => {
    const url = URL.canParse(application) ? new URL(application) : undefined;
    if (!url || !/^https?:$/.test(url.protocol) || url.href !== application || !application.endsWith('/') || url.search || url.hash) {
      fail(`the application <${application}> must be named by its base URL: http or https, ending in "/", without a query or fragment`);
    }
    const [id, ...more] = new Set(values(application, ns.dct + 'identifier'));
    if (id === undefined || more.length > 0 || !ID.test(id)) {
      fail(`the application <${application}> needs one dct:identifier of up to 64 letters, digits, - or _ (the name of its folder dataspaces/<id>)`);
    }
    const other = ids.get(id!);
    if (other !== undefined) fail(`the applications <${other}> and <${application}> are both identified as "${id}": give each its own dct:identifier`);
    ids.set(id!, application);
    return { id: id!, base: application, role };
  };

  for (const application of endUsers) if (admins.includes(application)) fail(`<${application}> is declared both a lapp:EndUserApplication and a lapp:AdminApplication; it is one or the other`);
  const pairs: DataspacePair[] = [];
  const paired = new Map<string, string>();
  for (const endUser of endUsers) {
    const [admin, ...more] = new Set(values(endUser, ns.lapp + 'adminApplication'));
    if (admin === undefined) fail(`the end-user application <${endUser}> needs lapp:adminApplication <the base URL of its admin application>`);
    if (more.length > 0) fail(`the end-user application <${endUser}> has ${more.length + 1} lapp:adminApplication; give it one`);
    if (!admins.includes(admin!)) fail(`<${admin}>, the admin application of <${endUser}>, is not declared: add <${admin}> a lapp:AdminApplication ; dct:identifier "…" .`);
    const shared = paired.get(admin!);
    if (shared !== undefined) fail(`<${admin}> is the admin application of both <${shared}> and <${endUser}>; each end-user application needs its own`);
    paired.set(admin!, endUser);
    pairs.push({ endUser: spec(endUser, 'end-user'), admin: spec(admin!, 'admin') });
  }
  const orphan = admins.find((admin) => !paired.has(admin));
  if (orphan !== undefined) fail(`the admin application <${orphan}> belongs to no end-user application: name it in some application's lapp:adminApplication, or remove it`);
  const first = pairs.findIndex((pair) => pair.endUser.base === base);
  return first === -1 ? pairs : [pairs[first]!, ...pairs.filter((_, i) => i !== first)];
}

/** Throws unless the first of `pairs` (from `declaredPairs`) is at the server's base, where the owner and the secretary live. */
export function requireDefaultPair(pairs: readonly DataspacePair[], file: string, base: string): void {
  if (pairs[0]?.endUser.base === base) return;
  throw new Error(`${file}: no lapp:EndUserApplication is declared at <${base}>, the server's base (--base): declare it, or start the server with --base set to one of ${pairs.map((p) => `<${p.endUser.base}>`).join(', ')}`);
}
