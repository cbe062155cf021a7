// The edit-conflict view, loaded (after n3.js) on the editor's first 412. Both versions, the
// editor's Turtle and the current document, are parsed and written one triple per line in the same
// prefixes, sorted: a triple is one line whatever its place or punctuation in the Turtle, so a line
// the other version lacks is exactly a triple that differs. Keep mine PUTs what is shown as yours
// (the editor's text: edits made while the view is open are compared as they are typed, to merge by
// hand) quoting the ETag of the version shown as theirs (a change meanwhile is another 412, another
// view); take theirs puts the current text and its ETag in the editor.
'use strict';

(function () {
  const TURTLE = 'text/turtle';
  const { Parser, Writer, DataFactory } = window.N3;
  /** Every blank node of a comparison key: labels from two parses name nothing in common. */
  const ANY_BLANK = DataFactory.blankNode('_');

  /** The triples of `text` (Turtle, relative IRIs against `base`) and its prefixes; throws a parse error. */
  function parse(text, base) {
    const prefixes = {};
    const quads = new Parser({ baseIRI: base, format: TURTLE }).parse(text, null, (prefix, iri) => { prefixes[prefix] = iri.value; });
    return { quads, prefixes };
  }

  /**
   * The document's dct:modified: every version has its own, and it is the server's to write (SPEC
   * §2.2, src/documents/metadata.ts: a write's own is dropped), so it is shown but never marked.
   */
  const stamp = (q, base) => q.subject.value === base && q.predicate.value === 'http://purl.org/dc/terms/modified';

  /**
   * One side's lines, sorted and without duplicates: `key` compares across sides (every blank node
   * alike: a triple with a blank node matches the same triple with any blank node in the other
   * version), `text` is shown (blank nodes numbered in the order they appear).
   */
  function lines(quads, writer, base) {
    const blankless = (term) => (term.termType === 'BlankNode' ? ANY_BLANK : term);
    const unique = new Map(quads.map((q) => [writer.quadToString(q.subject, q.predicate, q.object), q]));
    const keyed = [...unique.values()].map((q) => ({ q, key: writer.quadToString(blankless(q.subject), q.predicate, blankless(q.object)).trim() }));
    keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const numbers = new Map();
    const numbered = (term) => {
      if (term.termType !== 'BlankNode') return term;
      if (!numbers.has(term.value)) numbers.set(term.value, DataFactory.blankNode(`b${numbers.size + 1}`));
      return numbers.get(term.value);
    };
    return keyed.map(({ q, key }) => ({ key, stamp: stamp(q, base), text: writer.quadToString(numbered(q.subject), q.predicate, numbered(q.object)).trim() }));
  }

  /** Fills a <pre> with one line per triple, those the other side lacks in <mark>; their count. */
  function fill(pre, own, other) {
    const others = new Set(other.map((line) => line.key));
    for (const line of own) if (line.stamp) others.add(line.key);
    pre.replaceChildren();
    let marked = 0;
    for (const line of own) {
      const only = !others.has(line.key);
      marked += only ? 1 : 0;
      pre.append(Object.assign(document.createElement(only ? 'mark' : 'span'), { className: 'line', textContent: line.text }));
    }
    return marked;
  }

  function render(view, mine, theirs, base) {
    const minePre = view.querySelector('pre.mine');
    const theirsPre = view.querySelector('pre.theirs');
    const summary = view.querySelector('.conflict-summary');
    let yours;
    let current;
    try {
      current = parse(theirs, base);
      yours = parse(mine, base);
    } catch (error) {
      // what cannot be read is shown as written, without marks
      minePre.textContent = mine;
      theirsPre.textContent = theirs;
      summary.textContent = view.dataset.unreadable.replace('{reason}', error.message);
      return;
    }
    const writer = new Writer({ prefixes: { ...current.prefixes, ...yours.prefixes }, baseIRI: base });
    const mineLines = lines(yours.quads, writer, base);
    const theirLines = lines(current.quads, writer, base);
    const onlyMine = fill(minePre, mineLines, theirLines);
    const onlyTheirs = fill(theirsPre, theirLines, mineLines);
    summary.textContent = view.dataset.counts.replace('{mine}', onlyMine).replace('{theirs}', onlyTheirs);
  }

  /** The Turtle editor of `form`: CodeMirror once it was opened, else its text area. */
  function editorOf(form) {
    const area = form.querySelector('textarea');
    const wrapper = form.querySelector('.CodeMirror');
    const codeMirror = wrapper && wrapper.CodeMirror;
    return {
      text: () => (codeMirror ? codeMirror.getValue() : area.value),
      set(text) {
        if (codeMirror) codeMirror.setValue(text);
        area.value = text;
      },
      focus: () => (codeMirror || area).focus(),
      onChange: (listener) => (codeMirror ? codeMirror.on('change', listener) : area.addEventListener('input', listener)),
    };
  }

  /** The conflict of `form` (the Turtle editor) as it is now: the current document fetched with its ETag, beside `mine`. */
  async function show(form, mine, tools, note) {
    const view = form.querySelector('.conflict');
    const url = form.dataset.document;
    const response = await fetch(url, { headers: { Accept: TURTLE }, credentials: 'same-origin', cache: 'no-store' });
    if (!response.ok && response.status !== 404) return tools.say(form, await tools.problem(response));
    const gone = response.status === 404; // deleted meanwhile: keep mine writes it again, there is nothing to take
    const theirs = gone ? '' : await response.text();
    view.current = { theirs, etag: gone ? undefined : response.headers.get('ETag'), tools };
    render(view, mine, theirs, url);
    view.querySelector('button.take-theirs').hidden = gone;
    view.querySelector('.conflict-note').textContent = gone ? view.dataset.deleted : note || '';
    view.hidden = false;
    view.querySelector('h3').focus();
    if (!view.following) {
      // merging by hand: what is edited while the view is open is "yours", compared again as it is typed
      view.following = true;
      const editor = editorOf(form);
      let timer;
      editor.onChange(() => {
        clearTimeout(timer);
        timer = setTimeout(() => view.hidden || render(view, editor.text(), view.current.theirs, url), 250);
      });
    }
  }

  /** Yours as the editor holds it now (the text shown, or merged by hand since), over the version shown as theirs. */
  async function keepMine(form, view) {
    const { etag, tools } = view.current;
    const mine = editorOf(form).text();
    // RFC 9110 §13.1.1: the validator of the version shown as theirs; a newer one fails and is shown
    const headers = { 'Accept-Language': document.documentElement.lang || 'en', 'Content-Type': TURTLE, Accept: TURTLE, ...(etag ? { 'If-Match': etag } : { 'If-None-Match': '*' }) };
    tools.say(form, '…');
    const response = await fetch(form.dataset.document, { method: 'PUT', headers, body: mine, credentials: 'same-origin' });
    if (response.ok) return location.reload();
    if (response.status === 412) {
      tools.say(form, await tools.problem(response));
      return show(form, mine, tools, view.dataset.again);
    }
    tools.say(form, await tools.problem(response));
  }

  function takeTheirs(form, view) {
    const { theirs, etag, tools } = view.current;
    const editor = editorOf(form);
    view.hidden = true;
    editor.set(theirs);
    form.dataset.etag = etag; // the next save replaces the version taken, and only it
    tools.say(form, view.dataset.taken);
    editor.focus();
  }

  document.addEventListener('click', (event) => {
    const button = event.target.closest && event.target.closest('.conflict button');
    const view = button && button.closest('.conflict');
    if (!view || !view.current) return;
    const form = view.closest('form');
    if (button.classList.contains('keep-mine')) {
      button.disabled = true; // one PUT at a time
      keepMine(form, view).catch((error) => view.current.tools.say(form, String(error))).finally(() => { button.disabled = false; });
    }
    if (button.classList.contains('take-theirs')) takeTheirs(form, view);
  });

  window.LodestoneConflict = { show };
})();
