// The merge and discard buttons of a change request's page (src/pages/change-request-page.ts): a
// POST (merge) or DELETE (discard) of `<base>?branch=<name>&changes` with the branch's ETag in
// If-Match, as the API requires, so only the changes the page showed are merged. A 409 lists the
// triples main and the branch disagree on (the reified triples of the error's RDF), in words; a
// 412 says the branch moved. Runs after static/lodestone.js, whose helpers it uses (window.lodestone).
'use strict';

(function () {
  const { say, problem, outcomes } = window.lodestone;
  const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
  const DCT = 'http://purl.org/dc/terms/';
  const form = document.querySelector('form.change-request');
  if (!form) return;
  form.hidden = false; // it works only with this script

  /** A term of an N-Triples line for people: an IRI by its last segment (a `#this` by its document's), a literal by its text. */
  function words(term) {
    if (term.startsWith('<')) {
      const iri = term.slice(1, -1).replace(/#this$/, ''); // a document's thing by the document's name
      const local = /[^/#]+$/.exec(iri.replace(/[/#]$/, ''));
      return local ? decodeURIComponent(local[0]).replace(/[-_]/g, ' ') : iri;
    }
    const literal = /^"((?:[^"\\]|\\.)*)"/.exec(term);
    return literal ? JSON.parse(`"${literal[1]}"`) : term;
  }

  /** The conflicting triples of a 409's N-Triples body: per reified statement, its side and its triple. */
  function conflictsOf(ntriples) {
    const nodes = new Map();
    for (const line of ntriples.split('\n')) {
      const match = /^(_:\S+) <([^>]+)> (.+) \.$/.exec(line.trim());
      if (!match) continue;
      const [, node, predicate, object] = match;
      const entry = nodes.get(node) || {};
      if (predicate === `${RDF}subject`) entry.subject = object;
      else if (predicate === `${RDF}predicate`) entry.predicate = object;
      else if (predicate === `${RDF}object`) entry.object = object;
      else if (predicate === `${DCT}source`) entry.side = words(object);
      else continue;
      nodes.set(node, entry);
    }
    return [...nodes.values()].filter((e) => e.subject && e.predicate && e.object && e.side);
  }

  function showConflicts(conflicts) {
    const sides = JSON.parse(form.dataset.sides || '{}');
    const status = form.querySelector('.status');
    status.classList.add('failed');
    const message = Object.assign(document.createElement('p'), { className: 'message', textContent: form.dataset.conflicts });
    const list = Object.assign(document.createElement('ul'), { className: 'conflicts' });
    for (const c of conflicts) {
      const item = document.createElement('li');
      item.textContent = `${sides[c.side] || sides.deleted || c.side}: ${words(c.subject)} · ${words(c.predicate)} · ${words(c.object)}`;
      item.title = `${c.subject} ${c.predicate} ${c.object} .`;
      list.append(item);
    }
    status.replaceChildren(message, list);
  }

  async function send(submitter) {
    const discard = submitter && submitter.value === 'discard';
    if (discard && !window.confirm(form.dataset.confirm)) return;
    const buttons = [...form.querySelectorAll('button')];
    for (const button of buttons) button.disabled = true;
    let finished = false;
    try {
      const response = await fetch(form.dataset.changes, { method: discard ? 'DELETE' : 'POST', headers: { 'Accept-Language': document.documentElement.lang || 'en', Accept: 'application/n-triples', 'If-Match': form.dataset.etag }, credentials: 'same-origin' });
      finished = response.ok;
      if (response.ok) return say(form, discard ? form.dataset.discarded : form.dataset.merged);
      if (response.status === 409) {
        const conflicts = conflictsOf(await response.text());
        if (conflicts.length > 0) return showConflicts(conflicts);
      }
      if (response.status === 412) return say(form, { message: form.dataset.moved, detail: '412' });
      say(form, await problem(response));
    } finally {
      for (const button of buttons) button.disabled = finished; // what is done is not offered again
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    send(event.submitter).catch((error) => say(form, error instanceof TypeError && outcomes.unreachable ? { message: outcomes.unreachable, detail: error.message } : String(error)));
  });
})();
