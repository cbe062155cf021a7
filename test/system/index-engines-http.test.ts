/**
 * The SPARQL endpoint on each engine, over HTTP, with a recording proxy between Lodestone and the
 * engine: SERVICE, LOAD and updates are refused before they reach it; the named graphs are the
 * dataspace's documents only (no marker, no system graph); the same agent's `ASK {}` sent 1 s into
 * its own runaway query is answered within a second (issue 27).
 */
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { removeTempDirs } from '../helpers.js';
import { assertRdfError, startServer, turtle, type TestServer } from '../http-helpers.js';
import { startEngine } from '../engines/engines.js';
import type { RunningEngine } from '../engines/oxigraph-server-engine.js';

after(removeTempDirs);

const KINDS = (process.env.LODESTONE_TEST_ENGINES ?? 'oxigraph-server,fuseki,virtuoso').split(',');
const EX = 'http://example.org/';
const RUNAWAY = 'SELECT (COUNT(*) AS ?count) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o . ?x ?y ?z }';
const TIMEOUT_MS = 8000;

/** An HTTP proxy to `target` that keeps every request body it passes on. */
async function recordingProxy(target: string): Promise<{ url: string; bodies: string[]; server: Server }> {
  const bodies: string[] = [];
  const to = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const text = body.toString('utf8');
      let decoded = text;
      try {
        decoded = decodeURIComponent(text.replace(/\+/g, ' ')); // a form; other bodies (multipart) stay as they are
      } catch {
        decoded = text;
      }
      bodies.push(`${req.method} ${req.url}\n${decoded}`);
      const out = httpRequest({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.destroy());
      res.on('close', () => out.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const credentials = to.username ? `${to.username}:${to.password}@` : '';
  return { url: `http://${credentials}127.0.0.1:${port}${to.pathname}`, bodies, server };
}

for (const kind of KINDS) {
  describe(`the SPARQL endpoint on ${kind}`, () => {
    let engine: RunningEngine;
    let proxy: Awaited<ReturnType<typeof recordingProxy>>;
    let s: TestServer;

    before(async () => {
      engine = await startEngine(kind);
      proxy = await recordingProxy(engine.url);
      s = await startServer(['--index', `${kind}:${proxy.url}`, '--sparql-timeout', String(TIMEOUT_MS)], undefined, (line) => process.env.ENGINE_LOG && console.log('LOG', line));
      for (let i = 0; i < 20; i++) {
        const res = await s.request('PUT', `doc-${i}/`, { headers: turtle, body: `<#this> <${EX}n> ${i} ; <${EX}label> "document ${i}" .` });
        assert.equal(res.status, 201, res.body);
      }
    });
    after(async () => {
      await s?.close();
      proxy?.server.close();
      await engine?.stop();
    });

    const sparql = (query: string) => s.request('GET', `sparql?${new URLSearchParams({ query })}`, { headers: { Accept: 'application/sparql-results+json' } });

    it('refuses SERVICE, LOAD, updates and engine IRIs before the engine sees them', async () => {
      // each with a mark of its own that Lodestone's own requests to the engine never carry
      const refused = [
        `SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }`,
        `SELECT * WHERE { SERVICE SILENT <http://127.0.0.1:9/other> { ?s ?p ?o } }`,
        `LOAD <http://127.0.0.1:9/data.nt>`,
        `INSERT DATA { <${EX}s> <${EX}p> "planted" }`,
        `SELECT ?leak7 WHERE { GRAPH <urn:x-arq:DefaultGraph> { ?leak7 ?p ?o } }`,
        `SELECT (<java:org.apache.jena.sparql.function.library.sha1sum>("leak8") AS ?x) WHERE {}`,
        `PREFIX b: <bif:> SELECT (b:sys_stat("st_dbms_name") AS ?x) WHERE {}`,
        `PREFIX bif: <http://www.openlinksw.com/schemas/bif#> SELECT (bif:http_get("http://127.0.0.1:9/leak9") AS ?x) WHERE {}`,
      ];
      const before = proxy.bodies.length;
      for (const query of refused) assertRdfError(await sparql(query), 400);
      const seen = proxy.bodies.slice(before).join('\n');
      for (const mark of ['127.0.0.1:9/', 'planted', 'leak7', 'leak8', 'st_dbms_name', 'leak9']) assert.ok(!seen.includes(mark), `${mark} reached the engine: ${seen.slice(0, 300)}`);
    });

    it('names only the dataspace\'s documents as graphs: no marker, no system graph', async () => {
      const bindings = async (query: string) => {
        const res = await sparql(query);
        assert.equal(res.status, 200, `${query}: ${res.body}`);
        return (JSON.parse(res.body) as { results: { bindings: Array<Record<string, { value: string }>> } }).results.bindings;
      };
      // SPARQL §18.6: GRAPH ?g { } is a solution per named graph (Virtuoso's own answer is one empty row)
      const named = (await bindings('SELECT DISTINCT ?g WHERE { GRAPH ?g { } } ORDER BY ?g')).map((b) => b.g?.value);
      assert.deepEqual(named, (await bindings('SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?g')).map((b) => b.g?.value));
      assert.equal((await bindings('SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { } }'))[0]!.n!.value, String(named.length));
      // every way of listing graphs, Virtuoso's shortcut for the first three among them (it lists every graph of the engine unchecked)
      for (const query of [
        'SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }',
        'SELECT DISTINCT ?g WHERE { GRAPH ?g { ?a ?b ?c } } LIMIT 1000',
        'SELECT DISTINCT (?g AS ?name) WHERE { { GRAPH ?g { ?s ?p ?o } } }',
        'SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } } OFFSET 1',
        'SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } }',
        'SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g',
      ]) {
        const graphs = (await bindings(query)).map((b) => Object.values(b)[0]!.value);
        if (!query.includes('OFFSET')) assert.ok(graphs.length >= 20, `${query}: ${graphs.join(' ')}`);
        for (const graph of graphs) assert.ok(graph.startsWith(s.base), `${query}: ${graph} is not a document of ${s.base}`);
      }
      const [outside] = await bindings('SELECT (COUNT(*) AS ?n) WHERE { { ?s ?p ?o FILTER (!STRSTARTS(STR(?s), "' + s.base + '")) } UNION { GRAPH ?g { ?s ?p ?o } FILTER (!STRSTARTS(STR(?g), "' + s.base + '")) } }');
      assert.equal(outside!.n!.value, '0');
    });

    it("answers the same agent's ASK {} within a second while its runaway query runs", { timeout: 60_000 }, async () => {
      const started = Date.now();
      const runaway = sparql(RUNAWAY);
      await new Promise((r) => setTimeout(r, 1000));
      const asked = Date.now();
      const ask = await sparql('ASK {}');
      const took = Date.now() - asked;
      assert.equal(ask.status, 200, ask.body);
      assert.equal((JSON.parse(ask.body) as { boolean: boolean }).boolean, true);
      assert.ok(took < 1000, `ASK {} took ${took} ms behind the same agent's runaway query`);
      assertRdfError(await runaway, 503);
      console.log(`# ${kind}: ASK answered in ${took} ms; the runaway stopped after ${Date.now() - started} ms`);
    });
  });
}
