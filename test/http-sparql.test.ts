/**
 * The SPARQL endpoint `<base>sparql` (SPEC §4.4, SPARQL 1.1 Protocol §2.1; src/http/sparql.ts):
 * GET and both POST forms; SELECT/ASK in the four result formats and CONSTRUCT/DESCRIBE in the four
 * RDF formats; documents as named graphs, the union as the default graph, `default-graph-uri` and
 * `named-graph-uri` replacing the dataset; updates refused with git untouched; errors as RDF; the
 * result cache and `Age`; the admin dataspace's own endpoint; and a runaway query stopped by the
 * timeout while documents keep being served.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import oxigraph from 'oxigraph';
import type { Index } from '../src/index/index.js';
import { ns } from '../src/rdf/namespaces.js';
import { commitCount, git, graphsAtHead, graphsInIndex, removeTempDirs, waitFor } from './helpers.js';
import { assertRdfError, startServer, turtle, type Response, type TestServer } from './http-helpers.js';

after(removeTempDirs);

const FOAF = ns.foaf;
const EX = 'http://example.org/';
const JSON_RESULTS = 'application/sparql-results+json';
const XML_RESULTS = 'application/sparql-results+xml';
const CSV = 'text/csv';
const TSV = 'text/tab-separated-values';
const RDF_TYPES = ['text/turtle', 'application/n-triples', 'application/rdf+xml', 'application/ld+json'];
const PREFIXES = `PREFIX foaf: <${FOAF}> PREFIX ex: <${EX}> `;

interface JsonResults {
  head: { vars?: string[] };
  results?: { bindings: Array<Record<string, { type: string; value: string }>> };
  boolean?: boolean;
}

function contentType(res: Response): string {
  return String(res.headers['content-type'] ?? '').split(';')[0]!.trim();
}

function values(res: Response, variable: string): string[] {
  assert.equal(res.status, 200, res.body);
  assert.equal(contentType(res), JSON_RESULTS);
  const json = JSON.parse(res.body) as JsonResults;
  return (json.results?.bindings ?? []).map((b) => b[variable]?.value ?? '').sort();
}

/** The triples of an RDF body in any of the four formats, as sorted N-Triples lines. */
function triplesOf(body: string, format: string, base: string): string[] {
  const quads = oxigraph.parse(body, { format, base_iri: base });
  return quads.map((q) => `${q.subject.toString()} ${q.predicate.toString()} ${q.object.toString()}`).sort();
}

describe('the SPARQL endpoint', () => {
  let s: TestServer;
  let repo: string;
  let alice: string;
  let bob: string;

  const get = (query: string, accept?: string, extra: Record<string, string | string[]> = {}, path = 'sparql') => {
    const params = new URLSearchParams({ query });
    for (const [name, value] of Object.entries(extra)) for (const v of [value].flat()) params.append(name, v);
    return s.request('GET', `${path}?${params}`, accept ? { headers: { Accept: accept } } : {});
  };
  const form = (fields: Array<[string, string]>, accept?: string) =>
    s.request('POST', 'sparql', { headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(accept ? { Accept: accept } : {}) }, body: new URLSearchParams(fields).toString() });
  const names = (res: Response) => values(res, 'name');
  const NAME_JOIN = `${PREFIXES} SELECT ?name WHERE { ?x foaf:knows ?y . ?y foaf:name ?name }`;
  const ALL_NAMES = `${PREFIXES} SELECT ?name WHERE { ?x foaf:name ?name }`;
  const GRAPHS = 'SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }';

  before(async () => {
    s = await startServer();
    repo = s.running.runtimes[0]!.dataspace.store.dir;
    alice = `${s.base}alice/`;
    bob = `${s.base}bob/`;
    for (const [path, body] of [
      ['alice/', `@prefix foaf: <${FOAF}> . <#this> a foaf:Person ; foaf:name "Alice" ; foaf:knows <../bob/#this> .`],
      ['bob/', `@prefix foaf: <${FOAF}> . <#this> a foaf:Person ; foaf:name "Bob" .`],
    ] as const) {
      const res = await s.request('PUT', path, { headers: turtle, body });
      assert.equal(res.status, 201, res.body);
    }
  });
  after(() => s?.close());

  describe('protocol operations', () => {
    it('answers GET with a query parameter', async () => {
      assert.deepEqual(names(await get(ALL_NAMES)), ['Alice', 'Bob']);
    });

    it('answers POST as application/x-www-form-urlencoded', async () => {
      assert.deepEqual(names(await form([['query', ALL_NAMES]])), ['Alice', 'Bob']);
    });

    it('answers POST as application/sparql-query', async () => {
      const res = await s.request('POST', 'sparql', { headers: { 'Content-Type': 'application/sparql-query' }, body: ALL_NAMES });
      assert.deepEqual(names(res), ['Alice', 'Bob']);
      // SPARQL 1.1 Protocol §2.1.3: the dataset goes in the URL
      const withDataset = await s.request('POST', `sparql?${new URLSearchParams({ 'default-graph-uri': alice })}`, { headers: { 'Content-Type': 'application/sparql-query; charset=utf-8' }, body: ALL_NAMES });
      assert.deepEqual(names(withDataset), ['Alice']);
    });

    it('answers a form POST with the dataset in the body', async () => {
      assert.deepEqual(names(await form([['query', ALL_NAMES], ['default-graph-uri', bob]])), ['Bob']);
    });

    it('answers 400 with an RDF error to a missing query (a GET without one is the Service Description, test/http-interop.test.ts)', async () => {
      assertRdfError(await form([['default-graph-uri', alice]]), 400);
      assertRdfError(await s.request('POST', 'sparql', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' }), 400);
    });

    it('answers 400 with an RDF error to a malformed query', async () => {
      assertRdfError(await get('SELECT ?x WHERE { ?x ?y }'), 400);
      assertRdfError(await get('this is not SPARQL'), 400);
      assertRdfError(await s.request('POST', 'sparql', { headers: { 'Content-Type': 'application/sparql-query' }, body: 'SELECT * WHERE {' }), 400);
    });

    it('answers 406 when no requested result format is available', async () => {
      assertRdfError(await get(ALL_NAMES, 'image/png'), 406);
      assertRdfError(await get(ALL_NAMES, 'text/turtle'), 406);
      assertRdfError(await get(`CONSTRUCT WHERE { ?s ?p ?o }`, JSON_RESULTS), 406);
    });
  });

  describe('result formats', () => {
    it('answers SELECT as SPARQL JSON by default', async () => {
      const res = await get(ALL_NAMES);
      assert.equal(contentType(res), JSON_RESULTS);
      const json = JSON.parse(res.body) as JsonResults;
      assert.deepEqual(json.head.vars, ['name']);
      assert.deepEqual(json.results?.bindings.map((b) => b.name).sort((a, b) => a!.value.localeCompare(b!.value)), [
        { type: 'literal', value: 'Alice' },
        { type: 'literal', value: 'Bob' },
      ]);
    });

    it('answers SELECT as SPARQL XML, CSV and TSV', async () => {
      const xml = await get(ALL_NAMES, XML_RESULTS);
      assert.equal(xml.status, 200, xml.body);
      assert.equal(contentType(xml), XML_RESULTS);
      assert.match(xml.body, /<sparql xmlns="http:\/\/www\.w3\.org\/2005\/sparql-results#"/);
      assert.match(xml.body, /<variable name="name"\s*\/>/);
      assert.match(xml.body, /<literal>Alice<\/literal>/);
      assert.match(xml.body, /<literal>Bob<\/literal>/);

      const csv = await get(ALL_NAMES, CSV);
      assert.equal(csv.status, 200, csv.body);
      assert.equal(contentType(csv), CSV);
      const csvLines = csv.body.split(/\r?\n/).filter(Boolean);
      assert.equal(csvLines[0], 'name');
      assert.deepEqual(csvLines.slice(1).sort(), ['Alice', 'Bob']);

      const tsv = await get(ALL_NAMES, TSV);
      assert.equal(tsv.status, 200, tsv.body);
      assert.equal(contentType(tsv), TSV);
      const tsvLines = tsv.body.split(/\r?\n/).filter(Boolean);
      assert.equal(tsvLines[0], '?name');
      assert.deepEqual(tsvLines.slice(1).sort(), ['"Alice"', '"Bob"']);
    });

    it('answers ASK in the four result formats', async () => {
      const ask = `${PREFIXES} ASK { ?x foaf:name "Alice" }`;
      const askFalse = `${PREFIXES} ASK { ?x foaf:name "Carol" }`;
      for (const [query, expected] of [[ask, true], [askFalse, false]] as const) {
        const json = await get(query);
        assert.equal(json.status, 200, json.body);
        assert.equal(contentType(json), JSON_RESULTS);
        assert.equal((JSON.parse(json.body) as JsonResults).boolean, expected);
        const xml = await get(query, XML_RESULTS);
        assert.equal(contentType(xml), XML_RESULTS);
        assert.match(xml.body, new RegExp(`<boolean>${expected}</boolean>`));
        for (const type of [CSV, TSV]) {
          const res = await get(query, type);
          assert.equal(res.status, 200, res.body);
          assert.equal(contentType(res), type);
          // as Jena writes and reads it (issue 19, item 3): a header naming _askResult, then the value
          assert.equal(res.body, type === CSV ? `_askResult\r\n${expected}\r\n` : `?_askResult\n${expected}\n`, `ASK as ${type}`);
        }
      }
    });

    it('answers CONSTRUCT in Turtle, N-Triples, RDF/XML and JSON-LD', async () => {
      const query = `${PREFIXES} CONSTRUCT { ?x foaf:name ?n } WHERE { ?x foaf:name ?n }`;
      const expected = [`<${alice}#this> <${FOAF}name> "Alice"`, `<${bob}#this> <${FOAF}name> "Bob"`];
      for (const type of RDF_TYPES) {
        const res = await get(query, type);
        assert.equal(res.status, 200, `${type}: ${res.body}`);
        assert.equal(contentType(res), type);
        assert.deepEqual(triplesOf(res.body, type, s.base), expected, `CONSTRUCT as ${type}`);
      }
    });

    it('answers DESCRIBE in Turtle, N-Triples, RDF/XML and JSON-LD', async () => {
      const query = `DESCRIBE <${bob}#this>`;
      for (const type of RDF_TYPES) {
        const res = await get(query, type);
        assert.equal(res.status, 200, `${type}: ${res.body}`);
        assert.equal(contentType(res), type);
        const triples = triplesOf(res.body, type, s.base);
        assert.ok(triples.includes(`<${bob}#this> <${FOAF}name> "Bob"`), `DESCRIBE as ${type}: ${triples.join('\n')}`);
        assert.ok(triples.includes(`<${bob}#this> <${ns.rdf}type> <${FOAF}Person>`));
      }
    });
  });

  describe('the dataset', () => {
    it('names each document’s graph by its URL', async () => {
      const graphs = values(await get(GRAPHS), 'g');
      for (const url of [s.base, alice, bob]) assert.ok(graphs.includes(url), `${url} is a named graph: ${graphs.join(', ')}`);
      // a known limit (README, "Index on a SPARQL server"): Virtuoso lets every user read its own graph of RDF views
      const known = process.env.LODESTONE_TEST_INDEX === 'virtuoso' ? ['http://www.openlinksw.com/schemas/virtrdf#'] : [];
      for (const g of graphs) assert.ok((g.startsWith(s.base) && g.endsWith('/')) || known.includes(g), `${g} is a document URL`);
      const owned = values(await get(`SELECT ?g WHERE { GRAPH ?g { <${bob}#this> <${FOAF}name> "Bob" } }`), 'g');
      assert.deepEqual(owned, [bob]);
    });

    it('makes the default graph the union of the documents when no dataset is given', async () => {
      assert.deepEqual(names(await get(NAME_JOIN)), ['Bob'], 'a join across two documents');
    });

    it('makes a default-graph-uri document the default graph', async () => {
      assert.deepEqual(names(await get(ALL_NAMES, undefined, { 'default-graph-uri': alice })), ['Alice']);
      assert.deepEqual(names(await get(NAME_JOIN, undefined, { 'default-graph-uri': alice })), [], 'Bob’s name is not in Alice’s document');
      assert.deepEqual(names(await get(NAME_JOIN, undefined, { 'default-graph-uri': [alice, bob] })), ['Bob'], 'two default-graph-uri are merged');
    });

    it('uses FROM when the request has no dataset, and lets default-graph-uri override FROM', async () => {
      const fromBob = `${PREFIXES} SELECT ?name FROM <${bob}> WHERE { ?x foaf:name ?name }`;
      assert.deepEqual(names(await get(fromBob)), ['Bob']);
      assert.deepEqual(names(await get(fromBob, undefined, { 'default-graph-uri': alice })), ['Alice']);
      const fromNamed = `SELECT DISTINCT ?g FROM NAMED <${alice}> WHERE { GRAPH ?g { ?s ?p ?o } }`;
      assert.deepEqual(values(await get(fromNamed), 'g'), [alice]);
      assert.deepEqual(values(await get(fromNamed, undefined, { 'default-graph-uri': bob }), 'g'), [], 'FROM NAMED is overridden too');
    });

    it('matches nothing with a GRAPH pattern when only default-graph-uri is given', async () => {
      assert.deepEqual(values(await get(GRAPHS, undefined, { 'default-graph-uri': alice }), 'g'), []);
      assert.deepEqual(values(await get(`SELECT ?n WHERE { GRAPH <${alice}> { ?x <${FOAF}name> ?n } }`, undefined, { 'default-graph-uri': alice }), 'n'), []);
    });

    it('limits GRAPH to the named-graph-uri documents', async () => {
      assert.deepEqual(values(await get(GRAPHS, undefined, { 'named-graph-uri': alice }), 'g'), [alice]);
      assert.deepEqual(values(await get(GRAPHS, undefined, { 'named-graph-uri': [alice, bob] }), 'g'), [alice, bob].sort());
      assert.deepEqual(names(await get(ALL_NAMES, undefined, { 'named-graph-uri': alice })), [], 'the default graph is empty');
      const both = await get(`${PREFIXES} SELECT ?name WHERE { ?x foaf:name ?name . GRAPH ?g { ?x a foaf:Person } }`, undefined, { 'default-graph-uri': alice, 'named-graph-uri': bob });
      assert.deepEqual(names(both), [], 'Alice is in the default graph, but not in the named graph');
    });
  });

  describe('updates', () => {
    const update = `INSERT DATA { <${EX}s> <${EX}p> "injected" }`;
    const injected = `ASK { GRAPH ?g { ?s <${EX}p> "injected" } }`;

    async function assertRefused(send: () => Promise<Response>): Promise<void> {
      const head = git(repo, 'rev-parse', 'HEAD');
      const count = commitCount(repo);
      assertRdfError(await send(), '4xx');
      assert.equal(git(repo, 'rev-parse', 'HEAD'), head, 'HEAD did not move');
      assert.equal(commitCount(repo), count);
      const ask = await get(injected);
      assert.equal((JSON.parse(ask.body) as JsonResults).boolean, false, 'the index holds nothing new');
    }

    it('refuses an update= form field', async () => {
      await assertRefused(() => form([['update', update]]));
      await assertRefused(() => form([['query', ALL_NAMES], ['update', update]]));
    });

    it('refuses an application/sparql-update body', async () => {
      await assertRefused(() => s.request('POST', 'sparql', { headers: { 'Content-Type': 'application/sparql-update' }, body: update }));
    });

    it('refuses an update sent as the query', async () => {
      await assertRefused(() => get(update));
      await assertRefused(() => form([['query', update]]));
      await assertRefused(() => s.request('POST', 'sparql', { headers: { 'Content-Type': 'application/sparql-query' }, body: update }));
    });
  });

  describe('freshness and caching', () => {
    it('shows a write to the next query (read your writes)', async () => {
      const query = `SELECT ?v WHERE { <${s.base}ryw/#this> <${EX}v> ?v }`;
      assert.deepEqual(values(await get(query), 'v'), []);
      const created = await s.request('PUT', 'ryw/', { headers: turtle, body: `<#this> <${EX}v> "1" .` });
      assert.equal(created.status, 201, created.body);
      assert.deepEqual(values(await get(query), 'v'), ['1']);

      const etag = (await s.request('GET', 'ryw/', { headers: { Accept: 'text/turtle' } })).headers.etag as string;
      const replaced = await s.request('PUT', 'ryw/', { headers: { ...turtle, 'If-Match': etag }, body: `<#this> <${EX}v> "2" .` });
      assert.equal(replaced.status, 200, replaced.body);
      assert.deepEqual(values(await get(query), 'v'), ['2']);

      const etag2 = (await s.request('GET', 'ryw/', { headers: { Accept: 'text/turtle' } })).headers.etag as string;
      const deleted = await s.request('DELETE', 'ryw/', { headers: { 'If-Match': etag2 } });
      assert.equal(deleted.status, 204, deleted.body);
      assert.deepEqual(values(await get(query), 'v'), []);
      assert.ok(!values(await get(GRAPHS), 'g').includes(`${s.base}ryw/`), 'the deleted document’s graph is gone');
    });

    it('sends Age: 0 on a fresh result, answers a repeated query from the cache, and a write invalidates it', async () => {
      const query = 'SELECT (STRUUID() AS ?u) WHERE {}';
      const first = await get(query);
      assert.equal(first.status, 200, first.body);
      assert.equal(first.headers.age, '0');
      const second = await get(query);
      assert.equal(second.status, 200);
      assert.ok(second.headers.age !== undefined, 'a cached result has Age');
      assert.equal(second.body, first.body, 'the same UUID: the result came from the cache');
      await new Promise((r) => setTimeout(r, 1100));
      const third = await get(query);
      assert.equal(third.body, first.body);
      assert.ok(Number(third.headers.age) >= 1, `Age counts the seconds since the result was computed (${String(third.headers.age)})`);
      // another format is another result
      const xml = await get(query, XML_RESULTS);
      assert.equal(xml.headers.age, '0');
      // a write makes a new commit, so the next answer is computed again
      assert.equal((await s.request('PUT', 'cache-buster/', { headers: turtle, body: '' })).status, 201);
      const fourth = await get(query);
      assert.equal(fourth.headers.age, '0');
      assert.notEqual(fourth.body, first.body, 'a fresh UUID after the write');
    });
  });

  describe('the admin dataspace', () => {
    it('has its own endpoint that sees only admin documents', async () => {
      const index = s.running.runtimes.find((r) => r.role === 'admin')!.dataspace.index as Index;
      assert.equal(index.status.lanes, 0, 'no lane before the first query of the admin dataspace (index.ts onFirstUse)');
      const refused = await s.request('GET', `${s.admin}sparql?${new URLSearchParams({ query: GRAPHS })}`, { as: 'anonymous' });
      assert.ok(refused.status === 401 || refused.status === 403, `an anonymous query of the admin dataspace is refused (${refused.status})`);
      assert.equal(index.status.lanes, 0, 'and starts no lane: access is decided before the index is asked');
      const adminGraphs = values(await get(GRAPHS, undefined, {}, `${s.admin}sparql`), 'g');
      for (const path of ['', 'acl/', 'acl/agents/', 'acl/public-keys/', 'acl/groups/', 'acl/authorizations/', s.running.agents.owner.documentPath]) {
        assert.ok(adminGraphs.includes(s.admin + path), `${s.admin + path} is an admin graph`);
      }
      for (const g of adminGraphs) assert.ok(g.startsWith(s.admin), `${g} is an admin document`);
      assert.ok(!adminGraphs.includes(alice));
      const endUserGraphs = values(await get(GRAPHS), 'g');
      for (const g of endUserGraphs) assert.ok(!g.startsWith(s.admin), `the end-user endpoint does not see ${g}`);
      const webId = s.running.agents.owner.webId;
      const ask = await get(`ASK { <${webId}> <${ns.cert}key> ?k }`, undefined, {}, `${s.admin}sparql`);
      assert.equal((JSON.parse(ask.body) as JsonResults).boolean, true);
      assert.equal(index.status.lanes, 1);
      const askEndUser = await get(`ASK { <${webId}> <${ns.cert}key> ?k }`);
      assert.equal((JSON.parse(askEndUser.body) as JsonResults).boolean, false);
    });
  });
});

// one query lane (an extra one starts once the runaway query is past the budget: src/index/index.ts), and the default two
for (const lanes of ['1', '2']) describe(`the SPARQL timeout (--sparql-timeout 2000 --query-lanes ${lanes})`, () => {
  let s: TestServer;
  const DOCUMENTS = 20;

  before(async () => {
    s = await startServer(['--sparql-timeout', '2000', '--query-lanes', lanes]);
    for (let i = 0; i < DOCUMENTS; i++) {
      const res = await s.request('PUT', `doc-${i}/`, { headers: turtle, body: `<#this> <${EX}n> ${i} ; <${EX}label> "document ${i}" .` });
      assert.equal(res.status, 201, res.body);
    }
  });
  after(() => s?.close());

  const count = async () => {
    const res = await s.request('GET', `sparql?${new URLSearchParams({ query: 'SELECT (COUNT(DISTINCT ?g) AS ?c) WHERE { GRAPH ?g { ?s ?p ?o } }' })}`);
    assert.equal(res.status, 200, res.body);
    return Number((JSON.parse(res.body) as JsonResults).results!.bindings[0]!.c!.value);
  };

  const runaway = 'SELECT (COUNT(*) AS ?count) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o . ?x ?y ?z }';
  const startRunaway = () => {
    const started = Date.now();
    const state = { answeredAt: 0, started };
    const response = s.request('GET', `sparql?${new URLSearchParams({ query: runaway })}`).then((res) => {
      state.answeredAt = Date.now();
      return res;
    });
    return { state, response };
  };

  it('stops a runaway query with a 5xx RDF error, keeps serving documents meanwhile, and recovers', { timeout: 60_000 }, async () => {
    assert.equal(await count(), DOCUMENTS + 1, 'the documents and the root');
    const { state, response } = startRunaway();
    const latencies: number[] = [];
    while (!state.answeredAt) {
      const t = Date.now();
      const res = await s.request('GET', `doc-${latencies.length % DOCUMENTS}/`);
      latencies.push(Date.now() - t);
      assert.equal(res.status, 200, `a document GET during the runaway query: ${res.body}`);
    }
    const res = await response;
    assertRdfError(res, '5xx');
    assert.ok(latencies.length > 0, 'documents were read while the query ran');
    console.log(`# runaway query answered ${res.status} after ${state.answeredAt - state.started} ms; ${latencies.length} document GETs meanwhile, max latency ${Math.max(...latencies)} ms`);

    // the worker was replaced and rebuilt its index: queries work and see every document
    assert.equal(await count(), DOCUMENTS + 1);
    const label = await s.request('GET', `sparql?${new URLSearchParams({ query: `SELECT ?l WHERE { <${s.base}doc-7/#this> <${EX}label> ?l }` })}`);
    assert.deepEqual(values(label, 'l'), ['document 7']);
    // and a write after the restart is seen
    assert.equal((await s.request('PUT', 'after-timeout/', { headers: turtle, body: '' })).status, 201);
    assert.equal(await count(), DOCUMENTS + 2);
  });

  it('answers a query queued behind a runaway one over every document, including a write made meanwhile, and the index returns to HEAD', { timeout: 60_000 }, async () => {
    const dataspace = s.running.runtimes[0]!.dataspace;
    const before = await count();
    const { state, response } = startRunaway();
    await new Promise((r) => setTimeout(r, 300)); // let the runaway query reach the worker
    const put = await s.request('PUT', 'during-runaway/', { headers: turtle, body: `<#this> <${EX}label> "written during the runaway query" .` });
    assert.equal(put.status, 201, put.body);
    assert.ok(!state.answeredAt, 'the write was made while the runaway query ran');
    const queued = count();
    assertRdfError(await response, '5xx');
    const seen = await queued;
    // the source of truth: without any further request, the index comes back to HEAD with every document
    let caughtUp = true;
    try {
      await waitFor(() => dataspace.index.indexedCommit === dataspace.store.head, 10_000);
    } catch {
      caughtUp = false;
    }
    const indexed = await graphsInIndex(await dataspace.index.dump());
    const truth = await graphsAtHead(dataspace.store.dir, dataspace.base);
    assert.equal(seen, before + 1, `the query queued behind the runaway one sees ${seen} documents, not ${before + 1}`);
    assert.ok(caughtUp, `the index reflects ${dataspace.index.indexedCommit ?? 'nothing'}, HEAD is ${dataspace.store.head}`);
    assert.deepEqual([...indexed.keys()].sort(), [...truth.keys()].sort(), 'the index holds the documents at HEAD');
    assert.equal(await count(), before + 1);
  });
});
