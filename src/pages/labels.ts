/**
 * Human labels for the IRIs a page shows. In order: a label the page's own graph gives the term
 * (TITLE_PREDICATES of rdf/namespaces.ts, in the page's language first), a label of the
 * vocabularies the server knows (`vocabularyLabels`, filled from the shipped vocabularies and the
 * ontology closure; never fetched per view), then the term's local name made readable
 * (`primaryTopic` → "primary topic", `has_parent` → "has parent"; a `#this` names its document).
 */
import type { Language } from './messages.js';


/** Labels by IRI and language ('' for a label without one), from vocabularies the server holds. */
const vocabularyLabels = new Map<string, Map<string, string>>();

let version = 0;

/** Changes whenever labels are added: a page drawn before may name things differently now. */
export function labelsVersion(): number {
  return version;
}

/** Adds the labels of a vocabulary (or of an ontology document) to those every page may use. */
export function addVocabularyLabels(labels: Iterable<{ iri: string; language: string; label: string }>): void {
  version++;
  for (const { iri, language, label } of labels) {
    let byLanguage = vocabularyLabels.get(iri);
    if (!byLanguage) vocabularyLabels.set(iri, (byLanguage = new Map()));
    if (!byLanguage.has(language)) byLanguage.set(language, label);
  }
}

/** The best of labels by language: the page's language, then English, then one without a language, then any. */
export function pickLabel(byLanguage: ReadonlyMap<string, string> | undefined, language: Language): string | undefined {
  if (!byLanguage || byLanguage.size === 0) return undefined;
  return byLanguage.get(language) ?? byLanguage.get('en') ?? byLanguage.get('') ?? byLanguage.values().next().value;
}

/** The local name of an IRI (after the last `#` or `/`), made readable. */
export function localName(iri: string): string {
  if (iri.endsWith('#this')) return localName(iri.slice(0, -5)); // a document's primary topic: the document's name
  const cut = Math.max(iri.lastIndexOf('#'), iri.lastIndexOf('/', iri.length - 2));
  const name = decodeURIComponentSafe(iri.slice(cut + 1).replace(/\/$/, ''));
  if (!name) return iri;
  return name
    .replace(/_+/g, ' ')
    .replace(/-/g, /\d/.test(name) ? '-' : ' ') // words-like-these, not an id such as 1fe459fa-dc0f
    .replace(/([a-z0-9])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`)
    .trim();
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The label of a term: from `own` (the page's graph), the vocabularies, or its local name. */
export function labelOf(iri: string, language: Language, own?: ReadonlyMap<string, ReadonlyMap<string, string>>): string {
  return pickLabel(own?.get(iri), language) ?? pickLabel(vocabularyLabels.get(iri), language) ?? localName(iri);
}

// The terms every page shows, so that they read well before any vocabulary is loaded.
addVocabularyLabels(
  (
    [
      ['http://www.w3.org/1999/02/22-rdf-syntax-ns#type', 'type', 'tipo'],
      ['http://www.w3.org/2000/01/rdf-schema#label', 'label', 'etiqueta'],
      ['http://www.w3.org/2000/01/rdf-schema#comment', 'comment', 'comentario'],
      ['http://www.w3.org/2000/01/rdf-schema#seeAlso', 'see also', 'véase también'],
      ['http://purl.org/dc/terms/title', 'title', 'título'],
      ['http://purl.org/dc/terms/description', 'description', 'descripción'],
      ['http://purl.org/dc/terms/created', 'created', 'creado'],
      ['http://purl.org/dc/terms/modified', 'modified', 'modificado'],
      ['http://purl.org/dc/terms/creator', 'creator', 'creador'],
      ['http://xmlns.com/foaf/0.1/name', 'name', 'nombre'],
      ['http://xmlns.com/foaf/0.1/primaryTopic', 'primary topic', 'tema principal'],
      ['http://xmlns.com/foaf/0.1/isPrimaryTopicOf', 'is primary topic of', 'es tema principal de'],
      ['http://xmlns.com/foaf/0.1/maker', 'maker', 'autor'],
      ['http://xmlns.com/foaf/0.1/Person', 'Person', 'Persona'],
      ['http://xmlns.com/foaf/0.1/Agent', 'Agent', 'Agente'],
      ['http://xmlns.com/foaf/0.1/Document', 'Document', 'Documento'],
      ['http://rdfs.org/sioc/ns#has_parent', 'has parent', 'tiene padre'],
      ['http://rdfs.org/sioc/ns#has_container', 'has container', 'tiene contenedor'],
      ['https://w3id.org/atomgraph/linkeddatahub/document-hierarchy#Container', 'Container', 'Contenedor'],
      ['https://w3id.org/atomgraph/linkeddatahub/document-hierarchy#Item', 'Item', 'Elemento'],
      ['http://www.w3.org/2004/02/skos/core#prefLabel', 'preferred label', 'etiqueta preferida'],
    ] as const
  ).flatMap(([iri, english, spanish]) => [
    { iri, language: 'en', label: english },
    { iri, language: 'es', label: spanish },
  ]),
);
