/**
 * Starting a dataspace's mirror from its versioning configuration (SPEC §9.1): a repository with a
 * `doap:location` and a token is mirrored; a location ending in `.git` is pushed to with `git push`
 * over smart HTTP, any other (`https://github.com/<owner>/<repo>`) through GitHub's REST API.
 * Without a location there is local history only; without a token, a log line says why nothing is
 * mirrored. The token is never logged.
 */
import type { GitStore } from '../store/git-store.js';
import type { VersioningConfig } from '../system-config.js';
import { GitHub, parseRepositoryUrl } from './github.js';
import { GitHubTransport } from './github-transport.js';
import { Pusher, type Transport } from './pusher.js';

export interface MirrorOptions {
  githubApi: string;
  pacingMs: number;
  log: (line: string) => void;
  retryMs?: number;
}

export async function startMirror(store: GitStore, history: VersioningConfig, options: MirrorOptions): Promise<Pusher | undefined> {
  const { location, token } = history;
  if (!location) return undefined;
  if (!token) {
    options.log(`mirror ${location}: no a:authToken for <${history.repository}> in the credentials file; not mirroring`);
    return undefined;
  }
  let transport: Transport;
  if (location.endsWith('.git')) {
    const { GitPushTransport } = await import('./git-push.js'); // isomorphic-git, loaded for such a mirror only
    transport = new GitPushTransport(store, location, history.branch, token);
  } else {
    const { owner, repo } = parseRepositoryUrl(location);
    const onWait = (reason: string, ms: number) => {
      if (ms >= 2000) options.log(`mirror ${location}: waiting ${Math.round(ms / 1000)} s: ${reason}`);
    };
    transport = new GitHubTransport(new GitHub({ api: options.githubApi, owner, repo, token, pacingMs: options.pacingMs, onWait }), history.branch);
  }
  const pusher = new Pusher(store, { location, branch: history.branch, transport, log: options.log, retryMs: options.retryMs });
  await pusher.start();
  options.log(`mirror ${location}: pushing branch ${history.branch} through ${transport.name}`);
  return pusher;
}
