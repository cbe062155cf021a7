/**
 * The CPU-heavy half of a document write, as one pure function: parse the body, apply the
 * operation to the current graph (replace, append, or a PATCH update), add the server's metadata
 * (SPEC §2.2) and produce the canonical bytes. It runs in the composer's workers, with a deadline,
 * so a write's parsing and canonicalisation never hold up the main thread or another write.
 */
import type { Quad } from '@rdfjs/types';
import { canonicalBytes, deepLimits, shallowCanonicalBytes } from '../rdf/canonical.js';
import { parseRequestBody, TURTLE } from '../rdf/formats.js';
import { linesAbout } from '../rdf/canonical-lines.js';
import { parseRdf } from '../rdf/ntriples.js';
import { asksForContainer, readMetadata, withMetadata, type Metadata } from './metadata.js';
import { applyUpdate, validateUpdate } from './patch.js';

export interface ComposeInput {
  method: 'PUT' | 'POST' | 'PATCH';
  url: string;
  /** The parent container's URL; undefined for the root. */
  parentUrl: string | undefined;
  /** The current canonical N-Triples; undefined when the document is being created. */
  existing: string | undefined;
  /** PUT and POST: the request body and its media type. */
  body?: { text: string; mediaType: string };
  /** PATCH: the SPARQL update (validated here: SPEC §4.2). */
  update?: string;
  agent: string | undefined;
  /** dct:modified (and dct:created for a new document). */
  now: string;
}

async function bodyQuads(body: ComposeInput['body'], url: string): Promise<Quad[]> {
  if (!body) return [];
  if (body.mediaType === TURTLE && body.text.trim() === '') return []; // SPEC §2.2.1: an empty body creates an item
  return parseRequestBody(body.text, body.mediaType, url);
}

/**
 * The new canonical bytes, or, when alike blank nodes need deep labelling, the graph to label
 * (canonical.ts): the caller sends it where a costly graph holds up no other write.
 */
export async function composeDocument(input: ComposeInput): Promise<Buffer | { deep: string }> {
  const { method, url, existing } = input;
  if (method === 'PATCH') validateUpdate(input.update ?? '', url);
  const sent = await bodyQuads(input.body, url); // parsed first: a syntax error is reported as such
  // A PUT replaces the content: of the stored document it needs only the server's own triples
  // about the document, the lines of canonical N-Triples that start with its IRI
  const existingGraph = existing === undefined ? [] : parseRdf(method === 'PUT' ? linesAbout(existing, url) : existing);
  let graph: readonly Quad[];
  if (method === 'PUT') graph = sent;
  else if (method === 'POST') graph = [...existingGraph, ...sent];
  else graph = applyUpdate(existing!, input.update!, url);
  const metadata: Metadata = (existing !== undefined ? readMetadata(existingGraph, url) : undefined) ?? {
    kind: input.parentUrl === undefined ? 'root' : asksForContainer(existing === undefined ? graph : existingGraph, url) ? 'container' : 'item',
    created: input.now,
    creator: input.agent,
    owner: input.agent,
  };
  return shallowCanonicalBytes(withMetadata(graph, { documentUrl: url, parentUrl: input.parentUrl, metadata, modified: input.now }));
}

/** A graph's canonical bytes with deep labelling (the labelling worker's job). */
export function labelDeeply(ntriples: string): Promise<Buffer> {
  return canonicalBytes(parseRdf(ntriples), deepLimits);
}

/** composeDocument with any deep labelling done in-process: for tests and tools, not for a server. */
export async function composeInProcess(input: ComposeInput): Promise<Buffer> {
  const composed = await composeDocument(input);
  return Buffer.isBuffer(composed) ? composed : labelDeeply(composed.deep);
}
