/**
 * Reading canonical N-Triples (a document's file: one triple a line, sorted, no duplicates) as
 * text, without a parse: the lines about a subject, the IRI, literal or any objects of a subject and
 * predicate, the IRI statements of a predicate, the IRI objects of every line, a triple's presence,
 * a literal rewritten, the lines a predicate is absent from, the first lines of a document, and the
 * difference of two versions. Every scan of stored document text goes through here, so the line
 * format is known in one place. Only the IRIs given are matched: the caller passes IRIs that need no
 * escaping (a document URL, a vocabulary term).
 */

/** The start of every line whose subject is `subject` and, when given, whose predicate is `predicate`. */
function prefixOf(subject: string, predicate?: string): string {
  return predicate === undefined ? `<${subject}> ` : `<${subject}> <${predicate}> `;
}

/** The lines of N-Triples or N-Quads text by the IRI of their subject (blank-node subjects left out), each ending in a newline: one pass for many subjects. */
export function linesBySubject(text: string): Map<string, string> {
  const bySubject = new Map<string, string>();
  for (const line of text.split('\n')) {
    const end = line.startsWith('<') ? line.indexOf('> ') : -1; // an IRI holds neither '>' nor a space
    if (end === -1) continue;
    const subject = line.slice(1, end);
    bySubject.set(subject, (bySubject.get(subject) ?? '') + line + '\n');
  }
  return bySubject;
}

/** The lines of `ntriples` whose subject is `subject`, joined by newlines. */
export function linesAbout(ntriples: string, subject: string): string {
  const prefix = prefixOf(subject);
  return ntriples
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .join('\n');
}

/** Where each line of `bytes` that starts with `prefix` goes on after it. */
function* linesStarting(bytes: Buffer, prefix: string): Generator<number> {
  const sought = Buffer.from(prefix);
  for (let at = bytes.indexOf(sought); at !== -1; at = bytes.indexOf(sought, at + 1)) {
    if (at > 0 && bytes[at - 1] !== 0x0a) continue; // inside another line (a literal)
    yield at + sought.length;
  }
}

/** The IRI objects of `subject predicate` in canonical N-Triples bytes, in file order; reads only the lines that start with them. */
export function iriObjects(bytes: Buffer, subject: string, predicate: string): string[] {
  const found: string[] = [];
  for (const start of linesStarting(bytes, prefixOf(subject, predicate) + '<')) found.push(bytes.toString('utf8', start, bytes.indexOf('>', start)));
  return found;
}

/** Where the line that holds byte `at` ends (its newline, or the end of the bytes). */
function lineEnd(bytes: Buffer, at: number): number {
  const end = bytes.indexOf(0x0a, at);
  return end < 0 ? bytes.length : end;
}

/**
 * Where each line of sorted N-Triples bytes that starts with `prefix` goes on after it: the first
 * is found by a binary search (lines sorted by code point are sorted as UTF-8 bytes, and so are
 * their first bytes), the others follow it. Touches a few dozen lines of a document of any size.
 */
function* sortedLinesStarting(bytes: Buffer, prefix: string): Generator<number> {
  const key = Buffer.from(prefix);
  const before = (start: number) => key.compare(bytes, start, Math.min(start + key.length, lineEnd(bytes, start))) > 0; // the line sorts before the prefix
  let lo = 0; // a line start: every line before it sorts before the prefix
  let hi = bytes.length; // a line start (or the end): no line from it on does
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const start = mid === 0 ? 0 : bytes.lastIndexOf(0x0a, mid - 1) + 1; // the line that holds mid
    if (before(start)) lo = lineEnd(bytes, start) + 1;
    else hi = start;
  }
  for (let at = lo; at < bytes.length && key.compare(bytes, at, Math.min(at + key.length, lineEnd(bytes, at))) === 0; at = lineEnd(bytes, at) + 1) yield at + key.length;
}

/**
 * The objects of `subject predicate`, each as written (`<iri>`, `_:label`, a literal with its
 * datatype or language), in canonical N-Triples bytes (or any N-Triples whose lines are sorted by
 * code point): `subject` is written as N-Triples too, an IRI in angle brackets or a blank node label
 * of the same text. A binary search: the cost does not grow with the document.
 */
export function objectTerms(bytes: Buffer, subject: string, predicate: string): string[] {
  const found: string[] = [];
  for (const start of sortedLinesStarting(bytes, `${subject} <${predicate}> `)) {
    const end = bytes.indexOf(0x0a, start);
    const rest = bytes.toString('utf8', start, end < 0 ? bytes.length : end).trimEnd(); // (no regular expression: a line may be megabytes)
    found.push(rest.endsWith('.') ? rest.slice(0, -1).trimEnd() : rest);
  }
  return found;
}

/** One term of a line: an IRI without spaces or `>` in it, or a blank node label. */
const ONE_TERM = /^(?:<[^\s<>"]*>|_:\S+)$/;

/**
 * The statements of `predicate` with an IRI object in N-Triples text (one triple a line, as a
 * stored file or a worker's parse gives it), whatever their subject: the subject's IRI (undefined
 * for a blank node) and the object's. A literal that holds such text is not a statement: the
 * subject must be one term and the object must end the line.
 */
export function iriStatements(ntriples: string, predicate: string): { subject: string | undefined; object: string }[] {
  const middle = ` <${predicate}> <`;
  const found: { subject: string | undefined; object: string }[] = [];
  for (let at = ntriples.indexOf(middle); at !== -1; at = ntriples.indexOf(middle, at + 1)) {
    const start = ntriples.lastIndexOf('\n', at) + 1;
    const end = ntriples.indexOf('\n', at);
    const line = ntriples.slice(start, end === -1 ? undefined : end).replace(/\r$/, '');
    const subject = line.slice(0, at - start);
    const object = line.slice(at - start + middle.length);
    if (!ONE_TERM.test(subject) || !object.endsWith('> .') || /[\s<>"]/.test(object.slice(0, -3))) continue;
    found.push({ subject: subject.startsWith('<') ? subject.slice(1, -1) : undefined, object: object.slice(0, -3) });
  }
  return found;
}

/** The lexical form of a literal written as N-Triples (`"…"`, with a datatype or a language or neither), or undefined for an IRI or blank node. */
export function lexicalForm(term: string): string | undefined {
  const match = /^"((?:[^"\\]|\\.)*)"/.exec(term);
  return match ? unescapeLiteral(match[1]!) : undefined;
}

/** The lexical form of the first literal object of `subject predicate` (no escapes expected: a timestamp, a number), or undefined. */
export function literalObject(ntriples: string, subject: string, predicate: string): string | undefined {
  const prefix = prefixOf(subject, predicate) + '"';
  const at = ntriples.startsWith(prefix) ? 0 : ntriples.indexOf('\n' + prefix);
  if (at < 0) return undefined;
  const start = at + (at === 0 && ntriples.startsWith(prefix) ? 0 : 1) + prefix.length;
  return ntriples.slice(start, ntriples.indexOf('"', start));
}

/**
 * `ntriples` with the first literal object `"from"` of `subject predicate` written `"to"` instead,
 * or as it was when there is none (no escapes expected: a timestamp, a number). A literal cannot
 * hold this text (its quotes would be escaped), so only the statement matches.
 */
export function replaceLiteral(ntriples: string, subject: string, predicate: string, from: string, to: string): string {
  const prefix = prefixOf(subject, predicate) + '"';
  return ntriples.replace(`${prefix}${from}"`, () => `${prefix}${to}"`);
}

/**
 * The IRI objects of every line of canonical N-Triples, in file order (what a page names: a
 * document's creator, its owner, a foaf:knows). A line's object is an IRI when it ends in `> .`
 * after a space (a datatype's `<` follows `^^`); an IRI holds no `<`, `>` or newline.
 */
export function objectIris(ntriples: string): string[] {
  const found: string[] = [];
  for (let end = ntriples.indexOf('> .'); end !== -1; end = ntriples.indexOf('> .', end + 3)) {
    if (end + 3 < ntriples.length && ntriples.charCodeAt(end + 3) !== 0x0a) continue; // inside a literal
    const start = ntriples.lastIndexOf('<', end);
    if (start > 0 && ntriples.charCodeAt(start - 1) === 0x20) found.push(ntriples.slice(start + 1, end));
  }
  return found;
}

/** Whether the triple `<subject> <predicate> <object>` is a line of `ntriples`. */
export function hasTriple(ntriples: string, subject: string, predicate: string, object: string): boolean {
  const line = `${prefixOf(subject, predicate)}<${object}> .`;
  return ntriples.startsWith(line + '\n') || ntriples.includes('\n' + line + '\n') || ntriples === line || ntriples.endsWith('\n' + line);
}

/** `ntriples` without the lines whose predicate is `predicate`, whatever their subject and object (a subject holds no space). */
export function withoutPredicate(ntriples: string, predicate: string): string {
  const field = `<${predicate}> `;
  return ntriples
    .split('\n')
    .filter((line) => !line.startsWith(field, line.indexOf(' ') + 1))
    .join('\n');
}

/** The first `max` lines of `ntriples` (a subject's lines stay together, sorted as they are), and how many lines there are in all when that is not all. */
export function firstLines(ntriples: string, max: number): { ntriples: string; truncated?: { shown: number; total: number } } {
  let end = -1;
  let count = 0;
  while (count < max && (end = ntriples.indexOf('\n', end + 1)) >= 0) count++;
  if (end < 0 || end === ntriples.length - 1) return { ntriples };
  let total = count;
  for (let at = end + 1; at < ntriples.length; ) {
    const next = ntriples.indexOf('\n', at);
    if (next !== at) total++;
    if (next < 0) break;
    at = next + 1;
  }
  return { ntriples: ntriples.slice(0, end + 1), truncated: { shown: count, total } };
}

/** The lines of `ntriples`, empty ones left out. */
export function linesOf(ntriples: string): string[] {
  return ntriples.split('\n').filter(Boolean);
}

/** The triples of `to` that `from` lacks (added) and the triples of `from` that `to` lacks (removed), each in file order. */
export function lineDifference(from: string, to: string): { removed: string[]; added: string[] } {
  const lines = (text: string) => new Set(linesOf(text));
  const before = lines(from);
  const after = lines(to);
  return { removed: [...before].filter((l) => !after.has(l)), added: [...after].filter((l) => !before.has(l)) };
}

/** A literal line of N-Triples or N-Quads: subject IRI, predicate IRI, lexical form (escaped), language. */
const LITERAL_LINE = /^<([^>]*)> <([^>]*)> "((?:[^"\\]|\\.)*)"(?:@([A-Za-z0-9-]+)|\^\^<[^>]*>)?(?: <[^>]*>)? \.$/;
const ESCAPES: Record<string, string> = { t: '\t', b: '\b', n: '\n', r: '\r', f: '\f', '"': '"', "'": "'", '\\': '\\' };

/** The lexical form an N-Triples string literal's escapes stand for. */
export function unescapeLiteral(text: string): string {
  return text.replace(/\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))/g, (whole, u4: string | undefined, u8: string | undefined, c: string | undefined) =>
    u4 ? String.fromCharCode(parseInt(u4, 16)) : u8 ? String.fromCodePoint(parseInt(u8, 16)) : (ESCAPES[c!] ?? whole),
  );
}

/** The literal objects of `predicates` in N-Triples or N-Quads text, line by line, without a parse. */
export function* literalsOf(text: string, predicates: ReadonlySet<string>): Generator<{ subject: string; predicate: string; value: string; language: string }> {
  for (const line of text.split('\n')) {
    const match = LITERAL_LINE.exec(line);
    if (match && predicates.has(match[2]!)) yield { subject: match[1]!, predicate: match[2]!, value: unescapeLiteral(match[3]!), language: (match[4] ?? '').toLowerCase() };
  }
}

// One statement of N-Triples, each term whole (RDF 1.1 N-Triples §7 grammar, ASCII blank node labels):
// text that passes can be set inside a SPARQL `INSERT DATA { GRAPH <g> { … } }` or turned into
// N-Quads as it is, and nothing in it can close the block it is put in or add a statement elsewhere.
const UCHAR = String.raw`\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}`;
const IRI_TERM = String.raw`<(?:[^<>"{}|^\x60\\\x00-\x20]|${UCHAR})*>`;
const BLANK_TERM = String.raw`_:[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?`;
const LITERAL_TERM = String.raw`"(?:[^"\\\n\r]|\\[tbnrf"'\\]|${UCHAR})*"(?:\^\^${IRI_TERM}|@[A-Za-z]+(?:-[A-Za-z0-9]+)*)?`;
const STATEMENT = new RegExp(String.raw`^(?:${IRI_TERM}|${BLANK_TERM})[ \t]+${IRI_TERM}[ \t]+(?:${IRI_TERM}|${BLANK_TERM}|${LITERAL_TERM})[ \t]*\.[ \t]*$`);

/** The 1-based number of the first line of `text` that is neither empty nor one whole N-Triples statement, or 0 when every line is. */
export function firstNonStatementLine(text: string): number {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line !== '' && !STATEMENT.test(line)) return i + 1;
  }
  return 0;
}

/**
 * Canonical N-Triples (one statement a line, each ending in " .") as N-Quads in the graph written
 * `graph` (an N-Triples IRI term, `<…>`): what a bulk load of several documents sends.
 */
export function linesInGraph(ntriples: string, graph: string): string {
  let out = '';
  for (const line of ntriples.split('\n')) {
    const trimmed = line.trimEnd();
    if (trimmed === '') continue;
    out += `${trimmed.slice(0, -1).trimEnd()} ${graph} .\n`;
  }
  return out;
}

/**
 * The subject, predicate and object of a canonical line (`S P O .`), each as written there; undefined
 * for a line of another shape (a hand-edited file's, before the server writes it again).
 */
export function lineTerms(line: string): [string, string, string] | undefined {
  const s = line.indexOf(' '); // a subject (IRI or blank node) holds no space, nor does a predicate
  const p = line.indexOf(' ', s + 1);
  if (s <= 0 || p <= s || !line.endsWith(' .') || line[p - 1] !== '>' || p + 3 > line.length) return undefined;
  return [line.slice(0, s), line.slice(s + 1, p), line.slice(p + 1, -2)];
}
