/**
 * The working tree of a dataspace's repository, kept equal to HEAD off the write path, and the way
 * edits people make to `.nt` files come back in. The stage (git's index) records what each file
 * holds as the server last wrote it: a file that differs from its entry was edited by someone, a
 * file that still matches it while HEAD moved on is stale and is overwritten. Files are replaced by
 * rename, and each round first journals the blobs it may write, until the stage records them, so
 * after a crash a file holding anything the server wrote is never mistaken for an edit (which
 * would commit the older bytes over an acknowledged write).
 */
import { promises as fsp, statSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalBytes } from '../rdf/canonical.js';
import { parseRdf } from '../rdf/ntriples.js';
import { blobObject } from '../git/objects.js';
import { stageEntryFromStats, statMatches, type StageEntry } from '../git/stage-file.js';
import type { StageUpdate, WorkingFile } from './disk-protocol.js';
import type { GitStore, Identity } from './git-store.js';
import { fileDocument } from '../document-paths.js';
import { defaultLockOptions } from './refs.js';
import { readStage } from './stage.js';
import { canonicalEdit, commitThatWrote, editCommit, HAND_EDIT, withModified } from './edit-commits.js';

export const WORKTREE_COMMITTER: Identity = { name: 'Lodestone (working tree)', email: 'working-tree@lodestone.invalid' };
export const ANONYMOUS: Identity = { name: 'anonymous', email: 'anonymous@lodestone.invalid' };

export interface WorkingTreeOptions {
  store: GitStore;
  /** Dataspace base URL, for commit messages. */
  base: string;
  /**
   * How long to wait after a commit before syncing the working tree: the writes of that time go
   * out together, with one stage (git index) for all of them.
   */
  delayMs?: number;
  log?: (line: string) => void;
  /** Canonical bytes of N-Triples whose blank nodes need deep labelling (in-process by default). */
  labelDeep?: (ntriples: string, what: string) => Promise<Buffer>;
  /** A stage write waits this many times its last cost after it (see writeStage); tests raise it. */
  stageWaitFactor?: number;
  /** Ontology constraints: throws a ConstraintViolation to refuse an edit's canonical bytes, those found at start included; none by default. */
  validate?: (url: string, bytes: Buffer) => Promise<void>;
  /** Whether files other git clients commit are taken in as edits (canonical form, dct:modified): when the repository is watched. */
  takeCommits?: boolean;
}

export class WorkingTree {
  private readonly store: GitStore;
  private readonly base: string;
  private readonly delayMs: number;
  private readonly log: (line: string) => void;
  private readonly labelDeep: (ntriples: string, what: string) => Promise<Buffer>;
  private readonly synced = new Map<string, StageEntry>();
  private readonly dirty = new Set<string>();
  /** Paths whose entries a failed stage update did not write: sent again with the next round. */
  private readonly unstaged = new Set<string>();
  /** A round that replaces every entry under the prefix is due (the first, or one that failed). */
  private replacePending = false;
  private readonly journal: string;
  private readonly tmpdir: string;
  private timer: NodeJS.Timeout | undefined;
  /** When the next stage write may start (see writeStage), and the timer that will make it. */
  private stageDue = 0;
  private readonly stageWaitFactor: number;
  private stageTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly validate: ((url: string, bytes: Buffer) => Promise<void>) | undefined;
  /** Files a commit of another git client changed (a pull, a commit made while no file event told us), with their blob before it. */
  private readonly committedElsewhere = new Map<string, string | undefined>();

  constructor(options: WorkingTreeOptions) {
    this.store = options.store;
    this.base = options.base;
    this.delayMs = options.delayMs ?? 200;
    this.stageWaitFactor = options.stageWaitFactor ?? 9;
    this.log = options.log ?? ((line) => console.error(line));
    this.labelDeep = options.labelDeep ?? ((ntriples) => canonicalBytes(parseRdf(ntriples)));
    this.validate = options.validate;
    this.journal = join(this.store.gitdir, 'lodestone', 'worktree-journal');
    this.tmpdir = join(this.store.gitdir, 'lodestone', 'tmp');
    this.store.on('head', (change) => {
      for (const file of change.files) this.dirty.add(file.path);
      if (change.external && options.takeCommits) for (const file of change.files) if (!this.committedElsewhere.has(file.path)) this.committedElsewhere.set(file.path, file.before);
      this.schedule();
    });
  }

  private abs(path: string): string {
    return join(this.store.dir, path);
  }

  /** Resolves once every commit so far is in the working tree and the stage. */
  async idle(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.enqueue(() => this.syncOut());
    }
    await this.running;
    if (this.unstaged.size > 0 || this.replacePending) await this.enqueue(() => this.writeStage([], false, true));
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    clearTimeout(this.stageTimer);
    this.stageTimer = undefined;
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.enqueue(() => this.syncOut());
    }, this.delayMs);
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    this.running = this.running.then(task).catch((error) => this.log(`working tree: ${(error as Error).message}`));
    return this.running;
  }

  /**
   * Startup: compares the working tree with HEAD, the stage and the journal, overwrites what
   * is stale and commits what people changed while the server was down. A file holding bytes the
   * server wrote there (the stage's entry, or a blob a journalled round was writing) is stale,
   * never an edit, whatever HEAD is now: an acknowledged write is never reverted by recovery.
   * Returns the paths taken as edits.
   */
  async reconcile(): Promise<string[]> {
    const stage = await readStage(this.store.gitdir);
    const journalled = parseJournal(await fsp.readFile(this.journal, 'utf8').catch(() => ''));
    const prefix = this.store.prefix + '/';
    const paths = new Set<string>([...this.store.listFiles().keys(), ...[...stage.keys()].filter((p) => p.startsWith(prefix)), ...journalled.keys()]);
    for (const file of await listFiles(this.abs(this.store.prefix), this.store.prefix)) paths.add(file);
    const edits: string[] = [];
    for (const path of paths) {
      const entry = stage.get(path);
      const head = this.store.blobId(path);
      // at start-up, before the server answers anyone: a stat call each, not a thread-pool round trip each
      const stats = statSync(this.abs(path), { throwIfNoEntry: false });
      const content = stats ? (entry && statMatches(entry, stats) ? entry.id : await this.hashFile(path)) : undefined;
      if (content === head) {
        if (stats && head) this.synced.set(path, stageEntryFromStats(path, head, stats));
        if (!head) this.synced.delete(path);
        continue;
      }
      if (entry) this.synced.set(path, entry);
      const wroteIt = content === undefined ? journalled.get(path)?.has(REMOVED) : content === entry?.id || journalled.get(path)?.has(content);
      const neverSynced = entry === undefined && content === undefined;
      if (wroteIt || neverSynced) {
        if (stats && content) this.synced.set(path, stageEntryFromStats(path, content, stats));
        else this.synced.delete(path);
        this.dirty.add(path);
      } else edits.push(path);
    }
    for (const path of edits) await this.takeChange(path);
    this.enqueue(() => this.syncOut(true));
    await this.running;
    return edits;
  }

  private async hashFile(path: string): Promise<string | undefined> {
    const bytes = await fsp.readFile(this.abs(path)).catch(() => undefined);
    return bytes ? blobObject(bytes).id : undefined;
  }

  /**
   * A file under the prefix changed on disk (a watcher event). It is looked at between sync rounds,
   * never during one: read while a round replaced it, it would hold the bytes of the write before
   * and be taken for an edit that reverts the last one (an acknowledged write).
   */
  fileChanged(path: string): Promise<void> {
    return this.enqueue(() => this.takeChange(path));
  }

  /**
   * A file under the prefix that may have changed (a watcher event, or found at startup or by a
   * round), with no round under way. If its content is not what the working tree was synced to, it
   * is someone's edit: parsed, and if valid committed in canonical form; if invalid, logged with
   * file, line and column, and left alone; if it breaks an ontology constraint (`validate`), logged
   * with the report's sentences, and left alone.
   */
  private async takeChange(path: string): Promise<void> {
    const relative = fileDocument(path, this.store.prefix);
    if (relative === undefined) return;
    await this.store.refresh(); // a pull writes files before it moves the branch: bytes HEAD holds are someone's commit, no hand edit
    const bytes = await fsp.readFile(this.abs(path)).catch(() => undefined);
    const rawId = bytes ? blobObject(bytes).id : undefined;
    const known = this.synced.get(path)?.id;
    if (rawId === known) return;
    if (rawId === undefined && known === undefined) return;
    const url = this.base + relative;
    if (!bytes) {
      const commit = await this.store.write({ changes: [{ path, bytes: null }], author: HAND_EDIT, committer: WORKTREE_COMMITTER, message: `DELETE ${url}\n\n${path} deleted from the working tree.` });
      this.synced.delete(path);
      if (commit) this.log(`working tree: ${path} was deleted; committed DELETE ${url} as ${commit}`);
      return;
    }
    const stats = await fsp.stat(this.abs(path)).catch(() => undefined);
    // after whom: the commit that wrote these bytes when someone committed them with git (HEAD holds them), else a hand edit
    const by = rawId === this.store.blobId(path) ? await commitThatWrote(this.store, path, rawId!) : undefined;
    const commit = await this.commitEdit(path, url, bytes, known, by);
    if (commit === false) return;
    // The file as edited is now accepted: the next sync may rewrite it in canonical form.
    if (stats) this.synced.set(path, stageEntryFromStats(path, rawId!, stats));
    this.dirty.add(path);
    this.schedule();
    if (commit) this.log(`working tree: ${path} was edited; committed PUT ${url} as ${commit}`);
  }

  /**
   * A file another git client's commit changed, which the round found as committed (no file event
   * showed it as an edit): its bytes are taken in as an edit of that commit's author.
   */
  private async takeCommitted(path: string, before: string | undefined): Promise<void> {
    const relative = fileDocument(path, this.store.prefix);
    const head = this.store.blobId(path);
    if (relative === undefined || head === undefined) return;
    const url = this.base + relative;
    const commit = await this.commitEdit(path, url, await this.store.readBlob(head), before, await commitThatWrote(this.store, path, head));
    if (!commit) return;
    this.dirty.add(path);
    this.schedule();
    this.log(`working tree: ${path} was committed with git; committed PUT ${url} as ${commit}`);
  }

  /**
   * Commits the canonical form of `bytes` as the document `url` (dct:modified set when the edit did
   * not set it: edit-commits.ts), as an edit `by` a commit or by hand. Invalid N-Triples are logged
   * with file, line and column and left alone, as is what breaks an ontology constraint (`validate`),
   * logged with the report's sentences: false. Otherwise the commit made, if anything changed.
   */
  private async commitEdit(path: string, url: string, bytes: Buffer, previous: string | undefined, by: Parameters<typeof editCommit>[2]): Promise<string | undefined | false> {
    const canonical = await canonicalEdit(bytes, path, url, { labelDeep: this.labelDeep, validate: this.validate, log: this.log, where: this.abs(path) });
    if (!canonical) return false;
    const now = new Date().toISOString();
    const stamped = withModified(canonical, previous === undefined ? undefined : await this.store.readBlob(previous).catch(() => undefined), url, now);
    const { author, message } = editCommit(url, path, by, !canonical.equals(bytes), stamped.equals(canonical) ? undefined : now);
    return this.store.write({ changes: [{ path, bytes: stamped }], author, committer: WORKTREE_COMMITTER, message });
  }

  /**
   * Writes HEAD's version of every dirty path, then their stage entries. `force` (at startup)
   * runs a round even with nothing dirty, and rewrites every stage entry under the prefix.
   */
  private async syncOut(force = false): Promise<void> {
    if (this.dirty.size === 0 && !force) return;
    const paths = [...this.dirty];
    this.dirty.clear();
    const files: WorkingFile[] = [];
    for (const path of paths) {
      const head = this.store.blobId(path);
      files.push({ path, head: head ?? null, bytes: head ? await this.store.readBlob(head) : null, synced: this.synced.get(path) });
    }
    // the watcher's events for these renames are looked at after the round (fileChanged), when `synced` names what they hold
    const outcomes = await this.store.disk.syncWorkingFiles(this.store.dir, this.store.prefix, this.tmpdir, this.journal, files);
    const edited: string[] = [];
    for (const result of outcomes) {
      if (result.outcome === 'written') this.synced.set(result.path, result.entry);
      else if (result.outcome === 'removed') this.synced.delete(result.path);
      else if (result.outcome === 'edited') edited.push(result.path); // someone's edit is waiting: taken in below
    }
    await this.writeStage(paths, force);
    for (const path of edited) await this.takeChange(path);
    for (const path of paths) {
      if (!this.committedElsewhere.has(path)) continue;
      const before = this.committedElsewhere.get(path);
      this.committedElsewhere.delete(path);
      if (!edited.includes(path)) await this.takeCommitted(path, before);
    }
  }

  /**
   * Sends the stage entries of a round's paths to the disk worker, which keeps the stage and
   * git's own entries for every other path (stage.ts): work here is per path of the round,
   * not per file of the repository. With `full`, every synced path goes, and replaces all
   * entries under the prefix.
   * The file is written whole (~100 MB at a million files) by the thread that writes the commits,
   * so a stage write waits nine times its last cost (`flush` does not): a tenth of that thread's
   * time at any size. The journal names the rounds' files meanwhile, as recovery needs (reconcile).
   */
  private async writeStage(paths: readonly string[], full: boolean, flush = false): Promise<void> {
    for (const path of paths) this.unstaged.add(path);
    this.replacePending ||= full;
    if (this.unstaged.size === 0 && !this.replacePending) return;
    const wait = this.stageDue - performance.now();
    if (wait > 0 && !flush && !this.replacePending) {
      if (!this.stageTimer && !this.closed) {
        this.stageTimer = setTimeout(() => {
          this.stageTimer = undefined;
          this.enqueue(() => this.writeStage([], false, true));
        }, wait);
        this.stageTimer.unref();
      }
      return;
    }
    clearTimeout(this.stageTimer);
    this.stageTimer = undefined;
    const started = performance.now();
    const update: StageUpdate = { set: [], remove: [], replacePrefix: this.replacePending };
    for (const path of this.replacePending ? this.synced.keys() : this.unstaged) {
      const entry = this.stageEntry(path);
      if (entry) update.set.push(entry);
      else update.remove.push(path);
    }
    await this.store.disk.updateStage(this.store.gitdir, this.store.prefix, update, defaultLockOptions, this.journal);
    this.unstaged.clear();
    this.replacePending = false;
    this.stageDue = performance.now() + Math.min(STAGE_WAIT_CAP_MS, this.stageWaitFactor * (performance.now() - started));
  }

  /**
   * A path's stage entry: what the file holds as the server last wrote or accepted it, even when
   * HEAD has moved on since (the next round brings it up to HEAD). The stage is the record that
   * tells the server's own bytes from someone's edit after a crash, so it never names a blob the
   * file does not hold.
   */
  private stageEntry(path: string): StageEntry | undefined {
    return this.synced.get(path);
  }
}

/** The longest a stage write waits after the last one (see WorkingTree.writeStage). */
const STAGE_WAIT_CAP_MS = 10_000;

/** The journal's marker for a file a round removes. */
const REMOVED = '-';

/** The journal: each path with the blobs rounds were writing there since the stage last recorded them. */
function parseJournal(text: string): Map<string, Set<string>> {
  const written = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    const tab = line.lastIndexOf('\t');
    if (tab <= 0) continue;
    const path = line.slice(0, tab);
    let blobs = written.get(path);
    if (!blobs) written.set(path, (blobs = new Set()));
    blobs.add(line.slice(tab + 1));
  }
  return written;
}

async function listFiles(folder: string, relative: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await fsp.readdir(folder, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = `${relative}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await listFiles(join(folder, entry.name), path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}
