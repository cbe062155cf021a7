/**
 * Pack indexes (a pack's `.idx`, version 2): the ids of a pack's objects in id order, a fan-out
 * table by their first byte, each entry's CRC-32 and offset in the pack (offsets past 2 GiB in a
 * table of their own), the pack's checksum and the index's own. Pure: no I/O.
 */
import { createHash } from 'node:crypto';

const MAGIC = 0xff744f63;

/** The version 2 index of a pack: ids with their entries' CRC-32 and offsets, and the pack's checksum. */
export function encodePackIndex(ids: readonly string[], crcs: readonly number[], offsets: readonly number[], packChecksum: Buffer): Buffer {
  const n = ids.length;
  const order = ids.map((_, i) => i).sort((a, b) => (ids[a]! < ids[b]! ? -1 : 1));
  const large = offsets.filter((offset) => offset >= 0x80000000).length;
  const idx = Buffer.alloc(8 + 1024 + n * 28 + large * 8 + 40);
  idx.writeUInt32BE(MAGIC, 0);
  idx.writeUInt32BE(2, 4);
  const fanout = new Array<number>(256).fill(0);
  for (const id of ids) fanout[parseInt(id.slice(0, 2), 16)]!++;
  let total = 0;
  for (let i = 0; i < 256; i++) idx.writeUInt32BE((total += fanout[i]!), 8 + i * 4);
  let nextLarge = 0;
  order.forEach((at, k) => {
    idx.write(ids[at]!, 1032 + k * 20, 'hex');
    idx.writeUInt32BE(crcs[at]! >>> 0, 1032 + n * 20 + k * 4);
    const offset = offsets[at]!;
    if (offset < 0x80000000) idx.writeUInt32BE(offset, 1032 + n * 24 + k * 4);
    else {
      idx.writeUInt32BE((0x80000000 | nextLarge) >>> 0, 1032 + n * 24 + k * 4);
      idx.writeBigUInt64BE(BigInt(offset), 1032 + n * 28 + nextLarge++ * 8);
    }
  });
  const tail = 1032 + n * 28 + large * 8;
  packChecksum.copy(idx, tail);
  createHash('sha1').update(idx.subarray(0, tail + 20)).digest().copy(idx, tail + 20);
  return idx;
}

/** The objects of a pack index (v2): ids and offsets, in the index's (id) order; none if it is not one. */
export function decodePackIndex(idx: Buffer): { ids: string[]; offsets: Float64Array } {
  if (idx.readUInt32BE(0) !== MAGIC || idx.readUInt32BE(4) !== 2) return { ids: [], offsets: new Float64Array(0) };
  const n = idx.readUInt32BE(8 + 255 * 4);
  const large = 1032 + n * 28;
  const ids = new Array<string>(n);
  const offsets = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    let offset = idx.readUInt32BE(1032 + n * 24 + k * 4);
    if (offset & 0x80000000) offset = Number(idx.readBigUInt64BE(large + (offset & 0x7fffffff) * 8));
    ids[k] = idx.toString('hex', 1032 + k * 20, 1052 + k * 20);
    offsets[k] = offset;
  }
  return { ids, offsets };
}
