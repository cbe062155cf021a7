/**
 * The pusher's GitHub transport: replays commits through the REST git database endpoints. Each
 * replay is a tree (the parent's remote tree as `base_tree`, changed files inline, deletions as
 * `sha: null`, large or non-UTF-8 files as blobs first) and a commit with the local commit's
 * message, author and committer; one ref update per batch, never forced, except over the
 * placeholder commit the contents API must make in an empty repository (the git database
 * endpoints answer 409 there).
 */
import type { Signature } from '../git/commits.js';
import { GitHub, GitHubError, type TreeEntryInput } from './github.js';
import { isoDate, NotFastForward, type MirrorState, type Replay, type Transport } from './pusher.js';

const INLINE_LIMIT = 512 * 1024;
const PLACEHOLDER_PATH = '.lodestone-mirror';
const PLACEHOLDER_MESSAGE = 'Start the mirror';
const utf8 = new TextDecoder('utf-8', { fatal: true });

function signature(s: Signature) {
  return { name: s.name, email: s.email, date: isoDate(s) };
}

function text(bytes: Buffer): string | undefined {
  if (bytes.length > INLINE_LIMIT) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

export class GitHubTransport implements Transport {
  readonly name = 'GitHub REST API';

  constructor(
    private readonly github: GitHub,
    private readonly branch: string,
  ) {}

  abort(): void {
    this.github.abort();
  }

  /** The remote branch head; undefined when there is no branch, 'empty' for an empty repository. */
  async head(): Promise<string | undefined | 'empty'> {
    try {
      return await this.github.getRef(this.branch);
    } catch (error) {
      if (error instanceof GitHubError && error.status === 409) return 'empty';
      throw error;
    }
  }

  async push(replays: readonly Replay[], from: MirrorState | undefined): Promise<{ state: MirrorState; diverged: [string, string][] }> {
    let remoteHead = await this.head();
    let placeholder = from?.placeholder;
    if (remoteHead === 'empty') {
      placeholder = await this.github.createFile(PLACEHOLDER_PATH, Buffer.from('This repository mirrors a Lodestone dataspace.\n'), PLACEHOLDER_MESSAGE, this.branch);
      remoteHead = placeholder;
    } else if (remoteHead !== undefined && !from) {
      // a placeholder made by a run that stopped before its first ref update
      const commit = await this.github.getCommit(remoteHead);
      if (commit.parents.length === 0 && commit.message === PLACEHOLDER_MESSAGE) placeholder = remoteHead;
    }
    // Build on what the branch holds: where the pusher left it, a moved head (replayed onto), or
    // nothing (no branch, or only the placeholder: the chain goes in from its root).
    let base: { local: string; remote: string | undefined; tree?: string } =
      remoteHead === undefined || remoteHead === placeholder ? { local: '', remote: undefined } : { local: from?.remote === remoteHead ? from.local : '', remote: remoteHead };
    const diverged: [string, string][] = [];
    for (const replay of replays) {
      const identical = base.remote === undefined ? replay.commit.parents.length === 0 : base.remote === base.local;
      const baseTree = base.remote === undefined ? undefined : (base.tree ?? (identical ? replay.parentTree : (await this.github.getCommit(base.remote)).tree.sha));
      // without a base, a commit that has a parent needs its whole tree, not its change
      const changes = base.remote === undefined && replay.parentTree !== undefined ? undefined : replay.changes;
      if (!changes) throw new Error(`the remote branch ${this.branch} has none of the history before ${replay.id}; delete .git/lodestone/mirror.json to push all of it`);
      const entries: TreeEntryInput[] = [];
      for (const change of changes) {
        if (change.blob === null) {
          entries.push({ path: change.path, mode: '100644', type: 'blob', sha: null });
          continue;
        }
        const content = text(change.blob);
        entries.push(content === undefined ? { path: change.path, mode: change.mode, type: 'blob', sha: await this.github.createBlob(change.blob) } : { path: change.path, mode: change.mode, type: 'blob', content });
      }
      const tree = entries.length === 0 && baseTree ? baseTree : await this.github.createTree(entries, baseTree);
      const { commit } = replay;
      const sha = await this.github.createCommit({ message: commit.message, tree, parents: base.remote ? [base.remote] : [], author: signature(commit.author), committer: signature(commit.committer) });
      if (sha !== replay.id) diverged.push([replay.id, sha]);
      base = { local: replay.id, remote: sha, tree };
    }
    const head = base.remote!;
    try {
      if (remoteHead === undefined) await this.github.createRef(this.branch, head);
      else await this.github.updateRef(this.branch, head, remoteHead === placeholder);
    } catch (error) {
      if (error instanceof GitHubError && error.status === 422) throw new NotFastForward(error.message);
      throw error;
    }
    return { state: { local: base.local, remote: head, ...(placeholder ? { placeholder } : {}) }, diverged };
  }
}
