/**
 * Uploaded files (issue 28), over real HTTPS with client certificates: a file POSTed to `uploads/`
 * (its bytes, or a form) becomes a git blob and its description in one commit, at a URL derived
 * from its SHA-1; the same bytes again change nothing. Served with their media type, a strong ETag
 * (304), nosniff and a sandbox, HTML and SVG as attachments; refused to strangers whether or not
 * they exist; bad input and bodies past the limit are 4xx with nothing written; git, reindex and a
 * hand edit of the description take the new files in their stride.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ns } from '../src/rdf/namespaces.js';
import { commitCount, git, headOf } from './helpers.js';
import { assertRdfError, header, makePublic, rawRequest, serverForFile, signUp, turtle, type TestServer } from './http-helpers.js';

let s: TestServer;
let repo: string;
const LIMIT = 4096;
serverForFile(
  (server, dir) => {
    s = server;
    repo = dir;
  },
  ['--upload-limit', String(LIMIT)],
  { tls: true },
);

/** A small PNG: the signature, then bytes that make each one different. */
function png(tag: string): Buffer {
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(`IHDR ${tag}`)]);
}
const sha1 = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex');
const blobId = (bytes: Buffer) => createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
const hasObject = (id: string) => {
  try {
    git(repo, 'cat-file', '-e', id);
    return true;
  } catch {
    return false;
  }
};

function multipart(parts: { name: string; filename?: string; type?: string; value: Buffer | string }[]): { body: Buffer; type: string } {
  const boundary = '----lodestone' + Math.random().toString(16).slice(2);
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`), Buffer.from(part.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

async function upload(bytes: Buffer, type: string, as?: { pem: string }) {
  return s.request('POST', '/uploads/', { headers: { 'Content-Type': type }, body: bytes, as });
}

describe('uploads', () => {
  const photo = png('photo');
  const id = sha1(photo);

  it('store a file POSTed as its bytes as a git blob and its description, in one commit, at uploads/<sha1>', async () => {
    const before = commitCount(repo);
    const res = await upload(photo, 'image/png');
    assert.equal(res.status, 201, res.body);
    assert.equal(header(res, 'location'), `${s.base}uploads/${id}`);
    assert.equal(header(res, 'link'), `<${s.base}uploads/${id}/>; rel="describedby"`);
    // the uploads container came first (the first upload), then the upload itself: one commit for blob and description
    assert.equal(commitCount(repo), before + 2);
    const changed = git(repo, 'show', '--name-only', '--format=%s', 'HEAD').trim().split('\n').filter(Boolean);
    assert.deepEqual(changed, [`PUT ${s.base}uploads/${id}/`, `graphs/uploads/${id}`, `graphs/uploads/${id}.nt`]);
    // the git CLI sees the blob, byte for byte, under the name git gives those bytes
    assert.deepEqual(execFileSync('git', ['-C', repo, 'show', `HEAD:graphs/uploads/${id}`]), photo);
    assert.equal(git(repo, 'rev-parse', `HEAD:graphs/uploads/${id}`).trim(), blobId(photo));
    const description = await s.request('GET', `/uploads/${id}/`, { headers: { Accept: 'application/n-triples' } });
    const file = `<${s.base}uploads/${id}>`;
    for (const line of [
      `${file} <${ns.rdf}type> <${ns.nfo}FileDataObject> .`,
      `${file} <${ns.dct}format> <${ns.mediatype}image/png> .`,
      `${file} <${ns.nfo}fileSize> "${photo.length}"^^<${ns.xsd}long> .`,
      `${file} <${ns.foaf}sha1> "${id}" .`,
      `${file} <${ns.dct}creator> <${s.running.agents.owner.webId}> .`,
    ]) assert.ok(description.body.includes(line), `${line}\n${description.body}`);
    assert.match(description.body, new RegExp(`${file} <${ns.dct}created> "[^"]+"\\^\\^<${ns.xsd}dateTime> \\.`));
  });

  it('serve the bytes with their media type, a strong ETag (304), nosniff and a sandbox; HEAD the same without a body', async () => {
    const res = await s.requestBytes('GET', `/uploads/${id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.bytes, photo);
    assert.equal(header(res, 'content-type'), 'image/png');
    assert.equal(header(res, 'etag'), `"${id}"`);
    assert.equal(header(res, 'x-content-type-options'), 'nosniff');
    assert.match(String(header(res, 'content-security-policy')), /sandbox/);
    assert.equal(header(res, 'content-disposition'), undefined, 'an image is shown in place');
    assert.equal(header(res, 'cache-control'), 'private, no-cache', 'not public: a shared cache keeps nothing');
    const again = await s.request('GET', `/uploads/${id}`, { headers: { 'If-None-Match': `"${id}"` } });
    assert.equal(again.status, 304);
    const head = await s.requestBytes('HEAD', `/uploads/${id}`);
    assert.equal(head.status, 200);
    assert.equal(head.bytes.length, 0);
    assert.equal(header(head, 'etag'), `"${id}"`);
    assertRdfError(await s.request('GET', `/uploads/${'0'.repeat(40)}`), 404);
  });

  it('give the same bytes sent again the same URL and answer, with no commit and no second blob', async () => {
    const before = headOf(repo);
    const res = await upload(photo, 'image/png');
    assert.equal(res.status, 201, res.body);
    assert.equal(header(res, 'location'), `${s.base}uploads/${id}`);
    assert.equal(headOf(repo), before);
    assert.equal(git(repo, 'ls-tree', '-r', 'HEAD', 'graphs/uploads/').split('\n').filter((l) => l.includes(blobId(photo))).length, 1);
  });

  it('take a form (multipart/form-data) with its file name and title; a browser is sent on to the description', async () => {
    const bytes = Buffer.from('plain words\n');
    const form = multipart([{ name: 'title', value: 'My notes' }, { name: 'file', filename: 'notes.txt', type: 'text/plain', value: bytes }]);
    const res = await s.request('POST', '/uploads/', { headers: { 'Content-Type': form.type, Accept: 'text/html' }, body: form.body });
    assert.equal(res.status, 303, res.body);
    assert.equal(header(res, 'location'), `${s.base}uploads/${sha1(bytes)}/`);
    const description = (await s.request('GET', `/uploads/${sha1(bytes)}/`, { headers: { Accept: 'application/n-triples' } })).body;
    assert.ok(description.includes(`<${s.base}uploads/${sha1(bytes)}> <${ns.nfo}fileName> "notes.txt" .`), description);
    assert.ok(description.includes(`<${s.base}uploads/${sha1(bytes)}> <${ns.dct}title> "My notes" .`), description);
    const served = await s.request('GET', `/uploads/${sha1(bytes)}`);
    assert.equal(served.body, 'plain words\n');
    assert.equal(header(served, 'content-type'), 'text/plain');
  });

  it('serve uploaded HTML and SVG as attachments in a sandbox, never as a page of this origin', async () => {
    for (const [type, bytes] of [
      ['text/html', Buffer.from('<!doctype html><script>parent.stolen = document.cookie</script>')],
      ['image/svg+xml', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')],
    ] as const) {
      assert.equal((await upload(bytes, type)).status, 201);
      const res = await s.request('GET', `/uploads/${sha1(bytes)}`);
      assert.equal(res.status, 200);
      assert.equal(header(res, 'content-type'), type);
      assert.match(String(header(res, 'content-disposition')), /^attachment/);
      assert.match(String(header(res, 'content-security-policy')), /sandbox; default-src 'none'/);
      assert.equal(header(res, 'x-content-type-options'), 'nosniff');
    }
  });

  it('refuse a stranger and anonymous the same way whether or not the file exists, and their uploads', async () => {
    const stranger = await signUp(s, 'Mallory');
    const missing = '1'.repeat(40);
    for (const as of [{ pem: stranger.pem }, 'anonymous' as const]) {
      const there = await s.request('GET', `/uploads/${id}`, { as });
      const absent = await s.request('GET', `/uploads/${missing}`, { as });
      assertRdfError(there, 403);
      assertRdfError(absent, 403);
      assert.equal(there.body.replaceAll(id, missing), absent.body);
      assert.equal((await s.request('HEAD', `/uploads/${id}`, { as })).status, 403);
    }
    const before = headOf(repo);
    assertRdfError(await upload(png('mallory'), 'image/png', { pem: stranger.pem }), 403);
    assert.equal(headOf(repo), before);
  });

  it('let an agent with Append on uploads/ read what it uploaded, and another who sends the same bytes nothing more', async () => {
    const [alice, bob] = [await signUp(s, 'Alice Uploader'), await signUp(s, 'Bob Uploader')];
    const acl = 'http://www.w3.org/ns/auth/acl#';
    const text = `<#this> a <${acl}Authorization> ; <${acl}agent> <${alice.webId}>, <${bob.webId}> ; <${acl}mode> <${acl}Append> ; <${acl}accessTo> <${s.base}uploads/> .\n`;
    await s.running.runtimes[1]!.documents.write({ method: 'PUT', relativePath: 'acl/authorizations/uploaders/', agent: s.running.agents.owner.webId, body: { text, mediaType: 'text/turtle' } });
    const bytes = png('alice');
    const first = await upload(bytes, 'image/png', { pem: alice.pem });
    assert.equal(first.status, 201, first.body);
    const read = await s.requestBytes('GET', `/uploads/${sha1(bytes)}`, { as: { pem: alice.pem } });
    assert.equal(read.status, 200, read.body);
    assert.deepEqual(read.bytes, bytes);
    const before = headOf(repo);
    const second = await upload(bytes, 'image/png', { pem: bob.pem });
    assert.deepEqual([second.status, header(second, 'location'), header(second, 'link')], [first.status, header(first, 'location'), header(first, 'link')], 'the same answer: Bob learns nothing of Alice\'s upload');
    assert.equal(headOf(repo), before);
    assertRdfError(await s.request('GET', `/uploads/${sha1(bytes)}`, { as: { pem: bob.pem } }), 403);
    assertRdfError(await s.request('GET', `/uploads/${sha1(bytes)}/`, { as: { pem: bob.pem } }), 403);
  });

  it('refuse an upload form that a page of another site makes the owner’s browser send', async () => {
    const before = headOf(repo);
    const form = multipart([{ name: 'file', filename: 'x.png', type: 'image/png', value: png('cross-site') }]);
    for (const headers of [{ 'Sec-Fetch-Site': 'cross-site' }, { Origin: 'https://evil.example' }] as Record<string, string>[]) {
      assertRdfError(await s.request('POST', '/uploads/', { headers: { ...headers, 'Content-Type': form.type }, body: form.body }), 403);
    }
    assert.equal(headOf(repo), before);
  });

  it('answer bad input with a 4xx and the RDF error body, writing nothing', async () => {
    const before = headOf(repo);
    const bogus = Buffer.from('not a png at all');
    const form = (parts: Parameters<typeof multipart>[0]) => multipart(parts);
    const noFile = form([{ name: 'title', value: 'no file here' }]);
    const emptyFile = form([{ name: 'file', filename: '', type: 'application/octet-stream', value: '' }]);
    const cases: [string, Record<string, string>, Buffer, number, RegExp][] = [
      ['no Content-Type', {}, bogus, 415, /no Content-Type/],
      ['a PNG that is not', { 'Content-Type': 'image/png' }, bogus, 415, /not image\/png/],
      ['an empty body', { 'Content-Type': 'application/pdf' }, Buffer.alloc(0), 400, /empty/],
      ['multipart/mixed', { 'Content-Type': 'multipart/mixed; boundary=x' }, bogus, 415, /not a media type a file can be uploaded with/],
      ['a form without a file', { 'Content-Type': noFile.type }, noFile.body, 400, /no file/],
      ['a form with no file chosen', { 'Content-Type': emptyFile.type }, emptyFile.body, 400, /no file/],
      ['a form that is not one', { 'Content-Type': 'multipart/form-data; boundary=zzz' }, bogus, 400, /cannot be read/],
    ];
    for (const [what, headers, body, status, message] of cases) {
      const res = await s.request('POST', '/uploads/', { headers, body });
      assertRdfError(res, status);
      assert.match(res.body, message, what);
      assert.equal(headOf(repo), before, what);
    }
    assert.equal(hasObject(blobId(bogus)), false);
  });

  it('hold up no other request while an upload comes slowly, nor another upload', async () => {
    const bytes = png('slow');
    let reads = 0;
    const slow = await rawRequest(s, 'POST', '/uploads/', { 'Content-Type': 'image/png', 'Content-Length': String(bytes.length) }, async (req, answered) => {
      req.write(bytes.subarray(0, 10));
      // half a body in: a read and another upload are answered meanwhile
      assert.equal((await s.request('GET', '/uploads/', { headers: { Accept: 'application/n-triples' } })).status, 200);
      assert.equal((await upload(png('quick'), 'image/png')).status, 201);
      reads++;
      assert.equal(answered(), false);
      req.end(bytes.subarray(10));
    });
    assert.equal(slow.status, 201, slow.body);
    assert.equal(reads, 1);
  });

  it('answer 413 past the upload limit, declared or streamed, with no blob and no commit', async () => {
    const before = headOf(repo);
    const big = Buffer.concat([png('big'), Buffer.alloc(LIMIT, 7)]);
    const declared = await upload(big, 'image/png');
    assertRdfError(declared, 413);
    assert.match(declared.body, new RegExp(`at most ${LIMIT} bytes`));
    // chunked: no length declared, the body grows past the limit as it comes
    const streamed = await rawRequest(s, 'POST', '/uploads/', { 'Content-Type': 'image/png', 'Transfer-Encoding': 'chunked' }, (req) => {
      for (let at = 0; at < big.length; at += 1024) req.write(big.subarray(at, at + 1024));
      req.end();
    });
    assertRdfError(streamed, 413);
    const form = multipart([{ name: 'file', filename: 'big.png', type: 'image/png', value: big }]);
    assertRdfError(await s.request('POST', '/uploads/', { headers: { 'Content-Type': form.type }, body: form.body }), 413);
    assert.equal(headOf(repo), before);
    assert.equal(hasObject(blobId(big)), false);
  });

  it('keep descriptions for uploads: none by hand, nothing under one; RDF posted to uploads/ goes to the container', async () => {
    const before = headOf(repo);
    const made = await s.request('PUT', `/uploads/${'2'.repeat(40)}/`, { headers: turtle, body: '<#this> a <http://example.org/Thing> .' });
    assertRdfError(made, 409);
    const under = await s.request('PUT', `/uploads/${id}/child/`, { headers: turtle, body: '<#this> a <http://example.org/Thing> .' });
    assertRdfError(under, 422);
    assert.equal(headOf(repo), before);
    const etag = String(header(await s.request('HEAD', '/uploads/'), 'etag'));
    const rdf = await s.request('POST', '/uploads/', { headers: { ...turtle, 'If-Match': etag }, body: `<> <${ns.dct}description> "Files of the team" .` });
    assert.equal(rdf.status, 204, rdf.body);
    assert.match((await s.request('GET', '/uploads/', { headers: { Accept: 'application/n-triples' } })).body, /Files of the team/);
  });

  it('take a hand edit of a description, ignore one of the blob, and keep the history of the description', async () => {
    const runtime = s.running.runtimes[0]!;
    await runtime.dataspace.settled();
    const before = commitCount(repo);
    const file = join(repo, `graphs/uploads/${id}.nt`);
    writeFileSync(file, readFileSync(file, 'utf8') + `<${s.base}uploads/${id}/> <${ns.dct}description> "edited by hand" .\n`);
    await runtime.dataspace.workingTree.fileChanged(`graphs/uploads/${id}.nt`);
    assert.equal(commitCount(repo), before + 1, 'the description, edited, is committed');
    writeFileSync(join(repo, `graphs/uploads/${id}`), 'scribbled');
    await runtime.dataspace.workingTree.fileChanged(`graphs/uploads/${id}`);
    assert.equal(commitCount(repo), before + 1, 'the blob is not a document: nothing is committed');
    const res = await s.requestBytes('GET', `/uploads/${id}`);
    assert.deepEqual(res.bytes, photo);
    const timemap = await s.request('GET', `/uploads/${id}/?timemap`, { headers: { Accept: 'application/link-format' } });
    assert.equal(timemap.status, 200, timemap.body);
    assert.equal(timemap.body.match(/rel="[^"]*memento"/g)?.length, 2);
  });

  it('delete the blob with its description, and restore both, each in one commit', async () => {
    const bytes = png('to delete');
    assert.equal((await upload(bytes, 'image/png')).status, 201);
    const head = await s.request('HEAD', `/uploads/${sha1(bytes)}/`);
    const res = await s.request('DELETE', `/uploads/${sha1(bytes)}/`, { headers: { 'If-Match': String(header(head, 'etag')) } });
    assert.equal(res.status, 204, res.body);
    assert.deepEqual(git(repo, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n'), [`graphs/uploads/${sha1(bytes)}`, `graphs/uploads/${sha1(bytes)}.nt`]);
    assertRdfError(await s.request('GET', `/uploads/${sha1(bytes)}`), 404);
    // restored from its history, the description brings its file back, in one commit
    const restored = await s.request('POST', `/uploads/${sha1(bytes)}/?restore=${git(repo, 'rev-parse', 'HEAD~1').trim()}`, { headers: { 'If-None-Match': '*' } });
    assert.equal(restored.status, 201, restored.body);
    assert.deepEqual(git(repo, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n'), [`graphs/uploads/${sha1(bytes)}`, `graphs/uploads/${sha1(bytes)}.nt`]);
    assert.deepEqual((await s.requestBytes('GET', `/uploads/${sha1(bytes)}`)).bytes, bytes);
  });

  it('let shared caches keep a file anyone may read for a year (SPEC §8.5), and nothing else', async () => {
    await makePublic(s, 'uploads-public');
    const res = await s.requestBytes('GET', `/uploads/${id}`, { as: 'anonymous' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.bytes, photo);
    assert.equal(header(res, 'cache-control'), 'public, max-age=31536000, immutable');
  });

  it('index the descriptions and nothing of the blobs, after a reindex too', async () => {
    const query = `SELECT ?g WHERE { GRAPH ?g { ?file a <${ns.nfo}FileDataObject> } } ORDER BY ?g`;
    const ask = async () => JSON.parse((await s.request('GET', `/sparql?query=${encodeURIComponent(query)}`, { headers: { Accept: 'application/sparql-results+json' } })).body).results.bindings.map((b: { g: { value: string } }) => b.g.value) as string[];
    const graphs = await ask();
    assert.ok(graphs.includes(`${s.base}uploads/${id}/`), graphs.join('\n'));
    const { data } = s;
    await s.close();
    const out = execFileSync(process.execPath, ['bin/lodestone.js', 'reindex', '--data', data], { encoding: 'utf8' });
    assert.match(out, /end-user: \d+ documents/);
  });
});
