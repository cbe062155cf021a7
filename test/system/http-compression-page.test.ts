/**
 * HTTP compression in Chromium (issue 28; src/http/compression.ts): a page and its scripts arrive
 * compressed (Brotli) over real HTTPS with a client certificate. The encodings themselves are
 * test/http-compression.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ns } from '../../src/rdf/namespaces.js';
import { launchChromium, skipWithoutChromium } from '../chromium.js';
import { removeTempDirs, tempDir } from '../helpers.js';
import { putTurtle, startServer, type TestServer } from '../http-helpers.js';

const EX = 'https://example.org/ns#';

describe('compression in Chromium', { skip: skipWithoutChromium }, () => {
  let s: TestServer;
  before(async () => {
    s = await startServer([], tempDir('compression-page'), undefined, {}, { tls: true });
    const lines = Array.from({ length: 80 }, (_, i) => `<#item-${i}> <${ns.dct}title> "Item number ${i} of the long document" ; <${EX}rank> ${i} .`);
    await putTurtle(s, 'long/', `<#this> <${ns.dct}title> "A long document" .\n${lines.join('\n')}`);
  });
  after(async () => {
    await s?.close();
    removeTempDirs();
  });

  it('a page and its scripts arrive compressed', async () => {
    const browser = await launchChromium();
    try {
      const origin = new URL(s.base).origin;
      const context = await browser.newContext({ ignoreHTTPSErrors: true, clientCertificates: [{ origin, cert: Buffer.from(s.ownerPem), key: Buffer.from(s.ownerPem) }] });
      const page = await context.newPage();
      const encodings = new Map<string, string | undefined>();
      page.on('response', (response) => encodings.set(new URL(response.url()).pathname, response.headers()['content-encoding']));
      const response = await page.goto(`${s.base}long/`);
      assert.equal(response!.status(), 200);
      await page.waitForLoadState('networkidle');
      assert.equal(encodings.get('/long/'), 'br');
      const scripts = [...encodings].filter(([path]) => path.includes('/static/') && path.endsWith('.js'));
      assert.ok(scripts.length > 0, 'the page loads scripts');
      for (const [path, coding] of scripts) assert.equal(coding, 'br', path);
      assert.equal(await page.textContent('h1'), 'A long document');
    } finally {
      await browser.close();
    }
  });
});
