/**
 * The history page in Chromium (issue 30): each version's message (the Lodestone-Message header
 * of its write) and its author by name, linking the WebID; axe-core finds nothing. The messages
 * themselves, in git and in the TimeMap, are test/history-why.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { checked, launchChromium, skipWithoutChromium, visitor } from '../chromium.js';
import { removeTempDirs, tempDir } from '../helpers.js';
import { startServer, turtle, type TestServer } from '../http-helpers.js';

const DCT = 'http://purl.org/dc/terms/';

describe('the history page in Chromium', { skip: skipWithoutChromium }, () => {
  let s: TestServer;
  let browser: Browser;
  before(async () => {
    s = await startServer([], tempDir('why-page'), undefined, {}, { tls: true });
    browser = await launchChromium();
    const message = 'Fix the title — año 2026\nSecond line of the why';
    const put = await s.request('PUT', '/why/', { headers: { ...turtle, 'Lodestone-Message': encodeURIComponent(message) }, body: `<#this> <${DCT}title> "Why" .` });
    assert.equal(put.status, 201, put.body);
    const patch = await s.request('PATCH', '/why/', { headers: { 'Content-Type': 'application/sparql-update', 'If-Match': String(put.headers.etag), 'Lodestone-Message': 'Adds%20a%20subject' }, body: `INSERT { <${s.base}why/#this> <${DCT}subject> "history" } WHERE {}` });
    assert.ok(patch.status < 300, patch.body);
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    removeTempDirs();
  });

  it('shows each version’s message and its author’s name, linking the WebID, axe-clean', async () => {
    const { context, page, problems } = await visitor(browser, s.base, s.ownerPem);
    try {
      const response = await page.goto(`${s.base}why/?timemap`);
      assert.equal(response?.status(), 200);
      const row = page.locator('table.versions tbody tr').filter({ hasText: 'Adds a subject' });
      assert.equal(await row.count(), 1);
      const author = row.locator('a', { hasText: 'Owner' });
      assert.equal(await author.getAttribute('href'), s.running.agents.owner.webId);
      assert.match(await page.locator('table.versions').innerText(), /Fix the title — año 2026\nSecond line of the why/);
      await checked(page, problems, 'history-messages');
    } finally {
      await context.close();
    }
  });
});
