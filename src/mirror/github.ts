/**
 * A small client for the GitHub REST endpoints the pusher needs (git database: refs, trees,
 * commits, blobs; contents, for the first commit of an empty repository), with GitHub's rules for
 * well-behaved integrations built in: rate limits wait for `Retry-After` or `x-ratelimit-reset`,
 * secondary limits back off for at least a minute, content-creating requests are paced, and
 * server errors are retried with exponential backoff. The token goes in the Authorization header
 * and nowhere else: errors carry the method, the path and GitHub's message.
 */
import { GITHUB_JSON, JSON_TYPE } from '../rdf/media-types.js';
export interface GitHubOptions {
  /** `https://api.github.com`, or a GitHub Enterprise / stand-in API root. */
  api: string;
  owner: string;
  repo: string;
  token: string;
  /** Least milliseconds between content-creating requests (GitHub asks for one second). */
  pacingMs?: number;
  /** Called before each wait, with the reason and the milliseconds it will last. */
  onWait?: (reason: string, ms: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

export class GitHubError extends Error {
  constructor(
    readonly status: number,
    readonly method: string,
    readonly path: string,
    readonly githubMessage: string,
  ) {
    super(`${method} ${path}: ${status} ${githubMessage}`);
  }
}

export interface RefObject {
  ref: string;
  object: { sha: string; type: string };
}

export interface TreeEntryInput {
  path: string;
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha?: string | null;
  content?: string;
}

export interface SignatureInput {
  name: string;
  email: string;
  /** ISO 8601. */
  date: string;
}

const MAX_SERVER_RETRIES = 6;
const SECONDARY_LIMIT_MS = 60_000;

/** `https://github.com/<owner>/<repo>` (optionally `.git`) → owner and repo. */
export function parseRepositoryUrl(location: string): { owner: string; repo: string } {
  const match = /^https?:\/\/[^/]+\/([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(location);
  if (!match) throw new Error(`${location} is not a repository URL of the form https://github.com/<owner>/<repository>`);
  return { owner: match[1]!, repo: match[2]! };
}

export class GitHub {
  private lastWrite = 0;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Aborted when the server stops: the request under way and any wait before a retry end at once. */
  private readonly stopping = new AbortController();

  constructor(private readonly options: GitHubOptions) {
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  private get root(): string {
    return `${this.options.api.replace(/\/$/, '')}/repos/${this.options.owner}/${this.options.repo}`;
  }

  /** Ends the request under way and the waits before retries: every call then fails at once. */
  abort(): void {
    this.stopping.abort();
  }

  private async wait(reason: string, ms: number): Promise<void> {
    if (ms <= 0) return;
    this.options.onWait?.(reason, ms);
    const signal = this.stopping.signal;
    let ended = () => undefined as void;
    await Promise.race([this.sleep(ms), new Promise<void>((resolve) => signal.addEventListener('abort', (ended = () => resolve()), { once: true }))]);
    signal.removeEventListener('abort', ended);
    signal.throwIfAborted();
  }

  /** One API call: JSON in, JSON out; waits out rate limits and retries server errors. */
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const writes = method !== 'GET' && method !== 'HEAD';
    let serverErrors = 0;
    let secondary = 0;
    for (;;) {
      this.stopping.signal.throwIfAborted();
      if (writes) await this.wait('pacing content creation', this.lastWrite + (this.options.pacingMs ?? 1000) - Date.now());
      let response: Response;
      try {
        response = await fetch(this.root + path, {
          signal: this.stopping.signal,
          method,
          headers: {
            Accept: GITHUB_JSON,
            Authorization: `Bearer ${this.options.token}`,
            'X-GitHub-Api-Version': '2022-11-28',
            'User-Agent': 'lodestone-pusher',
            ...(body === undefined ? {} : { 'Content-Type': JSON_TYPE }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (error) {
        this.stopping.signal.throwIfAborted(); // stopping: no retry
        if (++serverErrors > MAX_SERVER_RETRIES) throw new GitHubError(0, method, path, `unreachable: ${(error as Error).message}`);
        await this.wait(`${method} ${path} failed (${(error as Error).message})`, backoff(serverErrors));
        continue;
      } finally {
        if (writes) this.lastWrite = Date.now();
      }
      const text = await response.text();
      const json = parseJson(text);
      if (response.ok) return json as T;
      const message = typeof json === 'object' && json !== null && 'message' in json ? String((json as { message: unknown }).message) : text.slice(0, 200);
      const limitWait = rateLimitWait(response, message, ++secondary);
      if (limitWait !== undefined) {
        await this.wait(`rate limited on ${method} ${path} (${message})`, limitWait);
        continue;
      }
      if (response.status >= 500 && ++serverErrors <= MAX_SERVER_RETRIES) {
        await this.wait(`${method} ${path}: ${response.status}`, backoff(serverErrors));
        continue;
      }
      throw new GitHubError(response.status, method, path, message);
    }
  }

  async getRef(branch: string): Promise<string | undefined> {
    try {
      return (await this.call<RefObject>('GET', `/git/ref/heads/${branch}`)).object.sha;
    } catch (error) {
      if (error instanceof GitHubError && error.status === 404) return undefined;
      throw error;
    }
  }

  async createRef(branch: string, sha: string): Promise<void> {
    await this.call('POST', '/git/refs', { ref: `refs/heads/${branch}`, sha });
  }

  /** Moves the branch; without `force`, GitHub answers 422 when it is not a fast forward. */
  async updateRef(branch: string, sha: string, force = false): Promise<void> {
    await this.call('PATCH', `/git/refs/heads/${branch}`, { sha, force });
  }

  async createBlob(bytes: Buffer): Promise<string> {
    return (await this.call<{ sha: string }>('POST', '/git/blobs', { content: bytes.toString('base64'), encoding: 'base64' })).sha;
  }

  async createTree(entries: TreeEntryInput[], baseTree?: string): Promise<string> {
    return (await this.call<{ sha: string }>('POST', '/git/trees', baseTree ? { base_tree: baseTree, tree: entries } : { tree: entries })).sha;
  }

  async getCommit(sha: string): Promise<{ sha: string; message: string; tree: { sha: string }; parents: { sha: string }[] }> {
    return this.call('GET', `/git/commits/${sha}`);
  }

  async createCommit(commit: { message: string; tree: string; parents: string[]; author: SignatureInput; committer: SignatureInput }): Promise<string> {
    return (await this.call<{ sha: string }>('POST', '/git/commits', commit)).sha;
  }

  /** The contents API: the only way to put a first commit into an empty repository. */
  async createFile(path: string, content: Buffer, message: string, branch: string): Promise<string> {
    const result = await this.call<{ commit: { sha: string } }>('PUT', `/contents/${path}`, { message, content: content.toString('base64'), branch });
    return result.commit.sha;
  }
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
}

function backoff(attempt: number): number {
  return Math.min(300_000, 1000 * 2 ** (attempt - 1));
}

/**
 * How long a rate-limited response asks us to wait (GitHub's "best practices for using the REST
 * API"): `Retry-After` seconds; else, with `x-ratelimit-remaining: 0`, until `x-ratelimit-reset`;
 * else, for a secondary limit, at least a minute, doubling. Undefined: not a rate limit.
 */
export function rateLimitWait(response: Pick<Response, 'status' | 'headers'>, message: string, attempt: number, now = Date.now()): number | undefined {
  if (response.status !== 403 && response.status !== 429) return undefined;
  const retryAfter = response.headers.get('retry-after');
  if (retryAfter !== null && /^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
  if (response.headers.get('x-ratelimit-remaining') === '0') {
    const reset = Number(response.headers.get('x-ratelimit-reset'));
    if (Number.isFinite(reset)) return Math.max(0, reset * 1000 - now) + 1000;
  }
  if (response.status === 429 || /secondary rate limit|abuse/i.test(message)) return SECONDARY_LIMIT_MS * 2 ** Math.min(attempt - 1, 4);
  return undefined;
}
