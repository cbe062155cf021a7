/**
 * The access-control system endpoints (SPEC §4.7, issue 4), in process: `sitemap.xml` and
 * `robots.txt` before and after a public rule (none in the admin dataspace); signup returning a
 * PKCS#12 certificate that then authenticates a request; malformed signups changing nothing;
 * `admin/access` telling an agent its authorizations; `admin/access/request` storing a request.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ns } from '../src/rdf/namespaces.js';
import { parseRdf } from '../src/rdf/ntriples.js';
import { commitCount, git } from './helpers.js';
import { assertRdfError, header, makePublic, pemOfPkcs12, serverForFile, turtle, type TestServer } from './http-helpers.js';

let s: TestServer;
let adminRepo: string;
serverForFile(async (server) => {
  s = server;
  adminRepo = s.running.runtimes[1]!.dataspace.store.dir;
  await s.request('PUT', 'page/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "A page" .' });
});

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

describe('sitemap.xml and robots.txt', () => {
  it('has no sitemap and disallows everything while nothing is public; lists public documents once a rule makes them so', async () => {
    assertRdfError(await s.request('GET', '/sitemap.xml', { as: 'anonymous' }), 404);
    assert.equal((await s.request('GET', '/robots.txt', { as: 'anonymous' })).body, 'User-agent: *\nDisallow: /\n');
    await makePublic(s);
    const sitemap = await s.request('GET', '/sitemap.xml', { as: 'anonymous' });
    assert.equal(sitemap.status, 200);
    assert.match(String(header(sitemap, 'content-type')), /^application\/xml/);
    assert.match(sitemap.body, /<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/);
    assert.ok(sitemap.body.includes(`<loc>${s.base}page/</loc><lastmod>`), sitemap.body);
    assert.match(sitemap.body, /<lastmod>\d{4}-\d\d-\d\dT[\d:.]+Z<\/lastmod>/);
    const robots = await s.request('GET', '/robots.txt', { as: 'anonymous' });
    assert.equal(robots.body, `User-agent: *\nAllow: /\nSitemap: ${s.base}sitemap.xml\n`);
  });

  it('has none in the admin dataspace', async () => {
    assertRdfError(await s.request('GET', '/admin/sitemap.xml', { as: 'anonymous' }), 404);
    assert.equal((await s.request('GET', '/admin/robots.txt', { as: 'anonymous' })).body, 'User-agent: *\nDisallow: /\n');
  });
});

describe('signup (admin/sign%20up)', () => {
  it('serves its form to anyone, and a signup returns a PKCS#12 certificate that authenticates the new agent', async () => {
    const form = await s.request('GET', '/admin/sign%20up', { as: 'anonymous' });
    assert.equal(form.status, 200);
    assert.match(form.body, /<form class="signup" method="post"/);
    const before = commitCount(adminRepo);
    const res = await s.request('POST', '/admin/sign%20up', { as: 'anonymous', headers: FORM, body: 'name=Zo%C3%AB+Example&email=zoe%40example.org&password=correct+horse' });
    assert.equal(res.status, 201, res.body);
    assert.equal(commitCount(adminRepo), before + 2, 'the key and the agent document');
    const location = String(header(res, 'location'));
    assert.ok(location.startsWith(`${s.admin}acl/agents/`));
    assert.equal(header(res, 'content-type'), 'application/x-pkcs12');
    // the body as bytes: read it again raw
    const raw = (await s.requestBytes('POST', '/admin/sign%20up', { as: 'anonymous', headers: FORM, body: 'name=Yan&email=yan%40example.org&password=another+password' })).bytes;
    const agentDocs = git(adminRepo, 'log', '-1', '--format=%an').trim();
    const webId = agentDocs;
    assert.match(webId, new RegExp(`^${s.admin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}acl/agents/[0-9a-f-]+/#this$`));
    // (a real TLS client and curl present the PKCS#12 itself in signup.test.ts)
    const me = await s.request('GET', webId.replace(/#this$/, ''), { as: { pem: pemOfPkcs12(raw, 'another password') }, headers: { Accept: 'application/n-triples' } });
    assert.equal(me.status, 200, me.body);
    assert.ok(String(header(me, 'link')).includes(`<${webId}>; rel="${ns.acl}agent"`), 'the certificate authenticates the new agent');
    const profile = parseRdf(me.body);
    assert.ok(profile.some((q) => q.subject.value === webId && q.predicate.value === ns.foaf + 'name' && q.object.value === 'Yan'));
    assert.ok(profile.some((q) => q.predicate.value === ns.acl + 'owner' && q.object.value === webId), 'the agent owns its document');
    assert.ok(profile.some((q) => q.subject.value === webId && q.predicate.value === ns.acl + 'delegates' && q.object.value === s.running.agents.secretary.webId), 'it delegates to the secretary, who carries its proxied requests');
    assert.ok(!me.body.includes('another password'));
    assert.match(me.body, /<mailto:yan@example.org>/, 'the agent sees its own e-mail address');
    // DESIGN.md, "Access defaults": anonymous readers see the address only as foaf:mbox_sha1sum
    for (let i = 0; i < 2; i++) {
      const anonymous = await s.request('GET', webId.replace(/#this$/, ''), { as: 'anonymous', headers: { Accept: 'application/n-triples' } });
      assert.equal(anonymous.status, 200);
      assert.doesNotMatch(anonymous.body, /mailto:/);
      assert.match(anonymous.body, /mbox_sha1sum/);
      assert.notEqual(header(anonymous, 'etag'), header(me, 'etag'), 'another representation, another ETag');
    }
  });

  it('answers malformed signups with 400/422 and commits nothing', async () => {
    const before = commitCount(adminRepo);
    for (const [body, status] of [['', 422], ['name=&email=a%40b.org&password=12345678', 422], ['name=X&email=not-an-address&password=12345678', 422], ['name=X&email=a%40b.org&password=short', 422], ['name=%ZZ&email=a%40b.org&password=12345678', 400]] as const) {
      const res = await s.request('POST', '/admin/sign%20up', { as: 'anonymous', headers: FORM, body });
      assertRdfError(res, status);
    }
    assertRdfError(await s.request('POST', '/admin/sign%20up', { as: 'anonymous', headers: turtle, body: '<a> <b> <c> .' }), 415);
    assert.equal(commitCount(adminRepo), before);
  });
});

describe('admin/access and admin/access/request', () => {
  it('tells an agent the authorizations it holds on a document, including the owner’s rights', async () => {
    const secretary = await s.request('GET', `/admin/access?this=${encodeURIComponent(`${s.base}page/`)}`, { as: 'secretary', headers: { Accept: 'application/n-triples' } });
    assert.equal(secretary.status, 200, secretary.body);
    assert.ok(secretary.body.includes(`<${s.admin}acl/authorizations/writers/#this> <${ns.rdf}type> <${ns.acl}Authorization>`), secretary.body);
    const owner = await s.request('GET', `/admin/access?this=${encodeURIComponent(`${s.base}page/`)}`, { headers: { Accept: 'application/n-triples' } });
    assert.ok(owner.body.includes(`<${ns.acl}accessTo> <${s.base}page/>`), 'the document’s owner is told of its owner rights');
    assertRdfError(await s.request('GET', '/admin/access', { as: 'secretary' }), 400);
  });

  it('stores an access request in the admin dataspace for the owners; anonymous agents must authenticate', async () => {
    const res = await s.request('POST', '/admin/access/request', { as: 'secretary', headers: FORM, body: `this=${encodeURIComponent(`${s.base}page/`)}&mode=Control` });
    assert.equal(res.status, 201, res.body);
    const location = String(header(res, 'location'));
    assert.ok(location.startsWith(`${s.admin}acl/access-requests/`));
    const stored = git(adminRepo, 'show', `HEAD:graphs/${location.slice(s.admin.length, -1)}.nt`);
    assert.match(stored, new RegExp(`<${ns.lacl}requestMode> <${ns.acl}Control>`));
    const before = commitCount(adminRepo);
    assertRdfError(await s.request('POST', '/admin/access/request', { as: 'anonymous', headers: FORM, body: `this=${encodeURIComponent(`${s.base}page/`)}&mode=Read` }), 403);
    assertRdfError(await s.request('POST', '/admin/access/request', { as: 'secretary', headers: FORM, body: `this=${encodeURIComponent(`${s.base}page/`)}&mode=Everything` }), 422);
    assert.equal(commitCount(adminRepo), before);
  });
});
