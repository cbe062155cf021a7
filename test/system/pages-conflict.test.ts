/**
 * The edit-conflict view (issue 28) in real Chromium: two browser contexts of the owner edit the same
 * document; the second save gets both versions, no wider than the window (side by side at 1,280 px,
 * stacked at 375 px), the differing triples marked; "keep mine" stores it (checked in git), a third
 * writer meanwhile gives a second conflict, not an overwrite; "take theirs" loads the current text
 * and its ETag into the editor; edits made with the view open are compared again (a merge by hand);
 * Turtle of yours that does not parse is shown as written. Pages are checked by axe-core.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ns } from '../../src/rdf/namespaces.js';
import { checked, launchChromium, skipWithoutChromium, visitor as visit } from '../chromium.js';
import { fileAtHead, git, removeTempDirs, tempDir } from '../helpers.js';
import { putTurtle, startServer, type TestServer } from '../http-helpers.js';

after(removeTempDirs);

type CodeMirrorElement = { CodeMirror: { getValue(): string; setValue(v: string): void } };

describe('the edit-conflict view (issue 28)', { skip: skipWithoutChromium }, () => {
  let s: TestServer;
  let browser: Browser;
  let repo: string;

  before(async () => {
    s = await startServer([], tempDir('pages-conflict'), undefined, {}, { tls: true });
    browser = await launchChromium();
    repo = s.running.runtimes[0]!.dataspace.store.dir;
  });

  after(async () => {
    await browser?.close();
    await s?.close();
  });

  const owner = (width: number, locale = 'en-US') => visit(browser, s.base, s.ownerPem, { width, locale, timeoutMs: 10_000 });
  const commitsOf = (path: string) => git(repo, 'log', '--format=%H', '--', `graphs/${path.slice(0, -1)}.nt`).trim().split('\n').filter(Boolean);

  /** Opens the document's Turtle editor (CodeMirror) and returns its text. */
  async function openEditor(page: Page, path: string): Promise<string> {
    await page.goto(`${s.base}${path}`);
    await page.click('details.edit-turtle summary');
    await page.locator('.CodeMirror').waitFor();
    return page.evaluate(() => (document.querySelector('.CodeMirror') as unknown as CodeMirrorElement).CodeMirror.getValue());
  }
  const setEditor = (page: Page, text: string) => page.evaluate((value) => (document.querySelector('.CodeMirror') as unknown as CodeMirrorElement).CodeMirror.setValue(value), text);
  const editorText = (page: Page) => page.evaluate(() => (document.querySelector('.CodeMirror') as unknown as CodeMirrorElement).CodeMirror.getValue());
  const marked = (page: Page, side: 'mine' | 'theirs') => page.locator(`.conflict pre.${side} mark`).allTextContents();
  const unmarked = (page: Page, side: 'mine' | 'theirs') => page.locator(`.conflict pre.${side} span.line`).allTextContents();

  /** Saves the editor's text, the page reloading on success. */
  const save = (page: Page) => Promise.all([page.waitForEvent('framenavigated'), page.click('form.turtle-editor button[type=submit]')]);

  /**
   * Two owner's browsers with the editor of `path` open on the same version; the first saves its text
   * with `edit` applied. The second, still on the version both read, is the one to conflict.
   */
  async function twoWriters(path: string, edit: (text: string) => string, width = 1280, locale = 'en-US') {
    const first = await owner(width, locale);
    const second = await owner(width, locale);
    const original = await openEditor(first.page, path);
    assert.equal(await openEditor(second.page, path), original);
    await setEditor(first.page, edit(original));
    await save(first.page);
    return { first, second, original, close: () => Promise.all([first.context.close(), second.context.close()]) };
  }

  /** Nothing on the page is wider than the window, the conflict view included. */
  async function fitsTheWindow(page: Page, label: string): Promise<void> {
    const { scroll, inner, right } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      inner: window.innerWidth,
      right: document.querySelector('.conflict')!.getBoundingClientRect().right,
    }));
    assert.ok(scroll <= inner, `${label}: the page is ${scroll} px wide in a ${inner} px window`);
    assert.ok(right <= inner, `${label}: the conflict view ends at ${right} px in a ${inner} px window`);
  }

  it('at 1,280 px shows both versions side by side with the differing triples marked, and "keep mine" stores mine (two commits in git)', async () => {
    // a long line, to see that it wraps inside its box rather than widen the page
    const long = 'a description long enough to be wider than half a window '.repeat(6).trim();
    await putTurtle(s, 'clash/', `<#this> <${ns.dct}title> "Start" ; <${ns.dct}description> "${long}" .`);
    const seeded = commitsOf('clash/').length;
    // theirs says more than the title: a literal written as markup, which must stay text
    const { first, second, original, close } = await twoWriters('clash/', (text) => `${text.replace('"Start"', '"First"')}\n<#this> <${ns.dct}subject> "<img src=x id=injected>" .\n`);
    assert.equal(await first.page.locator('h1').textContent(), 'First');

    const mine = original.replace('"Start"', '"Second"');
    await setEditor(second.page, mine);
    await second.page.click('form.turtle-editor button[type=submit]');
    await second.page.locator('.conflict').waitFor({ state: 'visible' });
    await second.page.locator('.conflict pre.theirs .line').first().waitFor();
    assert.deepEqual(await marked(second.page, 'mine'), ['<#this> dct:title "Second" .'], 'only my title differs from theirs');
    assert.deepEqual((await marked(second.page, 'theirs')).sort(), ['<#this> dct:subject "<img src=x id=injected>" .', '<#this> dct:title "First" .']);
    assert.ok((await unmarked(second.page, 'mine')).some((line) => line.includes(long)), 'the description is the same in both: not marked');
    assert.ok((await unmarked(second.page, 'theirs')).some((line) => line.includes(long)));
    assert.equal(await second.page.locator('#injected, .conflict img').count(), 0, 'their markup is shown as text');
    assert.match((await second.page.locator('.conflict-summary').textContent())!, /Highlighted: 1 only in yours, 2 only in the current version/);
    await fitsTheWindow(second.page, '1,280 px');
    const [mineBox, theirsBox] = await Promise.all(['mine', 'theirs'].map((side) => second.page.locator(`.conflict pre.${side}`).boundingBox()));
    assert.equal(mineBox!.y, theirsBox!.y, 'side by side at 1,280 px');
    assert.ok(mineBox!.width < 640, 'each version takes at most half the window');
    assert.equal(commitsOf('clash/').length, seeded + 1, 'the refused save made no commit');
    await checked(second.page, second.problems, 'conflict-1280');

    await Promise.all([second.page.waitForEvent('framenavigated'), second.page.click('.conflict button.keep-mine')]);
    assert.equal(await second.page.locator('h1').textContent(), 'Second');
    assert.equal(commitsOf('clash/').length, seeded + 2, 'two commits: theirs, then mine');
    const stored = fileAtHead(repo, 'clash/')!;
    assert.match(stored, /"Second"/);
    assert.doesNotMatch(stored, /"First"|injected/, 'the file holds mine, theirs replaced knowingly');
    await close();
  });

  it('a third writer between the 412 and "keep mine" gives a second conflict, not a silent overwrite; "take theirs" then loads the newest text and its ETag', async () => {
    await putTurtle(s, 'clash-three/', `<#this> <${ns.dct}title> "Start" ; <${ns.dct}description> "Kept" .`);
    const { second, original, close } = await twoWriters('clash-three/', (text) => text.replace('"Start"', '"First"'));
    await setEditor(second.page, original.replace('"Start"', '"Second"'));
    await second.page.click('form.turtle-editor button[type=submit]');
    await second.page.locator('.conflict pre.theirs mark').first().waitFor();

    // the third writer, through the API, after the conflict was shown
    const current = await s.request('GET', 'clash-three/', { headers: { Accept: 'text/turtle' } });
    const third = await s.request('PATCH', 'clash-three/', { headers: { 'Content-Type': 'application/sparql-update', Accept: 'text/turtle', 'If-Match': String(current.headers.etag) }, body: `DELETE { ?s <${ns.dct}description> ?o } INSERT { ?s <${ns.dct}description> "Third" } WHERE { ?s <${ns.dct}description> ?o }` });
    assert.equal(third.status, 204, third.body);
    const before = commitsOf('clash-three/').length;

    await second.page.click('.conflict button.keep-mine');
    await second.page.locator('.conflict pre.theirs mark', { hasText: '"Third"' }).waitFor();
    assert.match((await second.page.locator('.conflict-note').textContent())!, /changed again/);
    assert.equal(commitsOf('clash-three/').length, before, 'no commit: the PUT quoted the ETag of the version shown, which the third writer replaced');
    assert.match(fileAtHead(repo, 'clash-three/')!, /"Third"/);
    assert.deepEqual((await marked(second.page, 'theirs')).sort(), ['<#this> dct:description "Third" .', '<#this> dct:title "First" .']);

    await second.page.click('.conflict button.take-theirs');
    assert.equal(await second.page.locator('.conflict').isHidden(), true);
    const taken = await editorText(second.page);
    assert.match(taken, /"Third"/);
    assert.match(taken, /"First"/);
    // the editor holds the newest version with its ETag: a save from it is accepted
    await setEditor(second.page, taken.replace('"First"', '"Fourth"'));
    await save(second.page);
    assert.equal(await second.page.locator('h1').textContent(), 'Fourth');
    assert.match(fileAtHead(repo, 'clash-three/')!, /"Third"/, 'the third writer’s change was kept');
    await close();
  });

  it('merges by hand: what is edited while the view is open is compared again, and "keep mine" stores the editor’s text', async () => {
    await putTurtle(s, 'clash-merge/', `<#this> <${ns.dct}title> "Start" ; <${ns.dct}description> "Old" .`);
    const { second, original, close } = await twoWriters('clash-merge/', (text) => text.replace('"Start"', '"First"'));
    await setEditor(second.page, original.replace('"Old"', '"Mine"'));
    await second.page.click('form.turtle-editor button[type=submit]');
    await second.page.locator('.conflict pre.theirs mark').first().waitFor();
    assert.deepEqual((await marked(second.page, 'mine')).sort(), ['<#this> dct:description "Mine" .', '<#this> dct:title "Start" .']);
    // their title taken into mine, in the editor
    await setEditor(second.page, original.replace('"Old"', '"Mine"').replace('"Start"', '"First"'));
    await second.page.waitForFunction(() => document.querySelectorAll('.conflict pre.mine mark').length === 1);
    assert.deepEqual(await marked(second.page, 'mine'), ['<#this> dct:description "Mine" .']);
    assert.deepEqual(await marked(second.page, 'theirs'), ['<#this> dct:description "Old" .']);
    const commits = commitsOf('clash-merge/').length;
    await Promise.all([second.page.waitForEvent('framenavigated'), second.page.click('.conflict button.keep-mine')]);
    assert.equal(commitsOf('clash-merge/').length, commits + 1);
    const stored = fileAtHead(repo, 'clash-merge/')!;
    assert.match(stored, /"First"/);
    assert.match(stored, /"Mine"/);
    await close();
  });

  it('shows both texts as written, unmarked, when yours does not parse; "keep mine" then answers the server’s 400 and changes nothing', async () => {
    await putTurtle(s, 'clash-typo/', `<#this> <${ns.dct}title> "Start" .`);
    const { second, original, close } = await twoWriters('clash-typo/', (text) => text.replace('"Start"', '"First"'));
    const broken = original.replace('"Start"', '"Second');
    await setEditor(second.page, broken);
    await second.page.click('form.turtle-editor button[type=submit]');
    await second.page.locator('.conflict').waitFor({ state: 'visible' });
    await second.page.locator('.conflict-summary', { hasText: 'could not be read' }).waitFor();
    assert.equal(await second.page.locator('.conflict pre.mine').textContent(), broken, 'yours as written');
    assert.match((await second.page.locator('.conflict pre.theirs').textContent())!, /"First"/);
    assert.equal(await second.page.locator('.conflict mark').count(), 0);
    await checked(second.page, second.problems, 'conflict-unreadable');
    const commits = commitsOf('clash-typo/').length;
    await second.page.click('.conflict button.keep-mine');
    await second.page.locator('form.turtle-editor .status', { hasText: /\b400\b/ }).waitFor();
    assert.equal(commitsOf('clash-typo/').length, commits, 'nothing written');
    await close();
  });

  it('at 375 px, in Spanish, stacks the two versions inside the window; "take theirs" loads the first writer’s text', async () => {
    await putTurtle(s, 'clash-phone/', `<#this> <${ns.dct}title> "Inicio" ; <${ns.dct}description> "${'una descripción bastante larga '.repeat(5).trim()}" .`);
    const { second, original, close } = await twoWriters('clash-phone/', (text) => text.replace('"Inicio"', '"Primera"'), 375, 'es-ES');
    await setEditor(second.page, original.replace('"Inicio"', '"Segunda"'));
    await second.page.click('form.turtle-editor button[type=submit]');
    await second.page.locator('.conflict pre.theirs mark').first().waitFor();
    await fitsTheWindow(second.page, '375 px');
    const [mineBox, theirsBox] = await Promise.all(['mine', 'theirs'].map((side) => second.page.locator(`.conflict pre.${side}`).boundingBox()));
    assert.ok(theirsBox!.y > mineBox!.y + mineBox!.height - 1, 'stacked at 375 px');
    assert.match((await second.page.locator('.conflict h3').textContent())!, /Otra persona cambió este documento/);
    assert.match((await second.page.locator('.conflict-summary').textContent())!, /Resaltado: 1 solo en la suya, 1 solo en la versión actual/);
    assert.equal(await second.page.locator('.conflict button.keep-mine').textContent(), 'Conservar la mía (reemplaza la actual)');
    await checked(second.page, second.problems, 'conflict-375-es');

    await second.page.click('.conflict button.take-theirs');
    assert.match(await editorText(second.page), /"Primera"/);
    assert.doesNotMatch(await editorText(second.page), /"Segunda"/);
    assert.match((await second.page.locator('form.turtle-editor .status').textContent())!, /El editor tiene ahora la versión actual/);
    await close();
  });
});
