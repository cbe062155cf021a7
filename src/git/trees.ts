/**
 * Git tree objects: entries (`<mode> <name>\0` and a 20-byte id each) in git's order, encoded and
 * decoded. A list decoded from a tree, or encoded into one, remembers where each of its entries
 * ends in that tree's bytes, so that a tree derived from it copies the runs of entries it keeps.
 * Pure: no I/O.
 */
import { LodestoneError } from '../errors.js';
import { encodeObject, type GitObject } from './objects.js';

export interface TreeEntry {
  name: string;
  mode: string; // '100644' for files, '40000' for trees
  id: string;
}

export const TREE_MODE = '40000';
export const FILE_MODE = '100644';

/** Git's tree order: byte order of names, a tree's name compared as if it ended in '/'. */
function treeSortKey(entry: TreeEntry): string {
  return entry.mode === TREE_MODE ? entry.name + '/' : entry.name;
}

const surrogate = /[\uD800-\uDFFF]/;

/** Byte order of UTF-8 names; UTF-16 code-unit order agrees unless a surrogate pair occurs. */
export function compareTreeEntries(a: TreeEntry, b: TreeEntry): number {
  const x = treeSortKey(a);
  const y = treeSortKey(b);
  if (surrogate.test(x) || surrogate.test(y)) return Buffer.compare(Buffer.from(x), Buffer.from(y));
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * A tree's content and where each of its entries ends in it, kept with the entry list parsed from
 * it or encoded into it (lists are never changed once made). A tree rewritten from such a list is
 * built by copying the runs of entries it keeps: one changed file in a folder of thousands costs a
 * copy of bytes, not an encoding of every entry of the folder. A side table of the lists (weakly
 * held), not a cache: it holds nothing a list does not already stand for.
 */
const layouts = new WeakMap<readonly TreeEntry[], { content: Buffer; ends: Uint32Array }>();

function encodeTreeEntry(entry: TreeEntry): Buffer {
  const head = `${entry.mode} ${entry.name}\0`;
  const bytes = Buffer.allocUnsafe(Buffer.byteLength(head) + 20);
  bytes.write(entry.id, bytes.write(head), 'hex');
  return bytes;
}

/**
 * A tree object from entries in git's order (see compareTreeEntries). Entries that are the very
 * objects of `base` (the list this one was derived from) are copied from the base's content.
 */
export function treeObject(entries: readonly TreeEntry[], base?: readonly TreeEntry[]): GitObject {
  const layout = base && layouts.get(base);
  const pieces: Buffer[] = [];
  const ends = new Uint32Array(entries.length);
  let length = 0;
  let run: { start: number; end: number } | undefined; // bytes of the base being kept
  const endRun = () => {
    if (run) pieces.push(layout!.content.subarray(run.start, run.end));
    run = undefined;
  };
  let j = 0;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (base && layout) {
      // base entries that sort before this one, or are replaced by it, are not kept
      while (j < base.length && base[j] !== entry && compareTreeEntries(base[j]!, entry) <= 0) j++;
      if (base[j] === entry) {
        const start = j === 0 ? 0 : layout.ends[j - 1]!;
        const end = layout.ends[j++]!;
        if (run?.end === start) run.end = end;
        else {
          endRun();
          run = { start, end };
        }
        ends[i] = length += end - start;
        continue;
      }
    }
    endRun();
    const bytes = encodeTreeEntry(entry);
    pieces.push(bytes);
    ends[i] = length += bytes.length;
  }
  endRun();
  const content = Buffer.concat(pieces, length);
  layouts.set(entries, { content, ends });
  return encodeObject('tree', content);
}

export function parseTree(content: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const ends: number[] = [];
  let asEncoded = true; // git writes a tree's mode as "40000"; one written "040000" is re-encoded, not copied
  let offset = 0;
  while (offset < content.length) {
    const space = content.indexOf(0x20, offset);
    const nul = content.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > content.length) throw new LodestoneError('Corrupt', 'malformed tree object');
    const mode = content.toString('latin1', offset, space);
    if (mode === '040000') asEncoded = false;
    entries.push({
      mode: mode === '040000' ? TREE_MODE : mode,
      name: content.toString('utf8', space + 1, nul),
      id: content.toString('hex', nul + 1, nul + 21),
    });
    offset = nul + 21;
    ends.push(offset);
  }
  if (asEncoded) layouts.set(entries, { content, ends: Uint32Array.from(ends) });
  return entries;
}
