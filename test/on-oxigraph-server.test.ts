/**
 * The SPARQL, access-control, history and hostile tests again, with every test server's end-user
 * dataspace indexed on a fresh Oxigraph server (`oxigraph serve` on loopback: test/engines/).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { startServer } from './http-helpers.js';

process.env.LODESTONE_TEST_INDEX = 'oxigraph-server';

it('puts the end-user dataspace on the engine, and the admin dataspace stays embedded', async () => {
  const s = await startServer();
  try {
    const kinds = s.running.runtimes.map((r) => `${r.dataspace.id} ${r.dataspace.index.kind}`).sort();
    assert.deepEqual(kinds, ['admin embedded', 'end-user oxigraph-server']);
  } finally {
    await s.close();
  }
});

await import('./http-sparql.test.js');
await import('./http-access.test.js');
await import('./http-system-access.test.js');
await import('./http-memento.test.js');
await import('./http-hostile.test.js');
await import('./http-attacks.test.js');
