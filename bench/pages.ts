/**
 * The web interface: the HTML GET of a 100-triple document against the Turtle GET of the same
 * document (wrk, 16 connections, anonymous under a public authorization as in the HTTP section;
 * the owner's page, with its editor, by a Node client one request at a time), and what a page
 * weighs: its HTML plus the scripts and styles it loads, against 50 KB.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ns } from '../src/rdf/namespaces.js';
import { freePort } from '../test/http-helpers.js';
import { client, documentTurtle, startChild, stop } from './http.js';
import { ms, num, ratio, rate, target, type BenchContext, type Row, type Section } from './table.js';
import { alternate, hasWrk, wrk } from './wrk.js';

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

    // the weight of a page: its HTML and what it loads from static/; then what it loads when its
    // code editor or chart is used (named in data-scripts and data-styles)
    const weigh = async (get: typeof send, urls: string[]) => {
      let bytes = 0;
      let gzipped = 0;
      for (const url of urls) {
        const body = (await get('GET', url)).body;
        bytes += Buffer.byteLength(body);
        gzipped += gzipSync(body).length;
      }
      return { bytes, gzipped };
    };
    const kb = (w: { bytes: number; gzipped: number }) => `${num(w.bytes / 1024, 1)} KB (${num(w.gzipped / 1024, 1)} KB gzipped)`;
    for (const [name, path, as, when] of [['a document, owner', 'pages/d1/', 'owner', 'the Turtle editor'], ['the SPARQL page (a SELECT answered)', `sparql?query=${encodeURIComponent('SELECT * { GRAPH ?g { ?s ?p ?o } } LIMIT 50')}`, 'owner', 'the editor and the chart'], ['a document, anonymous', 'pages/d1/', 'anonymous', '']] as const) {
      const get = as === 'owner' ? send : client('');
      const page = await get('GET', `${base}${path}`, { Accept: 'text/html' });
      const loaded = [...page.body.matchAll(/(?:src|href)="([^"]*\/static\/[^"]+)"/g)].map((m) => m[1]!);
      const onDemand = [...new Set([...page.body.matchAll(/data-(?:scripts|styles)="([^"]+)"/g)].flatMap((m) => m[1]!.split(' ')))];
      const html = { bytes: Buffer.byteLength(page.body), gzipped: gzipSync(page.body).length };
      const first = await weigh(get, loaded);
      const initial = { bytes: html.bytes + first.bytes, gzipped: html.gzipped + first.gzipped };
      rows.push({ section: 'pages', measure: `page weight: ${name} (HTML + ${loaded.length} files)`, value: kb(initial), baseline: '50 KB', ratio: ratio(initial.gzipped / PAGE_BUDGET), target: target('gzipped ≤ 50 KB', initial.gzipped <= PAGE_BUDGET) });
      if (onDemand.length > 0) {
        const later = await weigh(get, onDemand);
        rows.push({ section: 'pages', measure: `  with ${when} loaded (+${onDemand.length} files)`, value: kb({ bytes: initial.bytes + later.bytes, gzipped: initial.gzipped + later.gzipped }) });
      }
    }
  } finally {
    await stop(server);
  }
  return rows;
}

export const pagesSection: Section = { name: 'pages', run };
