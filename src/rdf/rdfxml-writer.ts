/**
 * A small RDF/XML writer: one `rdf:Description` per subject, properties as elements, literals with
 * `xml:lang` or `rdf:datatype`, and lexical forms exactly as stored (a store-based writer would
 * normalise `"01"^^xsd:integer` to `"1"`). Predicates are split into namespace and local name; a
 * predicate that has no XML local name cannot be written in RDF/XML and is refused. Pure.
 */
import type { Quad, Term } from '@rdfjs/types';
import { LodestoneError } from '../errors.js';
import { ns } from './namespaces.js';

const XSD_STRING = ns.xsd + 'string';
const LANG_STRING = ns.rdf + 'langString';
const localName = /[A-Za-z_\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C-\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD][\w.\-\u00B7\u00C0-\uFFFD]*$/;
// XML 1.0 allows no C0 control characters but tab, newline and carriage return
const forbidden = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

function escape(text: string): string {
  if (forbidden.test(text)) throw new LodestoneError('SyntaxError', 'a literal holds a control character that RDF/XML cannot carry; ask for another format');
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/\r/g, '&#13;');
}

function subjectAttribute(term: Term): string {
  return term.termType === 'BlankNode' ? `rdf:nodeID="${escape(term.value)}"` : `rdf:about="${escape(term.value)}"`;
}

export function writeRdfXml(quads: readonly Quad[]): string {
  const prefixes = new Map<string, string>([[ns.rdf, 'rdf']]);
  for (const [prefix, iri] of Object.entries(ns)) if (!prefixes.has(iri)) prefixes.set(iri, prefix);
  const used = new Set<string>([ns.rdf]);
  const qname = (iri: string): string => {
    const match = localName.exec(iri);
    if (!match || match.index === 0) throw new LodestoneError('SyntaxError', `the predicate <${iri}> has no XML local name, so the graph cannot be written as RDF/XML; ask for another format`);
    const namespace = iri.slice(0, match.index);
    if (!prefixes.has(namespace)) prefixes.set(namespace, `ns${prefixes.size}`);
    used.add(namespace);
    return `${prefixes.get(namespace)}:${match[0]}`;
  };
  const bySubject = new Map<string, Quad[]>();
  for (const q of quads) {
    const key = `${q.subject.termType}:${q.subject.value}`;
    bySubject.set(key, [...(bySubject.get(key) ?? []), q]);
  }
  const body: string[] = [];
  for (const group of bySubject.values()) {
    body.push(`  <rdf:Description ${subjectAttribute(group[0]!.subject)}>`);
    for (const q of group) {
      const name = qname(q.predicate.value);
      const o = q.object;
      if (o.termType === 'NamedNode') body.push(`    <${name} rdf:resource="${escape(o.value)}"/>`);
      else if (o.termType === 'BlankNode') body.push(`    <${name} rdf:nodeID="${escape(o.value)}"/>`);
      else if (o.termType === 'Literal') {
        const attribute = o.language
          ? ` xml:lang="${escape(o.language)}"`
          : o.datatype.value === XSD_STRING || o.datatype.value === LANG_STRING
            ? ''
            : ` rdf:datatype="${escape(o.datatype.value)}"`;
        body.push(`    <${name}${attribute}>${escape(o.value)}</${name}>`);
      }
    }
    body.push('  </rdf:Description>');
  }
  const declarations = [...used].map((iri) => ` xmlns:${prefixes.get(iri)}="${escape(iri)}"`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<rdf:RDF${declarations}>\n${body.join('\n')}${body.length ? '\n' : ''}</rdf:RDF>\n`;
}
