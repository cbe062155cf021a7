import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { Dataspace, agentIdentity } from '../src/dataspace.js';
import { IndexCore } from '../src/index/index-core.js';
import { GitStore } from '../src/store/git-store.js';
import { documentFile } from '../src/document-paths.js';
import { commitCount, git, graphsAtHead, graphsInIndex, nt, removeTempDirs, tempDir, waitFor } from './helpers.js';

after(removeTempDirs);

const base = 'https://localhost:4443/';
const documents = ['', 'a/', 'a/b/', 'c/', 'root/', 'caf%C3%A9/'];
const runs = Number(process.env.PROPERTY_RUNS ?? 4);

function content(doc: string, values: number[], blank: boolean): string {
  const s = `<${base}${doc}#this>`;
  let text = values.map((v) => `${s} <http://ex/p${v % 3}> "v${v}" .\n`).join('');
  if (blank) text += `${s} <http://ex/knows> _:k .\n_:k <http://ex/name> "n${values[0] ?? 0}" .\n`;
  return text;
}

type Op =
  | { kind: 'put' | 'external' | 'edit'; doc: number; values: number[]; blank: boolean }
  | { kind: 'delete' | 'externalDelete' | 'editDelete'; doc: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constantFrom('put' as const, 'external' as const, 'edit' as const), doc: fc.nat(documents.length - 1), values: fc.array(fc.nat(20), { maxLength: 4 }), blank: fc.boolean() }),
  fc.record({ kind: fc.constantFrom('delete' as const, 'externalDelete' as const, 'editDelete' as const), doc: fc.nat(documents.length - 1) }),
);

/** A commit by another git client that touches neither the working tree nor the git index. */
function externalCommit(dir: string, path: string, text: string | null): void {
  const env = { ...process.env, GIT_INDEX_FILE: join(dir, '.git', 'external-index'), GIT_AUTHOR_NAME: 'x', GIT_AUTHOR_EMAIL: 'x@x', GIT_COMMITTER_NAME: 'x', GIT_COMMITTER_EMAIL: 'x@x' };
  const run = (args: string[], input?: string) => execFileSync('git', args, { cwd: dir, env, input, encoding: 'utf8' }).trim();
  const old = commitCount(dir) ? run(['rev-parse', 'HEAD']) : undefined;
  run(old ? ['read-tree', old] : ['read-tree', '--empty']);
  if (text === null) run(['update-index', '--force-remove', path]);
  else run(['update-index', '--add', '--cacheinfo', `100644,${run(['hash-object', '-w', '--stdin'], text)},${path}`]);
  const tree = run(['write-tree']);
  if (old && tree === run(['rev-parse', `${old}^{tree}`])) return;
  const commit = run(['commit-tree', tree, ...(old ? ['-p', old] : []), '-m', `external ${path}`]);
  run(['update-ref', 'refs/heads/main', commit, old ?? '']);
}

async function apply(ds: Dataspace, dir: string, step: Op): Promise<void> {
  const doc = documents[step.doc]!;
  const path = documentFile(doc);
  const file = join(dir, path);
  switch (step.kind) {
    case 'put':
      await ds.put(doc, nt(content(doc, step.values, step.blank)));
      return;
    case 'delete':
      await ds.delete(doc);
      return;
    case 'external':
      await ds.settled();
      externalCommit(dir, path, content(doc, step.values, step.blank));
      break;
    case 'externalDelete':
      await ds.settled();
      if (ds.store.blobId(path)) externalCommit(dir, path, null);
      break;
    case 'edit':
      await ds.settled();
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content(doc, step.values, step.blank));
      break;
    case 'editDelete':
      await ds.settled();
      rmSync(file, { force: true });
      break;
  }
  await new Promise((r) => setTimeout(r, 120)); // let the file system event arrive
  // On a loaded machine the event may come later: handling the file here too is harmless, as the
  // working tree takes a file it already knows for what it is.
  if (step.kind === 'edit' || step.kind === 'editDelete') await ds.workingTree.fileChanged(path);
  await ds.settled();
}

describe('the index', () => {
  it('always equals the parse of every .nt file at HEAD (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async (ops) => {
        const dir = tempDir('prop');
        const ds = await Dataspace.open({ id: 'prop', base, dir, watch: true, log: () => undefined });
        try {
          for (const step of ops) await apply(ds, dir, step);
          await ds.settled();
          const [index, truth] = await Promise.all([ds.index.dump().then(graphsInIndex), graphsAtHead(dir, base)]);
          assert.deepEqual([...index].sort(), [...truth].sort());
          assert.equal(ds.index.indexedCommit, commitCount(dir) ? git(dir, 'rev-parse', 'HEAD').trim() : undefined);
          assert.equal(git(dir, 'status', '--porcelain', '--', 'graphs'), '');
          git(dir, 'fsck', '--strict');
        } finally {
          await ds.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: runs, verbose: true },
    );
  });

  it('coalesces the commits of a burst into one sync, and follows a burst without being asked once it pauses or has gone on long enough', async () => {
    const hour = 3_600_000;
    // no timer fires within the test: the index moves only when asked, so what a sync covers is exact
    const still = await Dataspace.open({ id: 'burst', base, dir: tempDir('burst'), log: () => undefined, indexLag: { quietMs: hour, maxMs: hour, maxDocuments: 1000 } });
    try {
      await still.put('', nt(content('', [0], false)));
      await still.settled();
      const start = still.index.indexedCommit;
      for (let i = 1; i <= 20; i++) await still.put('a/', nt(content('a/', [i], i % 2 === 0)));
      assert.equal(still.index.indexedCommit, start, 'no sync per commit');
      await still.index.syncTo(still.store.head);
      assert.equal(still.index.indexedCommit, still.store.head, 'one sync takes the index over all 20 commits');
      assert.deepEqual([...(await still.index.dump().then(graphsInIndex))].sort(), [...(await graphsAtHead(still.store.dir, base))].sort());
    } finally {
      await still.close();
    }
    // once commits pause, the index reaches HEAD with no query (liveness, generous bounds)
    const pausing = await Dataspace.open({ id: 'pause', base, dir: tempDir('pause'), log: () => undefined, indexLag: { quietMs: 20, maxMs: hour, maxDocuments: 1000 } });
    try {
      for (let i = 0; i < 5; i++) await pausing.put('', nt(content('', [i], false)));
      await waitFor(() => pausing.index.indexedCommit === pausing.store.head, 20_000);
    } finally {
      await pausing.close();
    }
    // during a burst that never pauses, the index still moves without a query
    const busy = await Dataspace.open({ id: 'busy', base, dir: tempDir('busy'), log: () => undefined, indexLag: { quietMs: hour, maxMs: 100, maxDocuments: 1000 } });
    try {
      await busy.put('', nt(content('', [0], false)));
      await busy.settled();
      const start = busy.index.indexedCommit;
      for (let i = 1; busy.index.indexedCommit === start; i++) {
        assert.ok(i < 5000, 'the index moved during a burst of commits');
        await busy.put('a/', nt(content('a/', [i], false)));
      }
    } finally {
      await busy.close();
    }
  });

  it('follows a burst that changes many documents every few dozen of them, however long it lasts', async () => {
    const dir = tempDir('many');
    const hour = 3_600_000;
    const ds = await Dataspace.open({ id: 'many', base, dir, log: () => undefined, indexLag: { quietMs: hour, maxMs: hour, maxDocuments: 10 } });
    try {
      await ds.put('', nt(content('', [0], false)));
      await ds.settled();
      const start = ds.index.indexedCommit;
      for (let i = 1; i <= 10; i++) await ds.put(`d${i}/`, nt(content(`d${i}/`, [i], false)));
      await waitFor(() => ds.index.indexedCommit !== start, 5000);
      assert.deepEqual([...(await ds.index.dump().then(graphsInIndex))].sort(), [...(await graphsAtHead(dir, base))].sort());
      await ds.put('d11/', nt(content('d11/', [11], false)));
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.notEqual(ds.index.indexedCommit, ds.store.head, 'one more document waits for the next sync');
    } finally {
      await ds.close();
    }
  });

  it('is rebuilt from HEAD on startup and by `lodestone reindex`', async () => {
    const dir = tempDir('reindex');
    const data = tempDir('data');
    const dsDir = join(data, 'dataspaces', 'end-user');
    let ds = await Dataspace.open({ id: 'end-user', base, dir: dsDir, log: () => undefined });
    for (const [i, doc] of documents.entries()) await ds.put(doc, nt(content(doc, [i, i + 1], i % 2 === 0)));
    await ds.close();
    ds = await Dataspace.open({ id: 'end-user', base, dir: dsDir, log: () => undefined });
    assert.deepEqual([...(await ds.index.dump().then(graphsInIndex))].sort(), [...(await graphsAtHead(dsDir, base))].sort());
    assert.equal(ds.index.indexedCommit, ds.store.head);
    await ds.close();
    const out = execFileSync(process.execPath, ['bin/lodestone.js', 'reindex', '--data', data], { encoding: 'utf8' });
    assert.match(out, new RegExp(`end-user: ${documents.length} documents, \\d+ triples indexed from ${ds.store.head}`));
    assert.ok(commitCount(dsDir) === documents.length && dir);
  });

  it('applies the changes a sync carries only from the commit it reflects, and diffs the trees otherwise', async () => {
    const store = await GitStore.open({ dir: tempDir('delta') });
    const text = (value: string) => Buffer.from(`<${base}a/#this> <http://ex/p> "${value}" .\n`);
    const put = async (value: string) => (await store.write({ changes: [{ path: 'graphs/a.nt', bytes: text(value) }], author: agentIdentity(undefined), message: 'PUT a' }))!;
    const core = new IndexCore({ gitdir: store.gitdir, prefix: 'graphs', base });
    try {
      const one = await put('1');
      await core.syncTo(one);
      const two = await put('2');
      // changes said to start from a commit the index does not reflect are not applied
      await core.syncTo(two, { from: two, tree: store.headTreeId!, files: [{ path: 'graphs/a.nt', bytes: text('wrong') }] });
      assert.match(core.dump(), /"2"/);
      assert.doesNotMatch(core.dump(), /wrong/);
      const three = await put('3');
      await core.syncTo(three, { from: two, tree: store.headTreeId!, files: [{ path: 'graphs/a.nt', bytes: text('3') }] });
      assert.equal(core.indexedCommit, three);
      assert.match(core.dump(), /"3"/);
      assert.doesNotMatch(core.dump(), /"2"/);
      // and the tree it was given is where the next diff starts
      await store.write({ changes: [{ path: 'graphs/a.nt', bytes: null }], author: agentIdentity(undefined), message: 'DELETE a' });
      await core.syncTo(store.head);
      assert.equal(core.dump(), '');
    } finally {
      await store.close();
    }
  });

  it('moves into a fresh store once the quads it removed outnumber those it holds, keeping the changes made meanwhile', async () => {
    const store = await GitStore.open({ dir: tempDir('compaction') });
    const author = agentIdentity(undefined);
    const write = (doc: string, values: number[], blank = false) =>
      store.write({ changes: [{ path: documentFile(doc, 'graphs'), bytes: Buffer.from(content(doc, values, blank)) }], author, message: `PUT ${doc}` });
    const docs = ['a/', 'b/', 'c/', 'd/'];
    for (const doc of docs) await write(doc, [1, 2, 3], doc === 'b/');
    // a file as an editor may leave it: one triple, no line feed at its end
    await store.write({ changes: [{ path: documentFile('f/', 'graphs'), bytes: Buffer.from(`<${base}f/#this> <http://ex/p> "f" .`) }], author, message: 'PUT f/' });
    // a copy that lets pending work in after every graph, so a sync lands while it runs
    const core = new IndexCore({ gitdir: store.gitdir, prefix: 'graphs', base, compactAfter: 1, compactionSliceMs: 0 });
    const expected = async () => {
      const fresh = new IndexCore({ gitdir: store.gitdir, prefix: 'graphs', base });
      await fresh.syncTo(store.head);
      return fresh.dump().split('\n').sort().join('\n');
    };
    const dump = () => core.dump().split('\n').sort().join('\n');
    try {
      await core.syncTo(store.head);
      for (const doc of docs) await write(doc, [4, 5, 6], doc === 'b/');
      const second = store.head;
      const changes = [
        { path: documentFile('b/', 'graphs'), bytes: Buffer.from(content('b/', [7], true)) },
        { path: documentFile('c/', 'graphs'), bytes: null },
        { path: documentFile('e/', 'graphs'), bytes: Buffer.from(content('e/', [8], false)) },
      ];
      const third = (await store.write({ changes, author, message: 'PUT b/, DELETE c/, PUT e/' }))!;
      await core.syncTo(second); // removed quads now outnumber the held ones: the copy starts
      assert.equal(core.compactions, 0);
      await core.syncTo(third, { from: second, tree: store.headTreeId!, files: changes });
      assert.equal(core.compactions, 0, 'the copy is still under way');
      assert.equal(dump(), await expected(), 'and the store in use has every change');
      while (core.compactions === 0) await new Promise((resolve) => setImmediate(resolve));
      assert.equal(dump(), await expected(), 'and so has the store that took its place');
      assert.match(String(core.query({ query: `ASK { GRAPH <${base}c/> { ?s ?p ?o } }`, format: 'application/sparql-results+json' })), /"boolean":false/);
      // the blank nodes of one document are still one node
      const names = core.query({ query: `SELECT ?n WHERE { GRAPH <${base}b/> { ?s <http://ex/knows> ?k . ?k <http://ex/name> ?n } }`, format: 'text/csv' });
      assert.equal(names, 'n\r\nn7\r\n');
    } finally {
      core.stop();
      await store.close();
    }
  });

  it('leaves out, and reports, a committed file that is not N-Triples', async () => {
    const dir = tempDir('invalid');
    const logs: string[] = [];
    const ds = await Dataspace.open({ id: 'bad', base, dir, watch: true, log: (l) => logs.push(l) });
    try {
      await ds.put('a/', nt(content('a/', [1], false)));
      await ds.settled();
      externalCommit(dir, 'graphs/b.nt', 'not n-triples\n');
      await new Promise((r) => setTimeout(r, 150));
      await ds.settled();
      assert.equal(ds.index.indexedCommit, ds.store.head);
      const index = await ds.index.dump().then(graphsInIndex);
      assert.deepEqual([...index.keys()], [`${base}a/`]);
      assert.ok(logs.some((l) => l.includes('graphs/b.nt') && l.includes('not indexed')), logs.join('\n'));
    } finally {
      await ds.close();
    }
  });
});
