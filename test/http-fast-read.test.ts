/**
 * The read fast path (src/http/fast-read.ts) answers a GET or HEAD of a current document from
 * memory once its serialisation is cached. Its answers must be the Koa route's, byte for byte and
 * header for header, and it must step aside for everything it does not know: an unverified or
 * mismatched certificate (401), an Origin (CORS), a precondition that fails (412), a new version.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { issueCredentials } from '../src/auth/certificates.js';
import type { WebIdVerifier } from '../src/auth/webid-tls.js';
import { Authenticator } from '../src/http/authenticate.js';
import { ANSWERS, fastReader, PLACES } from '../src/http/fast-read.js';
import { ReadCaches } from '../src/http/read-caches.js';
import { Etags, RepresentationCache } from '../src/http/representations.js';
import { writableTypes } from '../src/rdf/formats.js';
import { ns } from '../src/rdf/namespaces.js';
import { git } from './helpers.js';
import { assertRdfError, header, serverForFile, turtle, type Response, type TestServer } from './http-helpers.js';

const ACL = ns.acl;
let s: TestServer;
serverForFile(async (server) => {
  s = server;
  const created = await s.request('PUT', 'fast/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "fast" .' });
  assert.equal(created.status, 201);
});

/** Everything a client sees but the Date. */
function visible(res: Response): object {
  const headers = { ...res.headers };
  delete headers.date;
  return { status: res.status, headers, body: res.body };
}

describe('the read fast path', () => {
  it('answers the first (Koa) and the following (cached) GET and HEAD alike, in every format', async () => {
    for (const type of writableTypes) {
      for (const method of ['GET', 'HEAD']) {
        // the secretary reads through an authorization (a writer); the owner through its shortcut
        for (const as of ['secretary', 'owner'] as const) {
          const first = await s.request(method, 'fast/', { as, headers: { Accept: type } });
          const second = await s.request(method, 'fast/', { as, headers: { Accept: type } });
          assert.equal(first.status, 200, `${method} ${type}`);
          assert.deepEqual(visible(second), visible(first), `${method} ${type} as ${as}`);
        }
      }
    }
  });

  it('answers a memento (?version=) the second time alike, in every format, and never to a reader without Read', async () => {
    const commit = git(s.running.runtimes[0]!.dataspace.store.dir, 'rev-parse', 'HEAD').trim();
    for (const type of writableTypes) {
      for (const method of ['GET', 'HEAD']) {
        const first = await s.request(method, `fast/?version=${commit}`, { as: 'secretary', headers: { Accept: type } });
        const second = await s.request(method, `fast/?version=${commit}`, { as: 'secretary', headers: { Accept: type } });
        assert.equal(first.status, 200, `${method} ${type}: ${first.body}`);
        assert.deepEqual(visible(second), visible(first), `${method} ${type}`);
      }
    }
    assert.equal((await s.request('GET', `fast/?version=${commit}`, { as: 'anonymous' })).status, 403);
  });

  it('answers 304 and 412 as the Koa route does', async () => {
    const tag = header(await s.request('GET', 'fast/'), 'etag')!;
    const notModified = await s.request('GET', 'fast/', { headers: { 'If-None-Match': tag } });
    assert.equal(notModified.status, 304);
    assert.equal(header(notModified, 'etag'), tag);
    assert.equal(notModified.body, '');
    assertRdfError(await s.request('GET', 'fast/', { headers: { 'If-Match': '"stale"' } }), 412);
  });

  it('serves the new version right after a write', async () => {
    const before = await s.request('GET', 'fast/');
    const tag = header(before, 'etag')!;
    const put = await s.request('PUT', 'fast/', { headers: { ...turtle, 'If-Match': tag }, body: '<#this> <http://purl.org/dc/terms/title> "faster" .' });
    assert.equal(put.status, 200);
    const after = await s.request('GET', 'fast/');
    assert.match(after.body, /faster/);
    assert.notEqual(header(after, 'etag'), tag);
  });

  it('still answers 401 to a certificate whose key the WebID does not list, on a cached document', async () => {
    await s.request('GET', 'fast/', { as: 'secretary' });
    const webId = s.running.agents.owner.webId;
    const impostor = await issueCredentials({ webId, commonName: 'impostor' });
    assertRdfError(await s.request('GET', 'fast/', { as: { pem: impostor.certPem + impostor.keyPem } }), 401);
  });

  it('never serves a cached document to an agent without Read: anonymous gets 403 every time', async () => {
    assert.equal((await s.request('GET', 'fast/', { as: 'secretary' })).status, 200); // cached now
    for (let i = 0; i < 3; i++) {
      assertRdfError(await s.request('GET', 'fast/', { as: 'anonymous' }), 403);
      assert.equal((await s.request('HEAD', 'fast/', { as: 'anonymous' })).status, 403);
    }
  });

  it('leaves CORS to Koa: a request with an Origin gets its CORS headers (and, from an origin not trusted, is anonymous)', async () => {
    await s.request('GET', 'fast/');
    const own = new URL(s.base).origin;
    const res = await s.request('GET', 'fast/', { headers: { Origin: own } });
    assert.equal(res.status, 200);
    assert.equal(header(res, 'access-control-allow-origin'), own);
    const elsewhere = await s.request('GET', 'fast/', { headers: { Origin: 'https://app.example' } });
    assertRdfError(elsewhere, 403);
    assert.equal(header(elsewhere, 'access-control-allow-origin'), '*');
  });

  it('answers from what it kept (the third request on) as the Koa route did, in every format, as owner, reader and anonymous', async () => {
    const rule = `<#this> a <${ACL}Authorization> ; <${ACL}agentClass> <http://xmlns.com/foaf/0.1/Agent> ; <${ACL}mode> <${ACL}Read> ; <${ACL}accessTo> <${s.base}kept/> .`;
    assert.equal((await s.request('PUT', 'kept/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "kept" .' })).status, 201);
    assert.equal((await s.request('PUT', 'admin/acl/authorizations/kept-public/', { headers: turtle, body: rule })).status, 201);
    for (const accept of [...writableTypes, undefined, '', 'text/turtle;q=0.9, application/n-triples']) {
      for (const method of ['GET', 'HEAD']) {
        for (const as of ['owner', 'secretary', 'anonymous'] as const) {
          const headers: Record<string, string> = accept === undefined ? {} : { Accept: accept };
          const answers = [];
          for (let i = 0; i < 4; i++) answers.push(visible(await s.request(method, 'kept/', { as, headers })));
          for (const later of answers.slice(1)) assert.deepEqual(later, answers[0], `${method} ${accept} as ${as}`);
        }
      }
    }
  });

  it('drops a kept answer when what it was decided from changes: the policy, the document; not another document', async () => {
    const rule = `<#this> a <${ACL}Authorization> ; <${ACL}agentClass> <http://xmlns.com/foaf/0.1/Agent> ; <${ACL}mode> <${ACL}Read> ; <${ACL}accessTo> <${s.base}dropped/> .`;
    assert.equal((await s.request('PUT', 'dropped/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "one" .' })).status, 201);
    const made = await s.request('PUT', 'admin/acl/authorizations/dropped-public/', { headers: turtle, body: rule });
    assert.equal(made.status, 201);
    const read = () => s.request('GET', 'dropped/', { as: 'anonymous' });
    for (let i = 0; i < 3; i++) assert.equal((await read()).status, 200);
    // another document written: the commit moves, this document's answer stands
    assert.equal((await s.request('PUT', 'elsewhere/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "x" .' })).status, 201);
    const kept = await read();
    assert.equal(kept.status, 200);
    assert.match(kept.body, /"one"/);
    // the document written: its new version, right away
    const put = await s.request('PUT', 'dropped/', { headers: { ...turtle, 'If-Match': header(await s.request('GET', 'dropped/'), 'etag')! }, body: '<#this> <http://purl.org/dc/terms/title> "two" .' });
    assert.equal(put.status, 200);
    for (let i = 0; i < 3; i++) assert.match((await read()).body, /"two"/);
    // the authorization deleted: anonymous readers get 403 at once, however often they read it before
    const tag = header(await s.request('GET', 'admin/acl/authorizations/dropped-public/'), 'etag')!;
    assert.equal((await s.request('DELETE', 'admin/acl/authorizations/dropped-public/', { headers: { 'If-Match': tag } })).status, 204);
    for (let i = 0; i < 3; i++) assertRdfError(await read(), 403);
  });

  it('redirects an admin dataspace’s base without its slash, as Koa does, also once its root is cached', async () => {
    const admin = new URL(s.admin).pathname; // /admin/
    for (let i = 0; i < 2; i++) assert.equal((await s.request('GET', admin, { headers: { Accept: 'text/turtle' } })).status, 200);
    const res = await s.request('GET', admin.slice(0, -1), { headers: { Accept: 'text/turtle' } });
    assert.equal(res.status, 308, `GET ${admin.slice(0, -1)}: ${res.status} ${res.body.slice(0, 200)}`);
    assert.equal(header(res, 'location'), s.admin);
  });

  it('leaves malformed paths to Koa, which answers 400 (and the server keeps running)', async () => {
    assertRdfError(await s.request('GET', `${'x'.repeat(300)}/`), 400);
    assert.equal((await s.request('GET', 'fast/')).status, 200);
  });

  it('keeps at most 10,000 places and 10,000 answers, whatever Hosts, URLs and Accepts are sent, and answers right past both bounds', async () => {
    const rule = `<#this> a <${ACL}Authorization> ; <${ACL}agentClass> <http://xmlns.com/foaf/0.1/Agent> ; <${ACL}mode> <${ACL}Read> ; <${ACL}accessTo> <${s.base}bounded/> .`;
    assert.equal((await s.request('PUT', 'bounded/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "bounded" .' })).status, 201);
    assert.equal((await s.request('PUT', 'admin/acl/authorizations/bounded-public/', { headers: turtle, body: rule })).status, 201);
    const koa = await s.request('GET', 'bounded/', { as: 'anonymous', headers: { Accept: 'text/turtle' } });
    assert.equal(koa.status, 200);
    // a fast path of its own over the server's dataspaces, its representation cache holding the document's Turtle
    const runtime = s.running.runtimes[0]!;
    const stored = (await runtime.documents.read('bounded/'))!;
    const representations = new RepresentationCache();
    await representations.get(stored.blobId, 'text/turtle', () => stored.bytes.toString('utf8'));
    const verifier = { known: () => undefined } as unknown as WebIdVerifier;
    const read = fastReader({ runtimes: s.running.runtimes, scheme: 'https', authenticator: new Authenticator({ verifier, trustedProxies: [] }), representations, etags: new Etags(readFileSync(join(s.data, 'secrets', 'etag.key'))), caches: new ReadCaches() });
    const host = new URL(s.base).host;
    const ask = (url: string, hostHeader = host, accept = 'text/turtle') => {
      let sent: { status: number; headers: OutgoingHttpHeaders; body?: Buffer } | undefined;
      const set: OutgoingHttpHeaders = {};
      const res = { setHeader: (name: string, value: string) => (set[name] = value), writeHead: (status: number, headers: OutgoingHttpHeaders) => (sent = { status, headers: { ...set, ...headers } }), end: (body?: Buffer) => (sent!.body = body) } as unknown as ServerResponse;
      const req = { method: 'GET', url, headers: { host: hostHeader, accept }, socket: {} } as unknown as IncomingMessage;
      return read(req, res) ? sent : undefined;
    };
    const answersRight = (accept?: string) => {
      const answer = ask('/bounded/', host, accept);
      assert.equal(answer?.status, 200, `the fast path answers with Accept ${accept}`);
      assert.equal(answer.headers.ETag, header(koa, 'etag'));
      assert.equal(answer.headers['Content-Type'], header(koa, 'content-type'));
      assert.equal(answer.body?.toString('utf8'), koa.body);
    };
    answersRight();
    // past the places' bound: request URLs of other Hosts (no dataspace) and of this one (missing documents)
    let most = 0;
    for (let i = 0; i < PLACES + 500; i++) {
      assert.equal(i % 2 ? ask(`/missing-${i}/`) : ask('/', `host-${i}.example`), undefined, 'nothing to answer there');
      if (Math.abs(i - PLACES) < 4 || i % 500 === 0) {
        const { places } = read.sizes();
        assert.ok(places <= PLACES, `${places} places kept after ${i + 1} URLs`);
        most = Math.max(most, places);
        answersRight();
      }
    }
    assert.equal(most, PLACES, 'it kept as many places as its bound, then started again');
    // past the answers' bound: one reader's answers to as many Accept headers, each right
    most = 0;
    for (let i = 0; i < ANSWERS + 500; i++) {
      const accept = `text/turtle, application/x-accept-${i};q=0.1`;
      answersRight(accept);
      const { answers } = read.sizes();
      assert.ok(answers <= ANSWERS, `${answers} answers kept after ${i + 1} Accept headers`);
      most = Math.max(most, answers);
    }
    assert.equal(most, ANSWERS, 'it kept as many answers as its bound, then started again');
    answersRight(`text/turtle, application/x-accept-${ANSWERS + 499};q=0.1`); // a kept one, still right
  });
});
