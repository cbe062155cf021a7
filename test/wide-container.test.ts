/**
 * A container of 100,000 documents (issue 29), seeded in one store write: creates, replaces and
 * deletes in it make one commit each that git reads as it reads any other (fsck, show, ls-tree),
 * and a commit someone makes there with git is picked up (refresh, as the watcher calls it).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { GitStore } from '../src/store/git-store.js';
import { ANONYMOUS } from '../src/store/worktree.js';
import { git, removeTempDirs, tempDir } from './helpers.js';

const WIDTH = 100_000;
const triple = (text: string) => Buffer.from(`<https://example.org/w/x/> <https://example.org/p> "${text}" .\n`);
let dir: string;
let store: GitStore;

before(async () => {
  dir = tempDir('wide');
  store = await GitStore.open({ dir });
  const changes = Array.from({ length: WIDTH }, (_, i) => ({ path: `graphs/w/s${i}.nt`, bytes: triple(`seed ${i % 100}`) }));
  await store.write({ changes, author: ANONYMOUS, message: `Seed ${WIDTH} documents` });
});
after(async () => {
  await store.close();
  removeTempDirs(); // after the store has closed: a folder removed under it would be written again
});

/** The git CLI with `input` on its standard input, as someone else (helpers.ts's git takes none). */
function execGit(cwd: string, args: string[], input?: Buffer): string {
  const env = { ...process.env, GIT_AUTHOR_NAME: 'Someone Else', GIT_AUTHOR_EMAIL: 'someone@example.org', GIT_COMMITTER_NAME: 'Someone Else', GIT_COMMITTER_EMAIL: 'someone@example.org' };
  return execFileSync('git', args, { cwd, env, input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

const entries = () => execGit(dir, ['ls-tree', 'HEAD', 'graphs/w/']).split('\n').filter(Boolean).length;

test('a create, a replace and a delete in a container of 100,000 documents are one commit each, read by git', async () => {
  const created = await store.write({ changes: [{ path: 'graphs/w/new.nt', bytes: triple('created') }], author: ANONYMOUS, message: 'PUT https://example.org/w/new/' });
  assert.equal(git(dir, 'rev-parse', 'HEAD').trim(), created);
  assert.equal(git(dir, 'show', '--format=', '--name-status', 'HEAD').trim(), 'A\tgraphs/w/new.nt');
  assert.equal(entries(), WIDTH + 1);
  const replaced = await store.write({ changes: [{ path: 'graphs/w/s777.nt', bytes: triple('replaced') }], author: ANONYMOUS, message: 'PUT https://example.org/w/s777/' });
  assert.equal(git(dir, 'show', '--format=%P', '--name-status', replaced!).trim(), `${created}\n\nM\tgraphs/w/s777.nt`);
  assert.equal(git(dir, 'cat-file', 'blob', 'HEAD:graphs/w/s777.nt'), triple('replaced').toString());
  const deleted = await store.write({ changes: [{ path: 'graphs/w/s12345.nt', bytes: null }], author: ANONYMOUS, message: 'DELETE https://example.org/w/s12345/' });
  assert.equal(git(dir, 'show', '--format=', '--name-status', deleted!).trim(), 'D\tgraphs/w/s12345.nt');
  assert.equal(entries(), WIDTH);
  // new names that sort before, among and after the others, in one write: merged into git's order (fsck --strict checks it)
  const names = ['graphs/w/0.nt', 'graphs/w/s5000-.nt', 'graphs/w/s50000.nt.nt', 'graphs/w/zz.nt'];
  const several = await store.write({ changes: names.map((path) => ({ path, bytes: triple(path) })), author: ANONYMOUS, message: 'PUT several' });
  assert.equal(git(dir, 'show', '--format=', '--name-only', several!).trim(), [...names].sort().join('\n'));
  git(dir, 'fsck', '--strict', '--no-dangling');
  assert.equal(entries(), WIDTH + 4);
  await store.write({ changes: names.map((path) => ({ path, bytes: null })), author: ANONYMOUS, message: 'DELETE several' });
  assert.equal(git(dir, 'rev-list', '--count', 'HEAD').trim(), '6');
  assert.equal(store.listFiles().size, WIDTH);
  assert.equal((await store.read('graphs/w/s777.nt'))!.bytes.toString(), triple('replaced').toString());
  assert.equal(await store.read('graphs/w/s12345.nt'), undefined);
  git(dir, 'fsck', '--strict', '--no-dangling');
});

test('a commit made with git in the wide container is picked up', async () => {
  // a git user's edit of one document, committed with plumbing (no checkout of 100,000 files needed)
  const edited = triple('edited with git');
  const withEdit = execGit(dir, ['hash-object', '-w', '--stdin'], edited).trim();
  execGit(dir, ['read-tree', 'HEAD']);
  execGit(dir, ['update-index', '--cacheinfo', `100644,${withEdit},graphs/w/s4242.nt`]);
  const tree = execGit(dir, ['write-tree']).trim();
  const commit = execGit(dir, ['commit-tree', tree, '-p', 'HEAD', '-m', 'hand edit of s4242']).trim();
  execGit(dir, ['update-ref', 'refs/heads/main', commit]);
  const heads: string[][] = [];
  store.on('head', (change) => heads.push(change.files.map((f) => f.path)));
  await store.refresh();
  assert.equal(store.head, commit);
  assert.deepEqual(heads, [['graphs/w/s4242.nt']], 'the diff of two 100,000-entry trees names the one file');
  assert.equal((await store.read('graphs/w/s4242.nt'))!.bytes.toString(), edited.toString());
  const next = await store.write({ changes: [{ path: 'graphs/w/after.nt', bytes: triple('after') }], author: ANONYMOUS, message: 'PUT https://example.org/w/after/' });
  assert.equal(git(dir, 'rev-parse', `${next}^`).trim(), commit, 'the next write builds on the git user\'s commit');
  git(dir, 'fsck', '--strict', '--no-dangling');
});
