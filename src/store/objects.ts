/**
 * Git objects: encoding (blob, tree, commit), hashing, and the loose-object store. Writes go
 * through a temporary file, fsync and rename, so a crash never leaves a truncated object under
 * its final name; the directories they land in are fsynced once per batch. Reads take loose
 * objects directly and fall back to isomorphic-git for packed ones (after `git gc` or a clone).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import git from 'isomorphic-git';
import { LodestoneError } from '../errors.js';
import { disk, type RefUpdate } from './disk.js';
import { PackSet } from './packs.js';

export type ObjectType = 'blob' | 'tree' | 'commit';

export interface GitObject {
  id: string;
  type: ObjectType;
  content: Buffer;
}

export interface TreeEntry {
  name: string;
  mode: string; // '100644' for files, '40000' for trees
  id: string;
}

export interface Signature {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  timestamp: number;
  /** Always '+0000' for Lodestone's own commits (DESIGN.md, "Commits"). */
  timezone: string;
}

export interface Commit {
  tree: string;
  parents: string[];
  author: Signature;
  committer: Signature;
  message: string;
}

export const TREE_MODE = '40000';
export const FILE_MODE = '100644';

export function encodeObject(type: ObjectType, content: Buffer): GitObject {
  const header = Buffer.from(`${type} ${content.length}\0`);
  const id = createHash('sha1').update(header).update(content).digest('hex');
  return { id, type, content };
}

export function blobObject(bytes: Buffer): GitObject {
  return encodeObject('blob', bytes);
}

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
 * copy of bytes, not an encoding of every entry of the folder.
 */
const layouts = new WeakMap<readonly TreeEntry[], { content: Buffer; ends: Uint32Array }>();

function encodeEntry(entry: TreeEntry): Buffer {
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
    const bytes = encodeEntry(entry);
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

/** A name or e-mail address as a commit records it. */
export function sanitise(value: string): string {
  // git refuses '<', '>' and newlines in identities
  return value.replace(/[<>\n\r\0]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'));
}

function formatSignature(sig: Signature): string {
  return `${sanitise(sig.name)} <${sanitise(sig.email)}> ${sig.timestamp} ${sig.timezone}`;
}

export function commitObject(commit: Commit): GitObject {
  let text = `tree ${commit.tree}\n`;
  for (const parent of commit.parents) text += `parent ${parent}\n`;
  text += `author ${formatSignature(commit.author)}\ncommitter ${formatSignature(commit.committer)}\n\n${commit.message}`;
  return encodeObject('commit', Buffer.from(text, 'utf8'));
}

function parseSignature(text: string): Signature {
  const match = /^(.*) <(.*)> (\d+) ([+-]\d{4})$/.exec(text);
  if (!match) throw new LodestoneError('Corrupt', `malformed signature "${text}"`);
  return { name: match[1]!, email: match[2]!, timestamp: Number(match[3]), timezone: match[4]! };
}

export function parseCommit(content: Buffer): Commit {
  const text = content.toString('utf8');
  const split = text.indexOf('\n\n');
  const headers = (split < 0 ? text : text.slice(0, split)).split('\n');
  const commit: Partial<Commit> & { parents: string[] } = { parents: [] };
  for (const line of headers) {
    const space = line.indexOf(' ');
    const key = line.slice(0, space);
    const value = line.slice(space + 1);
    if (key === 'tree') commit.tree = value;
    else if (key === 'parent') commit.parents.push(value);
    else if (key === 'author') commit.author = parseSignature(value);
    else if (key === 'committer') commit.committer = parseSignature(value);
  }
  if (!commit.tree || !commit.author || !commit.committer) throw new LodestoneError('Corrupt', 'malformed commit object');
  return { ...commit, message: split < 0 ? '' : text.slice(split + 2) } as Commit;
}

export function emptyTreeId(): string {
  return treeObject([]).id;
}

/** Reads and writes the objects of one repository. */
export class ObjectStore {
  readonly gitdir: string;
  private readonly tmpdir: string;
  private readonly packDir: string;
  private readonly packCache: object = {};
  private readonly packs: PackSet;
  /** Packs written since the last merge. */
  private written = 0;

  constructor(gitdir: string) {
    this.gitdir = gitdir;
    this.packs = new PackSet(gitdir);
    this.tmpdir = join(gitdir, 'lodestone', 'tmp');
    this.packDir = join(gitdir, 'objects', 'pack');
  }

  private loosePath(id: string): string {
    return join(this.gitdir, 'objects', id.slice(0, 2), id.slice(2));
  }

  /** Removes temporary files a crash left behind; nothing refers to them. */
  async clearTemporary(): Promise<void> {
    await fsp.rm(this.tmpdir, { recursive: true, force: true });
    await fsp.mkdir(this.tmpdir, { recursive: true });
  }

  private scanned: Promise<void> | undefined;

  private ready(): Promise<void> {
    this.scanned ??= this.packs.rescan();
    return this.scanned;
  }

  /**
   * Writes the objects that are not there yet as one pack, compressed and made durable by the disk
   * worker (pack, index, directory: three fsyncs for the whole batch), then moves `then`'s ref if
   * given, in the same call.
   */
  async write(objects: Iterable<GitObject>, then?: RefUpdate): Promise<void> {
    await this.ready();
    const todo: GitObject[] = [];
    const seen = new Set<string>();
    for (const object of objects) {
      if (this.packs.has(object.id) || seen.has(object.id)) continue;
      seen.add(object.id);
      todo.push(object);
    }
    if (todo.length === 0) {
      if (then) await disk.updateRef(then.gitdir, then.ref, then.next, then.expected, then.lock);
      return;
    }
    try {
      this.packs.register(await disk.writePack(this.packDir, this.tmpdir, todo, then));
    } catch (error) {
      await this.packs.rescan(); // the pack may be in place even though the ref did not move
      throw error;
    }
    this.written++;
  }

  async close(): Promise<void> {
    await this.packs.close();
  }

  /**
   * Once 32 packs have been written since the last time, merges packs geometrically (see
   * PackSet.mergeCandidates); the disk worker copies them, then the merged ones are deleted.
   */
  async consolidate(): Promise<void> {
    if (this.written < 32) return;
    this.written = 0;
    const packs = await this.packs.mergeCandidates();
    if (packs.length < 2) return;
    await this.packs.merged(packs, await disk.mergePacks(this.packDir, this.tmpdir, packs));
  }

  /** Reads an object, loose or packed; undefined when the repository does not have it. */
  async read(id: string): Promise<{ type: ObjectType; content: Buffer } | undefined> {
    await this.ready();
    let packed = await this.packs.read(id);
    if (packed === undefined && !this.packs.has(id)) {
      const loose = await this.readLoose(id);
      if (loose) return loose;
      await this.packs.rescan(); // a pack written since (by another process or thread)
      packed = await this.packs.read(id);
    }
    if (packed && packed !== 'delta') return packed;
    try {
      const result = await git.readObject({ fs, gitdir: this.gitdir, oid: id, format: 'content', cache: this.packCache });
      return { type: result.type as ObjectType, content: Buffer.from(result.object as Uint8Array) };
    } catch (error) {
      if ((error as { code?: string }).code === 'NotFoundError') return undefined;
      throw error;
    }
  }

  private async readLoose(id: string): Promise<{ type: ObjectType; content: Buffer } | undefined> {
    let raw: Buffer | undefined;
    try {
      raw = inflateSync(await fsp.readFile(this.loosePath(id)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (!raw) return undefined;
    const nul = raw.indexOf(0);
    const [type] = raw.toString('latin1', 0, nul).split(' ');
    return { type: type as ObjectType, content: raw.subarray(nul + 1) };
  }

  async readTyped(id: string, type: ObjectType): Promise<Buffer> {
    const object = await this.read(id);
    if (!object) throw new LodestoneError('NotFound', `object ${id} is missing`, { id });
    if (object.type !== type) throw new LodestoneError('Corrupt', `object ${id} is a ${object.type}, not a ${type}`);
    return object.content;
  }

  async readTree(id: string): Promise<TreeEntry[]> {
    return parseTree(await this.readTyped(id, 'tree'));
  }

  async readCommit(id: string): Promise<Commit> {
    return parseCommit(await this.readTyped(id, 'commit'));
  }
}
