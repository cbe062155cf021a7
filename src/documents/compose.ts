/**
 * The CPU-heavy half of a document write, as one pure function: parse the body, apply the
 * operation to the current graph (replace, append, or a PATCH update), add the server's metadata
 * (SPEC §2.2) and produce the canonical bytes. It runs in the composer's workers, with a deadline,
 * so a write's parsing and canonicalisation never hold up the main thread or another write.
 */
import type { Quad } from '@rdfjs/types';
import { canonicalBytes, deepLimits, shallowCanonicalBytes } from '../rdf/canonical.js';
import { parseRequestBody, TURTLE } from '../rdf/formats.js';
import { linesAbout, literalObject, replaceLiteral } from '../rdf/canonical-lines.js';
import { ns } from '../rdf/namespaces.js';
import { parseRdf } from '../rdf/ntriples.js';
import { LodestoneError } from '../errors.js';
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
  /**
   * Whether the agent may read the document (default: yes). One that may not gets neither an
   * update that reads it (refused) nor "nothing changed" (its PATCH always makes a new version):
   * either would tell it what it may not read, a triple or a value at a time.
   */
  readable?: boolean;
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
  const readable = input.readable ?? true;
  if (method === 'PATCH' && validateUpdate(input.update ?? '', url).reads && !readable) {
    throw new LodestoneError('Forbidden', `${input.agent ?? 'anonymous agents'} has no Read access to ${url}: an update whose WHERE reads the document needs Read as well as Write (a WHERE {} does not read it)`);
  }
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
  const composed = await shallowCanonicalBytes(withMetadata(graph, { documentUrl: url, parentUrl: input.parentUrl, metadata, modified: input.now }));
  return method === 'PATCH' && readable && Buffer.isBuffer(composed) ? unlessUnchanged(composed, existing!, url, input.now) : composed;
}

/**
 * A PATCH whose update changes no triple (it matched nothing, or added what was there), by an agent
 * that may read the document, leaves the document as it was: not even dct:modified changes, so there is no commit and the ETag stays the
 * one the client sent (which tells it nothing changed). The canonical line of dct:modified sorts
 * where it did, so swapping its time back gives the stored bytes exactly when nothing else changed.
 */
function unlessUnchanged(composed: Buffer, existing: string, url: string, now: string): Buffer {
  const before = literalObject(existing, url, ns.dct + 'modified');
  if (before === undefined) return composed;
  return replaceLiteral(composed.toString('utf8'), url, ns.dct + 'modified', now, before) === existing ? Buffer.from(existing, 'utf8') : composed;
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
