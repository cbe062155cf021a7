/** The history section's part for a SPARQL query at a past commit (not measured yet: it returns no rows). */
import type { BenchContext, Row } from './table.js';

export async function pastQueryRows(_context: BenchContext): Promise<Row[]> {
  return [];
}
