/** The history section's part for blame of a document with many versions (not measured yet: it returns no rows). */
import type { BenchContext, Row } from './table.js';

export async function blameRows(_context: BenchContext): Promise<Row[]> {
  return [];
}
