/**
 * Ref text: a loose ref file (an id and a newline) and the lines of `packed-refs` (an id, a space
 * and the ref's name). Pure: no I/O.
 */

const SHA = /^[0-9a-f]{40}$/;

/** The id a loose ref file holds, if its text is one. */
export function looseRef(text: string | undefined): string | undefined {
  const id = text?.trim();
  return id && SHA.test(id) ? id : undefined;
}

/** The text of a loose ref file pointing at `id`. */
export function encodeLooseRef(id: string): string {
  return id + '\n';
}

/** The id of `ref` in the text of packed-refs. */
export function packedRef(ref: string, text: string | undefined): string | undefined {
  return text?.split('\n').find((line) => line.endsWith(' ' + ref) && SHA.test(line.slice(0, 40)))?.slice(0, 40);
}
