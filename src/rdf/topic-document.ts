/**
 * The Turtle documents the server writes itself (an agent, its key, the default authorizations and
 * groups): prefixes, the document (`<>`, maybe with a dct:title) whose foaf:primaryTopic is
 * `<#this>`, then `<#this>`'s statements, one a line. Terms are written as N-Triples, so any IRI or
 * text is safe in them. Pure.
 */
import { DataFactory } from 'n3';
import { ns } from './namespaces.js';
import { termToNTriples } from './ntriples.js';

/** An IRI as a Turtle term. */
export const iri = (value: string): string => termToNTriples(DataFactory.namedNode(value));
/** A plain string as a Turtle literal. */
export const text = (value: string): string => termToNTriples(DataFactory.literal(value));

/**
 * A document about `<#this>`: `prefixes` declared, `title` its dct:title when given, `topic` the
 * predicate-object pairs of `<#this>` (`a foaf:Agent`, `foaf:name "…"`), and `more` after them.
 */
export function topicDocument(prefixes: ReadonlyArray<keyof typeof ns>, title: string | undefined, topic: readonly string[], more = ''): string {
  const declared = prefixes.map((name) => `@prefix ${name}: <${ns[name]}> .\n`).join('');
  const about = title === undefined ? '<> foaf:primaryTopic <#this> .' : `<> dct:title ${text(title)} ;\n  foaf:primaryTopic <#this> .`;
  return `${declared}\n${about}\n\n<#this> ${topic.join(' ;\n  ')} .\n${more}`;
}
