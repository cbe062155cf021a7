/**
 * The web interface's dead ends (issue 28), in real Chromium against a running server: delete only
 * where the server would take it, what "Log out" means for a certificate, a deleted document's 404
 * and TimeMap, the footer's sitemap link, "empty" only when nothing shows, phone width, and people
 * by name where the viewer may read it. Pages touched are checked by axe-core.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ns } from '../../src/rdf/namespaces.js';
import { checked, launchChromium, skipWithoutChromium, visitor as visit } from '../chromium.js';
import { removeTempDirs, tempDir } from '../helpers.js';
import { certifiedAgent, makePublic, putTurtle, startServer, type TestServer } from '../http-helpers.js';


after(removeTempDirs);

describe('the web interface’s dead ends (issue 28)', { skip: skipWithoutChromium }, () => {
  let s: TestServer;
  let browser: Browser;
  let reader: { webId: string; pem: string };
  let stranger: { webId: string; pem: string };

  before(async () => {
    s = await startServer([], tempDir('pages-defects'), undefined, {}, { tls: true });
    browser = await launchChromium();
    await putTurtle(s, 'notes/', `<> a <${ns.dh}Container> ; <${ns.dct}title> "Notes" .`);
    await putTurtle(s, 'notes/first/', `<#this> <${ns.dct}title> "First note" .`);
    reader = await agent('Rita Reader');
    stranger = await agent('Sam Stranger');
    await putTurtle(s, '/admin/acl/authorizations/rita/', `<#this> a <${ns.acl}Authorization> ; <${ns.acl}agent> <${reader.webId}> ; <${ns.acl}mode> <${ns.acl}Read> ; <${ns.acl}accessTo> <${s.base}> ; <${ns.acl}default> <${s.base}> .`);
  });

  after(async () => {
    await browser?.close();
    await s?.close();
  });

  const agent = (name: string) => certifiedAgent(s, name);
  const visitor = (pem?: string, options: { locale?: string; width?: number } = {}) => visit(browser, s.base, pem, { ...options, timeoutMs: 10_000 });

  /** DELETE as the owner, quoting the current ETag. */
  async function remove(path: string): Promise<number> {
    const head = await s.request('HEAD', path);
    return (await s.request('DELETE', path, { headers: { 'If-Match': String(head.headers.etag) } })).status;
  }



  it('offers delete (and edits) only where the server would take them: not the root, the admin root or the owner’s agent document; a container with documents says to empty it first', async () => {
    const { context, page, problems } = await visitor(s.ownerPem);
    const forms = () => page.locator('form.delete-document').count();
    for (const root of [s.base, s.admin]) {
      await page.goto(root);
      assert.equal(await forms(), 0, `no delete on ${root}`);
      assert.equal(await page.locator('form.turtle-editor').count(), 1, `${root} is still editable`);
      assert.equal((await s.request('DELETE', root === s.base ? '/' : '/admin/')).status, 405, 'the server refuses it');
    }
    await checked(page, problems, 'root-owner');
    const ownerDocument = s.running.agents.owner.webId.replace(/#this$/, '');
    await page.goto(ownerDocument);
    assert.equal(await page.locator('h1').count(), 1);
    assert.equal(await page.locator('form.delete-document, form.turtle-editor, form.property-form').count(), 0, 'the owner’s agent document is neither deleted nor edited');
    assert.equal((await s.request('DELETE', new URL(ownerDocument).pathname)).status, 405);
    await page.goto(`${s.base}notes/`);
    assert.equal(await forms(), 0, 'a container with documents');
    assert.match((await page.locator('.delete-note').textContent())!, /delete the documents in it first/);
    await page.goto(`${s.base}notes/first/`);
    assert.equal(await forms(), 1, 'a document is deleted as before');
    await context.close();
  });

  it('says what "Log out" means to a certificate user, in English and Spanish: the browser must forget the certificate', async () => {
    for (const [locale, words] of [['en-US', /client certificate.*cannot end/s], ['es-ES', /certificado de cliente.*no puede cerrar/s]] as const) {
      const { context, page, problems } = await visitor(s.ownerPem, { locale });
      await page.goto(`${s.base}notes/`);
      assert.equal(await page.locator('form.logout').count(), 0, 'no button that does nothing');
      const logout = page.locator('header.site details.logout-certificate');
      await logout.locator('summary').click();
      const said = (await logout.textContent())!;
      assert.match(said, words);
      assert.match(said, /Chromium.*Firefox/s);
      await checked(page, problems, `logout-certificate-${locale}`);
      await context.close();
    }
  });

  it('answers a deleted document with a 404 that links its history to readers (restore to writers), tells strangers nothing, and its TimeMap says deleted', async () => {
    await putTurtle(s, 'notes/gone/', `<#this> <${ns.dct}title> "Gone soon" .`);
    assert.equal(await remove('notes/gone/'), 204);

    const owner = await visitor(s.ownerPem);
    const response = await owner.page.goto(`${s.base}notes/gone/`);
    assert.equal(response?.status(), 404);
    const history = owner.page.locator('main a', { hasText: 'See its versions' });
    assert.equal(await history.getAttribute('href'), `${s.base}notes/gone/?timemap`);
    assert.equal(await owner.page.locator('form.restore').count(), 1);
    await checked(owner.page, owner.problems, 'deleted-owner');
    await Promise.all([owner.page.waitForURL(/\?timemap$/), history.click()]);
    const newest = owner.page.locator('table.versions tbody tr').first();
    assert.match((await newest.textContent())!, /\(then deleted\)/);
    assert.doesNotMatch((await newest.textContent())!, /current/, 'a deleted document has no current version');
    await checked(owner.page, owner.problems, 'timemap-deleted');
    await owner.page.goBack();
    owner.page.once('dialog', (dialog) => void dialog.accept());
    await owner.page.click('form.restore button');
    await owner.page.locator('h1', { hasText: 'Gone soon' }).waitFor(); // restored, and the page reloaded
    assert.equal(await remove('notes/gone/'), 204);
    await owner.context.close();

    const asReader = await visitor(reader.pem);
    assert.equal((await asReader.page.goto(`${s.base}notes/gone/`))?.status(), 404);
    assert.equal(await asReader.page.locator('main a', { hasText: 'See its versions' }).count(), 1, 'a reader gets the history');
    assert.equal(await asReader.page.locator('form.restore').count(), 0, 'but no restore');
    await asReader.context.close();

    for (const pem of [stranger.pem, undefined]) {
      const other = await visitor(pem);
      const answer = await other.page.goto(`${s.base}notes/gone/`);
      const text = (await other.page.locator('main').textContent())!;
      assert.doesNotMatch(text, /versions|deleted|history/i, `nothing says it existed (${answer?.status()})`);
      assert.equal(await other.page.locator('a[href*="timemap"], form.restore').count(), 0);
      await other.context.close();
    }
  });

  it('links sitemap.xml in the footer only when the dataspace has one', async () => {
    const { context, page } = await visitor(s.ownerPem);
    await page.goto(`${s.base}notes/first/`);
    assert.equal(await page.locator('footer a', { hasText: 'sitemap.xml' }).count(), 0, 'nothing is public: no sitemap, no link');
    assert.equal((await s.request('GET', '/sitemap.xml', { as: 'anonymous' })).status, 404);
    await page.goto(s.admin);
    assert.equal(await page.locator('footer a', { hasText: 'sitemap.xml' }).count(), 0, 'an admin dataspace has none');
    await makePublic(s, 'defects-public');
    await page.goto(`${s.base}notes/first/`);
    const link = page.locator('footer a', { hasText: 'sitemap.xml' });
    assert.equal(await link.count(), 1);
    assert.equal((await page.request.get((await link.getAttribute('href'))!)).status(), 200);
    assert.equal(await remove('/admin/acl/authorizations/defects-public/'), 204);
    await context.close();
  });

  it('says "empty" only when nothing shows: not above a container’s children, not over what sits under "About this document"', async () => {
    await putTurtle(s, 'notes/titled/', `<> <${ns.dct}title> "Only about itself" .`);
    await putTurtle(s, 'empty-box/', `<> a <${ns.dh}Container> .`);
    const { context, page, problems } = await visitor(s.ownerPem);
    for (const path of ['notes/', 'notes/titled/', 'empty-box/']) {
      await page.goto(`${s.base}${path}`);
      assert.equal(await page.locator('p.empty').count(), 0, path);
    }
    await checked(page, problems, 'container-empty');
    await page.goto(s.running.agents.owner.webId.replace(/#this$/, ''));
    assert.equal(await page.locator('p.empty').count(), 0, 'the owner’s agent document');
    await context.close();
  });

  it('fits a phone (375 px): nothing wider than the viewport, no word broken inside its letters, long IRIs wrapped', async () => {
    const long = `https://example.org/a/very/long/path/that/goes/on/and/on/${'segment'.repeat(12)}/end#fragment`;
    await putTurtle(s, 'notes/place/', `<#this> <${ns.dct}title> "A place" ; <http://www.w3.org/2003/01/geo/wgs84_pos#latitude> 52.5 ; <http://www.w3.org/2003/01/geo/wgs84_pos#longitude> 13.4 ; <${ns.rdfs}seeAlso> <${long}> ; <${ns.dct}description> "Supercalifragilistic words stay whole when the column is narrow" .`);
    const { context, page, problems } = await visitor(s.ownerPem, { width: 375 });
    for (const path of ['notes/place/', 'notes/place/?timemap', 'notes/', '', 'sparql', 'notes/nothing-here/']) {
      await page.goto(`${s.base}${path}`);
      const found = await page.evaluate(() => {
        const root = document.documentElement;
        const wide = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > root.clientWidth + 1 && !e.closest('.table-scroll, pre, .CodeMirror, details:not([open])')).map((e) => `${e.tagName.toLowerCase()}.${e.className}`);
        const broken: string[] = [];
        const walker = document.createTreeWalker(document.querySelector('main')!, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          if (!(node.parentElement && node.parentElement.offsetParent)) continue;
          for (const match of node.textContent!.matchAll(/\p{L}+/gu)) {
            if (match[0].length < 2 || match[0].length > 24) continue; // a run longer than a line may be broken
            const range = document.createRange();
            range.setStart(node, match.index);
            range.setEnd(node, match.index + match[0].length);
            const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
            if (lines.size > 1) broken.push(match[0]);
          }
        }
        return { overflow: root.scrollWidth - root.clientWidth, wide, broken };
      });
      assert.deepEqual(found, { overflow: 0, wide: [], broken: [] }, `${path || 'home'} at 375 px`);
      await checked(page, problems, `phone-${path}`);
    }
    await context.close();
  });

  it('names people (creator, owner, history authors) where the viewer may read their agent document, and shows a WebID otherwise', async () => {
    const owner = s.running.agents.owner.webId;
    const ownerName = (await s.request('GET', new URL(owner).pathname, { headers: { Accept: 'application/n-triples' } })).body.match(/<http:\/\/xmlns\.com\/foaf\/0\.1\/name> "([^"]+)"/)?.[1];
    assert.ok(ownerName, 'the owner has a foaf:name');
    await putTurtle(s, 'notes/people/', `<#this> <${ns.dct}title> "People" ; <${ns.foaf}knows> <${reader.webId}> .`);

    const asOwner = await visitor(s.ownerPem);
    await asOwner.page.goto(`${s.base}notes/people/`);
    const metadata = asOwner.page.locator('section.metadata');
    assert.equal(await metadata.locator(`a[href="${owner}"]`).first().textContent(), ownerName, 'the creator and owner by name');
    assert.equal(await asOwner.page.locator(`section#this a[href="${reader.webId}"]`).textContent(), 'Rita Reader');
    await asOwner.page.goto(`${s.base}notes/people/?timemap`);
    assert.equal(await asOwner.page.locator(`table.versions a[href="${owner}"]`).first().textContent(), ownerName, 'the history’s author by name');
    await checked(asOwner.page, asOwner.problems, 'names-owner');
    await asOwner.context.close();

    // agent documents are public (WebID-TLS reads them), so every viewer sees those names; an agent document the viewer may not read keeps its name
    assert.equal((await s.request('GET', new URL(owner).pathname, { as: 'anonymous' })).status, 200);
    await putTurtle(s, '/admin/hidden-agent/', `<#this> a <${ns.foaf}Person> ; <${ns.foaf}name> "Hidden Name" .`);
    const hidden = `${s.admin}hidden-agent/#this`;
    assert.equal((await s.request('GET', '/admin/hidden-agent/', { as: { pem: reader.pem } })).status, 403);
    await putTurtle(s, 'notes/people/', `<#this> <${ns.dct}title> "People" ; <${ns.foaf}knows> <${reader.webId}>, <${hidden}>, <${s.admin}no//such/%2e%2e/#x> .`); // and an IRI that names no document
    const again = await visitor(s.ownerPem);
    await again.page.goto(`${s.base}notes/people/`);
    assert.equal(await again.page.locator(`section#this a[href="${hidden}"]`).textContent(), 'Hidden Name', 'the owner may read it');
    await again.context.close();
    const asReader = await visitor(reader.pem);
    await asReader.page.goto(`${s.base}notes/people/`);
    assert.equal(await asReader.page.locator(`section.metadata a[href="${owner}"]`).first().textContent(), ownerName);
    assert.equal(await asReader.page.locator(`section#this a[href="${reader.webId}"]`).textContent(), 'Rita Reader');
    assert.ok(!(await asReader.page.locator('main').textContent())!.includes('Hidden Name'), 'a name Rita may not read is not shown');
    assert.notEqual(await asReader.page.locator(`section#this a[href="${hidden}"]`).textContent(), 'Hidden Name');
    await checked(asReader.page, asReader.problems, 'names-reader');
    await asReader.context.close();
  });
});
