/**
 * The schema.org JSON-LD context, derived once, on first use, from the schema.org vocabulary that
 * the schema-dts package ships (Apache-2.0: every property with its range), by the rule of
 * schema.org's own generator of https://schema.org/docs/jsonldcontext.jsonld. Nothing is fetched:
 * reading that installed file is this module's one I/O, static data as an import is (rdf/ is
 * otherwise pure), and the frozen result is a constant, not state.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ns } from './namespaces.js';

export type JsonObject = { readonly [key: string]: unknown };

const SCHEMA = 'http://schema.org/';

// The W3C and DCMI prefixes the real context declares (its generator's rdflib default bindings),
// so that "dc:title" or "skos:note" expand as they do there. None is the name of a schema.org term.
const prefixes: Record<string, string> = {
  schema: SCHEMA,
  rdf: ns.rdf,
  rdfs: ns.rdfs,
  xsd: ns.xsd,
  owl: 'http://www.w3.org/2002/07/owl#',
  dc: 'http://purl.org/dc/elements/1.1/',
  dcterms: ns.dct,
  dcmitype: 'http://purl.org/dc/dcmitype/',
  dcam: 'http://purl.org/dc/dcam/',
  dcat: 'http://www.w3.org/ns/dcat#',
  doap: ns.doap,
  foaf: ns.foaf,
  odrl: 'http://www.w3.org/ns/odrl/2/',
  org: 'http://www.w3.org/ns/org#',
  prof: 'http://www.w3.org/ns/dx/prof/',
  prov: ns.prov,
  qb: 'http://purl.org/linked-data/cube#',
  sh: 'http://www.w3.org/ns/shacl#',
  skos: 'http://www.w3.org/2004/02/skos/core#',
  sosa: 'http://www.w3.org/ns/sosa/',
  ssn: 'http://www.w3.org/ns/ssn/',
  time: 'http://www.w3.org/2006/time#',
  vann: 'http://purl.org/vocab/vann/',
  void: 'http://rdfs.org/ns/void#',
  csvw: 'http://www.w3.org/ns/csvw#',
};

// One property declaration of schema-dts: `"name"?: SchemaValue<Range | Range, "name">;`.
const PROPERTY = /"([A-Za-z0-9_]+)"\?: SchemaValue<([^>]+?), "\1">;/g;

/**
 * The context from the text of schema-dts's `schema.d.ts`. What it holds, as the real one does:
 * `@vocab` http://schema.org/ (so every class, property and enumeration member, even ones newer
 * than the package, expands to its schema.org IRI), the aliases `id` and `type`, `HTML` for
 * rdf:HTML, the prefixes above, and a definition for each property whose range has no Text: one
 * with URL in its range takes `"@type": "@id"` (url, sameAs, image…), else one with Date
 * `"@type": schema:Date` (startDate, birthDate…). DateTime and Time are not coerced: the real
 * generator tests for "Datetime", which matches nothing. What it leaves out: the real context's
 * `{"@id": "schema:X"}` entry for every other term (@vocab expands them identically), the prefixes
 * of other vocabularies it may bind, and coercions of properties newer than the package's
 * schema.org release (their values stay literals until the package is updated).
 */
export function deriveSchemaOrgContext(dts: string): JsonObject {
  const ranges = new Map<string, Set<string>>();
  for (const [, property, range] of dts.matchAll(PROPERTY)) {
    const known = ranges.get(property!) ?? new Set<string>();
    for (const type of range!.split('|')) known.add(type.trim());
    ranges.set(property!, known);
  }
  // Well under the ~1,500 properties of schema.org: not the file this was written for.
  if (ranges.size < 1000 || !ranges.get('url')?.has('URL')) throw new Error(`schema-dts: found ${ranges.size} schema.org properties; its schema.d.ts is not in the form this module reads`);
  const context: Record<string, unknown> = { '@vocab': SCHEMA, id: '@id', type: '@type', HTML: { '@id': 'rdf:HTML' }, ...prefixes };
  for (const [property, range] of [...ranges].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (range.has('Text')) continue;
    const type = range.has('URL') ? '@id' : range.has('Date') ? `${SCHEMA}Date` : undefined;
    if (type) context[property] = Object.freeze({ '@id': `schema:${property}`, '@type': type });
  }
  return Object.freeze(context);
}

let built: JsonObject | undefined;

/** The context, built on first use from the installed schema-dts package. */
export function schemaOrgContext(): JsonObject {
  if (!built) {
    const file = createRequire(import.meta.url).resolve('schema-dts/dist/schema.d.ts');
    built = deriveSchemaOrgContext(readFileSync(file, 'utf8'));
  }
  return built;
}
