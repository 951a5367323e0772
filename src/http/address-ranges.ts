// Lists of IP addresses and CIDR ranges ("185.71.76.0/27", "77.75.156.11", "2a02:5180::/32"), and whether an
// address falls in one. IPv4-mapped IPv6 addresses (::ffff:185.71.76.5, as a dual-stack socket reports an
// IPv4 client) count as the IPv4 address they carry.
import { isIP } from 'node:net';

export interface AddressRange {
  /** 4 or 16 bytes. */
  bytes: Uint8Array;
  /** Leading bits that must match. */
  prefix: number;
}

/** The range an entry names, or null when it names none. */
export function parseAddressRange(entry: string): AddressRange | null {
  const [address = '', prefixText, extra] = entry.trim().split('/');
  if (extra !== undefined) return null;
  const bytes = addressBytes(address);
  if (!bytes) return null;
  const bits = bytes.length * 8;
  if (prefixText === undefined) return { bytes, prefix: bits };
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) return null;
  return { bytes, prefix: Number(prefixText) };
}

/** Parses every entry; throws naming the first that is no address or range. */
export function parseAddressRanges(entries: string[]): AddressRange[] {
  return entries.map((entry) => {
    const range = parseAddressRange(entry);
    if (!range) throw new Error(`not an IP address or CIDR range: ${entry}`);
    return range;
  });
}

export function addressInRanges(address: string, ranges: AddressRange[]): boolean {
  const bytes = addressBytes(address);
  if (!bytes) return false;
  return ranges.some((range) => range.bytes.length === bytes.length && samePrefix(bytes, range.bytes, range.prefix));
}

function samePrefix(a: Uint8Array, b: Uint8Array, prefix: number): boolean {
  const whole = Math.floor(prefix / 8);
  for (let i = 0; i < whole; i++) if (a[i] !== b[i]) return false;
  const rest = prefix % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (a[whole]! & mask) === (b[whole]! & mask);
}

/** 4 bytes for IPv4 (and IPv4-mapped IPv6), 16 for IPv6; null for anything else. Brackets and zones are dropped. */
function addressBytes(text: string): Uint8Array | null {
  const plain = text
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '');
  const family = isIP(plain);
  if (family === 4) return Uint8Array.from(plain.split('.').map(Number));
  if (family !== 6) return null;
  const lower = plain.toLowerCase();
  // A dotted tail (::ffff:1.2.3.4) becomes two groups.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  let groupsText = lower;
  if (dotted) {
    const [a, b, c, d] = dotted[2]!.split('.').map(Number);
    groupsText = `${dotted[1]}${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}`;
  }
  const [head = '', tail] = groupsText.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail === undefined ? [] : tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...tailGroups];
  if (groups.length !== 8) return null;
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  // ::ffff:a.b.c.d is the IPv4 client of a dual-stack socket.
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12);
  return bytes;
}
