/**
 * Ref text: a loose ref file (an id and a newline) and the lines of `packed-refs` (an id, a space
 * and the ref's name). Pure: no I/O.
 */
import { isObjectId } from './objects.js';

/** The id a loose ref file holds, if its text is one. */
export function looseRef(text: string | undefined): string | undefined {
  const id = text?.trim();
  return id && isObjectId(id) ? id : undefined;
}

/** The text of a loose ref file pointing at `id`. */
export function encodeLooseRef(id: string): string {
  return id + '\n';
}

/** The id of `ref` in the text of packed-refs. */
export function packedRef(ref: string, text: string | undefined): string | undefined {
  return text?.split('\n').find((line) => line.endsWith(' ' + ref) && isObjectId(line.slice(0, 40)))?.slice(0, 40);
}
