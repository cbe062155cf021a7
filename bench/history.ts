/**
 * The history section (`--only history`, issue 30): a SPARQL query at a past commit (first and
 * repeated), blame of a document with many versions, and the diff and merge of a branch of many
 * documents. Each part lives in its own module and returns its rows; this one only joins them.
 */
import { pastQueryRows } from './history-query.js';
import { blameRows } from './history-blame.js';
import { branchRows } from './history-branches.js';
import type { BenchContext, Row, Section } from './table.js';

async function runSection(context: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  for (const part of [pastQueryRows, blameRows, branchRows]) rows.push(...(await part(context)));
  return rows;
}

export const historySection: Section = { name: 'history', run: runSection };
