/**
 * Lodestone stopping in the middle of a sync, on each SPARQL server (issue 27): the sync of a commit
 * that changes more graphs than one batch is cut after its first batch (the process sends nothing
 * more, as after a kill), and the next index opened on the same engine finds the marker naming both
 * commits, repairs every graph that differs, and ends with the engine holding exactly HEAD.
 * (Each engine killed in the middle of its own transaction: test/system/engine-fuseki.test.ts,
 * test/system/engine-virtuoso.test.ts; the marker kept beside the repository: index-oxigraph-server.)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { documentFile } from '../../src/document-paths.js';
import type { Engine } from '../../src/index/engine.js';
import { engineFor } from '../../src/index/engines.js';
import { RemoteIndex } from '../../src/index/remote-index.js';
import { GitStore } from '../../src/store/git-store.js';
import { startEngine } from '../engines/engines.js';
import { graphsAtHead, graphsInIndex, removeTempDirs, tempDir } from '../helpers.js';

after(removeTempDirs);

const base = 'https://crash.example/';
const KINDS = ['oxigraph-server', 'fuseki', 'virtuoso'] as const;

/** Writes documents `names` (each with `value`) in one commit; names ending in "-" are deleted instead. */
async function commit(store: GitStore, names: string[], value: string): Promise<string> {
  const changes = names.map((name) => {
    const path = documentFile(name.replace(/-$/, '') + '/');
    if (name.endsWith('-')) return { path, bytes: null };
    return { path, bytes: Buffer.from(`<${base}${name}/#this> <http://ex/v> "${value}" .\n<${base}${name}/#this> <http://ex/knows> _:b .\n_:b <http://ex/v> "${value}" .\n`) };
  });
  const head = await store.write({ changes, author: { name: 'test', email: 'test@example.org' }, message: `write ${names.length}` });
  assert.ok(head);
  return head;
}

/** The engine as a process that dies after `replaces` requests: every later call fails, as nothing more is sent. */
function dying(engine: Engine, replaces: number): Engine {
  let left = replaces;
  return new Proxy(engine, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (name !== 'replace' && name !== 'bulkLoad') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        if (left <= 0) throw new Error('the process was killed');
        left -= 1;
        return (value as (...a: unknown[]) => Promise<void>).apply(target, args);
      };
    },
  });
}

for (const kind of KINDS) {
  describe(`a sync cut in the middle, on ${kind}`, () => {
    it('is found at the next start and repaired: the engine holds exactly HEAD, and the marker names it', { timeout: 120_000 }, async () => {
      const engine = await startEngine(kind);
      const dir = tempDir(`crash-${kind}`);
      const store = await GitStore.open({ dir });
      const open = (e: Engine) => new RemoteIndex({ engine: e, id: 'end-user', gitdir: `${dir}/.git`, prefix: 'graphs', base, batch: 2, log: () => undefined });
      try {
        const first = await commit(store, ['a', 'b', 'c', 'd'], 'first');
        let index = open(engineFor(kind, engine.url));
        await index.syncTo(first);
        assert.equal(index.indexedCommit, first);
        await index.close();

        // seven changed graphs (added, changed, deleted): four batches of two, cut after the first
        const second = await commit(store, ['a', 'b', 'c-', 'e', 'f', 'g', 'h'], 'second');
        index = open(dying(engineFor(kind, engine.url), 2));
        await assert.rejects(index.syncTo(second), /not available|killed/);
        await index.close().catch(() => undefined);
        // the engine as the crash left it: the marker names both commits, and the graphs are neither's
        const probe = engineFor(kind, engine.url);
        const space = { id: 'end-user', base };
        const marker = probe.keepsMarker ? await probe.open(space) : readFileSync(`${dir}/.git/lodestone/index-marker-${kind}`, 'utf8').trim();
        assert.equal(marker, `${first} ${second}`);
        const left = await graphsInIndex(await probe.dump(space));
        assert.notDeepEqual(left, await graphsAtHead(dir, base));
        await probe.close();

        index = open(engineFor(kind, engine.url));
        await index.syncTo(second);
        assert.equal(index.indexedCommit, second);
        assert.deepEqual(await graphsInIndex(await index.dump()), await graphsAtHead(dir, base));
        await index.close();

        // and a third index opened afterwards has nothing left to do
        index = open(dying(engineFor(kind, engine.url), 0));
        await index.syncTo(second);
        assert.deepEqual(await graphsInIndex(await index.dump()), await graphsAtHead(dir, base));
        await index.close();
      } finally {
        await store.close();
        await engine.stop();
      }
    });
  });
}
