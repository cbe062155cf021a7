/**
 * Watches a dataspace's repository from outside the write path: the branch ref (a commit by any
 * git client, a pull, a reset) makes the store pick the new HEAD up, which then reaches the index
 * through the store's `head` event; a `.nt` file added, changed or deleted under the prefix is
 * handed to the working tree, which decides whether it is someone's edit. Events for one path are
 * debounced, so an editor's write-rename-chmod sequence is handled once.
 */
import { join, relative, sep } from 'node:path';
import chokidar, { type FSWatcher } from 'chokidar';
import type { GitStore } from '../store/git-store.js';
import type { WorkingTree } from '../store/worktree.js';

export interface WatcherOptions {
  store: GitStore;
  workingTree: WorkingTree;
  debounceMs?: number;
  log?: (line: string) => void;
  /** Called when `lodestone reindex` asks the running server to rebuild its index. */
  onReindexRequest?: () => Promise<void>;
}

/** The file `lodestone reindex` touches to ask a running server to rebuild its index. */
export function reindexRequestFile(gitdir: string): string {
  return join(gitdir, 'lodestone', 'reindex-request');
}

export class Watcher {
  private readonly store: GitStore;
  private readonly workingTree: WorkingTree;
  private readonly debounceMs: number;
  private readonly log: (line: string) => void;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private files: FSWatcher | undefined;
  private refs: FSWatcher | undefined;
  private work: Promise<void> = Promise.resolve();
  private readonly onReindexRequest: WatcherOptions['onReindexRequest'];

  constructor(options: WatcherOptions) {
    this.store = options.store;
    this.workingTree = options.workingTree;
    this.debounceMs = options.debounceMs ?? 50;
    this.log = options.log ?? ((line) => console.error(line));
    this.onReindexRequest = options.onReindexRequest;
  }

  async start(): Promise<void> {
    const folder = join(this.store.dir, this.store.prefix);
    this.files = chokidar.watch(folder, { ignoreInitial: true, persistent: true });
    const onFile = (absolute: string) => {
      const path = relative(this.store.dir, absolute).split(sep).join('/');
      if (path.endsWith('.nt')) this.debounce(path, () => this.workingTree.fileChanged(path));
    };
    this.files.on('add', onFile).on('change', onFile).on('unlink', onFile);
    const reindex = reindexRequestFile(this.store.gitdir);
    const refFiles = [join(this.store.gitdir, this.store.ref), join(this.store.gitdir, 'packed-refs'), join(this.store.gitdir, 'HEAD'), reindex];
    this.refs = chokidar.watch(refFiles, { ignoreInitial: true, persistent: true });
    const onRef = (path: string) => {
      if (path === reindex) this.debounce('\0reindex', async () => this.onReindexRequest?.());
      else this.debounce('\0ref', () => this.store.refresh());
    };
    this.refs.on('add', onRef).on('change', onRef).on('unlink', onRef);
    await Promise.all([once(this.files), once(this.refs)]);
  }

  private debounce(key: string, task: () => Promise<void>): void {
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.work = this.work.then(task).catch((error) => this.log(`watcher: ${(error as Error).message}`));
      }, this.debounceMs),
    );
  }

  /** Resolves when every event seen so far has been handled. */
  async idle(): Promise<void> {
    while (this.timers.size > 0) await new Promise((r) => setTimeout(r, this.debounceMs));
    await this.work;
  }

  async close(): Promise<void> {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([this.files?.close(), this.refs?.close()]);
    await this.work;
  }
}

function once(watcher: FSWatcher): Promise<void> {
  return new Promise((resolve) => watcher.once('ready', () => resolve()));
}
