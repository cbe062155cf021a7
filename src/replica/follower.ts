/**
 * A replica's copy of one dataspace's repository, following the primary's with git's objects
 * (issue 29): it asks the primary for its HEAD, holding the question open until HEAD moves
 * (`<base>.git/head?after=<sha>&pack=1`, answered to the secretary's certificate), which comes with
 * a pack of the new commits; the store writes it and moves the branch (GitStore.receive) and picks
 * the new HEAD up as any git client's commit (the index follows from the tree diff). When no pack
 * comes (a first copy, a long way behind) it fetches with the git CLI over smart HTTP (`<base>.git`)
 * into the branch. A round spawns no process (a `git fetch` each took ~570 ms here). A primary
 * that cannot be reached is asked again, less and less often (up to every 5 s); what was fetched
 * is kept, so a restarted replica fetches only what it lacks.
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:https';
import { parseCommit, type Commit } from '../git/commits.js';
import { decodePackStream } from '../git/packs.js';
import { GIT_HEAD_PACK } from '../rdf/media-types.js';
import { gitEnvironment } from '../store/git-cli.js';
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
  /** The wait after a failed round: the first, doubled after each further failure up to the most. */
  retryMs: { first: number; most: number };
}

/** How long a HEAD question is held open by the primary (it answers sooner when HEAD moves). */
const POLL_MS = 20_000;

/** The primary's answer to a question for its HEAD: the HEAD (none for an empty branch), and with a pack, how many commits it holds. */
interface HeadAnswer {
  head?: string;
  commits?: number;
  pack?: Buffer;
}

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
  /** Commits the primary has said it holds beyond this copy (undefined: it did not say how many). */
  commitsBehind: number | undefined = 0;
  /** Rounds that took in the primary's pack, and fetches with git. */
  readonly rounds = { packed: 0, fetched: 0 };
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
    const answer = await this.ask(undefined);
    this.hear(answer);
    if (answer.head !== undefined && answer.head !== this.store.head) await this.fetch();
    if (answer.head === this.store.head) this.caughtUpAt = new Date();
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

  /**
   * Asks and takes in, overlapped: while the store writes one answer's pack, the next question is
   * already at the primary (naming the HEAD that pack brings), so a round costs the longer of the
   * two rather than both.
   */
  private async run(): Promise<void> {
    const retry = this.options.retryMs;
    let backoff = retry.first;
    let after = this.store.head;
    let taking: Promise<boolean> = Promise.resolve(true);
    while (!this.stopped) {
      try {
        const asking = this.ask(after, true);
        const taken = await taking.catch(() => false);
        taking = Promise.resolve(true);
        const answer = await asking;
        if (this.stopped) return;
        if (!taken) {
          // the pack before did not go in: this answer starts where the copy is not
          await this.fetch();
          after = this.store.head;
          continue;
        }
        this.hear(answer);
        if (answer.head !== undefined && answer.head !== after) {
          if (answer.pack) taking = this.take(answer.pack, answer.head, after);
          else {
            await this.fetch();
            after = this.store.head;
            continue;
          }
          after = answer.head;
        }
        backoff = retry.first;
      } catch (error) {
        const taken = await taking.catch(() => false);
        if (this.stopped) return;
        if (!taken) await this.fetch().catch(() => undefined);
        taking = Promise.resolve(true);
        after = this.store.head;
        this.options.log(`replica: ${this.options.url}: ${(error as Error).message}; trying again in ${backoff} ms`);
        await new Promise((resolve) => setTimeout(resolve, backoff));
        backoff = Math.min(backoff * 2, retry.most);
      }
    }
    await taking.catch(() => false);
  }

  private hear(answer: HeadAnswer): void {
    this.primaryHead = answer.head;
    this.heardAt = new Date();
    this.commitsBehind = answer.head === undefined || answer.head === this.store.head ? 0 : answer.commits;
  }

  /**
   * Takes in the commits the primary sent with its HEAD (a pack of whole objects, each named by the
   * hash of its bytes): they must run from `before` to `head`, one parent each; false when they do
   * not, or cannot be written (git's fetch then brings them).
   */
  private async take(pack: Buffer, head: string, before: string | undefined): Promise<boolean> {
    const objects = decodePackStream(pack);
    const commits = new Map<string, Commit>();
    for (const object of objects ?? []) if (object.type === 'commit') commits.set(object.id, parseCommit(object.content));
    let at = head;
    for (let n = 0; n < commits.size && at !== before; n++) at = commits.get(at)?.parents.length === 1 ? commits.get(at)!.parents[0]! : at;
    if (!objects || at !== before) {
      this.options.log(`replica: ${this.options.url}: the primary's pack does not lead from ${before} to ${head}; fetching with git`);
      return false;
    }
    try {
      await this.store.receive(objects, head, before);
    } catch (error) {
      this.options.log(`replica: ${this.options.url}: ${(error as Error).message}; fetching with git`);
      return false;
    }
    this.rounds.packed++;
    if (this.store.head === this.primaryHead) {
      this.commitsBehind = 0;
      this.caughtUpAt = new Date();
    }
    for (const wake of this.waiters) wake();
    return true;
  }

  /** The primary's HEAD once it differs from `after` (or after the primary's wait), and with `pack` what it holds beyond `after`. */
  private ask(after: string | undefined, pack = false): Promise<HeadAnswer> {
    const url = new URL(`${this.options.url}/head`);
    if (after) url.searchParams.set('after', after);
    if (pack) url.searchParams.set('pack', '1');
    return new Promise((resolve, reject) => {
      const req = request(url, { agent: this.agent, timeout: POLL_MS + 10_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`the primary answered ${res.statusCode} to ${url.href}`));
          const body = Buffer.concat(chunks);
          const end = body.indexOf(10);
          const line = /^([0-9a-f]{40})(?: (\d+))?$/.exec(body.toString('latin1', 0, end < 0 ? body.length : end).trim());
          if (!line) return resolve({});
          const withPack = res.headers['content-type'] === GIT_HEAD_PACK && end >= 0;
          resolve({ head: line[1], commits: line[2] === undefined ? undefined : Number(line[2]), pack: withPack ? body.subarray(end + 1) : undefined });
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
      const child = spawn('git', args, { env: gitEnvironment(), stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git fetch failed: ${stderr.trim().split('\n').pop() ?? code}`))));
    });
    await store.refresh();
    this.rounds.fetched++;
    if (store.head === this.primaryHead) {
      this.commitsBehind = 0;
      this.caughtUpAt = new Date();
    }
    for (const wake of this.waiters) wake();
  }
}
