// The shared plumbing of the integration clients (src/integrations/http-call.ts), against a real local
// server: a mock of fetch would not show what Bun's fetch really throws on a timeout or a refused port.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { classifyFailure, failureMessage, httpCall, redact } from '../../src/integrations/http-call';

const SECRET = 'bot123456:AAF-very-secret-part';

let server: ReturnType<typeof Bun.serve>;
let base: string;

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path.endsWith('/slow')) {
        await Bun.sleep(2_000);
        return Response.json({ late: true });
      }
      if (path.endsWith('/html')) return new Response('<html>502 Bad Gateway</html>', { status: 502 });
      if (path.endsWith('/empty')) return new Response('', { status: 204 });
      return Response.json({ ok: true, path });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(() => server.stop(true));

/** A port nothing listens on: bind one, note it, close it. */
function closedPort(): number {
  const s = Bun.serve({ port: 0, fetch: () => new Response('') });
  const port = s.port ?? 0;
  s.stop(true);
  return port;
}

describe('httpCall', () => {
  test('a JSON answer is parsed; the secret in the URL path reaches the server untouched', async () => {
    const out = await httpCall(fetch, `${base}/${SECRET}/ok`, { method: 'GET' }, { timeoutMs: 1_000 });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.status).toBe(200);
    expect(out.unparseable).toBe(false);
    expect(out.body).toEqual({ ok: true, path: `/${encodeURI(SECRET)}/ok` });
  });

  test('a non-JSON body is an answer, marked unparseable, with body null', async () => {
    const out = await httpCall(fetch, `${base}/html`, { method: 'GET' }, { timeoutMs: 1_000 });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.status).toBe(502);
    expect(out.body).toBeNull();
    expect(out.unparseable).toBe(true);
    expect(out.text).toContain('Bad Gateway');
  });

  test('an empty body is not "unparseable": there was nothing to parse', async () => {
    const out = await httpCall(fetch, `${base}/empty`, { method: 'GET' }, { timeoutMs: 1_000 });
    expect(out.ok && out.status === 204 && out.body === null && !out.unparseable).toBe(true);
  });

  test('our timeout fires: timedOut, not aborted, and the message names the limit', async () => {
    const started = Date.now();
    const out = await httpCall(fetch, `${base}/${SECRET}/slow`, { method: 'GET' }, { timeoutMs: 100 });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.timedOut).toBe(true);
    expect(out.aborted).toBe(false);
    expect(failureMessage('Test GET', out, 100, [SECRET])).toBe('Test GET did not answer within 100 ms');
  });

  test("a caller's abort stops the call early and is not counted as a timeout", async () => {
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 50);
    const started = Date.now();
    const out = await httpCall(fetch, `${base}/slow`, { method: 'GET' }, { timeoutMs: 5_000, signal: caller.signal });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.aborted).toBe(true);
    expect(out.timedOut).toBe(false);
  });

  test('a refused connection is neither a timeout nor an abort, and its message is scrubbed', async () => {
    const url = `http://127.0.0.1:${closedPort()}/${SECRET}/x`;
    const out = await httpCall(fetch, url, { method: 'GET' }, { timeoutMs: 1_000 });
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.timedOut).toBe(false);
    expect(out.aborted).toBe(false);
    // Whatever the runtime quotes (the URL, in some versions), the secret does not leave.
    const message = failureMessage('Test GET', { ...out, reason: `${out.reason} ${url}` }, 1_000, [SECRET]);
    expect(message).toStartWith('Test GET could not be reached (');
    expect(message).not.toContain(SECRET);
    expect(message).toContain('[redacted]');
  });
});

describe('redact and classifyFailure', () => {
  test('every given spelling is scrubbed; spellings under 3 characters are left alone', () => {
    const text = `GET /bot${SECRET}/send failed: ${encodeURIComponent(SECRET)} ab`;
    const out = redact(text, [SECRET, encodeURIComponent(SECRET), 'ab']);
    expect(out).toBe('GET /bot[redacted]/send failed: [redacted] ab');
  });

  test('without a caller signal an AbortError still counts as a timeout, as the clients always did', () => {
    const abort = new DOMException('aborted', 'AbortError');
    expect(classifyFailure(abort)).toEqual({ timedOut: true, aborted: false, reason: 'AbortError: aborted' });
    expect(classifyFailure(new TypeError('fetch failed')).timedOut).toBe(false);
  });
});
