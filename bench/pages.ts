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

    // the weight of a page: its HTML and everything it loads from static/
    for (const [name, path, as] of [['a document, owner (editor)', 'pages/d1/', 'owner'], ['the SPARQL page', 'sparql', 'owner'], ['a document, anonymous', 'pages/d1/', 'anonymous']] as const) {
      const get = as === 'owner' ? send : client('');
      const page = await get('GET', `${base}${path}`, { Accept: 'text/html' });
      const assets = [...page.body.matchAll(/(?:src|href)="([^"]*\/static\/[^"]+)"/g)].map((m) => m[1]!);
      let bytes = Buffer.byteLength(page.body);
      let gzipped = gzipSync(page.body).length;
      for (const asset of assets) {
        const body = (await get('GET', asset)).body;
        bytes += Buffer.byteLength(body);
        gzipped += gzipSync(body).length;
      }
      rows.push({ section: 'pages', measure: `page weight: ${name} (HTML + ${assets.length} files)`, value: `${num(bytes / 1024, 1)} KB (${num(gzipped / 1024, 1)} KB gzipped)`, baseline: '50 KB', ratio: ratio(gzipped / PAGE_BUDGET), target: target('gzipped ≤ 50 KB', gzipped <= PAGE_BUDGET) });
    }
  } finally {
    await stop(server);
  }
  return rows;
}

export const pagesSection: Section = { name: 'pages', run };
