import assert from 'node:assert/strict';
import { appendFileSync, promises as fsp, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { agentIdentity } from '../src/dataspace.js';
import { closestVersion } from '../src/documents/history.js';
import { canonicalBytes } from '../src/rdf/canonical.js';
import { GitStore } from '../src/store/git-store.js';
import { VersionLog, type Version } from '../src/store/version-log.js';
import { git, nt, removeTempDirs, tempDir } from './helpers.js';

after(removeTempDirs);

const v = (commit: string, time: number): Version => ({ commit, time, author: 'anonymous', blob: 'b' });

describe('the version index', () => {
  it('records each change of each file, oldest first, and follows new commits', async () => {
    const dir = tempDir('versions');
    let now = 1_000;
    const store = await GitStore.open({ dir, clock: () => (now += 100) });
    const write = async (path: string, value: string | null) =>
      store.write({ changes: [{ path, bytes: value === null ? null : await canonicalBytes(nt(`<http://ex/s> <http://ex/p> "${value}" .\n`)) }], author: agentIdentity('https://ex/#me'), message: `PUT ${path}` });
    const a1 = await write('graphs/a.nt', '1');
    await write('graphs/b.nt', '1');
    const index = new VersionLog(store);
    await index.build();
    assert.deepEqual(index.of('graphs/a.nt').map((x) => x.commit), [a1]);
    const a2 = await write('graphs/a.nt', '2');
    const gone = await write('graphs/a.nt', null);
    await index.idle();
    const versions = index.of('graphs/a.nt');
    assert.deepEqual(versions.map((x) => x.commit), [a1, a2, gone]);
    assert.deepEqual(versions.map((x) => x.time), [1100, 1300, 1400]);
    assert.equal(versions[2]!.blob, null);
    assert.equal(versions[0]!.author, 'https://ex/#me');
    assert.equal(index.of('graphs/b.nt').length, 1);
    assert.equal((await index.blobAt('graphs/a.nt', a1!))?.blob, git(dir, 'rev-parse', `${a1}:graphs/a.nt`).trim());
    assert.equal(await index.blobAt('graphs/a.nt', gone!), undefined);
  });

  it('reads the same history through git log --raw as through its own walk of the objects', async () => {
    const dir = tempDir('versions');
    let now = 5_000;
    const store = await GitStore.open({ dir, clock: () => (now += 7) });
    const author = agentIdentity('https://ex/#me');
    for (let i = 0; i < 60; i++) {
      const path = `graphs/${['a', 'b/c', 'b/d', 'q"t', 'ü'][i % 5]}.nt`;
      const bytes = i % 11 === 10 ? null : await canonicalBytes(nt(`<http://ex/s> <http://ex/p> "${i}" .\n`));
      await store.write({ changes: [{ path, bytes }], author, message: `PUT ${path}` });
    }
    git(dir, '-c', 'gc.auto=0', 'commit', '--quiet', '--allow-empty', '-m', 'outside the prefix', '--author', 'Somebody <s@example.org>'); // no background gc racing the reads
    await store.refresh();
    const viaGit = new VersionLog(store);
    await viaGit.build();
    const walked = new VersionLog(store, false);
    await fsp.rm(join(store.gitdir, 'lodestone', 'versions'));
    await walked.build();
    for (const path of ['graphs/a.nt', 'graphs/b/c.nt', 'graphs/b/d.nt', 'graphs/q"t.nt', 'graphs/ü.nt']) {
      assert.ok(viaGit.of(path).length > 0, path);
      assert.deepEqual(viaGit.of(path), walked.of(path), path);
    }
  });

  it('starts again when the branch is rewritten', async () => {
    const dir = tempDir('versions');
    const store = await GitStore.open({ dir });
    const first = await store.write({ changes: [{ path: 'graphs/a.nt', bytes: Buffer.from('<http://ex/s> <http://ex/p> "1" .\n') }], author: agentIdentity(undefined), message: 'PUT a' });
    await store.write({ changes: [{ path: 'graphs/a.nt', bytes: Buffer.from('<http://ex/s> <http://ex/p> "2" .\n') }], author: agentIdentity(undefined), message: 'PUT a' });
    const index = new VersionLog(store);
    await index.build();
    assert.equal(index.of('graphs/a.nt').length, 2);
    git(dir, 'update-ref', 'refs/heads/main', first!);
    await store.refresh();
    await index.idle();
    assert.deepEqual(index.of('graphs/a.nt').map((x) => x.commit), [first]);
  });
});

describe('the version index on disk', () => {
  it('is read back at restart, walks only newer commits, and is rebuilt when it does not fit', async () => {
    const dir = tempDir('versions');
    const store = await GitStore.open({ dir });
    const put = (value: string) => store.write({ changes: [{ path: 'graphs/a.nt', bytes: Buffer.from(`<http://ex/s> <http://ex/p> "${value}" .\n`) }], author: agentIdentity('https://ex/#me'), message: 'PUT a' });
    await put('1');
    await put('2');
    const first = new VersionLog(store);
    await first.build();
    const log = join(dir, '.git/lodestone/versions');
    assert.match(readFileSync(log, 'utf8'), /#head [0-9a-f]{40}\n$/);
    await put('3');
    await first.idle();
    const again = new VersionLog(await GitStore.open({ dir }));
    await again.build();
    assert.deepEqual(again.of('graphs/a.nt'), first.of('graphs/a.nt'));
    assert.equal(again.of('graphs/a.nt').length, 3);
    appendFileSync(log, 'torn\tline'); // a crash in the middle of an append
    const torn = new VersionLog(await GitStore.open({ dir }));
    await torn.build();
    assert.equal(torn.of('graphs/a.nt').length, 3);
    writeFileSync(log, `#head ${'0'.repeat(40)}\n`); // a log from another repository
    const rebuilt = new VersionLog(await GitStore.open({ dir }));
    await rebuilt.build();
    assert.deepEqual(rebuilt.of('graphs/a.nt').map((x) => x.commit), first.of('graphs/a.nt').map((x) => x.commit));
    const reread = new VersionLog(await GitStore.open({ dir }));
    await reread.build();
    assert.deepEqual(reread.of('graphs/a.nt'), first.of('graphs/a.nt'), 'no stale entries survive the rebuild');
  });
});

describe('the TimeGate choice', () => {
  it('takes the closest version, and the more recent one on a tie', () => {
    const list = [v('a', 100), v('b', 200), v('c', 300)];
    assert.equal(closestVersion(list, 0).commit, 'a');
    assert.equal(closestVersion(list, 140).commit, 'a');
    assert.equal(closestVersion(list, 150).commit, 'b');
    assert.equal(closestVersion(list, 250).commit, 'c');
    assert.equal(closestVersion(list, 10_000).commit, 'c');
    assert.equal(closestVersion([v('x', 100), v('y', 100)], 100).commit, 'y');
  });
});
