/**
 * A rate per key (an agent, a client address): `limit` uses per `windowMs`, spent at once or spread
 * out, refilled evenly (GCRA, the generic cell rate algorithm of ITU-T I.371: one number per key,
 * the time its budget is full again). Memory is bounded: past `maxKeys`, the keys used longest ago
 * are forgotten first (a key whose budget is full again costs nothing to forget), so many
 * addresses cannot grow it without limit. Pure, with the clock passed in.
 */

export interface RateLimitOptions {
  /** Uses allowed in a window, at once or spread out. */
  limit: number;
  windowMs: number;
  /** Keys remembered at most (default 10,000: about a megabyte). */
  maxKeys?: number;
  /** Milliseconds since the epoch; default Date.now. */
  now?: () => number;
}

export class RateLimit {
  readonly limit: number;
  readonly windowMs: number;
  /** When each key's budget is full again; in the order the keys were last used. */
  private readonly full = new Map<string, number>();
  private readonly interval: number;
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(options: RateLimitOptions) {
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.interval = options.windowMs / options.limit;
    this.maxKeys = options.maxKeys ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** Spends one use of `key`: 0 when it is allowed, else the milliseconds until one is (nothing spent). */
  take(key: string): number {
    const now = this.now();
    const full = Math.max(this.full.get(key) ?? now, now) + this.interval;
    const over = full - now - this.windowMs;
    if (over > 0.001) return Math.ceil(over); // (a window need not divide evenly by the limit)
    this.full.delete(key); // last used now: it goes to the end of the order
    this.full.set(key, full);
    // forget the keys used longest ago while their budget is full again, or while there are too many
    for (const [oldest, until] of this.full) {
      if (this.full.size <= this.maxKeys && until > now) break;
      this.full.delete(oldest);
    }
    return 0;
  }

  /** Gives back one use of `key` that was taken (the work it was taken for did not happen). */
  giveBack(key: string): void {
    const full = this.full.get(key);
    if (full !== undefined) this.full.set(key, full - this.interval);
  }

  /** Keys remembered now. */
  get size(): number {
    return this.full.size;
  }
}

/**
 * The key of a client address: IPv4 (an IPv4-mapped IPv6 address too) as it is, IPv6 by its /64
 * prefix, which is what one subscriber gets (RFC 6177): more addresses of one network are one client.
 */
export function addressKey(address: string | undefined): string {
  const plain = (address ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').replace(/%.*$/, '');
  if (!plain.includes(':')) return plain;
  const [head = '', tail] = plain.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(8 - left.length - right.length, 0)).fill('0'), ...right];
  return groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':') + '::/64';
}
