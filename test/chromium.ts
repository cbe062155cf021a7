/**
 * Real Chromium for the page tests (Debian's chromium through playwright-core): the launch, a
 * visitor (a browser context as an agent's certificate, or anonymous) that collects script errors
 * and CSP reports, and the check every page passes (axe-core finds nothing, nothing broke).
 * SCREENSHOTS=<folder> saves every checked page there as PNG.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { crc32, deflateSync } from 'node:zlib';

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const present = existsSync(CHROMIUM);
/** A suite's `skip`: on a developer's machine without Chromium; never in CI, where its absence fails. */
export const skipWithoutChromium = !present && process.env.CI !== 'true' ? `${CHROMIUM} is not installed (apt-get install chromium)` : false;
const SCREENSHOTS = process.env.SCREENSHOTS;

export async function launchChromium(): Promise<Browser> {
  assert.ok(present, `${CHROMIUM} is not installed: apt-get install chromium`);
  if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export interface Visit {
  context: BrowserContext;
  page: Page;
  /** Script errors and console errors, but the statuses the pages answer on purpose. */
  problems: string[];
}

/** A browser context on `base` as `pem`'s agent (none: anonymous). */
export async function visitor(browser: Browser, base: string, pem?: string, options: { locale?: string; width?: number; timeoutMs?: number } = {}): Promise<Visit> {
  const origin = new URL(base).origin;
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    locale: options.locale ?? 'en-US',
    ...(options.width ? { viewport: { width: options.width, height: 800 } } : {}),
    ...(pem ? { clientCertificates: [{ origin, cert: Buffer.from(pem), key: Buffer.from(pem) }] } : {}),
  });
  const page = await context.newPage();
  if (options.timeoutMs) page.setDefaultTimeout(options.timeoutMs);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !/the server responded with a status of (403|404|409|412|428)/.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return { context, page, problems };
}

/** axe-core finds nothing on the page, and nothing broke the CSP or a script. */
export async function checked(page: Page, problems: string[], name: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  assert.deepEqual(violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`), [], `axe on ${name}`);
  assert.deepEqual(problems, [], `console errors on ${name}`);
  if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** A real PNG of `width` × 1 red pixels (so the browser decodes it and gives it a size). */
export function redPng(width: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(1, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0).map((_, i) => (i % 3 === 0 ? 255 : 0))]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(row)), chunk('IEND', Buffer.alloc(0))]);
}
