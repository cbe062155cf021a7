/**
 * The source of truth of one dataspace: a git repository whose branch holds one canonical `.nt`
 * file per document. It keeps HEAD's file list in memory (so a current read is a map lookup and a
 * blob read, whatever the length of the history) and serialises writes: each write runs against
 * the state left by the one before it, becomes exactly one commit, and is acknowledged only after
 * its objects and the ref are fsynced. Writes that queue up while one is on disk go down together
 * (group commit): one object flush and one ref update for the batch, one commit per write.
 */
import { EventEmitter } from 'node:events';
import * as fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as afterPendingIo } from 'node:timers/promises';
import { isLodestoneError, LodestoneError } from '../errors.js';
import { commitObject, sanitise, type Signature } from '../git/commits.js';
import type { GitObject } from '../git/objects.js';
import { ByteCache } from '../util/byte-cache.js';
import { BatchView, type StoreView } from './batch-view.js';
import { commitChanges } from './commit-changes.js';
import { DiskClient } from './disk.js';
import type { LockOptions } from './disk-protocol.js';
import { ObjectStore } from './objects.js';
import { RecentBatches } from './recent-batches.js';
import { clearStaleLocks, defaultLockOptions, readRef } from './refs.js';
import { TreeCache, buildTree, diffTrees, type FileDiff } from './trees.js';

export interface Identity {
  name: string;
  email: string;
}

export interface Change {
  path: string;
  /** The new bytes, or null to delete the file. */
  bytes: Buffer | null;
  /** Their blob id when the caller hashed them already (a large upload, hashed in slices off the write path). */
  blobId?: string;
}

export interface WriteIntent {
  changes: Change[];
  author: Identity;
  /** Defaults to the service's own identity. */
  committer?: Identity;
  message: string;
}

export interface Transaction<T> {
  (view: StoreView): Promise<{ intent?: WriteIntent; result: T }>;
}

export interface TransactionResult<T> {
  /** The commit made, or undefined when nothing changed (identical bytes make no commit). */
  commit: string | undefined;
  result: T;
  /**
   * Each path the intent wrote, with the blob id the store hashed its bytes to (null: deleted),
   * whether or not it changed; empty without an intent. A caller needs no hash of its own.
   */
  blobIds: ReadonlyMap<string, string | null>;
}

export interface HeadChange {
  before: string | undefined;
  after: string;
  /** The tree of `after`. */
  tree: string;
  /** Files under the prefix that changed. */
  files: FileDiff[];
  /** True when the commit came from another git client rather than this store. */
  external: boolean;
  /**
   * The commits from `before` to `after`, oldest first, each with the files it changed: this store's,
   * and those a replica received (absent for other external commits, whose history is read from git).
   */
  commits?: CommitSummary[];
}

export interface CommitSummary {
  id: string;
  /** Committer time, in seconds since the epoch. */
  time: number;
  author: string;
  files: FileDiff[];
}

export interface GitStoreOptions {
  /** The working tree; the repository is `<dir>/.git`. */
  dir: string;
  branch?: string;
  /** Folder of the document files (`repo:pathPrefix`). */
  prefix?: string;
  committer?: Identity;
  /** Seconds since the epoch; injectable for tests. */
  clock?: () => number;
  lock?: LockOptions;
  /** Most transactions in one group commit. */
  maxBatch?: number;
  /**
   * The disk worker's client, shared by the stores of a process (the server builds one). Without
   * it the store builds its own, and closes it when it closes.
   */
  disk?: DiskClient;
  /** Set on a read replica: its branch moves only by fetches from the primary, named here, and every write is refused. */
  followerOf?: string;
}

export const SERVICE_IDENTITY: Identity = { name: 'Lodestone', email: 'service@lodestone.invalid' };

interface Pending {
  kind: 'tx';
  run: Transaction<unknown>;
  resolve: (value: TransactionResult<unknown>) => void;
  reject: (error: unknown) => void;
}

interface RefreshRequest {
  kind: 'refresh' | 'exclusive';
  run?: () => Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface ReceiveRequest {
  kind: 'receive';
  objects: readonly GitObject[];
  head: string;
  expected: string | undefined;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class GitStore extends EventEmitter<{ head: [HeadChange] }> {
  readonly dir: string;
  readonly gitdir: string;
  readonly branch: string;
  readonly ref: string;
  readonly prefix: string;
  readonly objects: ObjectStore;
  readonly trees: TreeCache;
  /** The objects of the latest write batches, for replicas a few commits behind (store/head-pack.ts). */
  readonly recent = new RecentBatches();
  /** Where the writes of this store (and of its working tree and version log) are made. */
  readonly disk: DiskClient;
  private readonly ownsDisk: boolean;
  private readonly committer: Identity;
  private readonly clock: () => number;
  private readonly lockOptions: LockOptions;
  private readonly maxBatch: number;
  private readonly followerOf: string | undefined;
  // blob ids are content hashes: a cached blob never goes stale
  private readonly blobs = new ByteCache<Buffer>(64 * 1024 * 1024, (blob) => blob.length);
  private readonly files = new Map<string, string>();
  private readonly folderCounts = new Map<string, number>();
  /** Each file changed since the store opened, with the commit that last changed it (another client's: the HEAD it was seen at). */
  private readonly touched = new Map<string, string>();
  private openedAt: string | undefined;
  private headId: string | undefined;
  private headTree: string | undefined;
  private queue: Array<Pending | RefreshRequest | ReceiveRequest> = [];
  private draining = false;

  private constructor(options: GitStoreOptions) {
    super();
    this.dir = options.dir;
    this.gitdir = join(options.dir, '.git');
    this.branch = options.branch ?? 'main';
    this.ref = `refs/heads/${this.branch}`;
    this.prefix = options.prefix ?? 'graphs';
    this.committer = options.committer ?? SERVICE_IDENTITY;
    this.clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
    this.lockOptions = options.lock ?? defaultLockOptions;
    this.maxBatch = options.maxBatch ?? 64;
    this.followerOf = options.followerOf;
    this.objects = new ObjectStore(this.gitdir);
    this.trees = new TreeCache(this.objects);
    this.ownsDisk = options.disk === undefined;
    this.disk = options.disk ?? new DiskClient();
  }

  /** Opens the repository in `dir`, creating it (branch `main`, no commits) when absent. */
  static async open(options: GitStoreOptions): Promise<GitStore> {
    const store = new GitStore(options);
    if (!fs.existsSync(join(store.gitdir, 'HEAD'))) {
      // the repository holds every document, private ones too: no other user of the host may enter it (as DIR/secrets/)
      await fsp.mkdir(store.dir, { recursive: true, mode: 0o700 });
      const git = (await import('isomorphic-git')).default; // loaded only to make a repository (a tenth of a second of a core)
      await git.init({ fs, dir: store.dir, defaultBranch: store.branch });
    }
    await fsp.mkdir(join(store.dir, store.prefix), { recursive: true });
    await clearStaleLocks(store.gitdir, store.ref);
    await store.objects.clearTemporary();
    await Promise.all([store.load(await readRef(store.gitdir, store.ref)), store.disk.ready()]);
    return store;
  }

  get head(): string | undefined {
    return this.headId;
  }

  get headTreeId(): string | undefined {
    return this.headTree;
  }

  /** Blob id of a file at HEAD. */
  blobId(path: string): string | undefined {
    return this.files.get(path);
  }

  /**
   * The commit that last changed a file, when it changed since the store opened (for another git
   * client's commits, or a replica's fetches, the HEAD the change was seen at: a commit at or after
   * it); else the HEAD the store opened at, or undefined when it was empty.
   */
  lastChange(path: string): { commit: string | undefined; sinceOpen: boolean } {
    const commit = this.touched.get(path);
    return commit ? { commit, sinceOpen: true } : { commit: this.openedAt, sinceOpen: false };
  }

  /** Every file under the prefix at HEAD, with its blob id. */
  listFiles(): ReadonlyMap<string, string> {
    return this.files;
  }

  /** The bytes of a file at HEAD: a map lookup and a (cached) blob read. */
  async read(path: string): Promise<{ blobId: string; bytes: Buffer } | undefined> {
    const blobId = this.files.get(path);
    if (!blobId) return undefined;
    return { blobId, bytes: await this.readBlob(blobId) };
  }

  /** A blob's bytes if they are in the cache (for synchronous fast paths), else undefined. */
  cachedBlob(id: string): Buffer | undefined {
    return this.blobs.get(id);
  }

  async readBlob(id: string): Promise<Buffer> {
    const cached = this.blobs.get(id);
    if (cached) return cached;
    const bytes = await this.objects.readTyped(id, 'blob');
    this.blobs.put(id, bytes);
    return bytes;
  }

  /** Closes open pack files once the queue is empty, and the disk worker if the store built it. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.refresh().then(resolve, resolve));
    await this.objects.close();
    if (this.ownsDisk) await this.disk.close();
  }

  /** Runs `run` under the write lock; its intent (if any) becomes one commit. */
  transact<T>(run: Transaction<T>): Promise<TransactionResult<T>> {
    // a commit here would part the copy from its primary's history: the next fetch would drop it
    if (this.followerOf) return Promise.reject(new LodestoneError('Conflict', `this server is a read replica: write to ${this.followerOf}`));
    return new Promise((resolve, reject) => {
      this.queue.push({ kind: 'tx', run: run as Transaction<unknown>, resolve: resolve as Pending['resolve'], reject });
      void this.drain();
    });
  }

  /** A write of whole files, for callers that have no precondition to check. */
  async write(intent: WriteIntent): Promise<string | undefined> {
    return (await this.transact(async () => ({ intent, result: undefined }))).commit;
  }

  /**
   * Runs `run` alone, between group commits: for writes to other refs of the same repository
   * (branches.ts), which share this store's objects, packs and disk worker and must not race its writes.
   */
  exclusive<T>(run: () => Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      this.queue.push({ kind: 'exclusive', run: async () => resolve(await run()), resolve: () => undefined, reject });
      void this.drain();
    });
  }

  /** Writes `objects` and moves `ref` from `expected` (undefined: absent) to `next`, fsynced (to be called inside `exclusive`). */
  writeObjects(objects: GitObject[], ref: string, next: string, expected: string | undefined): Promise<void> {
    return this.objects.write(this.disk, objects, { gitdir: this.gitdir, ref, next, expected, lock: this.lockOptions });
  }

  /** Picks up commits made by other git clients on the branch (in order with our writes). */
  refresh(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ kind: 'refresh', resolve, reject });
      void this.drain();
    });
  }

  /**
   * Takes in commits made elsewhere (a replica's, from its primary: replica/follower.ts): writes
   * `objects` as one durable pack and moves the branch from `expected` to `head` (compare-and-swap),
   * then picks the new HEAD up as any git client's commit. The caller has checked that `objects`
   * hold what `head` needs beyond `expected`.
   */
  receive(objects: readonly GitObject[], head: string, expected: string | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ kind: 'receive', objects, head, expected, resolve, reject });
      void this.drain();
    });
  }

  private async takeIn(request: ReceiveRequest): Promise<void> {
    await this.syncFromDisk();
    if (this.headId !== request.expected) throw new LodestoneError('RefConflict', `the branch is at ${this.headId ?? 'no commit'}, not ${request.expected ?? 'no commit'}`);
    await this.objects.write(this.disk, request.objects, { gitdir: this.gitdir, ref: this.ref, next: request.head, expected: request.expected, lock: this.lockOptions });
    // what each commit changed, so that a document names the commit that last changed it (as on the primary)
    await this.syncFromDisk(await commitChanges(this.trees, request.objects, { id: request.expected, tree: this.headTree }, request.head, this.prefix).catch(() => undefined));
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const first = this.queue[0]!;
        if (first.kind === 'receive') {
          this.queue.shift();
          await this.takeIn(first).then(first.resolve, first.reject);
          await this.objects.consolidate(this.disk).catch(() => undefined);
          continue;
        }
        if (first.kind !== 'tx') {
          this.queue.shift();
          await (first.run ?? (() => this.syncFromDisk()))().then(first.resolve, first.reject);
          continue;
        }
        let end = 0;
        while (end < this.queue.length && end < this.maxBatch && this.queue[end]!.kind === 'tx') end++;
        await this.runBatch(this.queue.splice(0, end) as Pending[]);
        // Between batches nothing is being written: the moment to merge small packs.
        await this.objects.consolidate(this.disk).catch(() => undefined);
      }
    } finally {
      this.draining = false;
    }
  }

  private async load(head: string | undefined): Promise<void> {
    this.files.clear();
    this.folderCounts.clear();
    this.touched.clear();
    this.openedAt = head;
    this.headId = head;
    this.headTree = head ? (await this.objects.readCommit(head)).tree : undefined;
    this.applyFiles(await diffTrees(this.trees, undefined, this.headTree, this.prefix));
  }

  /** Picks up the branch as it is on disk; `commits`, when they lead from HEAD to it, say what each changed. */
  private async syncFromDisk(commits?: CommitSummary[]): Promise<void> {
    const onDisk = await readRef(this.gitdir, this.ref);
    if (onDisk === this.headId || onDisk === undefined) return;
    const before = this.headId;
    const beforeTree = this.headTree;
    const afterTree = (await this.objects.readCommit(onDisk)).tree;
    const files = await diffTrees(this.trees, beforeTree, afterTree, this.prefix);
    const known = commits !== undefined && commits.at(-1)?.id === onDisk ? commits : undefined;
    this.applyFiles(files);
    if (known) for (const commit of known) for (const file of commit.files) this.touched.set(file.path, commit.id);
    else for (const file of files) this.touched.set(file.path, onDisk);
    this.headId = onDisk;
    this.headTree = afterTree;
    this.recent.clear();
    this.emit('head', { before, after: onDisk, tree: afterTree, files, external: true, ...(known ? { commits: known } : {}) });
  }

  private applyFiles(files: FileDiff[]): void {
    for (const file of files) {
      const existed = this.files.has(file.path);
      if (file.after) this.files.set(file.path, file.after);
      else this.files.delete(file.path);
      if (existed !== this.files.has(file.path)) this.countFolders(file.path, existed ? -1 : 1);
    }
  }

  private countFolders(path: string, delta: number): void {
    for (let at = path.lastIndexOf('/'); at > 0; at = path.lastIndexOf('/', at - 1)) {
      const folder = path.slice(0, at);
      const count = (this.folderCounts.get(folder) ?? 0) + delta;
      if (count === 0) this.folderCounts.delete(folder);
      else this.folderCounts.set(folder, count);
    }
  }

  /** Whether any file at HEAD lies below `folder`. */
  hasFilesUnder(folder: string): boolean {
    return this.folderCounts.has(folder);
  }

  private signature(identity: Identity, timestamp: number): Signature {
    return { ...identity, timestamp, timezone: '+0000' };
  }

  private async runBatch(batch: Pending[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const view = new BatchView({ files: this.files, folderCounts: this.folderCounts, readBlob: (id) => this.readBlob(id) });
      const objects: GitObject[] = [];
      const outcomes: Array<{ ok: true; value: TransactionResult<unknown> } | { ok: false; error: unknown }> = [];
      let head = this.headId;
      let tree = this.headTree;
      const changedFiles = new Map<string, { before: string | undefined; after: string | undefined }>();
      const commits: CommitSummary[] = [];
      for (const item of batch) {
        try {
          const { intent, result } = await item.run(view);
          const { changes, blobIds } = view.hashChanges(intent?.changes ?? [], objects);
          if (!intent || changes.size === 0) {
            outcomes.push({ ok: true, value: { commit: undefined, result, blobIds } });
            continue;
          }
          const newTree = await buildTree(this.trees, tree, changes, objects);
          const now = this.clock();
          const commit = commitObject({
            tree: newTree,
            parents: head ? [head] : [],
            author: this.signature(intent.author, now),
            committer: this.signature(intent.committer ?? this.committer, now),
            message: intent.message.endsWith('\n') ? intent.message : intent.message + '\n',
          });
          objects.push(commit);
          const files: FileDiff[] = [];
          for (const [path, id] of changes) {
            files.push({ path, before: view.blobId(path), after: id ?? undefined });
            const before = changedFiles.has(path) ? changedFiles.get(path)!.before : this.files.get(path);
            changedFiles.set(path, { before, after: id ?? undefined });
            view.overlay.set(path, id);
          }
          commits.push({ id: commit.id, time: now, author: sanitise(intent.author.name), files });
          head = commit.id;
          tree = newTree;
          outcomes.push({ ok: true, value: { commit: commit.id, result, blobIds } });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
      if (head !== this.headId) {
        // Building a batch and handing it to the disk worker, and then the listeners of the new
        // HEAD and the replies, each run after the reads that came in meanwhile (a GET waits for
        // one of these pieces, not for the whole write).
        await afterPendingIo();
        try {
          await this.objects.write(this.disk, objects, { gitdir: this.gitdir, ref: this.ref, next: head!, expected: this.headId, lock: this.lockOptions });
        } catch (error) {
          if (isLodestoneError(error, 'RefConflict') && attempt < 10) {
            await this.syncFromDisk();
            continue;
          }
          for (const item of batch) item.reject(error);
          return;
        }
        for (const [id, bytes] of view.newBlobs) this.blobs.put(id, bytes);
        const before = this.headId;
        const files = [...changedFiles].map(([path, f]) => ({ path, ...f })).filter((f) => f.before !== f.after);
        this.applyFiles(files);
        for (const commit of commits) for (const file of commit.files) this.touched.set(file.path, commit.id);
        this.headId = head;
        this.headTree = tree;
        this.recent.add(before, head!, objects);
        this.emit('head', { before, after: head!, tree: tree!, files, external: false, commits });
        await afterPendingIo();
      }
      batch.forEach((item, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) item.resolve(outcome.value);
        else item.reject(outcome.error);
      });
      return;
    }
  }
}
