/**
 * The web interface: the HTML GET of a 100-triple document against the Turtle GET of the same
 * document (wrk, 16 connections, anonymous under a public authorization as in the HTTP section;
 * the owner's page, with its editor, by a Node client one request at a time), and what a page
 * weighs on the wire: its HTML plus the scripts and styles it loads, Brotli-encoded as a browser
 * asks (against identity, as they went before compression), against 50 KB. Then where a page is
 * drawn (http/page-drawer.ts): by its size, the time to draw it on the thread that answers
 * requests against in the page worker, and how much of it that thread is busy either way. Last,
 * a container of 100,000 documents: its first page, its paged listing, a search (pages-large.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ns } from '../src/rdf/namespaces.js';
import { freePort } from '../test/http-helpers.js';
import { client, documentTurtle, startChild, stop } from './http.js';
import { PageDrawer } from '../src/http/page-drawer.js';
import { startPool } from '../src/threads.js';
import type { Drawing } from '../src/pages/draw.js';
import { Labels } from '../src/pages/labels.js';
import { ms, num, quantile, ratio, rate, target, type BenchContext, type Row, type Section } from './table.js';
import { alternate, hasWrk, wrk } from './wrk.js';
import { largeContainer } from './pages-large.js';

const PAGE_BUDGET = 50 * 1024;

async function run(context: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  const port = await freePort();
  const base = `https://localhost:${port}/`;
  const data = join(context.tmp, 'pages');
  const server = await startChild(['bin/lodestone.js', 'serve', '--data', data, '--port', String(port), '--no-watch', '--access-log', 'off'], /listening on/);
  try {
    const send = client(readFileSync(join(data, 'secrets/owner.pem'), 'utf8'));
    await send('PUT', `${base}pages/`, { 'Content-Type': 'text/turtle' }, `<> a <${ns.dh}Container> .`);
    await send('PUT', `${base}pages/d1/`, { 'Content-Type': 'text/turtle' }, documentTurtle(1));
    const rule = `<#this> a <${ns.acl}Authorization> ; <${ns.acl}agentClass> <${ns.foaf}Agent> ; <${ns.acl}mode> <${ns.acl}Read> ; <${ns.acl}default> <${base}pages/> .`;
    await send('PUT', `${base}admin/acl/authorizations/pages-public/`, { 'Content-Type': 'text/turtle' }, rule);
    const url = `${base}pages/d1/`;

    if (await hasWrk()) {
      const seconds = context.quick ? 2 : 5;
      const [html, turtle] = await alternate(context.quick ? 1 : 5, [
        () => wrk(url, { connections: 16, seconds, headers: { Accept: 'text/html' } }),
        () => wrk(url, { connections: 16, seconds, headers: { Accept: 'text/turtle' } }),
      ]);
      rows.push({ section: 'pages', measure: 'GET text/html, 100 triples, anonymous, 16 connections', value: rate(html.rps), baseline: `Turtle: ${rate(turtle.rps)}`, ratio: ratio(html.rps / turtle.rps), target: target('≥ 0.25× Turtle', html.rps / turtle.rps >= 0.25) });
      rows.push({ section: 'pages', measure: '  p50 / p99', value: `${ms(html.p50)} / ${ms(html.p99)}`, baseline: `${ms(turtle.p50)} / ${ms(turtle.p99)}` });
    }

    // the owner's page: the editor holds the document as Turtle too
    const timings: { html: number[]; turtle: number[] } = { html: [], turtle: [] };
    for (let i = 0; i < (context.quick ? 50 : 300); i++) {
      for (const type of ['text/html', 'text/turtle'] as const) {
        const started = performance.now();
        const reply = await send('GET', url, { Accept: type });
        if (reply.status !== 200) throw new Error(`GET ${type}: ${reply.status}`);
        timings[type === 'text/html' ? 'html' : 'turtle'].push(performance.now() - started);
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    rows.push({ section: 'pages', measure: 'GET text/html as the owner (with the editor), one at a time, median', value: ms(median(timings.html)), baseline: `Turtle: ${ms(median(timings.turtle))}`, ratio: ratio(median(timings.html) / median(timings.turtle)) });

    // the weight of a page on the wire: its HTML and what it loads from static/, then what it loads
    // when its code editor or chart is used (named in data-scripts and data-styles); identity (as
    // every answer went before compression) against what a browser's Accept-Encoding gets
    const BROWSER = 'gzip, deflate, br, zstd'; // Chromium's
    const weigh = async (get: typeof send, urls: string[], accept?: string) => {
      let identity = 0;
      let wire = 0;
      for (const url of urls) {
        const plain = await get('GET', url, accept ? { Accept: accept } : {});
        const encoded = await get('GET', url, { ...(accept && { Accept: accept }), 'Accept-Encoding': BROWSER });
        if (encoded.status !== 200 || plain.status !== 200) throw new Error(`GET ${url}: ${encoded.status}`);
        identity += plain.bytes.length;
        wire += encoded.bytes.length;
      }
      return { identity, wire };
    };
    const kb = (w: { identity: number; wire: number }) => `${num(w.wire / 1024, 1)} KB`;
    const pages = [['a document, owner', 'pages/d1/', 'owner', 'the Turtle editor'], ['the SPARQL page (a SELECT answered)', `sparql?query=${encodeURIComponent('SELECT * { GRAPH ?g { ?s ?p ?o } } LIMIT 50')}`, 'owner', 'the editor and the chart'], ['a document, anonymous', 'pages/d1/', 'anonymous', '']] as const;
    const filesOf = async (get: typeof send, path: string) => {
      const page = await get('GET', `${base}${path}`, { Accept: 'text/html' });
      const loaded = [...page.body.matchAll(/(?:src|href)="([^"]*\/static\/[^"]+)"/g)].map((m) => m[1]!);
      const onDemand = [...new Set([...page.body.matchAll(/data-(?:scripts|styles)="([^"]+)"/g)].flatMap((m) => m[1]!.split(' ')))];
      return { loaded, onDemand };
    };
    // static files are sent at Brotli 5 until their Brotli 11 encoding is made, once, beside (compression.ts): ask once, give it time
    for (const [, path, as] of pages) {
      const get = as === 'owner' ? send : client('');
      const { loaded, onDemand } = await filesOf(get, path);
      await weigh(get, [...loaded, ...onDemand]);
    }
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    for (const [name, path, as, when] of pages) {
      const get = as === 'owner' ? send : client('');
      const { loaded, onDemand } = await filesOf(get, path);
      const html = await weigh(get, [`${base}${path}`], 'text/html');
      const first = await weigh(get, loaded);
      const initial = { identity: html.identity + first.identity, wire: html.wire + first.wire };
      rows.push({ section: 'pages', measure: `page weight on the wire: ${name} (HTML + ${loaded.length} files), br`, value: kb(initial), baseline: `identity: ${num(initial.identity / 1024, 1)} KB`, ratio: ratio(initial.wire / initial.identity), target: target('≤ 50 KB', initial.wire <= PAGE_BUDGET) });
      if (onDemand.length > 0) {
        const later = await weigh(get, onDemand);
        const all = { identity: initial.identity + later.identity, wire: initial.wire + later.wire };
        rows.push({ section: 'pages', measure: `  with ${when} loaded (+${onDemand.length} files), br`, value: kb(all), baseline: `identity: ${num(all.identity / 1024, 1)} KB`, ratio: ratio(all.wire / all.identity) });
      }
    }
  } finally {
    await stop(server);
  }
  rows.push(...(await drawing(context)));
  rows.push(...(await largeContainer(context)));
  return rows;
}

/** A document page of `triples` triples, as data (a title each, as a document of notes has). */
function documentOf(triples: number): Drawing {
  const url = 'https://localhost/notes/d/';
  const ntriples = Array.from({ length: triples }, (_, i) => `<${url}#n${i}> <${ns.dct}title> "note number ${i}, with a few words" .\n`).join('');
  const visitor = { webId: undefined, adminBase: 'https://localhost/admin/', providers: [], signup: true };
  return { page: 'document', input: { frame: { language: 'en', base: 'https://localhost/', url, visitor }, documentUrl: url, ntriples, formats: [], modes: { write: false, append: false }, versioned: false } };
}

/** How long `work` takes, and how much of that the thread running it was busy (event-loop utilisation: time descheduled in between does not count). */
async function held(work: () => Promise<unknown>): Promise<{ took: number; busy: number }> {
  const before = performance.eventLoopUtilization();
  const started = performance.now();
  await work();
  return { took: performance.now() - started, busy: performance.eventLoopUtilization(before).active };
}

/** Each size drawn in the worker, then here (the garbage of drawing here is not collected while the worker draws), medians of the time taken and of this thread's busy time. */
async function drawing(context: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  const here = new PageDrawer({ pool: startPool('pages'), mainThreadChars: Infinity });
  const there = new PageDrawer({ pool: startPool('pages'), mainThreadChars: 0 });
  const rounds = context.quick ? 5 : 21;
  try {
    for (const triples of [10, 100, 300, 1_000, 3_000]) {
      const page = documentOf(triples);
      const labels = (drawer: PageDrawer) => new Labels([{ key: 'shared', table: drawer.shared }]);
      await there.draw(page, labels(there)); // the worker started, the labels sent
      const samples = { here: [] as { took: number; busy: number }[], there: [] as { took: number; busy: number }[] };
      for (let i = 0; i < rounds; i++) samples.there.push(await held(() => there.draw(page, labels(there))));
      for (let i = 0; i < rounds; i++) samples.here.push(await held(() => here.draw(page, labels(here))));
      const median = (values: number[]) => quantile(values, 0.5);
      const [hereTook, thereTook] = [median(samples.here.map((s) => s.took)), median(samples.there.map((s) => s.took))];
      const [hereHeld, thereHeld] = [median(samples.here.map((s) => s.busy)), median(samples.there.map((s) => s.busy))];
      const kb = num(page.page === 'document' ? page.input.ntriples.length / 1024 : 0, 1);
      rows.push({ section: 'pages', measure: `draw a ${num(triples)}-triple page (${kb} KB): in the worker, median`, value: ms(thereTook), baseline: `here: ${ms(hereTook)}`, ratio: ratio(thereTook / hereTook) });
      rows.push({ section: 'pages', measure: '  of which the thread that answers requests was busy, median', value: ms(thereHeld), baseline: `here: ${ms(hereHeld)}` });
    }
  } finally {
    await Promise.all([here.close(), there.close()]);
  }
  return rows;
}

export const pagesSection: Section = { name: 'pages', run };
