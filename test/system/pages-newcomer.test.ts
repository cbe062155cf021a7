/**
 * A newcomer's first visits (issue 28), in real Chromium against a running server: no console error
 * on the first visit (the icon is served, public and cacheable); every page in Spanish with no
 * English interface string left (the check is built from the English catalogue of messages.ts, with
 * month names and the server's messages a page shows), and a refused write told in Spanish; one
 * name per thing on every page; the proxied, ns and settings pages drawn as documents; the admin
 * dataspace in the navigation for those who may read it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { messages } from '../../src/pages/messages.js';
import { ns } from '../../src/rdf/namespaces.js';
import { checked, launchChromium, skipWithoutChromium, visitor } from '../chromium.js';
import { removeTempDirs, tempDir } from '../helpers.js';
import { certifiedAgent, putTurtle, startServer, type TestServer } from '../http-helpers.js';

after(removeTempDirs);

const MARK = '\u0001';

/** Every English interface string that Spanish words differently: plain strings, and the fixed parts of those made by a function. */
function englishOnly(): string[] {
  const en = messages('en') as unknown as Record<string, unknown>;
  const es = messages('es') as unknown as Record<string, unknown>;
  const found = new Set<string>();
  const add = (english: unknown, spanish: unknown) => {
    if (typeof english === 'string' && english !== spanish) found.add(english);
    else if (typeof english === 'function') {
      const call = (f: unknown) => String((f as (...args: unknown[]) => unknown)(MARK, MARK, MARK));
      const spanishParts = new Set(call(spanish).split(MARK));
      for (const part of call(english).split(MARK)) if (/[A-Za-z]{3}/.test(part) && !spanishParts.has(part)) found.add(part.trim());
    } else if (english && typeof english === 'object') {
      for (const [key, value] of Object.entries(english)) add(value, (spanish as Record<string, unknown>)[key]);
    }
  };
  for (const [key, value] of Object.entries(en)) add(value, es[key]);
  // and dates: English month names, long and short (the pages format dates with Intl in the page's language)
  for (let month = 0; month < 12; month++) {
    for (const style of ['long', 'short'] as const) found.add(new Intl.DateTimeFormat('en', { month: style, timeZone: 'UTC' }).format(Date.UTC(2024, month, 15)));
  }
  return [...found];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };

/**
 * What a reader sees of a page, and what a script or an assistive technology says of it: the text
 * and the attributes that are words (labels, placeholders, the messages the page script shows).
 * Data is left out: scripts, the Turtle editor's text, and IRIs.
 */
function wordsOf(page: string): string {
  const attributes = [...page.matchAll(/\s(?:aria-label|placeholder|title|alt|data-(?:confirm|done|granted|refused|picked|invalid|unchanged|saved|[a-z-]*message[a-z-]*))="([^"]*)"/g)].map((m) => m[1]);
  const text = page
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<textarea[\s\S]*?<\/textarea>/g, ' ')
    // the property picker lists the vocabularies' own labels (data: "Language (terms:language)"; they have no Spanish)
    .replace(/<select id="property-choice"[\s\S]*?<\/select>/g, ' ')
    // so does a link to a term, named by its IRI in its title: "Class" is rdfs:Class's own label
    .replace(/<a [^>]*title="https?:\/\/[^"]*"[^>]*>[^<]*<\/a>/g, ' ')
    .replace(/<[^>]*>/g, ' ');
  return [text, ...attributes].join(' ')
    .replace(/&(#?\w+);/g, (whole, name: string) => ENTITIES[name] ?? whole)
    .replace(/\S*:\/\/\S*/g, ' ')
    .replace(/\s+/g, ' ');
}

/** The English interface strings found in a page's words (whole words, case kept). */
function english(words: string, catalogue: readonly string[]): string[] {
  return catalogue.filter((phrase) => new RegExp(`(^|[^\\p{L}])${phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}])`, 'u').test(words));
}

describe('a newcomer’s first visits (issue 28)', { skip: skipWithoutChromium }, () => {
  let s: TestServer;
  let browser: Browser;

  before(async () => {
    s = await startServer([], tempDir('pages-newcomer'), undefined, {}, { tls: true });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await s?.close();
  });

  it('a first visit to the root, anonymous, logs no console error: the icon is served, public and cacheable, on every dataspace', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url})`);
    });
    const icons: string[] = [];
    page.on('response', (response) => {
      if (/favicon/.test(response.url())) icons.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(s.base);
    const href = await page.evaluate(() => document.querySelector('link[rel="icon"]')?.getAttribute('href'));
    assert.match(href ?? '', /\/static\/favicon\.[0-9a-f]{10}\.svg$/, 'the page names its icon by digest');
    await page.waitForTimeout(500); // the icon is fetched after the page has loaded
    // the root's own 403 (nothing is public by default) is the page's status, which Chromium logs too
    const own = `Failed to load resource: the server responded with a status of 403 (Forbidden) (${s.base})`;
    assert.deepEqual(errors.filter((e) => e !== own), [], 'console errors on the first visit');
    assert.ok(icons.length > 0 && icons.every((line) => line.startsWith('200 ')), icons.join('\n'));
    await context.close();
    for (const path of ['/favicon.ico', '/admin/favicon.ico']) {
      const icon = await s.requestBytes('GET', path, { as: 'anonymous' });
      assert.equal(icon.status, 200, path);
      assert.equal(icon.headers['content-type'], 'image/vnd.microsoft.icon');
      assert.match(String(icon.headers['cache-control']), /public/);
      assert.equal(icon.bytes.subarray(0, 4).toString('hex'), '00000100', 'an ICO file');
    }
    const svg = await s.request('GET', new URL(href!).pathname, { as: 'anonymous' });
    assert.equal(svg.status, 200);
    assert.match(String(svg.headers['content-type']), /^image\/svg\+xml/);
    assert.match(String(svg.headers['cache-control']), /public, max-age=31536000, immutable/);
  });

  it('every page in Spanish has no English interface string left (checked against the English catalogue)', async () => {
    const catalogue = englishOnly();
    assert.ok(catalogue.length > 100, `the catalogue has ${catalogue.length} English strings`);
    await putTurtle(s, 'cuaderno/', `<> a <${ns.dh}Container> ; <${ns.dct}title> "Cuaderno" .`);
    await putTurtle(s, 'cuaderno/nota/', `<#this> <${ns.dct}title> "Nota primera"@es ; <${ns.dct}created> "2024-05-01T10:00:00Z"^^<${ns.xsd}dateTime> ; <http://schema.org/price> 12.5 ; <${ns.rdfs}seeAlso> <https://example.org/otra> .`);
    await putTurtle(s, 'cuaderno/nota/', `<#this> <${ns.dct}title> "Nota segunda"@es ; <${ns.dct}created> "2024-05-02"^^<${ns.xsd}date> .`);
    await putTurtle(s, 'cuaderno/borrada/', `<#this> <${ns.dct}title> "Borrada"@es .`);
    const gone = await s.request('HEAD', 'cuaderno/borrada/');
    assert.equal((await s.request('DELETE', 'cuaderno/borrada/', { headers: { 'If-Match': String(gone.headers.etag) } })).status, 204);
    const timemap = await s.request('GET', 'cuaderno/nota/?timemap', { headers: { Accept: 'application/link-format' } });
    const shas = [...timemap.body.matchAll(/version=([0-9a-f]{40})/g)].map((m) => m[1]!);
    const stranger = await certifiedAgent(s, 'Sara Solicitante');
    const asked = await s.request('POST', '/admin/access/request', { as: { pem: stranger.pem }, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ this: `${s.base}cuaderno/`, mode: 'Read' }).toString() });
    assert.equal(asked.status, 201, asked.body);
    const request = new URL(String(asked.headers.location)).pathname;
    // data, not interface: the title the server wrote into the request ("Access request from <WebID>")
    const data = [...(await s.request('GET', request, { headers: { Accept: 'application/n-triples' } })).body.matchAll(/<http:\/\/purl\.org\/dc\/terms\/title> "([^"]*)"/g)].map((m) => wordsOf(m[1]!).trim());
    assert.ok(data.length > 0);
    const query = encodeURIComponent('SELECT ?s ?t { GRAPH ?g { ?s <http://purl.org/dc/terms/title> ?t } }');
    const visits: { path: string; as: 'owner' | 'anonymous' | { pem: string }; status: number }[] = [
      { path: '/', as: 'owner', status: 200 },
      { path: '/', as: 'anonymous', status: 403 },
      { path: '/', as: { pem: stranger.pem }, status: 403 },
      { path: '/cuaderno/', as: 'owner', status: 200 },
      { path: '/cuaderno/nota/', as: 'owner', status: 200 },
      { path: '/cuaderno/nota/?timemap', as: 'owner', status: 200 },
      { path: `/cuaderno/nota/?version=${shas[0]}`, as: 'owner', status: 200 },
      { path: `/cuaderno/nota/?diff=${shas[0]}&to=${shas[1]}`, as: 'owner', status: 200 },
      { path: '/cuaderno/borrada/', as: 'owner', status: 404 },
      { path: '/cuaderno/ninguna/', as: 'owner', status: 404 },
      { path: '/sparql', as: 'owner', status: 200 },
      { path: `/sparql?query=${query}`, as: 'owner', status: 200 },
      { path: `/sparql?query=${encodeURIComponent('SELECT nada')}`, as: 'owner', status: 400 },
      { path: `/sparql?query=${encodeURIComponent('ASK {}')}`, as: 'owner', status: 200 },
      { path: '/ns', as: 'owner', status: 200 },
      { path: '/settings', as: 'owner', status: 200 },
      { path: '/admin/', as: 'owner', status: 200 },
      { path: request, as: 'owner', status: 200 },
      { path: '/admin/sign%20up', as: 'anonymous', status: 200 },
      { path: '/static/nada.js', as: 'anonymous', status: 404 },
      { path: `/?uri=${encodeURIComponent('http://xmlns.com/foaf/0.1/Person')}`, as: 'owner', status: 200 },
    ];
    const found: string[] = [];
    for (const visit of visits) {
      for (const asked of [{ 'Accept-Language': 'es' }, { 'Accept-Language': 'en' }]) {
        const path = asked['Accept-Language'] === 'en' ? `${visit.path}${visit.path.includes('?') ? '&' : '?'}lang=es` : visit.path;
        const answer = await s.request('GET', path, { as: visit.as, headers: { Accept: 'text/html', ...asked } });
        if (answer.status !== visit.status || !answer.body.includes('<html lang="es">')) {
          found.push(`${path}: ${answer.status}, not a Spanish page of ${visit.status}`);
          continue;
        }
        const left = english(data.reduce((words, datum) => words.split(datum).join(' '), wordsOf(answer.body)), catalogue);
        if (visit.status >= 400) {
          // the server's message, as an English page shows it, is not on the Spanish page (IRIs aside)
          const inEnglish = await s.request('GET', visit.path, { as: visit.as, headers: { Accept: 'text/html', 'Accept-Language': 'en' } });
          const shown = (body: string) => wordsOf(/<(?:p class="error-message"|div class="query-error"[^>]*><p)>([\s\S]*?)<\/p>/.exec(body)?.[1] ?? '').trim();
          const message = shown(inEnglish.body);
          if (message !== '' && shown(answer.body) === message) left.push(message);
        }
        if (left.length > 0) found.push(`${path} (${typeof visit.as === 'string' ? visit.as : 'stranger'}): ${left.map((w) => JSON.stringify(w)).join(', ')}`);
      }
    }
    assert.deepEqual(found, [], 'English left on Spanish pages');
  });

  it('names a thing one way on every page: a document linked from another, a container’s child and its own heading by its title; a person by the same rule', async () => {
    await putTurtle(s, 'alice/', `<#this> a <${ns.foaf}Person> ; <${ns.foaf}name> "Alice" ; <${ns.dct}title> "Alice Liddell" .`);
    const rita = await certifiedAgent(s, 'Rita', ` ; <${ns.dct}title> "Rita Reader"`);
    await putTurtle(s, 'notes/', `<#this> <${ns.dct}title> "Notes" ; <${ns.foaf}knows> <${s.base}alice/#this> ; <${ns.dct}references> <${s.base}alice/> ; <${ns.foaf}maker> <${rita.webId}> .`);
    const page = async (path: string) => (await s.request('GET', path, { headers: { Accept: 'text/html' } })).body;
    const linkTexts = (body: string, href: string) => [...body.matchAll(/<a href="([^"]*)"[^>]*>([^<]*)<\/a>/g)].filter((m) => m[1] === href).map((m) => m[2]);
    const notes = await page('/notes/');
    assert.deepEqual(linkTexts(notes, `${s.base}alice/#this`), ['Alice Liddell'], 'the person, linked from another document');
    assert.deepEqual(linkTexts(notes, `${s.base}alice/`), ['Alice Liddell'], 'its document, linked');
    assert.deepEqual(linkTexts(notes, rita.webId), ['Rita Reader'], 'an agent, by the same rule as its own page');
    assert.match(await page('/alice/'), /<h1>Alice Liddell<\/h1>/);
    assert.deepEqual(linkTexts(await page('/'), `${s.base}alice/`), ['Alice Liddell'], 'a container’s child');
    assert.match(await page(new URL(rita.webId).pathname), /<h1>Rita Reader<\/h1>/);
  });

  it('draws what a newcomer opens as documents: a proxied vocabulary by its title, a proxied term with where it came from and its description as content, property and type links through the proxy, ns and settings, and the admin dataspace in the navigation for those who may read it', async () => {
    const { context, page, problems } = await visitor(browser, s.base, s.ownerPem, { timeoutMs: 15_000 });
    const proxied = (iri: string) => `${s.base}?uri=${encodeURIComponent(iri)}`;
    await page.goto(proxied('http://xmlns.com/foaf/0.1/'));
    assert.equal(await page.locator('h1').textContent(), 'Friend of a Friend (FOAF) vocabulary', 'not "0.1", its URL’s last segment');
    await page.goto(proxied('http://xmlns.com/foaf/0.1/Person'));
    assert.equal(await page.locator('h1').textContent(), 'Person');
    assert.equal(await page.locator('p.empty').count(), 0, 'not "This document is empty."');
    assert.equal(await page.locator('section.metadata').count(), 0, 'its description is not "About this document"');
    assert.match((await page.locator('section.resource').first().textContent())!, /A person\./);
    assert.equal(await page.locator('p.source a').getAttribute('href'), 'http://xmlns.com/foaf/0.1/Person', 'the page says where the data came from');
    const heads = await page.locator('table.properties th[scope="row"] a').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
    assert.ok(heads.length > 3 && heads.every((href) => href.startsWith(`${s.base}?uri=`)), `property links go through the proxy as value links do:\n${heads.join('\n')}`);
    const types = await page.locator('th[scope="row"] a[title="http://www.w3.org/1999/02/22-rdf-syntax-ns#type"] ~ *, td a[title="http://www.w3.org/2002/07/owl#Class"]').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
    assert.ok(types.length > 0 && types.every((href) => href.startsWith(`${s.base}?uri=`)), `type links too: ${types.join(' ')}`);
    await checked(page, problems, 'proxied-term');
    for (const path of ['ns', 'settings']) {
      const answer = await page.goto(`${s.base}${path}`);
      assert.match(answer!.headers()['content-type']!, /^text\/html/, `${path} is a page for a browser`);
      assert.equal(await page.locator('article.document').count(), 1, `${path} is drawn as a document`);
      await checked(page, problems, path);
    }
    await page.goto(s.base);
    assert.equal(await page.locator(`nav.site-nav a[href="${s.admin}"]`).count(), 1, 'the owner finds the admin dataspace in the navigation');
    await context.close();
    const stranger = await certifiedAgent(s, 'Sam Stranger');
    await putTurtle(s, 'open/', `<#this> <${ns.dct}title> "Open" .`);
    for (const as of [undefined, stranger.pem]) {
      const other = await visitor(browser, s.base, as, { timeoutMs: 15_000 });
      await other.page.goto(`${s.base}open/`);
      assert.equal(await other.page.locator('nav.site-nav a').count(), 2, 'no admin link for who may not read it');
      await other.context.close();
    }
  });

  it('a write refused on a Spanish page is told in Spanish: the error body carries its title in the language the page script asks in, beside the English one', async () => {
    await putTurtle(s, 'pizarra/', `<#this> <${ns.dct}title> "Pizarra" .`);
    const { context, page, problems } = await visitor(browser, s.base, s.ownerPem, { timeoutMs: 15_000 });
    await page.goto(`${s.base}pizarra/?lang=es`);
    await putTurtle(s, 'pizarra/', `<#this> <${ns.dct}title> "Pizarra de otro" .`); // someone else writes meanwhile
    await page.click('details.edit-properties summary');
    await page.fill('#property-iri', `${ns.dct}description`);
    await page.fill('#property-value', 'Mía');
    await page.click('form.property-form button[value=add]');
    const status = page.locator('form.property-form .status');
    await status.filter({ hasText: '412' }).waitFor();
    // what it means in words first (the forms' messages), then the server's own title, in Spanish too
    assert.match(String(await status.locator('.message').textContent()), /^Alguien cambió este documento/);
    assert.match(String(await status.locator('.detail').textContent()), /412 el documento ha cambiado desde que se leyó el ETag de If-Match$/);
    assert.deepEqual(problems, []);
    await context.close();
    // the API's body keeps its English title; a client asking in Spanish gets the Spanish one beside it
    const stale = { 'Content-Type': 'application/sparql-update', 'If-Match': '"stale"', Accept: 'application/n-triples' };
    const update = `INSERT DATA { <#this> <${ns.dct}description> "x" }`;
    const plain = await s.request('PATCH', 'pizarra/', { headers: stale, body: update });
    assert.equal(plain.status, 412);
    assert.match(plain.body, /<http:\/\/purl\.org\/dc\/terms\/title> "the ETag in If-Match is not one this server makes/);
    assert.doesNotMatch(plain.body, /@es/);
    const spanish = await s.request('PATCH', 'pizarra/', { headers: { ...stale, 'Accept-Language': 'es' }, body: update });
    assert.match(spanish.body, /<http:\/\/purl\.org\/dc\/terms\/title> "the ETag in If-Match is not one this server makes/);
    assert.match(spanish.body, /<http:\/\/purl\.org\/dc\/terms\/title> "el ETag de If-Match no es uno que este servidor haga[^"]*"@es/);
    assert.match(String(spanish.headers.vary), /Accept-Language/);
  });
});
