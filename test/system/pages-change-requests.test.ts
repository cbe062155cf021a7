/**
 * The change request page in Chromium (issue 30): a branch's changes, document by document, its
 * triples in words, linked on main and on the branch; a reader sees only what it may read and no
 * button; a stranger gets a 403 page that says nothing
 * of it; merging through the page lands one commit on main, a conflict is listed in words, a branch
 * that moved is said to have moved, a discard deletes the branch; axe clean, fits a 375 px phone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { checked, launchChromium, skipWithoutChromium, visitor } from '../chromium.js';
import { git, removeTempDirs, tempDir } from '../helpers.js';
import { putTurtle, signUp, startServer, turtle, type Stranger, type TestServer } from '../http-helpers.js';

const titled = (title: string, more = '') => `<#this> <http://purl.org/dc/terms/title> "${title}" ${more}.`;

async function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

describe('the change request page in Chromium', { skip: skipWithoutChromium }, () => {
  let s: TestServer;
  let browser: Browser;
  let stranger: Stranger;
  let reader: Stranger;
  let dir: string;
  const rev = (ref: string) => git(dir, 'rev-parse', ref).trim();

  /** PUTs `body` into `path` on `branch`, quoting the branch's ETag of it (main's before the branch has it). */
  async function putOnBranch(path: string, body: string, branch = 'draft'): Promise<void> {
    const head = await s.request('HEAD', `${path}?branch=${branch}`);
    const etag = head.status === 200 ? String(head.headers.etag) : String((await s.request('HEAD', path)).headers.etag);
    const res = await s.request('PUT', `${path}?branch=${branch}`, { headers: { ...turtle, 'If-Match': etag }, body });
    assert.equal(res.status, 200, res.body);
  }

  before(async () => {
    s = await startServer([], tempDir('change-request-pages'), undefined, {}, { tls: true });
    dir = s.running.runtimes[0]!.dataspace.store.dir;
    browser = await launchChromium();
    [stranger, reader] = [await signUp(s, 'Stranger'), await signUp(s, 'Reader')];
    await putTurtle(s, 'poem/', titled('A poem'));
    await putTurtle(s, 'notes/', titled('Notes'));
    await putOnBranch('/poem/', titled('A better poem', '; <http://purl.org/dc/terms/description> "Now with a description" '));
    await putOnBranch('/notes/', titled('Notes, revised'));
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    removeTempDirs();
  });

  it('shows each changed document with its removed and added triples in words, linked on main and on the branch', async () => {
    const { context, page, problems } = await visitor(browser, s.base, s.ownerPem);
    const response = await page.goto(`${s.base}?branch=draft&changes`);
    assert.equal(response!.status(), 200);
    assert.match((await page.locator('h1').textContent())!, /Changes of the branch draft/);
    const poem = page.locator('section.changed-document', { has: page.locator(`h2 a[href="${s.base}poem/"]`) });
    assert.equal(await poem.locator(`a[href="${s.base}poem/?branch=draft"]`).count(), 1, 'linked on the branch');
    assert.match((await poem.locator('ul.removed').textContent())!, /title · A poem/);
    const added = (await poem.locator('ul.added').textContent())!;
    assert.match(added, /title · A better poem/);
    assert.match(added, /description · Now with a description/, 'the property by its label, the literal by its text');
    assert.equal(await page.locator('section.changed-document').count(), 2);
    assert.equal(await page.locator('form.change-request button').count(), 2, 'the owner may merge or discard');
    const asText = await s.request('GET', (await page.locator('main a', { hasText: 'As text' }).getAttribute('href'))!, { headers: { Accept: 'text/html' } });
    assert.equal(String(asText.headers['content-type']).split(';')[0], 'text/plain', 'the page links the diff as text');
    assert.match(asText.body, /^\+ .*"A better poem"/m);
    await checked(page, problems, 'change-request');
    await context.close();
  });

  it('shows a reader only the documents it may read, and no button that would write', async () => {
    const acl = 'http://www.w3.org/ns/auth/acl#';
    const rule = `<#this> a <${acl}Authorization> ; <${acl}agent> <${reader.webId}> ; <${acl}mode> <${acl}Read> ; <${acl}accessTo> <${s.base}poem/> .`;
    assert.equal((await s.request('PUT', `${s.admin}acl/authorizations/change-request-reader/`, { headers: turtle, body: rule })).status, 201);
    const { context, page, problems } = await visitor(browser, s.base, reader.pem);
    assert.equal((await page.goto(`${s.base}?branch=draft&changes`))!.status(), 200);
    assert.equal(await page.locator('section.changed-document').count(), 1);
    assert.equal(await page.locator(`section.changed-document h2 a[href="${s.base}poem/"]`).count(), 1);
    assert.doesNotMatch((await page.locator('main').textContent())!, /notes|Notes, revised/i, 'nothing of the document it may not read');
    assert.equal(await page.locator('form.change-request').count(), 0, 'no merge or discard for one who may not write');
    await checked(page, problems, 'change-request-reader');
    await context.close();
  });

  it('shows a stranger a 403 page that says nothing of the branch, as for a branch that does not exist', async () => {
    const { context, page, problems } = await visitor(browser, s.base, stranger.pem);
    const existing = await page.goto(`${s.base}?branch=draft&changes`);
    assert.equal(existing!.status(), 403);
    const text = (await page.locator('main').textContent())!;
    assert.doesNotMatch(text, /poem|notes|Now with|revised/i);
    await checked(page, problems, 'change-request-403');
    const missing = await page.goto(`${s.base}?branch=nothing&changes`);
    assert.equal(missing!.status(), 403);
    assert.equal((await page.locator('main').textContent())!.replace(/nothing/g, 'X'), text.replace(/draft/g, 'X'));
    await context.close();
  });

  it('shows a conflict in words, says the branch moved on a 412, then merges as one commit on main', async () => {
    await putTurtle(s, 'poem/', titled('The main poem')); // main changes the title too: the two disagree
    const main = rev('main');
    const { context, page, problems } = await visitor(browser, s.base, s.ownerPem);
    await page.goto(`${s.base}?branch=draft&changes`);
    await page.click('form.change-request button[value="merge"]');
    const status = page.locator('form.change-request .status');
    await status.locator('ul.conflicts li').first().waitFor();
    const conflicts = (await status.textContent())!;
    assert.match(conflicts, /Nothing was merged/);
    assert.match(conflicts, /On main: poem · title · The main poem/);
    assert.match(conflicts, /On the branch: poem · title · A better poem/);
    assert.equal(rev('main'), main, 'nothing was committed');
    // the branch is made to agree with main while the page is open: its merge button now holds an old ETag
    await putOnBranch('/poem/', titled('The main poem', '; <http://purl.org/dc/terms/description> "Now with a description" '));
    await page.click('form.change-request button[value="merge"]');
    await status.getByText(/The branch changed since you opened this page/).waitFor();
    assert.equal(rev('main'), main);
    await page.reload();
    const draft = rev('draft');
    await page.click('form.change-request button[value="merge"]');
    await status.getByText(/Merged/).waitFor();
    assert.equal(git(dir, 'rev-list', '--count', `${main}..main`).trim(), '1', 'one commit on main');
    assert.equal(git(dir, 'log', '-1', '--format=%P', 'main').trim(), main, 'with one parent');
    assert.match(git(dir, 'log', '-1', '--format=%b', 'main'), new RegExp(`The changes of the branch draft at ${draft}`));
    assert.match(git(dir, 'show', 'main:graphs/notes.nt'), /Notes, revised/);
    assert.equal(await page.locator('form.change-request button:disabled').count(), 2, 'what is done is not offered again');
    await checked(page, problems, 'change-request-merged');
    await context.close();
  });

  it('discards a branch, fits a phone and speaks Spanish', async () => {
    await putOnBranch('/notes/', titled('Notas'), 'scrap');
    const { context, page, problems } = await visitor(browser, s.base, s.ownerPem, { width: 375, locale: 'es-ES' });
    await page.goto(`${s.base}?branch=scrap&changes`);
    assert.match((await page.locator('h1').textContent())!, /Cambios de la rama scrap/);
    assert.equal(await overflow(page), 0, 'nothing wider than 375 px');
    await checked(page, problems, 'change-request-phone-es');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('form.change-request button[value="discard"]');
    await page.locator('form.change-request .status').getByText(/Descartada/).waitFor();
    assert.equal(git(dir, 'branch', '--list', 'scrap').trim(), '', 'the branch is gone');
    await context.close();
  });
});
