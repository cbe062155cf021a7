/**
 * SPARQL over the dataspace as a past commit left it (issue 30): `version=` and Accept-Datetime
 * on /sparql, checked against a fresh Oxigraph store loaded from that commit's files as the git
 * CLI reads them; access control as at HEAD (the graphs readable now, each past version judged as
 * it was); bad, unknown and update requests; HEAD answered while a lane loads a large past commit.
 * The index's lanes without HTTP: a lane moves to a past commit and back, with one lane and with
 * two. The query page's "as of" field in Chromium is test/system/history-query-page.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import oxigraph from 'oxigraph';
import { agentIdentity } from '../src/dataspace.js';
import { documentFile, fileDocument } from '../src/document-paths.js';
import { isLodestoneError } from '../src/errors.js';
import { Index } from '../src/index/index.js';
import { ns } from '../src/rdf/namespaces.js';
import { GitStore } from '../src/store/git-store.js';
import { git, removeTempDirs, tempDir } from './helpers.js';
import { assertRdfError, putTurtle, signUp, startServer, type Stranger, type TestServer } from './http-helpers.js';

after(removeTempDirs);

const JSON_RESULTS = 'application/sparql-results+json';
const ALL = 'SELECT ?g ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }';
const DOCS = 20;
const EX = 'http://example.org/ns#';

/** SPARQL JSON results as sorted lines, one per row: comparable whatever the order. */
function rows(json: string): string[] {
  const parsed = JSON.parse(json) as { results: { bindings: Array<Record<string, { type: string; value: string; datatype?: string; 'xml:lang'?: string }>> } };
  return parsed.results.bindings.map((b) => Object.keys(b).sort().map((k) => `${k}=${b[k]!.type}:${b[k]!.value}:${b[k]!.datatype ?? ''}:${b[k]!['xml:lang'] ?? ''}`).join(' ')).sort();
}

/** The answer of `query` over a fresh store holding the files of `commit`, read with the git CLI (ls-tree, cat-file), graphs named as the index names them. */
function answerFromGit(repo: string, base: string, commit: string, query: string, graphs?: (url: string) => boolean): string[] {
  const store = new oxigraph.Store();
  for (const line of git(repo, 'ls-tree', '-r', '-z', commit, '--', 'graphs').split('\0').filter(Boolean)) {
    const [meta, path] = line.split('\t') as [string, string];
    const relative = fileDocument(path, 'graphs');
    if (relative === undefined || (graphs && !graphs(base + relative))) continue;
    store.load(git(repo, 'cat-file', 'blob', meta.split(' ')[2]!), { format: 'application/n-triples', to_graph_name: oxigraph.namedNode(base + relative) });
  }
  return rows(String(store.query(query, { results_format: JSON_RESULTS })));
}

describe('SPARQL at a past commit', () => {
  let s: TestServer;
  let repo: string;
  let stranger: Stranger;
  /** The commit 1,000 first-parent commits back from HEAD, the last before the date test's pause, and that pause's date. */
  let thousandBack: string;
  let beforeDate: string;
  let date: Date;
  /** A commit whose tree holds 2,000 more documents than HEAD's (200,000 triples), and its count of triples. */
  let bulky: string;

  const sparql = (query: string, params: Record<string, string> = {}, options: Parameters<TestServer['request']>[2] = {}) =>
    s.request('GET', `/sparql?${new URLSearchParams({ query, ...params }).toString()}`, { ...options, headers: { Accept: JSON_RESULTS, ...options.headers } });

  before(async () => {
    s = await startServer(['--query-lanes', '2'], tempDir('past'));
    const runtime = s.running.runtimes[0]!;
    repo = runtime.dataspace.store.dir;
    stranger = await signUp(s, 'Mallory Past');
    const owner = s.running.agents.owner.webId;
    const write = (relativePath: string, text: string) => runtime.documents.write({ method: 'PUT', relativePath, agent: owner, body: { text, mediaType: 'text/turtle' } });
    await write('past/', `<> a <${ns.dh}Container> ; <${ns.dct}title> "The past" .`);
    await write('past/open/', `<#this> <${EX}says> "open, first" .`);
    await write('past/given/', `<#this> <${EX}secret> "old secret" .`);
    // 1,050 commits by the store itself, 50 at a time (it commits them one by one, and syncs each batch once)
    const { store } = runtime.dataspace;
    for (let wave = 0; wave < 1050; wave += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, k) => {
        const n = wave + k;
        const doc = `past/d${n % DOCS}/`;
        const text = `<${s.base}${doc}#this> <${EX}doc> "d${n % DOCS}" .\n<${s.base}${doc}#this> <${EX}value> "${n}"^^<http://www.w3.org/2001/XMLSchema#integer> .\n`;
        return store.write({ changes: [{ path: documentFile(doc, 'graphs'), bytes: Buffer.from(text) }], author: agentIdentity(owner), message: `PUT ${s.base}${doc}` });
      }));
    }
    await write('past/open/', `<#this> <${EX}says> "open, second" .`);
    // the date test: into the next second, a date, into the next second again, then a change
    // (git dates are whole seconds; a timer is not early by 10 ms)
    const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1010 - (Date.now() % 1000)));
    await nextSecond();
    beforeDate = git(repo, 'rev-parse', 'HEAD').trim();
    date = new Date(Math.floor(Date.now() / 1000) * 1000);
    await nextSecond();
    await write('past/d0/', `<#this> <${EX}value> "after the date" .`);
    // 2,000 documents of 100 triples in one commit, deleted by the next: a large past commit
    const bulk = Array.from({ length: 2000 }, (_, d) => {
      const lines = Array.from({ length: 100 }, (_, t) => `<${s.base}bulk/b${d}/#t${t}> <${EX}n> "${d}-${t}" .\n`).sort();
      return { path: documentFile(`bulk/b${d}/`, 'graphs'), bytes: Buffer.from(lines.join('')) };
    });
    bulky = (await store.write({ changes: bulk, author: agentIdentity(owner), message: "bulk" }))!;
    await store.write({ changes: bulk.map((f) => ({ path: f.path, bytes: null })), author: agentIdentity(owner), message: 'bulk gone' });
    // now: anyone may read past/open/ and query; the stranger may add to past/, and makes
    // past/given/ again once the owner has deleted it: it owns it now, not what was there before
    const acl = ns.acl;
    await putTurtle(s, '/admin/acl/authorizations/past-open/', `<#this> a <${acl}Authorization> ; <${acl}agentClass> <${ns.foaf}Agent> ; <${acl}mode> <${acl}Read> ; <${acl}accessTo> <${s.base}past/open/>, <${s.base}sparql> .`);
    await putTurtle(s, '/admin/acl/authorizations/past-append/', `<#this> a <${acl}Authorization> ; <${acl}agent> <${stranger.webId}> ; <${acl}mode> <${acl}Append> ; <${acl}accessTo> <${s.base}past/> .`);
    const given = await s.request('HEAD', '/past/given/');
    assert.equal((await s.request('DELETE', '/past/given/', { headers: { 'If-Match': String(given.headers.etag) } })).status, 204);
    const made = await s.request('PUT', '/past/given/', { as: { pem: stranger.pem }, headers: { 'Content-Type': 'text/turtle', 'If-None-Match': '*' }, body: `<#this> <${EX}secret> "new" .` });
    assert.equal(made.status, 201, made.body);
    thousandBack = git(repo, 'rev-parse', 'HEAD~1000').trim();
  });

  after(async () => {
    await s?.close();
  });

  it('answers a query at a commit 1,000 commits back as a fresh store of that commit\'s files does', { timeout: 60_000 }, async () => {
    const res = await sparql(ALL, { version: thousandBack });
    assert.equal(res.status, 200, res.body);
    assert.equal(res.headers['lodestone-commit'], thousandBack);
    assert.match(String(res.headers.vary), /Accept-Datetime/);
    assert.equal(res.headers['memento-datetime'], undefined, 'asked by commit, not by date');
    const expected = answerFromGit(repo, s.base, thousandBack, ALL);
    assert.ok(expected.length > DOCS, `${expected.length} rows`);
    assert.deepEqual(rows(res.body), expected);
    const now = await sparql(ALL);
    assert.notDeepEqual(rows(now.body), expected, 'HEAD answers otherwise');
    assert.equal(now.headers['lodestone-commit'], git(repo, 'rev-parse', 'HEAD').trim());
    const empty = await sparql(ALL, { version: '' });
    assert.equal(empty.headers['lodestone-commit'], now.headers['lodestone-commit'], 'an empty version asks now');
    // abbreviated, by POST as a form, and again (a lane stays there)
    const short = await sparql(ALL, { version: thousandBack.slice(0, 10) });
    assert.deepEqual(rows(short.body), expected);
    const form = await s.request('POST', '/sparql', { headers: { Accept: JSON_RESULTS, 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ query: `${ALL} LIMIT 100000`, version: thousandBack }).toString() });
    assert.equal(form.status, 200, form.body);
    assert.deepEqual(rows(form.body), expected);
    const direct = await s.request('POST', `/sparql?version=${thousandBack}`, { headers: { Accept: JSON_RESULTS, 'Content-Type': 'application/sparql-query' }, body: `${ALL} OFFSET 0` });
    assert.deepEqual(rows(direct.body), expected);
  });

  it('answers by date (Accept-Datetime): the newest commit at or before it, with Memento-Datetime', async () => {
    const res = await sparql(ALL, {}, { headers: { 'Accept-Datetime': date.toUTCString() } });
    assert.equal(res.status, 200, res.body);
    assert.equal(res.headers['lodestone-commit'], beforeDate);
    const time = Number(git(repo, 'log', '-1', '--format=%ct', beforeDate).trim());
    assert.equal(res.headers['memento-datetime'], new Date(time * 1000).toUTCString());
    assert.deepEqual(rows(res.body), answerFromGit(repo, s.base, beforeDate, ALL));
    const byVersion = await sparql(ALL, { version: date.toISOString() });
    assert.equal(byVersion.headers['lodestone-commit'], beforeDate, 'the page\'s "as of" field sends a date as version=');
    assertRdfError(await sparql(ALL, {}, { headers: { 'Accept-Datetime': 'Mon, 01 Jan 1990 00:00:00 GMT' } }), 404, { title: /no commit at or before/ });
    assertRdfError(await sparql(ALL, {}, { headers: { 'Accept-Datetime': 'Mon, 01 Jan 1900 00:00:00 GMT' } }), 404, { title: /no commit at or before/ });
    const future = await sparql(ALL, {}, { headers: { 'Accept-Datetime': 'Fri, 01 Jan 2100 00:00:00 GMT' } }); // git reads no year past 2099: a 404 before
    assert.equal(future.status, 200, future.body);
    assert.equal(future.headers['lodestone-commit'], git(repo, 'rev-parse', 'HEAD').trim());
  });

  it('gives a past query the graphs the agent may read now, each as readable then: a stranger, anonymous', async () => {
    const asStranger = { as: { pem: stranger.pem } };
    const graphsOf = (body: string) => [...new Set(rows(body).map((r) => r.split(' ')[0]))].sort();
    const now = await sparql(ALL, {}, asStranger);
    assert.equal(now.status, 200, now.body);
    assert.deepEqual(graphsOf(now.body), [`g=uri:${s.base}past/given/::`, `g=uri:${s.base}past/open/::`]);
    const then = await sparql(ALL, { version: thousandBack }, asStranger);
    assert.equal(then.status, 200, then.body);
    // past/given/ was not the stranger's then: its old secret stays hidden (shown before readableAt)
    assert.doesNotMatch(then.body, /old secret/);
    assert.deepEqual(rows(then.body), answerFromGit(repo, s.base, thousandBack, ALL, (g) => g === `${s.base}past/open/`));
    assert.match(then.body, /open, first/);
    const anonymous = await sparql(ALL, { version: thousandBack }, { as: 'anonymous' });
    assert.deepEqual(rows(anonymous.body), rows(then.body));
    const named = await sparql(`SELECT ?o WHERE { GRAPH <${s.base}past/d1/> { ?s ?p ?o } }`, { version: thousandBack }, { as: 'anonymous' });
    assert.deepEqual(rows(named.body), [], 'a graph not readable now is not readable then');
    const fromNamed = await sparql('SELECT ?o WHERE { ?s ?p ?o }', { version: thousandBack, 'default-graph-uri': `${s.base}past/given/` }, asStranger);
    assert.deepEqual(rows(fromNamed.body), [], 'nor by naming it as the dataset');
  });

  it('refuses a malformed version (400), an unknown one (404), and an update with a version (400)', async () => {
    assertRdfError(await sparql(ALL, { version: 'xyz' }), 400, { title: /not a commit id/ });
    const unknown = await sparql(ALL, { version: 'f'.repeat(40) });
    assertRdfError(unknown, 404, { title: /no commit/ });
    assert.equal(unknown.headers['lodestone-commit'], undefined);
    const blob = git(repo, 'rev-parse', `${thousandBack}:graphs`).trim(); // an object of the repository that is no commit
    assertRdfError(await sparql(ALL, { version: blob }), 404);
    const admin = git(s.running.runtimes[1]!.dataspace.store.dir, 'rev-parse', 'HEAD').trim(); // another dataspace's commit
    assertRdfError(await sparql(ALL, { version: admin }), 404);
    assertRdfError(await sparql(ALL, {}, { headers: { 'Accept-Datetime': 'yesterday' } }), 400, { title: /not an HTTP date/ });
    assertRdfError(await s.request('GET', `/sparql?query=${encodeURIComponent(ALL)}&version=${thousandBack}&version=${beforeDate}`, { headers: { Accept: JSON_RESULTS } }), 400, { title: /at most one version/ });
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    const update = `INSERT DATA { <${s.base}x> <${EX}p> "v" }`;
    assertRdfError(await s.request('POST', `/sparql?version=${thousandBack}`, { headers: { 'Content-Type': 'application/sparql-update' }, body: update }), 400, { title: /never with a version/ });
    assertRdfError(await s.request('POST', '/sparql', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ update, version: thousandBack }).toString() }), 400);
    assertRdfError(await sparql(update, { version: thousandBack }), 400);
    assert.equal(git(repo, 'rev-parse', 'HEAD').trim(), head, 'nothing was written');
  });

  it('answers GETs and queries at HEAD while a lane loads a past commit of 200,000 more triples', { timeout: 120_000 }, async () => {
    let done = false;
    const started = performance.now();
    const past = sparql('SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }', { version: bulky }).finally(() => (done = true));
    let slowest = 0;
    let answered = 0;
    while (!done) {
      const t = performance.now();
      const [read, query] = await Promise.all([s.request('GET', '/past/open/', { headers: { Accept: 'text/turtle' } }), sparql(`ASK { GRAPH <${s.base}past/open/> { ?s ?p "open, second" } }`)]);
      assert.equal(read.status, 200);
      assert.match(query.body, /true/);
      slowest = Math.max(slowest, performance.now() - t);
      answered++;
      await new Promise((resolve) => setTimeout(resolve, 50)); // a reader's pace, not a flood that starves the lane
    }
    const res = await past;
    assert.equal(res.status, 200, res.body);
    assert.match(res.body, /"value":"2\d{5}"/, 'the count holds the 200,000 triples of the bulk commit');
    const took = performance.now() - started;
    console.log(`past load ${took.toFixed(0)} ms; ${answered} GET+HEAD query pairs meanwhile, slowest ${slowest.toFixed(0)} ms`);
    assert.ok(answered >= 2, `${answered} pairs answered during ${took.toFixed(0)} ms`);
    assert.ok(slowest < 1000, `a GET and a HEAD query took ${slowest.toFixed(0)} ms while a lane loaded`);
  });
});

describe('index lanes at a past commit', () => {
  for (const lanes of [1, 2]) {
    it(`move a lane there and back (${lanes} lane${lanes > 1 ? 's' : ''}): a query at HEAD after one at the past sees HEAD`, { timeout: 60_000 }, async () => {
      const base = 'https://localhost:4443/';
      const store = await GitStore.open({ dir: tempDir('past-lanes') });
      const author = agentIdentity(undefined);
      const commits: string[] = [];
      for (let n = 0; n < 30; n++) {
        const text = `<${base}d${n % 3}/#this> <${EX}value> "${n}" .\n`;
        commits.push((await store.write({ changes: [{ path: documentFile(`d${n % 3}/`, 'graphs'), bytes: Buffer.from(text) }], author, message: `PUT ${n}` }))!);
      }
      const index = new Index({ gitdir: store.gitdir, prefix: 'graphs', base, lanes, extraLanes: 0 });
      try {
        await index.syncTo(store.head);
        const values = async (at?: string, timeoutMs = 30_000) => rows(String(await index.query({ query: 'SELECT ?v WHERE { ?s ?p ?v } LIMIT 10', format: JSON_RESULTS, unionDefaultGraph: true }, timeoutMs, undefined, at)));
        const expect = (n: number) => [n - 2, n - 1, n].map((v) => `v=literal:${v}::`).sort();
        assert.deepEqual(await values(commits[10]), expect(10));
        assert.deepEqual(await values(), expect(29));
        const both = await Promise.all([values(commits[5]), values(), values(commits[20]), values()]);
        assert.deepEqual(both, [expect(5), expect(29), expect(20), expect(29)]);
        await store.write({ changes: [{ path: documentFile('d0/', 'graphs'), bytes: Buffer.from(`<${base}d0/#this> <${EX}value> "new" .\n`) }], author, message: 'PUT new' });
        index.follow(store.head);
        assert.ok((await values()).some((r) => r.includes(':new:')), 'HEAD after a write');
        assert.deepEqual(await values(commits[10]), expect(10));
        await index.syncTo(store.head);
        assert.equal(index.indexedCommit, store.head, 'lane 0 is back at HEAD');
        // a commit 50,000 triples away: the move counts in the query's limit, and past it the lane stops
        const big = Array.from({ length: 50_000 }, (_, t) => `<${base}big/#t${t}> <${EX}n> "${t}" .\n`).sort().join('');
        const bulky = (await store.write({ changes: [{ path: documentFile('big/', 'graphs'), bytes: Buffer.from(big) }], author, message: 'PUT big' }))!;
        await store.write({ changes: [{ path: documentFile('big/', 'graphs'), bytes: null }], author, message: 'DELETE big' });
        index.follow(store.head);
        await assert.rejects(values(bulky, 50), (error: Error) => isLodestoneError(error, 'QueryTimeout'));
        assert.ok((await values()).some((r) => r.includes(':new:')), 'HEAD after a stopped move');
        assert.deepEqual(await values(commits[10]), expect(10));
      } finally {
        await index.close();
        await store.close();
      }
    });
  }
});
