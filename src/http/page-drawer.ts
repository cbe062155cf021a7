/**
 * Where pages are drawn, built once by the composition root: the labels every dataspace's pages
 * share (the terms every page shows, then the shipped vocabularies, which the drawer reads itself a
 * vocabulary at a time between requests once built), the pages already drawn (kept by everything
 * they are drawn from, the labels' versions included), and the `pages` pool of the thread map
 * (threads.ts), which draws large pages: drawing a few thousand triples takes
 * tens of milliseconds, which would hold the thread that answers everyone. A small page is drawn
 * on that thread, where it costs less than the trip to a worker (`npm run bench -- --only pages`).
 */
import { setImmediate as afterPendingIo } from 'node:timers/promises';
import type { Vocabularies } from '../net/vocabularies.js';
import { drawingSize, draw, type Drawing } from '../pages/draw.js';
import { raw, type Html } from '../pages/html.js';
import { asLabels, DataspaceLabels, LABEL_PREDICATES, LabelTable, PAGE_TERMS, type LabelEntry, type Labels, type OntologyVersion } from '../pages/labels.js';
import { ByteCache } from '../util/byte-cache.js';
import type { WorkerPool } from '../util/worker-pool.js';

export interface PageRequest {
  op: 'draw';
  drawing: Drawing;
  /** The label tables by version; a table's entries go only to a worker that said it lacks them. */
  layers: { key: string; entries?: LabelEntry[] }[];
}

type PageAnswer = { html: string } | { missing: string[] };

export interface PageDrawerOptions {
  /** The workers that draw large pages (threads.ts `pages`). */
  pool: WorkerPool<PageRequest>;
  /** The shipped vocabularies whose labels pages use; none: the terms every page shows only. */
  vocabularies?: Vocabularies;
  log?: (line: string) => void;
  /** A page whose data (N-Triples, Turtle, a query's answer) is at most this many characters is drawn on the calling thread. */
  mainThreadChars?: number;
  /** Bytes of drawn pages kept. */
  keptBytes?: number;
}

/**
 * Pages up to this size are drawn here: `npm run bench -- --only pages` drew 1 KB in 0.4 ms here
 * (0.7 ms through the worker), 10 KB in 2–6 ms, 100 KB in 16 ms and 300 KB in 61 ms, against
 * 0.1–1.2 ms of this thread's time through the worker. 16 K characters hold the thread ~2–3 ms.
 */
const MAIN_THREAD_CHARS = 16 * 1024;

export class PageDrawer {
  /** The labels every dataspace's pages share: the terms every page shows, then the shipped vocabularies'. */
  readonly shared = new LabelTable(PAGE_TERMS);
  /** Pages drawn (not taken from those kept), here and in the worker: a seam for tests and the bench. */
  draws = { main: 0, worker: 0 };
  private readonly kept: ByteCache<Html>;
  private readonly pool: WorkerPool<PageRequest>;
  private readonly mainThreadChars: number;
  private closed = false;

  constructor(options: PageDrawerOptions) {
    this.mainThreadChars = options.mainThreadChars ?? MAIN_THREAD_CHARS;
    this.kept = new ByteCache<Html>(options.keptBytes ?? 32 * 1024 * 1024, (page) => page.text.length * 2);
    this.pool = options.pool;
    if (options.vocabularies) void this.readShippedLabels(options.vocabularies, options.log ?? ((line) => console.error(line)));
  }

  /** Adds the shipped vocabularies' labels to the shared ones, a vocabulary at a time between requests (after the I/O pending, such as the start's). */
  private async readShippedLabels(vocabularies: Vocabularies, log: (line: string) => void): Promise<void> {
    try {
      await afterPendingIo();
      for await (const found of vocabularies.literals(LABEL_PREDICATES)) {
        if (this.closed) return;
        this.shared.add(asLabels(found));
        await afterPendingIo();
      }
    } catch (error) {
      log(`the shipped vocabularies' labels: ${(error as Error).message}`);
    }
  }

  /** The labels of a dataspace's pages: the shared ones and those of its namespace ontology, as last built. */
  labelsOf(ontology: OntologyVersion): DataspaceLabels {
    return new DataspaceLabels(this.shared, ontology);
  }

  /**
   * The page of `drawing` with `labels`. With a `key` (everything the page is drawn from but its
   * labels, which are added to it), a page drawn before is answered as it was.
   */
  async draw(drawing: Drawing, labels: Labels, key?: string): Promise<Html> {
    const keptAs = key === undefined ? undefined : `${key}\n${labels.key}`;
    const kept = keptAs === undefined ? undefined : this.kept.get(keptAs);
    if (kept) return kept;
    let page: Html;
    if (drawingSize(drawing) <= this.mainThreadChars) {
      this.draws.main++;
      page = raw(draw(drawing, labels));
    } else {
      this.draws.worker++;
      page = raw(await this.inWorker(drawing, labels));
    }
    if (keptAs !== undefined) this.kept.put(keptAs, page);
    return page;
  }

  private async inWorker(drawing: Drawing, labels: Labels): Promise<string> {
    let answer = await this.pool.call<PageAnswer>({ op: 'draw', drawing, layers: labels.layers.map(({ key }) => ({ key })) });
    // a worker that lacks a table gets them all (the next call may go to a worker that started meanwhile)
    if ('missing' in answer) answer = await this.pool.call<PageAnswer>({ op: 'draw', drawing, layers: labels.layers.map(({ key, table }) => ({ key, entries: table.entries() })) });
    if ('missing' in answer) throw new Error('the page worker did not take the labels it was sent');
    return answer.html;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.pool.close();
  }
}
