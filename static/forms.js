// The forms built from the ontology and the typed editing of values (issue 28), on pages whose
// agent may write or append (src/pages/instance-form.ts draws them): a new document from a class's
// form, a value input that takes the shape of its datatype, a value removed with one click, a
// property picked by its label, a resource picked by its label through the SPARQL endpoint (which
// answers with the agent's own rights, so no label of a document it cannot read is ever shown).
// Runs after static/lodestone.js, whose helpers it uses (window.lodestone).
'use strict';

(function () {
  const { say, problem, done, quoted, literal, termOf, pickedTerm, XSD, outcomes } = window.lodestone;
  const TURTLE = 'text/turtle';
  const WEB_IRI = /^https?:\/\/[^\s<>"{}|\\^`]+$/i;
  const base = document.querySelector('a.brand')?.href || `${location.origin}/`;

  // --- an input in the shape of its datatype -------------------------------------------------

  const INTEGER = /^[+-]?\d+$/;
  /** The HTML input type of a value kind of the property form, and whether `value` fits it (else the input stays text: nothing typed is lost). */
  function inputTypeOf(kind, value) {
    if (kind === `${XSD}integer`) return { type: 'number', step: '1', fits: value === '' || INTEGER.test(value) };
    if (kind === `${XSD}decimal`) return { type: 'number', step: 'any', fits: value === '' || /^-?(\d+(\.\d+)?)$/.test(value) };
    if (kind === `${XSD}date`) return { type: 'date', fits: value === '' || /^\d{4}-\d{2}-\d{2}$/.test(value) };
    if (kind === `${XSD}dateTime`) return { type: 'datetime-local', step: '1', fits: value === '' || /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value) };
    if (kind === 'iri') return { type: 'url', fits: true };
    return { type: 'text', fits: true };
  }

  function shapeInput(input, kind) {
    const value = input.value;
    const shape = inputTypeOf(kind, value);
    const type = shape.fits ? shape.type : 'text';
    if (input.type !== type) input.type = type;
    if (shape.step && type !== 'text') input.step = shape.step;
    else input.removeAttribute('step');
    if (input.value !== value) { // the browser would not keep it: a text input keeps it
      input.type = 'text';
      input.value = value;
    }
  }

  function propertyForm() {
    const form = document.querySelector('form.property-form');
    if (!form) return;
    const kind = form.elements.kind;
    const value = form.elements.value;
    const finder = resourceFinder(value, () => '');
    const reshape = () => {
      shapeInput(value, kind.value);
      finder.hidden = kind.value !== 'iri';
    };
    kind.addEventListener('change', reshape);
    // a value picked with ✎ sets the kind (static/lodestone.js, which listens first)
    document.addEventListener('click', (event) => event.target.closest?.('button.pick-value') && reshape());
    reshape();

    // the property picked by its label: the IRI filled in, the kind its range says
    const choice = document.getElementById('property-choice');
    const search = document.getElementById('property-search');
    if (!choice) return;
    search.closest('.property-search').hidden = false;
    search.addEventListener('input', () => {
      const words = search.value.trim().toLowerCase();
      let first;
      for (const option of choice.options) {
        if (!option.value) continue;
        option.hidden = words !== '' && !`${option.textContent} ${option.value}`.toLowerCase().includes(words);
        if (!option.hidden && !first) first = option;
      }
      if (first && words) choice.value = first.value;
      choice.dispatchEvent(new Event('change'));
    });
    choice.addEventListener('change', () => {
      const option = choice.selectedOptions[0];
      if (!option || !option.value) return;
      form.elements.property.value = option.value;
      const datatype = option.dataset.datatype;
      const wanted = datatype === `${XSD}string` ? 'auto' : datatype;
      if ([...kind.options].some((o) => o.value === wanted)) kind.value = wanted;
      reshape();
    });
  }

  // --- a value removed with one click --------------------------------------------------------

  async function removeValue(button) {
    const form = document.querySelector('form.property-form');
    if (!form) return;
    const subject = `<${form.dataset.subject}>`;
    const data = button.dataset;
    const triple = `${subject} <${data.property}> ${pickedTerm(data)}`;
    say(form, outcomes.working || '…');
    form.closest('details').open = true;
    const response = await fetch(form.dataset.document, { method: 'PATCH', headers: { 'Accept-Language': document.documentElement.lang || 'en', 'Content-Type': 'application/sparql-update', Accept: TURTLE, 'If-Match': form.dataset.etag }, body: `DELETE { ${triple} } WHERE { ${triple} }`, credentials: 'same-origin' });
    if (response.ok) return done(form, 'removed', () => location.reload());
    say(form, await problem(response));
  }

  // --- a resource found by its label ---------------------------------------------------------

  const LABELS = ['http://purl.org/dc/terms/title', 'http://www.w3.org/2000/01/rdf-schema#label', 'http://xmlns.com/foaf/0.1/name', 'http://www.w3.org/2004/02/skos/core#prefLabel', 'http://schema.org/name'];

  /** Resources whose label holds `words`, of `type` when given: through the SPARQL endpoint, as the agent (SPEC §4.6: its dataset is what the agent may read). */
  async function findResources(words, type) {
    const typed = type && WEB_IRI.test(type) ? `?resource a <${type}> .` : '';
    const query = `SELECT ?resource (SAMPLE(?l) AS ?label) WHERE { GRAPH ?g { ?resource ?p ?l . ${typed} VALUES ?p { ${LABELS.map((p) => `<${p}>`).join(' ')} } FILTER(isIRI(?resource) && CONTAINS(LCASE(STR(?l)), LCASE(${quoted(words)}))) } } GROUP BY ?resource ORDER BY ?label LIMIT 10`;
    const response = await fetch(`${base}sparql`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' }, body: query, credentials: 'same-origin' });
    if (!response.ok) throw Object.assign(new Error(`${response.status}`), { status: response.status });
    const json = await response.json();
    return json.results.bindings.map((b) => ({ iri: b.resource.value, label: b.label.value }));
  }

  let finders = 0;
  /** A search box under `input` whose results, picked, fill the input with the resource's IRI. */
  function resourceFinder(input, typeOf) {
    const id = `resource-search-${++finders}`;
    const box = Object.assign(document.createElement('div'), { className: 'resource-finder' });
    const label = Object.assign(document.createElement('label'), { htmlFor: id, textContent: outcomes.findResource || 'Find a resource by name' });
    const search = Object.assign(document.createElement('input'), { id, type: 'search', autocomplete: 'off', className: 'resource-search' });
    const results = Object.assign(document.createElement('ul'), { className: 'resource-results' });
    const note = Object.assign(document.createElement('span'), { className: 'results-note' });
    note.setAttribute('aria-live', 'polite');
    box.append(label, ' ', search, note, results);
    input.closest('p').after(box);
    let asked = 0;
    search.addEventListener('input', async () => {
      const words = search.value.trim();
      const mine = ++asked;
      if (words.length < 2) return void results.replaceChildren();
      let found = [];
      let refused;
      try {
        found = await findResources(words, typeOf());
      } catch (error) {
        refused = (outcomes.status && (outcomes.status[error.status] || outcomes.status.other)) || String(error);
      }
      if (mine !== asked) return; // a later search answers
      note.textContent = refused || (found.length ? '' : outcomes.noMatches || '');
      results.replaceChildren(...found.map((r) => {
        const item = document.createElement('li');
        // the label is text, the IRI a title: neither is markup nor a link
        const button = Object.assign(document.createElement('button'), { type: 'button', className: 'secondary pick-resource', textContent: r.label, title: r.iri });
        button.dataset.iri = r.iri;
        button.addEventListener('click', () => {
          input.value = r.iri;
          results.replaceChildren();
          input.focus();
        });
        item.append(button);
        return item;
      }));
    });
    return box;
  }

  // --- a new document from a class's form ----------------------------------------------------

  /** The Turtle term of a field's value: its datatype kept (an unknown one with its IRI), text with its language. */
  function fieldTerm(field) {
    const datatype = field.dataset.datatype;
    const input = field.querySelector('input:not(.language-input):not(.resource-search), select');
    const text = input.value.trim();
    if (text === '') return null;
    const language = field.querySelector('.language-input')?.value.trim();
    if (datatype === 'iri') return WEB_IRI.test(text) || /^urn:/i.test(text) ? termOf(text, 'iri') : undefined;
    if (language) return datatype === '' || datatype === 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString' ? literal(text, undefined, language) : undefined;
    if (datatype === '') return literal(text);
    const known = [`${XSD}integer`, `${XSD}decimal`, `${XSD}date`, `${XSD}dateTime`, `${XSD}boolean`, `${XSD}string`];
    if (known.includes(datatype)) return termOf(text, datatype);
    if (datatype === 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString') return undefined; // needs its language
    return literal(text, datatype); // its own datatype, its lexical form as typed
  }

  async function createInstance(form) {
    const title = form.elements.title.value.trim();
    const slug = (form.elements.slug.value.trim() || title.normalize('NFKD').replace(/[^\w\s-]/g, '').trim().replace(/\s+/g, '-').toLowerCase() || 'untitled').slice(0, 100);
    const url = `${form.dataset.container}${encodeURIComponent(slug)}/`;
    const lines = [`<#this> a <${form.dataset.class}> ;`, `  <http://purl.org/dc/terms/title> ${quoted(title)}`];
    for (const field of form.querySelectorAll('.field')) {
      const term = fieldTerm(field);
      if (term === null) continue;
      if (term === undefined) {
        field.querySelector('input, select').focus();
        return say(form, form.dataset.invalid || outcomes.status?.[400] || 'invalid');
      }
      lines.push(`  ; <${field.dataset.property}> ${term}`);
    }
    say(form, outcomes.working || '…');
    const body = `${lines.join('\n')} .\n`;
    const response = await fetch(url, { method: 'PUT', headers: { 'Accept-Language': document.documentElement.lang || 'en', 'Content-Type': TURTLE, Accept: TURTLE, 'If-None-Match': '*' }, body, credentials: 'same-origin' });
    if (response.ok) return done(form, 'created', () => location.assign(url));
    say(form, await problem(response, true));
  }

  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (!form.classList.contains('instance-form')) return;
    event.preventDefault();
    createInstance(form).catch((error) => say(form, error instanceof TypeError && outcomes.unreachable ? { message: outcomes.unreachable, detail: error.message } : String(error)));
  });

  for (const button of document.querySelectorAll('button.remove-value')) button.hidden = false;
  document.addEventListener('click', (event) => {
    const button = event.target.closest?.('button.remove-value');
    const form = document.querySelector('form.property-form');
    if (button && form) removeValue(button).catch((error) => say(form, String(error)));
  });

  for (const input of document.querySelectorAll('form.instance-form input.resource-input')) resourceFinder(input, () => input.dataset.class);
  propertyForm();
})();
