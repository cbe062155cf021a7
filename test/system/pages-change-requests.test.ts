/**
 * The change request page in Chromium (issue 30): a branch's changes, document by document, its
 * triples in words, linked on main and on the branch; a reader sees only what it may read and no
 * button; a stranger gets a 403 page that says nothing
 * of it; merging through the page lands one commit on main, a conflict is listed in words, a branch
 * that moved is said to have moved, a discard deletes the branch; axe clean, fits a 375 px phone.
 * Comments: posted with the page's form and listed there (text escaped), not by a form on another
 * origin's page in the owner's browser.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { checked, launchChromium, skipWithoutChromium, visitor } from '../chromium.js';
import { git, removeTempDirs, tempDir } from '../helpers.js';
import { freePort, putTurtle, signUp, startServer, turtle, type Stranger, type TestServer } from '../http-helpers.js';

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

  it('posts a comment from the page and lists it, its text escaped, by its author’s name; a reader sees it and no form', async () => {
    const thread = () => git(dir, 'rev-list', '--count', 'refs/lodestone/comments/draft').trim();
    const { context, page, problems } = await visitor(browser, s.base, s.ownerPem, { width: 375 });
    await page.goto(`${s.base}?branch=draft&changes`);
    assert.match((await page.locator('section.comments').textContent())!, /No comments yet/);
    const text = 'Nice title.\nBut <script>window.pwned = 1</script> <img src=x onerror="window.pwned = 2">?';
    await page.getByLabel('Your comment').fill(text);
    await Promise.all([page.waitForURL(/#comment-1$/), page.click('form.comment-form button[type="submit"]')]);
    const comment = page.locator('ol.comments li#comment-1');
    assert.equal(await comment.locator('.comment-text').textContent(), text, 'the text as written, newline kept');
    assert.equal(await comment.locator('.comment-text script, .comment-text img').count(), 0, 'no markup from the text');
    assert.equal(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
    assert.equal(await comment.locator(`.comment-meta a[href="${s.running.agents.owner.webId}"]`).textContent(), 'Owner', 'the author by name, linked by WebID');
    assert.equal(await comment.locator('.comment-meta time').count(), 1);
    assert.equal(thread(), '1', 'one commit on the thread’s ref');
    assert.equal(await overflow(page), 0, 'nothing wider than 375 px');
    await checked(page, problems, 'change-request-comments');
    await context.close();
    const asReader = await visitor(browser, s.base, reader.pem);
    await asReader.page.goto(`${s.base}?branch=draft&changes`);
    assert.equal(await asReader.page.locator('ol.comments li').count(), 1);
    assert.equal(await asReader.page.locator('form.comment-form').count(), 0, 'Read alone does not comment');
    await checked(asReader.page, asReader.problems, 'change-request-comments-reader');
    await asReader.context.close();
  });

  it('refuses a comment form that a page of another origin submits in the owner’s browser', async () => {
    const port = await freePort();
    const elsewhere = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Elsewhere</title><iframe name="sink" title="sink"></iframe>');
    });
    await new Promise<void>((resolve) => elsewhere.listen(port, '127.0.0.1', resolve));
    try {
      const before = git(dir, 'for-each-ref');
      const { context, page } = await visitor(browser, s.base, s.ownerPem);
      await page.goto(`http://127.0.0.1:${port}/`);
      const answered = page.waitForResponse((r) => r.url().includes('comments'));
      await page.evaluate(([action]) => {
        const form = Object.assign(window.document.createElement('form'), { action, method: 'post', target: 'sink' });
        form.append(Object.assign(window.document.createElement('input'), { type: 'hidden', name: 'content', value: 'forged' }));
        window.document.body.append(form);
        form.submit();
      }, [`${s.base}?branch=draft&comments`] as const);
      assert.equal((await answered).status(), 403);
      assert.equal(git(dir, 'for-each-ref'), before, 'no comment, no ref moved');
      await context.close();
    } finally {
      await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
    }
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
    assert.match((await page.locator('section.comments').textContent())!, /Todavía no hay comentarios/);
    assert.equal(await page.getByLabel('Su comentario').count(), 1);
    assert.equal(await overflow(page), 0, 'nothing wider than 375 px');
    await checked(page, problems, 'change-request-phone-es');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('form.change-request button[value="discard"]');
    await page.locator('form.change-request .status').getByText(/Descartada/).waitFor();
    assert.equal(git(dir, 'branch', '--list', 'scrap').trim(), '', 'the branch is gone');
    await context.close();
  });
});
