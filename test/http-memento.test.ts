import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { git } from './helpers.js';
import { assertRdfError, turtle, type TestServer, serverForFile } from './http-helpers.js';

let s: TestServer;
let dir: string;
const commits: string[] = [];

serverForFile(async (server, repo) => {
  s = server;
  dir = repo;
  let etag: string | undefined;
  for (let i = 1; i <= 3; i++) {
    const res = await s.request('PUT', '/history/', { headers: { ...turtle, ...(etag ? { 'If-Match': etag } : {}) }, body: `<#this> <http://purl.org/dc/terms/title> "version ${i}" .` });
    assert.ok(res.status === 201 || res.status === 200, res.body);
    etag = res.headers.etag as string;
    commits.push(git(dir, 'rev-parse', 'HEAD').trim());
  }
});

describe('Memento', () => {
  it('serves the document as at a commit, with the memento headers', async () => {
    const res = await s.request('GET', `/history/?version=${commits[0]}`, { headers: { Accept: 'application/n-triples' } });
    assert.equal(res.status, 200, res.body);
    assert.match(res.body, /"version 1"/);
    assert.doesNotMatch(res.body, /"version 3"/);
    const time = Number(git(dir, 'log', '-1', '--format=%ct', commits[0]!).trim());
    assert.equal(res.headers['memento-datetime'], new Date(time * 1000).toUTCString());
    assert.match(String(res.headers['memento-datetime']), /^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    assert.equal(res.headers.etag, `"${commits[0]}"`);
    // a private document's: no shared cache keeps it (issue 25; public ones: test/http-refusals.test.ts)
    assert.equal(res.headers['cache-control'], 'private, max-age=31536000, immutable');
    const link = String(res.headers.link);
    assert.match(link, new RegExp(`<${s.base}history/>; rel="original"`));
    assert.match(link, /rel="timemap"/);
    assert.match(link, /acl#Read>; rel="http:\/\/www.w3.org\/ns\/auth\/acl#mode"/);
    assert.doesNotMatch(link, /acl#Write/);
    const head = await s.request('HEAD', `/history/?version=${commits[1]}`);
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
  });

  it('takes a commit id abbreviated as git log --oneline prints it (issue 19, item 12)', async () => {
    const short = git(dir, 'rev-parse', '--short', commits[0]!).trim();
    assert.ok(short.length < 40);
    const full = await s.request('GET', `/history/?version=${commits[0]}`, { headers: { Accept: 'application/n-triples' } });
    const res = await s.request('GET', `/history/?version=${short}`, { headers: { Accept: 'application/n-triples' } });
    assert.equal(res.status, 200, res.body);
    assert.equal(res.body, full.body);
    assert.equal(res.headers.etag, `"${commits[0]}"`);
    assert.equal(res.headers['content-location'], `${s.base}history/?version=${commits[0]}`);
    const diff = await s.request('GET', `/history/?diff=${short}&to=${git(dir, 'rev-parse', '--short', commits[1]!).trim()}`);
    assert.equal(diff.status, 200, diff.body);
    assert.equal(diff.body, (await s.request('GET', `/history/?diff=${commits[0]}&to=${commits[1]}`)).body);
    assertRdfError(await s.request('GET', '/history/?version=abc'), 400, { title: /4 to 40 lower-case hexadecimal digits/ });
    assertRdfError(await s.request('GET', '/history/?version=ffff0000ffff'), 404);
  });

  it('refuses writes to a memento, malformed and unknown versions', async () => {
    for (const method of ['PUT', 'POST', 'PATCH', 'DELETE']) {
      const res = await s.request(method, `/history/?version=${commits[0]}`, { headers: turtle, body: '' });
      assertRdfError(res, 405);
      assert.match(String(res.headers.allow), /GET/);
    }
    assertRdfError(await s.request('GET', '/history/?version=xyz'), 400);
    assertRdfError(await s.request('GET', `/history/?version=${'0'.repeat(40)}`), 404);
    const before = git(dir, 'rev-list', '--max-parents=0', 'HEAD').trim().split('\n')[0]!;
    assertRdfError(await s.request('GET', `/history/?version=${before}`), 404); // the document did not exist yet
  });

  it('lists the versions as a PROV-O TimeMap and in link-format', async () => {
    const rdf = await s.request('GET', '/history/?timemap', { headers: { Accept: 'application/n-triples' } });
    assert.equal(rdf.status, 200, rdf.body);
    const doc = `${s.base}history/`;
    assert.match(rdf.body, new RegExp(`<${doc}\\?timemap> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/ns/prov#Collection>`));
    for (const [i, commit] of commits.entries()) {
      const m = `<${doc}?version=${commit}>`.replace(/[?]/g, '\\?');
      assert.match(rdf.body, new RegExp(`\\?timemap> <http://www.w3.org/ns/prov#hadMember> ${m}`));
      assert.match(rdf.body, new RegExp(`${m} <http://www.w3.org/ns/prov#specializationOf> <${doc}>`));
      assert.match(rdf.body, new RegExp(`${m} <http://www.w3.org/ns/prov#generatedAtTime> "[^"]+"\\^\\^<http://www.w3.org/2001/XMLSchema#dateTime>`));
      assert.match(rdf.body, new RegExp(`${m} <http://purl.org/dc/terms/creator> <${s.running.agents.owner.webId}>`));
      const revision = new RegExp(`${m} <http://www.w3.org/ns/prov#wasRevisionOf>`);
      if (i === 0) assert.doesNotMatch(rdf.body, revision);
      else assert.match(rdf.body, revision);
    }
    const links = await s.request('GET', '/history/?timemap', { headers: { Accept: 'application/link-format' } });
    assert.equal(links.status, 200);
    assert.match(String(links.headers['content-type']), /^application\/link-format/);
    assert.match(links.body, new RegExp(`^<${doc}>; rel="original",$`, 'm'));
    assert.match(links.body, /rel="self"; type="application\/link-format"/);
    assert.match(links.body, /rel="timegate"/);
    assert.match(links.body, new RegExp(`version=${commits[0]}>; rel="first memento"; datetime="\\w{3}, \\d{2} \\w{3} \\d{4} [\\d:]{8} GMT"`));
    assert.match(links.body, new RegExp(`version=${commits[2]}>; rel="last memento"`));
    assert.equal(links.body.match(/rel="[^"]*memento"/g)?.length, 3);
  });

  it('keeps the TimeMap of a deleted document, and has none for one never written', async () => {
    await s.request('PUT', '/gone/', { headers: turtle, body: '<#this> a <http://ex/T> .' });
    const etag = (await s.request('HEAD', '/gone/')).headers.etag as string;
    assert.equal((await s.request('DELETE', '/gone/', { headers: { 'If-Match': etag } })).status, 204);
    const res = await s.request('GET', '/gone/?timemap', { headers: { Accept: 'application/link-format' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.match(/rel="[^"]*memento"/g)?.length, 1);
    assertRdfError(await s.request('GET', '/never/?timemap'), 404);
  });

  it('negotiates a datetime at the TimeGate', async () => {
    const latest = await s.request('GET', '/history/?timegate');
    assert.equal(latest.status, 302);
    assert.equal(latest.headers.location, `${s.base}history/?version=${commits[2]}`);
    assert.match(String(latest.headers.vary), /accept-datetime/i);
    assert.match(String(latest.headers.link), /rel="original"/);
    // long before: the oldest version (of those sharing the oldest second, the most recent)
    const times = commits.map((c) => Number(git(dir, 'log', '-1', '--format=%ct', c).trim()));
    const oldest = commits[times.lastIndexOf(Math.min(...times))];
    const early = await s.request('GET', '/history/?timegate', { headers: { 'Accept-Datetime': 'Thu, 01 Jan 1970 00:00:00 GMT' } });
    assert.equal(early.headers.location, `${s.base}history/?version=${oldest}`);
    // the three versions share a second or two: a tie goes to the more recent
    const time = Number(git(dir, 'log', '-1', '--format=%ct', commits[2]!).trim());
    const tie = await s.request('GET', '/history/?timegate', { headers: { 'Accept-Datetime': new Date(time * 1000).toUTCString() } });
    assert.equal(tie.headers.location, `${s.base}history/?version=${commits[2]}`);
    assertRdfError(await s.request('GET', '/history/?timegate', { headers: { 'Accept-Datetime': 'yesterday' } }), 400);
  });

  it('advertises the TimeMap and TimeGate on documents of a versioned dataspace only', async () => {
    const doc = await s.request('GET', '/history/');
    assert.match(String(doc.headers.link), /\?timemap>; rel="timemap"; type="application\/link-format", <[^>]+\?timegate>; rel="timegate"/);
    const admin = await s.request('GET', s.admin);
    assert.doesNotMatch(String(admin.headers.link ?? ''), /timemap/);
    const linkFormat = await s.request('GET', `${s.admin}?timemap`, { headers: { Accept: 'application/link-format' } });
    assertRdfError(linkFormat, 406);
  });
});
