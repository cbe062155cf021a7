/** The history section's part for the diff and merge of a branch (not measured yet: it returns no rows). */
import type { BenchContext, Row } from './table.js';

export async function branchRows(_context: BenchContext): Promise<Row[]> {
  return [];
}
