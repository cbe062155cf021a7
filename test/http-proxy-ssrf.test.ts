/**
 * The proxy's outgoing-address rules (SPEC §4.5, DESIGN.md "Command line"): a server started
 * without --allow-internal-urls refuses, with 400 and the RDF error body, every URL whose host is or
 * resolves to a loopback, private, link-local or metadata address, in every spelling, and a
 * redirect to one, before any connection: servers listening on the loopback addresses count
 * connections, and count none. (The private and link-local addresses are refused by address: no
 * server of a test may listen there, and nothing is sent there.) Which names resolve where, and
 * that 127.0.0.2 counts as public, are the test's (the `seams` of serve()); the rules are the server's.
 */
import assert from 'node:assert/strict';
import { promises as dns, type LookupAddress } from 'node:dns';
import { after, before, describe, it } from 'node:test';
import { isInternalAddress } from '../src/net/safe-fetch.js';
import { removeTempDirs, tempDir } from './helpers.js';
import { assertRdfError, header, startServer, type TestServer } from './http-helpers.js';
import { Origin } from './origin-server.js';

after(removeTempDirs);

describe('the proxy without --allow-internal-urls', () => {
  let s: TestServer;
  const loopback = new Origin(); // 127.0.0.1: must never be reached
  const loopback6 = new Origin(); // ::1: must never be reached
  const publicOrigin = new Origin(); // 127.0.0.2, called public here: reached
  let port = 0;
  const resolved: string[] = [];

  before(async () => {
    await loopback.listen('127.0.0.1');
    port = loopback.port;
    await loopback6.listen('::1');
    await publicOrigin.listen('127.0.0.2', port); // the same port: a slip to 127.0.0.1 would land on `loopback`
    publicOrigin.on('/doc', { headers: { 'Content-Type': 'text/turtle' }, body: '<#this> <http://purl.org/dc/terms/title> "public" .' });
    publicOrigin.on('/redirect', (request) => ({ status: 302, headers: { Location: new URLSearchParams(request.query).get('to') ?? '/' } }));
    for (const origin of [loopback, loopback6]) origin.on('/x', { headers: { 'Content-Type': 'text/turtle' }, body: '' });
    const resolve = async (hostname: string): Promise<LookupAddress[]> => {
      resolved.push(hostname);
      if (hostname === 'public.test') return [{ address: '127.0.0.2', family: 4 }];
      if (hostname === 'private.test') return [{ address: '10.1.2.3', family: 4 }];
      if (hostname === 'metadata.test') return [{ address: '127.0.0.2', family: 4 }, { address: '169.254.169.254', family: 4 }];
      return dns.lookup(hostname, { all: true, verbatim: true });
    };
    s = await startServer([], tempDir('ssrf'), () => undefined, { seams: { resolve, isInternal: (address) => address !== '127.0.0.2' && isInternalAddress(address) } });
  });
  after(async () => {
    await s?.close();
    await Promise.all([loopback.close(), loopback6.close(), publicOrigin.close()]);
  });

  it('proxies a public address', async () => {
    const res = await s.request('GET', `/?uri=${encodeURIComponent(`http://public.test:${port}/doc`)}`, { headers: { Accept: 'application/n-triples' } });
    assert.equal(res.status, 200, res.body);
    assert.equal(res.body.trim(), `<http://public.test:${port}/doc#this> <http://purl.org/dc/terms/title> "public" .`);
    assert.equal(header(res, 'content-type'), 'application/n-triples; charset=utf-8');
  });

  const table: Array<[string, () => string]> = [
    ['10/8', () => 'http://10.0.0.1/x'],
    ['172.16/12', () => 'http://172.16.0.1/x'],
    ['172.16/12, its last address', () => 'http://172.31.255.255/x'],
    ['192.168/16', () => 'http://192.168.1.1/x'],
    ['127/8', () => `http://127.0.0.1:${port}/x`],
    ['127/8 in decimal', () => `http://2130706433:${port}/x`],
    ['127/8, short form', () => `http://127.1:${port}/x`],
    ['::1', () => `http://[::1]:${loopback6.port}/x`],
    ['fe80::/10', () => 'http://[fe80::1]/x'],
    ['169.254.169.254 (cloud metadata)', () => 'http://169.254.169.254/latest/meta-data/'],
    ['IPv4-mapped IPv6 of 127.0.0.1', () => `http://[::ffff:127.0.0.1]:${port}/x`],
    ['IPv4-mapped IPv6 of 10.0.0.1, hex', () => 'http://[::ffff:a00:1]/x'],
    ['a DNS name resolving to loopback (localhost)', () => `http://localhost:${port}/x`],
    ['a DNS name resolving to a private address', () => 'http://private.test/x'],
    ['a DNS name with a public and a metadata address', () => `http://metadata.test:${port}/x`],
  ];
  for (const [what, url] of table) {
    it(`refuses ${what} with 400 before connecting`, async () => {
      const res = await s.request('GET', `/?uri=${encodeURIComponent(url())}`);
      assertRdfError(res, 400, { title: /--allow-internal-urls/ });
      assert.equal(loopback.connections + loopback6.connections, 0, 'no connection was made to a loopback address');
    });
  }

  it('refuses a redirect to a private address, before connecting to it', async () => {
    const before = publicOrigin.requests('/redirect').length;
    const targets = [`http://127.0.0.1:${port}/x`, `http://[::1]:${loopback6.port}/x`, `http://localhost:${port}/x`, 'http://192.168.0.1/x', 'http://169.254.169.254/latest/meta-data/'];
    for (const to of targets) {
      const res = await s.request('GET', `/?uri=${encodeURIComponent(`http://public.test:${port}/redirect?to=${encodeURIComponent(to)}`)}`);
      assertRdfError(res, 400, { title: /--allow-internal-urls/ });
    }
    assert.equal(publicOrigin.requests('/redirect').length, before + targets.length, 'the public origin was asked, and redirected');
    assert.equal(loopback.connections + loopback6.connections, 0, 'the redirect was not followed');
  });

  it('serves the shipped vocabularies without a network request: no name resolved, no connection made', async () => {
    const before = resolved.length;
    const connections = loopback.connections + loopback6.connections + publicOrigin.connections;
    const cases: Array<[string, RegExp]> = [
      ['http://www.w3.org/1999/02/22-rdf-syntax-ns#type', /<http:\/\/www.w3.org\/1999\/02\/22-rdf-syntax-ns#Property>/],
      ['http://www.w3.org/2000/01/rdf-schema#', /rdf-schema#label> "label"/],
      ['https://www.w3.org/2002/07/owl', /owl#Class> <http:\/\/www.w3.org\/2000\/01\/rdf-schema#label> "Class"/],
      ['http://www.w3.org/2001/XMLSchema#', /XMLSchema#dateTime>/],
      ['http://purl.org/dc/terms/', /terms\/title> <http:\/\/www.w3.org\/2000\/01\/rdf-schema#label> "Title"@en/],
      ['http://xmlns.com/foaf/0.1/', /foaf\/0.1\/Person> <http:\/\/www.w3.org\/2000\/01\/rdf-schema#label> "Person"/],
      ['http://www.w3.org/2004/02/skos/core', /skos\/core#Concept>/],
      ['http://rdfs.org/sioc/ns#Container', /sioc\/ns#Container>/],
      ['http://www.w3.org/ns/auth/acl#Read', /acl#Read> <http:\/\/www.w3.org\/2000\/01\/rdf-schema#label> "read"@en/],
      ['http://www.w3.org/ns/auth/cert', /cert#RSAPublicKey>/],
      ['http://www.w3.org/ns/prov#', /prov#Entity>/],
      ['https://schema.org/Person', /<http:\/\/schema.org\/Person> <http:\/\/www.w3.org\/2000\/01\/rdf-schema#label> "Person"/],
      // the LinkedDataHub namespaces: Lodestone's description of the terms it uses (vocabularies/)
      ['https://w3id.org/atomgraph/linkeddatahub/document-hierarchy#Container', /document-hierarchy#Container> <http:\/\/www.w3.org\/2000\/01\/rdf-schema#label> "Container"@en/],
      ['https://w3id.org/atomgraph/linkeddatahub/apps', /apps#EndUserApplication> <http:\/\/www.w3.org\/2000\/01\/rdf-schema#label> "end-user application"@en/],
      ['https://w3id.org/atomgraph/linkeddatahub/admin/acl#', /acl#AuthorizationRequest>/],
      ['https://w3id.org/atomgraph/linkeddatahub/dataspaces', /dataspaces#Package>/],
      ['https://w3id.org/atomgraph/linkeddatahub/default', /default#Root>/],
      ['https://w3id.org/atomgraph/linkeddatahub#import', /linkeddatahub#import>/],
      ['https://w3id.org/atomgraph/core', /core#authToken>/],
      ['https://www.w3.org/ns/ldt#', /ldt#ontology>/],
    ];
    for (const [url, expected] of cases) {
      const res = await s.request('GET', `/?uri=${encodeURIComponent(url)}`, { headers: { Accept: 'application/n-triples' } });
      assert.equal(res.status, 200, `${url}: ${res.body.slice(0, 300)}`);
      assert.match(res.body, expected, url);
      const etag = String(header(res, 'etag'));
      assert.equal((await s.request('GET', `/?uri=${encodeURIComponent(url)}`, { headers: { Accept: 'application/n-triples', 'If-None-Match': etag } })).status, 304);
    }
    const term = await s.request('GET', `/?uri=${encodeURIComponent('http://schema.org/Person')}`, { headers: { Accept: 'text/turtle' } });
    assert.ok(term.body.length < 20_000, 'a term of schema.org is answered with its own description, not all of schema.org');
    assertRdfError(await s.request('GET', `/?uri=${encodeURIComponent('http://xmlns.com/foaf/0.1/NoSuchTerm')}`), 404);
    assert.equal(resolved.length, before, 'no host name was resolved');
    assert.equal(loopback.connections + loopback6.connections + publicOrigin.connections, connections, 'no connection was made');
  });

  it('checks every writing method the same way', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']) {
      const res = await s.request(method, `/?uri=${encodeURIComponent(`http://127.0.0.1:${port}/x`)}`, { headers: { 'Content-Type': 'text/turtle' }, body: method === 'HEAD' || method === 'DELETE' ? undefined : '' });
      assert.equal(res.status, 400, method);
    }
    assert.equal(loopback.connections + loopback6.connections, 0);
  });
});
