/**
 * Query lanes over HTTP (src/index/index.ts; issue 17, item 7; issue 27): with the default two
 * lanes, a runaway query holds up only its own lane. Other agents' ASK and SELECT on the same
 * dataspace are answered while it runs, and so is its own agent's `ASK {}` sent 1 s into it, within
 * 1 s (a liveness bound: the runaway runs for seconds; before issue 27 that ASK waited for the
 * runaway to be stopped); it ends in a 503 RDF error and one warning line; queries right after see
 * the latest write; and the stopped lane comes back (the second round needs the lanes again). An
 * agent whose slow queries hold every lane it may use is refused at once: 503, Retry-After, the RDF
 * error body.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { removeTempDirs, waitFor } from './helpers.js';
import { assertRdfError, header, startServer, turtle, type RequestOptions, type Response, type TestServer } from './http-helpers.js';
import type { Index } from '../src/index/index.js';

after(removeTempDirs);

const EX = 'http://example.org/';
/** A cross product of six patterns: it runs for far longer than the limit. Over 100 characters, on several lines. */
const RUNAWAY = '# every combination of six triples\nSELECT (COUNT(*) AS ?count)\nWHERE {\n  ?a ?b ?c . ?d ?e ?f . ?g ?h ?i .\n  ?j ?k ?l . ?m ?n ?o . ?x ?y ?z\n}';
const TIMEOUT_MS = 4500;

describe(`query lanes (--sparql-timeout ${TIMEOUT_MS}, two lanes by default)`, () => {
  let s: TestServer;
  const logs: Array<{ at: number; line: string }> = [];
  const DOCUMENTS = 20;

  before(async () => {
    s = await startServer(['--sparql-timeout', String(TIMEOUT_MS), '--query-lanes', '2'], undefined, (line) => logs.push({ at: Date.now(), line }));
    for (let i = 0; i < DOCUMENTS; i++) {
      const res = await s.request('PUT', `doc-${i}/`, { headers: turtle, body: `<#this> <${EX}n> ${i} ; <${EX}label> "document ${i}" .` });
      assert.equal(res.status, 201, res.body);
    }
    // the first query starts the workers that parse queries: the ASK timed below measures the lanes, not that
    assert.equal(json(await sparql('ASK {} # warm-up')).boolean, true);
  });
  after(() => s?.close());

  const sparql = (query: string, as: RequestOptions['as'] = 'owner') =>
    s.request('GET', `sparql?${new URLSearchParams({ query })}`, { as, headers: { Accept: 'application/sparql-results+json' } });
  const json = (res: Response) => {
    assert.equal(res.status, 200, res.body);
    return JSON.parse(res.body) as { boolean?: boolean; results?: { bindings: Array<Record<string, { value: string }>> } };
  };
  const graphs = async (as: RequestOptions['as'] = 'owner') =>
    Number(json(await sparql('SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }', as)).results!.bindings[0]!.n!.value);

  it("answers ASK and a small SELECT of another agent, and the runaway agent's own ASK, while a runaway query runs, stops the runaway with a 503 and a warning, and brings its lane back", { timeout: 120_000 }, async () => {
    const owner = s.running.agents.owner.webId;
    const index = s.running.runtimes[0]!.dataspace.index as Index;
    for (const round of [1, 2]) {
      const started = Date.now();
      let answeredAt = 0;
      const runaway = sparql(RUNAWAY).then((res) => ((answeredAt = Date.now()), res));
      await waitFor(() => index.status.onLanes === 1);
      // 1 s into its runaway query (past the budget: its lane is slow), the same agent's ASK is answered within 1 s
      await new Promise((r) => setTimeout(r, 1000));
      const asked = Date.now();
      assert.equal(json(await sparql(`ASK {} # ${round}`)).boolean, true);
      const askMs = Date.now() - asked;
      assert.ok(!answeredAt, `round ${round}: the runaway's own agent was answered while the runaway ran`);
      assert.ok(askMs < 1000, `round ${round}: the runaway's own agent's ASK took ${askMs} ms`);
      let answered = 0;
      for (let n = 0; !answeredAt; n++) {
        // a comment makes each query new to the endpoint's result cache: every one runs on a lane
        assert.equal(json(await sparql(`ASK {} # ${round}.${n}`, 'secretary')).boolean, true);
        assert.ok(json(await sparql(`SELECT ?l WHERE { ?s <${EX}label> ?l } LIMIT 3 # ${round}.${n}`, 'secretary')).results!.bindings.length > 0);
        if (!answeredAt) answered++;
        await new Promise((r) => setTimeout(r, 50));
      }
      assertRdfError(await runaway, 503);
      assert.ok(answered >= 2, `round ${round}: ${answered} ASK + SELECT pairs answered while the runaway query ran`);
      console.log(`# round ${round}: runaway answered 503 after ${answeredAt - started} ms; its agent's ASK in ${askMs} ms; ${answered} ASK + SELECT pairs of another agent answered meanwhile`);
      const warning = logs.filter((l) => l.line.includes('SPARQL query stopped')).at(-1);
      assert.ok(warning && warning.at >= started, `a warning for round ${round}: ${logs.map((l) => l.line).join('\n')}`);
      const expected = `end-user: SPARQL query stopped at its ${TIMEOUT_MS} ms limit (lane N restarts), agent ${owner}, ${RUNAWAY.length} characters: ${RUNAWAY.slice(0, 100).replace(/\s+/g, ' ')}…`;
      assert.equal(warning.line.replace(/lane \d+/, 'lane N'), expected);

      // a write right after the stop is seen by the next query
      const before = await graphs();
      assert.equal((await s.request('PUT', `after-stop-${round}/`, { headers: turtle, body: `<#this> <${EX}label> "after ${round}" .` })).status, 201);
      assert.equal(await graphs(), before + 1);
    }
    assert.equal(logs.filter((l) => l.line.includes('SPARQL query stopped')).length, 2);
  });

  it('refuses an agent whose slow queries hold every lane it may use with a 503, Retry-After and the RDF error body, and answers the others', { timeout: 120_000 }, async () => {
    const index = s.running.runtimes[0]!.dataspace.index as Index;
    const runaways = [1, 2].map((n) => sparql(`${RUNAWAY} # both ${n}`));
    await waitFor(() => index.status.slow === 2, 10_000);
    const refused = await sparql('ASK {} # a third');
    assertRdfError(refused, 503, { title: /2 slow SPARQL queries of yours already run/ });
    const retryAfter = Number(header(refused, 'retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= TIMEOUT_MS / 1000, `Retry-After: ${header(refused, 'retry-after')}`);
    assert.equal(json(await sparql('ASK {} # another agent beside them', 'secretary')).boolean, true);
    for (const res of await Promise.all(runaways)) assertRdfError(res, 503, { title: /limit/ });
    assert.equal(json(await sparql('ASK {} # once they ended')).boolean, true);
  });
});
