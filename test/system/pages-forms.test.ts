/**
 * Forms from the ontology (issue 28) in real Chromium against a running server: a typed instance
 * created from a class with a SHACL shape and from one the ontology alone describes, checked in git;
 * values of every kind edited and removed without changing their datatype; refusals (a 412 after
 * someone else's edit, a 400 in the Turtle editor, a name taken) said in words next to the form, in
 * Spanish too; as an attacker, a hostile class label or shape does nothing and the resource picker
 * never shows the label of a document the agent cannot read. Pages touched pass axe-core.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ns } from '../../src/rdf/namespaces.js';
import { messages } from '../../src/pages/messages.js';
import { checked, launchChromium, skipWithoutChromium, visitor as visit } from '../chromium.js';
import { fileAtHead, removeTempDirs, tempDir } from '../helpers.js';
import { certifiedAgent, putTurtle, startServer, type TestServer } from '../http-helpers.js';

after(removeTempDirs);

const XSD = ns.xsd;

describe('forms from the ontology (issue 28)', { skip: skipWithoutChromium }, () => {
  let s: TestServer;
  let browser: Browser;
  let repo: string;
  let stranger: { webId: string; pem: string };
  const lib = () => `${s.admin}ontologies/library/#`;

  before(async () => {
    s = await startServer([], tempDir('pages-forms'), undefined, {}, { tls: true });
    repo = s.running.runtimes[0]!.dataspace.store.dir;
    browser = await launchChromium();
    await putTurtle(s, '/admin/ontologies/', `<> a <${ns.dh}Container> .`);
    await putTurtle(s, '/admin/ontologies/library/', `
      @prefix owl: <${ns.owl}> . @prefix rdfs: <${ns.rdfs}> . @prefix sh: <${ns.sh}> . @prefix dct: <${ns.dct}> . @prefix xsd: <${XSD}> . @prefix foaf: <${ns.foaf}> .
      <#> a owl:Ontology .
      <#Book> a owl:Class ; rdfs:label "Book"@en, "Libro"@es .
      <#BookShape> a sh:NodeShape ; sh:targetClass <#Book> ;
        sh:property [ sh:path dct:title ; sh:minCount 1 ; sh:datatype xsd:string ] ,
          [ sh:path <#pages> ; sh:name "Pages"@en, "Páginas"@es ; sh:datatype xsd:integer ; sh:minCount 1 ; sh:order 1 ] ,
          [ sh:path <#published> ; sh:name "Published"@en, "Publicado"@es ; sh:datatype xsd:date ; sh:order 2 ] ,
          [ sh:path <#summary> ; sh:name "Summary"@en, "Resumen"@es ; sh:nodeKind sh:Literal ; sh:order 3 ] ,
          [ sh:path <#author> ; sh:name "Author"@en, "Autor"@es ; sh:nodeKind sh:IRI ; sh:order 4 ] ,
          [ sh:path <#isbn> ; sh:name "ISBN" ; sh:datatype <#ISBN> ; sh:order 5 ] ,
          [ sh:path <#inPrint> ; sh:name "In print"@en, "A la venta"@es ; sh:datatype xsd:boolean ; sh:maxCount 1 ; sh:order 6 ] ,
          [ sh:path <#catalogued> ; sh:name "Catalogued"@en, "Catalogado"@es ; sh:datatype xsd:dateTime ; sh:order 7 ] .
      <#Review> a owl:Class ; rdfs:label "Review"@en, "Reseña"@es .
      <#rating> a owl:DatatypeProperty ; rdfs:domain <#Review> ; rdfs:range xsd:integer ; rdfs:label "rating"@en, "valoración"@es .
      <#about> a owl:ObjectProperty ; rdfs:domain <#Review> ; rdfs:range <#Book> ; rdfs:label "about"@en, "sobre"@es .
      <#Evil> a owl:Class ; rdfs:label "<script>window.pwned = 1</script>" .
      <javascript:window.pwned=3> a owl:Class ; rdfs:label "Click me" .
      <#EvilShape> a sh:NodeShape ; sh:targetClass <#Evil> ; sh:property [ sh:path <#x> ; sh:name "<img src=x onerror=window.pwned=2>" ] , [ sh:path <javascript:window.pwned=4> ; sh:name "js path" ; sh:class <javascript:window.pwned=5> ] .`);
    // a write of the end-user dataspace builds the ontology as it now stands (the pages read the one last built)
    await putTurtle(s, 'library/', `<> a <${ns.dh}Container> ; <${ns.dct}title> "Library" .`);
    await putTurtle(s, 'people/', `<> a <${ns.dh}Container> ; <${ns.dct}title> "People" .`);
    await putTurtle(s, 'people/frank/', `<#this> a <${ns.foaf}Person> ; <${ns.foaf}name> "Frank Herbert" .`);
    await putTurtle(s, 'people/ursula/', `<#this> a <${ns.foaf}Person> ; <${ns.foaf}name> "Ursula Le Guin" .`);
    await putTurtle(s, 'private/', `<> a <${ns.dh}Container> .`);
    await putTurtle(s, 'private/twin/', `<#this> a <${ns.foaf}Person> ; <${ns.foaf}name> "Frank's secret twin" .`);
    assert.equal((await s.request('GET', '/ns')).status, 200);
    stranger = await certifiedAgent(s, 'Sam Stranger');
    const acl = ns.acl;
    await putTurtle(s, '/admin/acl/authorizations/sam-library/', `<#this> a <${acl}Authorization> ; <${acl}agent> <${stranger.webId}> ; <${acl}mode> <${acl}Read>, <${acl}Append>, <${acl}Write> ; <${acl}accessTo> <${s.base}library/> ; <${acl}default> <${s.base}library/> .`);
    // the SPARQL endpoint, which the resource picker asks with the agent's own rights (its dataset: what the agent may read)
    await putTurtle(s, '/admin/acl/authorizations/sam-sparql/', `<#this> a <${acl}Authorization> ; <${acl}agent> <${stranger.webId}> ; <${acl}mode> <${acl}Read> ; <${acl}accessTo> <${s.base}sparql> .`);
    await putTurtle(s, '/admin/acl/authorizations/sam-people/', `<#this> a <${acl}Authorization> ; <${acl}agent> <${stranger.webId}> ; <${acl}mode> <${acl}Read> ; <${acl}accessTo> <${s.base}people/> ; <${acl}default> <${s.base}people/> .`);
  });

  after(async () => {
    await browser?.close();
    await s?.close();
  });

  const visitor = (pem?: string, options: { locale?: string } = {}) => visit(browser, s.base, pem, { ...options, timeoutMs: 10_000 });
  const stored = (path: string) => fileAtHead(repo, path) ?? '';

  /** Picks a resource by typing part of its label into the finder under `input`. */
  async function pickResource(page: Page, finder: string, words: string, label: string): Promise<void> {
    await page.fill(`${finder} input.resource-search`, words);
    await page.locator(`${finder} button.pick-resource`, { hasText: label }).click();
  }

  it('creates a Book from its SHACL shape’s form: typed inputs, a resource picked by name, each value stored with its datatype or language', async () => {
    const { context, page, problems } = await visitor(s.ownerPem);
    await page.goto(`${s.base}library/`);
    const classes = await page.locator('#instance-class option').allTextContents();
    assert.ok(classes.includes('Book') && classes.includes('Review'), classes.join(', '));
    await page.selectOption('#instance-class', `${lib()}Book`);
    await Promise.all([page.waitForURL(/forClass=/), page.click('form.class-picker button')]);
    const form = page.locator('form.instance-form');
    assert.equal(await form.locator('h3').textContent(), 'New Book');
    assert.deepEqual(await form.locator('.field label:not(.language-label):not([for^=resource-search])').allTextContents(), ['Pages (required)', 'Published', 'Summary', 'Author', 'ISBN', 'In print', 'Catalogued'], 'sh:order, sh:name; dct:title is the title');
    assert.equal(await page.getAttribute('#field-0', 'type'), 'number');
    assert.equal(await page.getAttribute('#field-0', 'required'), '');
    assert.equal(await page.getAttribute('#field-1', 'type'), 'date');
    assert.equal(await page.getAttribute('#field-3', 'type'), 'url');
    await checked(page, problems, 'instance-form');

    await page.fill('#instance-title', 'Dune');
    await page.fill('#field-0', '412');
    await page.fill('#field-1', '1965-08-01');
    await page.fill('#field-2', 'A desert planet');
    await page.fill('#field-2-language', 'en');
    await pickResource(page, '.field[data-property$="#author"]', 'herb', 'Frank Herbert');
    assert.equal(await page.inputValue('#field-3'), `${s.base}people/frank/#this`);
    await page.fill('#field-4', '978-0441013593');
    await page.selectOption('#field-5', 'true');
    assert.equal(await page.getAttribute('#field-6', 'type'), 'datetime-local');
    await page.fill('#field-6', '2024-05-01T10:30');
    await Promise.all([page.waitForURL(`${s.base}library/dune/`), form.locator('button[type=submit]').click()]);
    assert.equal(await page.locator('h1').textContent(), 'Dune');
    assert.equal(await page.locator('p.flash').textContent(), 'Created. Opening it…');

    const file = stored('library/dune/');
    const subject = `<${s.base}library/dune/#this>`;
    for (const line of [
      `${subject} <${ns.rdf}type> <${lib()}Book> .`,
      `${subject} <${ns.dct}title> "Dune" .`,
      `${subject} <${lib()}pages> "412"^^<${XSD}integer> .`,
      `${subject} <${lib()}published> "1965-08-01"^^<${XSD}date> .`,
      `${subject} <${lib()}summary> "A desert planet"@en .`,
      `${subject} <${lib()}author> <${s.base}people/frank/#this> .`,
      `${subject} <${lib()}isbn> "978-0441013593"^^<${lib()}ISBN> .`,
      `${subject} <${lib()}inPrint> "true"^^<${XSD}boolean> .`,
      `${subject} <${lib()}catalogued> "2024-05-01T10:30:00"^^<${XSD}dateTime> .`,
    ]) assert.ok(file.includes(`${line}\n`), `${line} in\n${file}`);
    await context.close();
  });

  it('creates a Review from the ontology alone (rdfs:domain and rdfs:range)', async () => {
    const { context, page, problems } = await visitor(s.ownerPem);
    await page.goto(`${s.base}library/?forClass=${encodeURIComponent(`${lib()}Review`)}`);
    const form = page.locator('form.instance-form');
    assert.match((await form.locator('.form-help').textContent())!, /properties this dataspace’s ontology gives/);
    assert.equal(await page.getAttribute('.field[data-property$="#rating"] input', 'type'), 'number');
    await checked(page, problems, 'instance-form-ontology');
    await page.fill('#instance-title', 'On Dune');
    await page.fill('#instance-slug', 'on-dune');
    await page.fill('.field[data-property$="#rating"] input', '5');
    await pickResource(page, '.field[data-property$="#about"]', 'dun', 'Dune');
    await Promise.all([page.waitForURL(`${s.base}library/on-dune/`), form.locator('button[type=submit]').click()]);
    const file = stored('library/on-dune/');
    const subject = `<${s.base}library/on-dune/#this>`;
    assert.ok(file.includes(`${subject} <${lib()}rating> "5"^^<${XSD}integer> .\n`), file);
    assert.ok(file.includes(`${subject} <${lib()}about> <${s.base}library/dune/#this> .\n`), file);
    assert.ok(file.includes(`${subject} <${ns.rdf}type> <${lib()}Review> .\n`), file);

    // the same name again: refused, and said so next to the form
    await page.goto(`${s.base}library/?forClass=${encodeURIComponent(`${lib()}Review`)}`);
    await page.fill('#instance-title', 'On Dune');
    await page.fill('#instance-slug', 'on-dune');
    await page.locator('form.instance-form button[type=submit]').click();
    await page.locator('form.instance-form .status.failed').waitFor();
    assert.match((await page.locator('form.instance-form .status .message').textContent())!, /already exists here/);
    assert.match((await page.locator('form.instance-form .status .detail').textContent())!, /412/);
    await context.close();
  });

  it('edits a date, an integer, a language-tagged string and an IRI and removes a value, every other term unchanged', async () => {
    const { context, page, problems } = await visitor(s.ownerPem);
    const subject = `<${s.base}library/dune/#this>`;
    const form = page.locator('form.property-form');
    const change = async (value: string, fill: string) => {
      await page.click(`button.pick-value[data-value="${value}"]`);
      await page.fill('#property-value', fill);
      await Promise.all([page.waitForEvent('framenavigated'), form.locator('button[value=set]').click()]);
      await page.waitForLoadState('load');
    };
    await page.goto(`${s.base}library/dune/`);
    await page.click('button.pick-value[data-value="412"]');
    assert.equal(await page.getAttribute('#property-value', 'type'), 'number', 'an integer is edited in a number input');
    await checked(page, problems, 'property-form-typed');
    await change('412', '413');
    assert.equal(await page.locator('details.edit-properties + p.flash').textContent(), 'Saved.', 'the write said so after the reload, beside the form');
    await page.click('button.pick-value[data-value="1965-08-01"]');
    assert.equal(await page.getAttribute('#property-value', 'type'), 'date');
    await change('1965-08-01', '1965-09-01');
    await page.click('button.pick-value[data-value="A desert planet"]');
    assert.equal(await page.inputValue('#property-language'), 'en');
    await change('A desert planet', 'A desert world');
    await page.click(`button.pick-value[data-value="${s.base}people/frank/#this"]`);
    assert.equal(await page.getAttribute('#property-value', 'type'), 'url');
    await page.fill('#property-value', '');
    await pickResource(page, 'form.property-form', 'ursula', 'Ursula Le Guin');
    await Promise.all([page.waitForEvent('framenavigated'), form.locator('button[value=set]').click()]);
    await page.waitForLoadState('load');
    // a datatype the form does not know keeps its IRI, the lexical form as typed
    await page.click('button.pick-value[data-value="978-0441013593"]');
    assert.equal(await page.inputValue('#property-kind'), `${lib()}ISBN`);
    await change('978-0441013593', '978-0441013594');
    assert.ok(stored('library/dune/').includes(`${subject} <${lib()}isbn> "978-0441013594"^^<${lib()}ISBN> .\n`), stored('library/dune/'));
    await Promise.all([page.waitForEvent('framenavigated'), page.click('button.remove-value[data-value="978-0441013594"]')]);
    await page.waitForLoadState('load');
    assert.equal(await page.locator('details.edit-properties + p.flash').textContent(), 'Removed.');

    const file = stored('library/dune/');
    for (const line of [
      `${subject} <${lib()}pages> "413"^^<${XSD}integer> .`,
      `${subject} <${lib()}published> "1965-09-01"^^<${XSD}date> .`,
      `${subject} <${lib()}summary> "A desert world"@en .`,
      `${subject} <${lib()}author> <${s.base}people/ursula/#this> .`,
      `${subject} <${ns.dct}title> "Dune" .`,
    ]) assert.ok(file.includes(`${line}\n`), `${line} in\n${file}`);
    assert.ok(!file.includes('412') && !file.includes('1965-08-01') && !file.includes('desert planet') && !file.includes('frank') && !file.includes('isbn'), file);

    // the property picker: found by its label, the IRI and the kind its range gives filled in
    await page.click('details.edit-properties summary');
    await page.fill('#property-search', 'publish');
    assert.equal(await page.inputValue('#property-iri'), `${lib()}published`);
    assert.equal(await page.inputValue('#property-kind'), `${XSD}date`);
    await context.close();
  });

  it('says a refusal in words next to the form that caused it, with the server’s words below: a 412 after someone else’s edit, a Turtle syntax error marked on its line', async () => {
    await putTurtle(s, 'library/notes/', `<#this> <${ns.dct}title> "Notes" .`);
    const { context, page, problems } = await visitor(s.ownerPem);
    await page.goto(`${s.base}library/notes/`);
    // someone else edits meanwhile
    await putTurtle(s, 'library/notes/', `<#this> <${ns.dct}title> "Their notes" .`);
    await page.click('details.edit-properties summary');
    await page.fill('#property-iri', `${ns.dct}description`);
    await page.fill('#property-value', 'mine');
    await form(page, 'property-form').locator('button[value=add]').click();
    const status = form(page, 'property-form').locator('.status');
    await status.locator('.message').waitFor();
    assert.match((await status.locator('.message').textContent())!, /^Someone changed this document since you opened it/);
    assert.match((await status.locator('.detail').textContent())!, /^The server said: 412 /);

    await page.reload();
    await page.click('details.edit-turtle summary');
    await page.locator('.CodeMirror').waitFor();
    await page.locator('.CodeMirror').evaluate((element) => (element as unknown as { CodeMirror: { setValue(v: string): void } }).CodeMirror.setValue('<#this> <http://purl.org/dc/terms/title> "ok" .\n<#this> <http://purl.org/dc/terms/title> oops .\n'));
    await form(page, 'turtle-editor').locator('button[type=submit]').click();
    const said = form(page, 'turtle-editor').locator('.status .message');
    await said.waitFor();
    assert.equal(await said.textContent(), 'The Turtle has an error on line 2, marked in the editor.');
    assert.match((await form(page, 'turtle-editor').locator('.status .detail').textContent())!, /400/);
    assert.equal(await page.locator('.CodeMirror .error-line').count(), 1);
    problems.splice(0, problems.length, ...problems.filter((p) => !/status of 400/.test(p))); // the 400 asked for
    await checked(page, problems, 'refusals');
    await context.close();
  });

  it('speaks Spanish with no English interface string: the class form, its fields and a refusal', async () => {
    const { context, page, problems } = await visitor(s.ownerPem, { locale: 'es-ES' });
    await page.goto(`${s.base}library/?forClass=${encodeURIComponent(`${lib()}Book`)}`);
    assert.equal(await page.locator('form.instance-form h3').textContent(), 'Nuevo: Libro');
    assert.ok((await page.locator('#instance-class option').allTextContents()).includes('Reseña'));
    await page.fill('#instance-title', 'Dune');
    await page.fill('#instance-slug', 'dune');
    await page.fill('#field-0', '1');
    await page.locator('form.instance-form button[type=submit]').click();
    await page.locator('form.instance-form .status .message').waitFor();
    assert.match((await page.locator('form.instance-form .status .message').textContent())!, /^Ya hay un documento con este nombre/);
    // every interface string that differs between the languages: none of the English ones is shown (the server's own words, the detail line, excepted)
    const en = messages('en');
    const es = messages('es');
    const english = Object.entries({ ...en, ...en.writeOutcomes, ...en.writeOutcomes.status }).flatMap(([key, value]) => (typeof value === 'string' && value.length > 3 && value !== (es as Record<string, unknown>)[key] && value !== (es.writeOutcomes as Record<string, unknown>)[key] && value !== es.writeOutcomes.status[key] ? [value] : []));
    const shown = await page.locator('main').evaluate((main) => {
      const copy = main.cloneNode(true) as HTMLElement;
      // not the interface's words: the server's (the detail line), the document's (its Turtle), the vocabularies' (property labels)
      for (const data of copy.querySelectorAll('.detail, script, textarea, #property-choice')) data.remove();
      return copy.innerText;
    });
    const left = english.filter((text) => new RegExp(`(^|[^\\p{L}])${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}])`, 'u').test(shown));
    assert.deepEqual(left, [], `English left in:\n${shown}`);
    await checked(page, problems, 'instance-form-es');
    await context.close();
  });

  it('fits a phone (375 px): the class form and the property form with its pickers open', async () => {
    const { context, page, problems } = await visit(browser, s.base, s.ownerPem, { width: 375, timeoutMs: 10_000 });
    for (const url of [`${s.base}library/?forClass=${encodeURIComponent(`${lib()}Book`)}`, `${s.base}library/dune/`]) {
      await page.goto(url);
      await page.locator('details.edit-properties').evaluateAll((all) => all.forEach((details) => ((details as HTMLDetailsElement).open = true)));
      if (await page.locator('#property-kind').count()) await page.selectOption('#property-kind', 'iri'); // the resource picker shown
      const wide = await page.evaluate(() => [...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > 375 + 1 && !e.closest('.CodeMirror, .table-scroll')).map((e) => `${e.tagName}.${e.className}#${e.id}`).slice(0, 5));
      assert.deepEqual(wide, [], url);
    }
    await checked(page, problems, 'forms-phone');
    await context.close();
  });

  it('as an attacker: a hostile class label or shape runs nothing and links nowhere; the resource picker never shows a label the agent cannot read', async () => {
    const { context, page, problems } = await visitor(stranger.pem);
    await page.goto(`${s.base}library/`);
    const options = await page.locator('#instance-class option').allTextContents();
    assert.ok(options.includes('<script>window.pwned = 1</script>'), 'the label is text');
    await page.selectOption('#instance-class', `${lib()}Evil`);
    await Promise.all([page.waitForURL(/forClass=/), page.click('form.class-picker button')]);
    assert.match((await page.locator('form.instance-form').textContent())!, /<img src=x onerror=window\.pwned=2>/);
    await page.goto(`${s.base}library/?forClass=${encodeURIComponent('javascript:window.pwned=3')}`);
    assert.equal(await page.locator('form.instance-form').count(), 1, 'a class of the ontology, whatever its scheme, is a name');
    assert.equal(await page.locator('a[href^="javascript:"], [src^="javascript:"], [action^="javascript:"]').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
    // a class the ontology does not name gets no form (nor a query)
    await page.goto(`${s.base}library/?forClass=${encodeURIComponent('https://example.org/Other> } #')}`);
    assert.equal(await page.locator('form.instance-form').count(), 0);

    // the picker finds Frank, whom the agent may read, but never the plans it may not
    await page.goto(`${s.base}library/?forClass=${encodeURIComponent(`${lib()}Book`)}`);
    await page.fill('.field[data-property$="#author"] input.resource-search', 'frank');
    await page.locator('.field[data-property$="#author"] button.pick-resource').first().waitFor();
    const found = await page.locator('button.pick-resource').allTextContents();
    assert.deepEqual(found, ['Frank Herbert'], 'only what the agent may read');
    assert.deepEqual(problems, []);
    await context.close();

    // the owner, who may read both, finds both: the search would have shown it
    const owner = await visitor(s.ownerPem);
    await owner.page.goto(`${s.base}library/dune/`);
    await owner.page.click('details.edit-properties summary');
    await owner.page.selectOption('#property-kind', 'iri');
    await owner.page.fill('form.property-form input.resource-search', 'frank');
    await owner.page.locator('form.property-form button.pick-resource').nth(1).waitFor();
    assert.deepEqual((await owner.page.locator('button.pick-resource').allTextContents()).sort(), ['Frank Herbert', 'Frank\'s secret twin']);
    await owner.context.close();
  });
});

function form(page: Page, name: string) {
  return page.locator(`form.${name}`);
}
