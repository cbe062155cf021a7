/**
 * The thread map (src/threads.ts) is the whole picture: every worker entry of src/ is a row of it,
 * every row names an entry that exists, no other module names a worker entry (the composition root
 * builds each pool from its row), and docs/architecture.md's table has every row.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { POOLS, THREADS, threadTable, type ThreadPlan } from '../src/threads.js';
import { ROOT } from './root.js';

const SRC = join(ROOT, 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []));
}

describe('the thread map', () => {
  const rows: [string, ThreadPlan][] = [...Object.entries(POOLS), ...Object.entries(THREADS)];

  it('has a row for every worker entry of src/, and every row names one that exists', () => {
    const named = new Set(rows.map(([, plan]) => plan.entry));
    // a worker entry is a module that answers calls (util/worker.ts serveCalls)
    const entries = sources(SRC).filter((file) => /^serveCalls(<[^>]*>)?\(/m.test(readFileSync(file, 'utf8'))).map((file) => relative(SRC, file));
    assert.ok(entries.length >= 6, entries.join(', '));
    assert.deepEqual(entries.filter((entry) => !named.has(entry)), [], 'worker entries the map does not name');
    for (const [name, plan] of rows) assert.ok(existsSync(join(SRC, plan.entry)), `${name}: ${plan.entry}`);
  });

  it('is the one module that names a worker entry: pools and threads are built from its rows', () => {
    const naming = sources(SRC).filter((file) => !file.endsWith('threads.ts') && /new URL\(\s*['"][^'"]*-worker\.js['"]/.test(readFileSync(file, 'utf8')));
    assert.deepEqual(naming.map((file) => relative(SRC, file)), []);
  });

  it('names each row\'s true caller: a pool\'s entry answers the calls its caller defines, a thread is started by its caller', () => {
    for (const [name, plan] of Object.entries(POOLS)) {
      const entry = readFileSync(join(SRC, plan.entry), 'utf8');
      const imported = [...entry.matchAll(/^import type \{[^}]*\} from '([^']+)'/gm)].map((m) => relative(SRC, join(SRC, plan.entry, '..', m[1]!)).replace(/\.js$/, '.ts'));
      assert.ok(imported.includes(plan.caller), `${name}: ${plan.entry} answers the calls of ${imported.join(', ') || 'no module'}, not of ${plan.caller}`);
    }
    for (const [name, plan] of Object.entries(THREADS)) assert.match(readFileSync(join(SRC, plan.caller), 'utf8'), new RegExp(`THREADS\\.${name}\\b`), `${name}: started by ${plan.caller}`);
  });

  it('lists every row in its table, with the thread count of a server', () => {
    const table = threadTable(2, 3, 1);
    for (const [name] of rows) assert.match(table, new RegExp(`^\\| ${name} \\|`, 'm'));
    assert.match(table, /\| indexLane \| \(3 \+ 1\) × 2 \|/);
    const pooled = Object.values(POOLS).reduce((sum, plan) => sum + plan.size, 0);
    assert.match(table, new RegExp(`At most ${pooled + 1 + 8} threads`));
  });

  it('is docs/architecture.md\'s table of threads, as a server of the default instance has them', () => {
    const readme = readFileSync(join(SRC, '..', 'docs', 'architecture.md'), 'utf8');
    assert.ok(readme.includes(threadTable().trimEnd()), 'docs/architecture.md, "Threads", holds threadTable() as it prints now: paste it there');
  });
});
