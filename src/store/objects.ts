/**
 * The objects of one repository: read from packs (PackSet) or loose files, with isomorphic-git as
 * the fallback for delta entries (after `git gc` or a clone), loaded the first time one is met (a
 * fifth of a second of a core, which every index lane's start paid before); written in batches as
 * packs by the disk worker, which makes them durable before the call returns. The formats are in
 * src/git/.
 */
import * as fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { LodestoneError } from '../errors.js';
import { parseCommit, type Commit } from '../git/commits.js';
import { decodeLooseObject, type GitObject, type ObjectType } from '../git/objects.js';
import { parseTree, type TreeEntry } from '../git/trees.js';
import type { DiskClient } from './disk.js';
import type { RefUpdate } from './disk-protocol.js';
import { PackSet } from './packs.js';

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
   * worker (pack, pack index, directory: three fsyncs for the whole batch), then moves `then`'s ref
   * if given, in the same call.
   */
  async write(disk: DiskClient, objects: Iterable<GitObject>, then?: RefUpdate): Promise<void> {
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
  async consolidate(disk: DiskClient): Promise<void> {
    if (this.written < 32) return;
    this.written = 0;
    const packs = await this.packs.mergeCandidates();
    if (packs.length < 2) return;
    const replaced = this.packs.merged(packs, await disk.mergePacks(this.packDir, this.tmpdir, packs));
    if (replaced.length > 0) await disk.removePacks(replaced);
  }

  /** Reads an object, loose or packed; undefined when the repository does not have it. */
  async read(id: string): Promise<{ type: ObjectType; content: Buffer } | undefined> {
    await this.ready();
    let packed = await this.packs.read(id);
    // not found: a pack written since (by another process or thread), or a loose object, or (once
    // more) the pack it was in merged into a new one by a writer while this looked
    for (let look = 0; packed === undefined && look < 2; look++) {
      const loose = await this.readLoose(id);
      if (loose) return loose;
      await this.packs.rescan();
      packed = await this.packs.read(id);
    }
    if (packed && packed !== 'delta') return packed;
    try {
      const git = (await import('isomorphic-git')).default;
      const result = await git.readObject({ fs, gitdir: this.gitdir, oid: id, format: 'content', cache: this.packCache });
      return { type: result.type as ObjectType, content: Buffer.from(result.object as Uint8Array) };
    } catch (error) {
      if ((error as { code?: string }).code === 'NotFoundError') return undefined;
      // isomorphic-git fails with a TypeError on a pack index removed while it reads (a merge)
      if (error instanceof TypeError && packed === undefined) return undefined;
      throw error;
    }
  }

  private async readLoose(id: string): Promise<{ type: ObjectType; content: Buffer } | undefined> {
    let file: Buffer | undefined;
    try {
      file = await fsp.readFile(this.loosePath(id));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    return file && decodeLooseObject(file);
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

  /**
   * The commits whose id starts with `prefix` (4 to 40 lower-case hexadecimal digits), loose or
   * packed, as git resolves an abbreviated id: one means found, several ambiguous.
   */
  async commitsWithPrefix(prefix: string): Promise<string[]> {
    await this.ready();
    const loose = await fsp.readdir(join(this.gitdir, 'objects', prefix.slice(0, 2))).catch(() => [] as string[]);
    const ids = new Set([...this.packs.withPrefix(prefix), ...loose.map((name) => prefix.slice(0, 2) + name).filter((id) => id.length === 40 && id.startsWith(prefix))]);
    const commits: string[] = [];
    for (const id of ids) if ((await this.read(id))?.type === 'commit') commits.push(id);
    return commits;
  }

  async readCommit(id: string): Promise<Commit> {
    return parseCommit(await this.readTyped(id, 'commit'));
  }
}
