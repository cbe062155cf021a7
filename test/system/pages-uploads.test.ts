/**
 * Uploads in the web interface (issue 28), in Chromium over real HTTPS: the owner uploads an image
 * with the form of the root's page (no `uploads/` yet: the first upload makes it), lands on the
 * file's page and sees the image there; a document that links it with foaf:img shows it too; an
 * uploaded HTML page or SVG opened in the browser runs nothing on the server's origin.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ns } from '../../src/rdf/namespaces.js';
import { checked, launchChromium, redPng, skipWithoutChromium, visitor } from '../chromium.js';
import { git, removeTempDirs, tempDir } from '../helpers.js';
import { putTurtle, startServer, type TestServer } from '../http-helpers.js';

after(removeTempDirs);

describe('uploads in Chromium', { skip: skipWithoutChromium }, () => {
  let s: TestServer;
  let browser: Browser;
  const image = redPng(3);
  const sha1 = createHash('sha1').update(image).digest('hex');

  before(async () => {
    s = await startServer([], tempDir('pages-uploads'), undefined, {}, { tls: true });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  it('uploads an image with the form of the root page and shows it on the file’s page', async () => {
    const { context, page, problems } = await visitor(browser, s.base, s.ownerPem);
    await page.goto(s.base);
    await page.setInputFiles('#upload-file', { name: 'red.png', mimeType: 'image/png', buffer: image });
    await page.fill('#upload-title', 'A red line');
    await Promise.all([page.waitForURL(`${s.base}uploads/${sha1}/`), page.click('form.upload-file button[type="submit"]')]);
    assert.equal(await page.locator('h1').textContent(), 'A red line');
    const shown = page.locator('figure.uploaded-file img');
    await shown.waitFor();
    assert.equal(await shown.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), 3, 'the image is decoded: width 3');
    assert.equal(await page.locator('figure.uploaded-file a[download]').getAttribute('href'), `${s.base}uploads/${sha1}`);
    await checked(page, problems, 'upload-description');
    // the upload page offers the form again, and lists the file
    await page.goto(`${s.base}uploads/`);
    assert.equal(await page.locator('form.upload-file').count(), 1);
    assert.equal(await page.locator(`.child-list a[href="${s.base}uploads/${sha1}/"]`).count(), 1);
    await checked(page, problems, 'uploads');
    await context.close();
    const repo = s.running.runtimes[0]!.dataspace.store.dir;
    assert.match(git(repo, 'show', '--name-only', '--format=', 'HEAD'), new RegExp(`graphs/uploads/${sha1}\ngraphs/uploads/${sha1}.nt`));
  });

  it('shows an upload a document links with foaf:img', async () => {
    await putTurtle(s, 'gallery/', `<#this> <${ns.dct}title> "Gallery" ; <${ns.foaf}img> <${s.base}uploads/${sha1}> .`);
    const { context, page, problems } = await visitor(browser, s.base, s.ownerPem);
    await page.goto(`${s.base}gallery/`);
    const shown = page.locator(`img[src="${s.base}uploads/${sha1}"]`);
    await shown.waitFor();
    assert.equal(await shown.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), 3);
    await checked(page, problems, 'upload-linked');
    await context.close();
  });

  it('runs no script of an uploaded HTML page or SVG on the server’s origin', async () => {
    const kinds = [
      ['text/html', '<!doctype html><title>x</title><script>alert("html ran")</script>'],
      ['image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert("svg ran")</script></svg>'],
    ] as const;
    const { context, page } = await visitor(browser, s.base, s.ownerPem);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    for (const [type, text] of kinds) {
      const res = await s.request('POST', '/uploads/', { headers: { 'Content-Type': type }, body: text });
      assert.equal(res.status, 201, res.body);
      const url = String(res.headers.location);
      const download = page.waitForEvent('download');
      const opened = await page.goto(url).then(() => 'opened', (error: Error) => error.message);
      assert.match(opened, /Download is starting/, `${type} is downloaded, not opened`);
      assert.equal((await download).url(), url);
    }
    // and shown in a page as an image, the SVG runs nothing either
    await putTurtle(s, 'drawing/', `<#this> <${ns.foaf}img> <${s.base}uploads/${createHash('sha1').update(kinds[1][1]).digest('hex')}> .`);
    await page.goto(`${s.base}drawing/`);
    await page.locator('img').first().waitFor();
    assert.deepEqual(dialogs, []);
    await context.close();
  });
});
