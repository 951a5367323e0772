// Which client a request comes from, for the per-address limits (registrations, login attempts).
//
// The socket's address is known only to Bun's server (server.requestIP), which hands the app a bare
// Request: server.ts records it here per request. X-Forwarded-For is read only when TRUST_PROXY says
// which of its entries a trusted proxy wrote; anything else in it is the client's own say-so.
import { isIP } from 'node:net';

const socketAddresses = new WeakMap<Request, string>();

/** Called by the HTTP server for every request before the app sees it. */
export function rememberClientAddress(request: Request, address: string | undefined): void {
  if (address) socketAddresses.set(request, address);
}

/**
 * The address limits are counted against. IPv4 addresses as they are; IPv6 ones by their /64, since one
 * subscriber is usually handed a whole /64 and could otherwise count afresh with every address in it.
 */
export function limitKey(address: string): string {
  // Every request asks for its socket's key, and clients come back: the answer is kept for a while.
  let key = limitKeys.get(address);
  if (key === undefined) {
    if (limitKeys.size >= 4096) limitKeys.clear();
    key = computeLimitKey(address);
    limitKeys.set(address, key);
  }
  return key;
}

const limitKeys = new Map<string, string>();

function computeLimitKey(address: string): string {
  const plain = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(plain);
  if (mapped) return mapped[1]!;
  if (isIP(plain) !== 6) return plain;
  const [head = '', tail = ''] = plain.toLowerCase().split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = plain.includes('::') ? (tail ? tail.split(':') : []) : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(Math.max(missing, 0)).fill('0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** An X-Forwarded-For entry as an address, or null when it is not one (a port or brackets are dropped). */
function forwardedEntry(entry: string): string | null {
  let value = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(':'));
  return isIP(value) ? value : null;
}

/**
 * The client's address under the TRUST_PROXY setting: false → the socket's; true → the left-most
 * X-Forwarded-For entry; N → the N-th entry from the right (the left-most when there are fewer). A header
 * that is missing or names no address leaves the socket's address; 'unknown' when even that is missing
 * (a request that did not come through the server, which then shares one count with its kind).
 */
export function clientAddressOf(request: Request, trustProxy: boolean | number): string {
  const socket = socketAddresses.get(request) ?? 'unknown';
  if (trustProxy === false) return socket;
  const header = request.headers.get('x-forwarded-for');
  if (!header) return socket;
  const entries = header.split(',');
  const picked = trustProxy === true ? entries[0] : entries[Math.max(entries.length - trustProxy, 0)];
  return (picked !== undefined && forwardedEntry(picked)) || socket;
}
