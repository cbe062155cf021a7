/**
 * Where a create's time goes in a container of `argv[3]` documents: seeds a repository at `argv[2]`
 * (as bench/scale.ts does), then runs 200 creates from 16 writers under `node --cpu-prof`.
 */
import { join } from 'node:path';
import { canonicalBytes } from '../src/rdf/canonical.js';
import { GitStore } from '../src/store/git-store.js';
import { documentQuads } from './documents.js';
import { BENCH_AUTHOR } from './repos.js';

const [dir, size] = [process.argv[2]!, Number(process.argv[3] ?? 100_000)];
const seedStore = await GitStore.open({ dir });
const seed = Buffer.from('<https://example.org/seed> <https://example.org/p> "seed" .\n');
const changes = Array.from({ length: size }, (_, i) => ({ path: `graphs/w/s${i}.nt`, bytes: seed }));
await seedStore.write({ changes, author: BENCH_AUTHOR, message: 'Seed' });
await seedStore.close();
const store = await GitStore.open({ dir: join(dir) });
const body = await canonicalBytes(documentQuads(1, 'flat', 3));
const start = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < 200) {
      const n = next++;
      await store.write({ changes: [{ path: `graphs/w/n${n}.nt`, bytes: body }], author: BENCH_AUTHOR, message: `PUT n${n}` });
    }
  }),
);
console.log(`${size}: ${((200 * 1000) / (performance.now() - start)).toFixed(1)} creates/s`);
await store.close();
