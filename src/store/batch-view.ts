/**
 * What a transaction sees while a group commit is built (StoreView): HEAD's files, plus the writes
 * of the transactions before it in the same batch, whose blobs are not in the repository yet; and
 * the blobs of a transaction's changes, hashed once.
 */
import { blobObject, type GitObject } from '../git/objects.js';

/** What a transaction sees: HEAD plus the writes committed before it in the same batch. */
export interface StoreView {
  blobId(path: string): string | undefined;
  read(path: string): Promise<Buffer | undefined>;
  /** Whether any file lies below `folder` (a path without a trailing slash). */
  hasFilesUnder(folder: string): boolean;
}

/** HEAD as the store keeps it in memory. */
export interface HeadFiles {
  /** Every file under the prefix, with its blob id. */
  files: ReadonlyMap<string, string>;
  /** How many files lie below each folder. */
  folderCounts: ReadonlyMap<string, number>;
  readBlob(id: string): Promise<Buffer>;
}

export class BatchView implements StoreView {
  /** The paths the batch changed so far, with their blob ids (null: deleted). */
  readonly overlay = new Map<string, string | null>();
  /** The bytes of the blobs the batch made. */
  readonly newBlobs = new Map<string, Buffer>();

  constructor(private readonly head: HeadFiles) {}

  blobId(path: string): string | undefined {
    return this.overlay.has(path) ? (this.overlay.get(path) ?? undefined) : this.head.files.get(path);
  }

  async read(path: string): Promise<Buffer | undefined> {
    const id = this.blobId(path);
    if (!id) return undefined;
    return this.newBlobs.get(id) ?? (await this.head.readBlob(id));
  }

  /**
   * Hashes each change's bytes into its blob (the only hash of them): every path with its blob id
   * (null: deleted), and the changes to what the batch sees, by path. New blobs go to `objects`.
   */
  hashChanges(changes: ReadonlyArray<{ path: string; bytes: Buffer | null; blobId?: string }>, objects: GitObject[]): { changes: Map<string, string | null>; blobIds: Map<string, string | null> } {
    const changed = new Map<string, string | null>();
    const blobIds = new Map<string, string | null>();
    for (const { path, bytes, blobId } of changes) {
      if (bytes === null) {
        blobIds.set(path, null);
        if (this.blobId(path) !== undefined) changed.set(path, null);
        continue;
      }
      const blob: GitObject = blobId === undefined ? blobObject(bytes) : { id: blobId, type: 'blob', content: bytes };
      blobIds.set(path, blob.id);
      if (this.blobId(path) === blob.id) continue;
      changed.set(path, blob.id);
      this.newBlobs.set(blob.id, bytes);
      objects.push(blob);
    }
    return { changes: changed, blobIds };
  }

  hasFilesUnder(folder: string): boolean {
    let count = this.head.folderCounts.get(folder) ?? 0;
    for (const [path, id] of this.overlay) {
      if (!path.startsWith(folder + '/')) continue;
      const before = this.head.files.has(path);
      if (before && id === null) count--;
      else if (!before && id !== null) count++;
    }
    return count > 0;
  }
}
