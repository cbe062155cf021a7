/**
 * Git objects as bytes: the `<type> <size>\0` header before an object's content, the SHA-1 of both
 * that names it, and a loose object's file (the two, deflated). Pure: no I/O.
 */
import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';

export type ObjectType = 'blob' | 'tree' | 'commit';

export interface GitObject {
  id: string;
  type: ObjectType;
  content: Buffer;
}

/** The header git hashes before an object's content: `<type> <size>\0`. */
export function objectHeader(type: ObjectType, length: number): Buffer {
  return Buffer.from(`${type} ${length}\0`);
}

/** An object of `type` holding `content`, named by the hash of its header and content. */
export function encodeObject(type: ObjectType, content: Buffer): GitObject {
  const header = objectHeader(type, content.length);
  const id = createHash('sha1').update(header).update(content).digest('hex');
  return { id, type, content };
}

const OBJECT_ID = /^[0-9a-f]{40}$/;

/** Whether `text` is an object id as git writes it: 40 lower-case hexadecimal digits (a SHA-1). */
export function isObjectId(text: string): boolean {
  return OBJECT_ID.test(text);
}

export function blobObject(bytes: Buffer): GitObject {
  return encodeObject('blob', bytes);
}

/** The type and content of a loose object from its file: header and content, deflated. */
export function decodeLooseObject(file: Buffer): { type: ObjectType; content: Buffer } {
  const raw = inflateSync(file);
  const nul = raw.indexOf(0);
  const [type] = raw.toString('latin1', 0, nul).split(' ');
  return { type: type as ObjectType, content: raw.subarray(nul + 1) };
}
