/**
 * Conditional requests on documents (SPEC §4.6, DESIGN.md "ETag" and the LinkedDataHub habits):
 * 428 without a precondition, 412 with a stale one (carrying the current ETag) and HEAD of the
 * repository unmoved, ETags per representation, GET's If-None-Match / If-Match, the ETag of a
 * write's response, and exactly one winner among concurrent writers quoting one ETag.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ns } from '../src/rdf/namespaces.js';
import { parseRdf } from '../src/rdf/ntriples.js';
import { commitCount, git, headOf } from './helpers.js';
import { assertRdfError, header, turtle, type TestServer, serverForFile } from './http-helpers.js';


const SPARQL_UPDATE = { 'Content-Type': 'application/sparql-update' };
const FORMATS = ['text/turtle', 'application/n-triples', 'application/rdf+xml', 'application/ld+json'];

let s: TestServer;
let dir: string;

serverForFile(async (server, repo) => {
  s = server;
  dir = repo;
});

function doc(path: string): string {
  return s.base + path.replace(/^\//, '');
}

/** Creates a document with one triple and returns its Turtle ETag. */
async function create(path: string, title = 'created'): Promise<string> {
  const res = await s.request('PUT', path, { headers: turtle, body: `<${doc(path)}#this> <${ns.dct}title> "${title}" .` });
  assert.equal(res.status, 201, res.body);
  return etagOf(path);
}

async function etagOf(path: string, accept?: string): Promise<string> {
  const res = await s.request('GET', path, accept ? { headers: { Accept: accept } } : {});
  assert.equal(res.status, 200, res.body);
  const tag = header(res, 'etag');
  assert.ok(tag, 'GET carries an ETag');
  return tag;
}

async function triples(path: string): Promise<string[]> {
  const res = await s.request('GET', path, { headers: { Accept: 'application/n-triples' } });
  assert.equal(res.status, 200, res.body);
  return res.body.split('\n').filter(Boolean);
}

async function titles(path: string): Promise<string[]> {
  return parseRdf((await s.request('GET', path, { headers: { Accept: 'application/n-triples' } })).body)
    .filter((q) => q.subject.value === doc(path) + '#this' && q.predicate.value === ns.dct + 'title')
    .map((q) => q.object.value)
    .sort();
}

/** One write of each method with `headers` added; the bodies are valid. */
function writes(path: string): Array<[string, { headers: Record<string, string>; body?: string }]> {
  return [
    ['PUT', { headers: turtle, body: `<${doc(path)}#this> <${ns.dct}title> "put" .` }],
    ['POST', { headers: turtle, body: `<${doc(path)}#this> <${ns.dct}description> "posted" .` }],
    ['PATCH', { headers: SPARQL_UPDATE, body: `INSERT { <#this> <${ns.dct}description> "patched" } WHERE {}` }],
    ['DELETE', { headers: {} }],
  ];
}

describe('SPEC §4.6.1: writes to an existing document need a precondition', () => {
  it('answers 428 to PUT, POST, PATCH and DELETE without one, and nothing is committed', async () => {
    await create('/pre-required/');
    const before = headOf(dir);
    const count = commitCount(dir);
    for (const [method, options] of writes('/pre-required/')) {
      const res = await s.request(method, '/pre-required/', options);
      assertRdfError(res, 428);
    }
    assert.equal(headOf(dir), before, 'HEAD did not move');
    assert.equal(commitCount(dir), count);
    assert.deepEqual(await titles('/pre-required/'), ['created']);
  });

  it('counts an empty If-Match header as no precondition (428)', async () => {
    await create('/pre-empty/');
    const before = headOf(dir);
    for (const [method, options] of writes('/pre-empty/')) {
      const res = await s.request(method, '/pre-empty/', { ...options, headers: { ...options.headers, 'If-Match': '' } });
      assertRdfError(res, 428);
    }
    assert.equal(headOf(dir), before, 'HEAD did not move');
  });
});

describe('SPEC §4.6.2: the allowed preconditions', () => {
  it('accepts PUT, POST, PATCH and DELETE with If-Match: <current ETag>, one commit each', async () => {
    await create('/pre-match/');
    const expected: Record<string, number> = { PUT: 200, POST: 204, PATCH: 204, DELETE: 204 };
    for (const [method, options] of writes('/pre-match/')) {
      const tag = await etagOf('/pre-match/');
      const count = commitCount(dir);
      const res = await s.request(method, '/pre-match/', { ...options, headers: { ...options.headers, 'If-Match': tag } });
      assert.equal(res.status, expected[method], `${method}: ${res.body}`);
      assert.equal(commitCount(dir), count + 1, `${method} made one commit`);
      assert.equal(git(dir, 'log', '-1', '--format=%s').trim(), `${method} ${doc('/pre-match/')}`);
    }
    assert.equal(git(dir, 'ls-tree', 'HEAD', 'graphs/pre-match.nt').trim(), '', 'the DELETE removed the file');
  });

  it('creates with If-None-Match: * only when the document is absent', async () => {
    const count = commitCount(dir);
    const created = await s.request('PUT', '/pre-none-match/', { headers: { ...turtle, 'If-None-Match': '*' }, body: '' });
    assert.equal(created.status, 201, created.body);
    assert.equal(header(created, 'location'), doc('/pre-none-match/'));
    assert.equal(commitCount(dir), count + 1);
    const before = headOf(dir);
    const again = await s.request('PUT', '/pre-none-match/', { headers: { ...turtle, 'If-None-Match': '*' }, body: '' });
    assertRdfError(again, 412); // SPEC §4.6.5
    assert.equal(header(again, 'etag'), await etagOf('/pre-none-match/'), '412 carries the current ETag');
    assert.equal(headOf(dir), before, 'HEAD did not move');
  });

  it('answers 412 to If-Match on a document that does not exist, and creates nothing', async () => {
    const before = headOf(dir);
    const res = await s.request('PUT', '/pre-match-absent/', { headers: { ...turtle, 'If-Match': '"whatever"' }, body: '' });
    assertRdfError(res, 412);
    assert.equal(headOf(dir), before, 'HEAD did not move');
    assert.equal((await s.request('GET', '/pre-match-absent/')).status, 404);
  });
});

describe('SPEC §4.6.3: a PUT to a new URL needs no precondition', () => {
  it('answers 201 with Location and an ETag, and commits the file', async () => {
    const count = commitCount(dir);
    const res = await s.request('PUT', '/pre-new/', { headers: turtle, body: `<#this> <${ns.dct}title> "new" .` });
    assert.equal(res.status, 201, res.body);
    assert.equal(header(res, 'location'), doc('/pre-new/'));
    assert.equal(header(res, 'etag'), await etagOf('/pre-new/'), 'the 201 carries the ETag a GET then returns');
    assert.equal(commitCount(dir), count + 1);
    assert.match(git(dir, 'cat-file', 'blob', 'HEAD:graphs/pre-new.nt'), /"new"/);
  });
});

describe('SPEC §4.6.4: a stale If-Match', () => {
  it('answers 412 to every writing method with the current ETag, and HEAD did not move', async () => {
    const stale = await create('/pre-stale/');
    const post = await s.request('POST', '/pre-stale/', { headers: { ...turtle, 'If-Match': stale }, body: `<#this> <${ns.dct}title> "second" .` });
    assert.equal(post.status, 204, post.body);
    const current = await etagOf('/pre-stale/');
    assert.notEqual(current, stale);
    const before = headOf(dir);
    const count = commitCount(dir);
    const content = await triples('/pre-stale/');
    for (const [method, options] of writes('/pre-stale/')) {
      const res = await s.request(method, '/pre-stale/', { ...options, headers: { ...options.headers, 'If-Match': stale } });
      assertRdfError(res, 412);
      assert.equal(header(res, 'etag'), current, `${method}: the 412 carries the current ETag`);
    }
    assert.equal(headOf(dir), before, 'HEAD did not move');
    assert.equal(commitCount(dir), count);
    assert.deepEqual(await triples('/pre-stale/'), content);
  });

  it('never matches a weak ETag (strong comparison)', async () => {
    const tag = await create('/pre-weak/');
    const before = headOf(dir);
    const res = await s.request('PUT', '/pre-weak/', { headers: { ...turtle, 'If-Match': `W/${tag}` }, body: '' });
    assertRdfError(res, 412);
    assert.equal(headOf(dir), before);
  });
});

describe('SPEC §4.6.5: If-None-Match: * against an existing document', () => {
  it('answers 412 to every writing method, and HEAD did not move', async () => {
    const current = await create('/pre-inm/');
    const before = headOf(dir);
    for (const [method, options] of writes('/pre-inm/')) {
      const res = await s.request(method, '/pre-inm/', { ...options, headers: { ...options.headers, 'If-None-Match': '*' } });
      assertRdfError(res, 412);
      assert.equal(header(res, 'etag'), current, `${method}: the 412 carries the current ETag`);
    }
    assert.equal(headOf(dir), before, 'HEAD did not move');
  });
});

describe('SPEC §4.6.6: an ETag identifies a negotiated representation', () => {
  it('gives each format its own ETag', async () => {
    await create('/pre-repr/');
    const tags = await Promise.all(FORMATS.map((f) => etagOf('/pre-repr/', f)));
    assert.equal(new Set(tags).size, FORMATS.length, `distinct ETags: ${tags.join(' ')}`);
    assert.equal(await etagOf('/pre-repr/'), tags[0], 'no Accept means Turtle');
  });

  it('refuses a write that quotes the Turtle ETag with Accept: application/rdf+xml, and accepts it with a matching Accept', async () => {
    const turtleTag = await etagOf('/pre-repr/', 'text/turtle');
    const xmlTag = await etagOf('/pre-repr/', 'application/rdf+xml');
    const before = headOf(dir);
    const refused = await s.request('POST', '/pre-repr/', {
      headers: { ...turtle, Accept: 'application/rdf+xml', 'If-Match': turtleTag },
      body: `<#this> <${ns.dct}description> "x" .`,
    });
    // SPEC §7: the error comes in the requested format (its full shape is checked in http-constraints)
    assert.equal(refused.status, 412, refused.body);
    assert.equal(header(refused, 'content-type')?.split(';')[0], 'application/rdf+xml');
    assert.match(refused.body, /statusCodeValue[^>]*>412</);
    assert.equal(header(refused, 'etag'), xmlTag, 'the 412 carries the current ETag of the RDF/XML representation');
    assert.equal(headOf(dir), before, 'HEAD did not move');

    const xmlAccepted = await s.request('POST', '/pre-repr/', {
      headers: { ...turtle, Accept: 'application/rdf+xml', 'If-Match': xmlTag },
      body: `<#this> <${ns.dct}description> "x" .`,
    });
    assert.equal(xmlAccepted.status, 204, xmlAccepted.body);
    assert.equal(header(xmlAccepted, 'etag'), await etagOf('/pre-repr/', 'application/rdf+xml'), 'the new ETag is for RDF/XML');
    assert.notEqual(headOf(dir), before);

    const count = commitCount(dir);
    const turtleAccepted = await s.request('PUT', '/pre-repr/', {
      headers: { ...turtle, Accept: 'text/turtle', 'If-Match': await etagOf('/pre-repr/', 'text/turtle') },
      body: `<#this> <${ns.dct}title> "replaced" .`,
    });
    assert.equal(turtleAccepted.status, 200, turtleAccepted.body);
    assert.equal(commitCount(dir), count + 1);
  });
});

describe('SPEC §4.6.7: HEAD returns the validator', () => {
  it('gives the same ETag as GET for each format, and no body', async () => {
    await create('/pre-head/');
    for (const format of FORMATS) {
      const got = await s.request('GET', '/pre-head/', { headers: { Accept: format } });
      const res = await s.request('HEAD', '/pre-head/', { headers: { Accept: format } });
      assert.equal(res.status, 200);
      assert.equal(res.body, '');
      assert.ok(header(res, 'etag'));
      assert.equal(header(res, 'etag'), header(got, 'etag'), format);
      assert.match(header(res, 'content-type') ?? '', new RegExp(`^${format.replace(/[+]/g, '\\+')}`));
    }
  });

  it('answers 404 without a body for a missing document', async () => {
    const res = await s.request('HEAD', '/pre-head-missing/');
    assert.equal(res.status, 404);
    assert.equal(res.body, '');
  });
});

describe('SPEC §4.6.8: writes read, modify and write the whole graph', () => {
  it('POST appends to the existing triples, PATCH changes them in place, PUT replaces them', async () => {
    await create('/pre-rmw/', 'first');
    const post = await s.request('POST', '/pre-rmw/', {
      headers: { ...turtle, 'If-Match': await etagOf('/pre-rmw/') },
      body: `<#this> <${ns.dct}title> "second" .`,
    });
    assert.equal(post.status, 204, post.body);
    assert.deepEqual(await titles('/pre-rmw/'), ['first', 'second']);
    assert.match(git(dir, 'cat-file', 'blob', 'HEAD:graphs/pre-rmw.nt'), /"first"[\s\S]*"second"|"second"[\s\S]*"first"/);

    const patch = await s.request('PATCH', '/pre-rmw/', {
      headers: { ...SPARQL_UPDATE, 'If-Match': await etagOf('/pre-rmw/') },
      body: `DELETE { <#this> <${ns.dct}title> "first" } INSERT { <#this> <${ns.dct}title> "third" } WHERE {}`,
    });
    assert.equal(patch.status, 204, patch.body);
    assert.deepEqual(await titles('/pre-rmw/'), ['second', 'third']);

    const put = await s.request('PUT', '/pre-rmw/', {
      headers: { ...turtle, 'If-Match': await etagOf('/pre-rmw/') },
      body: `<#this> <${ns.dct}title> "only" .`,
    });
    assert.equal(put.status, 200, put.body);
    assert.deepEqual(await titles('/pre-rmw/'), ['only']);
    assert.doesNotMatch(git(dir, 'cat-file', 'blob', 'HEAD:graphs/pre-rmw.nt'), /"second"|"third"/);
  });

  it('PATCH writes back the triples it does not touch exactly as they were (typed literals keep their lexical form and datatype)', async () => {
    const literals = [
      `"1.50"^^<${ns.xsd}decimal>`,
      `"01"^^<${ns.xsd}integer>`,
      `"1"^^<${ns.xsd}int>`,
      `"412"^^<${ns.xsd}long>`,
      `"2020-01-01T00:00:00.000Z"^^<${ns.xsd}dateTime>`,
    ];
    const subject = `<${doc('/pre-rmw-literals/')}#this>`;
    const body = literals.map((l) => `${subject} <${ns.rdf}value> ${l} .`).join('\n');
    assert.equal((await s.request('PUT', '/pre-rmw-literals/', { headers: { 'Content-Type': 'application/n-triples' }, body })).status, 201);
    const stored = (await triples('/pre-rmw-literals/')).filter((l) => l.includes(`<${ns.rdf}value>`));
    assert.equal(stored.length, literals.length, 'the PUT kept every literal');
    const patch = await s.request('PATCH', '/pre-rmw-literals/', {
      headers: { ...SPARQL_UPDATE, 'If-Match': await etagOf('/pre-rmw-literals/') },
      body: `INSERT { <#this> <${ns.dct}title> "patched" } WHERE {}`,
    });
    assert.equal(patch.status, 204, patch.body);
    const after = (await triples('/pre-rmw-literals/')).filter((l) => l.includes(`<${ns.rdf}value>`));
    assert.deepEqual(after, stored, 'the untouched triples are unchanged');
    const file = git(dir, 'cat-file', 'blob', 'HEAD:graphs/pre-rmw-literals.nt');
    for (const literal of literals) assert.ok(file.includes(literal), `the file in git still has ${literal}`);
  });
});

describe('conditional GET (DESIGN.md, LinkedDataHub habits)', () => {
  it('answers 304 with the ETag and no body to If-None-Match with the current ETag', async () => {
    const tag = await create('/pre-get/');
    const res = await s.request('GET', '/pre-get/', { headers: { 'If-None-Match': tag } });
    assert.equal(res.status, 304);
    assert.equal(header(res, 'etag'), tag);
    assert.equal(res.body, '');
    const star = await s.request('GET', '/pre-get/', { headers: { 'If-None-Match': '*' } });
    assert.equal(star.status, 304);
  });

  it('answers 200 to If-None-Match with another ETag, or with the ETag of another format', async () => {
    const turtleTag = await etagOf('/pre-get/');
    const other = await s.request('GET', '/pre-get/', { headers: { 'If-None-Match': '"other"' } });
    assert.equal(other.status, 200);
    assert.ok(other.body.length > 0);
    const xml = await s.request('GET', '/pre-get/', { headers: { Accept: 'application/rdf+xml', 'If-None-Match': turtleTag } });
    assert.equal(xml.status, 200);
    assert.match(xml.body, /rdf:RDF|<\?xml/);
  });

  it('answers 412 with the current ETag to a stale If-Match, and 200 to the current one', async () => {
    const tag = await etagOf('/pre-get/');
    const stale = await s.request('GET', '/pre-get/', { headers: { 'If-Match': '"stale"' } });
    assertRdfError(stale, 412);
    assert.equal(header(stale, 'etag'), tag);
    const fresh = await s.request('GET', '/pre-get/', { headers: { 'If-Match': tag } });
    assert.equal(fresh.status, 200);
    assert.equal(header(fresh, 'etag'), tag);
  });
});

describe('the ETag of a successful write', () => {
  it('PUT replacing answers 200, POST and PATCH 204, each with the ETag a following GET with the same Accept returns', async () => {
    await create('/pre-write-etag/');
    for (const accept of ['text/turtle', 'application/ld+json']) {
      const put = await s.request('PUT', '/pre-write-etag/', {
        headers: { ...turtle, Accept: accept, 'If-Match': await etagOf('/pre-write-etag/', accept) },
        body: `<#this> <${ns.dct}title> "put ${accept}" .`,
      });
      assert.equal(put.status, 200, put.body);
      assert.equal(put.body, '');
      assert.equal(header(put, 'etag'), await etagOf('/pre-write-etag/', accept));

      const post = await s.request('POST', '/pre-write-etag/', {
        headers: { ...turtle, Accept: accept, 'If-Match': header(put, 'etag')! },
        body: `<#this> <${ns.dct}description> "post ${accept}" .`,
      });
      assert.equal(post.status, 204, post.body);
      assert.ok(header(post, 'etag'));
      assert.notEqual(header(post, 'etag'), header(put, 'etag'));
      assert.equal(header(post, 'etag'), await etagOf('/pre-write-etag/', accept));

      const patch = await s.request('PATCH', '/pre-write-etag/', {
        headers: { ...SPARQL_UPDATE, Accept: accept, 'If-Match': header(post, 'etag')! },
        body: `DELETE WHERE { <#this> <${ns.dct}description> ?d }`,
      });
      assert.equal(patch.status, 204, patch.body);
      assert.ok(header(patch, 'etag'));
      assert.equal(header(patch, 'etag'), await etagOf('/pre-write-etag/', accept));
    }
  });

  it('lets a client chain writes on the returned ETag alone, with one commit each', async () => {
    let tag = await create('/pre-chain/');
    const count = commitCount(dir);
    for (let i = 0; i < 3; i++) {
      const res = await s.request('POST', '/pre-chain/', { headers: { ...turtle, 'If-Match': tag }, body: `<#this> <${ns.dct}title> "${i}" .` });
      assert.equal(res.status, 204, res.body);
      tag = header(res, 'etag')!;
    }
    assert.equal(commitCount(dir), count + 3);
    assert.deepEqual(await titles('/pre-chain/'), ['0', '1', '2', 'created']);
  });
});

describe('concurrent writers quoting one ETag (DESIGN.md: one write path per dataspace)', () => {
  it('lets exactly one of 10 concurrent PUTs win: one 200, nine 412, one new commit', async () => {
    const tag = await create('/pre-race/');
    const before = headOf(dir);
    const count = commitCount(dir);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        s.request('PUT', '/pre-race/', { headers: { ...turtle, 'If-Match': tag }, body: `<#this> <${ns.dct}title> "writer ${i}" .` }),
      ),
    );
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((st) => st === 200).length, 1, `statuses: ${statuses.join(' ')}`);
    assert.equal(statuses.filter((st) => st === 412).length, 9, `statuses: ${statuses.join(' ')}`);
    assert.equal(commitCount(dir), count + 1, 'exactly one new commit');
    assert.equal(git(dir, 'rev-parse', 'HEAD~1').trim(), before, 'the new commit sits on the old HEAD');
    const winner = statuses.indexOf(200);
    assert.deepEqual(await titles('/pre-race/'), [`writer ${winner}`]);
    const current = await etagOf('/pre-race/');
    assert.equal(header(results[winner]!, 'etag'), current);
    for (const loser of results.filter((r) => r.status === 412)) {
      assertRdfError(loser, 412);
      assert.equal(header(loser, 'etag'), current, 'each 412 carries the winner’s ETag');
    }
  });
});
