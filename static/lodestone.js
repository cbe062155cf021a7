// Lodestone's pages, enhanced: the code editors, the editing forms (each write quotes the ETag it
// read, as the API requires), the conflict view on a 412 (conflict.js), and the chart of a query's results.
// Every page reads in full without this file; it runs under a Content-Security-Policy that allows
// no inline script, so it is the only place the pages' behaviour lives.
'use strict';

(function () {
  const TURTLE = 'text/turtle';
  /** The page's language: the server words an error's title in it too (a second dct:title, tagged). */
  const LANGUAGE = document.documentElement.lang || 'en';

  /** The words of write outcomes in the page's language (instance-form.ts `scriptMessages`), if the page has them. */
  const outcomes = (() => {
    try {
      return JSON.parse(document.getElementById('ui-messages')?.textContent || '{}');
    } catch {
      return {};
    }
  })();

  /**
   * What a refused write means, in words (a 412 of a create: the name is taken), and the server's
   * own: the status and the dct:title of its RDF error body (SPEC §2.4), in the page's language when
   * it has one, kept as a second line.
   */
  async function problem(response, creating) {
    const text = await response.text().catch(() => '');
    const title = new RegExp(`"((?:[^"\\\\]|\\\\.)*)"@${LANGUAGE}\\b`).exec(text) || /<http:\/\/purl\.org\/dc\/terms\/title>\s+"((?:[^"\\]|\\.)*)"/.exec(text) || /dct:title\s+"((?:[^"\\]|\\.)*)"/.exec(text);
    const detail = `${response.status} ${title ? title[1].replace(/\\"/g, '"').replace(/\\n/g, ' ') : response.statusText}`;
    const words = outcomes.status || {};
    const message = words[creating && response.status === 412 ? 'exists' : response.status >= 500 ? 500 : response.status] || words.other;
    return message ? { message, detail } : detail;
  }

  /** Says `said` (text, or a refusal's message and detail) in the form's live region, next to what caused it. */
  function say(form, said) {
    const status = form.querySelector('.status');
    if (!status) return;
    status.classList.toggle('failed', typeof said === 'object');
    if (typeof said !== 'object') return void (status.textContent = said);
    const message = Object.assign(document.createElement('span'), { className: 'message', textContent: said.message });
    const detail = Object.assign(document.createElement('span'), { className: 'detail', textContent: `${outcomes.details || ''} ${said.detail}`.trim() });
    status.replaceChildren(message, detail);
  }

  /** A write that went in: said on the page that follows (the form of the same class, else the top of the page), then `go` (a reload, a new page). */
  function done(form, key, go) {
    try {
      sessionStorage.setItem('lodestone-said', JSON.stringify({ form: form.classList[0], message: outcomes[key] || '' }));
    } catch { /* no storage: the new page says nothing */ }
    go();
  }

  function sayDone() {
    let said;
    try {
      said = JSON.parse(sessionStorage.getItem('lodestone-said') || 'null');
      sessionStorage.removeItem('lodestone-said');
    } catch {
      return;
    }
    if (!said || !said.message) return;
    const form = document.querySelector(`form.${CSS.escape(said.form)}`);
    const details = form?.closest('details');
    if (form && !details && form.querySelector('.status')) return say(form, said.message);
    // beside the form's disclosure, which the new page shows closed; else at the top of the page
    const flash = Object.assign(document.createElement('p'), { className: 'flash', textContent: said.message });
    flash.setAttribute('role', 'status');
    if (details) details.after(flash);
    else document.querySelector('main')?.prepend(flash);
  }

  const XSD = 'http://www.w3.org/2001/XMLSchema#';
  /** A string as a SPARQL string literal (its quotes, backslashes and line ends escaped). */
  function quoted(value) {
    return '"' + value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r') + '"';
  }
  const IRI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`]*$/;
  const WEB_IRI = /^(https?:\/\/|urn:|mailto:)[^\s<>"{}|\\^`]+$/i;
  /** How the lexical forms of the types the form offers are written (XML Schema 1.1 Part 2). */
  const LEXICAL = {
    [`${XSD}integer`]: /^[+-]?\d+$/,
    [`${XSD}decimal`]: /^[+-]?(\d+(\.\d*)?|\.\d+)$/,
    [`${XSD}date`]: /^-?\d{4,}-\d{2}-\d{2}(Z|[+-]\d{2}:\d{2})?$/,
    [`${XSD}dateTime`]: /^-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/,
    [`${XSD}boolean`]: /^(true|false|1|0)$/,
  };
  /** A literal with its datatype (none for xsd:string), or its language. */
  function literal(value, datatype, language) {
    if (language) return `${quoted(value)}@${language}`;
    return !datatype || datatype === `${XSD}string` ? quoted(value) : `${quoted(value)}^^<${datatype}>`;
  }

  /**
   * The RDF term of a new value, in SPARQL: with a language, a language-tagged string; as typed
   * (`auto`), an integer, a decimal, a date, a date and time, a web IRI, else a string; else the
   * type chosen, its lexical form checked. Undefined when the text does not fit the type.
   */
  function termOf(text, kind, language) {
    if (language) return kind === 'auto' || kind === `${XSD}string` ? literal(text, undefined, language) : undefined;
    if (kind === 'iri') return IRI.test(text) ? `<${text}>` : undefined;
    if (kind === `${XSD}dateTime` && /^[^:]*T\d{2}:\d{2}$/.test(text)) text += ':00'; // a date and time input leaves out zero seconds
    if (kind === 'auto') {
      const minutes = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(Z|[+-]\d{2}:\d{2})?$/.exec(text); // a date and time without seconds
      if (minutes) return literal(`${minutes[1]}:00${minutes[2] || ''}`, `${XSD}dateTime`);
      const typed = [`${XSD}integer`, `${XSD}decimal`, `${XSD}date`, `${XSD}dateTime`].find((type) => LEXICAL[type].test(text));
      if (typed) return literal(text, typed);
      return WEB_IRI.test(text) ? `<${text}>` : literal(text);
    }
    if (LEXICAL[kind] && !LEXICAL[kind].test(text)) return undefined;
    return literal(text, kind);
  }

  /** The exact term of a value picked on the page (its button's data). */
  function pickedTerm(data) {
    return data.kind === 'iri' ? `<${data.value}>` : literal(data.value, data.datatype, data.language);
  }

  // The code editor and the chart library are loaded when they are first used: a page weighs
  // only itself and this file until then. An element names what it needs in data-styles and
  // data-scripts (the server's own static files, allowed by the Content-Security-Policy).
  const loading = new Map();
  function load(url, kind) {
    if (!loading.has(url)) {
      loading.set(url, new Promise((resolve, reject) => {
        const element = kind === 'css' ? Object.assign(document.createElement('link'), { rel: 'stylesheet', href: url }) : Object.assign(document.createElement('script'), { src: url, async: false });
        element.onload = resolve;
        element.onerror = () => reject(new Error(`${url} could not be loaded`));
        document.head.append(element);
      }));
    }
    return loading.get(url);
  }
  async function needs(element) {
    const urls = (name) => (element.dataset[name] || '').split(' ').filter(Boolean);
    await Promise.all(urls('styles').map((url) => load(url, 'css')));
    for (const url of urls('scripts')) await load(url, 'js'); // in order: a mode after the editor
  }

  /** A text area with data-editor becomes CodeMirror (with its highlighting) the first time it is wanted. */
  async function upgrade(area) {
    if (area.dataset.upgraded) return;
    area.dataset.upgraded = 'yes';
    await needs(area);
    const editor = window.CodeMirror.fromTextArea(area, { mode: area.dataset.editor, lineNumbers: true, lineWrapping: true, viewportMargin: Infinity });
    // the label names the editor's own text area for screen readers
    editor.getInputField().setAttribute('aria-label', document.querySelector(`label[for="${area.id}"]`)?.textContent || area.id);
    area.form?.addEventListener('submit', () => editor.save(), { capture: true });
    area.codeMirror = editor;
    return editor;
  }

  function editors() {
    const turtle = document.getElementById('turtle-source');
    turtle?.closest('details')?.addEventListener('toggle', (event) => event.target.open && void upgrade(turtle));
    const query = document.getElementById('query');
    // the query editor when the query is first focused or clicked, the cursor where it was put
    query?.addEventListener('focus', async () => {
      const at = query.selectionStart;
      const editor = await upgrade(query);
      if (editor) {
        editor.focus();
        editor.setCursor(editor.posFromIndex(at));
      }
    }, { once: true });
  }

  async function saveTurtle(form) {
    const url = form.dataset.document;
    const area = form.querySelector('textarea');
    const turtle = area.value;
    const editor = area.codeMirror;
    editor?.eachLine((line) => editor.removeLineClass(line, 'background', 'error-line'));
    say(form, outcomes.working || '…');
    const response = await fetch(url, { method: 'PUT', headers: { 'Accept-Language': LANGUAGE, 'Content-Type': TURTLE, Accept: TURTLE, 'If-Match': form.dataset.etag }, body: turtle, credentials: 'same-origin' });
    if (response.ok) return done(form, 'saved', () => location.reload());
    if (response.status === 400) {
      // a syntax error names its line (N3.js: "… on line 3."): marked in the editor, said in words
      const said = await problem(response);
      const line = /\bline (\d+)/.exec(typeof said === 'object' ? said.detail : said);
      if (line && editor && Number(line[1]) <= editor.lineCount()) {
        editor.addLineClass(Number(line[1]) - 1, 'background', 'error-line');
        editor.scrollIntoView({ line: Number(line[1]) - 1, ch: 0 });
      }
      return say(form, line && typeof said === 'object' && outcomes.turtleLine ? { message: outcomes.turtleLine.replace('{line}', line[1]), detail: said.detail } : said);
    }
    if (response.status === 412) {
      // the conflict view (static/conflict.js, with the Turtle parser it needs) is loaded when first wanted
      say(form, await problem(response));
      await needs(form.querySelector('.conflict'));
      return window.LodestoneConflict.show(form, turtle, { problem, say });
    }
    say(form, await problem(response));
  }

  /** A value picked with its ✎ button fills the form; Change and Remove then act on that exact term. */
  function pick(button) {
    const form = document.querySelector('form.property-form');
    if (!form) return;
    const data = button.dataset;
    form.closest('details').open = true;
    form.elements.property.value = data.property;
    form.elements.value.value = data.value;
    form.elements.language.value = data.language;
    const kinds = form.elements.kind;
    const kind = data.kind === 'iri' ? 'iri' : data.language ? 'auto' : data.datatype || `${XSD}string`;
    if (![...kinds.options].some((option) => option.value === kind)) kinds.append(new Option(kind, kind)); // a datatype the form does not list
    kinds.value = kind;
    form.picked = { property: data.property, term: pickedTerm(data) };
    say(form, form.dataset.picked);
    form.elements.value.focus();
  }

  /** The SPARQL update of the property form: add a value, change (the picked one, or all), remove (the picked one, or those typed). */
  function propertyUpdate(form, op) {
    const subject = `<${form.dataset.subject}>`;
    const property = `<${form.elements.property.value.trim()}>`;
    const text = form.elements.value.value;
    const kind = form.elements.kind.value;
    const language = form.elements.language.value.trim();
    const picked = form.picked && form.picked.property === form.elements.property.value.trim() ? form.picked.term : undefined;
    if (op === 'remove') {
      if (picked) return `DELETE { ${subject} ${property} ${picked} } WHERE { ${subject} ${property} ${picked} }`;
      // what was typed: as typed, any value written so (40 removes the integer 40 and the text "40"); with a type or language, that term
      const term = termOf(text, kind, language);
      if (term === undefined) return undefined;
      const match = kind === 'auto' && !language ? `sameTerm(?value, ${term}) || STR(?value) = ${quoted(text)}` : `sameTerm(?value, ${term})`;
      return `DELETE { ${subject} ${property} ?value } WHERE { ${subject} ${property} ?value FILTER(${match}) }`;
    }
    const term = termOf(text, kind, language);
    if (term === undefined) return undefined;
    if (op === 'set' && picked) return `DELETE { ${subject} ${property} ${picked} } INSERT { ${subject} ${property} ${term} } WHERE { ${subject} ${property} ${picked} }`;
    if (op === 'set') return `DELETE { ${subject} ${property} ?old } INSERT { ${subject} ${property} ${term} } WHERE { OPTIONAL { ${subject} ${property} ?old } }`;
    return `INSERT { ${subject} ${property} ${term} } WHERE {}`;
  }

  async function patch(form, submitter) {
    const update = propertyUpdate(form, submitter ? submitter.value : 'add');
    if (update === undefined) return say(form, form.dataset.invalid);
    say(form, outcomes.working || '…');
    const response = await fetch(form.dataset.document, { method: 'PATCH', headers: { 'Accept-Language': LANGUAGE, 'Content-Type': 'application/sparql-update', Accept: TURTLE, 'If-Match': form.dataset.etag }, body: update, credentials: 'same-origin' });
    // a 204 with the ETag sent: the update matched nothing, or changed nothing (LinkedDataHub habit: PATCH answers the new ETag)
    if (response.ok && response.headers.get('ETag') === form.dataset.etag) return say(form, form.dataset.unchanged);
    if (response.ok) return done(form, 'saved', () => location.reload());
    say(form, await problem(response));
  }

  async function remove(form) {
    if (!window.confirm(form.dataset.confirm)) return;
    const url = form.dataset.document;
    const response = await fetch(url, { method: 'DELETE', headers: { 'Accept-Language': LANGUAGE, Accept: TURTLE, 'If-Match': form.dataset.etag }, credentials: 'same-origin' });
    if (response.ok) return done(form, 'removed', () => location.assign(new URL('..', url).href));
    say(form, await problem(response));
  }

  async function create(form) {
    const title = form.elements.title.value.trim();
    const slug = (form.elements.slug.value.trim() || title.normalize('NFKD').replace(/[^\w\s-]/g, '').trim().replace(/\s+/g, '-').toLowerCase() || 'untitled').slice(0, 100);
    const url = `${form.dataset.container}${encodeURIComponent(slug)}/`;
    const container = form.elements.kind.value === 'Container';
    const body = `${container ? '<> a <https://w3id.org/atomgraph/linkeddatahub/document-hierarchy#Container> .\n' : ''}<> <http://purl.org/dc/terms/title> ${quoted(title)} .\n`;
    const response = await fetch(url, { method: 'PUT', headers: { 'Accept-Language': LANGUAGE, 'Content-Type': TURTLE, Accept: TURTLE, 'If-None-Match': '*' }, body, credentials: 'same-origin' });
    if (response.ok) return done(form, 'created', () => location.assign(url));
    say(form, await problem(response, true));
  }

  async function restore(form) {
    if (!window.confirm(form.dataset.confirm)) return;
    const url = form.dataset.document;
    const headers = { 'Accept-Language': LANGUAGE, Accept: TURTLE };
    if (form.dataset.etag) headers['If-Match'] = form.dataset.etag;
    else headers['If-None-Match'] = '*';
    const response = await fetch(`${url}?restore=${encodeURIComponent(form.dataset.sha)}`, { method: 'POST', headers, credentials: 'same-origin' });
    if (response.ok) return done(form, 'saved', () => location.assign(url));
    say(form, await problem(response));
  }

  async function requestAccess(form) {
    const response = await fetch(form.action, { method: 'POST', headers: { 'Accept-Language': LANGUAGE }, body: new URLSearchParams(new FormData(form)), credentials: 'same-origin' });
    say(form, response.ok ? form.querySelector('.status').dataset.done : await problem(response));
  }

  /** Grant: an authorization document as one written by hand (acl:agent, acl:accessTo, acl:mode), then the request deleted; refuse: deleted. */
  async function grantRequest(form, submitter) {
    const { request, etag, authorizations, agent, target, modes } = form.dataset;
    if (![agent, target].every((iri) => WEB_IRI.test(iri)) || !/^(Read|Write|Append|Control)( (Read|Write|Append|Control))*$/.test(modes)) return say(form, 'not a request that can be granted');
    const buttons = [...form.querySelectorAll('button')];
    for (const button of buttons) button.disabled = true;
    let done = false;
    try {
      if (submitter && submitter.value === 'grant') {
        const url = `${authorizations}${crypto.randomUUID()}/`;
        const body = `<#this> a <http://www.w3.org/ns/auth/acl#Authorization> ;\n`
          + `  <http://www.w3.org/2000/01/rdf-schema#label> ${quoted(`Granted on request: ${modes}`)} ;\n`
          + `  <http://www.w3.org/ns/auth/acl#agent> <${agent}> ;\n  <http://www.w3.org/ns/auth/acl#accessTo> <${target}> ;\n`
          + `  <http://www.w3.org/ns/auth/acl#mode> ${modes.split(' ').map((m) => `<http://www.w3.org/ns/auth/acl#${m}>`).join(', ')} .\n`;
        const written = await fetch(url, { method: 'PUT', headers: { 'Accept-Language': LANGUAGE, 'Content-Type': TURTLE, Accept: TURTLE, 'If-None-Match': '*' }, body, credentials: 'same-origin' });
        if (!written.ok) return say(form, await problem(written));
      }
      const deleted = await fetch(request, { method: 'DELETE', headers: { 'Accept-Language': LANGUAGE, Accept: TURTLE, 'If-Match': etag }, credentials: 'same-origin' });
      done = deleted.ok;
      say(form, deleted.ok ? (submitter && submitter.value === 'grant' ? form.dataset.granted : form.dataset.refused) : await problem(deleted));
    } finally {
      for (const button of buttons) button.disabled = done; // what is done is not offered again
    }
  }

  const handlers = { 'turtle-editor': saveTurtle, 'property-form': patch, 'delete-document': remove, 'create-child': create, restore, 'access-request': requestAccess, 'grant-request': grantRequest };

  document.addEventListener('submit', (event) => {
    const form = event.target;
    const handler = Object.keys(handlers).find((name) => form.classList.contains(name));
    if (!handler) return;
    event.preventDefault();
    handlers[handler](form, event.submitter).catch((error) => say(form, error instanceof TypeError && outcomes.unreachable ? { message: outcomes.unreachable, detail: error.message } : String(error)));
  });

  let chart;
  async function drawChart() {
    const form = document.querySelector('.chart-form');
    const table = document.getElementById('results-table');
    if (!form || !table) return;
    await needs(form);
    const heads = [...table.tHead.rows[0].cells].map((th) => th.textContent);
    const column = (name) => [...table.tBodies[0].rows].map((row) => row.cells[heads.indexOf(name)]?.dataset.value ?? '');
    const type = form.elements.type.value;
    const labels = column(form.elements.labels.value);
    const values = column(form.elements.values.value).map(Number);
    const data = type === 'scatter'
      ? { datasets: [{ label: form.elements.values.value, data: labels.map((x, i) => ({ x: Number(x), y: values[i] })) }] }
      : { labels, datasets: [{ label: form.elements.values.value, data: values }] };
    chart?.destroy();
    chart = new window.Chart(document.getElementById('chart-canvas'), { type, data, options: { animation: false, responsive: true, maintainAspectRatio: false } });
  }

  function charts() {
    const form = document.querySelector('.chart-form');
    if (!form) return;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      drawChart().catch((error) => say(form, String(error)));
    });
    form.addEventListener('change', () => chart && drawChart());
  }

  // the ✎ buttons that pick a value for the property form work only with this script: shown by it
  for (const button of document.querySelectorAll('button.pick-value')) button.hidden = false;
  document.addEventListener('click', (event) => {
    const button = event.target.closest && event.target.closest('button.pick-value');
    if (button) pick(button);
  });

  editors();
  charts();
  sayDone();
  // for static/forms.js (loaded after this file on pages with forms)
  window.lodestone = { say, problem, done, quoted, literal, termOf, pickedTerm, XSD, outcomes };
})();
