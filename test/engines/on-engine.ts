/**
 * The SPARQL, access-control, history and hostile suites again, with every test server's end-user
 * dataspace indexed on an engine of `kind` of its own, fresh or emptied (test/engines/engine-pool.ts): each test/system/on-<kind>.test.ts
 * calls this, so one `npm test` runs them on every engine. A missing engine fails.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { startServer, testEngines } from '../http-helpers.js';

export async function suitesOn(kind: string): Promise<void> {
  process.env.LODESTONE_TEST_INDEX = kind;
  it(`puts the end-user dataspace on ${kind}, and the admin dataspace stays embedded`, async () => {
    const s = await startServer();
    try {
      const kinds = s.running.runtimes.map((r) => `${r.dataspace.id} ${r.dataspace.index.kind}`).sort();
      assert.deepEqual(kinds, ['admin embedded', `end-user ${kind}`]);
    } finally {
      await s.close();
    }
  });
  await import('../http-sparql.test.js');
  await import('../http-access.test.js');
  await import('../http-system-access.test.js');
  await import('../http-memento.test.js');
  await import('../http-hostile.test.js');
  await import('../http-attacks.test.js');
  // after the suites' own after hooks (hooks run in the order they are added), which close their servers
  testEngines.keepSpares();
}
