/**
 * The query page's "as of" field in Chromium (issue 30): it sends version=, says which commit
 * answered and links back to now; its downloads are of the past answer; an unknown commit is a
 * 404 page that says so; axe-core finds nothing, and it fits a 375 px phone. The queries at a past
 * commit themselves are test/history-query.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ns } from '../../src/rdf/namespaces.js';
import { checked, launchChromium, skipWithoutChromium, visitor } from '../chromium.js';
import { headOf, removeTempDirs, tempDir } from '../helpers.js';
import { putTurtle, startServer, type TestServer } from '../http-helpers.js';

const EX = 'http://example.org/ns#';

describe('the query page at a past commit in Chromium', { skip: skipWithoutChromium }, () => {
  let s: TestServer;
  let browser: Browser;
  /** A commit at which past/open/ said "open, first", ten commits back. */
  let past: string;

  before(async () => {
    s = await startServer(['--query-lanes', '2'], tempDir('past-page'), undefined, {}, { tls: true });
    browser = await launchChromium();
    await putTurtle(s, 'past/', `<> a <${ns.dh}Container> ; <${ns.dct}title> "The past" .`);
    await putTurtle(s, 'past/open/', `<#this> <${EX}says> "open, first" .`);
    past = headOf(s.running.runtimes[0]!.dataspace.store.dir);
    for (let n = 0; n < 9; n++) await putTurtle(s, `past/d${n}/`, `<#this> <${EX}value> ${n} .`);
    await putTurtle(s, 'past/open/', `<#this> <${EX}says> "open, second" .`);
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    removeTempDirs();
  });

  it('has an "as of" field on the query page that sends version= and says which commit answered (axe, 375 px)', { timeout: 60_000 }, async () => {
    for (const width of [undefined, 375]) {
      const { context, page, problems } = await visitor(browser, s.base, s.ownerPem, width ? { width } : {});
      await page.goto(`${s.base}sparql`);
      await page.fill('#query', `SELECT ?says WHERE { GRAPH <${s.base}past/open/> { ?s <${EX}says> ?says } }`);
      await Promise.all([page.waitForURL(/query=/), page.click('form.sparql-form button[type=submit]')]);
      assert.deepEqual(await page.locator('#results-table tbody td').allTextContents(), ['open, second'], 'an empty "as of" field asks now');
      assert.equal(await page.locator('.as-of').count(), 0);
      await page.fill('#version', past.slice(0, 12));
      await Promise.all([page.waitForURL(/version=/), page.click('form.sparql-form button[type=submit]')]);
      assert.deepEqual(await page.locator('#results-table tbody td').allTextContents(), ['open, first']);
      assert.match((await page.locator('.as-of').textContent())!, new RegExp(past.slice(0, 12)));
      assert.equal(await page.inputValue('#version'), past.slice(0, 12));
      const csv = await page.request.get((await page.locator('p.downloads a', { hasText: 'CSV' }).getAttribute('href'))!);
      assert.equal(await csv.text(), 'says\r\n"open, first"\r\n', 'the downloads are of the past answer');
      if (width) assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling at 375 px');
      await checked(page, problems, `sparql-as-of${width ? '-375' : ''}`);
      await page.click('.as-of a');
      await page.waitForURL((url) => !url.searchParams.has('version'));
      assert.deepEqual(await page.locator('#results-table tbody td').allTextContents(), ['open, second']);
      const missing = await page.goto(`${s.base}sparql?query=${encodeURIComponent('ASK {}')}&version=${'e'.repeat(40)}`);
      assert.equal(missing?.status(), 404);
      assert.match((await page.locator('.query-error').textContent())!, /no commit/);
      await checked(page, problems, `sparql-as-of-missing${width ? '-375' : ''}`);
      await context.close();
    }
  });
});
