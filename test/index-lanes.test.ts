/**
 * Query lanes of the embedded index (src/index/index.ts), without HTTP: a runaway query holds up
 * only its own lane, and once it outlives the budget its own holder's next query runs beside it
 * (issue 27) on a lane the index keeps or starts; one holder never holds every lane; a lane started
 * for slow queries stops once they end; a stopped lane comes back and every lane reaches HEAD.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { agentIdentity } from '../src/dataspace.js';
import { isLodestoneError } from '../src/errors.js';
import { Index, type IndexOptions } from '../src/index/index.js';
import type { Lane } from '../src/index/index-lane.js';
import { ANONYMOUS, lanesToStop, needsLane, slowRefusal, type Slot } from '../src/index/lane-slots.js';
import { GitStore } from '../src/store/git-store.js';
import { documentFile } from '../src/document-paths.js';
import { graphsAtHead, graphsInIndex, removeTempDirs, tempDir, waitFor } from './helpers.js';

after(removeTempDirs);

const base = 'https://localhost:4443/';
const JSON_RESULTS = 'application/sparql-results+json';
const RUNAWAY = 'SELECT (COUNT(*) AS ?c) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o . ?x ?y ?z }';

/** A store of ten documents of five triples, and an index over it with `options`. */
async function indexOver(name: string, options: Partial<IndexOptions>) {
  const store = await GitStore.open({ dir: tempDir(name) });
  const author = agentIdentity(undefined);
  const write = (doc: string) => {
    const text = [1, 2, 3, 4, 5].map((v) => `<${base}${doc}#this> <http://ex/p${v}> "v${v}" .\n`).join('');
    return store.write({ changes: [{ path: documentFile(doc, 'graphs'), bytes: Buffer.from(text) }], author, message: `PUT ${doc}` });
  };
  for (let i = 0; i < 10; i++) await write(`d${i}/`);
  const logs: string[] = [];
  const index = new Index({ gitdir: store.gitdir, prefix: 'graphs', base, log: (line) => logs.push(line), ...options });
  await index.syncTo(store.head);
  const ask = async (holder: string) => assert.match(String(await index.query({ query: 'ASK {}', format: JSON_RESULTS }, 60_000, holder)), /"boolean":true/);
  const runaway = (holder: string, timeoutMs: number) => {
    const state = { stopped: false };
    const done = index.query({ query: RUNAWAY, format: JSON_RESULTS, unionDefaultGraph: true }, timeoutMs, holder).then(
      () => assert.fail('the runaway query was answered'),
      (error: unknown) => {
        state.stopped = true;
        assert.ok(isLodestoneError(error, 'QueryTimeout'), String(error));
      },
    );
    return { state, done };
  };
  const close = async () => {
    await index.close();
    await store.close();
  };
  return { store, index, write, logs, ask, runaway, close };
}

describe('query lanes', () => {
  it('of an index used on demand (an admin dataspace’s) start at its first query, which sees every write made before', { timeout: 60_000 }, async () => {
    const t = await indexOver('on-first-use', { lanes: 2, onFirstUse: true });
    try {
      assert.deepEqual([t.index.status.lanes, t.index.indexedCommit], [0, undefined], 'no lane, no worker: the sync was done at once');
      await t.write('d10/');
      t.index.follow(t.store.head);
      assert.equal(t.index.recordHead(undefined, t.store.head!, '', []), 0, 'no changes are kept for a lane to come');
      await t.index.syncTo(t.store.head);
      assert.equal(t.index.status.lanes, 0);
      const count = await t.index.query({ query: 'SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }', format: 'text/csv' }, 60_000);
      assert.equal(String(count).trim().split(/\r?\n/)[1], '11');
      assert.equal(t.index.status.lanes, 2);
      assert.equal(t.index.indexedCommit, t.store.head);
      assert.equal(await t.index.size(), 55);
    } finally {
      await t.close();
    }
  });

  it("answer other holders and the runaway's own holder while a runaway query runs to its limit, and bring the stopped lane back", { timeout: 120_000 }, async () => {
    const t = await indexOver('lanes', { lanes: 2, slowAfterMs: 300 });
    const { index, store } = t;
    const graphs = async (holder: string) => {
      const result = await index.query({ query: 'SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }', format: 'text/csv' }, 60_000, holder);
      return Number(String(result).split('\r\n')[1]);
    };
    try {
      for (const round of [1, 2]) {
        const runaway = t.runaway('a', 3000);
        for (let i = 0; i < 3; i++) await t.ask('b');
        await t.write(`w${round}/`);
        index.follow(store.head);
        assert.equal(await graphs('b'), 10 + round, 'a query after a write sees it, while the runaway runs');
        // 1 s in, the runaway query has outlived the budget: its own holder's next query runs beside it
        await new Promise((resolve) => setTimeout(resolve, 1000));
        await t.ask('a');
        assert.equal(await graphs('a'), 10 + round);
        assert.ok(!runaway.state.stopped, `round ${round}: the runaway's holder was answered while its runaway query ran`);
        assert.ok(index.status.lanes <= 3, `${index.status.lanes} lanes: at most 2 and 1 extra`);
        await runaway.done;
      }
      assert.equal(await graphs('a'), 12);
      const warnings = t.logs.filter((line) => line.startsWith('SPARQL query stopped at its 3000 ms limit'));
      assert.equal(warnings.length, 2, t.logs.join('\n'));
      assert.match(warnings[0]!, new RegExp(`agent a, ${RUNAWAY.length} characters: SELECT \\(COUNT\\(\\*\\) AS \\?c\\)`));
      await index.syncTo(store.head);
      assert.deepEqual([...(await index.dump().then(graphsInIndex)).keys()].sort(), [...(await graphsAtHead(store.dir, base)).keys()].sort());
    } finally {
      await t.close();
    }
  });

  it('leave another holder a lane however many runaway queries one holder sends, refuse its query beyond them, and stop the extra lane once they end', { timeout: 120_000 }, async () => {
    const t = await indexOver('lanes-fair', { lanes: 2, extraLanes: 1, slowAfterMs: 200, spareMs: 300 });
    const { index } = t;
    try {
      // a holds at most N − 1 + E = 2 lanes: once both hold its slow queries, its next is refused at once
      const started = performance.now();
      const runaways = [t.runaway('a', 3000), t.runaway('a', 3000)];
      await waitFor(() => index.status.slow === 2);
      const refused = await index.query({ query: 'ASK {}', format: JSON_RESULTS }, 60_000, 'a').then(
        () => assert.fail('a third query of a ran'),
        (error: unknown) => error,
      );
      assert.ok(isLodestoneError(refused, 'Busy'), String(refused));
      const retryAfter = refused.data.retryAfter as number;
      assert.ok(retryAfter >= 1 && retryAfter <= Math.ceil((started + 3000 - performance.now()) / 1000) + 1, `Retry-After ${retryAfter} s: until the first runaway's limit`);
      assert.doesNotMatch(refused.message, /lane|ASK/, 'the refusal says what the agent can act on');
      for (let i = 0; i < 3; i++) await t.ask('b');
      assert.ok(index.status.lanes <= 3, `${index.status.lanes} lanes`);
      assert.ok(runaways.every((r) => !r.state.stopped), "b was answered while a's runaway queries ran");
      await Promise.all(runaways.map((r) => r.done));
      // the lanes come back to N once they end, and a may query again
      await waitFor(() => index.status.lanes === 2 && index.status.loaded === 2, 10_000);
      await t.ask('a');
    } finally {
      await t.close();
    }
  });

  it('with one lane, start a second for the quick queries while a runaway one runs', { timeout: 60_000 }, async () => {
    const t = await indexOver('lanes-one', { lanes: 1, slowAfterMs: 200, spareMs: 60_000 });
    const { index } = t;
    try {
      const runaway = t.runaway('a', 3000);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await t.ask('a');
      await t.ask('b');
      assert.ok(!runaway.state.stopped, 'both holders were answered while the runaway query ran');
      assert.equal(index.status.lanes, 2);
      await runaway.done;
      const extraLanes = 0;
      const lone = await indexOver('lanes-lone', { lanes: 1, extraLanes, slowAfterMs: 200 });
      try {
        const again = lone.runaway('a', 2000);
        await waitFor(() => lone.index.status.slow === 1);
        await lone.ask('b');
        assert.ok(again.state.stopped, 'with no extra lane, the query waits for the one lane (as before lanes)');
        assert.equal(lone.index.status.lanes, 1);
      } finally {
        await lone.close();
      }
    } finally {
      await t.close();
    }
  });

  it('size the pool and word the refusal by rule (lane-slots.ts)', () => {
    const slot = (number: number, holder: string | undefined, slow: boolean, extra: Partial<Slot> = {}): Slot => ({
      lane: { number, loaded: true } as Lane,
      busy: holder !== undefined,
      goal: undefined,
      at: 1,
      failed: undefined,
      jobs: [],
      query: holder === undefined ? undefined : ({ holder } as Slot['query']),
      slow,
      budget: undefined,
      deadline: 2500,
      idleSince: 0,
      catchUp: undefined,
      ...extra,
    });
    const share = { quick: 1, all: 2 };
    // N = 2, E = 1: one slow lane leaves one quick lane, so a lane starts; not a fourth
    assert.equal(needsLane([slot(0, undefined, false), slot(1, 'a', true)], 2, 3), true);
    assert.equal(needsLane([slot(0, undefined, false), slot(1, 'a', true), slot(2, undefined, false)], 2, 3), false);
    assert.equal(needsLane([slot(0, 'b', true), slot(1, 'a', true), slot(2, undefined, false)], 2, 3), false);
    // an extra lane stops only with N quick lanes left, never lane 0, an empty one first
    const idle = [slot(0, undefined, false), slot(1, undefined, false, { lane: { number: 1, loaded: false } as Lane }), slot(2, undefined, false)];
    assert.deepEqual(lanesToStop(idle, 2, 1000).map((s) => s.lane.number), [1]);
    assert.deepEqual(lanesToStop([slot(0, undefined, false), slot(1, 'a', true), slot(2, undefined, false)], 2, 1000), []);
    // a holder whose slow queries fill its share is refused, with Retry-After until the first limit
    const full = [slot(0, undefined, false), slot(1, 'a', true), slot(2, 'a', true, { deadline: 9000 })];
    assert.equal(slowRefusal(full, 'b', share, 1000), undefined);
    assert.equal(slowRefusal([slot(0, 'a', false), slot(1, 'a', true)], 'a', share, 1000), undefined, 'one of them is quick: it ends soon');
    const refusal = slowRefusal(full, 'a', share, 1000);
    assert.ok(refusal && isLodestoneError(refusal, 'Busy'));
    assert.equal(refusal.data.retryAfter, 2);
    assert.match(refusal.message, /^2 slow SPARQL queries of yours already run/);
    const anonymous = [slot(0, ANONYMOUS, true), slot(1, ANONYMOUS, true)];
    assert.match(slowRefusal(anonymous, ANONYMOUS, share, 1000)!.message, /of clients that are not signed in .* sign in/);
  });
});
