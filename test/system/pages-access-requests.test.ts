/**
 * Access requests in the web interface (issue 28): a stranger who signed up asks for access from the
 * 403 page's endpoint; the owner opens the request in Chromium, sees who asks for what on which
 * document, and grants it in one click (an authorization document in acl/authorizations/, as one
 * written by hand, checked in git) or refuses it (the request deleted); the stranger's next GET
 * answers accordingly. The panel is shown to those who may write the request, and to nobody else.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ns } from '../../src/rdf/namespaces.js';
import { checked, launchChromium, skipWithoutChromium, visitor } from '../chromium.js';
import { git, removeTempDirs, tempDir } from '../helpers.js';
import { header, putTurtle, signUp, startServer, type Stranger, type TestServer } from '../http-helpers.js';

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

after(removeTempDirs);

describe('access requests, granted and refused from their page in Chromium', { skip: skipWithoutChromium }, () => {
  let s: TestServer;
  let browser: Browser;
  let stranger: Stranger;

  before(async () => {
    s = await startServer([], tempDir('access-requests'), undefined, {}, { tls: true }); // Chromium over the wire
    browser = await launchChromium();
    stranger = await signUp(s, 'Sam Stranger');
    for (const slug of ['wanted', 'refused']) await putTurtle(s, `${slug}/`, `<#this> <${ns.dct}title> "The ${slug} one" .`);
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  /** The stranger asks for `mode` on a document; the request's URL. */
  async function ask(path: string, mode: string): Promise<string> {
    const asked = await s.request('POST', '/admin/access/request', { as: { pem: stranger.pem }, headers: FORM, body: new URLSearchParams({ this: `${s.base}${path}`, mode }).toString() });
    assert.equal(asked.status, 201, asked.body);
    return header(asked, 'location')!;
  }

  async function asOwner(url: string) {
    const visit = await visitor(browser, s.base, s.ownerPem);
    visit.page.on('dialog', (dialog) => void dialog.accept());
    await visit.page.goto(url);
    return visit;
  }

  it('grants in one click: an authorization document in git, the request gone, and the stranger reads', async () => {
    assert.equal((await s.request('GET', 'wanted/', { as: { pem: stranger.pem } })).status, 403);
    const request = await ask('wanted/', 'Read');
    const { context, page, problems } = await asOwner(request);
    const panel = page.locator('section.grant');
    assert.match((await panel.textContent())!, new RegExp(`${stranger.webId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*asks for.*read.*on.*${s.base}wanted/`, 's'));
    await checked(page, problems, 'access-request');
    await page.click('section.grant button[value="grant"]');
    await page.locator('section.grant .status', { hasText: 'Granted' }).waitFor();
    assert.deepEqual(problems, []);
    await context.close();

    assert.equal((await s.request('GET', 'wanted/', { as: { pem: stranger.pem } })).status, 200, 'the stranger reads it now');
    assert.equal((await s.request('GET', new URL(request).pathname)).status, 404, 'the request is gone');
    // the grant is a document like one written by hand, committed in the admin repository
    const repo = s.running.runtimes[1]!.dataspace.store.dir;
    const files = git(repo, 'ls-tree', '-r', '--name-only', 'HEAD', 'graphs/acl/authorizations/').split('\n').filter(Boolean);
    const granted = files.map((f) => git(repo, 'show', `HEAD:${f}`)).filter((text) => text.includes(stranger.webId));
    assert.equal(granted.length, 1, files.join('\n'));
    assert.ok(granted[0]!.includes(`<${ns.acl}accessTo> <${s.base}wanted/>`) && granted[0]!.includes(`<${ns.acl}mode> <${ns.acl}Read>`), granted[0]);
  });

  it('offers no grant for a request its asker rewrote with an IRI that would break out of the grant, or a javascript: one', async () => {
    const request = await ask('wanted/', 'Read');
    const path = new URL(request).pathname;
    for (const agent of [`https://evil.example/\\u003E ; <${ns.acl}mode> <${ns.acl}Control> ; <${ns.acl}accessTo> <${s.base}`, 'javascript:alert(1)']) {
      const read = await s.request('GET', path, { as: { pem: stranger.pem }, headers: { Accept: 'text/turtle' } });
      const body = `<#this> a <https://w3id.org/atomgraph/linkeddatahub/admin/acl#AuthorizationRequest> ; <https://w3id.org/atomgraph/linkeddatahub/admin/acl#requestAgent> <${agent}> ; <https://w3id.org/atomgraph/linkeddatahub/admin/acl#requestAccessTo> <${s.base}wanted/> ; <https://w3id.org/atomgraph/linkeddatahub/admin/acl#requestMode> <${ns.acl}Read> .`;
      const put = await s.request('PUT', path, { as: { pem: stranger.pem }, headers: { 'Content-Type': 'text/turtle', Accept: 'text/turtle', 'If-Match': header(read, 'etag')! }, body });
      if (put.status >= 400) continue; // refused as it is written: nothing to offer either
      const page = await s.request('GET', path, { headers: { Accept: 'text/html' } });
      assert.equal(page.status, 200);
      assert.ok(!page.body.includes('grant-request'), `no grant offered for <${agent}>`);
      assert.ok(!/href="javascript:/i.test(page.body));
    }
  });

  it('refuses in one click: the request deleted and nothing granted; the asker sees no panel on its own request', async () => {
    const request = await ask('refused/', 'Write');
    const own = await s.request('GET', new URL(request).pathname, { as: { pem: stranger.pem }, headers: { Accept: 'text/html' } });
    assert.ok(!own.body.includes('grant-request'), 'the asker is offered no grant');
    const { context, page, problems } = await asOwner(request);
    await page.click('section.grant button[value="refuse"]');
    await page.locator('section.grant .status', { hasText: 'Refused' }).waitFor();
    assert.deepEqual(problems, []);
    await context.close();
    assert.equal((await s.request('GET', new URL(request).pathname)).status, 404);
    assert.equal((await s.request('GET', 'refused/', { as: { pem: stranger.pem } })).status, 403);
  });

  it('fits a phone (375 px): the asker’s WebID and the document wrap inside the panel, the title in the breadcrumbs, the property form’s type list', async () => {
    const request = await ask('wanted/', 'Read');
    const { context, page, problems } = await visitor(browser, s.base, s.ownerPem, { width: 375 });
    await page.goto(request);
    const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    const wide = await page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).map((e) => `${e.tagName.toLowerCase()}.${e.className}`));
    assert.deepEqual(wide, [], 'nothing wider than the window, the closed property form included');
    assert.ok(scroll <= inner, `the page is ${scroll} px wide in a ${inner} px window`);
    await checked(page, problems, 'access-request-375');
    await context.close();
  });
});
