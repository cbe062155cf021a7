/**
 * RDF/POST (application/x-www-form-urlencoded, https://atomgraph.github.io/RDF-POST/): an RDF
 * graph as an ordered list of form fields. `rdf=` opens the body; `v`/`n` declare namespaces;
 * `sb|su|sv|sn` set the subject, `pu|pv|pn` the predicate, `ob|ou|ov|on|ol` add an object, and
 * `lt` (datatype) or `ll` (language) qualify the literal of the next `ol`. Pure: no I/O.
 */
import type { Quad } from '@rdfjs/types';
import { DataFactory } from 'n3';
import { LodestoneError } from '../errors.js';

const { namedNode, blankNode, literal, quad } = DataFactory;

function syntax(message: string, field: number): LodestoneError {
  return new LodestoneError('SyntaxError', `RDF/POST: ${message} (field ${field})`, { line: 1, column: field });
}

/** Parses an RDF/POST body; relative IRIs resolve against `base`. */
export function parseRdfPost(body: string, base: string): Quad[] {
  const fields = [...new URLSearchParams(body)];
  if (fields.length === 0 || fields[0]![0] !== 'rdf') throw syntax('the body must start with "rdf="', 1);
  const resolve = (iri: string, at: number) => {
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
  let datatype: string | undefined;
  let language: string | undefined;
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
      case 'lt':
        datatype = resolve(value, at).value;
        break;
      case 'll':
        language = value;
        break;
      case 'ol':
        object(language ? literal(value, language) : datatype ? literal(value, namedNode(datatype)) : literal(value), at);
        datatype = undefined;
        language = undefined;
        break;
      default:
        throw syntax(`unknown field "${key}"`, at);
    }
  }
  return quads;
}
