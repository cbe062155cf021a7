/**
 * A bounded memo for pure functions of one string on hot paths (path mapping, ETags, negotiation):
 * a Map that is cleared when it reaches its size, which is simpler than an LRU and enough for the
 * small working sets of request headers and document paths. Errors are not cached.
 */
export function memo<T>(fn: (key: string) => T, max = 10_000): (key: string) => T {
  const cache = new Map<string, T>();
  return (key: string) => {
    const hit = cache.get(key);
    if (hit !== undefined || cache.has(key)) return hit as T;
    const value = fn(key);
    if (cache.size >= max) cache.clear();
    cache.set(key, value);
    return value;
  };
}
