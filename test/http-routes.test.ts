/**
 * The route table (src/http/routes.ts), walked over real HTTPS as the owner: every row answers
 * each of its methods (with whatever status the request earns, never 405), every row's path
 * answers OPTIONS with 204 and the Allow the table gives, and a method the row lacks (PROPFIND
 * too) answers 405 with an RDF error body and that Allow. A row's sample URL is in an admin
 * dataspace when the row is admin-only; an admin-only path in an end-user dataspace is not that
 * row (a document path, so a redirect to the slash form).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { allowOf, routes, type Method, type Route } from '../src/http/routes.js';
import { removeTempDirs } from './helpers.js';
import { assertRdfError, header, startServer, turtle, type TestServer } from './http-helpers.js';

const SHA = '0'.repeat(40);
const ALL: readonly string[] = ['GET', 'HEAD', 'PUT', 'POST', 'PATCH', 'DELETE', 'PROPFIND'];

let s: TestServer;
before(async () => {
  s = await startServer();
  assert.equal((await s.request('PUT', 'routes-doc/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "routes" .' })).status, 201);
});
after(async () => {
  await s?.close();
  removeTempDirs();
});

/** A URL the row takes, in a dataspace it is in. */
function sampleOf(route: Route): string {
  const base = route.in === 'admin' ? s.admin : s.base;
  const proxied = `?uri=${encodeURIComponent(`${base}routes-proxied/`)}`; // a URL of the same dataspace: answered without a network request
  const query = route.query === undefined ? '' : { version: `?version=${SHA}`, timemap: '?timemap', timegate: '?timegate', diff: `?diff=${SHA}`, restore: `?restore=${SHA}`, proxy: proxied }[route.query];
  if (route.path === 'root') return base + query;
  if (route.path === 'document') return `${base}routes-${route.query ?? 'doc'}/${query}`;
  if (route.path instanceof RegExp) return base + route.path.source.replace(/^\^/, '').replace(/\\\//g, '/').replace('([^/]*)$', 'google');
  return base + route.path;
}

/** A request body each write method can parse, so the answer is about the route, not the syntax. */
function bodyFor(method: string): { headers: Record<string, string>; body?: string } {
  if (method === 'PATCH') return { headers: { 'Content-Type': 'application/sparql-update' }, body: 'INSERT DATA { <#a> <#b> <#c> }' };
  if (method === 'PUT' || method === 'POST') return { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "x" .' };
  return { headers: {} };
}

describe('the route table', () => {
  it('has one row per method × path × query, and every row has a method', () => {
    assert.ok(routes.length >= 16);
    for (const route of routes) assert.ok(Object.keys(route.methods).length > 0, route.name);
    const keys = routes.map((r) => `${r.in} ${String(r.path)} ${r.query ?? ''}`);
    assert.equal(new Set(keys).size, keys.length, 'no two rows take the same requests');
  });

  for (const route of routes) {
    describe(route.name, () => {
      it(`answers OPTIONS with 204 and Allow: ${allowOf(route)}`, async () => {
        const res = await s.request('OPTIONS', sampleOf(route));
        assert.equal(res.status, 204, res.body);
        assert.equal(header(res, 'allow'), allowOf(route));
      });

      it('answers each of its methods, never with 405', async () => {
        for (const method of Object.keys(route.methods) as Method[]) {
          if (method === 'OPTIONS') continue;
          const res = await s.request(method, sampleOf(route), bodyFor(method));
          assert.notEqual(res.status, 405, `${method} ${sampleOf(route)}: ${res.body}`);
          assert.ok(res.status < 500, `${method} ${sampleOf(route)}: ${res.status} ${res.body}`);
        }
      });

      it('answers every other method with 405, the RDF error body and the same Allow', async () => {
        for (const method of ALL.filter((m) => !(m in route.methods))) {
          const res = await s.request(method, sampleOf(route), bodyFor(method));
          if (method === 'HEAD') assert.equal(res.status, 405);
          else assertRdfError(res, 405, { title: new RegExp(`${method} is not supported on ${route.name}`) });
          assert.equal(header(res, 'allow'), allowOf(route), `${method} ${sampleOf(route)}`);
        }
      });
    });
  }

  it('takes admin-only paths only in an admin dataspace: elsewhere they are document paths', async () => {
    const res = await s.request('GET', `${s.base}access`);
    assert.equal(res.status, 308);
    assert.equal(header(res, 'location'), `${s.base}access/`);
  });
});
