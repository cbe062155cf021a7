/**
 * Tests for the GitHub REST API stand-in (test/fixtures/github-standin.ts) with real HTTP requests
 * against real bare repositories: the pusher's tests rely on it behaving like GitHub's documented
 * "Git database" API (409 on an empty repository, tree merging and `sha: null` deletions, byte-exact
 * commits whose SHA equals `git commit-tree`'s, fast-forward checks on refs, rate-limit answers),
 * and on the repository it writes staying valid for `git fsck --strict` and `git clone`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startGitHubStandin, type GitHubStandin } from './fixtures/github-standin.js';

const TOKEN = 'ghp_standin_token_0123456789';
const made: string[] = [];
const standins: GitHubStandin[] = [];

const cleanEnv: NodeJS.ProcessEnv = { ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('GIT_'))), GIT_CONFIG_NOSYSTEM: '1', HOME: tmpdir() };

function git(dir: string, args: string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}): string {
  return execFileSync('git', ['-C', dir, ...args], { env: { ...cleanEnv, ...options.env }, input: options.input ?? '', encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  made.push(dir);
  return dir;
}

function bareRepo(): string {
  const dir = join(tempDir('gh-standin'), 'remote.git');
  execFileSync('git', ['init', '-q', '--bare', dir], { env: cleanEnv });
  return dir;
}

async function start(bare: string): Promise<GitHubStandin> {
  const standin = await startGitHubStandin({ bareRepo: bare, owner: 'lodestone', repo: 'mirror', token: TOKEN });
  standins.push(standin);
  return standin;
}

interface Answer { status: number; headers: Headers; body: unknown }

/** A request to the stand-in; `path` is relative to /repos/lodestone/mirror unless it starts with '/'. */
async function api(standin: GitHubStandin, method: string, path: string, body?: unknown, token: string | null = TOKEN): Promise<Answer> {
  const url = path.startsWith('/') ? `${standin.url}${path}` : `${standin.url}/repos/lodestone/mirror${path === '' ? '' : `/${path}`}`;
  const headers: Record<string, string> = { accept: 'application/vnd.github+json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The property `key` of a JSON object answer (asserting it is an object). */
function field(value: unknown, ...keys: (string | number)[]): unknown {
  let current = value;
  for (const key of keys) {
    if (typeof key === 'number') {
      assert.ok(Array.isArray(current), `expected an array at ${key}`);
      current = current[key];
    } else {
      assert.ok(isRecord(current), `expected an object at ${key}: ${JSON.stringify(current)}`);
      current = current[key];
    }
  }
  return current;
}

const str = (value: unknown, ...keys: (string | number)[]): string => {
  const result = field(value, ...keys);
  assert.equal(typeof result, 'string', `expected a string at ${keys.join('.')}: ${JSON.stringify(value)}`);
  return result as string;
};

function expectError(answer: Answer, status: number, message: string | RegExp): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  if (typeof message === 'string') assert.equal(field(answer.body, 'message'), message);
  else assert.match(str(answer.body, 'message'), message);
  assert.match(str(answer.body, 'documentation_url'), /^https:\/\/docs\.github\.com\//);
}

/** path → [mode, type, sha] of a tree listed through git itself. */
function lsTree(bare: string, treeish: string): Map<string, string> {
  const out = git(bare, ['ls-tree', '-r', '-t', '-z', treeish]);
  return new Map(out.split('\0').filter(Boolean).map((line) => {
    const [meta, path] = line.split('\t') as [string, string];
    return [path, meta];
  }));
}

after(async () => {
  for (const standin of standins.splice(0)) await standin.close();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('GitHub stand-in', () => {
  let bare: string;
  let gh: GitHubStandin;
  let first: string;
  let firstTree: string;

  before(async () => {
    bare = bareRepo();
    gh = await start(bare);
  });

  it('answers 401 without the token, 404 elsewhere, and sends rate-limit headers on every response', async () => {
    expectError(await api(gh, 'GET', '', undefined, null), 401, 'Requires authentication');
    const wrong = await api(gh, 'GET', '', undefined, 'ghp_wrong');
    expectError(wrong, 401, 'Bad credentials');
    assert.equal(wrong.headers.get('x-ratelimit-limit'), '60');
    const tokenScheme = await fetch(`${gh.url}/repos/lodestone/mirror`, { headers: { authorization: `token ${TOKEN}` } });
    assert.equal(tokenScheme.status, 200);
    await tokenScheme.text();
    expectError(await api(gh, 'GET', '/repos/lodestone/other'), 404, 'Not Found');
    expectError(await api(gh, 'GET', '/user/repos'), 404, 'Not Found');
    expectError(await api(gh, 'GET', 'git/nonsense'), 404, 'Not Found');
    const a = await api(gh, 'GET', '');
    const b = await api(gh, 'GET', '/repos/LODESTONE/Mirror');
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.equal(a.headers.get('content-type'), 'application/json; charset=utf-8');
    for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-used', 'x-ratelimit-reset', 'x-ratelimit-resource', 'x-github-request-id']) assert.ok(a.headers.get(header), header);
    assert.equal(a.headers.get('x-ratelimit-limit'), '5000');
    assert.equal(a.headers.get('x-ratelimit-resource'), 'core');
    assert.equal(Number(b.headers.get('x-ratelimit-remaining')), Number(a.headers.get('x-ratelimit-remaining')) - 1);
    assert.equal(Number(b.headers.get('x-ratelimit-used')), Number(a.headers.get('x-ratelimit-used')) + 1);
    assert.ok(Number(a.headers.get('x-ratelimit-reset')) > Date.now() / 1000);
    assert.equal(field(a.body, 'name'), 'mirror');
    assert.equal(field(a.body, 'full_name'), 'lodestone/mirror');
    assert.equal(field(a.body, 'default_branch'), 'main');
    assert.equal(typeof field(a.body, 'private'), 'boolean');
    assert.equal(field(a.body, 'size'), 0);
  });

  it('answers 409 "Git Repository is empty." for git database endpoints on an empty repository', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', 'git/ref/heads/main'],
      ['GET', 'git/matching-refs/heads'],
      ['POST', 'git/blobs', { content: 'x', encoding: 'utf-8' }],
      ['POST', 'git/trees', { tree: [{ path: 'a', mode: '100644', type: 'blob', content: 'a' }] }],
      ['POST', 'git/commits', { message: 'm', tree: '4b825dc642cb6eb9a060e54bf8d69288fbee4904', parents: [] }],
      ['POST', 'git/refs', { ref: 'refs/heads/main', sha: '4b825dc642cb6eb9a060e54bf8d69288fbee4904' }],
    ];
    for (const [method, path, body] of calls) expectError(await api(gh, method, path, body), 409, 'Git Repository is empty.');
    assert.equal(git(bare, ['count-objects']).trim(), '0 objects, 0 kilobytes');
  });

  it('creates the first commit of an empty repository through the contents API', async () => {
    const created = await api(gh, 'PUT', 'contents/README.md', { message: 'Initial commit', content: Buffer.from('# Mirror\n').toString('base64') });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    first = str(created.body, 'commit', 'sha');
    firstTree = str(created.body, 'commit', 'tree', 'sha');
    assert.equal(str(created.body, 'content', 'path'), 'README.md');
    assert.equal(str(created.body, 'content', 'sha'), git(bare, ['rev-parse', 'main:README.md']).trim());
    assert.equal(git(bare, ['rev-parse', 'refs/heads/main']).trim(), first);
    assert.equal(git(bare, ['symbolic-ref', 'HEAD']).trim(), 'refs/heads/main');
    assert.equal(git(bare, ['show', 'main:README.md']), '# Mirror\n');
    assert.equal(git(bare, ['log', '-1', '--format=%an <%ae>%n%P%n%B', first]), 'Stand-in User <standin@users.noreply.github.com>\n\nInitial commit\n');
    assert.deepEqual(field(created.body, 'commit', 'parents'), []);

    const ref = await api(gh, 'GET', 'git/ref/heads/main');
    assert.equal(ref.status, 200);
    assert.equal(field(ref.body, 'ref'), 'refs/heads/main');
    assert.deepEqual(field(ref.body, 'object'), { sha: first, type: 'commit', url: `${gh.url}/repos/lodestone/mirror/git/commits/${first}` });
    assert.equal(typeof field(ref.body, 'node_id'), 'string');
    assert.equal(field(ref.body, 'url'), `${gh.url}/repos/lodestone/mirror/git/refs/heads/main`);
    expectError(await api(gh, 'GET', 'git/ref/heads/missing'), 404, 'Not Found');
    const repo = await api(gh, 'GET', '');
    assert.ok(Number(field(repo.body, 'size')) > 0);

    const content = Buffer.from('# Mirror, updated\n').toString('base64');
    expectError(await api(gh, 'PUT', 'contents/README.md', { message: 'no sha', content }), 422, 'Invalid request.\n\n"sha" wasn\'t supplied.');
    expectError(await api(gh, 'PUT', 'contents/README.md', { message: 'stale', content, sha: '1'.repeat(40) }), 409, /does not match/);
    const blob = git(bare, ['rev-parse', 'main:README.md']).trim();
    const updated = await api(gh, 'PUT', 'contents/README.md', { message: 'Update README', content, sha: blob });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    const second = str(updated.body, 'commit', 'sha');
    assert.equal(git(bare, ['rev-parse', 'main^']).trim(), first);
    assert.equal(git(bare, ['rev-parse', 'main']).trim(), second);
    // Back to the first commit so the later tests start from a single-commit history.
    const back = await api(gh, 'PATCH', 'git/refs/heads/main', { sha: first, force: true });
    assert.equal(back.status, 200);
  });

  it('stores blobs in utf-8 and base64 and returns them in GitHub\'s base64 (60 characters a line)', async () => {
    const text = 'héllo wörld\n';
    const utf8 = await api(gh, 'POST', 'git/blobs', { content: text, encoding: 'utf-8' });
    assert.equal(utf8.status, 201);
    assert.equal(str(utf8.body, 'sha'), git(bare, ['hash-object', '--stdin'], { input: text }).trim());
    assert.equal(str(utf8.body, 'url'), `${gh.url}/repos/lodestone/mirror/git/blobs/${str(utf8.body, 'sha')}`);
    const bytes = Buffer.from(Array.from({ length: 200 }, (_, i) => i));
    const b64 = await api(gh, 'POST', 'git/blobs', { content: bytes.toString('base64'), encoding: 'base64' });
    assert.equal(b64.status, 201);
    const sha = str(b64.body, 'sha');
    assert.deepEqual(execFileSync('git', ['-C', bare, 'cat-file', 'blob', sha], { env: cleanEnv }), bytes);
    const got = await api(gh, 'GET', `git/blobs/${sha}`);
    assert.equal(got.status, 200);
    assert.equal(field(got.body, 'encoding'), 'base64');
    assert.equal(field(got.body, 'size'), 200);
    const content = str(got.body, 'content');
    const lines = content.split('\n');
    assert.equal(lines.pop(), '');
    assert.ok(lines.slice(0, -1).every((line) => line.length === 60));
    assert.deepEqual(Buffer.from(content, 'base64'), bytes);
    expectError(await api(gh, 'GET', `git/blobs/${'0'.repeat(40)}`), 404, 'Not Found');
    expectError(await api(gh, 'POST', 'git/blobs', { encoding: 'utf-8' }), 422, 'Invalid request.\n\n"content" wasn\'t supplied.');
  });

  it('creates trees: base_tree merge, nested paths, inline content, sha null deletion, vanishing folders', async () => {
    const blob = str((await api(gh, 'POST', 'git/blobs', { content: 'data\n', encoding: 'utf-8' })).body, 'sha');
    const made1 = await api(gh, 'POST', 'git/trees', {
      base_tree: firstTree,
      tree: [
        { path: 'graphs/a/b.nt', mode: '100644', type: 'blob', sha: blob },
        { path: 'graphs/a/c.nt', mode: '100644', type: 'blob', content: 'inline\n' },
        { path: 'graphs/d.nt', mode: '100755', type: 'blob', content: '' },
        { path: 'only/file', mode: '100644', type: 'blob', content: 'x' },
      ],
    });
    assert.equal(made1.status, 201, JSON.stringify(made1.body));
    const t1 = str(made1.body, 'sha');
    assert.equal(field(made1.body, 'truncated'), false);
    const top = field(made1.body, 'tree') as unknown[];
    assert.deepEqual(top.map((e) => field(e, 'path')), ['README.md', 'graphs', 'only']);
    assert.equal(field(top[0], 'size'), 9);
    assert.equal(field(top[1], 'mode'), '040000');
    assert.equal(field(top[1], 'type'), 'tree');
    const listed = lsTree(bare, t1);
    assert.deepEqual([...listed.keys()].sort(), ['README.md', 'graphs', 'graphs/a', 'graphs/a/b.nt', 'graphs/a/c.nt', 'graphs/d.nt', 'only', 'only/file']);
    assert.equal(listed.get('graphs/a/b.nt'), `100644 blob ${blob}`);
    assert.match(listed.get('graphs/d.nt')!, /^100755 blob e69de29bb2d1d6434b8b29ae775ad8c2e48c5391$/);
    assert.equal(git(bare, ['cat-file', 'blob', `${t1}:graphs/a/c.nt`]), 'inline\n');

    const recursive = await api(gh, 'GET', `git/trees/${t1}?recursive=1`);
    assert.equal(recursive.status, 200);
    assert.deepEqual((field(recursive.body, 'tree') as unknown[]).map((e) => field(e, 'path')), [...listed.keys()]);
    const flat = await api(gh, 'GET', `git/trees/${t1}`);
    assert.equal((field(flat.body, 'tree') as unknown[]).length, 3);

    // Deleting the only file of a folder removes the folder; deleting one of two keeps it.
    const made2 = await api(gh, 'POST', 'git/trees', {
      base_tree: t1,
      tree: [
        { path: 'only/file', mode: '100644', type: 'blob', sha: null },
        { path: 'graphs/a/b.nt', mode: '100644', type: 'blob', sha: null },
        { path: 'graphs/a/c.nt', mode: '100644', type: 'blob', content: 'changed\n' },
      ],
    });
    assert.equal(made2.status, 201, JSON.stringify(made2.body));
    assert.deepEqual([...lsTree(bare, str(made2.body, 'sha')).keys()].sort(), ['README.md', 'graphs', 'graphs/a', 'graphs/a/c.nt', 'graphs/d.nt']);
    const made3 = await api(gh, 'POST', 'git/trees', { base_tree: str(made2.body, 'sha'), tree: [{ path: 'graphs/a/c.nt', mode: '100644', type: 'blob', sha: null }] });
    assert.deepEqual([...lsTree(bare, str(made3.body, 'sha')).keys()].sort(), ['README.md', 'graphs', 'graphs/d.nt']);

    // Without base_tree the tree holds only the listed entries; a tree entry combined with a nested path.
    const sub = git(bare, ['rev-parse', `${t1}:graphs`]).trim();
    const made4 = await api(gh, 'POST', 'git/trees', { tree: [{ path: 'g/a/new.nt', mode: '100644', type: 'blob', content: 'n' }, { path: 'g', mode: '040000', type: 'tree', sha: sub }] });
    assert.equal(made4.status, 201, JSON.stringify(made4.body));
    assert.deepEqual([...lsTree(bare, str(made4.body, 'sha')).keys()].sort(), ['g', 'g/a', 'g/a/b.nt', 'g/a/c.nt', 'g/a/new.nt', 'g/d.nt']);
    const emptied = await api(gh, 'POST', 'git/trees', { base_tree: str(made3.body, 'sha'), tree: [{ path: 'README.md', mode: '100644', type: 'blob', sha: null }, { path: 'graphs/d.nt', mode: '100755', type: 'blob', sha: null }] });
    assert.equal(str(emptied.body, 'sha'), '4b825dc642cb6eb9a060e54bf8d69288fbee4904');

    // Errors.
    expectError(await api(gh, 'POST', 'git/trees', { base_tree: t1, tree: [{ path: 'nope.txt', mode: '100644', type: 'blob', sha: null }] }), 422, 'GitRPC::BadObjectState');
    expectError(await api(gh, 'POST', 'git/trees', { base_tree: t1, tree: [{ path: 'x', mode: '100644', type: 'blob', sha: blob, content: 'x' }] }), 422, /^Must supply either tree\.sha or tree\.content/);
    expectError(await api(gh, 'POST', 'git/trees', { tree: [{ path: 'x', mode: '100644', type: 'blob' }] }), 422, /^Must supply either tree\.sha or tree\.content/);
    expectError(await api(gh, 'POST', 'git/trees', { tree: [{ path: 'x', mode: '100644', type: 'blob', sha: '1'.repeat(40) }] }), 422, /is not a valid blob/);
    expectError(await api(gh, 'POST', 'git/trees', { tree: [{ path: 'x', mode: '100600', type: 'blob', content: 'x' }] }), 422, 'Invalid tree info');
    expectError(await api(gh, 'POST', 'git/trees', { tree: [{ path: 'a/../x', mode: '100644', type: 'blob', content: 'x' }] }), 422, 'Invalid tree info');
    expectError(await api(gh, 'POST', 'git/trees', { tree: [{ path: '.git/config', mode: '100644', type: 'blob', content: 'x' }] }), 422, 'Invalid tree info');
    expectError(await api(gh, 'POST', 'git/trees', { base_tree: first, tree: [] }), 422, 'base_tree is not a valid tree oid');
    expectError(await api(gh, 'POST', 'git/trees', { base_tree: '2'.repeat(40), tree: [] }), 422, 'base_tree is not a valid tree oid');
    expectError(await api(gh, 'GET', `git/trees/${'2'.repeat(40)}`), 404, 'Not Found');
  });

  it('writes commits byte-exactly: the SHA equals git commit-tree\'s with the same identities, dates and message', async () => {
    const tree = str((await api(gh, 'POST', 'git/trees', { base_tree: firstTree, tree: [{ path: 'graphs/x.nt', mode: '100644', type: 'blob', content: '<a> <b> <c> .\n' }] })).body, 'sha');
    const message = 'PUT https://localhost:4443/x/\n\nSecond line\nno trailing newline';
    const author = { name: 'Ada Lovelace', email: 'ada@example.org', date: '2026-11-22T05:00:00+01:00' };
    const committer = { name: 'Lodestone', email: 'lodestone@example.invalid', date: '2026-11-22T04:30:15Z' };
    const created = await api(gh, 'POST', 'git/commits', { message, tree, parents: [first], author, committer });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const sha = str(created.body, 'sha');

    const other = join(tempDir('gh-standin-other'), 'copy.git');
    execFileSync('git', ['clone', '-q', '--bare', bare, other], { env: cleanEnv });
    git(other, ['cat-file', '-e', `${tree}^{tree}`]); // a local clone copies every object, the new tree included
    const expected = git(other, ['commit-tree', tree, '-p', first], {
      input: message,
      env: { GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email, GIT_AUTHOR_DATE: author.date, GIT_COMMITTER_NAME: committer.name, GIT_COMMITTER_EMAIL: committer.email, GIT_COMMITTER_DATE: committer.date },
    }).trim();
    assert.equal(sha, expected);
    const raw = git(bare, ['cat-file', 'commit', sha]);
    assert.equal(raw, `tree ${tree}\nparent ${first}\nauthor Ada Lovelace <ada@example.org> 1795320000 +0100\ncommitter Lodestone <lodestone@example.invalid> 1795321815 +0000\n\n${message}`);

    assert.equal(field(created.body, 'message'), message);
    assert.deepEqual(field(created.body, 'author'), { name: author.name, email: author.email, date: '2026-11-22T04:00:00Z' });
    assert.deepEqual(field(created.body, 'committer'), { name: committer.name, email: committer.email, date: '2026-11-22T04:30:15Z' });
    assert.deepEqual(field(created.body, 'tree'), { sha: tree, url: `${gh.url}/repos/lodestone/mirror/git/trees/${tree}` });
    assert.equal(field(created.body, 'parents', 0, 'sha'), first);
    assert.equal(field(created.body, 'html_url'), `https://github.com/lodestone/mirror/commit/${sha}`);
    assert.deepEqual(field(created.body, 'verification'), { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null });
    const got = await api(gh, 'GET', `git/commits/${sha}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, created.body);

    // Committer defaults to the author (date included); a root commit with an empty message.
    const root = await api(gh, 'POST', 'git/commits', { message: '', tree, author });
    assert.equal(root.status, 201);
    const rootSha = str(root.body, 'sha');
    assert.equal(git(bare, ['cat-file', 'commit', rootSha]), `tree ${tree}\nauthor Ada Lovelace <ada@example.org> 1795320000 +0100\ncommitter Ada Lovelace <ada@example.org> 1795320000 +0100\n\n`);
    const rootExpected = git(other, ['commit-tree', tree], { input: '', env: { GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email, GIT_AUTHOR_DATE: author.date, GIT_COMMITTER_NAME: author.name, GIT_COMMITTER_EMAIL: author.email, GIT_COMMITTER_DATE: author.date } }).trim();
    assert.equal(rootSha, rootExpected);
    // Names and emails are cleaned as git's ident code does; dates with fractions and negative offsets.
    for (const [name, email, date] of [['J. Doe Jr.', ' <j@x.org> ', '1999-12-31T23:59:59-05:30'], ['  "Zoë" O\'Brien 🚀 ', 'a@b', '2026-01-01T00:00:00.750Z'], ['a<b>c', '"q"@x', '1970-01-01T00:00:00Z']] as const) {
      const odd = await api(gh, 'POST', 'git/commits', { message: `odd\n\n\n${name}\n\n`, tree, parents: [first], author: { name, email, date } });
      assert.equal(odd.status, 201, JSON.stringify(odd.body));
      const env = { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_AUTHOR_DATE: date, GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: email, GIT_COMMITTER_DATE: date };
      assert.equal(str(odd.body, 'sha'), git(other, ['commit-tree', tree, '-p', first], { input: `odd\n\n\n${name}\n\n`, env }).trim(), name);
    }
    // No author: the authenticated user, now.
    const before = Math.floor(Date.now() / 1000);
    const anonymous = await api(gh, 'POST', 'git/commits', { message: 'm\n', tree, parents: [first] });
    assert.equal(str(anonymous.body, 'author', 'name'), 'Stand-in User');
    assert.ok(Date.parse(str(anonymous.body, 'committer', 'date')) / 1000 >= before);

    expectError(await api(gh, 'POST', 'git/commits', { message: 'm', tree: '3'.repeat(40), parents: [] }), 422, 'Tree SHA does not exist');
    expectError(await api(gh, 'POST', 'git/commits', { message: 'm', tree, parents: ['3'.repeat(40)] }), 422, 'Parent SHA does not exist or is not a commit object');
    expectError(await api(gh, 'POST', 'git/commits', { message: 'm', tree, parents: [tree] }), 422, 'Parent SHA does not exist or is not a commit object');
    expectError(await api(gh, 'POST', 'git/commits', { tree, parents: [] }), 422, 'Invalid request.\n\n"message" wasn\'t supplied.');
    expectError(await api(gh, 'POST', 'git/commits', { message: 'm', tree, author: { ...author, date: 'yesterday' } }), 422, /is not a valid date-time/);
    expectError(await api(gh, 'GET', `git/commits/${'3'.repeat(40)}`), 404, 'Not Found');
  });

  it('creates, fast-forwards, force-updates and deletes refs with GitHub\'s 422s', async () => {
    const tree = str((await api(gh, 'POST', 'git/trees', { base_tree: firstTree, tree: [{ path: 'f', mode: '100644', type: 'blob', content: '1' }] })).body, 'sha');
    const commit = async (parents: string[], message: string) => str((await api(gh, 'POST', 'git/commits', { message, tree, parents })).body, 'sha');
    const c2 = await commit([first], 'two');
    const c3 = await commit([c2], 'three');
    const side = await commit([first], 'side');

    const created = await api(gh, 'POST', 'git/refs', { ref: 'refs/heads/feature', sha: c2 });
    assert.equal(created.status, 201);
    assert.equal(field(created.body, 'ref'), 'refs/heads/feature');
    assert.equal(field(created.body, 'object', 'sha'), c2);
    assert.equal(git(bare, ['rev-parse', 'refs/heads/feature']).trim(), c2);
    expectError(await api(gh, 'POST', 'git/refs', { ref: 'refs/heads/feature', sha: c3 }), 422, 'Reference already exists');
    expectError(await api(gh, 'POST', 'git/refs', { ref: 'refs/heads/new', sha: '4'.repeat(40) }), 422, 'Object does not exist');
    expectError(await api(gh, 'POST', 'git/refs', { ref: 'heads/new', sha: c2 }), 422, /three slash-separated components/);
    expectError(await api(gh, 'POST', 'git/refs', { ref: 'refs/new', sha: c2 }), 422, /three slash-separated components/);
    expectError(await api(gh, 'POST', 'git/refs', { ref: 'refs/heads/bad..name', sha: c2 }), 422, 'refs/heads/bad..name is not a valid ref name.');
    expectError(await api(gh, 'POST', 'git/refs', { ref: 'refs/heads/x' }), 422, 'Invalid request.\n\n"sha" wasn\'t supplied.');

    const ff = await api(gh, 'PATCH', 'git/refs/heads/feature', { sha: c3 });
    assert.equal(ff.status, 200);
    assert.equal(field(ff.body, 'object', 'sha'), c3);
    expectError(await api(gh, 'PATCH', 'git/refs/heads/feature', { sha: side }), 422, 'Update is not a fast forward');
    expectError(await api(gh, 'PATCH', 'git/refs/heads/feature', { sha: c2, force: false }), 422, 'Update is not a fast forward');
    assert.equal(git(bare, ['rev-parse', 'refs/heads/feature']).trim(), c3);
    const forced = await api(gh, 'PATCH', 'git/refs/heads/feature', { sha: side, force: true });
    assert.equal(forced.status, 200);
    assert.equal(git(bare, ['rev-parse', 'refs/heads/feature']).trim(), side);
    expectError(await api(gh, 'PATCH', 'git/refs/heads/nothing', { sha: c2 }), 422, 'Reference does not exist');
    expectError(await api(gh, 'PATCH', 'git/refs/refs/heads/feature', { sha: c2 }), 422, 'Reference does not exist');
    expectError(await api(gh, 'PATCH', 'git/refs/heads/feature', { sha: '5'.repeat(40), force: true }), 422, 'Object does not exist');

    const matching = await api(gh, 'GET', 'git/matching-refs/heads/feat');
    assert.deepEqual((matching.body as unknown[]).map((r) => field(r, 'ref')), ['refs/heads/feature']);
    const none = await api(gh, 'GET', 'git/matching-refs/heads/zzz');
    assert.equal(none.status, 200);
    assert.deepEqual(none.body, []);

    const deleted = await api(gh, 'DELETE', 'git/refs/heads/feature');
    assert.equal(deleted.status, 204);
    assert.equal(deleted.body, undefined);
    expectError(await api(gh, 'DELETE', 'git/refs/heads/feature'), 422, 'Reference does not exist');
    expectError(await api(gh, 'GET', 'git/ref/heads/feature'), 404, 'Not Found');

    // The usual push: blob → tree → commit → fast-forward main.
    const main = await api(gh, 'PATCH', 'git/refs/heads/main', { sha: c3 });
    assert.equal(main.status, 200);
    assert.equal(git(bare, ['rev-parse', 'main']).trim(), c3);
  });

  it('injects primary and secondary rate limits with GitHub\'s headers and bodies', async () => {
    const seen = gh.requests.length;
    gh.rateLimit('primary', 2, { resetSeconds: 30 });
    for (let i = 0; i < 2; i++) {
      const limited = await api(gh, 'GET', 'git/ref/heads/main');
      expectError(limited, 403, 'API rate limit exceeded for user ID 1.');
      assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');
      assert.equal(limited.headers.get('x-ratelimit-limit'), '5000');
      const reset = Number(limited.headers.get('x-ratelimit-reset'));
      assert.ok(Math.abs(reset - (Date.now() / 1000 + 30)) <= 2, `reset ${reset}`);
      assert.equal(limited.headers.get('retry-after'), null);
    }
    assert.equal((await api(gh, 'GET', 'git/ref/heads/main')).status, 200);

    gh.rateLimit('secondary', 1, { retryAfterSeconds: 7 });
    gh.rateLimit('secondary', 1, { retryAfterSeconds: 3, status: 429 });
    const s1 = await api(gh, 'POST', 'git/blobs', { content: 'x' });
    expectError(s1, 403, /^You have exceeded a secondary rate limit\. Please wait a few minutes before you try again/);
    assert.equal(s1.headers.get('retry-after'), '7');
    assert.match(str(s1.body, 'documentation_url'), /secondary-rate-limits/);
    const s2 = await api(gh, 'POST', 'git/blobs', { content: 'x' });
    expectError(s2, 429, /secondary rate limit/);
    assert.equal(s2.headers.get('retry-after'), '3');
    assert.equal((await api(gh, 'POST', 'git/blobs', { content: 'x' })).status, 201);

    const log = gh.requests.slice(seen);
    assert.deepEqual(log.map((r) => [r.method, r.path, r.status]), [
      ['GET', '/repos/lodestone/mirror/git/ref/heads/main', 403],
      ['GET', '/repos/lodestone/mirror/git/ref/heads/main', 403],
      ['GET', '/repos/lodestone/mirror/git/ref/heads/main', 200],
      ['POST', '/repos/lodestone/mirror/git/blobs', 403],
      ['POST', '/repos/lodestone/mirror/git/blobs', 429],
      ['POST', '/repos/lodestone/mirror/git/blobs', 201],
    ]);
    assert.ok(log.every((r, i) => i === 0 || r.at >= log[i - 1]!.at));
  });

  it('serialises concurrent requests: of racing fast-forwards from one head exactly one wins', async () => {
    const head = git(bare, ['rev-parse', 'main']).trim();
    const tree = git(bare, ['rev-parse', 'main^{tree}']).trim();
    const children = await Promise.all(Array.from({ length: 6 }, async (_, i) => str((await api(gh, 'POST', 'git/commits', { message: `race ${i}`, tree, parents: [head] })).body, 'sha')));
    const answers = await Promise.all(children.map((sha) => api(gh, 'PATCH', 'git/refs/heads/main', { sha })));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 422, 422, 422, 422, 422]);
    const winner = children[answers.findIndex((a) => a.status === 200)];
    assert.equal(git(bare, ['rev-parse', 'main']).trim(), winner);
    assert.ok(answers.filter((a) => a.status === 422).every((a) => field(a.body, 'message') === 'Update is not a fast forward'));
    const back = await api(gh, 'PATCH', 'git/refs/heads/main', { sha: head, force: true });
    assert.equal(back.status, 200);
  });

  it('leaves a repository that passes git fsck --strict and clones with the pushed history', () => {
    git(bare, ['fsck', '--strict', '--no-progress']);
    const work = join(tempDir('gh-standin-clone'), 'work');
    execFileSync('git', ['clone', '-q', bare, work], { env: cleanEnv });
    assert.equal(git(work, ['rev-parse', 'HEAD']).trim(), git(bare, ['rev-parse', 'main']).trim());
    assert.equal(readFileSync(join(work, 'f'), 'utf8'), '1');
    assert.equal(readFileSync(join(work, 'README.md'), 'utf8'), '# Mirror\n');
    assert.equal(git(work, ['rev-list', '--count', 'HEAD']).trim(), '3');
  });
});

describe('GitHub stand-in on a non-default branch', () => {
  it('creates the first commit on the requested branch and keeps the repository valid', async () => {
    const bare = bareRepo();
    const gh = await startGitHubStandin({ bareRepo: bare, owner: 'lodestone', repo: 'mirror', token: TOKEN, defaultBranch: 'trunk' });
    standins.push(gh);
    assert.equal(field((await api(gh, 'GET', '')).body, 'default_branch'), 'trunk');
    const created = await api(gh, 'PUT', 'contents/docs/a%20b.txt', { message: 'first\n', content: Buffer.from('ab').toString('base64'), branch: 'seed' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(str(created.body, 'content', 'path'), 'docs/a b.txt');
    assert.equal(git(bare, ['show', 'seed:docs/a b.txt']), 'ab');
    expectError(await api(gh, 'PUT', 'contents/x.txt', { message: 'm', content: 'eA==', branch: 'nope' }), 404, 'Branch nope not found');
    expectError(await api(gh, 'PUT', 'contents/x.txt', { message: 'm', content: '!!!', branch: 'seed' }), 422, 'content is not valid Base64');
    expectError(await api(gh, 'GET', 'git/ref/heads/trunk'), 404, 'Not Found');
    assert.equal((await api(gh, 'GET', 'git/ref/heads/seed')).status, 200);
    git(bare, ['fsck', '--strict', '--no-progress']);
  });
});
