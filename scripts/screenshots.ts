/**
 * A screenshot of every kind of page (issue 28): a server on a temporary data directory, seeded with a
 * few documents, and Debian's Chromium saving each page full length at 1,280 and 375 px wide as PNG.
 * `npx tsx scripts/screenshots.ts --out DIR [--only NAME,…]`; prints the path of each file. The pages
 * are one list (PAGES): a new kind of page is one more entry.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { ns } from '../src/rdf/namespaces.js';
import { launchChromium, redPng, visitor } from '../test/chromium.js';
import { removeTempDirs, tempDir } from '../test/helpers.js';
import { header, putTurtle, signUp, startServer, type TestServer } from '../test/http-helpers.js';

const HELP = `Usage: npx tsx scripts/screenshots.ts --out DIR [--only NAME,...] [--width N,...]

Starts a Lodestone server on a temporary data directory, seeds it (a person with a date, numbers
and language-tagged strings, a container with children, a history of three versions, a deleted
document, an access request) and saves a full-page PNG of every kind of page as DIR/<name>-<width>.png.

  --out DIR      where the PNG files go (made if missing)
  --only NAMES   only these pages, comma-separated (see the names below)
  --width N,...  window widths in CSS pixels (default 1280,375)
  --help         this text

Pages: `;

/** What the seeding made, for pages that need a URL only known then. */
interface Seeded {
  s: TestServer;
  /** The owner's view of the stranger's access request. */
  accessRequest: string;
  /** The description page of an uploaded image, and the class the form is drawn for. */
  upload: string;
  bookClass: string;
}

interface Shot {
  name: string;
  /** Who looks: the owner (a client certificate, the default) or nobody. */
  as?: 'owner' | 'anonymous';
  locale?: string;
  /** Brings the page to the state to take; `base` ends with a slash. */
  open(page: Page, seeded: Seeded): Promise<unknown>;
}

const at = (seeded: Seeded, path: string) => `${seeded.s.base}${path}`;
type CodeMirrorElement = { CodeMirror: { getValue(): string; setValue(v: string): void } };

/** The document at `url` with its Turtle editor open (CodeMirror loaded). */
async function withEditor(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.click('details.edit-turtle summary');
  await page.locator('.CodeMirror').waitFor();
}

const PEOPLE_QUERY = `SELECT ?person ?name ?born WHERE { GRAPH ?g { ?person <${ns.foaf}name> ?name OPTIONAL { ?person <https://schema.org/birthDate> ?born } } } ORDER BY ?name`;
const AGES_QUERY = `SELECT ?name ?age WHERE { GRAPH ?g { ?person <${ns.foaf}name> ?name ; <${ns.foaf}age> ?age } } ORDER BY ?name`;

/** Every kind of page, in the order they are taken. */
const PAGES: Shot[] = [
  { name: 'root', open: (page, seeded) => page.goto(seeded.s.base) },
  { name: 'root-es', locale: 'es-ES', open: (page, seeded) => page.goto(seeded.s.base) },
  { name: 'container', open: (page, seeded) => page.goto(at(seeded, 'people/')) },
  { name: 'document-owner-editor', open: (page, seeded) => withEditor(page, at(seeded, 'people/alice/')) },
  { name: 'document-anonymous-403', as: 'anonymous', open: (page, seeded) => page.goto(at(seeded, 'people/alice/')) },
  { name: 'deleted-404', open: (page, seeded) => page.goto(at(seeded, 'people/gone/')) },
  { name: 'history', open: (page, seeded) => page.goto(at(seeded, 'people/alice/?timemap')) },
  {
    name: 'memento',
    async open(page, seeded) {
      await page.goto(at(seeded, 'people/alice/?timemap'));
      await Promise.all([page.waitForURL(/\?version=/), page.locator('table.versions tbody tr').nth(1).locator('a').first().click()]);
    },
  },
  {
    name: 'diff',
    async open(page, seeded) {
      await page.goto(at(seeded, 'people/alice/?timemap'));
      await Promise.all([page.waitForURL(/[?&]diff=/), page.click('form.compare button[type=submit]')]);
    },
  },
  { name: 'sparql-results', open: (page, seeded) => page.goto(at(seeded, `sparql?query=${encodeURIComponent(PEOPLE_QUERY)}`)) },
  {
    name: 'sparql-chart',
    async open(page, seeded) {
      await page.goto(at(seeded, `sparql?query=${encodeURIComponent(AGES_QUERY)}`));
      await page.click('form.chart-form button[type=submit]');
      await page.waitForFunction(() => (window as unknown as { Chart?: { getChart(c: Element): unknown } }).Chart?.getChart(document.getElementById('chart-canvas')!) !== undefined);
    },
  },
  { name: 'signup', as: 'anonymous', open: (page, seeded) => page.goto(`${seeded.s.admin}sign%20up`) },
  { name: 'access-request', open: (page, seeded) => page.goto(seeded.accessRequest) },
  { name: 'ns', open: (page, seeded) => page.goto(at(seeded, 'ns')) },
  { name: 'settings', open: (page, seeded) => page.goto(at(seeded, 'settings')) },
  {
    name: 'container-table',
    open: (page, seeded) => page.goto(at(seeded, 'people/?view=table')),
  },
  { name: 'container-grid', open: (page, seeded) => page.goto(at(seeded, 'people/?view=grid')) },
  { name: 'container-map', open: (page, seeded) => page.goto(at(seeded, 'people/?view=map')) },
  { name: 'search', open: (page, seeded) => page.goto(at(seeded, `?search=${encodeURIComponent('alice')}`)) },
  { name: 'class-form', open: (page, seeded) => page.goto(at(seeded, `people/?forClass=${encodeURIComponent(seeded.bookClass)}`)) },
  { name: 'upload', open: (page, seeded) => page.goto(seeded.upload) },
  {
    name: 'conflict',
    async open(page, seeded) {
      // the editor opened, someone else's write, then a save from the editor: the 412's view
      await withEditor(page, at(seeded, 'people/carol/'));
      const read = await seeded.s.request('GET', 'people/carol/', { headers: { Accept: 'text/turtle' } });
      const changed = await seeded.s.request('PATCH', 'people/carol/', {
        headers: { 'Content-Type': 'application/sparql-update', Accept: 'text/turtle', 'If-Match': header(read, 'etag')! },
        body: `DELETE { ?s <${ns.foaf}name> ?o } INSERT { ?s <${ns.foaf}name> "Carol (changed by someone else at ${new Date().toISOString()})" } WHERE { ?s <${ns.foaf}name> ?o }`,
      });
      if (changed.status !== 204) throw new Error(`the other writer's PATCH: ${changed.status} ${changed.body}`);
      await page.evaluate(() => {
        const editor = (document.querySelector('.CodeMirror') as unknown as CodeMirrorElement).CodeMirror;
        editor.setValue(editor.getValue().replace(/"Carol[^"]*"/, '"Carol Lewis, as I would write her name"'));
      });
      await page.click('form.turtle-editor button[type=submit]');
      await page.locator('.conflict pre.theirs .line').first().waitFor();
    },
  },
];

async function seed(s: TestServer): Promise<Seeded> {
  const { dct, dh, foaf, xsd, owl, rdfs, sh } = ns;
  const geo = 'http://www.w3.org/2003/01/geo/wgs84_pos#';
  // a class with a shape, for the form that creates one
  await putTurtle(s, '/admin/ontologies/', `<> a <${dh}Container> .`);
  await putTurtle(s, '/admin/ontologies/library/', `<#> a <${owl}Ontology> .
    <#Book> a <${owl}Class> ; <${rdfs}label> "Book"@en, "Libro"@es .
    <#BookShape> a <${sh}NodeShape> ; <${sh}targetClass> <#Book> ;
      <${sh}property> [ <${sh}path> <${dct}title> ; <${sh}minCount> 1 ; <${sh}datatype> <${xsd}string> ] ,
        [ <${sh}path> <#pages> ; <${sh}name> "Pages"@en, "Páginas"@es ; <${sh}datatype> <${xsd}integer> ; <${sh}order> 1 ] ,
        [ <${sh}path> <#published> ; <${sh}name> "Published"@en, "Publicado"@es ; <${sh}datatype> <${xsd}date> ; <${sh}order> 2 ] ,
        [ <${sh}path> <#author> ; <${sh}name> "Author"@en, "Autor"@es ; <${sh}nodeKind> <${sh}IRI> ; <${sh}order> 3 ] .`);
  // an image, uploaded
  const uploaded = await s.request('POST', 'uploads/', { headers: { 'Content-Type': 'image/png' }, body: redPng(40) });
  if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${uploaded.body}`);
  const image = header(uploaded, 'location')!;
  const schema = 'https://schema.org/';
  await putTurtle(s, 'people/', `<> a <${dh}Container> ; <${dct}title> "People" ; <${dct}description> "Everyone in the story, one document each."@en .`);
  const alice = (version: number, extra: string) => `<#this> a <${foaf}Person> ; <${foaf}name> "Alice Liddell" ; <${schema}birthDate> "1852-05-04"^^<${xsd}date> ;
    <${foaf}age> ${6 + version} ; <${schema}height> ${(1.1 + version / 10).toFixed(2)} ; <${dct}description> "A curious girl"@en, "Una niña curiosa"@es ;
    <${foaf}knows> <${s.base}people/bob/#this> ; <${foaf}img> <${image}> ; <${geo}lat> 51.752 ; <${geo}long> -1.258 ${extra} .`;
  // three versions, for the history, a memento and a diff
  await putTurtle(s, 'people/alice/', alice(1, ''));
  await putTurtle(s, 'people/alice/', alice(2, `; <${foaf}nick> "Ally"`));
  await putTurtle(s, 'people/alice/', alice(3, `; <${foaf}nick> "Ally", "Al" ; <${dct}modified> "2026-11-26T10:00:00Z"^^<${xsd}dateTime>`));
  await putTurtle(s, 'people/bob/', `<#this> a <${foaf}Person> ; <${foaf}name> "Bob" ; <${foaf}age> 27 ; <${schema}jobTitle> "Rabbit keeper"@en, "Cuidador de conejos"@es ; <${geo}lat> 40.4168 ; <${geo}long> -3.7038 .`);
  await putTurtle(s, 'people/carol/', `<#this> a <${foaf}Person> ; <${foaf}name> "Carol" ; <${foaf}age> 31 ; <${dct}description> "${'A long description that wraps over several lines on a phone, '.repeat(3).trim()}" .`);
  await putTurtle(s, 'people/gone/', `<#this> <${dct}title> "Soon deleted" .`);
  const head = await s.request('HEAD', 'people/gone/');
  const deleted = await s.request('DELETE', 'people/gone/', { headers: { 'If-Match': header(head, 'etag')! } });
  if (deleted.status !== 204) throw new Error(`DELETE people/gone/: ${deleted.status}`);
  const stranger = await signUp(s, 'Sam Stranger');
  const asked = await s.request('POST', '/admin/access/request', {
    as: { pem: stranger.pem },
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ this: `${s.base}people/alice/`, mode: 'Read' }).toString(),
  });
  if (asked.status !== 201) throw new Error(`access request: ${asked.status} ${asked.body}`);
  return { s, accessRequest: header(asked, 'location')!, upload: `${image}/`, bookClass: `${s.admin}ontologies/library/#Book` };
}

async function main(): Promise<number> {
  let values: { out?: string; only?: string; width?: string; help?: boolean };
  try {
    ({ values } = parseArgs({ options: { out: { type: 'string' }, only: { type: 'string' }, width: { type: 'string' }, help: { type: 'boolean' } } }));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n(--help says how to use it)\n`);
    return 2;
  }
  if (values.help || !values.out) {
    process.stdout.write(`${HELP}${PAGES.map((shot) => shot.name).join(', ')}\n`);
    return values.help ? 0 : 2;
  }
  const only = values.only?.split(',').map((name) => name.trim());
  const unknown = only?.filter((name) => !PAGES.some((shot) => shot.name === name)) ?? [];
  if (unknown.length > 0) {
    process.stderr.write(`no page named ${unknown.join(', ')}: the pages are ${PAGES.map((shot) => shot.name).join(', ')}\n`);
    return 2;
  }
  const widths = (values.width ?? '1280,375').split(',').map(Number);
  if (widths.some((width) => !Number.isInteger(width) || width < 200)) {
    process.stderr.write('--width takes whole numbers of CSS pixels, at least 200, comma-separated\n');
    return 2;
  }
  const out = resolve(values.out);
  mkdirSync(out, { recursive: true });
  const s = await startServer([], tempDir('screenshots'), undefined, {}, { tls: true });
  const browser = await launchChromium();
  let failed = 0;
  try {
    const seeded = await seed(s);
    for (const width of widths) {
      for (const shot of PAGES.filter((p) => !only || only.includes(p.name))) {
        const { context, page } = await visitor(browser, s.base, shot.as === 'anonymous' ? undefined : s.ownerPem, { width, locale: shot.locale, timeoutMs: 15_000 });
        try {
          await shot.open(page, seeded);
          const path = join(out, `${shot.name}-${width}.png`);
          await page.screenshot({ path, fullPage: true });
          process.stdout.write(`${path}\n`);
        } catch (error) {
          failed++;
          process.stderr.write(`${shot.name} at ${width} px: ${error instanceof Error ? error.message : String(error)}\n`);
        } finally {
          await context.close();
        }
      }
    }
  } finally {
    await browser.close();
    await s.close();
    removeTempDirs();
  }
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
