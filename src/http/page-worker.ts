/**
 * A worker of the page drawer's pool (page-drawer.ts): draws a page from its data (pages/draw.ts).
 * It keeps the label tables it was sent by version (a few, the latest used); a call names the
 * versions it needs and carries a table's entries only when the worker answered that it lacks it.
 */
import { draw } from '../pages/draw.js';
import { LabelTable, Labels } from '../pages/labels.js';
import { lowerThreadPriority, serveCalls } from '../util/worker.js';
import type { PageRequest } from './page-drawer.js';

/** Label tables by version, the least recently used first. */
const tables = new Map<string, LabelTable>();
const KEPT_TABLES = 8;

lowerThreadPriority(5); // drawing yields the CPU to the thread answering requests
serveCalls<PageRequest>((request) => {
  const missing = request.layers.filter((layer) => !layer.entries && !tables.has(layer.key)).map((layer) => layer.key);
  if (missing.length > 0) return { missing };
  const layers = request.layers.map(({ key, entries }) => {
    const table = entries ? new LabelTable(entries) : tables.get(key)!;
    tables.delete(key);
    tables.set(key, table);
    return { key, table };
  });
  for (const key of tables.keys()) if (tables.size > KEPT_TABLES) tables.delete(key);
  return { html: draw(request.drawing, new Labels(layers)) };
});
