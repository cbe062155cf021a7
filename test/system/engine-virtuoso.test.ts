/**
 * The virtuoso engine against a real Virtuoso 7 started by the test (test/engines/virtuoso-engine.ts):
 * replace, markers, bulk load, the union kept to one dataspace (two on one engine, Virtuoso's system
 * graphs, the marker graph), the lexical forms Virtuoso gives back, stopping queries, and a crash
 * (kill -9) in the middle of a replace.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { isLodestoneError } from '../../src/errors.js';
import type { EngineDataset, EngineSpace, GraphReplacement } from '../../src/index/engine.js';
import { VirtuosoEngine } from '../../src/index/engines/virtuoso.js';
import { RESULTS_JSON, readResults } from '../../src/rdf/sparql-results.js';
import { graphsInIndex } from '../helpers.js';
import { startVirtuoso, type VirtuosoServer } from '../engines/virtuoso-engine.js';

const XSD = 'http://www.w3.org/2001/XMLSchema#';
const union: EngineDataset = { union: true, graphs: () => [] };
const never = new AbortController().signal;

let server: VirtuosoServer;
let engine: VirtuosoEngine;
let spaces = 0;

/** A dataspace of its own for each test (they share the engine). */
function space(): EngineSpace {
  spaces += 1;
  return { id: `s${spaces}`, base: `https://s${spaces}.example/` };
}

function doc(s: EngineSpace, path: string, values: readonly string[]): GraphReplacement {
  const subject = `<${s.base}${path}#this>`;
  return { graph: s.base + path, ntriples: values.map((v, i) => `${subject} <http://ex/p${i}> "${v}" .\n`).join('') };
}

async function select(s: EngineSpace, query: string, dataset: EngineDataset = union): Promise<Array<Record<string, { type: string; value: string; datatype?: string; 'xml:lang'?: string }>>> {
  const answer = await engine.query(s, query, dataset, false, never);
  assert.equal(answer.kind, 'results');
  return (JSON.parse(answer.kind === 'results' ? answer.json : '') as { results: { bindings: [] } }).results.bindings;
}

async function graphNames(s: EngineSpace, dataset: EngineDataset = union): Promise<string[]> {
  return (await select(s, 'SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?g', dataset)).map((row) => row.g!.value);
}

before(async () => {
  server = await startVirtuoso();
  engine = new VirtuosoEngine({ endpoint: server.endpoint, queryTimeoutMs: 5_000 });
});
after(async () => {
  await engine?.close();
  await server?.stop();
});

describe('virtuoso engine', () => {
  it('opens a dataspace on an empty engine with no marker, and keeps null for an empty branch', async () => {
    const s = space();
    assert.equal(await engine.open(s), undefined);
    assert.deepEqual(await graphNames(s), []);
    await engine.replace(s, [], undefined);
    assert.equal(await engine.open(s), null);
  });

  it('replaces graphs (add, change, drop), then dumps and queries what the marker names', async () => {
    const s = space();
    await engine.open(s);
    await engine.replace(s, [doc(s, 'a', ['1', '2']), doc(s, 'b', ['x']), doc(s, 'c', ['y', 'café ☃ 𝄞'])], 'c1');
    assert.equal(await engine.open(s), 'c1');
    await engine.replace(s, [doc(s, 'a', ['3']), { graph: `${s.base}b`, ntriples: null }, doc(s, 'd', ['z']), doc(s, 'e', [])], 'c2');
    assert.equal(await engine.open(s), 'c2');
    const expected = await graphsInIndex([doc(s, 'a', ['3']), doc(s, 'c', ['y', 'café ☃ 𝄞']), doc(s, 'd', ['z'])]
      .map((g) => g.ntriples!.replace(/ \.\n/g, ` <${g.graph}> .\n`)).join(''));
    assert.deepEqual(await graphsInIndex(await engine.dump(s)), expected);
    assert.deepEqual(await graphNames(s), [`${s.base}a`, `${s.base}c`, `${s.base}d`]);
    const rows = await select(s, `SELECT ?o WHERE { <${s.base}a#this> ?p ?o }`);
    assert.deepEqual(rows.map((r) => r.o!.value), ['3']);
    const graph = await engine.query(s, `CONSTRUCT WHERE { <${s.base}d#this> ?p ?o }`, union, true, never);
    assert.deepEqual(graph, { kind: 'graph', ntriples: `<${s.base}d#this>\t<http://ex/p0>\t"z" .\n` });
    // replaying the same call is harmless
    await engine.replace(s, [doc(s, 'a', ['3']), { graph: `${s.base}b`, ntriples: null }, doc(s, 'd', ['z'])], 'c2');
    assert.deepEqual(await graphsInIndex(await engine.dump(s)), expected);
  });

  it('keeps the union to one dataspace: another on the same engine, the markers and Virtuoso\'s system graphs never show', async () => {
    const a = space();
    const b = space();
    await engine.open(a);
    await engine.open(b);
    await engine.replace(a, [doc(a, 'x', ['secret of a'])], 'ca');
    await engine.replace(b, [doc(b, 'x', ['secret of b'])], 'cb');
    assert.deepEqual(await graphNames(a), [`${a.base}x`]);
    assert.deepEqual(await graphNames(b), [`${b.base}x`]);
    // Virtuoso answers this form from its list of every graph, unchecked (virtuoso-query.ts): never as it is
    for (const query of ['SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }', 'SELECT DISTINCT (?g AS ?h) WHERE { { graph ?g { ?x ?y ?z } } } LIMIT 9', 'SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } } OFFSET 0']) {
      assert.deepEqual((await select(a, query)).map((row) => Object.values(row)[0]!.value), [`${a.base}x`], query);
    }
    const everything = await select(a, 'SELECT ?o WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }');
    assert.deepEqual(everything.map((r) => r.o!.value), ['secret of a', 'secret of a']);
    // the engine's own graphs (~2,500 triples of virtrdf#) and the marker graph, even named
    for (const g of ['http://www.openlinksw.com/schemas/virtrdf#', 'urn:x-lodestone:index-markers', `${b.base}x`]) {
      assert.deepEqual(await select(a, `SELECT * FROM <${g}> FROM NAMED <${g}> WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }`), [], g);
      assert.deepEqual(await select(a, 'SELECT * WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }', { union: false, defaultGraphs: [g], namedGraphs: [g] }), [], g);
    }
    // and unauthenticated SPARQL on the engine reads nothing at all
    const anonymous = await fetch(new URL(`sparql?query=${encodeURIComponent('SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }')}`, server.endpoint.replace(/\/\/[^@]*@/, '//')), { headers: { accept: 'application/sparql-results+json' } });
    assert.equal(JSON.parse(await anonymous.text()).results.bindings[0].n.value, '0');
  });

  it('refuses queries naming Virtuoso\'s SQL functions (bif:, sql:) before they reach it: no request leaves the engine', async () => {
    const s = space();
    await engine.open(s);
    let hits = 0;
    const origin = createServer((_request, response) => {
      hits += 1;
      response.end('reached');
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/`;
    try {
      for (const query of [
        `PREFIX v: <bif:> SELECT (v:http_get("${target}") AS ?x) {}`,
        `SELECT (<bif:http_get>("${target}") AS ?x) {}`,
        `BASE <bif:> SELECT (<http_get>("${target}") AS ?x) {}`,
        `PREFIX v: <BIF:> SELECT ?x WHERE { BIND(v:http_get("${target}") AS ?x) }`,
        'SELECT (<sql:LODESTONE_MARKER>("x") AS ?x) {}',
      ]) {
        await assert.rejects(engine.query(s, query, union, false, never), (error) => isLodestoneError(error, 'BadQuery'), query);
      }
      assert.equal(hits, 0);
    } finally {
      origin.close();
    }
  });

  it('never puts the dba\'s password in an error, and needs it in the endpoint URL', async () => {
    const wrong = new URL(server.endpoint);
    wrong.password = 'not-the-password-1234';
    const error = await new VirtuosoEngine({ endpoint: wrong.href }).open(space()).then(() => undefined, (e: Error) => e);
    assert.ok(isLodestoneError(error, 'IndexUnavailable'), String(error));
    const said = `${error.message} ${String(error.data.detail)}`; // the message for the client, the detail for the log
    assert.doesNotMatch(said, /not-the-password-1234|dba:/);
    assert.match(String(error.data.detail), /401/);
    assert.throws(() => new VirtuosoEngine({ endpoint: 'http://127.0.0.1:8890/' }), /dba credentials/);
  });

  it('queries the named-list dataset as given', async () => {
    const s = space();
    await engine.open(s);
    await engine.replace(s, [doc(s, 'a', ['1']), doc(s, 'b', ['2']), doc(s, 'c', ['3'])], 'c1');
    const dataset: EngineDataset = { union: false, defaultGraphs: [`${s.base}a`], namedGraphs: [`${s.base}b`] };
    assert.deepEqual((await select(s, 'SELECT ?o WHERE { ?s ?p ?o }', dataset)).map((r) => r.o!.value), ['1']);
    assert.deepEqual(await graphNames(s, dataset), [`${s.base}b`]);
  });

  it('bulk loads into an empty dataspace, then sets the marker', async () => {
    const s = space();
    await engine.open(s);
    async function* graphs(): AsyncIterable<GraphReplacement> {
      for (let i = 0; i < 300; i++) yield doc(s, `d${i}`, [`v${i}`, 'shared']);
    }
    const small = new VirtuosoEngine({ endpoint: server.endpoint, bulkBatchBytes: 4096 }); // several batches
    await small.bulkLoad(s, graphs(), 'bulk');
    assert.equal(await engine.open(s), 'bulk');
    const [count] = await select(s, 'SELECT (COUNT(*) AS ?n) (COUNT(DISTINCT ?g) AS ?g) WHERE { GRAPH ?g { ?s ?p ?o } }');
    assert.deepEqual([count!.n!.value, count!.g!.value], ['600', '300']);
    await engine.clear(s);
    assert.equal(await engine.open(s), undefined);
    assert.deepEqual(await graphNames(s), []);
  });

  it('gives back literals by value: what Virtuoso does to lexical forms, language tags, numbers and blank nodes', async () => {
    const s = space();
    await engine.open(s);
    const x = `<${s.base}lit#this>`;
    const lines = [`"042"^^<${XSD}integer>`, `"1.50"^^<${XSD}decimal>`, '"x"@EN', `"1.0e0"^^<${XSD}float>`, `"s"^^<${XSD}string>`, '_:g1_c14n0',
      `"true"^^<${XSD}boolean>`, `"2020-01-01T00:00:00.500Z"^^<${XSD}dateTime>`, `"abc"^^<${XSD}integer>`]
      .map((o, i) => `${x} <http://ex/p${i}> ${o} .\n`);
    await engine.replace(s, [{ graph: `${s.base}lit`, ntriples: `${lines.join('')}_:g1_c14n0 <http://ex/q> "b" .\n` }], 'c1');
    const rows = await select(s, `SELECT ?p ?o WHERE { ${x} ?p ?o } ORDER BY ?p`);
    assert.deepEqual(rows.map((r) => r.o), [
      { type: 'typed-literal', datatype: `${XSD}integer`, value: '42' }, // Oxigraph: "42" too
      { type: 'typed-literal', datatype: `${XSD}decimal`, value: '1.5' }, // Oxigraph: "1.5"
      { type: 'literal', 'xml:lang': 'en', value: 'x' }, // lower-cased
      { type: 'typed-literal', datatype: `${XSD}float`, value: '1.0' }, // Oxigraph: "1"
      { type: 'literal', value: 's' }, // Virtuoso says typed-literal xsd:string: written as Oxigraph does
      { type: 'bnode', value: rows[5]!.o!.value },
      { type: 'typed-literal', datatype: `${XSD}boolean`, value: 'true' }, // Virtuoso says "1": written as "true"
      { type: 'typed-literal', datatype: `${XSD}dateTime`, value: '2020-01-01T00:00:00.500Z' }, // Oxigraph: ".5Z"
      { type: 'typed-literal', datatype: `${XSD}integer`, value: '0' }, // ill-typed: Oxigraph keeps "abc"
    ]);
    assert.match(rows[5]!.o!.value, /^b\d+$/, 'nodeID://b… is given as the label b…');
    // Lodestone's own reader of results takes them as they are
    const answer = await engine.query(s, `SELECT ?p ?o WHERE { ${x} ?p ?o } ORDER BY ?p`, union, false, never);
    const read = readResults(answer.kind === 'results' ? answer.json : '', RESULTS_JSON);
    assert.ok('bindings' in read && read.bindings.length === rows.length && read.bindings[5]!.o!.type === 'bnode');
    const [again] = await select(s, `SELECT ?v WHERE { ${x} <http://ex/p5> ?b . ?b <http://ex/q> ?v }`);
    assert.equal(again!.v!.value, 'b', 'one document\'s blank node stays one node');
    // N-Triples out (CONSTRUCT) for what Lodestone stores (left): Virtuoso's own rewriting (right)
    const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
    const rewritten: Array<[string, string]> = [
      [`"123456789012345678901234567890"^^<${XSD}integer>`, `"123456789012345678901234567890"^^<${XSD}decimal>`],
      [`"<b>x</b>"^^<${RDF}XMLLiteral>`, '"<b>x</b>"'],
      [`"P1Y"^^<${XSD}duration>`, `"12"^^<${XSD}duration>`],
      [`"+1"^^<${XSD}integer>`, `"1"^^<${XSD}integer>`],
      ['"x"@zh-Hant-TW', '"x"@zh-hant-tw'],
      ['"café 😀"', '"caf\\u00E9 \\U0001F600"'],
      [`"2020-13-45"^^<${XSD}dateTime>`, `"2020-13-45"^^<${XSD}dateTime>`],
    ];
    await engine.replace(s, rewritten.map(([o], i) => ({ graph: `${s.base}w${i}`, ntriples: `<${s.base}w#this> <http://ex/p> ${o} .\n` })), 'c1');
    for (const [i, [given, back]] of rewritten.entries()) {
      const out = await engine.query(s, `CONSTRUCT WHERE { GRAPH <${s.base}w${i}> { ?s ?p ?o } }`, union, true, never);
      assert.equal(out.kind === 'graph' ? out.ntriples : '', `<${s.base}w#this>\t<http://ex/p>\t${back} .\n`, given);
    }
    // Numbers are held by value, and equal values of different types are one object in Virtuoso's
    // index: a graph with 1, 01, 1.0 and true keeps one of them (other engines keep four triples).
    await engine.replace(s, [{ graph: `${s.base}num`, ntriples: ['"1"^^<' + XSD + 'integer>', '"01"^^<' + XSD + 'integer>', '"1.0"^^<' + XSD + 'decimal>', '"true"^^<' + XSD + 'boolean>']
      .map((o) => `<${s.base}num#this> <http://ex/p> ${o} .\n`).join('') }], 'c2');
    assert.equal((await select(s, `SELECT ?o WHERE { <${s.base}num#this> ?p ?o }`)).length, 1);
  });

  it('after a crash (kill -9) in the middle of a replace, the marker never names a commit whose graphs are not all there; a replay completes it', async () => {
    // a bulk load first, in many requests: it turns the transaction log off while it loads, and
    // must turn it on again on each of Virtuoso's HTTP threads, or what follows is lost in a crash
    const bulk = space();
    await engine.open(bulk);
    async function* graphs(): AsyncIterable<GraphReplacement> {
      for (let i = 0; i < 60; i++) yield doc(bulk, `d${i}`, [`v${i}`]);
    }
    await new VirtuosoEngine({ endpoint: server.endpoint, bulkBatchBytes: 1 }).bulkLoad(bulk, graphs(), 'bulk');
    const s = space();
    await engine.open(s);
    const first = Array.from({ length: 50 }, (_, i) => doc(s, `d${i}`, ['first', `${i}`]));
    // changes d10–d49, adds d50–d109, drops d0–d4
    const second: GraphReplacement[] = [
      ...Array.from({ length: 100 }, (_, i) => doc(s, `d${i + 10}`, Array.from({ length: 100 }, (_, j) => `second ${i} ${j}`))),
      ...Array.from({ length: 5 }, (_, i) => ({ graph: `${s.base}d${i}`, ntriples: null })),
    ];
    const state = async (graphs: readonly GraphReplacement[]): Promise<Map<string, string>> => {
      const current = new Map<string, string>();
      for (const g of graphs) if (g.ntriples === null) current.delete(g.graph); else current.set(g.graph, g.ntriples);
      return graphsInIndex([...current].map(([g, text]) => text.replace(/ \.\n/g, ` <${g}> .\n`)).join(''));
    };
    await engine.replace(s, first, 'c1');
    const replacing = engine.replace(s, second, 'c2').then(() => 'done', (error: Error) => error.message);
    await new Promise((resolve) => setTimeout(resolve, 100)); // while Virtuoso loads
    await server.kill();
    const outcome = await replacing;
    await server.restart();
    const marker = await engine.open(s);
    assert.ok(marker === 'c1' || marker === 'c2', `marker ${String(marker)} (${outcome})`);
    const before = await state(first);
    const after = await state([...first, ...second]);
    const found = await graphsInIndex(await engine.dump(s));
    if (marker === 'c2') assert.deepEqual(found, after, `at c2 (${outcome})`);
    // at c1, the graphs are between c1 and c2 (Virtuoso commits as it goes: a replaced graph may be
    // dropped and not yet loaded), never anything else: the marker is last, and the replay repairs
    for (const [g, text] of found) assert.ok(text === before.get(g) || text === after.get(g), `${g} at ${marker} (${outcome})`);
    await engine.replace(s, second, 'c2');
    assert.equal(await engine.open(s), 'c2');
    assert.deepEqual(await graphsInIndex(await engine.dump(s)), await state([...first, ...second]));
  });

  it('stops a query past its timeout with an error, never a part of the answer; answers an ASK beside a runaway query; lets an aborted one go', async () => {
    const s = space();
    await engine.open(s);
    await engine.replace(s, [doc(s, 'big', Array.from({ length: 300 }, (_, i) => `v${i}`))], 'c1');
    const runaway = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }';
    const quick = new VirtuosoEngine({ endpoint: server.endpoint, queryTimeoutMs: 1_000 });
    await assert.rejects(quick.query(s, runaway, union, false, never), (error) => isLodestoneError(error, 'QueryTimeout'));
    const controller = new AbortController();
    const pending = engine.query(s, runaway, union, false, controller.signal);
    // while it runs, the same dataspace's ASK is answered within a second (Virtuoso runs queries side by side)
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    const ask = await engine.query(s, 'ASK {}', union, false, never);
    assert.equal(ask.kind === 'results' && JSON.parse(ask.json).boolean, true);
    assert.ok(Date.now() - started < 1_000, `ASK took ${Date.now() - started} ms beside a runaway query`);
    controller.abort(new Error('stopped by the test'));
    await assert.rejects(pending, /stopped by the test/);
  });

  // last: it leaves the engine as a user's stock virtuoso.ini would
  it('refuses a Virtuoso that would cut answers short (ResultSetMaxRows), and says what to set', async () => {
    await server.restart({ ResultSetMaxRows: '10000' });
    await assert.rejects(new VirtuosoEngine({ endpoint: server.endpoint }).open(space()), (error: Error & { data?: { detail?: string } }) => /cuts SPARQL answers at 10000 rows.*ResultSetMaxRows = 1000000000/.test(error.data?.detail ?? ''));
  });
});
