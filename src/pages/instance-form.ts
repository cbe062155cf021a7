/**
 * The forms built from the namespace ontology (issue 28): on a container, the choice of a class
 * (a GET of the page with `forClass`, as LinkedDataHub's constructor forms are asked for, so the
 * choice works without scripts) and the form of the chosen class, one typed input per field, which
 * static/forms.js writes as a new document; for the property form, the properties to pick by label.
 * Every label and IRI is text here (html.ts escapes it): a class named `<script>` is its name.
 */
import { JSON_TYPE } from '../rdf/media-types.js';
import { html, raw, type Html } from './html.js';
import { labelOf, pickLabel, type Labels } from './labels.js';
import type { Language, Messages } from './messages.js';

const XSD = 'http://www.w3.org/2001/XMLSchema#';
const LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';
const INTEGERS = ['integer', 'int', 'long', 'short', 'byte', 'nonNegativeInteger', 'positiveInteger', 'negativeInteger', 'nonPositiveInteger', 'unsignedInt', 'unsignedLong', 'unsignedShort', 'unsignedByte'].map((n) => XSD + n);
const DECIMALS = ['decimal', 'double', 'float'].map((n) => XSD + n);
/** Language tags offered for text (any other may be typed). */
export const LANGUAGE_TAGS = ['en', 'es', 'fr', 'de', 'it', 'pt', 'ca', 'nl'];

/** One input of a class's form (ontology/class-forms.ts builds them: plain values, as pages take them). */
export interface FormField {
  path: string;
  /** Its name by language ('' for none). */
  names: Record<string, string>;
  /** A literal's datatype ('' when nothing says: text, with a language or without), or 'iri'. */
  datatype: string;
  class?: string;
  required: boolean;
  single: boolean;
}

export interface ClassForm {
  iri: string;
  fields: readonly FormField[];
  /** From SHACL shapes (else from rdfs:domain). */
  shaped: boolean;
}

/** A property the property form offers, and its datatype or 'iri'. */
export interface PropertyChoice {
  iri: string;
  datatype: string;
}

export interface InstanceForms {
  /** The classes of the namespace ontology, by IRI. */
  classes: readonly string[];
  /** The form of the class asked for (`forClass`), when it is one of them. */
  chosen?: ClassForm;
}

interface Drawn {
  t: Messages;
  language: Language;
  labels: Labels;
}

/** The class picker and, once a class is chosen, its form. */
export function instanceSection(containerUrl: string, forms: InstanceForms, drawn: Drawn): Html {
  const { t, language, labels } = drawn;
  const classes = forms.classes.map((iri) => ({ iri, label: labelOf(iri, language, labels) })).sort((a, b) => a.label.localeCompare(b.label, language));
  const chosen = forms.chosen;
  return html`<section class="create-instance" aria-labelledby="instance-heading"><h2 id="instance-heading">${t.createInstance}</h2>
<form method="get" action="${containerUrl}" class="class-picker">
<input type="hidden" name="lang" value="${language}">
<p><label for="instance-class">${t.instanceClass}</label> <select id="instance-class" name="forClass">${classes.map((c) => html`<option value="${c.iri}"${c.iri === chosen?.iri ? ' selected' : ''}>${c.label}</option>`)}</select>
<button type="submit" class="secondary">${t.showForm}</button></p>
</form>
${chosen && classForm(containerUrl, chosen, drawn)}
</section>`;
}

function classForm(containerUrl: string, form: ClassForm, drawn: Drawn): Html {
  const { t, language, labels } = drawn;
  const fields = form.fields.filter((f) => f.path !== 'http://purl.org/dc/terms/title'); // the title is asked for first
  return html`<form class="instance-form" data-container="${containerUrl}" data-class="${form.iri}" data-invalid="${t.invalidValue}">
<h3>${t.newInstanceOf(labelOf(form.iri, language, labels))}</h3>
<p class="form-help">${form.shaped ? t.fieldsFromShapes : t.fieldsFromOntology}</p>
<p><label for="instance-title">${t.title}</label> <input id="instance-title" name="title" required></p>
<p><label for="instance-slug">${t.slug}</label> <input id="instance-slug" name="slug" pattern="[A-Za-z0-9._~\\-]+" placeholder="my-notes"></p>
${fields.length === 0 && html`<p>${t.noFields}</p>`}
${fields.map((field, i) => fieldRow(field, i, drawn))}
<p><button type="submit" class="primary">${t.create}</button></p>
<div class="status" role="status" aria-live="polite"></div>
</form>`;
}

/** What an input of `datatype` is in HTML: its type and step. */
export function inputKind(datatype: string): { type: string; step?: string } {
  if (datatype === 'iri') return { type: 'url' };
  if (INTEGERS.includes(datatype)) return { type: 'number', step: '1' };
  if (DECIMALS.includes(datatype)) return { type: 'number', step: 'any' };
  if (datatype === XSD + 'date') return { type: 'date' };
  if (datatype === XSD + 'dateTime') return { type: 'datetime-local', step: '1' };
  return { type: 'text' };
}

function fieldRow(field: FormField, i: number, drawn: Drawn): Html {
  const { t, language, labels } = drawn;
  const id = `field-${i}`;
  const name = pickLabel(new Map(Object.entries(field.names)), language) ?? labelOf(field.path, language, labels);
  const text = field.datatype === '' || field.datatype === LANG_STRING; // xsd:string takes no language (RDF 1.1 §3.3)
  const kind = inputKind(field.datatype);
  const required = field.required ? html` required aria-required="true"` : '';
  const input =
    field.datatype === XSD + 'boolean'
      ? html`<select id="${id}" name="${id}"${required}><option value=""></option><option value="true">${t.yes}</option><option value="false">${t.no}</option></select>`
      : html`<input id="${id}" name="${id}" type="${kind.type}"${kind.step ? html` step="${kind.step}"` : ''}${required}${field.datatype === 'iri' ? html` class="resource-input" data-class="${field.class ?? ''}" placeholder="https://…"` : ''}>`;
  return html`<div class="field" data-property="${field.path}" data-datatype="${field.datatype}"${field.single ? '' : html` data-multiple="yes"`}>
<p><label for="${id}">${name}${field.required ? html` <span class="required">(${t.required})</span>` : ''}</label> ${input}
${text && html`<label for="${id}-language" class="language-label">${t.valueLanguage}</label> <input id="${id}-language" name="${id}-language" class="language-input" list="language-tags" size="6" pattern="[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*"${field.datatype === LANG_STRING ? ' required' : ''}>`}
<span class="datatype" title="${field.datatype === 'iri' ? field.class ?? '' : field.datatype}">${kindName(field.datatype, t) ?? labelOf(field.datatype, language, labels)}</span></p>
</div>`;
}

/** The name of a datatype the property form also offers (messages.ts `valueKinds`), in the page's language. */
function kindName(datatype: string, t: Messages): string | undefined {
  if (datatype === 'iri') return t.valueKinds.iri;
  if (datatype === '' || datatype === XSD + 'string') return t.valueKinds.text;
  if (INTEGERS.includes(datatype)) return t.valueKinds.integer;
  if (DECIMALS.includes(datatype)) return t.valueKinds.decimal;
  const known = { [XSD + 'date']: t.valueKinds.date, [XSD + 'dateTime']: t.valueKinds.dateTime, [XSD + 'boolean']: t.valueKinds.boolean };
  return known[datatype];
}

/** The language tags offered for text inputs (one list a page). */
export function languageTags(): Html {
  return html`<datalist id="language-tags">${LANGUAGE_TAGS.map((tag) => html`<option value="${tag}"></option>`)}</datalist>`;
}

/** The properties the property form offers, by label (the IRI may still be typed): a select the script filters as one types. */
export function propertyChoices(choices: readonly PropertyChoice[], drawn: Drawn): Html {
  const { t, language, labels } = drawn;
  const seen = new Set<string>();
  const options = choices
    .filter((c) => !seen.has(c.iri) && seen.add(c.iri))
    .map((c) => ({ ...c, label: labelOf(c.iri, language, labels) }))
    .sort((a, b) => a.label.localeCompare(b.label, language));
  return html`<p class="property-picker"><span class="property-search" hidden><label for="property-search">${t.findProperty}</label> <input id="property-search" type="search" autocomplete="off"></span>
<label for="property-choice" class="visually-hidden">${t.property}</label> <select id="property-choice"><option value="">${t.chooseProperty}</option>${options.map((c) => html`<option value="${c.iri}" data-datatype="${c.datatype}" title="${c.iri}">${c.label} (${shortIri(c.iri)})</option>`)}</select></p>`;
}

/** An IRI as `namespace-end:local` for telling apart two properties with one label. */
function shortIri(iri: string): string {
  const cut = Math.max(iri.lastIndexOf('#'), iri.lastIndexOf('/'));
  const namespace = iri.slice(0, cut).replace(/\/$/, '');
  return `${namespace.slice(namespace.lastIndexOf('/') + 1)}:${iri.slice(cut + 1)}`;
}

/** The words the scripts say after a write, in the page's language: a data block (not run: CSP allows no inline script, and none is needed to read it). */
export function scriptMessages(t: Messages): Html {
  // `<` escaped: nothing in the block can end it
  return raw(`<script type="${JSON_TYPE}" id="ui-messages">${JSON.stringify(t.writeOutcomes).replace(/</g, '\\u003c')}</script>`);
}
