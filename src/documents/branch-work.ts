/**
 * The costly part of a change request (issue 30): each changed document's triples removed and
 * added (its diff), and the three-way merge of each document both sides changed (rdf/three-way.ts).
 * Its cost is the documents' size, which a writer decides, so a server runs it in the `branches`
 * pool (branch-worker.ts), its blobs read there; in process by default. Blobs are read in the order
 * `blobsToRead` lists them.
 */
import { lineDifference, linesOf } from '../rdf/canonical-lines.js';
import { mergeDocument, type MergeOutcome } from '../rdf/three-way.js';

/** The diffs of documents, each from the blob it had at the merge base to the branch's (undefined: absent). */
export interface DiffWork {
  op: 'diff';
  gitdir: string;
  documents: ReadonlyArray<{ before?: string; after?: string }>;
}

/** A document to merge: its blobs at the merge base, on main (ours) and on the branch (theirs); undefined: absent. */
export interface MergeInput {
  base?: string;
  ours?: string;
  theirs?: string;
  /** The subject and predicate of the document's own dct:modified, which never conflicts: the later stays. */
  modified: string;
}

/** The three-way merges of documents. */
export interface MergeWork {
  op: 'merge';
  gitdir: string;
  documents: readonly MergeInput[];
}

export type BranchWork = DiffWork | MergeWork;

export type DiffResult = Array<{ removed: string[]; added: string[] }>;

/** Where a change request's costly part runs: the `branches` pool in a server, in process by default (`branchWork`). */
export type BranchWorkRunner = (work: BranchWork, readBlob: (id: string) => Promise<Buffer>) => Promise<DiffResult | MergeOutcome[]>;

/** The blobs `work` reads, in the order it reads them. */
export function blobsToRead(work: BranchWork): string[] {
  const ids = work.op === 'diff' ? work.documents.flatMap((d) => [d.before, d.after]) : work.documents.flatMap((d) => [d.base, d.ours, d.theirs]);
  return ids.filter((id): id is string => id !== undefined);
}

export async function branchWork(work: BranchWork, readBlob: (id: string) => Promise<Buffer>): Promise<DiffResult | MergeOutcome[]> {
  const text = async (blob: string | undefined) => (blob === undefined ? undefined : (await readBlob(blob)).toString('utf8'));
  if (work.op === 'diff') {
    const out: DiffResult = [];
    for (const d of work.documents) {
      const before = (await text(d.before)) ?? '';
      out.push(lineDifference(before, (await text(d.after)) ?? ''));
    }
    return out;
  }
  const out: MergeOutcome[] = [];
  for (const d of work.documents) {
    const lines = async (blob: string | undefined) => {
      const t = await text(blob);
      return t === undefined ? undefined : linesOf(t);
    };
    const [base, ours, theirs] = [await lines(d.base), await lines(d.ours), await lines(d.theirs)];
    out.push(mergeDocument(base, ours, theirs, (key, o, t) => (key === d.modified ? [[...o, ...t].sort().pop()!] : undefined)));
  }
  return out;
}
