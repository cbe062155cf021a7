/**
 * Human labels for the IRIs a page shows. In order: a label the page's own graph gives the term
 * (TITLE_PREDICATES of rdf/namespaces.ts, in the page's language first), the labels of the page's
 * dataspace (`Labels`: the terms every page shows and the shipped vocabularies, then the dataspace's
 * own namespace ontology, which names its own terms and never renames a common one), then the
 * term's local name made readable (`primaryTopic` → "primary topic"; a `#this` names its document).
 * Tables are values built by the composition root and passed in: nothing here is global state.
 */
import { literalsOf } from '../rdf/canonical-lines.js';
import { ns, RDF_TYPE, TITLE_PREDICATES } from '../rdf/namespaces.js';
import type { Language } from './messages.js';

export interface LabelEntry {
  iri: string;
  /** '' for a label without a language. */
  language: string;
  label: string;
}

/** Labels by IRI and language; the first label added for an IRI in a language is kept. */
export class LabelTable {
  private readonly byIri = new Map<string, Map<string, string>>();
  /** Changes whenever labels are added. */
  version = 0;

  constructor(entries: Iterable<LabelEntry> = []) {
    this.add(entries);
  }

  add(entries: Iterable<LabelEntry>): void {
    this.version++;
    for (const { iri, language, label } of entries) {
      let byLanguage = this.byIri.get(iri);
      if (!byLanguage) this.byIri.set(iri, (byLanguage = new Map()));
      if (!byLanguage.has(language)) byLanguage.set(language, label);
    }
  }

  get(iri: string): ReadonlyMap<string, string> | undefined {
    return this.byIri.get(iri);
  }

  /** Every label, to rebuild the table elsewhere (a worker drawing pages). */
  entries(): LabelEntry[] {
    return [...this.byIri].flatMap(([iri, byLanguage]) => [...byLanguage].map(([language, label]) => ({ iri, language, label })));
  }
}

/** One table of a page's labels and the version it is at (for a worker that keeps tables by version). */
export interface LabelLayer {
  key: string;
  table: LabelTable;
}

/** The labels a page may use: layers in order, the first that names an IRI in a language winning. */
export class Labels {
  constructor(readonly layers: readonly LabelLayer[]) {}

  /** What every layer holds for the IRI, by language (an earlier layer's label for a language wins). */
  get(iri: string): ReadonlyMap<string, string> | undefined {
    let found: ReadonlyMap<string, string> | undefined;
    let merged: Map<string, string> | undefined;
    for (const { table } of this.layers) {
      const byLanguage = table.get(iri);
      if (!byLanguage) continue;
      if (!found) {
        found = byLanguage;
        continue;
      }
      merged ??= new Map(found);
      for (const [language, label] of byLanguage) if (!merged.has(language)) merged.set(language, label);
    }
    return merged ?? found;
  }

  /** The versions of the layers: a page drawn with other labels may name things differently. */
  get key(): string {
    return this.layers.map((layer) => layer.key).join(' ');
  }
}

/** The predicates whose literals label a term for the pages (a vocabulary's own IRI by its title: FOAF's is a dc:title). */
export const LABEL_PREDICATES: ReadonlySet<string> = new Set([ns.rdfs + 'label', 'http://www.w3.org/2004/02/skos/core#prefLabel', 'http://purl.org/dc/elements/1.1/title']);

/** Literals of LABEL_PREDICATES (as rdf/canonical-lines.ts `literalsOf` reads them) as labels. */
export function asLabels(literals: Iterable<{ subject: string; value: string; language: string }>): LabelEntry[] {
  return [...literals].map((l) => ({ iri: l.subject, language: l.language, label: l.value }));
}

/** The labels in canonical N-Triples (a namespace ontology's). */
export function labelsIn(ntriples: string): LabelEntry[] {
  return asLabels(literalsOf(ntriples, LABEL_PREDICATES));
}

/** The namespace ontology a dataspace's pages take labels from: a version already built, or none. */
export type OntologyVersion = () => { key: string; ntriples: string } | undefined;

/**
 * The labels of one dataspace's pages: the shared table (the terms every page shows, the shipped
 * vocabularies) and the labels of the dataspace's namespace ontology, replaced (never added to) when
 * the ontology changes. Only a version already built is read: a page never waits for an ontology.
 */
export class DataspaceLabels {
  private ontology: LabelLayer = { key: 'none', table: new LabelTable() };

  constructor(
    private readonly shared: LabelTable,
    private readonly closure: OntologyVersion,
  ) {}

  current(): Labels {
    const built = this.closure();
    if (built && built.key !== this.ontology.key) this.ontology = { key: built.key, table: new LabelTable(labelsIn(built.ntriples)) };
    return new Labels([{ key: `shared-${this.shared.version}`, table: this.shared }, this.ontology]);
  }
}

/** Titles by IRI, then by language (titlesOf). */
export type Titles = ReadonlyMap<string, ReadonlyMap<string, string>>;

/**
 * The titles a graph gives its IRIs, by IRI and language: of TITLE_PREDICATES, the first that gives
 * one (dct:title before rdfs:label, skos:prefLabel, foaf:name). The one naming rule of the pages: a
 * document's heading, a link to it from another page, a person in a header or a history.
 */
export function titlesOf(literals: Iterable<{ subject: string; predicate: string; value: string; language: string }>): Titles {
  const titles = new Map<string, Map<string, string>>();
  const ranks = new Map<string, number>();
  for (const { subject, predicate, value, language } of literals) {
    const rank = TITLE_PREDICATES.indexOf(predicate);
    if (rank < 0) continue;
    let byLanguage = titles.get(subject);
    if (!byLanguage) titles.set(subject, (byLanguage = new Map()));
    const key = `${subject}\0${language}`;
    if ((ranks.get(key) ?? Infinity) > rank) {
      byLanguage.set(language, value);
      ranks.set(key, rank);
    }
  }
  return titles;
}

/** The title of `iri` in `titles` (titlesOf), as its page heads it: a document by its `#this` first. */
export function titleIn(titles: ReadonlyMap<string, ReadonlyMap<string, string>>, iri: string, language: Language): string | undefined {
  return (iri.includes('#') ? undefined : pickLabel(titles.get(`${iri}#this`), language)) ?? pickLabel(titles.get(iri), language);
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

/** The label of a term: from `own` (the page's graph), the dataspace's labels, or its local name. */
export function labelOf(iri: string, language: Language, labels: Labels, own?: ReadonlyMap<string, ReadonlyMap<string, string>>): string {
  return pickLabel(own?.get(iri), language) ?? pickLabel(labels.get(iri), language) ?? localName(iri);
}

/** The terms every page shows, so that they read well before any vocabulary is loaded (the first entries of the shared table). */
export const PAGE_TERMS: readonly LabelEntry[] = (
  [
    [RDF_TYPE, 'type', 'tipo'],
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
    // the access control terms the admin dataspace's pages show (authorizations, groups, agents, access requests)
    ['http://www.w3.org/ns/auth/acl#owner', 'owner', 'propietario'],
    ['http://www.w3.org/ns/auth/acl#Authorization', 'authorization', 'autorización'],
    ['http://www.w3.org/ns/auth/acl#agent', 'agent', 'agente'],
    ['http://www.w3.org/ns/auth/acl#agentClass', 'agent class', 'clase de agentes'],
    ['http://www.w3.org/ns/auth/acl#agentGroup', 'agent group', 'grupo de agentes'],
    ['http://www.w3.org/ns/auth/acl#accessTo', 'access to', 'acceso a'],
    ['http://www.w3.org/ns/auth/acl#accessToClass', 'access to class', 'acceso a la clase'],
    ['http://www.w3.org/ns/auth/acl#default', 'default', 'por defecto'],
    ['http://www.w3.org/ns/auth/acl#mode', 'mode', 'modo'],
    ['http://www.w3.org/ns/auth/acl#delegates', 'delegates', 'delega en'],
    ['http://www.w3.org/ns/auth/acl#Read', 'read', 'lectura'],
    ['http://www.w3.org/ns/auth/acl#Write', 'write', 'escritura'],
    ['http://www.w3.org/ns/auth/acl#Append', 'append', 'adición'],
    ['http://www.w3.org/ns/auth/acl#Control', 'control', 'control'],
    ['https://w3id.org/atomgraph/linkeddatahub/admin/acl#AuthorizationRequest', 'authorization request', 'solicitud de autorización'],
    ['https://w3id.org/atomgraph/linkeddatahub/admin/acl#requestAccessTo', 'request access to', 'pide acceso a'],
    ['https://w3id.org/atomgraph/linkeddatahub/admin/acl#requestAgent', 'requesting agent', 'agente que pide'],
    ['https://w3id.org/atomgraph/linkeddatahub/admin/acl#requestMode', 'requested mode', 'modo pedido'],
    ['http://xmlns.com/foaf/0.1/Group', 'Group', 'Grupo'],
    ['http://xmlns.com/foaf/0.1/member', 'member', 'miembro'],
    ['http://xmlns.com/foaf/0.1/mbox', 'personal mailbox', 'buzón de correo personal'],
    ['http://www.w3.org/ns/auth/cert#key', 'key', 'clave'],
  ] as const
).flatMap(([iri, english, spanish]) => [
  { iri, language: 'en', label: english },
  { iri, language: 'es', label: spanish },
]);
