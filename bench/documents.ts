/**
 * Synthetic documents for the benchmarks: ~100 triples each with varied predicates and term kinds,
 * turned into canonical bytes by Lodestone's own `canonicalBytes`. Two layouts: containers of 200
 * (`graphs/c<k>/d<i>.nt`, as in LinkedDataHub dataspaces) and one flat container (`graphs/d<i>.nt`).
 */
import { DataFactory, type Quad } from 'n3';
import { canonicalBytes } from '../src/rdf/canonical.js';

const { namedNode, literal, quad } = DataFactory;

export const BASE = 'https://example.org/';
export const TRIPLES_PER_DOCUMENT = 100;
export const CONTAINER_SIZE = 200;

export type Layout = 'containers' | 'flat';

export interface DocumentFile {
  /** Repository path, e.g. `graphs/c1/d205.nt`. */
  path: string;
  /** Document path relative to the base, e.g. `c1/d205/`. */
  document: string;
  bytes: Buffer;
}

const DCT = 'http://purl.org/dc/terms/';
const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
const FOAF = 'http://xmlns.com/foaf/0.1/';
const SCHEMA = 'https://schema.org/';
const SIOC = 'http://rdfs.org/sioc/ns#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

const TYPES = [SCHEMA + 'CreativeWork', FOAF + 'Document', SCHEMA + 'Dataset', SCHEMA + 'Article'];

type Maker = (i: number, j: number, revision: number, doc: string) => Quad['object'];

/** Predicates in turn, each with its own kind of object. */
const PREDICATES: Array<[string, Maker]> = [
  [DCT + 'title', (i, j) => literal(`title ${j} of d${i}`)],
  [DCT + 'description', (i, j, r) => literal(`A description, number ${j}, of document d${i} (revision ${r}).`)],
  [DCT + 'created', (i, j) => literal(`2024-0${1 + (j % 9)}-1${j % 10}T12:00:0${i % 10}Z`, namedNode(XSD + 'dateTime'))],
  [RDFS + 'label', (i, j) => literal(`label ${j} of d${i}`, 'en')],
  [FOAF + 'homepage', (i, j) => namedNode(`https://example.com/people/${(i * 31 + j) % 5000}`)],
  [SCHEMA + 'position', (i, j) => literal(String(i * 100 + j), namedNode(XSD + 'integer'))],
  [SIOC + 'links_to', (i, j, _r, doc) => namedNode(`${BASE}${doc.replace(/[^/]+\/$/, '')}d${i + j + 1}/`)],
  [RDF_TYPE, (_i, j) => namedNode(TYPES[Math.floor(j / 10) % TYPES.length]!)],
  [SCHEMA + 'keywords', (i, j) => literal(`keyword-${(i + j) % 97}`)],
  [DCT + 'modified', (_i, j, r) => literal(`2025-01-01T00:00:${String(j % 60).padStart(2, '0')}Z#${r}`, namedNode(XSD + 'dateTime'))],
];

export function documentPath(i: number, layout: Layout): string {
  return layout === 'flat' ? `d${i}/` : `c${Math.floor(i / CONTAINER_SIZE)}/d${i}/`;
}

export function filePath(i: number, layout: Layout): string {
  return `graphs/${documentPath(i, layout).slice(0, -1)}.nt`;
}

/** The quads of document `i`; a new `revision` changes a few of its triples. */
export function documentQuads(i: number, layout: Layout, revision = 0): Quad[] {
  const doc = documentPath(i, layout);
  const quads: Quad[] = [];
  for (let j = 0; j < TRIPLES_PER_DOCUMENT; j++) {
    // 40 triples about the document's main resource, then 10 items of 6 triples each
    const fragment = j < 40 ? 'this' : `item${Math.floor((j - 40) / 6)}`;
    const [predicate, make] = PREDICATES[j % PREDICATES.length]!;
    quads.push(quad(namedNode(`${BASE}${doc}#${fragment}`), namedNode(predicate), make(i, j, revision, doc)));
  }
  return quads;
}

export async function makeDocument(i: number, layout: Layout, revision = 0): Promise<DocumentFile> {
  const bytes = await canonicalBytes(documentQuads(i, layout, revision));
  let lines = 0;
  for (let at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10, at + 1)) lines++;
  if (lines !== TRIPLES_PER_DOCUMENT) throw new Error(`document ${i} has ${lines} distinct triples, not ${TRIPLES_PER_DOCUMENT}`);
  return { path: filePath(i, layout), document: documentPath(i, layout), bytes };
}

/** Documents 0..count-1 of a layout, at revision 0. */
export async function makeDocuments(count: number, layout: Layout): Promise<DocumentFile[]> {
  const out: DocumentFile[] = [];
  for (let i = 0; i < count; i++) out.push(await makeDocument(i, layout));
  return out;
}

/** A small deterministic PRNG (mulberry32), so every run writes and reads the same documents. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` new versions of random existing documents (of `documents` in a layout), each with a
 * revision no earlier write used, so no write is a no-op.
 */
export async function makeUpdates(count: number, documents: number, layout: Layout, seed: number): Promise<DocumentFile[]> {
  const next = random(seed);
  const out: DocumentFile[] = [];
  for (let n = 0; n < count; n++) out.push(await makeDocument(Math.floor(next() * documents), layout, seed * 1_000_000 + n + 1));
  return out;
}
