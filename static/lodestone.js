// Lodestone's pages, enhanced: the code editors, the editing forms (each write quotes the ETag it
// read, as the API requires), the conflict view on a 412, and the chart of a query's results.
// Every page reads in full without this file; it runs under a Content-Security-Policy that allows
// no inline script, so it is the only place the pages' behaviour lives.
'use strict';

(function () {
  const TURTLE = 'text/turtle';

  /** The dct:title of an RDF error body (SPEC §2.4), or the status line. */
  async function problem(response) {
    const text = await response.text().catch(() => '');
    const title = /<http:\/\/purl\.org\/dc\/terms\/title>\s+"((?:[^"\\]|\\.)*)"/.exec(text) || /dct:title\s+"((?:[^"\\]|\\.)*)"/.exec(text);
    return `${response.status} ${title ? title[1].replace(/\\"/g, '"') : response.statusText}`;
  }

  function say(form, text) {
    const status = form.querySelector('.status');
    if (status) status.textContent = text;
  }

  /** A string as a SPARQL literal, or an IRI when it is one. */
  function sparqlTerm(value) {
    if (/^https?:\/\/[^\s<>"{}|\\^`]+$/.test(value)) return `<${value}>`;
    return '"' + value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r') + '"';
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
    const turtle = form.querySelector('textarea').value;
    say(form, '…');
    const response = await fetch(url, { method: 'PUT', headers: { 'Content-Type': TURTLE, Accept: TURTLE, 'If-Match': form.dataset.etag }, body: turtle, credentials: 'same-origin' });
    if (response.ok) return location.reload();
    if (response.status === 412) {
      const current = await fetch(url, { headers: { Accept: TURTLE }, credentials: 'same-origin', cache: 'no-store' });
      const conflict = form.querySelector('.conflict');
      conflict.querySelector('.mine').textContent = turtle;
      conflict.querySelector('.theirs').textContent = await current.text();
      conflict.hidden = false;
      return say(form, await problem(response));
    }
    say(form, await problem(response));
  }

  async function patch(form, submitter) {
    const subject = `<${form.dataset.subject}>`;
    const property = form.elements.property.value.trim();
    const value = sparqlTerm(form.elements.value.value);
    const triple = `${subject} <${property}> ${value}`;
    const op = submitter ? submitter.value : 'add';
    const update =
      op === 'remove' ? `DELETE { ${triple} } WHERE { ${triple} }`
      : op === 'set' ? `DELETE { ${subject} <${property}> ?old } INSERT { ${triple} } WHERE { OPTIONAL { ${subject} <${property}> ?old } }`
      : `INSERT { ${triple} } WHERE {}`;
    const response = await fetch(form.dataset.document, { method: 'PATCH', headers: { 'Content-Type': 'application/sparql-update', Accept: TURTLE, 'If-Match': form.dataset.etag }, body: update, credentials: 'same-origin' });
    if (response.ok) return location.reload();
    say(form, await problem(response));
  }

  async function remove(form) {
    if (!window.confirm(form.dataset.confirm)) return;
    const url = form.dataset.document;
    const response = await fetch(url, { method: 'DELETE', headers: { Accept: TURTLE, 'If-Match': form.dataset.etag }, credentials: 'same-origin' });
    if (response.ok) return location.assign(new URL('..', url).href);
    say(form, await problem(response));
  }

  async function create(form) {
    const title = form.elements.title.value.trim();
    const slug = (form.elements.slug.value.trim() || title.normalize('NFKD').replace(/[^\w\s-]/g, '').trim().replace(/\s+/g, '-').toLowerCase() || 'untitled').slice(0, 100);
    const url = `${form.dataset.container}${encodeURIComponent(slug)}/`;
    const container = form.elements.kind.value === 'Container';
    const body = `${container ? '<> a <https://w3id.org/atomgraph/linkeddatahub/document-hierarchy#Container> .\n' : ''}<> <http://purl.org/dc/terms/title> ${sparqlTerm(title)} .\n`;
    const response = await fetch(url, { method: 'PUT', headers: { 'Content-Type': TURTLE, Accept: TURTLE, 'If-None-Match': '*' }, body, credentials: 'same-origin' });
    if (response.ok) return location.assign(url);
    say(form, await problem(response));
  }

  async function restore(form) {
    if (!window.confirm(form.dataset.confirm)) return;
    const url = form.dataset.document;
    const headers = { Accept: TURTLE };
    if (form.dataset.etag) headers['If-Match'] = form.dataset.etag;
    else headers['If-None-Match'] = '*';
    const response = await fetch(`${url}?restore=${encodeURIComponent(form.dataset.sha)}`, { method: 'POST', headers, credentials: 'same-origin' });
    if (response.ok) return location.assign(url);
    say(form, await problem(response));
  }

  async function requestAccess(form) {
    const response = await fetch(form.action, { method: 'POST', body: new URLSearchParams(new FormData(form)), credentials: 'same-origin' });
    say(form, response.ok ? form.querySelector('.status').dataset.done : await problem(response));
  }

  const handlers = { 'turtle-editor': saveTurtle, 'property-form': patch, 'delete-document': remove, 'create-child': create, restore, 'access-request': requestAccess };

  document.addEventListener('submit', (event) => {
    const form = event.target;
    const handler = Object.keys(handlers).find((name) => form.classList.contains(name));
    if (!handler) return;
    event.preventDefault();
    handlers[handler](form, event.submitter).catch((error) => say(form, String(error)));
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

  editors();
  charts();
})();
