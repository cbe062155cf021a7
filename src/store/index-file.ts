/**
 * The git index (`.git/index`, format version 2), read and written so that `git status` agrees
 * with HEAD once the working tree is synced: one entry per file with its stat data and blob id,
 * sorted by path, then a SHA-1 of the whole. Written through `index.lock` and a rename, as git
 * does. No extensions are written; git rebuilds its cache-tree by itself.
 */
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { disk } from './disk.js';
import { defaultLockOptions, type LockOptions } from './refs.js';

export interface IndexEntry {
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

export function entryFromStats(path: string, id: string, stats: Stats): IndexEntry {
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

/** True when a file's stat data still matches its index entry (git's own "stat clean" test). */
export function statMatches(entry: IndexEntry, stats: Stats): boolean {
  return (
    Math.floor(entry.mtimeMs * 1e6) === Math.floor(stats.mtimeMs * 1e6) &&
    entry.size === stats.size &&
    entry.ino === stats.ino
  );
}

export async function readIndexFile(gitdir: string): Promise<Map<string, IndexEntry>> {
  const entries = new Map<string, IndexEntry>();
  let data: Buffer;
  try {
    data = await fsp.readFile(join(gitdir, 'index'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return entries;
    throw error;
  }
  if (data.toString('latin1', 0, 4) !== 'DIRC') return entries;
  const version = data.readUInt32BE(4);
  if (version !== 2 && version !== 3) return entries; // v4 compresses paths: treat as unknown
  const count = data.readUInt32BE(8);
  let offset = 12;
  for (let i = 0; i < count; i++) {
    const time = (at: number) => data.readUInt32BE(at) * 1000 + data.readUInt32BE(at + 4) / 1e6;
    const flags = data.readUInt16BE(offset + 60);
    const extended = version === 3 && (flags & 0x4000) !== 0;
    const nameStart = offset + 62 + (extended ? 2 : 0);
    const nameEnd = data.indexOf(0, nameStart);
    const entry: IndexEntry = {
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

function encodeEntry(entry: IndexEntry): Buffer {
  const name = Buffer.from(entry.path, 'utf8');
  const length = Math.ceil((62 + name.length + 1) / 8) * 8;
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
  name.copy(out, 62);
  return out;
}

/** Writes the index through `index.lock` (by the disk worker); entries outside `entries` are dropped. */
export async function writeIndexFile(gitdir: string, entries: Iterable<IndexEntry>, lock: LockOptions = defaultLockOptions): Promise<void> {
  const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  const header = Buffer.alloc(12);
  header.write('DIRC', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(sorted.length, 8);
  const body = Buffer.concat([header, ...sorted.map(encodeEntry)]);
  const checksum = createHash('sha1').update(body).digest();
  await disk.replaceLocked(join(gitdir, 'index'), Buffer.concat([body, checksum]), lock);
}
