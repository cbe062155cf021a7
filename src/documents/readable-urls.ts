/**
 * The documents a viewer may read, as a set to test URLs against: access control gives them as a
 * list with a key (access-control.ts `readableGraphs`, a new key when HEAD or the policy changes);
 * the set is made once per key and kept until another key is asked for.
 */

/** What access control says a viewer may read: a key and the documents' URLs. */
export interface Readable {
  key: string;
  graphs: readonly string[];
}

export class ReadableUrls {
  private last: { key: string; urls: ReadonlySet<string> } | undefined;

  has(readable: Readable, url: string): boolean {
    if (this.last?.key !== readable.key) this.last = { key: readable.key, urls: new Set(readable.graphs) };
    return this.last.urls.has(url);
  }
}
