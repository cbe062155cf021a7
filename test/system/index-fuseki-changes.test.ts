/**
 * The index on a real Fuseki (started here) synced by changed lines (graph-change.ts): a commit
 * that edits a document sends Fuseki the lines that changed, and the index still answers as HEAD,
 * where a deletion takes a literal Fuseki holds as the same term, or the same triple spaced
 * otherwise, where Fuseki refused the previous version (the next is sent whole, after a restart
 * too), and after an update Fuseki applied but whose answer was lost.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LodestoneError } from '../../src/errors.js';
import { engineError, type GraphReplacement } from '../../src/index/engine.js';
import { FusekiEngine } from '../../src/index/engines/fuseki.js';
import { RemoteIndex } from '../../src/index/remote-index.js';
import { RESULTS_JSON } from '../../src/rdf/media-types.js';
import { GitStore } from '../../src/store/git-store.js';
import { FusekiProcess } from '../engines/fuseki-engine.js';
import { removeTempDirs, tempDir } from '../helpers.js';

after(removeTempDirs);

const base = 'https://localhost:4443/';
const s = `<${base}a/#this>`;
const INT = '<http://www.w3.org/2001/XMLSchema#integer>';
const author = { name: 't', email: 't@t.invalid' };
const filler = (tag: string) => Array.from({ length: 10 }, (_, i) => `${s} <http://ex/f${i}> "${tag}${i}" .\n`).join('');

/**
 * A Fuseki engine that counts the graphs sent as changed lines, refuses (as Fuseki refuses invalid
 * RDF) any text holding "REFUSE", and loses the answer to the next replace once `loseAnswer` is set.
 */
class Recording extends FusekiEngine {
  changes = 0;
  loseAnswer = false;
  override async replace(space: Parameters<FusekiEngine['replace']>[0], graphs: readonly GraphReplacement[], marker: string | undefined): Promise<void> {
    if (graphs.some((g) => `${g.ntriples} ${g.change?.added}`.includes('REFUSE'))) throw new LodestoneError('SyntaxError', 'refused here');
    this.changes += graphs.filter((g) => g.change).length;
    await super.replace(space, graphs, marker);
    if (this.loseAnswer) {
      this.loseAnswer = false;
      throw engineError('the connection was reset (after Fuseki applied the update)');
    }
  }
}

describe('the index on Fuseki, synced by changed lines', () => {
  let fuseki: FusekiProcess;
  before(async () => {
    fuseki = await FusekiProcess.start();
  });
  after(async () => fuseki?.stop());

  async function open(dir: string, id: string, invalid: string[] = []): Promise<{ index: RemoteIndex; engine: Recording }> {
    const engine = new Recording(fuseki.url);
    const index = new RemoteIndex({ engine, id, gitdir: join(dir, '.git'), prefix: 'graphs', base, log: () => undefined, onInvalid: (path) => invalid.push(path) });
    return { index, engine };
  }

  async function objects(index: RemoteIndex, predicate: string): Promise<string[]> {
    const text = await index.query({ query: `SELECT ?o WHERE { ${s} <${predicate}> ?o }`, unionDefaultGraph: true, format: RESULTS_JSON }, 10_000);
    return (JSON.parse(String(text)) as { results: { bindings: Array<{ o: { value: string } }> } }).results.bindings.map((row) => row.o.value).sort();
  }

  it('sends an edit as its changed lines, and keeps what a deletion took with it', async () => {
    const dir = tempDir('fuseki-changes');
    const store = await GitStore.open({ dir });
    const { index, engine } = await open(dir, 'changes');
    const put = async (text: string) => index.syncTo(await store.write({ changes: [{ path: 'graphs/a.nt', bytes: Buffer.from(text) }], author, message: 'PUT a' }));
    try {
      await put(`${s} <http://ex/n> "042"^^${INT} .\n${s} <http://ex/n> "42"^^${INT} .\n${s} <http://ex/q> <${base}o> .\n${s}  <http://ex/q>  <${base}o> .\n` + filler('v'));
      // "042" goes (Fuseki holds it as 42, the same term as the "42" kept), and one spelling of the same triple goes
      await put(`${s} <http://ex/n> "42"^^${INT} .\n${s}  <http://ex/q>  <${base}o> .\n` + filler('v').replace('"v3"', '"w3"'));
      assert.equal(engine.changes, 1, 'the edit went as changed lines');
      assert.deepEqual(await objects(index, 'http://ex/n'), ['42']);
      assert.deepEqual(await objects(index, 'http://ex/q'), [`${base}o`]);
      assert.deepEqual(await objects(index, 'http://ex/f3'), ['w3']);
      assert.deepEqual(await objects(index, 'http://ex/f4'), ['v4']);
    } finally {
      await index.close();
      await store.close();
    }
  });

  it('sends whole the next version of a graph Fuseki refused, after a restart too', async () => {
    const dir = tempDir('fuseki-refused');
    const store = await GitStore.open({ dir });
    const write = (text: string) => store.write({ changes: [{ path: 'graphs/a.nt', bytes: Buffer.from(text) }], author, message: 'PUT a' });
    const invalid: string[] = [];
    let { index } = await open(dir, 'refused', invalid);
    try {
      await index.syncTo(await write(filler('v')));
      await index.syncTo(await write(filler('v') + `${s} <http://ex/r> "REFUSE" .\n`));
      assert.deepEqual(invalid, [`${base}a/`], 'reported');
      assert.deepEqual(await objects(index, 'http://ex/f4'), [], 'the refused version is left out');
      await index.close();
      ({ index } = await open(dir, 'refused', invalid));
      await index.syncTo(await write(filler('v').replace('"v3"', '"w3"'))); // the refused line gone, one line changed
      assert.deepEqual(await objects(index, 'http://ex/f4'), ['v4'], 'the graph is whole again');
      assert.deepEqual(await objects(index, 'http://ex/f3'), ['w3']);
    } finally {
      await index.close();
      await store.close();
    }
  });

  it('replays whole after an update whose answer was lost, though Fuseki applied it', async () => {
    const dir = tempDir('fuseki-lost');
    const store = await GitStore.open({ dir });
    const write = (text: string) => store.write({ changes: [{ path: 'graphs/a.nt', bytes: Buffer.from(text) }], author, message: 'PUT a' });
    const { index, engine } = await open(dir, 'lost');
    try {
      await index.syncTo(await write(filler('v')));
      engine.loseAnswer = true;
      await assert.rejects(index.syncTo(await write(filler('v').replace('"v3"', '"w3"'))));
      // f3 goes back to what the last commit indexed had, and f4 changes: Fuseki holds w3, which only a replay from both commits sees
      await index.syncTo(await write(filler('v').replace('"v4"', '"w4"')));
      assert.deepEqual(await objects(index, 'http://ex/f3'), ['v3']);
      assert.deepEqual(await objects(index, 'http://ex/f4'), ['w4']);
    } finally {
      await index.close();
      await store.close();
    }
  });
});
