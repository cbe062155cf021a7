/**
 * A page as data that can cross to a worker thread (no functions, no parsed terms): the document
 * page with its graph as N-Triples text, the query page with its answer as text, and the frame
 * without its messages (they follow from the language). `draw` parses and draws it, wherever it
 * runs: the thread that answers requests for small pages, a worker for large ones (http/page-drawer.ts).
 */
import { documentPage, type DocumentPage } from './document-page.js';
import type { Frame } from './layout.js';
import type { Labels } from './labels.js';
import { messages } from './messages.js';
import { sparqlPage, type SparqlPage, type SparqlResultsJson } from './sparql-page.js';
import { parseRdf } from '../rdf/ntriples.js';

/** The frame of a page as it crosses threads: everything but its messages. */
export type FrameData = Pick<Frame, 'language' | 'base' | 'url' | 'visitor' | 'sitemap'>;

export type DocumentDrawing = Omit<DocumentPage, 'frame' | 'quads' | 'labels'> & { frame: FrameData; ntriples: string };
export type SparqlDrawing = Omit<SparqlPage, 'frame' | 'answer' | 'labels'> & { frame: FrameData; answer?: { select: string } | { graph: string } };

export type Drawing = { page: 'document'; input: DocumentDrawing } | { page: 'sparql'; input: SparqlDrawing };

/** The text a drawing holds, which its cost follows (parsing it, escaping every value of it). */
export function drawingSize(drawing: Drawing): number {
  if (drawing.page === 'document') return drawing.input.ntriples.length + (drawing.input.turtle?.length ?? 0);
  const answer = drawing.input.answer;
  return answer ? ('select' in answer ? answer.select.length : answer.graph.length) : 0;
}

/** The page's HTML. */
export function draw(drawing: Drawing, labels: Labels): string {
  const frame = (data: FrameData) => ({ ...data, t: messages(data.language) });
  if (drawing.page === 'document') {
    const { ntriples, ...input } = drawing.input;
    return documentPage({ ...input, frame: frame(input.frame), quads: parseRdf(ntriples), labels }).text;
  }
  const { answer, ...input } = drawing.input;
  const parsed = answer && ('select' in answer ? { select: JSON.parse(answer.select) as SparqlResultsJson } : { graph: parseRdf(answer.graph) });
  return sparqlPage({ ...input, frame: frame(input.frame), answer: parsed, labels }).text;
}
