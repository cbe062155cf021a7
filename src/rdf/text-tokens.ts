/**
 * The tokens that Turtle and SPARQL share and that a scan must step over whole, because a bracket,
 * a `#` or a `.` inside them means nothing: strings (short and long), IRIs and comments (Turtle
 * §6.5, SPARQL 1.1 §19.8, the same productions). One lexer of them for the linear scans of both
 * (sparql-text.ts bounds nesting, turtle-statements.ts cuts statements). Pure.
 */

/** IRIREF (Turtle §6.5, SPARQL §19.8), with Turtle's \u and \U escapes (SPARQL reads them before it parses, §19.2). */
const IRIREF = /<(?:[^<>"{}|^`\\\x00-\x20]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*>/y;

/**
 * The index just past the string whose quote (`"` or `'`) is at `from`, short or long form, escapes
 * stepped over; a short string cannot hold a line end, so an unclosed one ends at its line's end.
 */
export function stringEnd(text: string, from: number): number {
  const quote = text[from]!;
  const long = text.startsWith(quote.repeat(3), from);
  const close = long ? quote.repeat(3) : quote;
  for (let i = from + close.length; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text.startsWith(close, i)) return i + close.length;
    else if (!long && text[i] === '\n') return i;
  }
  return text.length;
}

/** The index just past the IRI whose `<` is at `from`, or undefined when that `<` opens none (a less-than sign, `<<`). */
export function iriEnd(text: string, from: number): number | undefined {
  IRIREF.lastIndex = from;
  return IRIREF.test(text) ? IRIREF.lastIndex : undefined;
}

/** The index just past the comment whose `#` is at `from`: its line end, or the end of the text. */
export function commentEnd(text: string, from: number): number {
  const at = text.indexOf('\n', from);
  return at < 0 ? text.length : at + 1;
}
