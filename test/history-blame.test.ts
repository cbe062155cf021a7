/**
 * `?blame` (issue 30): each triple of a document with the commit that brought it, its time and its
 * author, checked against the git CLI's own history of the file (`git log`, `git show`); a triple
 * removed and added again belongs to the commit that added it again; a hand edit with git keeps
 * its author's name; blank nodes keep their commit while their label stays; refusals say nothing;
 * Turtle, JSON-LD, RDF/XML and N-Triples all read with other parsers.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import jsonld from 'jsonld';
import { Parser, Store, type Quad } from 'n3';
import { RdfXmlParser } from 'rdfxml-streaming-parser';
import { blame, blameOrigins, versionsToBlame } from '../src/documents/blame.js';
import { termToNTriples } from '../src/rdf/ntriples.js';
import { catFileBatch } from '../src/store/cat-file.js';
import * as $rdf from 'rdflib';
import { git, tempDir, waitFor } from './helpers.js';
import { assertRdfError, certifiedAgent, serverForFile, signUp, turtle, type Stranger, type TestServer } from './http-helpers.js';

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const PROV = 'http://www.w3.org/ns/prov#';
const FOAF = 'http://xmlns.com/foaf/0.1/';
const DCT = 'http://purl.org/dc/terms/';
const NT = { Accept: 'application/n-triples' };

let s: TestServer;
let dir: string;
const agents: Array<{ webId: string; pem: string }> = [];
let reader: { webId: string; pem: string };
let stranger: Stranger;

/** Lets `writers` read and write `path`, and `readers` read it: two authorizations, written by the owner. */
async function grant(slug: string, path: string, writers: string[], readers: string[]): Promise<void> {
  const acl = 'http://www.w3.org/ns/auth/acl#';
  for (const [suffix, who, modes] of [['writers', writers, `<${acl}Read>, <${acl}Write>`], ['readers', readers, `<${acl}Read>`]] as const) {
    const body = `<> <${FOAF}primaryTopic> <#this> .\n<#this> a <${acl}Authorization> ; ${who.map((w) => `<${acl}agent> <${w}>`).join(' ; ')} ; <${acl}mode> ${modes} ; <${acl}accessTo> <${s.base}${path}> .\n`;
    const res = await s.request('PUT', `/admin/acl/authorizations/${slug}-${suffix}/`, { headers: turtle, body });
    assert.equal(res.status, 201, res.body);
  }
}

/** PUTs `body` (Turtle) as `as`, quoting the current ETag. */
async function put(path: string, body: string, as: { pem: string } | 'owner' = 'owner'): Promise<string> {
  const head = await s.request('HEAD', path, { as });
  const res = await s.request('PUT', path, { as, headers: { ...turtle, ...(head.status === 200 ? { 'If-Match': String(head.headers.etag) } : {}) }, body });
  assert.ok(res.status === 200 || res.status === 201, `${res.status} ${res.body}`);
  // the write's own commit (the document's Lodestone-Commit): HEAD read afterwards may already be a later commit
  return String(res.headers['lodestone-commit']);
}

function parseNt(text: string): Quad[] {
  return new Parser({ format: 'N-Triples', blankNodePrefix: '' }).parse(text); // the labels as written
}

/** For each triple (its N-Triples line) of a blame answer: the commit (its id), the time and the author it names. */
function attribution(quads: Quad[]): Map<string, { commit: string; time: string; author: string }> {
  const store = new Store(quads);
  const one = (subject: Quad['subject'], predicate: string) => store.getObjects(subject, predicate, null)[0]!;
  const term = (t: Quad['object']) => termToNTriples(t);
  const out = new Map<string, { commit: string; time: string; author: string }>();
  for (const statement of store.getSubjects(`${RDF}type`, `${RDF}Statement`, null)) {
    const line = `${term(one(statement, `${RDF}subject`))} ${term(one(statement, `${RDF}predicate`))} ${term(one(statement, `${RDF}object`))} .`;
    const activity = one(statement, `${PROV}wasGeneratedBy`);
    const commit = one(activity as Quad['subject'], `${DCT}identifier`).value;
    const agent = one(statement, `${PROV}wasAttributedTo`);
    const author = agent.termType === 'NamedNode' ? agent.value : one(agent as Quad['subject'], `${FOAF}name`).value;
    out.set(line, { commit, time: one(statement, `${PROV}generatedAtTime`).value, author });
  }
  return out;
}

/** What git itself says brought each line of the file at HEAD: the oldest commit of the unbroken run back from HEAD (first parents) whose file holds it, and its author. */
function gitBlame(file: string): Map<string, { commit: string; author: string }> {
  const log = git(dir, 'log', '--first-parent', '--format=%H %an', '--', file).trim().split('\n').map((l) => ({ commit: l.slice(0, 40), author: l.slice(41) }));
  const linesAt = (commit: string) => new Set(git(dir, 'show', `${commit}:${file}`).split('\n').filter(Boolean));
  const out = new Map<string, { commit: string; author: string }>();
  for (const line of linesAt(log[0]!.commit)) {
    let found = log[0]!;
    for (const version of log.slice(1)) {
      if (!linesAt(version.commit).has(line)) break;
      found = version;
    }
    out.set(line, found);
  }
  return out;
}

const blameOf = async (path: string, as: { pem: string } | 'owner' = 'owner') => {
  const res = await s.request('GET', `${path}?blame`, { as, headers: NT });
  assert.equal(res.status, 200, res.body);
  return attribution(parseNt(res.body));
};

/** Whether a command runs here (a client the project supports, when installed). */
const hasCommand = (command: string, ...args: string[]) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;

/** How many triples raptor's rapper reads in `file`, parsed as `parser`. */
function rapperCount(parser: string, file: string): number {
  const out = spawnSync('rapper', ['-i', parser, '-c', file, 'https://localhost/blamed/?blame'], { encoding: 'utf8' });
  return Number(/returned (\d+) triples/.exec(out.stderr)?.[1]);
}

serverForFile(async (server, repo) => {
  s = server;
  dir = repo;
  for (const name of ['Ada', 'Brook', 'Cyd']) agents.push(await certifiedAgent(s, name));
  reader = await certifiedAgent(s, 'Reed');
  stranger = await signUp(s, 'Stranger');
  await grant('blame-writers', 'blamed/', agents.map((a) => a.webId), [reader.webId]);
  await put('/blamed/', '<#this> <http://purl.org/dc/terms/title> "Empty" .'); // the owner makes it; the three agents may only edit it
});

describe('blame', () => {
  it('names each triple’s author and commit, as git log and git show tell them, after edits by three agents', async () => {
    const [ada, brook, cyd] = agents as [{ webId: string; pem: string }, { webId: string; pem: string }, { webId: string; pem: string }];
    const first = await put('/blamed/', '<#this> <http://purl.org/dc/terms/title> "Draft" ; <http://example.org/ns#colour> "red" .', ada);
    const second = await put('/blamed/', '<#this> <http://purl.org/dc/terms/title> "Draft" ; <http://example.org/ns#colour> "red" ; <http://example.org/ns#size> 3 .', brook);
    const third = await put('/blamed/', '<#this> <http://purl.org/dc/terms/title> "Final" ; <http://example.org/ns#colour> "red" ; <http://example.org/ns#size> 3 .', cyd);
    const blamed = await blameOf('/blamed/');
    const truth = gitBlame('graphs/blamed.nt');
    assert.deepEqual([...blamed.keys()].sort(), [...truth.keys()].sort(), 'every triple of the file at HEAD, and no other');
    for (const [line, { commit, author }] of truth) {
      assert.equal(blamed.get(line)!.commit, commit, line);
      assert.equal(blamed.get(line)!.author, author, line);
      assert.equal(blamed.get(line)!.time, new Date(Number(git(dir, 'show', '-s', '--format=%ct', commit).trim()) * 1000).toISOString());
    }
    const by = (fragment: string) => [...blamed].find(([line]) => line.includes(fragment))![1];
    assert.deepEqual([by('"red"').commit, by('"red"').author], [first, ada.webId]);
    assert.deepEqual([by('#size').commit, by('#size').author], [second, brook.webId]);
    assert.deepEqual([by('"Final"').commit, by('"Final"').author], [third, cyd.webId]);
  });

  it('gives a triple removed and added again to the commit that added it again', async () => {
    const [ada, brook] = agents as [{ webId: string; pem: string }, { webId: string; pem: string }];
    await put('/blamed/', '<#this> <http://purl.org/dc/terms/title> "Final" ; <http://example.org/ns#size> 3 .', ada);
    const readded = await put('/blamed/', '<#this> <http://purl.org/dc/terms/title> "Final" ; <http://example.org/ns#colour> "red" ; <http://example.org/ns#size> 3 .', brook);
    const blamed = await blameOf('/blamed/');
    const red = [...blamed].find(([line]) => line.includes('"red"'))![1];
    assert.deepEqual([red.commit, red.author], [readded, brook.webId]);
    for (const [line, { commit }] of gitBlame('graphs/blamed.nt')) assert.equal(blamed.get(line)!.commit, commit, line);
  });

  it('answers in Turtle, JSON-LD, RDF/XML and N-Triples, the same graph read by other parsers, with ETag and 304', async () => {
    const size = async (body: string, type: string): Promise<number> => {
      if (type === 'application/ld+json') return ((await jsonld.toRDF(JSON.parse(body) as object, { format: 'application/n-quads' })) as unknown as string).trim().split('\n').length;
      if (type === 'application/rdf+xml') {
        const quads: Quad[] = [];
        await new Promise<void>((resolve, reject) => new RdfXmlParser().on('data', (q: Quad) => quads.push(q)).on('error', reject).on('end', resolve).end(body));
        return quads.length;
      }
      return new Parser({ format: type }).parse(body).length;
    };
    const reference = (await s.request('GET', '/blamed/?blame', { headers: NT })).body;
    const count = parseNt(reference).length;
    for (const type of ['text/turtle', 'application/ld+json', 'application/rdf+xml', 'application/n-triples']) {
      const res = await s.request('GET', '/blamed/?blame', { headers: { Accept: type } });
      assert.equal(res.status, 200, `${type}: ${res.body}`);
      assert.match(String(res.headers['content-type']), new RegExp(`^${type.replace('+', '\\+')}`));
      assert.equal(await size(res.body, type), count, type);
      const again = await s.request('GET', '/blamed/?blame', { headers: { Accept: type, 'If-None-Match': String(res.headers.etag) } });
      assert.equal(again.status, 304, type);
    }
    const head = await s.request('HEAD', '/blamed/?blame', { headers: NT });
    assert.equal(head.status, 200);
    const etag = String(head.headers.etag);
    await put('/blamed/', '<#this> <http://purl.org/dc/terms/title> "Final" ; <http://example.org/ns#colour> "red" .');
    assert.notEqual(String((await s.request('HEAD', '/blamed/?blame', { headers: NT })).headers.etag), etag, 'a new version is a new blame');
    assertRdfError(await s.request('GET', '/blamed/?blame', { headers: { Accept: 'image/png' } }), 406);
  });

  it('is read alike by the other clients the project supports: rdflib.js, Python rdflib and raptor, in each format they read', async () => {
    const count = parseNt((await s.request('GET', '/blamed/?blame', { headers: NT })).body).length;
    const folder = tempDir('blame-clients');
    const formats = [['text/turtle', 'turtle', 'turtle'], ['application/rdf+xml', 'rdfxml', 'xml'], ['application/ld+json', undefined, 'json-ld'], ['application/n-triples', 'ntriples', 'nt']] as const;
    for (const [type, raptor, python] of formats) {
      const body = (await s.request('GET', '/blamed/?blame', { headers: { Accept: type } })).body;
      const file = join(folder, `blame.${python}`);
      writeFileSync(file, body);
      if (type === 'text/turtle' || type === 'application/rdf+xml') { // what rdflib.js parses
        const store = $rdf.graph();
        $rdf.parse(body, store, `${s.base}blamed/?blame`, type);
        assert.equal(store.statements.length, count, `rdflib.js, ${type}`);
      }
      if (raptor && hasCommand('rapper', '--version')) assert.equal(rapperCount(raptor, file), count, `raptor, ${type}`);
      if (hasCommand('/usr/bin/python3', '-c', 'import rdflib')) {
        const parsed = execFileSync('/usr/bin/python3', ['-c', 'import rdflib, sys; g = rdflib.Graph(); g.parse(sys.argv[1], format=sys.argv[2]); print(len(g))', file, python], { encoding: 'utf8' });
        assert.equal(Number(parsed.trim()), count, `Python rdflib, ${type}`);
      }
    }
  });

  it('refuses a stranger and the anonymous as it refuses them on a document that does not exist, and lets a reader read it', async () => {
    assert.equal((await s.request('GET', '/blamed/?blame', { as: reader, headers: NT })).status, 200);
    for (const as of [stranger, 'anonymous'] as const) {
      const there = await s.request('GET', '/blamed/?blame', { as });
      const nowhere = await s.request('GET', '/not-blamed-anywhere/?blame', { as });
      assertRdfError(there, 403);
      assert.equal(there.body.replaceAll('blamed/', 'X'), nowhere.body.replaceAll('not-blamed-anywhere/', 'X'), 'the refusal tells nothing of what is there');
      assert.equal(there.headers.etag, undefined);
    }
    assertRdfError(await s.request('GET', '/not-blamed-anywhere/?blame'), 404);
    assertRdfError(await s.request('PUT', '/blamed/?blame', { headers: turtle, body: '<#a> <#b> <#c> .' }), 405);
  });

  it('keeps the author of a hand edit committed with git, by name', async () => {
    await s.running.runtimes[0]!.dataspace.settled(); // the server's own writes are in the working tree: none comes after ours
    const file = join(dir, 'graphs', 'blamed.nt');
    const line = `<${s.base}blamed/#this> <http://example.org/ns#hand> "by hand" .`;
    const lines = git(dir, 'show', 'HEAD:graphs/blamed.nt').split('\n').filter(Boolean);
    writeFileSync(file, [...lines, line].sort().join('\n') + '\n');
    git(dir, 'add', 'graphs/blamed.nt');
    git(dir, 'commit', '-q', '--author=Hannah Hand <hannah@example.org>', '-m', 'a triple by hand');
    const hand = git(dir, 'rev-parse', 'HEAD').trim();
    await s.running.runtimes[0]!.dataspace.store.refresh(); // what the watcher does on a commit (test servers run without it)
    await waitFor(async () => (await s.request('GET', '/blamed/', { headers: NT })).body.includes('"by hand"'), 10_000, 50);
    const blamed = await blameOf('/blamed/');
    assert.deepEqual(blamed.get(line), { commit: hand, author: 'Hannah Hand', time: blamed.get(line)!.time });
    for (const [l, { commit }] of gitBlame('graphs/blamed.nt')) assert.equal(blamed.get(l)!.commit, commit, l);
  });

  it('matches blank nodes by their canonical label: an edit elsewhere leaves their triples with the commit that wrote them', async () => {
    const body = (title: string) => `<#this> <http://purl.org/dc/terms/title> "${title}" ; <http://purl.org/dc/terms/creator> [ <${FOAF}name> "Someone" ] .`;
    const first = await put('/blank/', body('one'));
    await put('/blank/', body('two'));
    const blamed = await blameOf('/blank/');
    const blankLines = [...blamed].filter(([line]) => line.includes('_:'));
    assert.equal(blankLines.length, 2);
    for (const [, { commit }] of blankLines) assert.equal(commit, first);
    for (const [l, { commit }] of gitBlame('graphs/blank.nt')) assert.equal(blamed.get(l)!.commit, commit, l);
  });

  it('never reaches past a deletion: a document made again at the URL of a deleted one is blamed from its new start', async () => {
    await put('/again/', '<#this> <http://purl.org/dc/terms/title> "Same words" ; <http://example.org/ns#secret> "before" .');
    const etag = String((await s.request('HEAD', '/again/')).headers.etag);
    assert.equal((await s.request('DELETE', '/again/', { headers: { 'If-Match': etag } })).status, 204);
    assertRdfError(await s.request('GET', '/again/?blame'), 404);
    const remade = await put('/again/', '<#this> <http://purl.org/dc/terms/title> "Same words" .');
    const blamed = await blameOf('/again/');
    const title = [...blamed].find(([line]) => line.includes('"Same words"'))![1];
    assert.equal(title.commit, remade, 'the same triple before the deletion is not this one');
    for (const [, { commit }] of blamed) assert.equal(commit, remade);
  });

  it('reads the versions alike through git cat-file (the pool, when git is installed) and through the object store (without git)', async () => {
    const { store, versions } = s.running.runtimes[0]!.dataspace;
    const list = versionsToBlame(versions!.of('graphs/blamed.nt'));
    const ids = list.map((v) => v.blob!).reverse();
    const batch = (await catFileBatch(store.gitdir, ids))!;
    for (const id of ids) assert.deepEqual(await batch.read(id), await store.readBlob(id), id);
    batch.close();
    const work = { op: 'blame' as const, gitdir: store.gitdir, documentUrl: `${s.base}blamed/`, versions: list, hidden: [], type: 'application/n-triples' };
    const inProcess = await blame(work, (id) => store.readBlob(id));
    assert.equal(inProcess.body, (await s.request('GET', '/blamed/?blame', { headers: NT })).body);
  });

  it('walks sorted versions by merging and unsorted ones (a hand edit) as sets, alike', async () => {
    const versions = [['a', 'b', 'c'], ['a', 'c', 'd'], ['d', 'c', 'a', 'b'], ['a', 'b', 'c', 'd'], ['a', 'b', 'd']];
    // a: every version (0); b: back in 2, unsorted there (2); d: since 1 (1); c is gone
    assert.deepEqual(await blameOrigins(versions[4]!, 4, async (i) => versions[i]!), [0, 2, 1]);
    const unsortedNow = ['d', 'a', 'b'];
    assert.deepEqual(await blameOrigins(unsortedNow, 4, async (i) => versions[i]!), [1, 0, 2]);
  });

  it('shows each triple with its version and author on a page linked from the history', async () => {
    const timemap = await s.request('GET', '/blamed/?timemap', { headers: { Accept: 'text/html' } });
    assert.match(timemap.body, /href="[^"]*\/blamed\/\?blame"/);
    const page = await s.request('GET', '/blamed/?blame', { headers: { Accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(page.body, /<table class="blame">/);
    assert.match(page.body, />Hannah Hand</);
    assert.match(page.body, /href="[^"]*\/blamed\/\?version=[0-9a-f]{40}"/);
    assert.match(page.body, />Brook</, 'the author by name');
  });
});
