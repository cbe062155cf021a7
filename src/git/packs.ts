/**
 * Pack files (version 2): a header, entries (a type-and-size header, then the deflated object) and
 * the SHA-1 of all that. Lodestone writes whole objects only; delta entries, which git's own
 * repacking writes, are recognised but not decoded here. Pure: no I/O.
 */
import { createHash } from 'node:crypto';
import { crc32, inflateSync } from 'node:zlib';
import { encodeObject, type GitObject, type ObjectType } from './objects.js';
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
  const pack = packStream(entries);
  const checksum = pack.subarray(pack.length - 20);
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

/** The pack stream of whole objects (version 2, trailing SHA-1), for a client that wants the bytes only (no index). */
export function packStream(entries: readonly PackEntry[]): Buffer {
  const body = Buffer.concat([packHeader(entries.length), ...entries.map((e) => e.raw)]);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

/**
 * The objects of a pack of whole objects, each named by the hash of what it holds (so a corrupt
 * entry cannot pass for another object); undefined when the bytes are not such a pack: a wrong
 * header or checksum, a delta entry, or bytes left over.
 */
export function decodePackStream(pack: Buffer): GitObject[] | undefined {
  if (pack.length < 32 || pack.toString('latin1', 0, 4) !== 'PACK' || pack.readUInt32BE(4) !== 2) return undefined;
  const end = pack.length - 20;
  if (!createHash('sha1').update(pack.subarray(0, end)).digest().equals(pack.subarray(end))) return undefined;
  const count = pack.readUInt32BE(8);
  const objects: GitObject[] = [];
  let at = 12;
  for (let n = 0; n < count; n++) {
    const type = TYPE_NAMES[(pack[at]! >> 4) & 7];
    if (!type) return undefined;
    let size = pack[at]! & 0x0f;
    let shift = 4;
    while (pack[at]! & 0x80) {
      at++;
      size += (pack[at]! & 0x7f) * 2 ** shift;
      shift += 7;
    }
    at++;
    if (at >= end) return undefined;
    // the deflated data carries no length: the inflater says how much of it it read
    const { buffer, engine } = inflateSync(pack.subarray(at, end), { info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
    if (buffer.length !== size) return undefined;
    objects.push(encodeObject(type, buffer));
    at += engine.bytesWritten;
  }
  return at === end ? objects : undefined;
}
