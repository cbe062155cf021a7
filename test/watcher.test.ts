import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Dataspace } from '../src/dataspace.js';
import { commitCount, git, graphsAtHead, graphsInIndex, nt, removeTempDirs, tempDir, waitFor } from './helpers.js';

const base = 'https://localhost:4443/';
let dir: string;
let ds: Dataspace;
const logs: string[] = [];

before(async () => {
  dir = tempDir('watch');
  ds = await Dataspace.open({ id: 'test', base, dir, watch: true, log: (line) => logs.push(line) });
  await ds.put('', nt(`<${base}> <http://purl.org/dc/terms/title> "root" .\n`), 'https://localhost:4443/admin/acl/agents/1/#this');
  await ds.settled();
});
after(async () => {
  await ds.close();
  removeTempDirs();
});

async function indexEqualsHead(): Promise<boolean> {
  const [index, truth] = await Promise.all([ds.index.dump().then(graphsInIndex), graphsAtHead(dir, base)]);
  return JSON.stringify([...index].sort()) === JSON.stringify([...truth].sort());
}

/** `<blob id> <path>` of every stage-0 entry of the git index (git CLI). */
function indexEntries(): string[] {
  const lines = git(dir, 'ls-files', '-s', '-z').split('\0').filter(Boolean);
  return lines.map((line) => line.replace(/^\d+ ([0-9a-f]{40}) 0\t/, '$1 ')).sort();
}

/** `<blob id> <path>` of every file at HEAD (git CLI). */
function headFiles(): string[] {
  const lines = git(dir, 'ls-tree', '-r', '-z', 'HEAD').split('\0').filter(Boolean);
  return lines.map((line) => line.replace(/^\d+ blob ([0-9a-f]{40})\t/, '$1 ')).sort();
}

describe('the git index kept by the disk worker', () => {
  it('lists every document with HEAD’s blob id after writes to several documents', async () => {
    for (let i = 0; i < 6; i++) await ds.put(`many/d${i}/`, nt(`<${base}many/d${i}/> <http://ex/p> "${i}" .\n`));
    await ds.put('many/d0/', nt(`<${base}many/d0/> <http://ex/p> "changed" .\n`));
    await ds.delete('many/d5/');
    await ds.settled();
    assert.equal(git(dir, 'diff-files'), '', 'every entry’s stat data matches its file');
    assert.equal(git(dir, 'diff-index', '--cached', 'HEAD'), '', 'every entry has HEAD’s blob');
    assert.equal(git(dir, 'status', '--porcelain'), '');
    assert.deepEqual(indexEntries(), headFiles());
    assert.ok(indexEntries().some((entry) => entry.endsWith(' graphs/many/d4.nt')));
    git(dir, 'fsck', '--strict');
  });

  it('keeps an entry someone added with git add outside the prefix through later syncs', async () => {
    writeFileSync(join(dir, 'README.md'), 'read me\n');
    git(dir, 'add', 'README.md');
    const added = git(dir, 'ls-files', '-s', 'README.md');
    assert.notEqual(added, '');
    for (let i = 0; i < 3; i++) {
      await ds.put(`readme${i}/`, nt(`<${base}readme${i}/> <http://ex/p> "${i}" .\n`));
      await ds.settled();
      assert.equal(git(dir, 'ls-files', '-s', 'README.md'), added);
    }
    assert.equal(git(dir, 'status', '--porcelain'), 'A  README.md\n');
    git(dir, 'rm', '-q', '--cached', 'README.md');
    rmSync(join(dir, 'README.md'));
  });

  it('starts each sync from the index file on disk when someone rewrote it since the last one', async () => {
    await ds.put('behind/a/', nt(`<${base}behind/a/> <http://ex/p> "a" .\n`));
    await ds.settled();
    writeFileSync(join(dir, 'notes.txt'), 'notes\n');
    git(dir, 'add', 'notes.txt'); // the index gains an entry the worker has not seen
    await ds.put('behind/b/', nt(`<${base}behind/b/> <http://ex/p> "b" .\n`));
    await ds.settled();
    assert.notEqual(git(dir, 'ls-files', 'notes.txt'), '', 'the entry git added is kept');
    git(dir, 'rm', '-q', '--cached', 'notes.txt'); // the index loses an entry the worker holds
    git(dir, 'update-index', '--refresh');
    await ds.put('behind/c/', nt(`<${base}behind/c/> <http://ex/p> "c" .\n`));
    await ds.settled();
    assert.equal(git(dir, 'ls-files', 'notes.txt'), '', 'the entry git removed is not brought back');
    rmSync(join(dir, 'notes.txt'));
    assert.equal(git(dir, 'status', '--porcelain'), '');
    assert.deepEqual(indexEntries(), headFiles());
    git(dir, 'fsck', '--strict');
  });
});

describe('the watcher', () => {
  it('leaves a working tree and git index that agree with HEAD', async () => {
    await ds.put('a/', nt(`<${base}a/> <http://ex/p> "a" .\n`));
    await ds.settled();
    assert.equal(git(dir, 'status', '--porcelain'), '');
    assert.equal(readFileSync(join(dir, 'graphs/a.nt'), 'utf8'), `<${base}a/> <http://ex/p> "a" .\n`);
    git(dir, 'fsck', '--strict');
  });

  it('does not turn the server’s own writes into further commits', async () => {
    const before = commitCount(dir);
    for (let i = 0; i < 5; i++) await ds.put(`own${i}/`, nt(`<${base}own${i}/> <http://ex/p> "${i}" .\n`));
    await ds.settled();
    await new Promise((r) => setTimeout(r, 300));
    await ds.settled();
    assert.equal(commitCount(dir), before + 5);
    assert.equal(git(dir, 'status', '--porcelain'), '');
  });

  it('brings a commit made with the git CLI into the index', async () => {
    mkdirSync(join(dir, 'graphs/cli'), { recursive: true });
    writeFileSync(join(dir, 'graphs/cli/x.nt'), `<${base}cli/x/> <http://ex/p> "from git" .\n`);
    git(dir, 'add', 'graphs/cli/x.nt');
    git(dir, 'commit', '-q', '-m', 'commit from the git CLI');
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const waited = await waitFor(async () => ds.index.indexedCommit === head && (await ds.index.dump()).includes('"from git"'));
    assert.ok(await indexEqualsHead());
    assert.equal(ds.store.head, head);
    assert.equal(commitCount(dir), Number(git(dir, 'rev-list', '--count', head).trim()), 'no extra commit for a committed file');
    await ds.settled();
    assert.equal(git(dir, 'status', '--porcelain'), '');
    console.log(`# external commit reached the index after ${waited} ms`);
  });

  it('commits a valid edit of a .nt file in canonical form, as the working tree', async () => {
    const before = commitCount(dir);
    writeFileSync(join(dir, 'graphs/a.nt'), `<${base}a/> <http://ex/q> _:n .\n<${base}a/> <http://ex/p> "edited" .\n_:n <http://ex/p> "x" .\n<${base}a/> <http://ex/p> "edited" .\n`);
    await waitFor(() => commitCount(dir) === before + 1);
    await ds.settled();
    const [author, committer, subject] = git(dir, 'log', '-1', '--format=%an <%ae>%n%cn%n%s').trim().split('\n');
    assert.equal(author, 'hand edit <hand-edit@lodestone.invalid>', 'authored as what it is: no agent, nor an anonymous request');
    assert.equal(committer, 'Lodestone (working tree)');
    assert.equal(subject, `PUT ${base}a/`);
    const canonical = `<${base}a/> <http://ex/p> "edited" .\n<${base}a/> <http://ex/q> _:c14n0 .\n_:c14n0 <http://ex/p> "x" .\n`;
    assert.equal(git(dir, 'cat-file', 'blob', 'HEAD:graphs/a.nt'), canonical);
    await waitFor(() => readFileSync(join(dir, 'graphs/a.nt'), 'utf8') === canonical);
    await ds.settled();
    assert.equal(git(dir, 'status', '--porcelain'), '');
    assert.ok(await indexEqualsHead());
  });

  it('commits a new file and a deleted file', async () => {
    const before = commitCount(dir);
    writeFileSync(join(dir, 'graphs/new.nt'), `<${base}new/> <http://ex/p> "new" .\n`);
    await waitFor(() => commitCount(dir) === before + 1);
    rmSync(join(dir, 'graphs/own0.nt'));
    await waitFor(() => commitCount(dir) === before + 2);
    await ds.settled();
    assert.equal(git(dir, 'log', '-2', '--format=%s').trim(), `DELETE ${base}own0/\nPUT ${base}new/`);
    assert.equal(git(dir, 'status', '--porcelain'), '');
    assert.ok(await indexEqualsHead());
  });

  it('logs an invalid edit with file, line and column and changes nothing', async () => {
    const head = ds.store.head;
    const indexed = await ds.index.dump();
    writeFileSync(join(dir, 'graphs/a.nt'), `<${base}a/> <http://ex/p> "ok" .\n<${base}a/> <http://ex/p> oops .\n`);
    await waitFor(() => logs.some((l) => l.includes('graphs/a.nt:2:')));
    const line = logs.find((l) => l.includes('graphs/a.nt:2:'))!;
    assert.match(line, /graphs\/a\.nt:2:\d+: invalid N-Triples/);
    assert.equal(ds.store.head, head);
    assert.equal(git(dir, 'rev-parse', 'HEAD').trim(), head);
    assert.equal(await ds.index.dump(), indexed);
  });

  it('never takes a file replaced by a round while it was read for an edit (it would revert the last write)', async () => {
    // the watcher's event for one write's rename arrives while the next write's round replaces the
    // file: read then, the file held the write before, which is not an edit (issue 25, item 6)
    const agent = `${base}admin/acl/agents/1/#this`;
    const before = commitCount(dir);
    let stop = false;
    const events = (async () => {
      while (!stop) await ds.workingTree.fileChanged('graphs/raced.nt');
    })();
    const writes = 150;
    for (let i = 0; i < writes; i++) {
      await ds.put('raced/', nt(`<${base}raced/> <http://purl.org/dc/terms/title> "v${i}" .\n`), agent);
      await new Promise((resolve) => setTimeout(resolve, i % 7));
    }
    stop = true;
    await events;
    await ds.settled();
    assert.equal(commitCount(dir) - before, writes, 'one commit per write, and none taken from the working tree');
    assert.equal(git(dir, 'log', '-1', '--format=%an').trim(), agent);
    assert.match(git(dir, 'show', 'HEAD:graphs/raced.nt'), new RegExp(`"v${writes - 1}"`));
    assert.equal(git(dir, 'status', '--porcelain', '--', 'graphs/raced.nt'), '');
  });
});
