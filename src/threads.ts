/**
 * The thread map: every worker thread a server runs besides the one that answers requests, what it
 * runs, its entry file, how many, and its bounds (deadline, queue, how long a costly job may hold
 * its pool). The composition root builds each pool from its row here (`startPool`), the disk
 * worker and the index lanes take their entry from it, and docs/architecture.md lists it (`threadTable`).
 * Pools start their workers on first use unless the root starts one; idle workers keep no process alive.
 */
import { LodestoneError } from './errors.js';
import { WorkerPool, type WorkerPoolOptions } from './util/worker-pool.js';
import type { CallRequest } from './util/worker.js';

export interface ThreadPlan {
  /** The worker's entry, relative to src/ (run from source under tsx, from dist/ as .js). */
  entry: string;
  /** What its workers run. */
  runs: string;
  /** The module that calls it. */
  caller: string;
}

export type PoolPlan = ThreadPlan & WorkerPoolOptions;

/** A costly job holds its pool this long at most: then its worker leaves the pool to finish it and a fresh one takes its place. */
const DEMOTE_AFTER_MS = 1_000;

const canonicalizationLimit = (ms: number) => new LodestoneError('CanonicalizationLimit', `this graph's blank nodes are too alike to be told apart within ${ms / 1000} s: give these blank nodes IRIs, or properties that tell them apart`);
const queryTimeout = (ms: number) => new LodestoneError('QueryTimeout', `the query ran past the server's timeout of ${ms / 1000} s and was stopped`);

const mergeTooLong = (ms: number) => new LodestoneError('Busy', `this change request's diff or merge needed more than ${ms / 1000} s and was stopped: split the branch into smaller ones`);

const blameTooLong = (ms: number) => new LodestoneError('Busy', `blame of this document needed more than ${ms / 1000} s and was stopped: its history is too long to blame at once`);

/** The pools, one per kind of work whose cost a request's content decides, so that costly requests of one kind hold up no other kind. */
export const POOLS = {
  writes: { entry: 'documents/compose-worker.ts', caller: 'documents/composer.ts', runs: 'PUT and POST bodies parsed and made canonical (cost bounded by the body limit)', size: 2, deadlineMs: 10_000, demoteAfterMs: DEMOTE_AFTER_MS, maxDemoted: 2, maxQueue: 256 },
  updates: { entry: 'documents/compose-worker.ts', caller: 'documents/composer.ts', runs: 'PATCH updates (their WHERE runs on the document)', size: 2, deadlineMs: 10_000, demoteAfterMs: DEMOTE_AFTER_MS, maxDemoted: 2, maxQueue: 64 },
  queryShapes: { entry: 'http/query-shape-worker.ts', caller: 'http/query-shapes.ts', runs: 'SPARQL query shapes (sparqljs takes seconds on a large query)', size: 2, deadlineMs: 10_000, demoteAfterMs: DEMOTE_AFTER_MS, maxDemoted: 2, maxQueue: 64 },
  labelling: { entry: 'documents/compose-worker.ts', caller: 'documents/composer.ts', runs: 'deep labelling of alike blank nodes (RDFC-1.0), for writes and hand-edited files', size: 2, deadlineMs: 5_000, demoteAfterMs: DEMOTE_AFTER_MS, maxDemoted: 4, maxQueue: 16, overDeadline: canonicalizationLimit },
  remoteRdf: { entry: 'net/remote-rdf-worker.ts', caller: 'net/remote-rdf.ts', runs: "RDF from elsewhere: the proxy's translations of other servers' responses, remote WebID documents and ontology documents as N-Triples", size: 2, deadlineMs: 10_000, demoteAfterMs: DEMOTE_AFTER_MS, maxDemoted: 2, maxQueue: 64 },
  settingsUpdates: { entry: 'http/settings-update-worker.ts', caller: 'http/settings-updates.ts', runs: "SPARQL updates of a dataspace's settings (owners only, one edit at a time)", size: 1, deadlineMs: 10_000, maxQueue: 8 },
  shapes: { entry: 'ontology/ontology-worker.ts', caller: 'ontology/workers.ts', runs: "validation of the end-user dataspaces' writes against their namespace ontology's SHACL shapes", size: 2, deadlineMs: 10_000, demoteAfterMs: DEMOTE_AFTER_MS, maxDemoted: 2, maxQueue: 256 },
  ontologyQueries: { entry: 'ontology/ontology-worker.ts', caller: 'ontology/workers.ts', runs: '`ns?query=` over the namespace ontology with RDFS entailment (deadline: the SPARQL timeout)', size: 1, deadlineMs: 30_000, demoteAfterMs: DEMOTE_AFTER_MS, maxDemoted: 2, maxQueue: 64, overDeadline: queryTimeout },
  pages: { entry: 'http/page-worker.ts', caller: 'http/page-drawer.ts', runs: 'HTML pages of more than 16 K characters of data', size: 1, deadlineMs: 10_000, demoteAfterMs: DEMOTE_AFTER_MS, maxDemoted: 1, maxQueue: 64 },
  uploads: { entry: 'http/upload-worker.ts', caller: 'http/upload-reader.ts', runs: 'files uploaded to `uploads/`: a form read to its file, the bytes checked and hashed (cost bounded by the upload limit)', size: 1, deadlineMs: 10_000, demoteAfterMs: DEMOTE_AFTER_MS, maxDemoted: 1, maxQueue: 16 },
  blame: { entry: 'documents/blame-worker.ts', caller: 'documents/history.ts', runs: "`?blame` of a document: every version's blob read and compared, back to where each triple came (a thousand versions of a thousand lines)", size: 1, deadlineMs: 30_000, demoteAfterMs: DEMOTE_AFTER_MS, maxDemoted: 1, maxQueue: 16, overDeadline: blameTooLong },
  branches: { entry: 'documents/branch-worker.ts', caller: 'documents/change-requests.ts', runs: "a branch's change request: each changed document's diff, and the three-way merge of each document both sides changed (a thousand documents, or one of 100,000 triples)", size: 1, deadlineMs: 30_000, demoteAfterMs: DEMOTE_AFTER_MS, maxDemoted: 1, maxQueue: 16, overDeadline: mergeTooLong },
  signups: { entry: 'auth/signup-worker.ts', caller: 'auth/signup-workers.ts', runs: "a signup's key, client certificate and PKCS#12 file (a quarter of a second of one core)", size: 1, deadlineMs: 30_000, maxQueue: 8 },
} as const satisfies Record<string, PoolPlan>;

export type PoolName = keyof typeof POOLS;

/** The threads that are no pool: each runs one call at a time, in order. */
export const THREADS = {
  disk: { entry: 'store/disk-worker.ts', caller: 'store/disk.ts', runs: 'the writes of every repository (packs, refs, working trees), fsynced: one for the process' },
  indexLane: { entry: 'index/index-worker.ts', caller: 'index/index-lane.ts', runs: "a replica of a dataspace's embedded index (Oxigraph) and the SPARQL queries on it: `--query-lanes` per dataspace, and up to `--extra-query-lanes` more while queries are slow; none for a dataspace whose index is on a SPARQL server, nor for an admin dataspace before its first query" },
} as const satisfies Record<string, ThreadPlan>;

/** The URL of a worker entry named in this map. */
export function workerEntry(plan: ThreadPlan): URL {
  return new URL(`./${plan.entry.replace(/\.ts$/, '.js')}`, import.meta.url);
}

/** The pool of `name`, as the map plans it (`overrides`: what configuration or a test changes, such as the SPARQL timeout). */
export function startPool<Request extends CallRequest>(name: PoolName, overrides: Partial<WorkerPoolOptions> = {}): WorkerPool<Request> {
  const plan: PoolPlan = POOLS[name];
  const options: WorkerPoolOptions = { size: plan.size, deadlineMs: plan.deadlineMs, demoteAfterMs: plan.demoteAfterMs, maxDemoted: plan.maxDemoted, maxQueue: plan.maxQueue, overDeadline: plan.overDeadline };
  return new WorkerPool<Request>(workerEntry(plan), { ...options, ...overrides });
}

/** The map as a Markdown table (docs/architecture.md's), with the thread counts of a server of `dataspaces` dataspaces, `queryLanes` lanes each and `extraLanes` more while queries are slow. */
export function threadTable(dataspaces = 2, queryLanes = 2, extraLanes = 1): string {
  const seconds = (ms: number) => `${ms / 1000} s`;
  const rows = [
    ...Object.entries(POOLS).map(([name, p]: [string, PoolPlan]) => [name, `pool of ${p.size}`, p.runs, `src/${p.entry}`, [seconds(p.deadlineMs), p.demoteAfterMs && `holds the pool ${seconds(p.demoteAfterMs)} at most (${p.maxDemoted ?? 1} may finish beside it)`, p.maxQueue && `${p.maxQueue} may wait`].filter(Boolean).join('; ')]),
    ['disk', '1', THREADS.disk.runs, `src/${THREADS.disk.entry}`, 'calls in order'],
    ['indexLane', `(${queryLanes} + ${extraLanes}) × ${dataspaces}`, THREADS.indexLane.runs, `src/${THREADS.indexLane.entry}`, 'a query stops at the SPARQL timeout (the lane is replaced)'],
  ];
  const most = Object.values(POOLS).reduce((sum, p: PoolPlan) => sum + p.size, 0) + 1 + (queryLanes + extraLanes) * dataspaces;
  return [
    '| thread | how many | runs | entry | bounds |',
    '|---|---|---|---|---|',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
    `At most ${most} threads in pools and lanes at once (plus workers finishing a costly job outside their pool), for ${dataspaces} dataspaces.`,
  ].join('\n');
}
