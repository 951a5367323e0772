// Where an alert webhook may go. A user's URL is fetched by the server, so without a check it could reach
// the operator's own network (SSRF): only http(s), and unless ALERT_WEBHOOK_ALLOW_PRIVATE, never a
// loopback, private, link-local (cloud metadata), carrier-grade NAT or other non-public address, whether
// written as an address or reached through a name. Names are checked when the URL is saved and again
// before each delivery (a name can be pointed elsewhere later); redirects are not followed.
//
// IPv6 forms that carry or reach an IPv4 address (IPv4-compatible ::a.b.c.d, IPv4-mapped ::ffff:a.b.c.d,
// IPv4-translated ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo
// 2001::/32) are refused whatever address they carry: a webhook has no reason to be written so, and a
// gateway on the way could turn any of them into a private IPv4 address. So is deprecated site-local fec0::/10.
//
// A delivery resolves the name once (resolveWebhookUrl), checks every address it got, and connects to one
// of those (webhook-post.ts): a second DNS answer (rebinding) is never asked for.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { addressInRanges, parseAddressRanges } from '../http/address-ranges';

const NON_PUBLIC = parseAddressRanges([
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/3',
  // IPv4-compatible (and with it :: and ::1) and IPv4-translated forms.
  '::/96',
  '::ffff:0:0:0/96',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '2001::/32',
  '2001:2::/48',
  '2001:10::/28',
  '2001:20::/28',
  '2001:db8::/32',
  '2002::/16',
  '3fff::/20',
  '5f00::/16',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
]);

/** Any IPv4 address: an IPv6 text that address-ranges reads as one is IPv4-mapped (::ffff:a.b.c.d). */
const ANY_IPV4 = parseAddressRanges(['0.0.0.0/0']);

export type WebhookAddressProblem = 'invalid' | 'private' | 'unknown_host';

/** An address a name resolved to, as node:dns gives it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** How a name is resolved: the system resolver unless a caller (a test's fake DNS) passes another. */
export type ResolveHost = (host: string) => Promise<ResolvedAddress[]>;

const systemResolve: ResolveHost = (host) => lookup(host, { all: true, verbatim: true });

/** A webhook URL and the addresses it was checked at: the connection goes to one of these, never to a new answer. */
export interface CheckedWebhook {
  url: URL;
  /** The host without IPv6 brackets, for the Host header's name and TLS's server name. */
  host: string;
  addresses: ResolvedAddress[];
}

/** The URL as it will be fetched, or why it may not be. */
export function parseWebhookUrl(text: string): URL | 'invalid' {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'invalid';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'invalid';
  // Credentials in the URL would be sent (and shown back in the settings): not a place for them.
  if (url.username || url.password || !url.hostname) return 'invalid';
  return url;
}

/** Whether a webhook may be delivered to this address (ALERT_WEBHOOK_ALLOW_PRIVATE off). */
export function isPublicAddress(address: string): boolean {
  if (isIP(address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')) === 6 && addressInRanges(address, ANY_IPV4)) return false;
  return !addressInRanges(address, NON_PUBLIC);
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');
const isLocalName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/**
 * The URL with the addresses to connect to, every one of them checked; or the problem. A DNS failure
 * other than "no such name" is thrown (the caller may try again later). `allowPrivate` skips the address
 * checks but not the pinning.
 */
export async function resolveWebhookUrl(text: string, allowPrivate: boolean, resolve: ResolveHost = systemResolve): Promise<CheckedWebhook | WebhookAddressProblem> {
  const url = parseWebhookUrl(text);
  if (url === 'invalid') return 'invalid';
  const host = hostOf(url);
  const family = isIP(host);
  if (family) return allowPrivate || isPublicAddress(host) ? { url, host, addresses: [{ address: host, family }] } : 'private';
  if (!allowPrivate && isLocalName(host)) return 'private';
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') return 'unknown_host';
    throw error;
  }
  if (addresses.length === 0) return 'unknown_host';
  if (!allowPrivate && !addresses.every((a) => isPublicAddress(a.address))) return 'private';
  return { url, host, addresses };
}

/**
 * Null when the URL may be saved; otherwise the problem. `allowPrivate` checks the URL's form alone. A DNS
 * failure (timeout) lets it pass here: every delivery resolves and checks again.
 */
export async function checkWebhookUrl(text: string, allowPrivate: boolean, resolve?: ResolveHost): Promise<WebhookAddressProblem | null> {
  if (allowPrivate) return parseWebhookUrl(text) === 'invalid' ? 'invalid' : null;
  try {
    const checked = await resolveWebhookUrl(text, allowPrivate, resolve);
    return typeof checked === 'string' ? checked : null;
  } catch {
    return null;
  }
}
