// Where an alert webhook may go. A user's URL is fetched by the server, so without a check it could reach
// the operator's own network (SSRF): only http(s), and unless ALERT_WEBHOOK_ALLOW_PRIVATE, never a
// loopback, private, link-local (cloud metadata), carrier-grade NAT or other non-public address, whether
// written as an address or reached through a name. Names are checked when the URL is saved and again
// before each delivery (a name can be pointed elsewhere later); redirects are not followed.
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
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/3',
  '::/128',
  '::1/128',
  '64:ff9b::/96',
  '100::/64',
  '2001:db8::/32',
  'fc00::/7',
  'fe80::/10',
  'ff00::/8',
]);

export type WebhookAddressProblem = 'invalid' | 'private' | 'unknown_host';

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

const isPublicAddress = (address: string) => !addressInRanges(address, NON_PUBLIC);

/**
 * Null when the URL may be fetched; otherwise the problem. `allowPrivate` skips the address checks.
 * A name that does not resolve is 'unknown_host' only when DNS says it does not exist; a DNS failure
 * (timeout) lets it pass here, and delivery checks again.
 */
export async function checkWebhookUrl(text: string, allowPrivate: boolean): Promise<WebhookAddressProblem | null> {
  const url = parseWebhookUrl(text);
  if (url === 'invalid') return 'invalid';
  if (allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return isPublicAddress(host) ? null : 'private';
  if (host === 'localhost' || host.endsWith('.localhost')) return 'private';
  try {
    const addresses = await lookup(host, { all: true, verbatim: true });
    return addresses.every((a) => isPublicAddress(a.address)) ? null : 'private';
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return code === 'ENOTFOUND' || code === 'ENODATA' ? 'unknown_host' : null;
  }
}
