/**
 * The objects of the store's latest write batches, each with the HEAD before and after it, kept
 * (up to a few MiB) so that a replica a few commits behind is sent them without a read or a tree
 * walk (store/head-pack.ts). A commit made by another git client breaks the line: forgotten then.
 */
import type { GitObject } from '../git/objects.js';

interface Batch {
  before: string | undefined;
  after: string;
  objects: readonly GitObject[];
  bytes: number;
}

export class RecentBatches {
  private batches: Batch[] = [];
  private bytes = 0;

  constructor(private readonly maxBytes = 16 * 1024 * 1024) {}

  add(before: string | undefined, after: string, objects: readonly GitObject[]): void {
    const last = this.batches.at(-1);
    if (last && last.after !== before) this.clear();
    const bytes = objects.reduce((sum, object) => sum + object.content.length, 0);
    this.batches.push({ before, after, objects, bytes });
    this.bytes += bytes;
    while (this.bytes > this.maxBytes && this.batches.length > 0) this.bytes -= this.batches.shift()!.bytes;
  }

  clear(): void {
    this.batches = [];
    this.bytes = 0;
  }

  /** Every object written from `before` to `after`, each once; undefined when that run is not kept whole. */
  between(before: string, after: string): GitObject[] | undefined {
    const start = this.batches.findIndex((batch) => batch.before === before);
    if (start < 0) return undefined;
    const out: GitObject[] = [];
    const seen = new Set<string>();
    for (let i = start; i < this.batches.length; i++) {
      for (const object of this.batches[i]!.objects) {
        if (seen.has(object.id)) continue;
        seen.add(object.id);
        out.push(object);
      }
      if (this.batches[i]!.after === after) return out;
    }
    return undefined;
  }
}
