/**
 * A least-recently-used cache bounded by the bytes of its values (blobs, serialisations, query
 * results). Values larger than `maxEntry` are not kept, so one huge value cannot empty the cache.
 */
export class ByteCache<V> {
  private readonly entries = new Map<string, V>();
  private bytes = 0;

  constructor(
    private readonly capacity: number,
    private readonly sizeOf: (value: V) => number,
    private readonly maxEntry = capacity / 4,
  ) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  delete(key: string): void {
    const value = this.entries.get(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.bytes -= this.sizeOf(value);
  }

  put(key: string, value: V): void {
    const size = this.sizeOf(value);
    if (this.entries.has(key) || size > this.maxEntry) return;
    this.entries.set(key, value);
    this.bytes += size;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= this.capacity) break;
      this.entries.delete(oldest);
      this.bytes -= this.sizeOf(old);
    }
  }
}
