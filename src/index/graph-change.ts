/**
 * A document's graph changed from one version to the next as lines to delete and lines to add
 * (engine.ts GraphReplacement.change), for an index on a SPARQL server: the engine then parses and
 * indexes the few lines that changed rather than the whole graph. Pure: text in, text out.
 */
import { lineDifference, linesOf } from '../rdf/canonical-lines.js';

/**
 * The lines that take a graph holding exactly `before` to `after` (both N-Triples as indexed,
 * blank nodes scoped), or undefined when the change is no smaller than the graph, or either
 * version has blank nodes (SPARQL's DELETE DATA takes none, and INSERT DATA makes its own fresh)
 * or \u escapes (an IRI written two ways would not be seen as one).
 *
 * Deleting a line deletes its triple, which a kept line may also stand for: the same triple written
 * otherwise (a file edited by hand: other spacing), or a literal the engine takes as the same term
 * (Fuseki's TDB2 stores "042"^^xsd:integer and "42"^^xsd:integer as one, Oxigraph normalises numbers
 * too). So every kept line under the subject and predicate of a removed line is added again after
 * the deletion: whatever the engine deleted with it comes back.
 */
export function graphChange(before: string, after: string): { removed: string; added: string } | undefined {
  if (/_:|\\[uU]/.test(before) || /_:|\\[uU]/.test(after)) return undefined;
  const { removed, added } = lineDifference(before, after);
  const touched = new Set(removed.map(subjectPredicate));
  const addedLines = new Set(added);
  const lines = linesOf(after);
  const kept = touched.size === 0 ? [] : lines.filter((line) => !addedLines.has(line) && touched.has(subjectPredicate(line)));
  const adding = [...added, ...kept];
  if (removed.length + adding.length >= lines.length) return undefined;
  const text = (part: string[]) => (part.length ? part.join('\n') + '\n' : '');
  return { removed: text(removed), added: text(adding) };
}

/** A line's subject and predicate IRIs as one key, whatever the spacing between them (IRIs hold no white space). */
function subjectPredicate(line: string): string {
  const [subject, predicate] = line.trimStart().split(/[ \t]+/, 2);
  return `${subject} ${predicate}`;
}
