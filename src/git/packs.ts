/**
 * Pack files (version 2): a header, entries (a type-and-size header, then the deflated object) and
 * the SHA-1 of all that. Lodestone writes whole objects only; delta entries, which git's own
 * repacking writes, are recognised but not decoded here. Pure: no I/O.
 */
import { createHash } from 'node:crypto';
import { crc32, inflateSync } from 'node:zlib';
import type { ObjectType } from './objects.js';
import { encodePackIndex } from './pack-index.js';

const TYPE_CODES: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3 };
const TYPE_NAMES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob' };

export interface PackEntry {
  id: string;
  /** The packed bytes: entry header and deflated data. */
  raw: Buffer;
}

function entryHeader(type: number, size: number): Buffer {
  const bytes: number[] = [];
  let byte = (type << 4) | (size & 0x0f);
  size = Math.floor(size / 16);
  while (size > 0) {
    bytes.push(byte | 0x80);
    byte = size & 0x7f;
    size = Math.floor(size / 128);
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}

/** The entry of a whole object whose content deflates to `deflated`. */
export function packEntry(object: { id: string; type: ObjectType; content: Uint8Array }, deflated: Buffer): PackEntry {
  return { id: object.id, raw: Buffer.concat([entryHeader(TYPE_CODES[object.type], object.content.length), deflated]) };
}

/** True when an entry's bytes hold a delta against another object, not a whole object. */
export function isDeltaEntry(raw: Uint8Array): boolean {
  return !TYPE_NAMES[(raw[0]! >> 4) & 7];
}

/** A whole object from its entry's bytes; 'delta' for a delta entry. */
export function decodePackEntry(raw: Buffer): { type: ObjectType; content: Buffer } | 'delta' {
  const type = TYPE_NAMES[(raw[0]! >> 4) & 7];
  if (!type) return 'delta';
  let at = 0;
  while (raw[at]! & 0x80) at++;
  return { type, content: inflateSync(raw.subarray(at + 1)) };
}

export function packHeader(count: number): Buffer {
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(count, 8);
  return header;
}

/** A pack and its pack index from entries, in the order given (ids need not be sorted). */
export function encodePack(entries: readonly PackEntry[]): { pack: Buffer; idx: Buffer; name: string; offsets: number[] } {
  const offsets: number[] = [];
  let offset = 12;
  for (const entry of entries) {
    offsets.push(offset);
    offset += entry.raw.length;
  }
  const body = Buffer.concat([packHeader(entries.length), ...entries.map((e) => e.raw)]);
  const checksum = createHash('sha1').update(body).digest();
  const pack = Buffer.concat([body, checksum]);
  const idx = encodePackIndex(
    entries.map((e) => e.id),
    entries.map((e) => crc32(e.raw)),
    offsets,
    checksum,
  );
  return { pack, idx, name: packName(checksum), offsets };
}

/** A pack's file name (without `.pack` or `.idx`), from its checksum. */
export function packName(checksum: Buffer): string {
  return `pack-${checksum.toString('hex')}`;
}
