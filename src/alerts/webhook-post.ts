// One POST of a webhook event to an address that was checked (webhook-address.ts), with bounds a
// receiver cannot push past: the connection goes to a checked address (node:http's `lookup` answers with
// it, so no second DNS answer is asked for; the Host header and TLS's server name stay the URL's name),
// the whole exchange has a deadline, and at most a few KB of the answer are read before the socket is
// closed — only the status matters, and an endless or huge answer must not fill the server's memory.
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { CheckedWebhook, ResolvedAddress } from './webhook-address';

export interface WebhookAnswer {
  status: number;
  /** The Retry-After header, when the receiver sent one. */
  retryAfter: string | null;
}

export interface WebhookPostOptions {
  timeoutMs: number;
  /** How much of the answer's body is read (and dropped) before the connection is closed. */
  maxAnswerBytes: number;
}

/** Why a POST got no status: the deadline passed, or the receiver could not be reached. */
export class WebhookNotReached extends Error {
  override readonly name = 'WebhookNotReached';
  constructor(readonly reason: 'timeout' | 'network') {
    super(reason === 'timeout' ? 'webhook did not answer in time' : 'webhook not reached');
  }
}

/** A `lookup` that answers with the checked addresses whatever it is asked. */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return ((_host: string, options: { all?: boolean } | number | undefined, callback: (...args: unknown[]) => void) => {
    const all = typeof options === 'object' && options?.all;
    if (all)
      callback(
        null,
        addresses.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as unknown as LookupFunction;
}

export function postWebhook(target: CheckedWebhook, headers: Record<string, string>, body: string, options: WebhookPostOptions): Promise<WebhookAnswer> {
  const { url, host, addresses } = target;
  const secure = url.protocol === 'https:';
  return new Promise<WebhookAnswer>((resolve, reject) => {
    let answer: WebhookAnswer | null = null;
    let settled = false;
    const finish = (error: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Whatever is left of the answer is not read: the socket goes.
      request.destroy();
      if (answer) resolve(answer);
      else reject(error ?? new WebhookNotReached('network'));
    };
    const request = (secure ? https : http).request({
      protocol: url.protocol,
      host,
      port: url.port ? Number(url.port) : secure ? 443 : 80,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { ...headers, host: url.host, 'content-length': String(Buffer.byteLength(body)) },
      // One connection per delivery: a kept-alive socket would have been opened for another check.
      agent: false,
      lookup: pinnedLookup(addresses),
      ...(secure && !isIP(host) ? { servername: host } : {}),
    });
    const timer = setTimeout(() => finish(new WebhookNotReached('timeout')), options.timeoutMs);
    request.on('error', () => finish(null));
    request.on('response', (response) => {
      const retryAfter = response.headers['retry-after'];
      answer = { status: response.statusCode ?? 0, retryAfter: typeof retryAfter === 'string' ? retryAfter : null };
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= options.maxAnswerBytes) finish(null);
      });
      response.on('end', () => finish(null));
      response.on('error', () => finish(null));
    });
    request.end(body);
  });
}
