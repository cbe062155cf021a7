/**
 * Document URL ↔ file path (DESIGN.md, "Document ↔ file"). A document's path relative to its
 * dataspace base, with its one trailing slash dropped, becomes `<prefix>/<path>.nt`; the root
 * document is `<prefix>/root.nt`. The mapping is injective and safe:
 * - URL segments are percent-decoded (invalid UTF-8, `.`, `..`, `.git`, control characters and
 *   empty segments are refused), and file names percent-encode only `%`, `/`, a final `.` before
 *   `nt` (so a directory `a.nt` never meets the file of document `a/`), and a top-level `root`
 *   (so `/root/` never overwrites the root document);
 * - file → URL re-encodes each segment in one canonical form, and only file names in canonical
 *   form map back, so every mapped file has exactly one document and vice versa.
 */
import { LodestoneError } from './errors.js';
import { memo } from './util/memo.js';

export const ROOT_FILE = 'root';
const MAX_NAME_BYTES = 255;
// RFC 3986 §3.3: pchar = unreserved / pct-encoded / sub-delims / ":" / "@"
const pchar = /[A-Za-z0-9\-._~!$&'()*+,;=:@]/;
const control = /[\u0000-\u001F\u007F]/;

function invalid(path: string, reason: string): LodestoneError {
  return new LodestoneError('InvalidPath', `the document path "${path}" is not allowed: ${reason}`, { path });
}

function decodeSegment(segment: string, path: string): string {
  if (segment === '') throw invalid(path, 'it has an empty segment ("//")');
  if (/%(?![0-9A-Fa-f]{2})/.test(segment)) throw invalid(path, 'it has a malformed percent-encoding');
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw invalid(path, 'its percent-encoding is not valid UTF-8');
  }
  if (decoded === '.' || decoded === '..') throw invalid(path, 'it has a "." or ".." segment');
  if (decoded.toLowerCase() === '.git') throw invalid(path, 'it has a ".git" segment');
  if (control.test(decoded)) throw invalid(path, 'it has a control character');
  if (/[\uD800-\uDFFF]/.test(decoded.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''))) {
    throw invalid(path, 'it has a lone surrogate');
  }
  return decoded;
}

/** The file-system name of one decoded segment. */
function fileName(decoded: string, topLevel: boolean): string {
  let name = decoded.replace(/%/g, '%25').replace(/\//g, '%2F');
  if (name.endsWith('.nt')) name = name.slice(0, -3) + '%2Ent';
  if (topLevel && name === ROOT_FILE) name = '%72oot';
  return name;
}

function encodeUrlSegment(decoded: string): string {
  let out = '';
  for (const char of decoded) {
    if (pchar.test(char)) out += char;
    else for (const byte of Buffer.from(char, 'utf8')) out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** Splits a relative document path (`a/b/`, or `` for the root) into decoded segments. */
export function documentSegments(relativePath: string): string[] {
  if (relativePath === '') return [];
  if (!relativePath.endsWith('/')) throw invalid(relativePath, 'a document path ends with "/"');
  if (relativePath.startsWith('/')) throw invalid(relativePath, 'it has an empty segment ("//")');
  return relativePath.slice(0, -1).split('/').map((s) => decodeSegment(s, relativePath));
}

/** The relative path of a document's parent container (`a/` for `a/b/`, `` for `a/`), undefined for the root. */
export function parentDocumentPath(relativePath: string): string | undefined {
  if (relativePath === '') return undefined;
  return relativePath.slice(0, relativePath.slice(0, -1).lastIndexOf('/') + 1);
}

/** The canonical relative URL path of a document (`a/b/`, or ``): percent-encoding normalised. */
export const canonicalDocumentPath = memo((relativePath: string): string => {
  const segments = documentSegments(relativePath);
  return segments.length === 0 ? '' : segments.map(encodeUrlSegment).join('/') + '/';
});

const fileNames = memo((relativePath: string): string => {
  const segments = documentSegments(relativePath);
  const names = segments.length === 0 ? [ROOT_FILE] : segments.map((s, i) => fileName(s, i === 0));
  for (const name of names) {
    if (Buffer.byteLength(name) + 3 > MAX_NAME_BYTES) throw invalid(relativePath, 'a segment is too long');
  }
  return names.join('/');
});

/** `a/b/` → `graphs/a/b.nt`; `` → `graphs/root.nt`. Throws InvalidPath for unsafe paths. */
export function documentFile(relativePath: string, prefix = 'graphs'): string {
  return `${prefix}/${fileNames(relativePath)}.nt`;
}

/**
 * Whether `relativePath` names a document at all (documentFile would map it), answered without an
 * error's cost: for paths read from data (a rule's target, an IRI a page names), many of which name
 * no document (`ns`, `a//b/`), on every request that reads them.
 */
export const isDocumentPath = memo((relativePath: string): boolean => {
  try {
    fileNames(relativePath);
    return true;
  } catch {
    return false;
  }
});

/**
 * `graphs/a/b.nt` → `a/b/`; `graphs/root.nt` → ``. Files that no document maps to (other
 * extensions, non-canonical names, anything outside the prefix) give undefined.
 */
export function fileDocument(filePath: string, prefix = 'graphs'): string | undefined {
  if (!filePath.startsWith(prefix + '/') || !filePath.endsWith('.nt')) return undefined;
  const names = filePath.slice(prefix.length + 1, -3).split('/');
  if (names.length === 1 && names[0] === ROOT_FILE) return '';
  const decoded: string[] = [];
  for (const [i, name] of names.entries()) {
    let segment: string;
    try {
      segment = decodeURIComponent(name);
    } catch {
      return undefined;
    }
    if (fileName(segment, i === 0) !== name) return undefined;
    decoded.push(segment);
  }
  const relativePath = decoded.map(encodeUrlSegment).join('/') + '/';
  try {
    return documentFile(relativePath, prefix) === filePath ? relativePath : undefined;
  } catch {
    return undefined;
  }
}
