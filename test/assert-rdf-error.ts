/**
 * The RDF error resource of SPEC §2.4, checked in a response: status, media type, and the one
 * http:Response blank node with its status code, reason phrase, status-code IRI and title.
 */
import assert from 'node:assert/strict';
import { STATUS_CODES } from 'node:http';
import type { Quad } from '@rdfjs/types';
import oxigraph from 'oxigraph';
import { ns } from '../src/rdf/namespaces.js';
import type { Response } from './http-helpers.js';

/** A response header as one string (repeated values joined with `, `), or undefined. */
export function header(res: Response, name: string): string | undefined {
  const value = res.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Asserts that the response is the RDF error resource of SPEC §2.4 and returns its title: the
 * status is `status` (or any 4xx / 5xx), the Content-Type is `options.format` (Turtle by default),
 * and the body holds exactly one blank node of type http:Response with an http:statusCodeValue
 * (an xsd:long equal to the response's status), the http:reasonPhrase of that status, an http:sc
 * in the status-codes namespace and a non-empty dct:title (matching `options.title` if given).
 */
export function assertRdfError(res: Response, status: number | '4xx' | '5xx', options: { title?: RegExp; format?: string } = {}): string {
  const body = res.body.slice(0, 2000);
  if (status === '5xx') assert.ok(res.status >= 500 && res.status < 600, `expected a 5xx, got ${res.status}: ${body}`);
  else if (status === '4xx') assert.ok(res.status >= 400 && res.status < 500, `expected a 4xx, got ${res.status}: ${body}`);
  else assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${body}`);
  const format = options.format ?? 'text/turtle';
  const mediaType = (header(res, 'content-type') ?? '').split(';')[0]!.trim();
  assert.equal(mediaType, format, `the error is ${format}: ${body}`);
  const quads = oxigraph.parse(res.body, { format: mediaType, base_iri: 'https://localhost/' }) as unknown as Quad[];
  const typed = quads.filter((q) => q.predicate.value === ns.rdf + 'type' && q.object.value === ns.http + 'Response');
  assert.equal(typed.length, 1, `the error is one http:Response: ${body}`);
  const subject = typed[0]!.subject;
  assert.equal(subject.termType, 'BlankNode', 'the http:Response is a blank node');
  const values = (p: string) => quads.filter((q) => q.subject.termType === 'BlankNode' && q.subject.value === subject.value && q.predicate.value === p).map((q) => q.object);
  const [code] = values(ns.http + 'statusCodeValue');
  assert.ok(code, `the error has http:statusCodeValue: ${body}`);
  assert.equal(code.value, String(res.status));
  assert.equal(code.termType === 'Literal' && code.datatype.value, ns.xsd + 'long', `${format}: http:statusCodeValue is an xsd:long`);
  assert.equal(values(ns.http + 'reasonPhrase')[0]?.value, STATUS_CODES[res.status]);
  const sc = values(ns.http + 'sc')[0];
  assert.ok(sc?.termType === 'NamedNode' && sc.value.startsWith(ns.sc), `http:sc is ${sc?.value}`);
  const title = values(ns.dct + 'title')[0]?.value ?? '';
  assert.ok(title.length > 0, 'the error has a dct:title');
  if (options.title) assert.match(title, options.title);
  return title;
}

