/**
 * The web interface in a real browser: Debian's Chromium driven by playwright-core, against a
 * running server, as the owner (a client certificate), as a reader and anonymously. Every page is
 * checked by axe-core (no violation) and must raise no Content-Security-Policy report or script
 * error. In CI (`CI=true`) a missing Chromium is a failure; elsewhere the suite is skipped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ns } from '../../src/rdf/namespaces.js';
import { checked, launchChromium, skipWithoutChromium, visitor as visit } from '../chromium.js';
import { commitCount, fileAtHead, git, removeTempDirs, tempDir } from '../helpers.js';
import { certifiedAgent, putTurtle, startServer, type TestServer, turtle } from '../http-helpers.js';

after(removeTempDirs);

describe('the web interface in Chromium', { skip: skipWithoutChromium }, () => {
  let s: TestServer;
  let browser: Browser;
  let reader: { webId: string; pem: string };

  before(async () => {
    s = await startServer([], tempDir('pages'), undefined, {}, { tls: true }); // Chromium over the wire
    browser = await launchChromium();
    await putTurtle(s, 'notes/', `<> a <${ns.dh}Container> ; <${ns.dct}title> "Notes" .`);
    await putTurtle(s, 'notes/first/', `<#this> <${ns.dct}title> "First note 🦄" ; <${ns.dct}description> """Two\nlines""" ; <${ns.foaf}knows> [ <${ns.foaf}name> "Bob" ] ; <https://example.org/ns#steps> ( "one" "two" ) ; <${ns.dct}created> "2024-05-01T10:00:00Z"^^<${ns.xsd}dateTime> .`);
    reader = await agent('Rita Reader');
    await putTurtle(s, '/admin/acl/authorizations/rita/', `<#this> a <${ns.acl}Authorization> ; <${ns.acl}agent> <${reader.webId}> ; <${ns.acl}mode> <${ns.acl}Read> ; <${ns.acl}accessTo> <${s.base}>, <${s.base}sparql> ; <${ns.acl}default> <${s.base}> .`);
  });

  after(async () => {
    await browser?.close();
    await s?.close();
  });

  const agent = (name: string) => certifiedAgent(s, name);
  const visitor = (pem?: string, locale = 'en-US') => visit(browser, s.base, pem, { locale });



  it('shows a document as the owner: title, resources, values by kind, metadata apart, formats, headers', async () => {
    const { context, page, problems } = await visitor(s.ownerPem);
    const response = await page.goto(`${s.base}notes/first/`);
    assert.equal(response?.status(), 200);
    const headers = response!.headers();
    assert.match(headers['content-type']!, /^text\/html; charset=utf-8/);
    assert.equal(headers['content-language'], 'en');
    assert.match(headers.vary!, /Accept, Accept-Language/);
    assert.match(headers['content-security-policy']!, /script-src 'self'/);
    assert.equal(await page.locator('h1').textContent(), 'First note 🦄');
    assert.equal(await page.title(), 'First note 🦄 · Lodestone');
    const primary = page.locator('section#this');
    assert.match((await primary.textContent())!, /Two\nlines/, 'a multi-line literal keeps its lines');
    assert.equal(await primary.locator('.nested').getByText('Bob').count(), 1, 'a blank node used once is nested');
    assert.deepEqual(await primary.locator('ol.list li').allTextContents(), ['one', 'two'], 'a list in order');
    assert.equal(await primary.locator('time').getAttribute('datetime'), '2024-05-01T10:00:00Z');
    assert.equal(await page.locator('section.metadata').getByText('has container').count(), 1, 'the hierarchy is apart');
    assert.deepEqual(await page.locator('nav.breadcrumbs a').allTextContents(), ['Home', 'notes', 'First note 🦄']);
    const turtleLink = page.locator('p.formats a', { hasText: 'Turtle' });
    const turtleResponse = await page.request.get((await turtleLink.getAttribute('href'))!);
    assert.match(turtleResponse.headers()['content-type']!, /^text\/turtle/);
    assert.equal(await page.locator('form.turtle-editor').count(), 1, 'the owner may edit');
    await checked(page, problems, 'document-owner');
    await context.close();
  });

  it('lists a container’s children, paged, and creates a child from the form', async () => {
    const { context, page, problems } = await visitor(s.ownerPem);
    await page.goto(`${s.base}notes/`);
    assert.match((await page.locator('section.children h2').textContent())!, /1 document/);
    assert.equal(await page.locator('.child-list a').first().textContent(), 'First note 🦄');
    await checked(page, problems, 'container-owner');
    await page.fill('#create-title', 'Second note');
    await page.fill('#create-slug', 'second');
    await Promise.all([page.waitForURL(`${s.base}notes/second/`), page.click('form.create-child button[type=submit]')]);
    assert.equal(await page.locator('h1').textContent(), 'Second note');
    const repo = s.running.runtimes[0]!.dataspace.store.dir;
    assert.match(git(repo, 'log', '-1', '--format=%s').trim(), /^PUT https:\/\/localhost:\d+\/notes\/second\/$/);
    await page.goto(`${s.base}notes/?order=title`);
    assert.deepEqual(await page.locator('.child-list a').allTextContents(), ['First note 🦄', 'Second note']);
    await context.close();
  });

  it('edits as Turtle with the ETag read, shows a conflict side by side, edits a property and deletes', async () => {
    await putTurtle(s, 'notes/edit-me/', `<#this> <${ns.dct}title> "Before" .`);
    const { context, page, problems } = await visitor(s.ownerPem);
    await page.goto(`${s.base}notes/edit-me/`);
    assert.equal(await page.locator('script[src*="codemirror"]').count(), 0, 'the editor is loaded when it is used');
    await page.click('details.edit-turtle summary');
    await page.locator('.CodeMirror').waitFor();
    assert.equal(await page.locator('.CodeMirror').count(), 1, 'the Turtle editor is CodeMirror');
    await page.evaluate(() => {
      const cm = (document.querySelector('.CodeMirror') as unknown as { CodeMirror: { setValue(v: string): void } }).CodeMirror;
      cm.setValue('<#this> <http://purl.org/dc/terms/title> "After" .');
    });
    await Promise.all([page.waitForLoadState('load'), page.waitForEvent('framenavigated'), page.click('form.turtle-editor button[type=submit]')]);
    assert.equal(await page.locator('h1').textContent(), 'After');

    // someone else writes meanwhile: the save is refused with 412 and both versions are shown
    await page.click('details.edit-turtle summary');
    const current = await s.request('GET', 'notes/edit-me/', { headers: { Accept: 'text/turtle' } });
    const changed = await s.request('PATCH', 'notes/edit-me/', { headers: { 'Content-Type': 'application/sparql-update', Accept: 'text/turtle', 'If-Match': current.headers.etag as string }, body: `DELETE { ?s <${ns.dct}title> ?o } INSERT { ?s <${ns.dct}title> "Theirs" } WHERE { ?s <${ns.dct}title> ?o }` });
    assert.equal(changed.status, 204, changed.body);
    await page.evaluate(() => {
      const cm = (document.querySelector('.CodeMirror') as unknown as { CodeMirror: { setValue(v: string): void } }).CodeMirror;
      cm.setValue('<#this> <http://purl.org/dc/terms/title> "Mine" .');
    });
    await page.click('form.turtle-editor button[type=submit]');
    await page.locator('.conflict').waitFor({ state: 'visible' });
    assert.match((await page.locator('.conflict pre.mine').textContent())!, /"Mine"/);
    assert.match((await page.locator('.conflict pre.theirs').textContent())!, /"Theirs"/);
    assert.match((await page.locator('form.turtle-editor .status .message').textContent())!, /^Someone changed this document/, 'said in words');
    assert.match((await page.locator('form.turtle-editor .status .detail').textContent())!, /412/, 'the server’s words below');
    await checked(page, problems, 'editor-conflict');

    await page.reload();
    await page.click('details.edit-properties summary');
    await page.fill('#property-iri', `${ns.dct}description`);
    await page.fill('#property-value', 'Added from a form');
    await Promise.all([page.waitForEvent('framenavigated'), page.click('form.property-form button[value=add]')]);
    assert.equal(await page.locator('section#this').getByText('Added from a form').count(), 1);
    await page.click('details.edit-properties summary');
    await page.fill('#property-iri', `${ns.dct}description`);
    await page.fill('#property-value', 'Changed from a form');
    await Promise.all([page.waitForEvent('framenavigated'), page.click('form.property-form button[value=set]')]);
    assert.equal(await page.locator('section#this').getByText('Changed from a form').count(), 1);
    assert.equal(await page.locator('section#this').getByText('Added from a form').count(), 0, 'the value was replaced');

    page.once('dialog', (dialog) => void dialog.accept());
    await Promise.all([page.waitForURL(`${s.base}notes/`), page.click('form.delete-document button')]);
    assert.equal((await s.request('GET', 'notes/edit-me/')).status, 404);
    await context.close();
  });

  it('edits typed values with the property form: integers, dates, language-tagged strings and IRIs keep their terms in git; a no-op and a refusal are shown, not reloaded', async () => {
    const EX = 'https://example.org/ns#';
    const XSD = ns.xsd;
    await putTurtle(s, 'notes/typed/', `<#this> <${EX}count> 40 ; <${EX}born> "2024-05-01"^^<${XSD}date> ; <${ns.dct}title> "Hola"@es ; <${ns.foaf}homepage> <https://example.org/home> .`);
    const repo = s.running.runtimes[0]!.dataspace.store.dir;
    const subject = `<${s.base}notes/typed/#this>`;
    const stored = () => fileAtHead(repo, 'notes/typed/') ?? '';
    const has = (predicate: string, object: string) => stored().includes(`${subject} <${predicate}> ${object} .\n`);
    const { context, page, problems } = await visitor(s.ownerPem);
    page.setDefaultTimeout(10_000);
    await page.goto(`${s.base}notes/typed/`);
    await checked(page, problems, 'property-form');
    const form = page.locator('form.property-form');
    const status = form.locator('.status');
    const fill = async (property: string, value: string, kind = 'auto', language = '') => {
      await page.locator('details.edit-properties').evaluate((details) => ((details as HTMLDetailsElement).open = true));
      await page.fill('#property-iri', property);
      await page.fill('#property-value', value);
      await page.selectOption('#property-kind', kind);
      await page.fill('#property-language', language);
    };
    const submitted = async (op: 'add' | 'set' | 'remove') => {
      await Promise.all([page.waitForEvent('framenavigated'), form.locator(`button[value=${op}]`).click()]);
      await page.waitForLoadState('load');
    };

    // remove a typed value picked on the page: its exact term goes
    await page.click('button.pick-value[data-value="40"]');
    assert.equal(await page.inputValue('#property-kind'), `${XSD}integer`, 'the picked value keeps its datatype');
    await submitted('remove');
    assert.ok(!stored().includes(`<${EX}count>`), stored());
    // an integer typed as such is stored as one, and changed as one
    await fill(`${EX}count`, '41');
    await submitted('add');
    assert.ok(has(`${EX}count`, `"41"^^<${XSD}integer>`), stored());
    await page.click('button.pick-value[data-value="41"]');
    await page.fill('#property-value', '42');
    await submitted('set');
    assert.ok(has(`${EX}count`, `"42"^^<${XSD}integer>`) && !stored().includes('"41"'), stored());
    // a date changed without a pick replaces every value of the property with a date
    await fill(`${EX}born`, '2025-02-03');
    await submitted('set');
    assert.ok(has(`${EX}born`, `"2025-02-03"^^<${XSD}date>`) && !stored().includes('2024-05-01'), stored());
    // a language-tagged string: added with its tag, changed keeping it, removed as typed with it
    await fill(`${ns.dct}description`, 'Bonjour', 'auto', 'fr');
    await submitted('add');
    assert.ok(has(`${ns.dct}description`, '"Bonjour"@fr'), stored());
    await page.click('button.pick-value[data-value="Hola"]');
    await page.fill('#property-value', 'Chao');
    await submitted('set');
    assert.ok(has(`${ns.dct}title`, '"Chao"@es') && !stored().includes('"Hola"'), stored());
    await fill(`${ns.dct}description`, 'Bonjour', 'auto', 'fr');
    await submitted('remove');
    assert.ok(!stored().includes('Bonjour'), stored());
    // an IRI: added as an IRI, removed as typed
    await fill(`${ns.foaf}page`, 'https://example.org/p');
    await submitted('add');
    assert.ok(has(`${ns.foaf}page`, '<https://example.org/p>'), stored());
    await fill(`${ns.foaf}page`, 'https://example.org/p');
    await submitted('remove');
    assert.ok(!stored().includes('https://example.org/p>'), stored());
    assert.ok(has(`${ns.foaf}homepage`, '<https://example.org/home>'), 'the other IRI stays');

    // a remove that matches nothing changes nothing, and says so instead of reloading
    const commits = commitCount(repo);
    let navigated = false;
    page.on('framenavigated', () => (navigated = true));
    await fill(`${EX}count`, '7');
    await form.locator('button[value=remove]').click();
    await status.filter({ hasText: 'Nothing changed' }).waitFor();
    // a value that does not fit the type chosen is not sent
    await fill(`${EX}count`, 'forty', `${XSD}integer`);
    await form.locator('button[value=add]').click();
    await status.filter({ hasText: 'is not written as its type needs' }).waitFor();
    // the server's refusal is shown: someone else wrote meanwhile (412)
    const read = await s.request('GET', 'notes/typed/', { headers: { Accept: 'text/turtle' } });
    assert.equal((await s.request('PATCH', 'notes/typed/', { headers: { 'Content-Type': 'application/sparql-update', Accept: 'text/turtle', 'If-Match': read.headers.etag as string }, body: `INSERT { ${subject} <${EX}other> "theirs" } WHERE {}` })).status, 204);
    await fill(`${EX}count`, '43');
    await form.locator('button[value=add]').click();
    await status.filter({ hasText: /^Someone changed this document.*412/s }).waitFor(); // in words, the server's 412 below
    assert.equal(navigated, false, 'the page stayed, its message shown');
    assert.equal(commitCount(repo), commits + 1, 'only the other writer’s commit');
    assert.ok(!stored().includes('"43"'));
    await checked(page, problems, 'property-form-refused');
    await context.close();
  });

  it('travels in history: the TimeMap page, a comparison, a memento with its banner, restore', async () => {
    await putTurtle(s, 'notes/history/', `<#this> <${ns.dct}title> "Version one" .`);
    const read = await s.request('GET', 'notes/history/', { headers: { Accept: 'text/turtle' } });
    await s.request('PUT', 'notes/history/', { headers: { ...turtle, Accept: 'text/turtle', 'If-Match': read.headers.etag as string }, body: `<#this> <${ns.dct}title> "Version two" .` });
    const { context, page, problems } = await visitor(s.ownerPem);
    await page.goto(`${s.base}notes/history/?timemap`);
    const rows = page.locator('table.versions tbody tr');
    assert.equal(await rows.count(), 2);
    assert.match((await rows.first().textContent())!, /current/, 'newest first');
    await checked(page, problems, 'timemap');
    await Promise.all([page.waitForURL(/[?&]diff=/), page.click('form.compare button[type=submit]')]);
    assert.match((await page.locator('ul.removed').textContent())!, /Version one/);
    assert.match((await page.locator('ul.added').textContent())!, /Version two/);
    await checked(page, problems, 'diff');
    await page.goto(`${s.base}notes/history/?timemap`);
    await Promise.all([page.waitForURL(/\?version=/), rows.nth(1).locator('a').first().click()]);
    assert.match((await page.locator('.memento-banner').textContent())!, /as it was on/);
    assert.equal(await page.locator('.memento-banner a').getAttribute('href'), `${s.base}notes/history/`);
    assert.equal(await page.locator('h1').textContent(), 'Version one');
    await checked(page, problems, 'memento');
    page.once('dialog', (dialog) => void dialog.accept());
    await Promise.all([page.waitForURL(`${s.base}notes/history/`), page.click('form.restore button')]);
    assert.equal(await page.locator('h1').textContent(), 'Version one', 'restored, as a new commit');
    await context.close();
  });

  it('queries from the SPARQL page: a table, a chart, downloads, an error in place', async () => {
    const { context, page, problems } = await visitor(s.ownerPem);
    await page.goto(`${s.base}sparql`);
    await checked(page, problems, 'sparql');
    await page.focus('#query');
    await page.locator('.CodeMirror').waitFor();
    assert.equal(await page.locator('.CodeMirror').count(), 1, 'the query editor is CodeMirror, once the query is focused');
    await page.evaluate(() => {
      const cm = (document.querySelector('.CodeMirror') as unknown as { CodeMirror: { setValue(v: string): void } }).CodeMirror;
      cm.setValue('SELECT ?title (STRLEN(?title) AS ?length) WHERE { GRAPH ?g { ?s <http://purl.org/dc/terms/title> ?title } } ORDER BY ?title');
    });
    await Promise.all([page.waitForURL(/query=/), page.click('form.sparql-form button[type=submit]')]);
    assert.ok((await page.locator('#results-table tbody tr').count()) >= 3);
    assert.deepEqual(await page.locator('#results-table thead th').allTextContents(), ['title', 'length']);
    assert.equal(await page.locator('script[src*="chart"]').count(), 0, 'the chart library is loaded when a chart is drawn');
    const chartHeight = () => page.locator('.chart-box').evaluate((box) => box.getBoundingClientRect().height);
    assert.equal(await chartHeight(), 0, 'no empty room is kept for a chart not drawn');
    await page.click('form.chart-form button[type=submit]');
    await page.waitForFunction(() => (window as unknown as { Chart?: { getChart(c: Element): unknown } }).Chart?.getChart(document.getElementById('chart-canvas')!) !== undefined);
    assert.ok((await chartHeight()) > 100, 'the chart drawn has its room');
    await page.selectOption('#chart-type', 'pie');
    const type = await page.evaluate(() => (window as unknown as { Chart: { getChart(c: Element): { config: { type: string } } } }).Chart.getChart(document.getElementById('chart-canvas')!).config.type);
    assert.equal(type, 'pie');
    const csv = await page.request.get((await page.locator('p.downloads a', { hasText: 'CSV' }).getAttribute('href'))!);
    assert.match(await csv.text(), /^title,length\r\n/);
    await checked(page, problems, 'sparql-results');
    const failed = await page.goto(`${s.base}sparql?query=${encodeURIComponent('SELEC')}`);
    assert.equal(failed?.status(), 400);
    assert.match((await page.locator('.query-error').textContent())!, /not valid SPARQL/);
    await context.close();
  });

  it('shows a reader no editing, and an anonymous visitor a 403 page that offers login and signup', async () => {
    const asReader = await visitor(reader.pem);
    await asReader.page.goto(`${s.base}notes/first/`);
    assert.equal(await asReader.page.locator('h1').textContent(), 'First note 🦄');
    assert.equal(await asReader.page.locator('form.turtle-editor, form.delete-document, form.create-child').count(), 0, 'no affordance without Write or Append');
    assert.match((await asReader.page.locator('header.site .who').textContent())!, /Rita Reader/);
    await checked(asReader.page, asReader.problems, 'document-reader');
    await asReader.context.close();

    const anonymous = await visitor();
    const denied = await anonymous.page.goto(`${s.base}notes/first/`);
    assert.equal(denied?.status(), 403);
    assert.match((await anonymous.page.locator('h1').textContent())!, /^403/);
    assert.equal(await anonymous.page.locator('a', { hasText: 'Sign up' }).count() >= 1, true);
    const embedded = JSON.parse((await anonymous.page.locator('script#error-resource').textContent())!) as unknown[];
    assert.ok(embedded.length > 0, 'the RDF error is embedded');
    await checked(anonymous.page, anonymous.problems, 'forbidden');
    const missing = await anonymous.page.goto(`${s.base}static/nothing.js`);
    assert.equal(missing?.status(), 404);
    await checked(anonymous.page, [], 'not-found');
    await anonymous.page.goto(`${s.base}notes/first/`);
    await Promise.all([anonymous.page.waitForURL(/sign%20up$/), anonymous.page.click('main a:has-text("Sign up")')]);
    assert.equal(await anonymous.page.locator('h1').textContent(), 'Sign up');
    await checked(anonymous.page, anonymous.problems, 'signup');
    await anonymous.context.close();
  });

  it('shows a vocabulary term read through the proxy as a page (the shipped FOAF: no network request)', async () => {
    const { context, page, problems } = await visitor(s.ownerPem);
    const response = await page.goto(`${s.base}?uri=${encodeURIComponent('http://xmlns.com/foaf/0.1/Person')}`);
    assert.equal(response?.status(), 200);
    assert.equal(await page.locator('h1').textContent(), 'Person');
    assert.match(await page.locator('p.formats a').first().getAttribute('href') ?? '', /\?uri=http%3A%2F%2Fxmlns\.com%2Ffoaf%2F0\.1%2FPerson&accept=text%2Fturtle$/);
    await checked(page, problems, 'proxied-vocabulary');
    await context.close();
  });

  it('speaks Spanish to a Spanish browser, with a switch, and says so in Content-Language', async () => {
    const { context, page, problems } = await visitor(s.ownerPem, 'es-ES');
    const response = await page.goto(`${s.base}notes/`);
    assert.equal(response?.headers()['content-language'], 'es');
    assert.equal(await page.locator('html').getAttribute('lang'), 'es');
    assert.match((await page.locator('section.children h2').textContent())!, /En este contenedor/);
    await checked(page, problems, 'container-es');
    await Promise.all([page.waitForURL(/lang=en/), page.click('nav.languages a[hreflang=en]')]);
    assert.match((await page.locator('section.children h2').textContent())!, /In this container/);
    await context.close();
  });
});
