/**
 * The pusher's second transport: `git push` over smart HTTP (isomorphic-git), with the token as
 * HTTP Basic credentials (`x-access-token:<token>`, as GitHub and most hosts take it), for hosts
 * that allow pushes. While the remote branch is where the pusher left it, the local commits
 * themselves are pushed (same SHAs by construction). When it moved, the remote branch is fetched
 * and the pending changes are replayed onto it as new local commit objects (on no local branch:
 * `refs/lodestone/mirror` points at them), which are then pushed.
 */
import fs from 'node:fs';
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { commitObject } from '../git/commits.js';
import { blobObject, type GitObject } from '../git/objects.js';
import type { GitStore } from '../store/git-store.js';
import { defaultLockOptions, readRef } from '../store/refs.js';
import { buildTree } from '../store/trees.js';
import { NotFastForward, type MirrorState, type Replay, type Transport } from './pusher.js';

const MIRROR_REF = 'refs/lodestone/mirror';
/** The remote the mirror is fetched from (`git remote -v` shows it; the token is not in it). */
const REMOTE = 'lodestone-mirror';

export class GitPushTransport implements Transport {
  readonly name = 'git push (smart HTTP)';

  constructor(
    private readonly store: GitStore,
    private readonly url: string,
    private readonly branch: string,
    private readonly token: string | undefined,
  ) {}

  private get auth() {
    return { onAuth: () => ({ username: 'x-access-token', password: this.token ?? '' }) };
  }

  async head(): Promise<string | undefined | 'empty'> {
    const refs = await git.listServerRefs({ http, url: this.url, prefix: `refs/heads/${this.branch}`, ...this.auth });
    return refs.find((r) => r.ref === `refs/heads/${this.branch}`)?.oid;
  }

  async push(replays: readonly Replay[], from: MirrorState | undefined): Promise<{ state: MirrorState; diverged: [string, string][] }> {
    const remoteHead = await this.head();
    const last = replays[replays.length - 1]!;
    let target = last.id;
    const diverged: [string, string][] = [];
    const inPlace = remoteHead === undefined || remoteHead === 'empty' ? !from || from.local === '' || replays[0]!.commit.parents.length === 0 : from?.remote === remoteHead && from.local === remoteHead;
    if (!inPlace && remoteHead !== undefined && remoteHead !== 'empty') {
      // the branch moved (or carries replays already): fetch it and replay the changes onto it
      await git.addRemote({ fs, gitdir: this.store.gitdir, remote: REMOTE, url: this.url, force: true });
      await git.fetch({ fs, http, gitdir: this.store.gitdir, remote: REMOTE, ref: this.branch, singleBranch: true, tags: false, ...this.auth });
      let parent = remoteHead;
      let parentTree = (await this.store.objects.readCommit(parent)).tree;
      const objects: GitObject[] = [];
      for (const replay of replays) {
        const changes = new Map<string, string | null>();
        for (const change of replay.changes) {
          if (change.blob === null) changes.set(change.path, null);
          else {
            const blob = blobObject(change.blob);
            objects.push(blob);
            changes.set(change.path, blob.id);
          }
        }
        const tree = await buildTree(this.store.trees, parentTree, changes, objects);
        const commit = commitObject({ ...replay.commit, tree, parents: [parent] });
        objects.push(commit);
        diverged.push([replay.id, commit.id]);
        parent = commit.id;
        parentTree = tree;
      }
      await this.store.objects.write(this.store.disk, objects);
      target = parent;
    }
    await this.store.disk.updateRef(this.store.gitdir, MIRROR_REF, target, await readRef(this.store.gitdir, MIRROR_REF), defaultLockOptions);
    const result = await git
      .push({ fs, http, gitdir: this.store.gitdir, url: this.url, ref: MIRROR_REF, remoteRef: `refs/heads/${this.branch}`, ...this.auth })
      .catch((error: unknown) => {
        if (error instanceof git.Errors.PushRejectedError) throw new NotFastForward(error.message);
        throw error;
      });
    if (!result.ok) throw new NotFastForward(`the remote refused the push: ${JSON.stringify(result.refs)}`);
    return { state: { local: last.id, remote: target }, diverged };
  }
}
