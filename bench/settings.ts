/**
 * The settings section (issue 21): what ontology constraints cost a write, and what `ns?query=`
 * costs. A server in this process (HTTPS, the owner's certificate, one request at a time): PUT
 * latency of new 20-triple documents with no shapes in the namespace ontology, then with an
 * ontology of 50 classes and 50 SHACL node shapes targeting the classes the documents use (each
 * write validated in the ontology workers; every document conforms); `ns?query=` latency over that
 * ontology with RDFS entailment, each query new (no cached answer) and repeated (cached), against
 * the same new queries on `<base>sparql` over the documents.
 */
import { ns } from '../src/rdf/namespaces.js';
import { putTurtle, startServer, type TestServer } from '../test/http-helpers.js';
import { ms, quantile, ratio, type BenchContext, type Row, type Section } from './table.js';

const SHAPES = 50;
const CLASSES = 50;
const EX = 'https://example.org/bench#';

/** "p50 / p99" of millisecond samples. */
function p50p99(samples: readonly number[]): string {
  return `${ms(quantile(samples, 0.5))} / ${ms(quantile(samples, 0.99))}`;
}

async function timed(samples: number[], work: () => Promise<{ status: number; body: string }>, expected: number): Promise<void> {
  const started = performance.now();
  const res = await work();
  samples.push(performance.now() - started);
  if (res.status !== expected) throw new Error(`expected ${expected}, got ${res.status}: ${res.body.slice(0, 300)}`);
}

/** A document of 20 triples about one thing of class C<i mod 5>, conforming to every shape. */
function document(i: number): string {
  const lines = [`<#this> a <${EX}C${i % 5}> ; <${ns.dct}title> "Document ${i}"`];
  for (let p = 0; p < 18; p++) lines.push(`  <${EX}p${p}> "value ${p} of ${i}"`);
  return lines.join(' ;\n') + ' .\n';
}

/** 50 classes in a tree, and 50 node shapes on them: each a title and a few string properties, at most one value each. */
function ontology(): string {
  const lines = [`@prefix owl: <${ns.owl}> . @prefix rdfs: <${ns.rdfs}> . @prefix sh: <${ns.sh}> . @prefix xsd: <${ns.xsd}> . @prefix dct: <${ns.dct}> .`, '<#> a owl:Ontology .'];
  for (let c = 1; c < CLASSES; c++) lines.push(`<${EX}C${c}> rdfs:subClassOf <${EX}C${Math.floor((c - 1) / 2)}> .`);
  for (let s = 0; s < SHAPES; s++) {
    const properties = [`sh:property [ sh:path dct:title ; sh:minCount 1 ; sh:maxCount 1 ; sh:datatype xsd:string ]`];
    for (let p = 0; p < 3; p++) properties.push(`sh:property [ sh:path <${EX}p${(s + p) % 18}> ; sh:maxCount 1 ; sh:datatype xsd:string ]`);
    lines.push(`<#Shape${s}> a sh:NodeShape ; sh:targetClass <${EX}C${s % CLASSES}> ; ${properties.join(' ; ')} .`);
  }
  return lines.join('\n') + '\n';
}

async function puts(server: TestServer, from: number, n: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = from; i < from + n; i++) await timed(samples, () => server.request('PUT', `/bench/d${i}/`, { headers: { 'Content-Type': 'text/turtle' }, body: document(i) }), 201);
  return samples;
}

async function queries(server: TestServer, path: string, n: number, text: (i: number) => string): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) await timed(samples, () => server.request('GET', `${path}?query=${encodeURIComponent(text(i))}`, { headers: { Accept: 'application/sparql-results+json' } }), 200);
  return samples;
}

export const settingsSection: Section = {
  name: 'settings',
  async run({ quick, tmp, log }: BenchContext): Promise<Row[]> {
    const n = quick ? 40 : 200;
    const server = await startServer([], `${tmp}/settings`, (line) => log(`server: ${line}`));
    try {
      await putTurtle(server, '/bench/', `<> a <${ns.dh}Container> .`);
      await puts(server, -20, 20); // warm-up: workers started, code compiled
      log(`settings: ${n} PUTs without shapes`);
      const plain = await puts(server, 0, n);
      await putTurtle(server, '/admin/ontologies/', `<> a <${ns.dh}Container> .`);
      await putTurtle(server, '/admin/ontologies/bench/', ontology());
      await puts(server, 100_000, 20); // warm-up: the validators built
      await timed([], () => server.request('PUT', '/bench/untitled/', { headers: { 'Content-Type': 'text/turtle' }, body: `<#this> a <${EX}C1> .` }), 422); // the shapes are in force
      log(`settings: ${n} PUTs with ${SHAPES} shapes`);
      const shaped = await puts(server, n, n);
      const subclass = (i: number) => `# ${i}\nSELECT ?c WHERE { <${EX}C${(i % (CLASSES - 1)) + 1}> <${ns.rdfs}subClassOf> ?c }`;
      await queries(server, '/ns', 5, (i) => `# warm ${i}\nASK {}`);
      log(`settings: ${n} ns queries`);
      const fresh = await queries(server, '/ns', n, subclass);
      const cached = await queries(server, '/ns', n, () => subclass(0));
      const typed = (i: number) => `# ${i}\nSELECT ?s WHERE { ?s a <${EX}C${i % 5}> } LIMIT 10`;
      await queries(server, '/sparql', 5, (i) => `# warm ${i}\nASK {}`);
      const sparql = await queries(server, '/sparql', n, typed);
      const median = (samples: number[]) => quantile(samples, 0.5);
      return [
        { section: 'settings', measure: `PUT of a new 20-triple document, p50 / p99 (${SHAPES} shapes in the namespace ontology vs none)`, value: p50p99(shaped), baseline: p50p99(plain), ratio: ratio(median(shaped) / median(plain)) },
        { section: 'settings', measure: 'ns?query= (RDFS-entailed ontology), a new query each time, p50 / p99 (vs new queries on /sparql)', value: p50p99(fresh), baseline: p50p99(sparql), ratio: ratio(median(fresh) / median(sparql)) },
        { section: 'settings', measure: 'ns?query=, the same query again (cached answer), p50 / p99', value: p50p99(cached) },
      ];
    } finally {
      await server.close();
    }
  },
};
