/** Which dataspace a request URL falls under: the one whose base is its longest prefix (DESIGN.md, "Dataspaces"). */
import type { DataspaceRuntime } from './state.js';

/** The request URL (without its query), its dataspace, and the path relative to that dataspace's base. */
export function locate(runtimes: readonly DataspaceRuntime[], scheme: 'https' | 'http', host: string, path: string): { url: string; runtime: DataspaceRuntime | undefined; relative: string } {
  const url = `${scheme}://${host}${path}`;
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
