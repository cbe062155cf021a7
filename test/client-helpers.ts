/**
 * For the system tests with real RDF clients (test/system/clients-*.test.ts): whether a client is
 * installed (in CI a missing one fails, naming the package to install; elsewhere its tests are
 * skipped with that message), running a client program without blocking the server that answers
 * it in this process, and the document every client reads and writes back: non-ASCII text, a
 * character outside the BMP, a multi-line literal, nested blank nodes and an RDF list.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import type { Quad } from '@rdfjs/types';
import oxigraph from 'oxigraph';
import { canonicalNTriples } from '../src/rdf/canonical.js';
import type { TestServer } from './http-helpers.js';

const execFileAsync = promisify(execFile);

/** Debian's interpreter: the one `apt-get install python3-rdflib` installs for (a pyenv or venv python3 on PATH may lack it). */
export const PYTHON = '/usr/bin/python3';

export const UNICORN_TITLE = 'Grüße, 日本語, \u{1F984} unicorn';
export const NOTE = 'line one\nline "two" — ✓\nline three';
export const EX = 'http://example.org/ns#';
export const DCT = 'http://purl.org/dc/terms/';

/** The document every client round-trips, in Turtle (relative to the document's URL). */
export const AWKWARD_TURTLE = `@prefix ex: <${EX}> .
@prefix dct: <${DCT}> .
<#this> dct:title "${UNICORN_TITLE}"@de ;
  ex:note """${NOTE.replace(/"/g, '\\"')}""" ;
  ex:part [ ex:label "outer" ; ex:inner [ ex:label "inner ✓" ] ] ;
  ex:list ( "a" ex:b [ ex:label "in list \u{1F984}" ] ) .
`;

/** Whether `command args…` runs and exits 0. */
export function runs(command: string, ...args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}

/**
 * The tests of one client: skipped with `install` as the reason when `installed` is false, except
 * in CI (CI=true), where a missing client is a failing test that says what to install.
 */
export function clientSuite(name: string, installed: boolean, install: string, body: () => void): void {
  const message = `${name} is not installed: ${install}`;
  if (!installed && process.env.CI === 'true') {
    it(`${name} is installed`, () => assert.fail(message));
    return;
  }
  describe(name, installed ? {} : { skip: message }, body);
}

/**
 * Runs a client program (asynchronously: the server answering it runs in this process) and
 * returns its standard output; a failure carries its standard error.
 */
export async function runClient(command: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024, timeout: 60_000 });
    return stdout;
  } catch (error) {
    const failed = error as { stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${failed.message}\n${failed.stderr ?? ''}`);
  }
}

/** Creates (or replaces) the awkward document at `path` as the owner and returns its URL. */
export async function putAwkward(s: TestServer, path: string): Promise<string> {
  const head = await s.request('HEAD', path, { headers: { Accept: 'text/turtle' } });
  const headers: Record<string, string> = { 'Content-Type': 'text/turtle', Accept: 'text/turtle', ...(head.status === 200 ? { 'If-Match': String(head.headers.etag) } : {}) };
  const res = await s.request('PUT', path, { headers, body: AWKWARD_TURTLE });
  assert.ok(res.status === 201 || res.status === 200, `PUT ${path}: ${res.status} ${res.body}`);
  return new URL(path, s.base).href;
}

/**
 * The client's triples of a document as the server stores them now, in canonical form: its
 * N-Triples with the server's metadata about the document URL (created, modified…) left out.
 */
export async function storedContent(s: TestServer, url: string): Promise<string> {
  const res = await s.request('GET', url, { headers: { Accept: 'application/n-triples' } });
  assert.equal(res.status, 200, res.body);
  return contentOf(res.body, url);
}

/** The canonical form of the triples of an N-Triples (or `format`) text, those about `url` itself left out. */
export async function contentOf(text: string, url: string, format = 'application/n-triples'): Promise<string> {
  const quads = oxigraph.parse(text, { format, base_iri: url }) as unknown as Quad[];
  return canonicalNTriples(quads.filter((q) => !(q.subject.termType === 'NamedNode' && q.subject.value === url)));
}

/** The N-Triples line `<url#this> ex:writtenBy "text"` (JSON's string escapes are N-Triples' too). */
export function markerLine(url: string, text: string): string {
  return `<${url}#this> <${EX}writtenBy> ${JSON.stringify(text)} .`;
}
