/**
 * The stage (git's index file, `.git/index`, version 2), read and written so that `git status`
 * agrees with HEAD once the working tree is synced: one entry per file with its stat data and blob
 * id, sorted by the bytes of the path, then a SHA-1 of the whole. No extensions are written; git
 * rebuilds its cache-tree by itself. Pure: no I/O (the disk worker keeps and writes the stage,
 * store/stage.ts; the main thread reads it at startup).
 */
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';

export interface StageEntry {
  path: string;
  id: string;
  ctimeMs: number;
  mtimeMs: number;
  dev: number;
  ino: number;
  mode: number;
  uid: number;
  gid: number;
  size: number;
}

export function stageEntryFromStats(path: string, id: string, stats: Stats): StageEntry {
  return {
    path,
    id,
    ctimeMs: stats.ctimeMs,
    mtimeMs: stats.mtimeMs,
    dev: stats.dev,
    ino: stats.ino,
    mode: 0o100644,
    uid: stats.uid,
    gid: stats.gid,
    size: stats.size,
  };
}

/** True when a file's stat data still matches its stage entry (git's own "stat clean" test). */
export function statMatches(entry: StageEntry, stats: Stats): boolean {
  return (
    Math.floor(entry.mtimeMs * 1e6) === Math.floor(stats.mtimeMs * 1e6) &&
    entry.size === stats.size &&
    entry.ino === stats.ino
  );
}

/** Where an entry's path starts, after its stat data, blob id and flags. */
const NAME_OFFSET = 62;

/**
 * The stage-0 entries of a git index file (versions 2 and 3), by path. Conflict stages are left
 * out, and a file in another format (version 4, or not an index) reads as empty.
 */
export function decodeStage(data: Buffer): Map<string, StageEntry> {
  const entries = new Map<string, StageEntry>();
  if (data.length < 12 || data.toString('latin1', 0, 4) !== 'DIRC') return entries;
  const version = data.readUInt32BE(4);
  if (version !== 2 && version !== 3) return entries; // v4 compresses paths: treat as unknown
  const count = data.readUInt32BE(8);
  let offset = 12;
  for (let i = 0; i < count; i++) {
    const time = (at: number) => data.readUInt32BE(at) * 1000 + data.readUInt32BE(at + 4) / 1e6;
    const flags = data.readUInt16BE(offset + 60);
    const extended = version === 3 && (flags & 0x4000) !== 0;
    const nameStart = offset + NAME_OFFSET + (extended ? 2 : 0);
    const nameEnd = data.indexOf(0, nameStart);
    const entry: StageEntry = {
      ctimeMs: time(offset),
      mtimeMs: time(offset + 8),
      dev: data.readUInt32BE(offset + 16),
      ino: data.readUInt32BE(offset + 20),
      mode: data.readUInt32BE(offset + 24),
      uid: data.readUInt32BE(offset + 28),
      gid: data.readUInt32BE(offset + 32),
      size: data.readUInt32BE(offset + 36),
      id: data.toString('hex', offset + 40, offset + 60),
      path: data.toString('utf8', nameStart, nameEnd),
    };
    if (((flags >> 12) & 3) === 0) entries.set(entry.path, entry);
    const length = nameEnd - offset;
    offset += Math.ceil((length + 1) / 8) * 8;
  }
  return entries;
}

/** One entry as it stands in the file: fixed fields, the path, NULs to a multiple of 8 bytes. */
export function encodeStageEntry(entry: StageEntry): Buffer {
  const name = Buffer.from(entry.path, 'utf8');
  const length = Math.ceil((NAME_OFFSET + name.length + 1) / 8) * 8;
  const out = Buffer.alloc(length);
  const time = (ms: number, at: number) => {
    const seconds = Math.floor(ms / 1000);
    out.writeUInt32BE(seconds >>> 0, at);
    out.writeUInt32BE(Math.floor((ms - seconds * 1000) * 1e6) >>> 0, at + 4);
  };
  time(entry.ctimeMs, 0);
  time(entry.mtimeMs, 8);
  out.writeUInt32BE(entry.dev >>> 0, 16);
  out.writeUInt32BE(entry.ino >>> 0, 20);
  out.writeUInt32BE(entry.mode >>> 0, 24);
  out.writeUInt32BE(entry.uid >>> 0, 28);
  out.writeUInt32BE(entry.gid >>> 0, 32);
  out.writeUInt32BE(entry.size >>> 0, 36);
  out.write(entry.id, 40, 'hex');
  out.writeUInt16BE(Math.min(name.length, 0xfff), 60);
  name.copy(out, NAME_OFFSET);
  return out;
}

/** The path bytes of an encoded entry: what git sorts the entries by. */
export function stageEntryName(encoded: Buffer): Buffer {
  return encoded.subarray(NAME_OFFSET, encoded.indexOf(0, NAME_OFFSET));
}

/**
 * The whole file: header, the entries already encoded and sorted by path bytes (as git sorts
 * them), and the SHA-1 of all that.
 */
export function encodeStage(sortedEntries: readonly Uint8Array[]): Buffer {
  const header = Buffer.alloc(12);
  header.write('DIRC', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(sortedEntries.length, 8);
  const body = Buffer.concat([header, ...sortedEntries]);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}
