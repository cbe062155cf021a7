/**
 * Who and why (issue 30): a write's message (the Lodestone-Message header) becomes its commit's
 * message body; the history page and the RDF TimeMap show each version's message and its author by
 * name; an edit committed with git keeps its author and message, and the working tree's commit that
 * puts its lines in canonical order says so, after whom, and sets dct:modified. The git CLI on the
 * same repository; the page in Chromium is test/system/history-why-page.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { git, unchangedRepository, waitFor } from './helpers.js';
import { assertRdfError, serverForFile, turtle, type TestServer } from './http-helpers.js';

let s: TestServer;
let dir: string;

serverForFile(async (server, repo) => {
  s = server;
  dir = repo;
}, [], { watch: true }); // git's commits taken in

const DCT = 'http://purl.org/dc/terms/';
const etagOf = async (path: string) => String((await s.request('HEAD', path)).headers.etag);
/**
 * Commits `text` as graphs/git.nt as Ada with `message`, as a pull or a commit made elsewhere does:
 * the branch moves, and the working tree's file is the server's to bring up to it (no file event
 * races the commit). Returns the commit.
 */
function commitWithGit(text: string, message: string): string {
  const run = (args: string[], input?: string) => execFileSync('git', ['-C', dir, ...args], { input, env: { ...process.env, GIT_INDEX_FILE: join(dir, '.git', 'why-test-index'), GIT_AUTHOR_NAME: 'Ada', GIT_AUTHOR_EMAIL: 'ada@example.org', GIT_COMMITTER_NAME: 'Ada', GIT_COMMITTER_EMAIL: 'ada@example.org' } }).toString().trim();
  const blob = run(['hash-object', '-w', '--stdin'], text);
  run(['read-tree', 'HEAD']);
  run(['update-index', '--add', '--cacheinfo', `100644,${blob},graphs/git.nt`]);
  const commit = run(['commit-tree', run(['write-tree']), '-p', 'HEAD', '-F', '-'], message);
  run(['update-ref', 'HEAD', commit]);
  return commit;
}
const modifiedIn = (text: string) => new RegExp(`<${DCT}modified> "([^"]+)"`).exec(text)?.[1];

describe('who and why: messages through HTTP', () => {
  it('puts the Lodestone-Message header, percent-decoded UTF-8, in the commit message after the METHOD URL line', async () => {
    const message = 'Fix the title — año 2026\nSecond line of the why';
    const res = await s.request('PUT', '/why/', { headers: { ...turtle, 'Lodestone-Message': encodeURIComponent(message) }, body: '<#this> <http://purl.org/dc/terms/title> "Why" .' });
    assert.equal(res.status, 201, res.body);
    assert.equal(git(dir, 'log', '-1', '--format=%B').trimEnd(), `PUT ${s.base}why/\n\n${message}`);
    const patch = await s.request('PATCH', '/why/', { headers: { 'Content-Type': 'application/sparql-update', 'If-Match': await etagOf('/why/'), 'Lodestone-Message': 'Adds%20a%20subject' }, body: `INSERT { <${s.base}why/#this> <${DCT}subject> "history" } WHERE {}` });
    assert.equal(patch.status, 204, patch.body);
    assert.equal(git(dir, 'log', '-1', '--format=%B').trimEnd(), `PATCH ${s.base}why/\n\nAdds a subject`);
  });

  it('refuses a message with a control character, one too long, or one not percent-encoded, with a 400 and no commit', async () => {
    const put = (message: string) => s.request('PUT', '/why/', { headers: { ...turtle, 'If-Match': '*', 'Lodestone-Message': message }, body: '<#this> <http://purl.org/dc/terms/title> "Not so" .' });
    await unchangedRepository(dir, async () => {
      assertRdfError(await put('bell%07'), 400, { title: /control character/ });
      assertRdfError(await put('carriage%0D%0Areturn'), 400, { title: /control character/ });
      assertRdfError(await put('x'.repeat(1001)), 400, { title: /at most 1000/ });
      assertRdfError(await put('%E0%A4%A'), 400, { title: /percent-encoded/ });
    });
    const fits = await s.request('PUT', '/why/', { headers: { ...turtle, 'If-Match': await etagOf('/why/'), 'Lodestone-Message': 'ñ'.repeat(1000).split('').map(encodeURIComponent).join('') }, body: '<#this> <http://purl.org/dc/terms/title> "Why" .' });
    assert.equal(fits.status, 200, 'a thousand characters, however many bytes, fit');
  });

  it('lets a page of another origin send the header (a CORS preflight allows it)', async () => {
    const res = await s.request('OPTIONS', '/why/', { as: 'anonymous', headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'content-type,if-match,lodestone-message' } });
    assert.ok(res.status < 300, String(res.status));
    assert.match(String(res.headers['access-control-allow-headers']), /lodestone-message/i);
  });

  it('gives a restore the message too, after the line that says which version it restores', async () => {
    const first = git(dir, 'log', '--format=%H', '--reverse', '--', 'graphs/why.nt').split('\n')[0]!;
    const res = await s.request('POST', `/why/?restore=${first}`, { headers: { 'If-Match': await etagOf('/why/'), 'Lodestone-Message': 'Back%20to%20the%20start' } });
    assert.equal(res.status, 204, res.body);
    assert.match(git(dir, 'log', '-1', '--format=%B'), new RegExp(`^POST ${s.base}why/\\n\\nRestores the version of [0-9a-f]{40}\\.\\n\\nBack to the start\\n`));
  });

  it('shows each version’s message and its author by name in the RDF TimeMap', async () => {
    const res = await s.request('GET', '/why/?timemap', { headers: { Accept: 'application/n-triples' } });
    assert.equal(res.status, 200, res.body);
    assert.match(res.body, new RegExp(`<${DCT}description> "Fix the title \\\\u2014 a\\\\u00F1o 2026\\\\nSecond line of the why"|<${DCT}description> "Fix the title — año 2026\\\\nSecond line of the why"`));
    assert.ok(res.body.includes(`<${DCT}description> "Adds a subject" .`), 'the PATCH’s message');
    const owner = s.running.agents.owner.webId;
    assert.ok(res.body.includes(`<${owner}> <http://xmlns.com/foaf/0.1/name> "Owner" .`), 'the author’s name, from its agent document');
    const plain = await s.request('GET', '/why/?timemap', { headers: { Accept: 'application/link-format' } });
    assert.doesNotMatch(plain.body, /Adds a subject/, 'link-format stays RFC 7089’s');
  });
});

describe('who and why: edits made with git', () => {
  let made: string;
  let modifiedBefore: string | undefined;
  before(async () => {
    const res = await s.request('PUT', '/git/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "Made over HTTP" .' });
    assert.equal(res.status, 201);
    await waitFor(() => existsSync(join(dir, 'graphs/git.nt')) && readFileSync(join(dir, 'graphs/git.nt'), 'utf8').includes('Made over HTTP'));
    modifiedBefore = modifiedIn(readFileSync(join(dir, 'graphs/git.nt'), 'utf8'));
    assert.ok(modifiedBefore);
  });

  it('keeps the author and message of a commit made with the git CLI, and its canonical-order commit says what it did after whom', async () => {
    // a line out of order and a duplicate: not canonical
    const text = git(dir, 'show', 'HEAD:graphs/git.nt') + `<${s.base}git/#this> <${DCT}description> "written with git" .\n<${s.base}git/#this> <${DCT}description> "written with git" .\n`;
    made = commitWithGit(text, 'Ada adds a description\n\nBecause it was missing.');
    await waitFor(() => git(dir, 'rev-parse', 'HEAD').trim() !== made, 10_000);
    const [author, committer, ...body] = git(dir, 'log', '-1', '--format=%an <%ae>%n%cn%n%B').trimEnd().split('\n');
    assert.equal(author, 'Ada <ada@example.org>', 'the person who made the edit stays its author');
    assert.equal(committer, 'Lodestone (working tree)');
    assert.equal(body[0], `PUT ${s.base}git/`);
    assert.match(body.slice(2).join('\n'), new RegExp(`^Canonical order of the lines of ${made.slice(0, 12)} by Ada\\. dct:modified set to \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\.$`));
    assert.equal(git(dir, 'log', '-1', '--format=%an%n%B', made).trimEnd(), 'Ada\nAda adds a description\n\nBecause it was missing.', 'Ada’s commit is kept as she made it');
    const stored = git(dir, 'show', 'HEAD:graphs/git.nt');
    assert.equal(stored.match(/written with git/g)?.length, 1);
    assert.notEqual(modifiedIn(stored), modifiedBefore, 'dct:modified follows the edit, as for an HTTP write');
  });

  it('shows Ada and her message in the TimeMap and on the history page', async () => {
    const rdf = await s.request('GET', '/git/?timemap', { headers: { Accept: 'application/n-triples' } });
    assert.match(rdf.body, /<http:\/\/purl.org\/dc\/terms\/description> "Ada adds a description\\n\\nBecause it was missing\."/);
    assert.match(rdf.body, /_:\S+ <http:\/\/xmlns.com\/foaf\/0.1\/name> "Ada" \./);
    const page = await s.request('GET', '/git/?timemap', { headers: { Accept: 'text/html' } });
    assert.match(page.body, /<td class="message">Ada adds a description\n\nBecause it was missing\.<\/td>/);
    assert.match(page.body, /<td>Ada<\/td>/);
  });

  it('says an edit of the working tree alone is a hand edit, and sets dct:modified', async () => {
    await waitFor(() => !git(dir, 'status', '--porcelain', '--', 'graphs/git.nt').trim(), 10_000);
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const file = join(dir, 'graphs/git.nt');
    const before = readFileSync(file, 'utf8');
    writeFileSync(file, `<${s.base}git/#this> <${DCT}subject> "by hand" .\n` + before);
    await waitFor(() => git(dir, 'rev-parse', 'HEAD').trim() !== head, 10_000);
    const [author, ...body] = git(dir, 'log', '-1', '--format=%an%n%B').trimEnd().split('\n');
    assert.equal(author, 'hand edit');
    assert.match(body.join('\n'), /^PUT \S+\n\nCanonical order of the lines of graphs\/git\.nt as edited in the working tree\. dct:modified set to /);
    assert.notEqual(modifiedIn(git(dir, 'show', 'HEAD:graphs/git.nt')), modifiedIn(before));
  });

  it('makes no further commit for a commit that is canonical and sets dct:modified itself', async () => {
    await waitFor(() => !git(dir, 'status', '--porcelain', '--', 'graphs/git.nt').trim(), 10_000);
    const text = git(dir, 'show', 'HEAD:graphs/git.nt');
    const head = commitWithGit(text.replace(modifiedIn(text)!, '2030-01-01T00:00:00.000Z'), 'Ada dates it');
    await waitFor(() => s.running.runtimes[0]!.documents.head() === head, 10_000);
    await new Promise((r) => setTimeout(r, 600)); // the watcher's turn
    assert.equal(git(dir, 'rev-parse', 'HEAD').trim(), head, 'a pulled commit of another server’s write stays as it is');
  });
});
