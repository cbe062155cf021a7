/**
 * The blame page in Chromium (issue 30): reached from the history page, each triple labelled with
 * the version that brought it (linked), its date and its author by name; axe-core finds nothing,
 * in English and Spanish, and it fits a 375 px phone (the table scrolls in its own box).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { checked, launchChromium, skipWithoutChromium, visitor } from '../chromium.js';
import { headOf, removeTempDirs, tempDir } from '../helpers.js';
import { putTurtle, startServer, type TestServer } from '../http-helpers.js';

async function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

describe('the blame page in Chromium', { skip: skipWithoutChromium }, () => {
  let s: TestServer;
  let browser: Browser;
  const commits: string[] = [];

  before(async () => {
    s = await startServer([], tempDir('blame-pages'), undefined, {}, { tls: true });
    browser = await launchChromium();
    const long = 'https://example.org/a/very/long/vocabulary/path/that/would/not/fit/on/a/phone#someRatherLongPropertyName';
    await putTurtle(s, 'poem/', '<#this> <http://purl.org/dc/terms/title> "A poem" .');
    commits.push(headOf(s.running.runtimes[0]!.dataspace.store.dir));
    await putTurtle(s, 'poem/', `<#this> <http://purl.org/dc/terms/title> "A poem" ; <${long}> "a value long enough to wrap on a narrow screen, and then some more words" .`);
    commits.push(headOf(s.running.runtimes[0]!.dataspace.store.dir));
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    removeTempDirs();
  });

  it('is linked from the history and shows each triple with its version, date and author', async () => {
    const { context, page, problems } = await visitor(browser, s.base, s.ownerPem);
    await page.goto(`${s.base}poem/?timemap`);
    await page.click(`a[href="${s.base}poem/?blame"]`);
    assert.equal(page.url(), `${s.base}poem/?blame`);
    const title = page.locator('table.blame tr', { hasText: /title · A poem/ });
    assert.equal(await title.count(), 1);
    assert.equal(await title.locator(`a[href="${s.base}poem/?version=${commits[0]}"]`).count(), 1, 'the title came with the first version');
    assert.match((await title.textContent())!, /Owner/, 'the author by name');
    const added = page.locator('table.blame tr', { hasText: 'a value long enough' });
    assert.equal(await added.locator(`a[href="${s.base}poem/?version=${commits[1]}"]`).count(), 1, 'the long value came with the second');
    assert.match((await added.textContent())!, /some rather long property name/, 'the property by its label');
    assert.equal(await page.locator('table.blame tr', { hasText: /poem · creator · Owner/ }).count(), 1, 'a person named in the document by name, as its own page names it');
    assert.equal(await page.locator('table.blame tr', { hasText: /A poem · title/ }).count(), 1, 'the subject by its title');
    await checked(page, problems, 'blame');
    await context.close();
  });

  it('fits a phone and speaks Spanish', async () => {
    const { context, page, problems } = await visitor(browser, s.base, s.ownerPem, { width: 375, locale: 'es-ES' });
    await page.goto(`${s.base}poem/?blame`);
    assert.equal(await overflow(page), 0, 'nothing wider than 375 px but the table, which scrolls in its box');
    assert.match((await page.locator('h1').textContent())!, /Quién escribió cada tripleta/);
    await checked(page, problems, 'blame-phone-es');
    await context.close();
  });
});
