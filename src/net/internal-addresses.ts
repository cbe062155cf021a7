/**
 * Which IP addresses outgoing requests may not reach without `--allow-internal-urls` (DESIGN.md,
 * "Command line"): loopback, private, link-local, CGNAT, multicast, reserved and cloud metadata
 * ranges, in IPv4 and every IPv6 form that embeds an IPv4 address. Pure.
 */
import { isIP } from 'node:net';

// Internal address ranges as [prefix, length]. IPv4: RFC 6890 special-purpose blocks that are not
// globally reachable, plus cloud metadata (169.254.169.254 and 100.100.100.200 fall in them).
const IPV4_INTERNAL: ReadonlyArray<[string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // CGNAT, RFC 6598
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const IPV6_INTERNAL: ReadonlyArray<[string, number]> = [
  ['64:ff9b:1::', 48], // local-use NAT64, RFC 8215
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo: the embedded client address is obfuscated, refuse the block
  ['fc00::', 7], // unique local, RFC 4193 (AWS metadata fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local, deprecated
  ['ff00::', 8], // multicast
];
// IPv6 blocks that embed an IPv4 address, classified by that address: [prefix, length, offset of the IPv4 bytes].
const IPV6_EMBEDDING: ReadonlyArray<[string, number, number]> = [
  ['::ffff:0:0', 96, 12], // IPv4-mapped
  ['::', 96, 12], // IPv4-compatible (deprecated); also :: and ::1
  ['::ffff:0:0:0', 96, 12], // IPv4-translated, RFC 2765
  ['64:ff9b::', 96, 12], // NAT64, RFC 6052
  ['2002::', 16, 2], // 6to4, RFC 3056
];

function ipv4Bytes(address: string): number[] {
  return address.split('.').map(Number);
}

/** The 16 bytes of an IPv6 address (isIPv6 already true), embedded dotted IPv4 tail included. */
function ipv6Bytes(address: string): number[] {
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  let text = address;
  if (tail) {
    const [a, b, c, d] = ipv4Bytes(tail[1]!) as [number, number, number, number];
    text = address.slice(0, -tail[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = groups(rest);
  const words = rest === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

function inPrefix(bytes: readonly number[], prefix: readonly number[], length: number): boolean {
  for (let bit = 0; bit < length; bit += 8) {
    const mask = length - bit >= 8 ? 0xff : (0xff << (8 - (length - bit))) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((prefix[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

function ipv4Internal(bytes: readonly number[]): boolean {
  return IPV4_INTERNAL.some(([prefix, length]) => inPrefix(bytes, ipv4Bytes(prefix), length));
}

/**
 * Whether an IP address is loopback, private, link-local, unspecified, multicast, reserved, CGNAT
 * or cloud metadata, in IPv4 or IPv6 form (IPv4-mapped, NAT64 and 6to4 forms are judged by the
 * IPv4 address they carry). Anything that is not an IP address counts as internal (fail closed).
 */
export function isInternalAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, ''); // brackets, IPv6 zone id
  const version = isIP(bare);
  if (version === 4) return ipv4Internal(ipv4Bytes(bare));
  if (version !== 6) return true;
  const bytes = ipv6Bytes(bare);
  for (const [prefix, length, offset] of IPV6_EMBEDDING) {
    if (inPrefix(bytes, ipv6Bytes(prefix), length)) return ipv4Internal(bytes.slice(offset, offset + 4));
  }
  return IPV6_INTERNAL.some(([prefix, length]) => inPrefix(bytes, ipv6Bytes(prefix), length));
}
