/**
 * Which dataspace a request URL falls under: the one whose base is the longest prefix of its normal
 * form (DESIGN.md, "Dataspaces"). Routing and the document mapping see the same normal form, so no
 * spelling of a path (`%61dmin`, a lower-case host) reaches another dataspace's space (issue 25), and
 * a document path whose URL would lie in another dataspace is refused.
 */
import { canonicalDocumentPath } from '../document-paths.js';
import { LodestoneError } from '../errors.js';
import type { DataspaceRuntime } from './state.js';

// RFC 3986 §2.3: unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * A path in its normal form: percent-encoded unreserved characters decoded (RFC 3986 §6.2.2.2,
 * `%61dmin` is `admin`), other percent-encodings in upper case (§6.2.2.1). Dot segments are left for
 * the document mapping to refuse.
 */
export function normalPath(path: string): string {
  if (!path.includes('%')) return path;
  return path.replace(/%[0-9A-Fa-f]{2}/g, (encoded) => {
    const char = String.fromCharCode(Number.parseInt(encoded.slice(1), 16));
    return UNRESERVED.test(char) ? char : encoded.toUpperCase();
  });
}

/** The request URL in normal form (without its query), its dataspace, and the path relative to that dataspace's base. */
export function locate(runtimes: readonly DataspaceRuntime[], scheme: 'https' | 'http', host: string, path: string): { url: string; runtime: DataspaceRuntime | undefined; relative: string } {
  const url = `${scheme}://${host.toLowerCase()}${normalPath(path)}`; // RFC 3986 §6.2.2.1: the host is case-insensitive
  const runtime = runtimeFor(runtimes, url);
  const base = runtime?.documents.base ?? '';
  return { url, runtime, relative: url.length < base.length ? '' : url.slice(base.length) };
}

/** The runtime whose base is the longest prefix of `url`. */
export function runtimeFor(runtimes: readonly DataspaceRuntime[], url: string): DataspaceRuntime | undefined {
  let best: DataspaceRuntime | undefined;
  for (const runtime of runtimes) {
    const base = runtime.documents.base;
    if ((url.startsWith(base) || url + '/' === base) && (!best || base.length > best.documents.base.length)) best = runtime;
  }
  return best;
}

/**
 * The canonical path of the document `relative` names in `runtime` (document-paths.ts), refused
 * (InvalidPath, 400) when the document's URL would lie in another dataspace's space: the mapping
 * decodes more than the normal form does (sub-delimiters, `:` and `@`), and a document is judged by
 * the rules of the space its URL is in.
 */
export function documentPathIn(runtimes: readonly DataspaceRuntime[], runtime: DataspaceRuntime, relative: string): string {
  const relativePath = canonicalDocumentPath(relative);
  const other = runtimeFor(runtimes, runtime.documents.base + relativePath);
  if (other !== runtime) {
    throw new LodestoneError('InvalidPath', `the document path "${relative}" is not allowed: its URL lies in the dataspace at ${other?.documents.base ?? 'another server'}`, { path: relative });
  }
  return relativePath;
}

/** The URL a proxy request names (its `uri`, SPEC §4.5): an absolute URL without its fragment, or a 400. Authorization and the proxy both read it here. */
export function proxyTarget(querystring: string): URL {
  const values = new URLSearchParams(querystring).getAll('uri');
  if (values.length !== 1 || values[0] === '') throw new LodestoneError('BadRequest', values.length > 1 ? 'give one uri parameter' : 'the uri parameter is empty: give the URL to proxy');
  let target: URL;
  try {
    target = new URL(values[0]!);
  } catch {
    throw new LodestoneError('BadRequest', `uri=${values[0]!.slice(0, 200)} is not an absolute URL`);
  }
  target.hash = ''; // RFC 9110 §7.1: a fragment is not sent
  return target;
}
