/**
 * The route table (src/http/routes.ts), walked over real HTTPS: every row answers
 * each of its methods (with whatever status the request earns, never 405), every row's path
 * answers OPTIONS with 204 and the Allow the table gives, and a method the row lacks (PROPFIND
 * too) answers 405 with an RDF error body and that Allow. A row's sample URL is in an admin
 * dataspace when the row is admin-only; an admin-only path in an end-user dataspace is not that
 * row (a document path, so a redirect to the slash form).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { modesOnEndpoint, needOf, type Need } from '../src/http/authorize.js';
import { OFFERS } from '../src/http/offers.js';
import { allowOf, routes, type Method, type Route } from '../src/http/routes.js';
import { ns } from '../src/rdf/namespaces.js';
import { resultTypes } from '../src/rdf/sparql-results.js';
import { headOf, removeTempDirs } from './helpers.js';
import { assertRdfError, header, signUp, startServer, turtle, type RequestOptions, type Stranger, type TestServer } from './http-helpers.js';

const SHA = '0'.repeat(40);
const ALL: readonly string[] = ['GET', 'HEAD', 'PUT', 'POST', 'PATCH', 'DELETE', 'PROPFIND'];

let s: TestServer;
before(async () => {
  s = await startServer();
  assert.equal((await s.request('PUT', 'routes-doc/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "routes" .' })).status, 201);
  assert.equal((await s.request('PUT', 'uploads/', { headers: turtle, body: `<> a <${ns.dh}Container> .` })).status, 201);
});
after(async () => {
  await s?.close();
  removeTempDirs();
});

/** A URL the row takes, in a dataspace it is in. */
function sampleOf(route: Route): string {
  const base = route.in === 'admin' ? s.admin : s.base;
  const proxied = `?uri=${encodeURIComponent(`${base}routes-proxied/`)}`; // a URL of the same dataspace: answered without a network request
  const query = route.query === undefined ? '' : { version: `?version=${SHA}`, timemap: '?timemap', timegate: '?timegate', diff: `?diff=${SHA}`, restore: `?restore=${SHA}`, revert: `?revert=${SHA}`, branch: '?branch=routes', changes: '?branch=routes&changes', comments: '?branch=routes&comments', blame: '?blame', proxy: proxied }[route.query];
  if (route.path === 'root') return base + query;
  if (route.path === 'document') return `${base}routes-${route.query ?? 'doc'}/${query}`;
  if (route.path instanceof RegExp) return base + route.path.source.replace(/^\^/, '').replace(/\\\//g, '/').replace('([^/]*)$', 'google').replace('([0-9a-f]{40})$', SHA);
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

/**
 * What each row declares, against real requests (issue 26). Needs: as anonymous, a reader (a
 * stranger who signed up and was granted acl:Read on both dataspaces) and the owner, a request of
 * every method is refused with 403 exactly when the agent lacks the mode the row declares on its
 * target (asked of the server's own access control), whatever the handler would answer after.
 * Offers: each type the row's kind offers is served when asked for (with `Vary: Accept`), none of
 * them is a 406 unless the kind has a fallback, HEAD answers as GET without a body, and a read
 * with a validator answers If-None-Match with 304 and a wrong If-Match with 412.
 */
describe('what each row needs and offers', () => {
  let reader: Stranger;
  let sha: string;
  const agents = ['anonymous', 'reader', 'owner'] as const;
  type Who = (typeof agents)[number];
  const as = (who: Who): RequestOptions['as'] => (who === 'reader' ? { pem: reader.pem } : who);
  const webIdOf = (who: Who) => (who === 'anonymous' ? undefined : who === 'reader' ? reader.webId : s.running.agents.owner.webId);

  before(async () => {
    const onBranch = await s.request('PUT', 'routes-doc/?branch=routes-read', { headers: { ...turtle, 'If-Match': '*' }, body: '<#this> <http://purl.org/dc/terms/title> "on a branch" .' });
    assert.equal(onBranch.status, 200, onBranch.body);
    reader = await signUp(s, 'Route Reader');
    for (const [slug, base] of [['routes-reader', s.base], ['routes-reader-admin', s.admin]] as const) {
      const rule = `<#this> a <${ns.acl}Authorization> ; <${ns.acl}agent> <${reader.webId}> ; <${ns.acl}mode> <${ns.acl}Read> ; <${ns.acl}accessTo> <${base}> ; <${ns.acl}default> <${base}> .`;
      assert.equal((await s.request('PUT', `/admin/acl/authorizations/${slug}/`, { headers: turtle, body: rule })).status, 201);
    }
    sha = headOf(s.running.runtimes[0]!.dataspace.store.dir);
  });

  /** A request of `method` on `route` that its handler refuses after authorization (an unreadable body, a missing precondition, a URL that may not be proxied), so nothing changes. */
  function probe(route: Route, method: Method): { url: string; headers: Record<string, string>; body?: string } {
    const base = route.in === 'admin' ? s.admin : s.base;
    const query = route.query === undefined ? '' : { version: `?version=${sha}`, timemap: '?timemap', timegate: '?timegate', diff: `?diff=${sha}`, restore: `?restore=${sha}`, revert: `?revert=${sha}`, branch: '?branch=routes', changes: '?branch=routes&changes', comments: '?branch=routes&comments', blame: '?blame', proxy: `?uri=${encodeURIComponent('http://127.0.0.1:9/elsewhere/')}` }[route.query];
    let url: string;
    if (route.path === 'root') url = base + query;
    else if (route.path === 'document') url = `${base}routes-doc/${query}`;
    else if (route.path instanceof RegExp) url = sampleOf(route);
    else url = base + route.path + (route.path === 'sparql' && method !== 'POST' ? '?query=ASK%7B%7D' : route.path === 'access' ? `?this=${encodeURIComponent(`${s.base}routes-doc/`)}` : '');
    const writes = ['PUT', 'POST', 'PATCH', 'DELETE'].includes(method);
    // uploads/ takes a body of any type as a file: an empty one is what it refuses
    return { url, headers: writes ? { 'Content-Type': 'text/x-unreadable' } : {}, body: writes && method !== 'DELETE' ? (route.path === 'uploads/' ? '' : 'x') : undefined };
  }

  /** The modes `who` holds on the row's target, as the server's access control says. */
  async function modesOf(route: Route, who: Who, url: string): Promise<ReadonlySet<string>> {
    const runtime = route.in === 'admin' ? s.running.runtimes[1]! : s.running.runtimes[0]!;
    const agent = webIdOf(who);
    const path = new URL(url).pathname.slice(new URL(runtime.documents.base).pathname.length);
    switch (route.needs.on) {
      case 'nothing':
        return new Set();
      case 'endpoint':
        return modesOnEndpoint(runtime.access, url.split('?')[0]!, agent);
      case 'document':
        return runtime.access.modesOn(runtime, path, agent);
      case 'upload':
        return runtime.access.modesOn(runtime, path + '/', agent);
      default:
        return runtime.access.modesOn(runtime, '', agent);
    }
  }

  const needOfRow = (route: Route, method: Method): Need | undefined => {
    if (route.needs.on === 'nothing') return undefined;
    if (route.needs.on === 'proxied') return 'Read';
    const mode = route.needs.mode;
    return (typeof mode === 'string' ? mode : mode?.[method]) ?? needOf(method);
  };

  for (const route of routes) {
    it(`${route.name}: needs ${route.needs.on === 'nothing' ? 'nothing' : `${JSON.stringify(route.needs.mode ?? 'the method’s mode')} on the ${route.needs.on}`}, refused with 403 exactly to those without it`, async () => {
      for (const method of Object.keys(route.methods) as Method[]) {
        if (method === 'OPTIONS') continue;
        for (const who of agents) {
          const { url, headers, body } = probe(route, method);
          const need = needOfRow(route, method);
          const modes = await modesOf(route, who, url);
          // the repositories go to the secretary alone, whatever an agent holds
          const refused = route.needs.on === 'secretary' || (need !== undefined && (need === 'Any' ? modes.size === 0 : !modes.has(need as string))) || (route.needs.agent === true && who === 'anonymous');
          const res = await s.request(method, url, { headers, body, as: as(who) });
          if (refused) assert.equal(res.status, 403, `${method} ${url} as ${who} (holding ${[...modes].join(', ') || 'nothing'}): ${res.status} ${res.body.slice(0, 300)}`);
          else assert.notEqual(res.status, 403, `${method} ${url} as ${who} (holding ${[...modes].join(', ')}): ${res.body.slice(0, 300)}`);
          assert.ok(res.status < 500, `${method} ${url} as ${who}: ${res.status} ${res.body.slice(0, 300)}`);
        }
      }
      assert.equal(headOf(s.running.runtimes[0]!.dataspace.store.dir), sha, 'no request changed the data');
    });
  }

  /** The owner's readable GETs of each row whose kind offers types: the URL, and the types a given URL answers (a query's result form decides). */
  const readable: Partial<Record<string, (type: string) => string | undefined>> = {
    'the root document': () => s.base,
    'a document': () => `${s.base}routes-doc/`,
    'the uploads': () => `${s.base}uploads/`,
    'a memento': () => `${s.base}routes-doc/?version=${sha}`,
    'a TimeMap': () => `${s.base}routes-doc/?timemap`,
    'a diff of two versions': () => `${s.base}routes-doc/?diff=${sha}`,
    'a document on a branch': () => `${s.base}routes-doc/?branch=routes-read`,
    'a branch’s change request': () => `${s.base}?branch=routes-read&changes`,
    'the comments of a change request': () => `${s.base}?branch=routes-read&comments`,
    'blame: each triple with the commit that brought it': () => `${s.base}routes-doc/?blame`,
    'the SPARQL endpoint': (type) => `${s.base}sparql?query=${encodeURIComponent(resultTypes.includes(type) || type === 'text/html' ? 'ASK {}' : 'CONSTRUCT WHERE { ?s ?p ?o }')}`,
    'the dataspace’s settings': () => `${s.base}settings`,
    'the dataspace’s status': () => `${s.base}status`,
    'the namespace ontology': (type) => (resultTypes.includes(type) ? `${s.base}ns?query=ASK%7B%7D` : type === 'text/html' ? undefined : `${s.base}ns`),
    'an agent’s access': () => `${s.admin}access?this=${encodeURIComponent(`${s.base}routes-doc/`)}`,
    'signing up': () => `${s.admin}sign%20up`,
  };

  for (const route of routes.filter((r) => OFFERS[r.offers].types.length > 0 && r.methods.GET)) {
    const offer = OFFERS[route.offers];
    it(`${route.name}: offers ${route.offers} (${offer.types.join(', ')}), with HEAD, Vary, 406${offer.fallback ? ' (none: falls back)' : ''}, 304 and 412`, async () => {
      const urlFor = readable[route.name];
      assert.ok(urlFor, `the test knows a readable URL of ${route.name}`);
      for (const type of offer.types) {
        const url = urlFor(type);
        if (url === undefined) continue;
        const res = await s.request('GET', url, { headers: { Accept: type } });
        assert.equal(res.status, 200, `GET ${url} as ${type}: ${res.body.slice(0, 300)}`);
        assert.equal(header(res, 'content-type')?.split(';')[0], type.split(';')[0], `GET ${url} as ${type}`);
        if (offer.types.length > 1) assert.match(header(res, 'vary') ?? '', /Accept\b/, `Vary of ${url}`);
        const head = await s.request('HEAD', url, { headers: { Accept: type } });
        assert.equal(head.status, 200);
        assert.equal(head.body, '');
        assert.equal(header(head, 'content-type'), header(res, 'content-type'));
        assert.equal(header(head, 'etag'), header(res, 'etag'));
        const etag = header(res, 'etag');
        if (etag === undefined) continue;
        const again = await s.request('GET', url, { headers: { Accept: type, 'If-None-Match': etag } });
        assert.equal(again.status, 304, `GET ${url} as ${type} with its ETag`);
        assert.equal(again.body, '');
        const stale = await s.request('GET', url, { headers: { Accept: type, 'If-Match': '"0000000000000000000000000000"' } });
        assert.equal(stale.status, 412, `GET ${url} as ${type} with another ETag in If-Match`);
      }
      const url = urlFor(offer.types[0]!)!;
      const none = await s.request('GET', url, { headers: { Accept: 'image/png' } });
      if (offer.fallback) assert.equal(header(none, 'content-type')?.split(';')[0], offer.fallback);
      else assertRdfError(none, 406);
    });
  }

  it('says 404 for what does not exist before 406 for a type it does not offer (as before issue 26: a client learns there is nothing to ask for in another type)', async () => {
    for (const url of [`${s.base}routes-missing/`, `${s.base}routes-missing/?version=${sha}`, `${s.base}routes-doc/?version=${'1'.repeat(40)}`, `${s.base}routes-missing/?timemap`, `/?uri=${encodeURIComponent(`${s.base}routes-missing/`)}`]) {
      for (const method of ['GET', 'HEAD']) {
        const res = await s.request(method, url, { headers: { Accept: 'image/png' } });
        assert.equal(res.status, 404, `${method} ${url} as image/png: ${res.body.slice(0, 300)}`);
      }
    }
    const missing = await s.request('GET', `${s.base}routes-missing/`, { headers: { Accept: 'image/png' } });
    assert.equal(header(missing, 'accept-patch'), 'application/sparql-update', 'the 404 of a document says what it would be written with, as that of a plain GET does');
    // and a document that exists is still a 406, with the types offered
    assertRdfError(await s.request('GET', `${s.base}routes-doc/`, { headers: { Accept: 'image/png' } }), 406);
    assertRdfError(await s.request('GET', `${s.base}routes-doc/?timemap`, { headers: { Accept: 'image/png' } }), 406);
  });

  it('reads whose kind keeps a validator send one: documents, mementos, graphs, TimeMaps, and their pages', async () => {
    for (const url of [`${s.base}routes-doc/`, `${s.base}routes-doc/?version=${sha}`, `${s.base}settings`, `${s.base}ns`, `${s.base}routes-doc/?timemap`]) {
      assert.ok(header(await s.request('GET', url), 'etag'), url);
    }
    for (const url of [`${s.base}routes-doc/`, `${s.base}routes-doc/?version=${sha}`, `${s.base}routes-doc/?timemap`, `${s.admin}sign%20up`]) {
      assert.ok(header(await s.request('GET', url, { headers: { Accept: 'text/html' } }), 'etag'), `${url} as a page`);
    }
  });
});
