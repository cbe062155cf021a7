/**
 * A response of another server in the format the proxy's client asked for (SPEC §4.5.3–4): RDF in
 * any format Lodestone reads (the graphs of a dataset taken as one), or an HTML page's JSON-LD
 * blocks (each parsed as JSON-LD 1.1 with the page URL as base, its blank nodes its own), written
 * in any RDF format Lodestone writes; SPARQL results read and written in another results format.
 * The parsers and their guards are the request bodies' (formats.ts): entity limits for RDF/XML, no
 * remote JSON-LD context but the bundled schema.org one. Pure; the proxy runs it in a worker.
 */
import { createHash } from 'node:crypto';
import type { Quad } from '@rdfjs/types';
import { DataFactory } from 'n3';
import { LodestoneError } from '../errors.js';
import { HTML, JSONLD, NTRIPLES, parseBody, serialise } from './formats.js';
import { jsonLdBlocks } from './html-json-ld.js';
import { joinUnique, tripleLine } from './ntriples.js';
import { readResults, writeResults } from './sparql-results.js';
import { XHTML } from './media-types.js';


export interface Translation {
  /** `rdf`: a graph (or a page's JSON-LD); `results`: SPARQL query results. */
  kind: 'rdf' | 'results';
  text: string;
  /** The media type the origin sent. */
  mediaType: string;
  /** The URL the text was retrieved from (after redirects): the base of relative IRIs. */
  base: string;
  /** The media type to write. */
  to: string;
  /**
   * N-Triples only: lines sorted by code point, without duplicates, as stored documents are (for
   * readers that search them, canonical-lines.ts), blank nodes labelled apart from any other
   * source's (`labelledApart`): what the server reads from elsewhere (a remote WebID document, an
   * ontology document) and merges or searches.
   */
  sorted?: boolean;
}

export function isHtml(mediaType: string): boolean {
  return mediaType === HTML || mediaType === XHTML;
}

const { blankNode, quad } = DataFactory;

/** A block's triples with its blank nodes renamed apart from other blocks' (each block is a JSON-LD document of its own). */
function apart(quads: readonly Quad[], block: number): Quad[] {
  const rename = <T extends Quad['subject'] | Quad['object']>(term: T): T => (term.termType === 'BlankNode' ? (blankNode(`b${block}_${term.value}`) as unknown as T) : term);
  return quads.map((q) => quad(rename(q.subject), q.predicate, rename(q.object)) as Quad);
}

/**
 * A source's triples with their blank nodes labelled apart from those of any other source (a
 * parser's labels are unique only within its thread, and differ from one parse to the next): a
 * digest of the source's text and base, then the blank node's rank in the parse, so that the same
 * source reads with the same labels on any thread.
 */
function labelledApart(quads: readonly Quad[], text: string, base: string): Quad[] {
  const prefix = `x${createHash('sha1').update(base).update('\n').update(text).digest('hex').slice(0, 12)}b`;
  const labels = new Map<string, string>();
  const rename = <T extends Quad['subject'] | Quad['object']>(term: T): T => {
    if (term.termType !== 'BlankNode') return term;
    let label = labels.get(term.value);
    if (label === undefined) labels.set(term.value, (label = `${prefix}${labels.size}`));
    return blankNode(label) as unknown as T;
  };
  return quads.map((q) => quad(rename(q.subject), q.predicate, rename(q.object)) as Quad);
}

/** The triples of every JSON-LD block of a page; blocks that do not parse are left out, and a page with none that does is refused. */
export function pageTriples(html: string, base: string): Quad[] {
  const blocks = jsonLdBlocks(html);
  if (blocks.length === 0) throw new LodestoneError('SyntaxError', `the HTML page at ${base} has no <script type="${JSONLD}"> block: there is no RDF in it to read`);
  const triples: Quad[] = [];
  const failures: string[] = [];
  blocks.forEach((block, i) => {
    try {
      triples.push(...apart(parseBody(block, JSONLD, base), i));
    } catch (error) {
      if (!(error instanceof LodestoneError)) throw error;
      failures.push(`block ${i + 1}: ${error.message}`);
    }
  });
  if (failures.length === blocks.length) throw new LodestoneError('SyntaxError', `none of the ${blocks.length} JSON-LD blocks of the HTML page at ${base} could be read (${failures.join('; ')})`);
  return triples;
}

/** The translated body; SyntaxError when the text does not parse as what it says it is, or is a page with no readable JSON-LD (the proxy answers that 502: the origin's fault). */
export async function translate(job: Translation): Promise<string> {
  if (job.kind === 'results') return writeResults(readResults(job.text, job.mediaType), job.to);
  const quads = isHtml(job.mediaType) ? pageTriples(job.text, job.base) : parseBody(job.text, job.mediaType, job.base, { mergeGraphs: true });
  if (job.sorted && job.to === NTRIPLES) return joinUnique(labelledApart(quads, job.text, job.base).map(tripleLine));
  const lines = quads.map((q) => tripleLine(q) + '\n').join('');
  return serialise(lines, job.to);
}

/** The translation of RDF read from elsewhere (text in `mediaType`, retrieved from `base`) into what the server keeps: N-Triples lines, sorted, without duplicates, blank nodes labelled apart (`sorted`). */
export function keptTranslation(text: string, mediaType: string, base: string): Translation {
  return { kind: 'rdf', text, mediaType, base, to: NTRIPLES, sorted: true };
}

/** RDF read from elsewhere as the server keeps it (`keptTranslation`), on this thread. */
export function toNTriples(text: string, mediaType: string, base: string): Promise<string> {
  return translate(keptTranslation(text, mediaType, base));
}
