/**
 * The index on a real Oxigraph server (`oxigraph serve` on loopback, started here): sync, queries
 * over the union and over lists, blank nodes kept per document, the marker repaired after a crash
 * between the graphs and the marker, a store that is another's refused, a rebuild, and a sync
 * released by the round that reaches it while later writes keep the index busy.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Dataspace } from '../../src/dataspace.js';
import { RESULTS_JSON } from '../../src/rdf/media-types.js';
import { OxigraphServer } from '../../src/index/engines/oxigraph-server.js';
import { RemoteIndex } from '../../src/index/remote-index.js';
import { GitStore } from '../../src/store/git-store.js';
import { git, graphsAtHead, graphsInIndex, nt, removeTempDirs, tempDir } from '../helpers.js';
import { startOxigraph, type RunningEngine } from '../engines/oxigraph-server-engine.js';

after(removeTempDirs);

const base = 'https://localhost:4443/';
const doc = (path: string, text: string) => nt(text.replaceAll('{}', `<${base}${path}#this>`));

async function openWith(dir: string, engine: RunningEngine, id = 'end-user', at = base): Promise<Dataspace> {
  return Dataspace.open({ id, base: at, dir, index: { kind: 'oxigraph-server', endpoint: engine.url }, log: () => undefined });
}

async function select(ds: Dataspace, query: string, dataset: { defaultGraphs?: string[]; namedGraphs?: string[] } = { }): Promise<string[]> {
  const union = !dataset.defaultGraphs && !dataset.namedGraphs;
  ds.index.follow(ds.store.head); // as the document service does: a query runs at HEAD or later
  const text = await ds.index.query({ query, ...dataset, unionDefaultGraph: union, format: RESULTS_JSON }, 10_000);
  const rows = (JSON.parse(String(text)) as { results: { bindings: Array<Record<string, { value: string }>> } }).results.bindings;
  return rows.map((row) => Object.values(row).map((t) => t.value).join(' ')).sort();
}

describe('the index on an Oxigraph server', () => {
  let engine: RunningEngine;
  before(async () => {
    engine = await startOxigraph();
  });
  after(async () => engine?.stop());

  it('follows writes, answers over the union and over lists, and keeps blank nodes per document', async () => {
    const dir = tempDir('oxigraph-sync');
    const ds = await openWith(dir, engine);
    try {
      await ds.put('a/', doc('a/', '{} <http://ex/p> "one" .\n{} <http://ex/knows> _:b .\n_:b <http://ex/name> "A" .\n'));
      await ds.put('b/', doc('b/', '{} <http://ex/p> "two" .\n{} <http://ex/knows> _:b .\n_:b <http://ex/name> "B" .\n'));
      await ds.put('c/', doc('c/', '{} <http://ex/p> "three" .\n'));
      await ds.delete('c/');
      await ds.settled();
      assert.equal(ds.index.kind, 'oxigraph-server');
      assert.equal(ds.index.indexedCommit, ds.store.head);
      assert.deepEqual(await graphsInIndex(await ds.index.dump()), await graphsAtHead(dir, base));
      assert.deepEqual(await select(ds, 'SELECT ?o WHERE { ?s <http://ex/p> ?o }'), ['one', 'two']);
      // each document's _:b is its own node
      assert.deepEqual(await select(ds, 'SELECT ?s ?n WHERE { ?s <http://ex/knows>/<http://ex/name> ?n }'), [`${base}a/#this A`, `${base}b/#this B`]);
      assert.deepEqual(await select(ds, 'SELECT ?o WHERE { ?s <http://ex/p> ?o }', { defaultGraphs: [`${base}b/`], namedGraphs: [] }), ['two']);
      assert.deepEqual(await select(ds, 'SELECT ?g WHERE { GRAPH ?g { ?s <http://ex/p> ?o } }', { defaultGraphs: [], namedGraphs: [`${base}a/`, 'https://elsewhere.example/x'] }), [`${base}a/`]);
      assert.deepEqual(await select(ds, 'SELECT DISTINCT ?g WHERE { GRAPH ?g { } }'), [`${base}a/`, `${base}b/`]);
      // a write is seen by the next query (the query waits for the target)
      await ds.put('d/', doc('d/', '{} <http://ex/p> "four" .\n'));
      assert.deepEqual(await select(ds, 'SELECT ?o WHERE { ?s <http://ex/p> ?o }'), ['four', 'one', 'two']);
    } finally {
      await ds.close();
    }
  });

  it('repairs a sync cut between the graphs and the marker, and loads by the bulk path without one', async () => {
    const dir = tempDir('oxigraph-crash');
    const own = await startOxigraph();
    try {
      let ds = await openWith(dir, own);
      await ds.put('a/', doc('a/', '{} <http://ex/p> "1" .\n'));
      await ds.settled();
      const first = ds.store.head!;
      await ds.close();
      // a later commit made while no server ran (a person with git), synced partly: the engine got
      // the new graphs, and the marker still says "from first to HEAD" (the crash came before the last write)
      ds = await openWith(dir, own);
      await ds.put('a/', doc('a/', '{} <http://ex/p> "2" .\n'));
      await ds.put('b/', doc('b/', '{} <http://ex/p> "3" .\n'));
      await ds.settled();
      const head = ds.store.head!;
      await ds.close();
      const marker = join(dir, '.git', 'lodestone', 'index-marker-oxigraph-server');
      writeFileSync(marker, `${first} ${head}\n`);
      // and HEAD went back to the first commit (git reset), so only the "to" half shows what the engine holds
      git(dir, 'update-ref', 'refs/heads/main', first);
      ds = await openWith(dir, own);
      await ds.settled();
      assert.equal(readFileSync(marker, 'utf8').trim(), first);
      assert.deepEqual(await graphsInIndex(await ds.index.dump()), await graphsAtHead(dir, base));
      await ds.close();
      // no marker: everything is cleared and loaded again
      writeFileSync(marker, '');
      ds = await openWith(dir, own);
      await ds.settled();
      assert.deepEqual(await graphsInIndex(await ds.index.dump()), await graphsAtHead(dir, base));
      await ds.close();
    } finally {
      await own.stop();
    }
  });

  it('releases a sync once the round that reaches its commit is done, while later writes keep the index syncing', async () => {
    const dir = tempDir('oxigraph-rounds');
    const own = await startOxigraph();
    const store = await GitStore.open({ dir });
    const author = { name: 't', email: 't@t.invalid' };
    const write = (n: number) => store.write({ changes: [{ path: 'graphs/a.nt', bytes: Buffer.from(`<${base}a/#this> <http://ex/p> "${n}" .\n`) }], author, message: `PUT ${n}` });
    const engine = new OxigraphServer(own.url);
    const index = new RemoteIndex({ engine, id: 'end-user', gitdir: join(dir, '.git'), prefix: 'graphs', base, log: () => undefined });
    const entered: Array<() => void> = []; // the replaces held
    try {
      await index.syncTo(await write(0));
      // each replace waits to be let through: the test decides when a round ends
      const replace = engine.replace.bind(engine);
      let enter: () => void = () => undefined;
      let next = new Promise<void>((resolve) => (enter = resolve));
      engine.replace = async (...args) => {
        enter();
        await new Promise<void>((resolve) => entered.push(resolve));
        return replace(...args);
      };
      const first = index.syncTo(await write(1));
      let firstDone = false;
      void first.then(() => (firstDone = true));
      await next;
      next = new Promise<void>((resolve) => (enter = resolve));
      const second = index.syncTo(await write(2)); // comes while the first round runs
      entered.shift()!(); // the first round ends; the second starts and is held
      await next;
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(firstDone, true, 'the first sync is released by its own round, not held until the index is idle');
      entered.shift()!();
      await second;
      assert.equal(index.indexedCommit, store.head);
    } finally {
      for (const go of entered.splice(0)) go();
      await index.close();
      await store.close();
      await own.stop();
    }
  });

  it('refuses a store that holds another dataspace, which sees nothing of it', async () => {
    const own = await startOxigraph();
    const first = await openWith(tempDir('oxigraph-first'), own);
    try {
      await first.put('a/', doc('a/', '{} <http://ex/p> "private" .\n'));
      await first.settled();
      const second = await openWith(tempDir('oxigraph-second'), own, 'other', 'https://other.example/');
      try {
        await assert.rejects(second.index.query({ query: 'SELECT * { ?s ?p ?o }', unionDefaultGraph: true, format: RESULTS_JSON }, 5_000), /not available/);
        await assert.rejects(new OxigraphServer(own.url).open({ id: 'other', base: 'https://other.example/' }), (error: Error & { data?: { detail?: string } }) => /holds one dataspace/.test(error.data?.detail ?? ''));
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
      await own.stop();
    }
  });

  it('rebuilds from HEAD, and a query that outlives its limit is stopped with QueryTimeout', async () => {
    const own = await startOxigraph();
    const dir = tempDir('oxigraph-rebuild');
    const ds = await openWith(dir, own);
    try {
      for (let i = 0; i < 30; i++) await ds.put(`d${i}/`, doc(`d${i}/`, `{} <http://ex/p> "${i}" .\n{} <http://ex/q> "x" .\n`));
      await ds.index.rebuild(ds.store.head);
      assert.equal(ds.index.indexedCommit, ds.store.head);
      assert.deepEqual(await graphsInIndex(await ds.index.dump()), await graphsAtHead(dir, base));
      const runaway = 'SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n2 ?o }';
      await assert.rejects(ds.index.query({ query: runaway, unionDefaultGraph: true, format: RESULTS_JSON }, 300), (error: Error) => /QueryTimeout|limit/.test(`${(error as { code?: string }).code} ${error.message}`));
    } finally {
      await ds.close();
      await own.stop();
    }
  });
});

describe('moving a dataspace onto an Oxigraph server', () => {
  it('is loaded by `lodestone reindex --index` while the server serves, and the server started on it next syncs only what changed', { timeout: 120_000 }, async () => {
    const own = await startOxigraph();
    const { startServer, turtle } = await import('../http-helpers.js');
    const { reindex } = await import('../../src/reindex.js');
    const dir = tempDir('moving');
    let s = await startServer([], dir);
    try {
      for (let i = 0; i < 5; i++) assert.equal((await s.request('PUT', `m${i}/`, { headers: turtle, body: `<#this> <http://ex/n> ${i} .` })).status, 201);
      const lines: string[] = [];
      const log = console.log;
      console.log = (line: string) => lines.push(line);
      try {
        await reindex(dir, `oxigraph-server:${own.url}`);
      } finally {
        console.log = log;
      }
      const loaded = /end-user: (\d+) triples loaded into oxigraph-server/.exec(lines.join('\n'));
      assert.ok(loaded && Number(loaded[1]) >= 5, lines.join('\n')); // counted by the engine: the five documents' triples at least
      // a write made after the reindex, while the old server still serves
      assert.equal((await s.request('PUT', 'm9/', { headers: turtle, body: '<#this> <http://ex/n> 9 .' })).status, 201);
      await s.close();
      const logged: string[] = [];
      s = await startServer(['--index', `oxigraph-server:${own.url}`], dir, (line) => logged.push(line));
      const res = await s.request('GET', `sparql?${new URLSearchParams({ query: 'SELECT (COUNT(*) AS ?n) WHERE { ?s <http://ex/n> ?o }' })}`, { headers: { Accept: 'text/csv' } });
      assert.equal(res.status, 200, res.body);
      assert.equal(res.body.trim().split(/\r?\n/)[1], '6');
      assert.ok(!logged.some((line) => /loaded \d+ documents/.test(line)), `no full load on the start after reindex:\n${logged.join('\n')}`);
    } finally {
      await s.close();
      await own.stop();
    }
  });
});

describe('a file edited by hand that would break out of its graph', () => {
  it('is left out of the index, reported, and changes nothing else', async () => {
    const own = await startOxigraph();
    const dir = tempDir('oxigraph-inject');
    const invalid: string[] = [];
    const ds = await Dataspace.open({ id: 'end-user', base, dir, index: { kind: 'oxigraph-server', endpoint: own.url }, log: (line) => invalid.push(line) });
    try {
      await ds.put('a/', doc('a/', '{} <http://ex/p> "kept" .\n'));
      await ds.settled();
      // a commit made with git of a file whose text closes the INSERT DATA block and runs its own update
      const { execFileSync } = await import('node:child_process');
      const hostile = `<${base}b/#this> <http://ex/p> "x" . } } ; DROP ALL ; INSERT DATA { GRAPH <${base}z/> { <urn:planted> <urn:p> "planted" .\n`;
      const run = (args: string[], input?: string) => execFileSync('git', args, { cwd: dir, input, encoding: 'utf8', env: { ...process.env, GIT_INDEX_FILE: join(dir, '.git', 'hand-index'), GIT_AUTHOR_NAME: 'x', GIT_AUTHOR_EMAIL: 'x@x', GIT_COMMITTER_NAME: 'x', GIT_COMMITTER_EMAIL: 'x@x' } }).trim();
      const head = run(['rev-parse', 'HEAD']);
      run(['read-tree', head]);
      run(['update-index', '--add', '--cacheinfo', `100644,${run(['hash-object', '-w', '--stdin'], hostile)},graphs/b.nt`]);
      const commit = run(['commit-tree', run(['write-tree']), '-p', head, '-m', 'by hand']);
      run(['update-ref', 'refs/heads/main', commit, head]);
      await ds.store.refresh();
      await ds.settled();
      assert.deepEqual(await select(ds, 'SELECT ?o WHERE { ?s ?p ?o }'), ['kept']);
      assert.ok(invalid.some((line) => /graphs\/b\.nt.*not one N-Triples statement/.test(line)), invalid.join('\n'));
    } finally {
      await ds.close();
      await own.stop();
    }
  });
});

describe('lds:index in system.ttl', () => {
  it('puts one dataspace on a server, over --index', async () => {
    const own = await startOxigraph();
    const { startServer } = await import('../http-helpers.js');
    const dir = tempDir('system-index');
    let s = await startServer([], dir);
    const endUser = s.base;
    await s.close();
    const { appendFileSync } = await import('node:fs');
    const { ns } = await import('../../src/rdf/namespaces.js');
    appendFileSync(join(dir, 'system.ttl'), `\n<${endUser}> <${ns.lds}index> "oxigraph-server:${own.url}" .\n`);
    s = await startServer([], dir);
    try {
      assert.deepEqual(s.running.runtimes.map((r) => `${r.dataspace.id} ${r.dataspace.index.kind}`).sort(), ['admin embedded', 'end-user oxigraph-server']);
    } finally {
      await s.close();
      await own.stop();
    }
  });
});
