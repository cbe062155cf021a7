/**
 * The pack a primary answers a replica's question for HEAD with (store/head-pack.ts), and a
 * replica's store taking it in (GitStore.receive): the objects of a run of commits (creates,
 * replaces, deletes, a folder emptied, a mode changed by git), decoded with their ids checked,
 * written as one pack with the branch moved by compare-and-swap; git fsck --strict passes on the
 * copy, from a walk of the trees or from the objects the store kept of its latest writes. Broken
 * packs, merges and commits not in the line are refused, and nothing moves.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { agentIdentity } from '../src/dataspace.js';
import { decodePackStream } from '../src/git/packs.js';
import { canonicalBytes } from '../src/rdf/canonical.js';
import { GitStore } from '../src/store/git-store.js';
import { objectsSince, packObjects } from '../src/store/head-pack.js';
import { git, headOf, nt, removeTempDirs, tempDir } from './helpers.js';

const author = agentIdentity(undefined);
const bytes = (n: number | string) => canonicalBytes(nt(`<https://localhost:4443/d${n}/#this> <http://purl.org/dc/terms/title> "document ${n}" .\n`));
const put = async (store: GitStore, path: string, n: number | string) => store.write({ changes: [{ path, bytes: await bytes(n) }], author, message: `PUT ${path}` });
const drop = (store: GitStore, path: string) => store.write({ changes: [{ path, bytes: null }], author, message: `DELETE ${path}` });

let primary: GitStore;
let start: string;
const stores: GitStore[] = [];

/** A copy of the primary as it is now: git's clone, opened as a store. */
async function copy(): Promise<GitStore> {
  const dir = tempDir('head-pack-copy');
  git(dir, 'clone', '--quiet', '--no-checkout', primary.dir, '.');
  const store = await GitStore.open({ dir });
  stores.push(store);
  return store;
}

before(async () => {
  primary = await GitStore.open({ dir: tempDir('head-pack') });
  stores.push(primary);
  for (let n = 0; n < 5; n++) await put(primary, `graphs/a/d${n}.nt`, n);
  await put(primary, 'graphs/b/only.nt', 'only');
  start = primary.head!;
});
after(async () => {
  await Promise.all(stores.map((s) => s.close()));
  removeTempDirs();
});

describe('a head pack', () => {
  it('carries every object a copy at an earlier commit lacks, and the copy takes it in as git would have', async () => {
    const replica = await copy();
    assert.equal(replica.head, start);
    await put(primary, 'graphs/a/d1.nt', 'replaced');
    await put(primary, 'graphs/c/deep/new.nt', 'new');
    await drop(primary, 'graphs/a/d2.nt');
    await drop(primary, 'graphs/b/only.nt'); // a folder left empty disappears
    await put(primary, 'graphs/a/d2.nt', 2); // a blob the copy already holds, back again
    // a mode changed by a git client: the same blob, another tree
    const index = { ...process.env, GIT_INDEX_FILE: `${primary.gitdir}/lodestone-test-index` };
    const { execFileSync } = await import('node:child_process');
    const run = (...args: string[]) => execFileSync('git', ['--git-dir', primary.gitdir, ...args], { env: index, encoding: 'utf8' }).trim();
    run('read-tree', primary.head!);
    run('update-index', '--cacheinfo', `100755,${primary.blobId('graphs/a/d0.nt')},graphs/a/d0.nt`);
    const tree = run('write-tree');
    const commit = run('-c', 'user.name=Someone', '-c', 'user.email=someone@example.org', 'commit-tree', tree, '-p', primary.head!, '-m', 'chmod by hand');
    run('update-ref', 'refs/heads/main', commit);
    await primary.refresh();
    assert.equal(primary.head, commit);

    const objects = await objectsSince(primary, primary.head!, start);
    assert.ok(objects);
    assert.equal(objects.filter((o) => o.type === 'commit').length, 6);
    const decoded = decodePackStream(await packObjects(objects));
    assert.deepEqual(decoded?.map((o) => o.id), objects.map((o) => o.id));
    await replica.receive(decoded!, primary.head!, start);
    assert.equal(replica.head, primary.head);
    assert.equal(headOf(replica.dir), primary.head);
    git(replica.dir, 'fsck', '--strict', '--no-dangling');
    assert.deepEqual([...replica.listFiles()].sort(), [...primary.listFiles()].sort());
    assert.equal(git(replica.dir, 'ls-tree', 'HEAD', 'graphs/a/d0.nt').split(' ')[0], '100755');
    // each file's last change is named by its own commit, as on the primary, not by the run's last
    for (const path of ['graphs/a/d1.nt', 'graphs/a/d2.nt', 'graphs/c/deep/new.nt', 'graphs/b/only.nt']) {
      assert.equal(replica.lastChange(path).commit, primary.lastChange(path).commit, path);
    }
    assert.notEqual(replica.lastChange('graphs/a/d1.nt').commit, replica.head);
  });

  it('is not made past a merge or for a commit not in the line, and a broken one decodes to nothing', async () => {
    const head = primary.head!;
    assert.equal(await objectsSince(primary, head, 'f'.repeat(40)), undefined, 'a commit HEAD does not descend from: a walk to the root gives up');
    assert.equal(await objectsSince(primary, head, start, { maxCommits: 2, maxBytes: 1 << 20 }), undefined, 'past the limit: git fetches');
    const merge = git(primary.dir, '-c', 'user.name=S', '-c', 'user.email=s@example.org', 'commit-tree', `${head}^{tree}`, '-p', head, '-p', start, '-m', 'merge').trim();
    git(primary.dir, 'update-ref', 'refs/heads/main', merge);
    await primary.refresh();
    assert.equal(await objectsSince(primary, merge, start), undefined);
    const pack = await packObjects((await objectsSince(primary, head, start))!);
    assert.ok(decodePackStream(pack));
    for (const at of [0, 20, pack.length - 30]) {
      const broken = Buffer.from(pack);
      broken[at]! ^= 1;
      assert.equal(decodePackStream(broken), undefined, `a flipped byte at ${at}`);
    }
    assert.equal(decodePackStream(pack.subarray(0, pack.length - 1)), undefined);
  });

  it('is refused by a copy that is not where the pack starts, and nothing moves', async () => {
    const replica = await copy();
    const at = replica.head!;
    await put(primary, 'graphs/a/later.nt', 'later');
    const objects = (await objectsSince(primary, primary.head!, at))!;
    await assert.rejects(replica.receive(objects, primary.head!, start), /not/);
    assert.equal(replica.head, at);
    assert.equal(headOf(replica.dir), at);
    // the objects the store kept from its latest writes (no walk): whole, as git checks them
    assert.ok(primary.recent.between(at, primary.head!));
    await put(primary, 'graphs/a/later.nt', 'later2');
    await put(primary, 'graphs/z/last.nt', 'last');
    await replica.receive(primary.recent.between(at, primary.head!)!, primary.head!, at);
    git(replica.dir, 'fsck', '--strict', '--no-dangling');
    assert.deepEqual([...replica.listFiles()].sort(), [...primary.listFiles()].sort());
  });
});
