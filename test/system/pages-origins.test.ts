/**
 * Another origin in the owner's browser (issue 25, item 1; DESIGN.md, "Origins"): Debian's Chromium,
 * driven by playwright-core, holds the owner's client certificate for the server; a page of another
 * origin (a plain HTTP server on loopback) tries, with `fetch(…, { credentials: 'include' })`, without
 * credentials, and with forms, to read a private document, query /sparql, PUT and PATCH documents,
 * grant itself acl:Control, PATCH settings and POST admin/clear. Each is refused or answered as
 * anonymous: the access log names no agent for it, and neither repository's HEAD moves. A link the
 * owner follows from that page still shows the owner's view, and an origin `--cors-origin` trusts
 * may read and write with the owner's certificate. One server, one browser.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ns } from '../../src/rdf/namespaces.js';
import { headOf, removeTempDirs, tempDir, waitFor } from '../helpers.js';
import { freePort, putTurtle, startServer, type TestServer } from '../http-helpers.js';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const present = existsSync(CHROMIUM);

after(removeTempDirs);

/** What a page's fetch came to: the status it could read, or `blocked` when the browser kept the answer from it. */
type Outcome = number | 'blocked';

describe('another origin in the owner’s browser', { skip: !present && process.env.CI !== 'true' ? `${CHROMIUM} is not installed (apt-get install chromium)` : false }, () => {
  let s: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let pages: Server;
  let attacker: string; // http://127.0.0.1:<port>: not trusted
  let trusted: string; // http://localhost:<port>: --cors-origin
  let logFile: string;
  let endUserRepo: string;
  let adminRepo: string;

  before(async () => {
    assert.ok(present, `${CHROMIUM} is not installed: apt-get install chromium`);
    const pagesPort = await freePort();
    attacker = `http://127.0.0.1:${pagesPort}`;
    trusted = `http://localhost:${pagesPort}`;
    // the other origin: one page, a frame for its forms to land in
    pages = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Elsewhere</title>' + [0, 1, 2].map((i) => `<iframe name="sink${i}" title="sink ${i}"></iframe>`).join(''));
    });
    await new Promise<void>((resolve) => pages.listen(pagesPort, '127.0.0.1', resolve));
    logFile = join(tempDir('origins-log'), 'access.log');
    s = await startServer(['--cors-origin', trusted, '--access-log', logFile], tempDir('pages-origins'), undefined, {}, { tls: true }); // Chromium over the wire
    endUserRepo = s.running.runtimes[0]!.dataspace.store.dir;
    adminRepo = s.running.runtimes[1]!.dataspace.store.dir;
    await putTurtle(s, 'secret/', `<#this> <${ns.dct}title> "The owner’s secret" .`);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const origin = new URL(s.base).origin;
    context = await browser.newContext({ ignoreHTTPSErrors: true, clientCertificates: [{ origin, cert: Buffer.from(s.ownerPem), key: Buffer.from(s.ownerPem) }] });
  });

  after(async () => {
    await browser?.close();
    await s?.close();
    await new Promise<void>((resolve) => (pages ? pages.close(() => resolve()) : resolve()));
  });

  /** A page of `origin`, opened in the owner's browser. */
  async function pageAt(origin: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    return page;
  }

  /** `fetch(url, init)` run by the page: the status it may read, or `blocked`. */
  function pageFetch(page: Page, url: string, init: { method?: string; headers?: Record<string, string>; body?: string; credentials: 'include' | 'omit' }): Promise<Outcome> {
    return page.evaluate(async ([url, init]) => {
      try {
        return (await fetch(url, init as RequestInit)).status;
      } catch {
        return 'blocked' as const;
      }
    }, [url, init] as const);
  }

  /** The access log's lines for `path` (method, agent, status), once `count` are there. */
  async function logged(path: string, count: number): Promise<{ agent: string; method: string; status: string }[]> {
    const url = new URL(path, s.base);
    const read = () =>
      readFileSync(logFile, 'utf8').split('\n').filter(Boolean).map((line) => line.split(' ')).filter((f) => f[3] === url.pathname + url.search).map((f) => ({ agent: f[1]!, method: f[2]!, status: f[4]! }));
    await waitFor(() => read().length >= count, 5_000).catch(() => assert.fail(`${count} lines for ${url.href} in\n${readFileSync(logFile, 'utf8')}`));
    return read();
  }

  const sparql = `sparql?query=${encodeURIComponent('SELECT * { GRAPH ?g { ?s ?p ?o } }')}`;
  const grant = (agent: string) => `<#this> a <${ns.acl}Authorization> ; <${ns.acl}agent> <${agent}> ; <${ns.acl}mode> <${ns.acl}Control>, <${ns.acl}Read>, <${ns.acl}Write> ; <${ns.acl}accessTo> <${s.base}> ; <${ns.acl}default> <${s.base}> .`;

  it('reads, queries, writes, grants, edits settings and clears nothing as the owner from an origin not trusted', async () => {
    const heads = [headOf(endUserRepo), headOf(adminRepo)];
    const settingsBefore = readFileSync(join(s.data, 'system.ttl'), 'utf8');
    const page = await pageAt(attacker);
    const turtle = { 'Content-Type': 'text/turtle' };
    const update = { 'Content-Type': 'application/sparql-update' };
    const attempts: [string, string, Record<string, string>, string | undefined][] = [
      ['GET', `${s.base}secret/`, { Accept: 'text/turtle' }, undefined],
      ['GET', `${s.base}${sparql}`, { Accept: 'application/sparql-results+json' }, undefined],
      ['POST', `${s.base}sparql`, { 'Content-Type': 'application/sparql-query' }, 'SELECT * { GRAPH ?g { ?s ?p ?o } }'],
      ['PUT', `${s.base}planted/`, turtle, `<#this> <${ns.dct}title> "planted" .`],
      ['PATCH', `${s.base}secret/`, update, `INSERT DATA { <${s.base}secret/#this> <${ns.dct}description> "patched" }`],
      ['PUT', `${s.admin}acl/authorizations/attacker/`, turtle, grant('https://attacker.example/#me')],
      ['PATCH', `${s.base}settings`, update, 'INSERT { <> <http://purl.org/dc/terms/title> "taken" } WHERE {}'],
      ['POST', `${s.admin}clear`, {}, undefined],
    ];
    for (const [method, url, headers, body] of attempts) {
      // with the owner's credentials the browser sends no request that needs a preflight, and keeps every answer from the page
      assert.equal(await pageFetch(page, url, { method, headers, body, credentials: 'include' }), 'blocked', `${method} ${url} with credentials`);
      // without credentials (the certificate still goes with the connection): the page reads anonymous's answer
      assert.equal(await pageFetch(page, url, { method, headers, body, credentials: 'omit' }), 403, `${method} ${url} without credentials`);
    }
    // forms: a simple request needs no preflight, and carries the certificate
    const forms: [string, string, Record<string, string>][] = [
      [`${s.base}secret/`, 'post', { rdf: '', su: `${s.base}secret/#this`, pu: 'http://purl.org/dc/terms/description', ol: 'by a form' }],
      [`${s.admin}clear`, 'post', {}],
      [`${s.base}sparql`, 'get', { query: 'SELECT * { GRAPH ?g { ?s ?p ?o } }' }],
    ];
    for (const [index, [action, method, fields]] of forms.entries()) {
      // (no function declared inside: tsx would wrap it in a helper the page does not have)
      await page.evaluate(([action, method, fields, target]) => {
        const form = Object.assign(window.document.createElement('form'), { action, method, target });
        for (const [name, value] of Object.entries(fields)) form.append(Object.assign(window.document.createElement('input'), { type: 'hidden', name, value }));
        window.document.body.append(form);
        form.submit();
      }, [action, method, fields, `sink${index}`] as const);
    }

    // the server's view: every request that reached it was anonymous's, and refused
    const formQuery = `sparql?${new URLSearchParams({ query: 'SELECT * { GRAPH ?g { ?s ?p ?o } }' }).toString()}`;
    for (const [method, path, count] of [['GET', 'secret/', 2], ['GET', sparql, 2], ['GET', formQuery, 1], ['POST', 'sparql', 1], ['PUT', 'planted/', 1], ['PATCH', 'secret/', 1], ['PUT', `${s.admin}acl/authorizations/attacker/`, 1], ['PATCH', 'settings', 1], ['POST', `${s.admin}clear`, 3], ['POST', 'secret/', 1]] as const) {
      const lines = (await logged(path, count)).filter((l) => l.method === method);
      assert.ok(lines.length >= Math.min(count, method === 'GET' ? count : 1), `${method} ${path}: ${JSON.stringify(lines)}`);
      for (const line of lines) assert.deepEqual([line.agent, line.status], ['-', '403'], `${method} ${path}`);
    }
    assert.deepEqual([headOf(endUserRepo), headOf(adminRepo)], heads, 'neither repository moved');
    assert.equal(readFileSync(join(s.data, 'system.ttl'), 'utf8'), settingsBefore, 'settings unchanged');
    assert.equal((await s.request('GET', 'planted/')).status, 404);
    assert.equal((await s.request('GET', `${s.admin}acl/authorizations/attacker/`)).status, 404);
    // public data stays usable: the agent documents any page may read
    assert.equal(await pageFetch(page, s.running.agents.owner.webId, { headers: { Accept: 'text/turtle' }, credentials: 'omit' }), 200);
    await page.close();
  });

  it('still shows the owner its own view of a document it opens from a link on that page', async () => {
    const page = await pageAt(attacker);
    await page.evaluate((href) => {
      const link = Object.assign(window.document.createElement('a'), { href, textContent: 'the secret' });
      window.document.body.append(link);
    }, `${s.base}secret/`);
    const [response] = await Promise.all([page.waitForNavigation(), page.click('a')]);
    assert.equal(response?.status(), 200);
    assert.equal(await page.locator('h1').textContent(), 'The owner’s secret');
    await page.close();
  });

  it('lets an origin --cors-origin trusts read and write with the owner’s certificate', async () => {
    const page = await pageAt(trusted);
    const read = await page.evaluate(async (url) => {
      const res = await fetch(url, { credentials: 'include', headers: { Accept: 'text/turtle' } });
      return { status: res.status, text: await res.text(), etag: res.headers.get('ETag') };
    }, `${s.base}secret/`);
    assert.equal(read.status, 200);
    assert.match(read.text, /The owner’s secret/);
    assert.ok(read.etag, 'ETag is exposed');
    const before = headOf(endUserRepo);
    const put = await pageFetch(page, `${s.base}from-app/`, { method: 'PUT', headers: { 'Content-Type': 'text/turtle' }, body: `<#this> <${ns.dct}title> "from the app" .`, credentials: 'include' });
    assert.equal(put, 201);
    assert.notEqual(headOf(endUserRepo), before);
    const lines = await logged('from-app/', 2); // the preflight's line, then the PUT's (written when its answer ends)
    assert.ok(lines.some((l) => l.method === 'PUT' && l.agent === s.running.agents.owner.webId && l.status === '201'), JSON.stringify(lines));
    await page.close();
  });
});
