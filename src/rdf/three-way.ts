/**
 * The three-way merge of one document's canonical N-Triples (issue 30): base (the merge base), ours
 * (the main branch), theirs (the branch). Triples are grouped by subject and predicate; for each
 * group, a side that left it as in base takes the other side's; two sides that made it the same
 * agree; two sides that made it differently CONFLICT (nothing is guessed). So a triple of base stays
 * iff both kept it, and a triple not in base is in iff either side added it, wherever only one side
 * touched its group. A document deleted on one side and changed on the other conflicts too.
 * Pure: lines in, lines or conflicts out (canonical text by ntriples.ts joinUnique).
 */
import { joinUnique } from './ntriples.js';

/** A subject and predicate both sides changed differently, with the lines each side has of it. */
export interface TripleConflict {
  subject: string;
  predicate: string;
  base: string[];
  ours: string[];
  theirs: string[];
}

export type MergeOutcome =
  | { merged: string | null } // the canonical text, or null: the document is deleted
  | { conflicts: TripleConflict[]; deleted?: 'ours' | 'theirs' };

/** The subject and predicate of an N-Triples line (no term of either holds a space: IRIs escape it, blank node labels have none). */
function keyOf(line: string): string {
  const first = line.indexOf(' ');
  return line.slice(0, line.indexOf(' ', first + 1));
}

function groups(lines: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of lines) {
    const key = keyOf(line);
    const group = out.get(key);
    if (group) group.push(line);
    else out.set(key, [line]);
  }
  return out;
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((line, i) => line === b[i]);

/**
 * Merges one document. `undefined` is an absent document. `settle(key, ours, theirs)` may resolve
 * a group both sides changed (the server's own metadata, `dct:modified`): the lines to keep, or
 * undefined for a conflict.
 */
export function mergeDocument(
  base: readonly string[] | undefined,
  ours: readonly string[] | undefined,
  theirs: readonly string[] | undefined,
  settle: (key: string, ours: readonly string[], theirs: readonly string[]) => string[] | undefined = () => undefined,
): MergeOutcome {
  const text = (lines: readonly string[] | undefined) => (lines === undefined ? null : joinUnique([...lines]));
  if (ours === undefined || theirs === undefined) {
    if (ours === undefined && theirs === undefined) return { merged: null };
    const kept = (ours ?? theirs)!;
    if (base === undefined) return { merged: text(kept) }; // added on one side only
    if (same([...base].sort(), [...kept].sort())) return { merged: null }; // deleted on one side, untouched on the other
    // deleted on one side, changed on the other: every line of the changed side conflicts
    return { conflicts: [...groups(kept)].map(([key, lines]) => conflict(key, groups(base).get(key) ?? [], ours === undefined ? [] : lines, theirs === undefined ? [] : lines)), deleted: ours === undefined ? 'ours' : 'theirs' };
  }
  const [b, o, t] = [groups(base ?? []), groups(ours), groups(theirs)];
  const lines: string[] = [];
  const conflicts: TripleConflict[] = [];
  for (const key of new Set([...b.keys(), ...o.keys(), ...t.keys()])) {
    const [bl, ol, tl] = [b.get(key) ?? [], o.get(key) ?? [], t.get(key) ?? []].map((g) => g.sort()) as [string[], string[], string[]];
    if (same(ol, bl) || same(ol, tl)) lines.push(...tl);
    else if (same(tl, bl)) lines.push(...ol);
    else {
      const settled = settle(key, ol, tl);
      if (settled) lines.push(...settled);
      else conflicts.push(conflict(key, bl, ol, tl));
    }
  }
  return conflicts.length > 0 ? { conflicts } : { merged: text(lines) };
}

function conflict(key: string, base: string[], ours: string[], theirs: string[]): TripleConflict {
  const space = key.indexOf(' ');
  return { subject: key.slice(0, space), predicate: key.slice(space + 1), base, ours, theirs };
}
