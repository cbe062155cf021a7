/**
 * The RDF resource of an error response (SPEC §2.4): one blank node of type http:Response with a
 * title (and the same in the client's language, when it asked for one the pages speak), the reason
 * phrase, the status code resource and its numeric value. Pure.
 */
import type { Quad } from '@rdfjs/types';
import { DataFactory } from 'n3';
import { ns, RDF_TYPE } from './namespaces.js';

const { namedNode, blankNode, literal, quad } = DataFactory;

// Names of the W3C HTTP-in-RDF status code vocabulary where it has one (it follows RFC 2616).
const vocabularyNames: Record<number, string> = { 413: 'RequestEntityTooLarge', 414: 'RequestURITooLong', 416: 'RequestedRangeNotSatisfiable' };

export function statusCodeResource(status: number, reason: string): string {
  const name = vocabularyNames[status] ?? reason.replace(/[^A-Za-z0-9 ]/g, '').replace(/(^|\s)(\w)/g, (_, _s, c: string) => c.toUpperCase());
  return ns.sc + name;
}

/** `translated`: the title in the language the client asked for (Accept-Language), a second title tagged with it. */
export function errorResource(status: number, reason: string, title: string, translated?: { language: string; title: string }): Quad[] {
  const response = blankNode('response');
  return [
    quad(response, namedNode(RDF_TYPE), namedNode(ns.http + 'Response')),
    quad(response, namedNode(ns.dct + 'title'), literal(title)),
    ...(translated ? [quad(response, namedNode(ns.dct + 'title'), literal(translated.title, translated.language))] : []),
    quad(response, namedNode(ns.http + 'reasonPhrase'), literal(reason)),
    quad(response, namedNode(ns.http + 'sc'), namedNode(statusCodeResource(status, reason))),
    quad(response, namedNode(ns.http + 'statusCodeValue'), literal(String(status), namedNode(ns.xsd + 'long'))),
  ];
}
