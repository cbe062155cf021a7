import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parseCommand } from '../src/config.js';
import { commitCount, git, headOf, tempDir } from './helpers.js';
import { type TestServer, serverForFile } from './http-helpers.js';
import { ROOT } from './root.js';

const run = promisify(execFile);
let s: TestServer;
let dir: string;

serverForFile(async (server, repo) => {
  s = server;
  dir = repo;
}, [], { tls: true }); // a real client over the wire

async function lodestone(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/lodestone.js', ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('flags', () => {
  const specs = { 'if-match': { type: 'string' as const, description: '' }, cert: { type: 'string' as const, description: '' }, insecure: { type: 'boolean' as const, description: '' } };
  it('takes a value that starts with a dash (an ETag whose digest does) after its flag', () => {
    // the test below failed now and then before: parseArgs refused `--if-match -Zq…` as ambiguous
    assert.equal(parseCommand(specs, ['--if-match', '-Zq3_x', '--insecure']).values['if-match'], '-Zq3_x');
    assert.equal(parseCommand(specs, ['--if-match', '--Zq3', 'url']).values['if-match'], '--Zq3');
    assert.equal(parseCommand(specs, ['--if-match=-Zq3']).values['if-match'], '-Zq3');
  });
  it('still refuses a flag followed by another flag: a forgotten value', () => {
    assert.throws(() => parseCommand(specs, ['--cert', '--insecure']), /ambiguous/);
    assert.throws(() => parseCommand(specs, ['--cert', '--if-match=x']), /ambiguous/);
  });
});

describe('lodestone get, put, patch, delete', () => {
  it('writes and reads a document over the API with a client certificate', async () => {
    const owner = s.running.agents.owner.credentialsFile;
    const files = tempDir('cli');
    const doc = `${s.base}from-cli/`;
    writeFileSync(join(files, 'doc.ttl'), '<#this> <http://purl.org/dc/terms/title> "From the CLI" .\n');
    const put = await lodestone('put', doc, '--cert', owner, '--insecure', '--file', join(files, 'doc.ttl'));
    assert.equal(put.code, 0, put.stderr);
    assert.match(put.stderr, /^ETag: "[^"]+"\n201 /m);
    const get = await lodestone('get', doc, '--cert', owner, '--insecure', '--accept', 'application/n-triples');
    assert.equal(get.code, 0, get.stderr);
    assert.match(get.stdout, /"From the CLI"/);
    const etag = /ETag: (".*")/.exec(get.stderr)![1]!;
    const commits = commitCount(dir);
    writeFileSync(join(files, 'update.rq'), 'DELETE { <#this> <http://purl.org/dc/terms/title> ?t } INSERT { <#this> <http://purl.org/dc/terms/title> "Patched" } WHERE { <#this> <http://purl.org/dc/terms/title> ?t }');
    const patch = await lodestone('patch', doc, '--cert', owner, '--insecure', '--file', join(files, 'update.rq'), '--if-match', etag, '--accept', 'application/n-triples');
    assert.equal(patch.code, 0, patch.stderr);
    assert.equal(commitCount(dir), commits + 1);
    const stale = await lodestone('delete', doc, '--cert', owner, '--insecure', '--if-match', etag, '--accept', 'application/n-triples');
    assert.equal(stale.code, 1);
    assert.match(stale.stderr, /^412: /);
    const head = headOf(dir);
    const anonymous = await lodestone('put', doc, '--insecure', '--file', join(files, 'doc.ttl'));
    assert.equal(anonymous.code, 1);
    assert.match(anonymous.stderr, /^403: anonymous agents have no Write access to/);
    assert.equal(headOf(dir), head);
  });

  it('explains itself: per-command help, --version, no command, and what to do next', async () => {
    const help = await lodestone('put', '--help');
    assert.match(help.stdout, /--cert <value>/);
    assert.match(help.stdout, /--if-match <value>/);
    const getHelp = await lodestone('get', '--help');
    assert.doesNotMatch(getHelp.stdout, /--file|--if-match/, 'get lists only what it takes');
    const missing = await lodestone('get');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /needs a document URL/);
    const version = await lodestone('--version');
    assert.equal(version.code, 0);
    assert.match(version.stdout, /^lodestone \d+\.\d+\.\d+\n$/);
    const none = await lodestone();
    assert.equal(none.code, 2);
    assert.match(none.stderr, /Usage: lodestone <command>/);
    const untrusted = await lodestone('get', s.base, '--cert', s.running.agents.owner.credentialsFile);
    assert.equal(untrusted.code, 1);
    assert.match(untrusted.stderr, /certificate is not trusted .*add --insecure/);
    const anonymous = await lodestone('get', s.base, '--insecure');
    assert.equal(anonymous.code, 1);
    assert.match(anonymous.stderr, /^403: .*pass --cert with your certificate/);
  });

  it('lists a document\'s versions, and takes an ETag typed without its quotes', async () => {
    const owner = s.running.agents.owner.credentialsFile;
    const files = tempDir('cli-history');
    const doc = `${s.base}cli-history/`;
    writeFileSync(join(files, 'doc.ttl'), '<#this> <http://purl.org/dc/terms/title> "One" .\n');
    assert.equal((await lodestone('put', doc, '--cert', owner, '--insecure', '--file', join(files, 'doc.ttl'))).code, 0);
    const get = await lodestone('get', doc, '--cert', owner, '--insecure');
    const bare = /ETag: "(.*)"/.exec(get.stderr)![1]!;
    writeFileSync(join(files, 'doc.ttl'), '<#this> <http://purl.org/dc/terms/title> "Two" .\n');
    const put = await lodestone('put', doc, '--cert', owner, '--insecure', '--file', join(files, 'doc.ttl'), '--if-match', bare);
    assert.equal(put.code, 0, put.stderr);
    const history = await lodestone('history', doc, '--cert', owner, '--insecure');
    assert.equal(history.code, 0, history.stderr);
    const lines = history.stdout.trim().split('\n');
    assert.equal(lines.length, 2, history.stdout);
    for (const line of lines) assert.match(line, new RegExp(`^\\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z  [0-9a-f]{40}  ${doc.replace(/[.?]/g, '\\$&')}\\?version=[0-9a-f]{40}$`));
  });
});

describe('npx lodestone', () => {
  it('after npm install, runs the linked command without npx installing the project into its cache', async () => {
    // npm 11's npx takes a command named by the project's own package.json "bin" as a package to
    // install into its npx cache (libnpmexec hasPkgBin: Arborist reads all node_modules, 1.2–1.5 s);
    // a command in node_modules/.bin, which "prepare" links, it runs at once
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin?: unknown; scripts: { prepare: string } };
    assert.equal(manifest.bin, undefined, 'a "bin" in package.json sends npx down its install path');
    const link = manifest.scripts.prepare.split('&&').map((part) => part.trim()).find((part) => part.includes('link-bin'));
    assert.ok(link, `prepare links the command: ${manifest.scripts.prepare}`);
    const project = tempDir('npx-project');
    writeFileSync(join(project, 'package.json'), JSON.stringify(manifest));
    symlinkSync(join(ROOT, 'bin'), join(project, 'bin'));
    const [tool, ...args] = link.split(' ');
    await run(join(ROOT, 'node_modules', '.bin', tool!), args.map((arg) => (arg.startsWith('scripts/') ? join(ROOT, arg) : arg)), { cwd: project });
    const cache = tempDir('npx-cache');
    const env = { ...process.env, npm_config_cache: cache, npm_config_update_notifier: 'false', npm_config_offline: 'true' };
    const { stdout } = await run('npx', ['lodestone', '--version'], { cwd: project, env });
    assert.match(stdout, /^lodestone \d+\.\d+\.\d+\n$/);
    assert.ok(!existsSync(join(cache, '_npx')), 'npx installed the project into its cache');
  });
});

describe('lodestone path', () => {
  it('prints the file that holds a document, in the dataspace its URL is under, for editing with git', async () => {
    const owner = s.running.agents.owner.credentialsFile;
    const files = tempDir('cli-path');
    writeFileSync(join(files, 'doc.ttl'), '<#this> <http://purl.org/dc/terms/title> "Where am I" .\n');
    writeFileSync(join(files, 'container.ttl'), '<> a <https://w3id.org/atomgraph/linkeddatahub/document-hierarchy#Container> .\n');
    const doc = `${s.base}path%20test/a%2Fb/root/`;
    for (const url of [`${s.base}path%20test/`, `${s.base}path%20test/a%2Fb/`, doc]) {
      const put = await lodestone('put', url, '--cert', owner, '--insecure', '--file', join(files, url === doc ? 'doc.ttl' : 'container.ttl'));
      assert.equal(put.code, 0, put.stderr);
    }
    const printed = await lodestone('path', `${doc}#this`, '--data', s.data);
    assert.equal(printed.code, 0, printed.stderr);
    const file = printed.stdout.trim();
    assert.equal(file, join(dir, 'graphs', 'path test', 'a%2Fb', 'root.nt'));
    assert.match(readFileSync(file, 'utf8'), /"Where am I"/, 'the working tree holds it there');
    assert.match(git(dir, 'log', '--format=%s', '--', relative(dir, file)), new RegExp(`^PUT ${doc.replace(/[.?*+^$()[\]\\|{}]/g, '\\$&')}$`, 'm'), 'and git knows its history by that path');
    const admin = await lodestone('path', `${s.admin}acl/authorizations/x/`, '--data', s.data);
    assert.match(admin.stdout.trim(), /dataspaces\/admin\/graphs\/acl\/authorizations\/x\.nt$/, 'the longest base wins: the admin dataspace');
    const root = await lodestone('path', s.base, '--data', s.data);
    assert.equal(root.stdout.trim(), join(dir, 'graphs', 'root.nt'));
    const wrong = await lodestone('path', `${s.base}a/../b/`, '--data', s.data);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /not allowed: it has a "\." or "\.\." segment/);
    const elsewhere = await lodestone('path', 'https://example.org/a/', '--data', s.data);
    assert.match(elsewhere.stderr, /no dataspace in .* holds https:\/\/example\.org\/a\/; their bases: /);
    const help = await lodestone('path', '--help');
    assert.match(help.stdout, /--data <value>/);
  });
});
