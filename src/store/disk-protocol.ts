/**
 * What the main thread and the disk worker say to each other: the requests the worker serves
 * (disk-worker.ts) and the values that go with them. Types only, so that the client (disk.ts) and
 * the worker's code (disk-ops.ts, stage.ts) both depend on this and not on each other.
 */
import type { ObjectType } from '../git/objects.js';
import type { StageEntry } from '../git/stage-file.js';

/** An object to pack: its content is moved to the worker, not copied (see disk.ts). */
export interface PackObject {
  id: string;
  type: ObjectType;
  content: Uint8Array;
}

/** A pack now in `objects/pack`: its path and size, and each object's offset in it. */
export interface WrittenPack {
  pack: string;
  size: number;
  ids: string[];
  offsets: number[];
}

export interface LockOptions {
  /** How long to wait for another process's lock before giving up. */
  waitMs: number;
  /** A lock file older than this is taken to be left by a crash, and removed. */
  staleMs: number;
}

/** A ref to move once a pack is in place (see disk-ops.ts, updateRef). */
export interface RefUpdate {
  gitdir: string;
  ref: string;
  next: string;
  expected: string | undefined;
  lock: LockOptions;
}

/** A file of a working-tree sync round (worktree.ts): HEAD's blob and bytes for it (null: HEAD has none), and the stage entry it was last synced to. */
export interface WorkingFile {
  path: string;
  head: string | null;
  bytes: Uint8Array | null;
  synced: StageEntry | undefined;
}

/** What a round did with a file; a file written has a new stage entry. */
export type WorkingOutcome = { path: string; outcome: 'current' | 'edited' | 'removed' } | { path: string; outcome: 'written'; entry: StageEntry };

/** What changed in the stage under a prefix (a dataspace's folder) since the last update. */
export interface StageUpdate {
  /** Entries to add or replace. */
  set: StageEntry[];
  /** Paths whose entries are dropped. */
  remove: string[];
  /** `set` holds every entry under the prefix: any other entry under it is dropped. */
  replacePrefix?: boolean;
}

export type DiskRequest =
  | { op: 'writePack'; packDir: string; tmpdir: string; objects: PackObject[]; then?: RefUpdate }
  | { op: 'mergePacks'; packDir: string; tmpdir: string; packs: string[] }
  | { op: 'removePacks'; packs: string[] }
  | { op: 'updateRef'; gitdir: string; ref: string; next: string; expected: string | undefined; lock: LockOptions }
  | { op: 'append'; path: string; text: string }
  | { op: 'updateStage'; gitdir: string; prefix: string; update: StageUpdate; lock: LockOptions; journal?: string }
  | { op: 'syncWorkingFiles'; dir: string; prefix: string; tmpdir: string; journal: string; files: WorkingFile[] }
  | { op: 'ping' }
  | { op: 'syncCalls' };
