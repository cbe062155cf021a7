/**
 * A container's views in Chromium (issue 28, pages/container-views.ts): the table of its children's
 * properties (most frequent columns, chosen columns, sorted by a column), the grid with images, the
 * map of those with coordinates (geo:lat/long and schema:geo on `#this`), paging and sorting by
 * links; a signed-up stranger sees nothing of a child it cannot read; at 375 px nothing is wider
 * than the viewport, and axe-core finds nothing on any view.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ns } from '../../src/rdf/namespaces.js';
import { assetName } from '../../src/pages/assets.js';
import { checked, launchChromium, skipWithoutChromium, visitor } from '../chromium.js';
import { removeTempDirs, tempDir } from '../helpers.js';
import { putTurtle, signUp, startServer, type Stranger, type TestServer } from '../http-helpers.js';

const EX = 'http://example.org/ns#';
const GEO = 'http://www.w3.org/2003/01/geo/wgs84_pos#';
const SCHEMA = 'http://schema.org/';

after(removeTempDirs);

/** Elements wider than the viewport at phone width (outside what scrolls on purpose), and the page's own overflow. */
async function overflowing(page: Page): Promise<{ overflow: number; wide: string[] }> {
  return page.evaluate(() => {
    const root = document.documentElement;
    const wide = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > root.clientWidth + 1 && !e.closest('.table-scroll, pre, details:not([open])')).map((e) => `${e.tagName.toLowerCase()}.${e.className}`);
    return { overflow: root.scrollWidth - root.clientWidth, wide };
  });
}

describe('a container as a list, a table, a grid and a map in Chromium', { skip: skipWithoutChromium }, () => {
  let s: TestServer;
  let browser: Browser;
  let stranger: Stranger;
  let picture: string;

  before(async () => {
    s = await startServer([], tempDir('views'), undefined, {}, { tls: true });
    browser = await launchChromium();
    picture = `${s.base}static/${assetName('world-110m.svg')}`;
    await putTurtle(s, 'places/', `<> a <${ns.dh}Container> . <#this> <${ns.dct}title> "Places" .`);
    await putTurtle(s, 'places/berlin/', `<#this> <${ns.dct}title> "Berlin" ; <${EX}population> 3645000 ; <${ns.dct}description> "A city on the Spree" ; <${GEO}lat> "52.52" ; <${GEO}long> "13.405" ; <${ns.foaf}depiction> <${picture}> .`);
    await putTurtle(s, 'places/lima/', `<#this> <${ns.dct}title> "Lima" ; <${EX}population> 9751000 ; <${ns.dct}description> "A city on the Pacific" ; <${SCHEMA}geo> [ <${SCHEMA}latitude> -12.046 ; <${SCHEMA}longitude> -77.043 ] ; <${SCHEMA}image> <${picture}> ; <${ns.rdfs}label> "Ciudad de los Reyes"@es .`);
    await putTurtle(s, 'places/notes/', `<#this> <${ns.dct}title> "Notes on places" ; <${ns.dct}description> "Nowhere in particular" .`);
    await putTurtle(s, 'places/secret/', `<#this> <${ns.dct}title> "Secret Base Omega" ; <${EX}population> 12 ; <${GEO}lat> 78.2 ; <${GEO}long> 15.6 .`);
    stranger = await signUp(s, 'Sam Stranger');
    const acl = ns.acl;
    const readable = ['places/', 'places/berlin/', 'places/lima/', 'places/notes/'].map((p) => `<${s.base}${p}>`).join(', ');
    await putTurtle(s, '/admin/acl/authorizations/sam-places/', `<#this> a <${acl}Authorization> ; <${acl}agent> <${stranger.webId}> ; <${acl}mode> <${acl}Read> ; <${acl}accessTo> ${readable} .`);
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  it('draws a table of the most frequent properties, lets the reader choose columns and sorts by one', async () => {
    const { context, page, problems } = await visitor(browser, s.base, s.ownerPem);
    await page.goto(`${s.base}places/`);
    await page.click('nav.child-views a:text-is("Table")');
    assert.match(page.url(), /view=table/);
    const headers = await page.locator('table.child-table thead th').allTextContents();
    assert.deepEqual(headers.slice(0, 1), ['Title']);
    assert.ok(headers.includes('description') || headers.some((h) => /description/i.test(h)), `a description column: ${headers.join(' | ')}`);
    assert.ok(headers.some((h) => /population/i.test(h)), `a population column: ${headers.join(' | ')}`);
    const berlin = page.locator('table.child-table tbody tr', { hasText: 'Berlin' });
    assert.match((await berlin.textContent())!, /3,645,000/, 'a number is drawn as the property table draws it');
    assert.match((await berlin.textContent())!, /A city on the Spree/);
    await checked(page, problems, 'views-table');

    // sorted by the population column: the smallest first, those without one last
    await page.click('table.child-table thead a:text-matches("population", "i")');
    assert.deepEqual(await page.locator('table.child-table tbody th a').allTextContents(), ['Secret Base Omega', 'Berlin', 'Lima', 'Notes on places']);
    assert.equal(await page.locator('table.child-table thead th[aria-sort]').count(), 1);

    // only the description, chosen in the form (it works without scripts: a GET)
    await page.click('details.choose-columns summary');
    for (const box of await page.locator('details.choose-columns input[name="col"]').all()) {
      if ((await box.getAttribute('value')) === `${ns.dct}description`) await box.check();
      else await box.uncheck();
    }
    await page.click('details.choose-columns button[type="submit"]');
    assert.match(page.url(), /col=http/);
    assert.equal(await page.locator('table.child-table thead th').count(), 3, 'title, description, modified');
    assert.deepEqual(await page.locator('table.child-table tbody th a').allTextContents(), ['Secret Base Omega', 'Berlin', 'Lima', 'Notes on places'], 'the order is kept');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('draws a grid of cards with their images', async () => {
    const { context, page, problems } = await visitor(browser, s.base, s.ownerPem);
    await page.goto(`${s.base}places/?view=grid&order=title`);
    const cards = page.locator('ul.child-grid li.card');
    assert.equal(await cards.count(), 4);
    assert.equal(await cards.nth(0).locator('.card-title').textContent(), 'Berlin');
    for (const title of ['Berlin', 'Lima']) {
      const image = cards.filter({ hasText: title }).locator('img');
      assert.equal(await image.getAttribute('src'), picture);
      await page.waitForFunction((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0, await image.elementHandle());
    }
    assert.equal(await cards.filter({ hasText: 'Notes on places' }).locator('img').count(), 0, 'no image: a letter stands in');
    await checked(page, problems, 'views-grid');
    await context.close();
  });

  it('maps the children with coordinates, and a stranger sees no point of a child it cannot read', async () => {
    const owner = await visitor(browser, s.base, s.ownerPem);
    await owner.page.goto(`${s.base}places/`);
    await owner.page.click('nav.child-views a:text-is("Map")');
    const points = owner.page.locator('figure.child-map svg a');
    assert.equal(await points.count(), 3);
    const lima = owner.page.locator('figure.child-map svg a[aria-label="Lima"] circle');
    assert.equal(await lima.getAttribute('cx'), (180 - 77.043).toFixed(2), 'schema:geo on #this, projected');
    assert.equal(await lima.getAttribute('cy'), (90 + 12.046).toFixed(2));
    const outline = await owner.page.locator('figure.child-map svg image').getAttribute('href');
    assert.equal((await s.request('GET', new URL(outline!).pathname)).status, 200, 'the world outline is served by the server itself');
    await checked(owner.page, owner.problems, 'views-map');
    await owner.context.close();

    const sam = await visitor(browser, s.base, stranger.pem);
    for (const view of ['map', 'table', 'grid', 'list']) {
      await sam.page.goto(`${s.base}places/?view=${view}`);
      const text = (await sam.page.locator('main').textContent())!;
      assert.doesNotMatch(text, /Secret|Omega/, `${view}: nothing of the unreadable child`);
      assert.match(text, /\(3 documents\)/, `${view}: counted over what the stranger may read`);
    }
    await sam.page.goto(`${s.base}places/?view=map`);
    assert.equal(await sam.page.locator('figure.child-map svg a').count(), 2);
    await sam.page.goto(`${s.base}places/?view=table&lang=es`);
    const spanish = (await sam.page.locator('section.children').textContent())!;
    for (const word of ['Vista', 'Tabla', 'Cuadrícula', 'Mapa', 'Orden', 'Por nombre', 'Columnas', 'Título', 'Modificado', 'Buscar']) assert.ok(spanish.includes(word), `Spanish: ${word}`);
    for (const word of ['View', 'Table', 'Grid', 'Order', 'By name', 'Columns', 'Title', 'Modified', 'Search']) assert.doesNotMatch(spanish, new RegExp(`\\b${word}\\b`), `no English: ${word}`);
    await checked(sam.page, sam.problems, 'views-spanish');
    assert.equal(await sam.page.locator(`a[href="${s.base}places/secret/"]`).count(), 0);
    await sam.context.close();
  });

  it('pages and sorts by links, every view fitting a phone', async () => {
    for (let i = 1; i <= 22; i++) await putTurtle(s, `places/item-${String(i).padStart(2, '0')}/`, `<#this> <${ns.dct}title> "Zeta ${String(i).padStart(2, '0')}" .`);
    const { context, page, problems } = await visitor(browser, s.base, s.ownerPem, { width: 375 });
    await page.goto(`${s.base}places/`);
    assert.equal(await page.locator('ul.child-list li a').first().textContent(), 'Zeta 22', 'newest first by default');
    await putTurtle(s, 'places/berlin/', `<#this> <${ns.dct}title> "Berlin" ; <${EX}population> 3645000 ; <${ns.dct}description> "A city on the Spree and the Havel" ; <${GEO}lat> "52.52" ; <${GEO}long> "13.405" ; <${ns.foaf}depiction> <${picture}> .`);
    await page.goto(`${s.base}places/`);
    assert.deepEqual((await page.locator('ul.child-list li a').allTextContents()).slice(0, 2), ['Berlin', 'Zeta 22'], 'an edit moves it first');
    await page.goto(`${s.base}places/?order=title`);
    assert.equal(await page.locator('ul.child-list li').count(), 20);
    assert.equal(await page.locator('ul.child-list li a').first().textContent(), 'Berlin');
    await page.click('nav.pager a[rel="next"]');
    assert.match(page.url(), /page=2/);
    assert.deepEqual(await page.locator('ul.child-list li a').allTextContents(), ['Zeta 17', 'Zeta 18', 'Zeta 19', 'Zeta 20', 'Zeta 21', 'Zeta 22'], 'the rest, still by title');
    await page.goto(`${s.base}places/?order=name&page=2`);
    assert.deepEqual(await page.locator('ul.child-list li a').allTextContents(), ['Zeta 20', 'Zeta 21', 'Zeta 22', 'Lima', 'Notes on places', 'Secret Base Omega'], 'in path order (the kept listing)');
    for (const view of ['list', 'table', 'grid', 'map']) {
      await page.goto(`${s.base}places/?view=${view}&order=title`);
      assert.deepEqual(await overflowing(page), { overflow: 0, wide: [] }, `${view} at 375 px`);
      await checked(page, problems, `views-phone-${view}`);
    }
    await context.close();
  });

  it('searches titles and labels, paged, and never shows a stranger a document it cannot read', async () => {
    const { context, page, problems } = await visitor(browser, s.base, s.ownerPem);
    await page.goto(`${s.base}places/`);
    await page.fill('input[name="search"]', 'los reyes');
    await page.click('form.search-form button');
    assert.match(page.url(), /search=los\+reyes/);
    assert.deepEqual(await page.locator('ul.child-list li a').allTextContents(), ['Lima'], 'found by its rdfs:label');
    await checked(page, problems, 'views-search');
    await page.goto(`${s.base}?search=${encodeURIComponent('BERLÍN')}`);
    assert.deepEqual(await page.locator('ul.child-list li a').allTextContents(), ['Berlin'], 'from the root, case and accents aside');
    await page.goto(`${s.base}places/?search=zeta`);
    assert.match((await page.locator('#children-heading').textContent())!, /22 documents match/);
    await page.click('nav.pager a[rel="next"]');
    assert.match(page.url(), /search=zeta/);
    assert.deepEqual(await page.locator('ul.child-list li a').allTextContents(), ['Zeta 21', 'Zeta 22']);
    await page.goto(`${s.base}places/?search=zeta&view=table`);
    assert.equal(await page.locator('table.child-table tbody tr').count(), 20, 'results in any view');
    // a document written now is found at once (the table follows commits)
    await putTurtle(s, 'places/fresh/', `<#this> <${ns.dct}title> "Freshly written Quokka" .`);
    await page.goto(`${s.base}places/?search=quokka`);
    assert.deepEqual(await page.locator('ul.child-list li a').allTextContents(), ['Freshly written Quokka']);
    await context.close();

    const sam = await visitor(browser, s.base, stranger.pem);
    for (const words of ['omega', 'secret', 'base']) {
      await sam.page.goto(`${s.base}places/?search=${words}`);
      assert.equal(await sam.page.locator('ul.child-list li').count(), 0, `${words}: nothing`);
      assert.doesNotMatch((await sam.page.locator('main').textContent())!, /Omega|Secret Base/);
      assert.match((await sam.page.locator('main').textContent())!, /Nothing matches/);
    }
    await sam.page.goto(`${s.base}places/?search=lima`);
    assert.deepEqual(await sam.page.locator('ul.child-list li a').allTextContents(), ['Lima']);
    await sam.context.close();
  });
});
