/**
 * A Turtle document as the statements people wrote, so that a program can change some of them and
 * leave every other byte (comments, layout, prefixed names) as it was: the text is cut into
 * trivia (whitespace and comments between statements), directives (`@prefix`, `@base`, `PREFIX`,
 * `BASE`) and statements (up to the `.` that ends them), and the pieces joined give the text back.
 * A linear scan that steps over Turtle's strings, IRIs and comments (text-tokens.ts); it does not parse: a caller checks
 * that the statements parse to the graph the whole text does before trusting the cut. Pure.
 */
import { commentEnd, iriEnd, stringEnd } from './text-tokens.js';

export interface TurtlePiece {
  kind: 'trivia' | 'directive' | 'statement';
  text: string;
}

/** Characters of names and numbers, on both sides of a `.` inside one. */
const NAME_CHAR = /[A-Za-z0-9_\-:%\u00B7-\uFFFF]/;

/**
 * Whether the `.` at `i` is inside a token rather than the end of a statement: between two name
 * characters (`ex:a.b`, `1.5`), or starting a decimal (`.5`) after a space or a sign.
 */
function continues(text: string, i: number): boolean {
  const before = text[i - 1] ?? ' ';
  const after = text[i + 1] ?? ' ';
  if (NAME_CHAR.test(before) && NAME_CHAR.test(after)) return true;
  return /[0-9]/.test(after) && /[\s+\-(,;[]/.test(before);
}

/** The index just past the statement or directive starting at `from`. */
function statementEnd(text: string, from: number): number {
  // SPARQL-style PREFIX and BASE end with their IRI, without a dot
  if (/^(PREFIX|BASE)\s/i.test(text.slice(from, from + 7))) {
    const close = text.indexOf('>', from);
    return close < 0 ? text.length : close + 1;
  }
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") i = stringEnd(text, i) - 1;
    else if (c === '<') i = (iriEnd(text, i) ?? i + 1) - 1;
    else if (c === '#') i = commentEnd(text, i) - 1;
    else if (c === '.' && !continues(text, i)) return i + 1;
  }
  return text.length;
}

/** The pieces of a Turtle text, in order; their texts joined are the text. */
export function splitTurtle(text: string): TurtlePiece[] {
  const pieces: TurtlePiece[] = [];
  let i = 0;
  while (i < text.length) {
    const start = i;
    for (;;) {
      if (i < text.length && /\s/.test(text[i]!)) i++;
      else if (text[i] === '#') i = commentEnd(text, i);
      else break;
    }
    if (i > start) pieces.push({ kind: 'trivia', text: text.slice(start, i) });
    if (i >= text.length) break;
    const end = statementEnd(text, i);
    const piece = text.slice(i, end);
    pieces.push({ kind: /^(@prefix|@base|PREFIX\s|BASE\s)/i.test(piece) ? 'directive' : 'statement', text: piece });
    i = end;
  }
  return pieces;
}
