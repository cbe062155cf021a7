/**
 * The Fuseki engine (src/index/engines/fuseki.ts) against a real Fuseki 5 started here
 * (test/engines/fuseki-engine.ts): markers, replace, the union dataset kept to one dataspace, the
 * listed dataset, bulk load, literal forms, stopped queries, and a crash in the middle of a replace.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { isLodestoneError } from '../../src/errors.js';
import type { EngineDataset, EngineSpace, GraphReplacement } from '../../src/index/engine.js';
import { FusekiEngine } from '../../src/index/engines/fuseki.js';
import { FusekiProcess } from '../engines/fuseki-engine.js';

const alpha: EngineSpace = { id: 'alpha', base: 'https://alpha.test/' };
const beta: EngineSpace = { id: 'beta', base: 'https://beta.test/' };
const union: EngineDataset = { union: true, graphs: () => [] };
const C1 = '1'.repeat(40);
const C2 = '2'.repeat(40);
const C3 = '3'.repeat(40);

/** A document's canonical N-Triples: `n` triples about its #this, and one blank node. */
function doc(space: EngineSpace, path: string, n: number, tag = 'v'): GraphReplacement {
  const s = `<${space.base}${path}#this>`;
  const label = `_:g${path.replace(/\W/g, '')}_c14n0`;
  let ntriples = `${s} <http://ex/knows> ${label} .\n${label} <http://ex/name> "${tag}-${path}" .\n`;
  for (let i = 0; i < n; i++) ntriples += `${s} <http://ex/p> "${tag}${i}" .\n`;
  return { graph: space.base + path, ntriples };
}

async function select(engine: FusekiEngine, space: EngineSpace, query: string, dataset: EngineDataset = union): Promise<Array<Record<string, string>>> {
  const answer = await engine.query(space, query, dataset, false, new AbortController().signal);
  assert.equal(answer.kind, 'results');
  const json = JSON.parse(answer.kind === 'results' ? answer.json : '') as { results: { bindings: Array<Record<string, { value: string }>> } };
  return json.results.bindings.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v.value])));
}

async function graphNames(engine: FusekiEngine, space: EngineSpace, dataset: EngineDataset = union): Promise<string[]> {
  return (await select(engine, space, 'SELECT DISTINCT ?g { GRAPH ?g { ?s ?p ?o } }', dataset)).map((row) => row.g!).sort();
}

/** Triples per graph in a dump (N-Quads), blank node labels aside. */
function counts(nquads: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of nquads.split('\n').filter(Boolean)) {
    const graph = /<([^>]*)> \.$/.exec(line)![1]!;
    out[graph] = (out[graph] ?? 0) + 1;
  }
  return out;
}

// Both engines start at once (a JVM's start is most of this file's time); the second one lacks the union default graph.
const starting = Promise.all([FusekiProcess.start(), FusekiProcess.start({ unionDefaultGraph: false })]);

describe('the Fuseki engine', () => {
  let fuseki: FusekiProcess;
  let engine: FusekiEngine;

  before(async () => {
    [fuseki] = await starting;
    engine = new FusekiEngine(fuseki.url, { queryTimeoutMs: 2000 });
  });
  after(async () => {
    await engine?.close();
    await fuseki?.stop();
  });

  it('opens a dataspace on an empty engine with no marker, and again', async () => {
    assert.equal(await engine.open(alpha), undefined);
    assert.equal(await engine.open(alpha), undefined);
    assert.equal(await engine.dump(alpha), '');
  });

  it('replaces graphs (add, change, drop) and moves the marker with them', async () => {
    await engine.replace(alpha, [doc(alpha, 'a', 3), doc(alpha, 'b', 2), doc(alpha, 'c', 1)], C1);
    assert.equal(await engine.open(alpha), C1);
    assert.deepEqual(counts(await engine.dump(alpha)), { 'https://alpha.test/a': 5, 'https://alpha.test/b': 4, 'https://alpha.test/c': 3 });
    await engine.replace(alpha, [doc(alpha, 'a', 1, 'w'), { graph: alpha.base + 'c', ntriples: null }], C2);
    assert.equal(await engine.open(alpha), C2);
    assert.deepEqual(counts(await engine.dump(alpha)), { 'https://alpha.test/a': 3, 'https://alpha.test/b': 4 });
    const names = await select(engine, alpha, 'SELECT ?s ?o { ?s <http://ex/name> ?o } ORDER BY ?o');
    assert.deepEqual(names.map((row) => row.o), ['v-b', 'w-a']);
    // a document's blank node is one node: the join through it holds
    const joined = await select(engine, alpha, 'SELECT ?name { <https://alpha.test/a#this> <http://ex/knows> ?k . ?k <http://ex/name> ?name }');
    assert.deepEqual(joined, [{ name: 'w-a' }]);
    await engine.replace(alpha, [doc(alpha, 'a', 1, 'w')], C2); // replaying is harmless
    assert.deepEqual(counts(await engine.dump(alpha)), { 'https://alpha.test/a': 3, 'https://alpha.test/b': 4 });
    await engine.replace(alpha, [], undefined);
    assert.equal(await engine.open(alpha), null, 'a marker of an empty branch');
  });

  it('keeps two dataspaces on one engine apart, GRAPH ?g included, and shows no marker or system graph', async () => {
    await engine.open(beta);
    await engine.replace(beta, [doc(beta, 'x', 2)], C3);
    assert.deepEqual(await graphNames(engine, alpha), ['https://alpha.test/a', 'https://alpha.test/b']);
    assert.deepEqual(await graphNames(engine, beta), ['https://beta.test/x']);
    const seen = (await select(engine, beta, 'SELECT DISTINCT ?s { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }')).map((row) => row.s!);
    assert.ok(seen.every((s) => s.startsWith('https://beta.test/') || s.startsWith('_:') || !s.includes(':')), seen.join(' '));
    assert.ok(!seen.some((s) => s.includes('alpha') || s.includes('lodestone')), seen.join(' '));
    // the marker lives in the real default graph, which the union default graph hides
    assert.deepEqual(await select(engine, alpha, 'SELECT * { ?s ?p ?o FILTER(isIRI(?o) && STRSTARTS(STR(?o), "https://alpha.test/") && !STRSTARTS(STR(?s), "https://alpha.test/")) }'), []);
    assert.deepEqual(await select(engine, alpha, 'SELECT * { <urn:x-lodestone:index> ?p ?o }'), []);
    assert.deepEqual(await select(engine, alpha, 'SELECT * { GRAPH ?g { <urn:x-lodestone:index> ?p ?o } }'), []);
    assert.equal(await engine.open(beta), C3);
    assert.equal(await engine.open(alpha), null);
  });

  it('runs a query over the graphs listed, and over nothing when none is', async () => {
    const only = { union: false, defaultGraphs: [alpha.base + 'b'], namedGraphs: [alpha.base + 'a'] } as const;
    const rows = await select(engine, alpha, 'SELECT ?g ?o { { ?s <http://ex/name> ?o } UNION { GRAPH ?g { ?s <http://ex/name> ?o } } }', only);
    assert.deepEqual(rows.sort((x, y) => (x.o! < y.o! ? -1 : 1)), [{ o: 'v-b' }, { g: 'https://alpha.test/a', o: 'w-a' }]);
    // another dataspace's graph named in the list is not in this dataset
    assert.deepEqual(await graphNames(engine, alpha, { union: false, defaultGraphs: [], namedGraphs: [beta.base + 'x'] }), []);
    assert.deepEqual(await select(engine, alpha, 'SELECT * { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }', { union: false, defaultGraphs: [], namedGraphs: [] }), []);
  });

  it('answers CONSTRUCT in N-Triples and ASK in JSON', async () => {
    const graph = await engine.query(alpha, 'CONSTRUCT { ?s <http://ex/p> ?o } WHERE { ?s <http://ex/p> ?o }', union, true, new AbortController().signal);
    assert.equal(graph.kind, 'graph');
    const lines = graph.kind === 'graph' ? graph.ntriples.trim().split('\n').map((line) => line.replace(/\s+/g, ' ')).sort() : [];
    assert.deepEqual(lines, ['<https://alpha.test/a#this> <http://ex/p> "w0" .', '<https://alpha.test/b#this> <http://ex/p> "v0" .', '<https://alpha.test/b#this> <http://ex/p> "v1" .']);
    const ask = await engine.query(alpha, 'ASK { ?s <http://ex/p> "w0" }', union, false, new AbortController().signal);
    assert.deepEqual(ask.kind === 'results' ? JSON.parse(ask.json).boolean : undefined, true);
  });

  it('stores literals by value: the lexical forms it returns', async () => {
    const s = '<https://alpha.test/lit#this>';
    const ntriples = `${s} <http://ex/int> "042"^^<http://www.w3.org/2001/XMLSchema#integer> .\n${s} <http://ex/dec> "1.50"^^<http://www.w3.org/2001/XMLSchema#decimal> .\n${s} <http://ex/lang> "x"@EN .\n${s} <http://ex/str> "042" .\n`;
    await engine.replace(alpha, [{ graph: alpha.base + 'lit', ntriples }], C1);
    const rows = await select(engine, alpha, `SELECT ?p ?o { ${s} ?p ?o }`);
    const byPredicate = Object.fromEntries(rows.map((row) => [row.p!.slice('http://ex/'.length), row.o]));
    assert.deepEqual(byPredicate, { int: '42', dec: '1.5', lang: 'x', str: '042' });
    const lang = await engine.query(alpha, `CONSTRUCT WHERE { ${s} <http://ex/lang> ?o }`, union, true, new AbortController().signal);
    assert.match(lang.kind === 'graph' ? lang.ntriples : '', /"x"@en \./);
    await engine.replace(alpha, [{ graph: alpha.base + 'lit', ntriples: null }], C1);
  });

  it('stops a runaway query at its timeout, while other queries are answered meanwhile', async () => {
    const runaway = engine.query(alpha, 'SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n1 ?o1 . ?q ?r ?t . ?u ?v ?w . ?x ?y ?z . ?a1 ?b1 ?c1 . ?a2 ?b2 ?c2 }', union, false, new AbortController().signal);
    const outcome = runaway.then(() => 'answered', (error: unknown) => (isLodestoneError(error, 'QueryTimeout') ? 'stopped' : String(error)));
    const started = Date.now();
    const ask = await engine.query(alpha, 'ASK {}', union, false, new AbortController().signal);
    assert.equal(ask.kind === 'results' ? JSON.parse(ask.json).boolean : undefined, true);
    assert.ok(Date.now() - started < 1000, `ASK took ${Date.now() - started} ms beside a runaway query`);
    assert.equal(await outcome, 'stopped');
  });

  it('takes an answer cut by the timeout for a timeout, not for results', async () => {
    // DISTINCT streams: Fuseki has sent 200 and results when the timeout strikes, and ends the body with a banner
    const streaming = 'SELECT DISTINCT ?a ?d ?g ?j ?m { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o . ?p ?q ?r . ?s ?t ?u . ?v ?w ?x }';
    await assert.rejects(engine.query(alpha, streaming, union, false, new AbortController().signal), (error: unknown) => isLodestoneError(error, 'QueryTimeout'));
  });

  it('gives up an answer past its size limit', async () => {
    const small = new FusekiEngine(fuseki.url, { queryTimeoutMs: 2000, maxAnswerBytes: 2000 });
    await assert.rejects(small.query(alpha, 'SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }', union, false, new AbortController().signal), (error: unknown) => isLodestoneError(error, 'WorkLimit'));
    assert.equal((await small.query(alpha, 'ASK {}', union, false, new AbortController().signal)).kind, 'results');
  });

  it('gives up an aborted query at once (Fuseki itself runs it on until its timeout)', async () => {
    const controller = new AbortController();
    const runaway = engine.query(alpha, 'SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n1 ?o1 . ?q ?r ?t . ?u ?v ?w . ?x ?y ?z . ?a1 ?b1 ?c1 }', union, false, controller.signal);
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(runaway, { name: 'AbortError' });
  });

  it('bulk-loads a dataspace and sets the marker with it', async () => {
    const gamma: EngineSpace = { id: 'gamma', base: 'https://gamma.test/' };
    assert.equal(await engine.open(gamma), undefined);
    async function* graphs(): AsyncGenerator<GraphReplacement> {
      for (let i = 0; i < 50; i++) yield doc(gamma, `d${i}`, 10);
    }
    await engine.bulkLoad(gamma, graphs(), C1);
    assert.equal(await engine.open(gamma), C1);
    const dumped = counts(await engine.dump(gamma));
    assert.equal(Object.keys(dumped).length, 50);
    assert.ok(Object.values(dumped).every((n) => n === 12));
    const joined = await select(engine, gamma, 'SELECT ?name { <https://gamma.test/d7#this> <http://ex/knows> ?k . ?k <http://ex/name> ?name }');
    assert.deepEqual(joined, [{ name: 'v-d7' }]);
    await engine.clear(gamma);
    assert.equal(await engine.open(gamma), undefined);
    assert.equal(await engine.dump(gamma), '');
  });

  it('after a crash in the middle of a replace, the marker names a commit whose graphs are all there', async (t) => {
    const delta: EngineSpace = { id: 'delta', base: 'https://delta.test/' };
    await engine.open(delta);
    const first = Array.from({ length: 100 }, (_, i) => doc(delta, `d${i}`, 20, 'one'));
    await engine.replace(delta, first, C1);
    const second = Array.from({ length: 200 }, (_, i) => doc(delta, `d${i}`, 30, 'two'));
    const updates = (): number => fuseki.logged.filter((line) => line.includes('/lodestone-delta/update')).length;
    const before = updates();
    const replacing = engine.replace(delta, second, C2).then(() => 'done', () => 'failed');
    // kill once Fuseki has logged the request: its transaction is under way (or done, if it was quicker)
    while (updates() === before) await new Promise((resolve) => setTimeout(resolve, 5));
    await fuseki.kill();
    await fuseki.restart();
    const marker = await engine.open(delta);
    t.diagnostic(`the replace ${await replacing}; after the restart the marker is ${marker === C1 ? 'the old commit' : 'the new commit'}`);
    const dumped = counts(await engine.dump(delta));
    if (marker === C1) assert.deepEqual(dumped, Object.fromEntries(first.map((g) => [g.graph, 22])));
    else {
      assert.equal(marker, C2);
      assert.deepEqual(dumped, Object.fromEntries(second.map((g) => [g.graph, 32])));
    }
    await engine.replace(delta, second, C2);
    assert.equal(await engine.open(delta), C2);
    assert.deepEqual(counts(await engine.dump(delta)), Object.fromEntries(second.map((g) => [g.graph, 32])));
  });

  it('sets nothing but whole statements in an update: text that would close its GRAPH block is refused, and nothing changes', async () => {
    const before = await engine.dump(alpha);
    const marker = await engine.open(alpha);
    const forged = `"${'f'.repeat(40)}"`;
    const breakout = `<https://alpha.test/a#this> <http://ex/p> "x" .\n} } ; DROP SILENT ALL ; INSERT DATA { GRAPH <urn:x-arq:DefaultGraph> { <urn:x-lodestone:index> <urn:x-lodestone:commit> ${forged} } } ; INSERT DATA { GRAPH <https://alpha.test/z> {\n<https://alpha.test/z#this> <http://ex/p> "z" .\n`;
    await assert.rejects(engine.replace(alpha, [doc(alpha, 'b', 1, 'new'), { graph: alpha.base + 'a', ntriples: breakout }], C3), /not one statement a line \(line 2\)/);
    assert.equal(await engine.open(alpha), marker, 'the marker did not move');
    assert.equal(await engine.dump(alpha), before);
  });

  it('bulk-loads whole statements only: a second statement on a line would land beside the marker', async () => {
    const epsilon: EngineSpace = { id: 'epsilon', base: 'https://epsilon.test/' };
    await engine.open(epsilon);
    const forged = `"${'f'.repeat(40)}"`;
    async function* graphs(): AsyncGenerator<GraphReplacement> {
      yield doc(epsilon, 'a', 2);
      yield { graph: epsilon.base + 'b', ntriples: `<urn:x-lodestone:index> <urn:x-lodestone:commit> ${forged} . <https://epsilon.test/b#this> <http://ex/p> "b" .\n` };
    }
    await assert.rejects(engine.bulkLoad(epsilon, graphs(), C1));
    // the body is cut where the check failed: Fuseki may commit the graphs it had read, never a marker, so the dataspace is rebuilt
    assert.equal(await engine.open(epsilon), undefined, 'no marker, forged or other');
  });

  it('runs on a Fuseki where SERVICE reaches nowhere, should a query with one ever get past Lodestone', async () => {
    let hits = 0;
    const origin = createServer((_request, response) => {
      hits++;
      response.writeHead(200, { 'content-type': 'application/sparql-results+json' }).end('{"head":{"vars":[]},"results":{"bindings":[{}]}}');
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = origin.address() as { port: number };
      await assert.rejects(engine.query(alpha, `SELECT * { SERVICE <http://127.0.0.1:${port}/sparql> { ?s ?p ?o } }`, union, false, new AbortController().signal));
      assert.equal(hits, 0);
    } finally {
      origin.close();
    }
  });

  it('sends the credentials of the endpoint URL and never shows them', async () => {
    const withPassword = new FusekiEngine(fuseki.url.replace('http://', 'http://admin:s3cret@'));
    await withPassword.open(alpha); // Fuseki here asks for no password: it is sent and ignored
    assert.throws(() => new FusekiEngine('http://admin:s3cret@[bad/'), (error: Error) => !String(Object.values(error)).includes('s3cret') && !error.message.includes('s3cret'));
    const unreachable = new FusekiEngine('http://admin:s3cret@127.0.0.1:1/');
    // the client is told only that the index is unavailable; where and what (the detail) go to the log, without the password
    await assert.rejects(unreachable.open(alpha), (error: Error & { data?: { detail?: string } }) => !`${error.message} ${error.data?.detail}`.includes('s3cret') && /did not answer/.test(error.data?.detail ?? ''));
  });
});

describe('a Fuseki without the union default graph', () => {
  let fuseki: FusekiProcess;
  before(async () => {
    [, fuseki] = await starting;
  });
  after(async () => {
    await fuseki?.stop();
  });

  it('is refused at open, with what to do (else queries would see the marker and none of the documents)', async () => {
    await assert.rejects(new FusekiEngine(fuseki.url).open(alpha), /start it with --set tdb:unionDefaultGraph=true/);
  });
});
