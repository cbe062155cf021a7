/**
 * Opening the dataspaces of the registry (registry.ts) for `lodestone serve`: each its repository,
 * index, working tree and watcher, all at once (their workers start side by side), with its
 * versioning from system.ttl, and an end-user dataspace with the constraints of its pair's
 * namespace ontology on people's edits. The log lines come out in the order of the registry; a
 * start where one fails closes those that opened, so the process can exit.
 */
import { Dataspace } from './dataspace.js';
import type { ServeConfig } from './config.js';
import { dataspaceDir, type DataspacePair, type DataspaceSpec, type Role } from './registry.js';
import type { DiskClient } from './store/disk.js';
import type { VersioningConfig } from './system-config.js';
import { shownEndpoint, type IndexChoice } from './index/engine.js';

/** An end-user dataspace and its admin dataspace, opened. */
export interface OpenedPair {
  endUser: Dataspace;
  admin: Dataspace;
}

export interface OpenOptions {
  /** The versioning of each dataspace base that has some (system.ttl). */
  versioning: ReadonlyMap<string, VersioningConfig>;
  /** The index of each dataspace base that has its own (system.ttl); others: `--index` for end-user dataspaces, embedded for admin ones. */
  indexes: ReadonlyMap<string, IndexChoice>;
  /** The disk worker every repository writes through. */
  disk: DiskClient;
  /** Deep blank-node labelling of files people edit (the composer's pool). */
  labelDeep: (ntriples: string, what: string) => Promise<Buffer>;
  /**
   * The constraints on people's edits of a pair's end-user dataspace (its namespace ontology's
   * shapes), given its admin dataspace as it opens: the edits found at start are checked too.
   */
  constraintsOf: (pair: DataspacePair, admin: Promise<Dataspace>) => (url: string, bytes: Buffer) => Promise<void>;
  log: (line: string) => void;
}

type Validate = (url: string, bytes: Buffer) => Promise<void>;

async function open(config: ServeConfig, spec: DataspaceSpec, options: OpenOptions, index: IndexChoice, role: Role, validate?: Validate): Promise<{ dataspace: Dataspace; lines: string[] }> {
  const started = Date.now();
  const history = options.versioning.get(spec.base);
  const dataspace = await Dataspace.open({
    id: spec.id,
    base: spec.base,
    dir: dataspaceDir(config.data, spec.id),
    watch: config.watch,
    followerOf: config.replicaOf?.primary,
    queryLanes: config.queryLanes,
    indexOnFirstUse: role === 'admin', // queried by its owners alone, if ever: no lane until then
    index,
    queryTimeoutMs: config.sparqlTimeoutMs,
    extraQueryLanes: config.extraQueryLanes,
    slowQueryMs: config.slowQueryMs,
    log: options.log,
    labelDeep: options.labelDeep,
    validate,
    versioned: history !== undefined,
    branch: history?.branch,
    prefix: history?.pathPrefix,
    disk: options.disk,
  });
  const where = index.kind === 'embedded' ? [] : [`${spec.id}: index on ${index.kind} at ${shownEndpoint(index.endpoint)}`];
  const lines = history ? [`${spec.id}: versioned on branch ${history.branch}${history.location ? `, mirrored to ${history.location}` : ' (local history only)'}`] : [];
  lines.push(...where, `${spec.id}: ${dataspace.base} from ${dataspace.store.dir} at ${dataspace.store.head ?? 'an empty branch'} (${dataspace.store.listFiles().size} documents, ${Date.now() - started} ms)`);
  return { dataspace, lines };
}

/** Every dataspace of `pairs`, opened; throws the first failure once those that opened are closed. */
export async function openDataspaces(config: ServeConfig, pairs: readonly DataspacePair[], options: OpenOptions): Promise<OpenedPair[]> {
  const indexOf = indexChoices(config, pairs, options.indexes);
  const attempts = await Promise.allSettled(
    pairs.flatMap((pair) => {
      const admin = open(config, pair.admin, options, indexOf(pair.admin), 'admin');
      return [open(config, pair.endUser, options, indexOf(pair.endUser), 'end-user', options.constraintsOf(pair, admin.then((opened) => opened.dataspace))), admin];
    }),
  );
  const failed = attempts.find((attempt) => attempt.status === 'rejected');
  if (failed) {
    await Promise.all(attempts.map((attempt) => (attempt.status === 'fulfilled' ? attempt.value.dataspace.close() : undefined)));
    throw failed.reason;
  }
  const opened = attempts.map((attempt) => (attempt as PromiseFulfilledResult<{ dataspace: Dataspace; lines: string[] }>).value);
  for (const { lines } of opened) lines.forEach((line) => options.log(line));
  return pairs.map((_, index) => ({ endUser: opened[2 * index]!.dataspace, admin: opened[2 * index + 1]!.dataspace }));
}

/**
 * Each dataspace's index: its own from system.ttl, else `--index` for an end-user dataspace and
 * embedded for an admin one. Refuses two dataspaces on one Oxigraph server, which holds one
 * dataspace (src/index/engines/oxigraph-server.ts).
 */
function indexChoices(config: ServeConfig, pairs: readonly DataspacePair[], own: ReadonlyMap<string, IndexChoice>): (spec: DataspaceSpec) => IndexChoice {
  const choice = (spec: DataspaceSpec, endUser: boolean) => own.get(spec.base) ?? (endUser ? config.index : { kind: 'embedded' as const });
  const oxigraph = new Map<string, string>();
  for (const pair of pairs) {
    for (const [spec, endUser] of [[pair.endUser, true], [pair.admin, false]] as const) {
      const { kind, endpoint } = choice(spec, endUser);
      if (kind !== 'oxigraph-server') continue;
      const other = oxigraph.get(endpoint!);
      if (other) throw new Error(`${other} and ${spec.id} both have their index on the Oxigraph server at ${shownEndpoint(endpoint)}, which holds one dataspace: give each its own server (lds:index in system.ttl)`);
      oxigraph.set(endpoint!, spec.id);
    }
  }
  return (spec) => choice(spec, pairs.some((pair) => pair.endUser === spec));
}
