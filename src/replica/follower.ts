/**
 * A replica's copy of one dataspace's repository, following the primary's with git's own protocol
 * (issue 29): it asks the primary for its HEAD, holding the question open until HEAD moves
 * (`<base>.git/head?after=<sha>`, answered to the secretary's certificate), then fetches the new
 * commits with the git CLI over smart HTTP (`<base>.git`) into the branch, and has the store pick
 * the new HEAD up as any git client's commit (the index follows from the tree diff). A primary
 * that cannot be reached is asked again, less and less often (up to every 5 s); what was fetched
 * is kept, so a restarted replica fetches only what it lacks.
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:https';
import type { GitStore } from '../store/git-store.js';

export interface FollowerOptions {
  store: GitStore;
  /** The primary's URL of the repository: `<primary base of the dataspace>.git`. */
  url: string;
  /** The secretary's certificate and key (PEM), which the primary serves its repositories to. */
  credentials: { file: string; pem: string };
  /** Certificates (PEM file) to trust for the primary besides the system's. */
  caFile?: string;
  ca?: string;
  log: (line: string) => void;
}

/** How long a HEAD question is held open by the primary (it answers sooner when HEAD moves). */
const POLL_MS = 20_000;

export class Follower {
  private stopped = false;
  private loop: Promise<void> | undefined;
  private current: ReturnType<typeof request> | undefined;
  private readonly agent: Agent;
  /** The primary's HEAD as last heard, and when. */
  primaryHead: string | undefined;
  heardAt: Date | undefined;
  /** The time the last fetch brought HEAD to what the primary said. */
  caughtUpAt: Date | undefined;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly options: FollowerOptions) {
    this.agent = new Agent({ keepAlive: true, cert: options.credentials.pem, key: options.credentials.pem, ...(options.ca ? { ca: options.ca } : {}) });
  }

  get store(): GitStore {
    return this.options.store;
  }

  /** Fetches what the primary has now; throws when it cannot be reached. */
  async catchUp(): Promise<void> {
    await this.fetch();
    const head = await this.ask(undefined);
    this.primaryHead = head;
    this.heardAt = new Date();
    if (head !== undefined && head !== this.store.head) await this.fetch();
    if (head === this.store.head) this.caughtUpAt = new Date();
  }

  /** Follows the primary until stopped. */
  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.destroy();
    this.agent.destroy();
    for (const wake of this.waiters) wake();
    await this.loop;
  }

  /** Resolves once `commit` is HEAD or an ancestor of it, or with false after `ms`. */
  async reached(commit: string, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      if (await this.contains(commit)) return true;
      const left = deadline - Date.now();
      if (left <= 0 || this.stopped) return false;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.waiters.add(wake);
      });
    }
  }

  /** Whether `commit` is HEAD or one of its ancestors here: walked back from HEAD, no further than its own time. */
  private async contains(commit: string): Promise<boolean> {
    const head = this.store.head;
    if (head === undefined) return false;
    if (head === commit) return true;
    const target = await this.store.objects.readCommit(commit).catch(() => undefined);
    if (!target) return false; // not fetched yet
    const queue = [head];
    const seen = new Set<string>();
    while (queue.length > 0) {
      const id = queue.shift()!;
      if (id === commit) return true;
      if (seen.has(id)) continue;
      seen.add(id);
      const parent = await this.store.objects.readCommit(id);
      if (parent.committer.timestamp < target.committer.timestamp) continue;
      queue.push(...parent.parents);
    }
    return false;
  }

  private async run(): Promise<void> {
    let backoff = 250;
    while (!this.stopped) {
      try {
        const head = await this.ask(this.store.head);
        if (this.stopped) return;
        this.primaryHead = head;
        this.heardAt = new Date();
        if (head !== undefined && head !== this.store.head) await this.fetch();
        if (this.store.head === this.primaryHead) this.caughtUpAt = new Date();
        backoff = 250;
      } catch (error) {
        if (this.stopped) return;
        this.options.log(`replica: ${this.options.url}: ${(error as Error).message}; trying again in ${backoff} ms`);
        await new Promise((resolve) => setTimeout(resolve, backoff));
        backoff = Math.min(backoff * 2, 5000);
      }
    }
  }

  /** The primary's HEAD, once it differs from `after` (or after the primary's wait). */
  private ask(after: string | undefined): Promise<string | undefined> {
    const url = new URL(`${this.options.url}/head`);
    if (after) url.searchParams.set('after', after);
    return new Promise((resolve, reject) => {
      const req = request(url, { agent: this.agent, timeout: POLL_MS + 10_000 }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`the primary answered ${res.statusCode} to ${url.href}`));
          const head = body.trim();
          resolve(/^[0-9a-f]{40}$/.test(head) ? head : undefined);
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('the primary did not answer in time')));
      req.on('error', reject);
      this.current = req;
      req.end();
    });
  }

  /** `git fetch` of the branch into the branch (the store's HEAD), then the store picks it up. */
  private async fetch(): Promise<void> {
    const { store, url, credentials, caFile } = this.options;
    const ca = caFile ? ['-c', `http.sslCAInfo=${caFile}`] : [];
    // no maintenance, commit graph or FETCH_HEAD: the store keeps its own packs (a repack by git under
    // it would be work twice), and a round does only the fetch
    const quiet = ['-c', 'gc.auto=0', '-c', 'maintenance.auto=false', '-c', 'fetch.writeCommitGraph=false'];
    const args = ['-c', `http.sslCert=${credentials.file}`, '-c', `http.sslKey=${credentials.file}`, ...ca, ...quiet, '--git-dir', store.gitdir, 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-show-forced-updates', '--update-head-ok', url, `+refs/heads/${store.branch}:refs/heads/${store.branch}`];
    await new Promise<void>((resolve, reject) => {
      const child = spawn('git', args, { env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: '/nonexistent', GIT_TERMINAL_PROMPT: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git fetch failed: ${stderr.trim().split('\n').pop() ?? code}`))));
    });
    await store.refresh();
    for (const wake of this.waiters) wake();
  }
}
