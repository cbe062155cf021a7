/**
 * RDF/POST (application/x-www-form-urlencoded, https://atomgraph.github.io/RDF-POST/): an RDF
 * graph as an ordered list of form fields. `rdf=` opens the body; `v`/`n` declare namespaces;
 * `sb|su|sv|sn` set the subject, `pu|pv|pn` the predicate, `ob|ou|ov|on|ol` add an object.
 * A literal takes one qualifier, `lt` (datatype IRI) or `ll` (language), right after or right
 * before its `ol` (`literal_obj ::= '&ol=' string type_or_lang? | type_or_lang '&ol=' string`).
 * `ol=1&lt=X&ol=2` reads as AtomGraph Core's RDFPostReader reads it: a qualifier right after an
 * `ol` is that literal's, so 1 is typed and 2 is plain. A qualifier left over (no `ol` next to it,
 * or its `ol` already qualified) is a 400 where AtomGraph drops it; an empty one (an empty form
 * field) qualifies nothing. Pure: no I/O.
 */
import type { Quad } from '@rdfjs/types';
import { DataFactory } from 'n3';
import { LodestoneError } from '../errors.js';

const { namedNode, blankNode, literal, quad } = DataFactory;

// RFC 3986 §3.1: a scheme, then ":"; and what Turtle's IRIREF excludes, which no IRI holds
const ABSOLUTE = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const NOT_IN_IRI = /[\u0000-\u0020<>"{}|\\^`]/;
// The N-Triples LANGTAG production, without its "@".
const LANGUAGE_TAG = /^[a-zA-Z]+(-[a-zA-Z0-9]+)*$/;

function syntax(message: string, field: number): LodestoneError {
  return new LodestoneError('SyntaxError', `RDF/POST: ${message} (field ${field})`, { line: 1, column: field });
}

/** Parses an RDF/POST body; relative IRIs resolve against `base`. */
export function parseRdfPost(body: string, base: string): Quad[] {
  const fields = [...new URLSearchParams(body)];
  if (fields.length === 0 || fields[0]![0] !== 'rdf') throw syntax('the body must start with "rdf=": it was sent as application/x-www-form-urlencoded (RDF/POST), which is what curl --data sends when no Content-Type is given; for Turtle send Content-Type: text/turtle, for N-Triples application/n-triples', 1);
  // an absolute IRI is taken as sent (URL parsing would change it: case, percent-encoding); a relative
  // one is resolved against the base, unless it holds what no IRI reference may (RFC 3987 §2.2)
  const resolve = (iri: string, at: number) => {
    if (NOT_IN_IRI.test(iri)) throw syntax(`"${iri}" is not an IRI`, at);
    if (ABSOLUTE.test(iri)) return namedNode(iri);
    try {
      return namedNode(new URL(iri, base).href);
    } catch {
      throw syntax(`"${iri}" is not an IRI`, at);
    }
  };
  const prefixes = new Map<string, string>();
  let defaultNs = '';
  let pendingPrefix: string | undefined;
  let subject: Quad['subject'] | undefined;
  let predicate: Quad['predicate'] | undefined;
  const quads: Quad[] = [];
  const prefixed = (suffix: string, at: number) => {
    const ns = pendingPrefix === undefined ? defaultNs : prefixes.get(pendingPrefix);
    if (ns === undefined) throw syntax(`the prefix "${pendingPrefix}" is not declared`, at);
    pendingPrefix = undefined;
    return resolve(ns + suffix, at);
  };
  const object = (term: Quad['object'], at: number) => {
    if (!subject || !predicate) throw syntax('an object needs a subject and a predicate before it', at);
    quads.push(quad(subject, predicate, term));
  };
  const isQualifier = (index: number) => fields[index]?.[0] === 'lt' || fields[index]?.[0] === 'll';
  /** The literal `value` qualified by the `lt` or `ll` field at `index`, if there is one there. */
  const literalObject = (value: string, index: number): Quad['object'] => {
    if (!isQualifier(index)) return literal(value);
    const [key, qualifier] = fields[index]!;
    if (qualifier === '') return literal(value);
    if (key === 'lt') return literal(value, resolve(qualifier, index + 1));
    if (!LANGUAGE_TAG.test(qualifier)) throw syntax(`"${qualifier}" is not a language tag`, index + 1);
    return literal(value, qualifier);
  };
  for (let i = 1; i < fields.length; i++) {
    const [key, value] = fields[i]!;
    const at = i + 1;
    switch (key) {
      case 'v':
        if (pendingPrefix !== undefined) {
          prefixes.set(pendingPrefix, value);
          pendingPrefix = undefined;
        } else defaultNs = value;
        break;
      case 'n':
      case 'sn':
      case 'pn':
      case 'on':
        pendingPrefix = value;
        break;
      case 'sb':
        subject = blankNode(value);
        predicate = undefined;
        break;
      case 'su':
        subject = resolve(value, at);
        predicate = undefined;
        break;
      case 'sv':
        subject = prefixed(value, at);
        predicate = undefined;
        break;
      case 'pu':
        predicate = resolve(value, at);
        break;
      case 'pv':
        predicate = prefixed(value, at);
        break;
      case 'ob':
        object(blankNode(value), at);
        break;
      case 'ou':
        object(resolve(value, at), at);
        break;
      case 'ov':
        object(prefixed(value, at), at);
        break;
      case 'ol':
        // A qualifier right before this `ol` was the previous `ol`'s: otherwise it would have taken this one.
        object(literalObject(value, i + 1), at);
        if (isQualifier(i + 1)) i++;
        break;
      case 'lt':
      case 'll':
        if (fields[i + 1]?.[0] !== 'ol') throw syntax(`"${key}=" must come right before or right after an "ol=" field`, at);
        object(literalObject(fields[i + 1]![1], i), at + 1);
        i++;
        break;
      default:
        throw syntax(`unknown field "${key}"`, at);
    }
  }
  return quads;
}
