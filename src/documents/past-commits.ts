/**
 * Which commit a query of the past names (issue 30): a commit id (perhaps abbreviated, as git
 * prints it) that must be in the history of the dataspace's branch, or a date, read as a TimeGate
 * reads one (RFC 7089 §4.1): the newest first-parent commit of the branch at or before it. Both
 * are asked of the git CLI (`merge-base --is-ancestor`, `rev-list --first-parent --before`), which
 * walks the history in C without loading it here; answers are kept per HEAD (a few hundred).
 * And which documents differ between such a commit and HEAD (for access control at that commit).
 */
import { runGit as git } from '../store/git-cli.js';
import { fileDocument } from '../document-paths.js';
import { LodestoneError } from '../errors.js';
import type { GitStore } from '../store/git-store.js';
import { diffTrees } from '../store/trees.js';

/** A commit a past query runs at, with its commit time (seconds since the epoch). */
export interface PastCommit {
  commit: string;
  time: number;
}

export class PastCommits {
  private readonly known = new Map<string, PastCommit | null>();

  /** @param fullId the full id of a commit id that may be abbreviated (a malformed one throws BadRequest), undefined when it names none */
  constructor(
    private readonly store: GitStore,
    private readonly base: string,
    private readonly fullId: (sha: string) => Promise<string | undefined>,
  ) {}

  /** The commit `sha` names, when it is in the branch's history; BadRequest when malformed, NotFound when not there. */
  async byId(sha: string): Promise<PastCommit> {
    const head = this.headOrNotFound();
    const commit = await this.fullId(sha);
    const found = commit && (await this.remember(`${head} id ${commit}`, async () => {
      const { code } = await git(this.store.gitdir, ['merge-base', '--is-ancestor', commit, head]);
      return code === 0 ? this.withTime(commit) : null;
    }));
    if (!found) throw new LodestoneError('NotFound', `there is no commit ${sha} in the history of ${this.base}`);
    return found;
  }

  /** The newest first-parent commit at or before `date` (RFC 7089 §4.1); NotFound before the first. */
  async byDate(date: Date): Promise<PastCommit> {
    const head = this.headOrNotFound();
    const latest = await this.withTime(head);
    if (date.getTime() >= latest.time * 1000) return latest; // HEAD is the newest: and git reads no year past 2099
    const when = date.toISOString().replace(/\.\d+Z$/, 'Z'); // whole seconds, as commit times are
    const found = date.getTime() < 0 ? null : await this.remember(`${head} date ${when}`, async () => {
      const { code, out } = await git(this.store.gitdir, ['rev-list', '--first-parent', '-n', '1', `--before=${when}`, head]);
      return code === 0 && /^[0-9a-f]{40}$/.test(out) ? this.withTime(out) : null;
    });
    if (!found) throw new LodestoneError('NotFound', `${this.base} has no commit at or before ${date.toUTCString()}`);
    return found;
  }

  /**
   * The documents whose files differ between `commit` and HEAD, by relative path, each with its
   * blob at `commit` (undefined: absent then). Work in proportion to the trees that differ.
   */
  async differing(commit: string): Promise<Map<string, string | undefined>> {
    const past = (await this.store.objects.readCommit(commit)).tree;
    const differ = new Map<string, string | undefined>();
    for (const file of await diffTrees(this.store.trees, past, this.store.headTreeId, this.store.prefix)) {
      const relative = fileDocument(file.path, this.store.prefix);
      if (relative !== undefined) differ.set(relative, file.before);
    }
    return differ;
  }

  private headOrNotFound(): string {
    const head = this.store.head;
    if (!head) throw new LodestoneError('NotFound', `${this.base} has no commits yet`);
    return head;
  }

  private async withTime(commit: string): Promise<PastCommit> {
    return { commit, time: (await this.store.objects.readCommit(commit)).committer.timestamp };
  }

  private async remember(key: string, find: () => Promise<PastCommit | null>): Promise<PastCommit | null> {
    let found = this.known.get(key);
    if (found === undefined) {
      found = await find();
      if (this.known.size >= 500) this.known.clear();
      this.known.set(key, found);
    }
    return found;
  }
}
