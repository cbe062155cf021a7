/**
 * The costly history requests hold up no other request (issue 30): while a change request's diff
 * is read and its three-way merge runs (a document of 250,000 triples changed on main and on the
 * branch), while a commit that changed a document of 30,000 triples is reverted, and while a
 * document of 150 versions is blamed, GETs of a small document keep being answered, the loop of
 * them never going a generous bound without an answer (a liveness check, as
 * http-liveness.test.ts makes, not a benchmark); and each request does its work.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { git } from './helpers.js';
import { serverForFile, turtle, type TestServer } from './http-helpers.js';
import type { Dataspace } from '../src/dataspace.js';
import type { Change } from '../src/store/git-store.js';

const TRIPLES = 250_000;
/** No GET waits this long unless the thread answering requests was held (http-liveness's bound). */
const BOUND_MS = 1000;
const PAUSE_MS = 20;
/** Versions of the blamed document. */
const VERSIONS = 150;
const AUTHOR = { name: 'test', email: 'test@lodestone.invalid' };

let s: TestServer;
let dir: string;
let dataspace: Dataspace;

serverForFile(async (server, repo) => {
  s = server;
  dir = repo;
  dataspace = s.running.runtimes[0]!.dataspace;
  assert.equal((await s.request('PUT', '/probe/', { headers: turtle, body: '<#this> <http://purl.org/dc/terms/title> "Probe" .' })).status, 201);
});

/** The large document's canonical bytes (sorted: the subjects are zero-padded), line `i` changed to `edit` when given. */
function big(edits: Record<number, string> = {}): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < TRIPLES; i++) lines.push(`<${s.base}big/#s${String(i).padStart(7, '0')}> <http://purl.org/dc/terms/title> "${edits[i] ?? `value ${i}`}" .`);
  return Buffer.from(lines.join('\n') + '\n');
}

const onMain = (changes: Change[]) => dataspace.store.transact(async () => ({ intent: { changes, author: AUTHOR, message: 'PUT big' }, result: undefined }));
const onBranch = (name: string, changes: Change[]) => dataspace.branches.transact(name, async () => ({ intent: { changes, author: AUTHOR, message: 'PUT big' }, result: undefined }));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * GETs of the probe one after another until stopped; gives how many were answered and the longest
 * the loop went without an answer (a GET under way, or the pause between two, held up alike).
 */
function getLoop(): { stop(): Promise<{ answered: number; longestMs: number }> } {
  let stopped = false;
  let answered = 0;
  let longestMs = 0;
  let last = Date.now();
  const running = (async () => {
    while (!stopped) {
      const res = await s.request('GET', '/probe/', { headers: { Accept: 'application/n-triples' } });
      assert.equal(res.status, 200);
      longestMs = Math.max(longestMs, Date.now() - last);
      last = Date.now();
      answered++;
      await sleep(PAUSE_MS);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await running;
      return { answered, longestMs };
    },
  };
}

/** Runs `work` while GETs of the probe loop, and checks none went the bound without an answer. */
async function whileGetsFlow<T>(what: string, work: () => Promise<T>): Promise<T> {
  const loop = getLoop();
  await sleep(100);
  const result = await work();
  const { answered, longestMs } = await loop.stop();
  assert.ok(answered > 0, 'GETs were answered meanwhile');
  assert.ok(longestMs < BOUND_MS, `no GET was answered for ${longestMs} ms while ${what}`);
  return result;
}

/** `count` lines of a document `name`, sorted as canonical files are (the subjects are zero-padded), line `i` changed to `edits[i]`. */
function lines(name: string, count: number, edits: Record<number, string> = {}): Buffer {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(`<${s.base}${name}/#s${String(i).padStart(7, '0')}> <http://purl.org/dc/terms/title> "${edits[i] ?? `value ${i}`}" .`);
  return Buffer.from(out.join('\n') + '\n');
}

describe('costly history requests hold up no other request (issue 30)', () => {
  it('answers GETs while a change request’s diff and three-way merge run, and merges both sides’ edits', async () => {
    const path = `${dataspace.store.prefix}/big.nt`;
    await onMain([{ path, bytes: big() }]);
    await onBranch('large', [{ path, bytes: big({ [TRIPLES - 10]: 'on the branch' }) }]);
    await onMain([{ path, bytes: big({ 10: 'on main' }) }]);
    const merge = await whileGetsFlow('the change request was diffed and merged', async () => {
      const diff = await s.request('GET', '/?branch=large&changes', { headers: { Accept: 'text/plain' } });
      assert.equal(diff.status, 200, diff.body);
      assert.equal(diff.body.split('\n').filter((l) => /^[-+] /.test(l)).length, 2, 'one triple removed and one added');
      return s.request('POST', '/?branch=large&changes', { headers: { 'If-Match': String(diff.headers.etag) } });
    });
    assert.equal(merge.status, 204, merge.body);
    const edits = git(dir, 'grep', '-h', '-F', '"on ', 'main', '--', path);
    assert.match(edits, /#s0000010> .* "on main" \./);
    assert.match(edits, /"on the branch" \./);
  });

  it('answers GETs while a commit that changed a large document is reverted, and reverts it', async () => {
    const path = `${dataspace.store.prefix}/reverted.nt`;
    await onMain([{ path, bytes: lines('reverted', 30_000) }]);
    const { commit: mistake } = await onMain([{ path, bytes: lines('reverted', 30_000, { 5: 'by mistake' }) }]);
    const etag = String((await s.request('HEAD', '/')).headers.etag);
    const res = await whileGetsFlow('a commit was reverted', () => s.request('POST', `/?revert=${mistake}`, { headers: { 'If-Match': etag } }));
    assert.equal(res.status, 204, res.body);
    const now = git(dir, 'grep', '-h', '-F', '#s0000005>', 'HEAD', '--', path);
    assert.match(now, /"value 5"/);
  });

  it('answers GETs while a document of a long history is blamed', async () => {
    const path = `${dataspace.store.prefix}/blamed.nt`;
    for (let v = 0; v < VERSIONS; v++) await onMain([{ path, bytes: lines('blamed', 2_000, { [v]: `version ${v}` }) }]);
    const res = await whileGetsFlow('a document was blamed', () => s.request('GET', '/blamed/?blame', { headers: { Accept: 'application/n-triples' } }));
    assert.equal(res.status, 200, res.body.slice(0, 400));
    assert.match(res.body, /"value 0"/);
  });
});
