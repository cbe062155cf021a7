/**
 * Forms from other sites (src/http/cross-site.ts): a simple request that would change something,
 * sent by a page elsewhere, is refused with 403 before it is read, and nothing is committed; the
 * server's own pages, clients outside browsers and requests CORS preflights are unaffected.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { crossSiteForm } from '../src/http/cross-site.js';
import { commitCount, removeTempDirs } from './helpers.js';
import { assertRdfError, startServer, turtle, type TestServer } from './http-helpers.js';

let s: TestServer;
before(async () => {
  s = await startServer();
  assert.equal((await s.request('PUT', 'forms/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "forms" .' })).status, 201);
});
after(async () => {
  await s?.close();
  removeTempDirs();
});

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const RDF_POST = 'rdf=&su=' + encodeURIComponent('https://example.org/s') + '&pu=' + encodeURIComponent('http://purl.org/dc/terms/title') + '&ol=evil';

describe('forms from other sites', () => {
  it('decides by Sec-Fetch-Site, else by Origin, only for simple requests that change something', () => {
    const own = 'https://localhost:4443';
    assert.equal(crossSiteForm('POST', 'application/x-www-form-urlencoded', 'cross-site', undefined, own), true);
    assert.equal(crossSiteForm('POST', 'text/plain', 'same-site', undefined, own), true);
    assert.equal(crossSiteForm('POST', 'multipart/form-data; boundary=x', undefined, 'https://evil.example', own), true);
    assert.equal(crossSiteForm('POST', undefined, undefined, 'null', own), true, 'a sandboxed page');
    assert.equal(crossSiteForm('POST', 'application/x-www-form-urlencoded', 'same-origin', own, own), false);
    assert.equal(crossSiteForm('POST', 'application/x-www-form-urlencoded', undefined, undefined, own), false, 'curl and other clients');
    assert.equal(crossSiteForm('PUT', 'text/turtle', 'cross-site', 'https://evil.example', own), false, 'a preflight decides');
    assert.equal(crossSiteForm('GET', undefined, 'cross-site', 'https://evil.example', own), false);
  });

  it('refuses an RDF/POST form from another site with 403 and commits nothing; the same form from this site is taken', async () => {
    const repo = s.running.runtimes[0]!.dataspace.store.dir;
    const before = commitCount(repo);
    for (const headers of [{ 'Sec-Fetch-Site': 'cross-site' }, { Origin: 'https://evil.example' }] as Record<string, string>[]) {
      const res = await s.request('POST', 'forms/', { headers: { ...FORM, ...headers }, body: RDF_POST });
      assertRdfError(res, 403, { title: /from another site's page is refused/ });
    }
    assert.equal(commitCount(repo), before, 'nothing committed');
    const etag = (await s.request('GET', 'forms/', { headers: { Accept: 'text/turtle' } })).headers.etag as string;
    const own = await s.request('POST', 'forms/', { headers: { ...FORM, 'Sec-Fetch-Site': 'same-origin', Origin: new URL(s.base).origin, Accept: 'text/turtle', 'If-Match': etag }, body: RDF_POST });
    assert.equal(own.status, 204, own.body);
    assert.equal(commitCount(repo), before + 1);
  });
});
