import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { agentIdentity } from '../src/dataspace.js';
import { canonicalBytes } from '../src/rdf/canonical.js';
import { GitStore } from '../src/store/git-store.js';
import { commitCount, git, nt, removeTempDirs, tempDir } from './helpers.js';

after(removeTempDirs);

const webId = 'https://localhost:4443/admin/acl/agents/1234/#this';
const doc = (n: number | string) => nt(`<https://localhost:4443/d${n}/#this> <http://purl.org/dc/terms/title> "document ${n}" .\n`);

async function put(store: GitStore, path: string, text: string, author = agentIdentity(webId)) {
  return store.write({ changes: [{ path, bytes: await canonicalBytes(nt(text)) }], author, message: `PUT https://localhost:4443/${path}` });
}

describe('GitStore', () => {
  it('creates a repository on branch main that git accepts', async () => {
    const dir = tempDir('store');
    const store = await GitStore.open({ dir });
    assert.equal(store.head, undefined);
    assert.equal(git(dir, 'symbolic-ref', 'HEAD').trim(), 'refs/heads/main');
    await put(store, 'graphs/root.nt', '<https://localhost:4443/> <http://ex/p> "root" .\n');
    git(dir, 'fsck', '--strict');
    assert.equal(git(dir, 'rev-parse', 'HEAD').trim(), store.head);
  });

  it('makes one commit per write with the contract metadata', async () => {
    const dir = tempDir('store');
    const store = await GitStore.open({ dir, clock: () => 1_700_000_000 });
    const first = await store.write({ changes: [{ path: 'graphs/a.nt', bytes: await canonicalBytes(doc('a')) }], author: agentIdentity(webId), message: 'PUT https://localhost:4443/a/' });
    const second = await store.write({ changes: [{ path: 'graphs/a.nt', bytes: null }], author: agentIdentity(undefined), message: 'DELETE https://localhost:4443/a/' });
    assert.ok(first && second);
    assert.equal(commitCount(dir), 2);
    const [an, ae, cn, ce, ad, cd, subject] = git(dir, 'log', '-1', '--format=%an%n%ae%n%cn%n%ce%n%ad%n%cd%n%s', '--date=raw', first).trim().split('\n');
    assert.equal(an, webId);
    assert.match(ae!, /\.invalid$/);
    assert.equal(cn, 'Lodestone');
    assert.match(ce!, /\.invalid$/);
    assert.equal(ad, '1700000000 +0000');
    assert.equal(cd, '1700000000 +0000');
    assert.equal(subject, 'PUT https://localhost:4443/a/');
    assert.equal(git(dir, 'log', '-1', '--format=%an|%ae|%s', second).trim(), 'anonymous|anonymous@lodestone.invalid|DELETE https://localhost:4443/a/');
    assert.equal(git(dir, 'ls-tree', '-r', '--name-only', second).trim(), '');
    git(dir, 'fsck', '--strict');
  });

  it('stores the canonical bytes, byte for byte', async () => {
    const dir = tempDir('store');
    const store = await GitStore.open({ dir });
    const bytes = await canonicalBytes(nt('_:b <http://ex/p> "z" .\n<http://ex/s> <http://ex/p> "a" .\n'));
    await store.write({ changes: [{ path: 'graphs/x.nt', bytes }], author: agentIdentity(webId), message: 'PUT x' });
    assert.deepEqual(Buffer.from(git(dir, 'cat-file', 'blob', 'HEAD:graphs/x.nt')), bytes);
    const read = await store.read('graphs/x.nt');
    assert.deepEqual(read?.bytes, bytes);
    assert.equal(read?.blobId, git(dir, 'rev-parse', 'HEAD:graphs/x.nt').trim());
    assert.equal(await store.read('graphs/missing.nt'), undefined);
  });

  it('makes no commit for a rewrite of identical content, whatever the blank node labels', async () => {
    const dir = tempDir('store');
    const store = await GitStore.open({ dir });
    assert.ok(await put(store, 'graphs/a.nt', '_:x <http://ex/p> "1" .\n_:x <http://ex/q> _:y .\n'));
    assert.equal(await put(store, 'graphs/a.nt', '_:other <http://ex/q> _:z .\n_:other <http://ex/p> "1" .\n'), undefined);
    assert.equal(await store.write({ changes: [{ path: 'graphs/none.nt', bytes: null }], author: agentIdentity(webId), message: 'DELETE none' }), undefined);
    assert.equal(commitCount(dir), 1);
  });

  it('gives each of many concurrent writes its own commit in one linear chain', async () => {
    const dir = tempDir('store');
    const store = await GitStore.open({ dir });
    const commits = await Promise.all(
      Array.from({ length: 40 }, async (_, i) =>
        store.write({ changes: [{ path: `graphs/c${i % 4}/d${i}.nt`, bytes: await canonicalBytes(doc(i)) }], author: agentIdentity(webId), message: `PUT d${i}` }),
      ),
    );
    assert.equal(new Set(commits).size, 40);
    assert.equal(commitCount(dir), 40);
    assert.equal(git(dir, 'rev-list', '--min-parents=2', 'HEAD').trim(), '');
    const subjects = git(dir, 'log', '--format=%s').trim().split('\n').sort();
    assert.deepEqual(subjects, Array.from({ length: 40 }, (_, i) => `PUT d${i}`).sort());
    assert.equal(git(dir, 'ls-tree', '-r', '--name-only', 'HEAD').trim().split('\n').length, 40);
    git(dir, 'fsck', '--strict');
  });

  it('never loses a commit made by a git client on the same branch (compare-and-swap)', async () => {
    const dir = tempDir('store');
    const store = await GitStore.open({ dir });
    await put(store, 'graphs/a.nt', '<http://ex/a> <http://ex/p> "1" .\n');
    mkdirSync(join(dir, 'graphs'), { recursive: true });
    writeFileSync(join(dir, 'graphs/b.nt'), '<http://ex/b> <http://ex/p> "git" .\n');
    git(dir, 'reset', '-q'); // a bare GitStore leaves the git index to the WorkingTree
    git(dir, 'add', 'graphs/b.nt');
    git(dir, 'commit', '-q', '-m', 'from git');
    const external = git(dir, 'rev-parse', 'HEAD').trim();
    const mine = await put(store, 'graphs/c.nt', '<http://ex/c> <http://ex/p> "1" .\n');
    assert.equal(git(dir, 'rev-parse', `${mine}^`).trim(), external);
    assert.deepEqual(git(dir, 'ls-tree', '-r', '--name-only', 'HEAD').trim().split('\n'), ['graphs/a.nt', 'graphs/b.nt', 'graphs/c.nt']);
    assert.ok(store.blobId('graphs/b.nt'));
  });

  it('waits for a lock held by another process and breaks a stale one', async () => {
    const dir = tempDir('store');
    const store = await GitStore.open({ dir, lock: { waitMs: 5_000, staleMs: 2_000 } });
    await put(store, 'graphs/a.nt', '<http://ex/a> <http://ex/p> "1" .\n');
    const lock = join(dir, '.git/refs/heads/main.lock');
    writeFileSync(lock, 'held\n');
    let done = false;
    const pending = put(store, 'graphs/a.nt', '<http://ex/a> <http://ex/p> "2" .\n').then(() => (done = true));
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(done, false, 'the write waits while the lock is held');
    git(dir, 'update-ref', '-d', 'refs/heads/none'); // harmless git command meanwhile
    const { rmSync } = await import('node:fs');
    rmSync(lock);
    await pending;
    assert.equal(commitCount(dir), 2);
    writeFileSync(lock, 'left by a crash\n');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    await put(store, 'graphs/a.nt', '<http://ex/a> <http://ex/p> "3" .\n');
    assert.equal(commitCount(dir), 3);
    assert.equal(existsSync(lock), false);
  });

  it('reads packed objects and packed refs after git gc, and keeps writing', async () => {
    const dir = tempDir('store');
    let store = await GitStore.open({ dir });
    for (let i = 0; i < 5; i++) await put(store, `graphs/d${i}.nt`, `<http://ex/d${i}> <http://ex/p> "${i}" .\n`);
    git(dir, 'gc', '-q', '--prune=now');
    assert.equal(existsSync(join(dir, '.git/refs/heads/main')), false, 'the ref is packed');
    store = await GitStore.open({ dir });
    assert.equal(store.listFiles().size, 5);
    assert.match((await store.read('graphs/d3.nt'))!.bytes.toString(), /"3"/);
    await put(store, 'graphs/d5.nt', '<http://ex/d5> <http://ex/p> "5" .\n');
    assert.equal(commitCount(dir), 6);
    git(dir, 'fsck', '--strict');
  });

  it('merges the packs of its writes geometrically, and leaves a pack of git gc alone', async () => {
    const dir = tempDir('store');
    const store = await GitStore.open({ dir });
    const packs = () => readdirSync(join(dir, '.git/objects/pack')).filter((f) => f.endsWith('.pack')).map((f) => statSync(join(dir, '.git/objects/pack', f)).size);
    for (let i = 0; i < 4; i++) await put(store, `graphs/d${i}.nt`, `<http://ex/d${i}> <http://ex/p> "first ${i}" .\n`);
    git(dir, 'gc', '-q', '--prune=now', '--aggressive');
    const gcPack = readdirSync(join(dir, '.git/objects/pack')).find((f) => f.endsWith('.pack'))!;
    // one pack per write (each awaited alone): 32 writes bring a merge
    for (let i = 0; i < 300; i++) await put(store, `graphs/d${i % 40}.nt`, `<http://ex/d${i % 40}> <http://ex/p> "${i}" .\n`);
    await store.refresh(); // the merge after the last batch has finished
    const sizes = packs().sort((a, b) => a - b);
    assert.ok(sizes.length < 32 + 12, `${sizes.length} packs`);
    assert.ok(existsSync(join(dir, '.git/objects/pack', gcPack)), 'the pack git wrote is still there');
    // past the packs written since the last merge, each pack is over twice all smaller ones together
    const merged = sizes.filter((size) => size > 2048);
    let smaller = 0;
    for (const size of merged) {
      assert.ok(size > smaller, `a pack of ${size} B after ${smaller} B of smaller ones`);
      smaller += size;
    }
    git(dir, 'fsck', '--strict', '--full');
    assert.equal(commitCount(dir), 304);
    const reopened = await GitStore.open({ dir });
    for (let i = 0; i < 40; i++) assert.equal((await reopened.read(`graphs/d${i}.nt`))!.bytes.toString(), git(dir, 'cat-file', 'blob', `HEAD:graphs/d${i}.nt`));
    assert.equal(git(dir, 'log', '--format=%H', '--raw').split('\n').filter((l) => l.startsWith(':')).length, 304);
  });

  it('reopens an existing repository at the same HEAD with the same files', async () => {
    const dir = tempDir('store');
    const store = await GitStore.open({ dir });
    for (let i = 0; i < 3; i++) await put(store, `graphs/a/d${i}.nt`, `<http://ex/d${i}> <http://ex/p> "${i}" .\n`);
    const again = await GitStore.open({ dir });
    assert.equal(again.head, store.head);
    assert.deepEqual([...again.listFiles()], [...store.listFiles()]);
  });

  it('runs transactions in order against the state the previous one left', async () => {
    const dir = tempDir('store');
    const store = await GitStore.open({ dir });
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        store.transact(async (view) => {
          const current = await view.read('graphs/counter.nt');
          const n = current ? Number(/"(\d+)"/.exec(current.toString())![1]) : 0;
          const bytes = await canonicalBytes(nt(`<http://ex/c> <http://ex/n> "${n + 1}" .\n`));
          return { intent: { changes: [{ path: 'graphs/counter.nt', bytes }], author: agentIdentity(webId), message: 'PATCH counter' }, result: n + 1 };
        }),
      ),
    );
    assert.deepEqual(results.map((r) => r.result), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.match(git(dir, 'cat-file', 'blob', 'HEAD:graphs/counter.nt'), /"10"/);
    assert.equal(commitCount(dir), 10);
  });

  it('keeps a failing transaction out of the batch and out of git', async () => {
    const dir = tempDir('store');
    const store = await GitStore.open({ dir });
    const outcomes = await Promise.allSettled([
      put(store, 'graphs/a.nt', '<http://ex/a> <http://ex/p> "1" .\n'),
      store.transact(async () => {
        throw new Error('precondition failed');
      }),
      put(store, 'graphs/b.nt', '<http://ex/b> <http://ex/p> "1" .\n'),
    ]);
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.equal(commitCount(dir), 2);
  });

  it('rewrites a wide folder from its last tree, with the bytes git makes from scratch', async () => {
    const dir = tempDir('store');
    const store = await GitStore.open({ dir });
    const paths = Array.from({ length: 40 }, (_, n) => `graphs/wide/${['d', 'd-', 'd.', 'é', 'x'][n % 5]}${n}.nt`);
    const folders = ['graphs/wide/sub.nt/a.nt', 'graphs/wide/d1/b.nt'];
    for (const [k, path] of [...paths, ...folders].entries()) await put(store, path, `<http://ex/s> <http://ex/p> "${k}" .\n`);
    // rewrites, a deletion, a new file between existing names, a folder emptied
    await put(store, paths[7]!, '<http://ex/s> <http://ex/p> "rewritten" .\n');
    await store.write({ changes: [{ path: paths[3]!, bytes: null }, { path: folders[1]!, bytes: null }], author: agentIdentity(webId), message: 'DELETE' });
    await put(store, 'graphs/wide/d10a.nt', '<http://ex/s> <http://ex/p> "new" .\n');
    await put(store, paths[39]!, '<http://ex/s> <http://ex/p> "last" .\n');
    git(dir, 'fsck', '--strict');
    // git's own tree from the same index is the same object
    git(dir, 'read-tree', 'HEAD');
    assert.equal(git(dir, 'write-tree').trim(), git(dir, 'rev-parse', 'HEAD^{tree}').trim());
    assert.equal(git(dir, 'ls-tree', '-r', '--name-only', 'HEAD', 'graphs/wide/').trim().split('\n').length, 41);
  });
});
