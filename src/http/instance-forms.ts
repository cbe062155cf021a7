/**
 * What a document page offers from the namespace ontology (ontology/class-forms.ts): on a
 * container of the end-user dataspace the agent may append to, its classes and the form of the one
 * asked for by `forClass` (only a class of the ontology is ever put in a query); to an agent with
 * Write, the properties to pick by label. Read from the ontology as last built (pages never wait
 * for one), in its query worker; a failed query offers no form, the page is drawn all the same.
 */
import { classForm, COMMON_PROPERTIES, ontologyClasses, ontologyProperties, type OntologyQuery, type PropertyChoice } from '../ontology/class-forms.js';
import type { InstanceForms } from '../pages/instance-form.js';
import { RESULTS_JSON } from '../rdf/media-types.js';
import type { Context } from './state.js';

/** SPARQL over the namespace ontology as last built, or undefined when it holds nothing. */
function ontologyQuery(ctx: Context): OntologyQuery | undefined {
  const { runtime } = ctx.state;
  const ontology = runtime.ontology;
  const closure = ontology?.lastBuilt();
  if (!ontology || !closure || closure.ntriples === '') return undefined;
  return async (query) => String(await ontology.query(closure, query, RESULTS_JSON, runtime.documents.base));
}

/** The class picker's classes and the chosen class's form, for a container of the end-user dataspace. */
export async function instanceFormsOf(ctx: Context): Promise<InstanceForms | undefined> {
  const query = ctx.state.runtime.role === 'end-user' ? ontologyQuery(ctx) : undefined;
  if (!query) return undefined;
  try {
    const classes = await ontologyClasses(query);
    const asked = new URLSearchParams(ctx.querystring).get('forClass');
    const chosen = asked !== null && classes.includes(asked) ? await classForm(query, asked) : undefined;
    return { classes, chosen };
  } catch {
    return undefined;
  }
}

/** The properties the property form offers: the ontology's, then the common vocabularies'. */
export async function propertyChoicesOf(ctx: Context): Promise<PropertyChoice[]> {
  const query = ontologyQuery(ctx);
  const own = query ? await ontologyProperties(query).catch(() => []) : [];
  return [...own, ...COMMON_PROPERTIES];
}
