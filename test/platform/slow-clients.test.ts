// Slow and greedy clients, over raw TCP on loopback (each attacker on its own 127.0.0.x address): a body
// trickling in is cut at REQUEST_RECEIVE_TIMEOUT_MS, one address holds at most MAX_CONNECTIONS_PER_ADDRESS
// requests in flight (beyond it 429), headers trickling in are cut too; meanwhile /health answers everyone
// else, and a paying customer's slow answer and quiet stream run undisturbed.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { headerOf, openRaw, statusOf, type RawConnection } from '../helpers/raw-http';

const RECEIVE_MS = 1000;
// Bun's timers tick every 4 s and the guard sets them 4 s long: a cut lands in (deadline, deadline + 8 s],
// plus slack for a busy machine.
const CUT_BY_MS = RECEIVE_MS + 8000 + 1500;
const CAP = 40;
// Longer than any timer the guard sets here: what the app or the upstream takes is not the client's fault.
const UPSTREAM_PAUSE_MS = 9000;

let fake: FakeUpstream;
let app: TestApp;

beforeAll(async () => {
  fake = await startFakeUpstream({ slowMs: UPSTREAM_PAUSE_MS, pieceDelayMs: UPSTREAM_PAUSE_MS });
  app = await startTestApp({
    env: {
      UPSTREAM_BASE_URL: fake.url,
      REQUEST_RECEIVE_TIMEOUT_MS: String(RECEIVE_MS),
      MAX_CONNECTIONS_PER_ADDRESS: String(CAP),
    },
  });
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});

/** Asks GET /health from 127.0.0.1 every 100 ms until stopped; each answer's status (0: none) and latency. */
function watchHealth() {
  const polls: { status: number; ms: number }[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const started = performance.now();
      const status = await fetch(`${app.url}/health`, { signal: AbortSignal.timeout(3000) }).then(
        (res) => res.status,
        () => 0,
      );
      polls.push({ status, ms: performance.now() - started });
      await Bun.sleep(100);
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return polls;
    },
  };
}

/** Milliseconds from `since` to the connection's close; Infinity when it is still open after `boundMs`. */
function closedAfter(connection: RawConnection, since: number, boundMs: number): Promise<number> {
  return Promise.race([connection.closed.then(() => performance.now() - since), Bun.sleep(boundMs).then(() => Infinity)]);
}

const loginHead = (framing: string) => `POST /api/auth/login HTTP/1.1\r\nHost: conduit\r\nContent-Type: application/json\r\n${framing}\r\n`;

describe('slow and greedy clients', () => {
  test('bodies trickling in are cut at the deadline, an address past its cap gets 429 at once, everyone else is served', async () => {
    const customer = await registerUser(app.url);
    const { key } = await createApiKey(app.url, customer.token);
    const v1 = (body: object) =>
      fetch(`${app.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'Привет!' }], ...body }),
      });
    const connections: RawConnection[] = [];
    const health = watchHealth();
    try {
      // A customer whose upstream answers only after UPSTREAM_PAUSE_MS, and one whose stream pauses as long.
      const slowAnswer = v1({ model: 'fake/slow' }).then(async (res) => ({ status: res.status, body: await res.json() }));
      const quietStream = v1({ model: 'acme/chat', stream: true, max_tokens: 1 }).then(async (res) => ({
        status: res.status,
        text: await res.text(),
      }));

      const body = JSON.stringify({ email: 'slow@example.com', password: 'x'.repeat(150) });
      const started = performance.now();
      const greedy = await Promise.all(Array.from({ length: 200 }, () => openRaw(app.url, '127.0.0.2')));
      const chunked = await Promise.all(Array.from({ length: CAP }, () => openRaw(app.url, '127.0.0.3')));
      connections.push(...greedy, ...chunked);
      for (const c of greedy) {
        c.write(loginHead(`Content-Length: ${body.length}\r\n`));
        void c.trickle(body, 250);
      }
      for (const c of chunked) {
        c.write(loginHead('Transfer-Encoding: chunked\r\n'));
        void c.trickle('1\r\nx\r\n'.repeat(40), 250);
      }
      const greedyClosed = await Promise.all(greedy.map((c) => closedAfter(c, started, CUT_BY_MS + 2000)));
      const chunkedClosed = await Promise.all(chunked.map((c) => closedAfter(c, started, CUT_BY_MS + 2000)));

      // Past the cap: 429 with Retry-After in our error format, and the connection closed at once.
      const refused = greedy.map((c, i) => ({ c, closedMs: greedyClosed[i]! })).filter(({ c }) => statusOf(c.received) === 429);
      expect(refused).toHaveLength(200 - CAP);
      for (const { c, closedMs } of refused) {
        expect(headerOf(c.received, 'retry-after')).toBe('1');
        expect(c.received).toContain('"type":"rate_limit_exceeded"');
        expect(closedMs).toBeLessThan(3000);
      }
      // Within the cap: held while the body trickles, then closed without an answer at the deadline.
      const held = greedy.map((c, i) => ({ c, closedMs: greedyClosed[i]! })).filter(({ c }) => statusOf(c.received) !== 429);
      expect(held).toHaveLength(CAP);
      for (const { c, closedMs } of [...held, ...chunked.map((c, i) => ({ c, closedMs: chunkedClosed[i]! }))]) {
        expect(c.received).toBe('');
        expect(closedMs).toBeGreaterThanOrEqual(RECEIVE_MS);
        expect(closedMs).toBeLessThanOrEqual(CUT_BY_MS);
      }

      // The cut requests no longer count: the same address is served again.
      const after = await openRaw(app.url, '127.0.0.2');
      connections.push(after);
      const login = JSON.stringify({ email: 'nobody@example.com', password: 'wrong-password' });
      after.write(loginHead(`Content-Length: ${login.length}\r\nConnection: close\r\n`) + login);
      await after.closed;
      expect(statusOf(after.received)).toBe(401);

      // The customers were not cut: an upstream slow to answer and a quiet stream are not slow clients.
      const answer = await slowAnswer;
      expect(answer.status).toBe(200);
      expect(answer.body.object).toBe('chat.completion');
      const streamed = await quietStream;
      expect(streamed.status).toBe(200);
      expect(streamed.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    } finally {
      for (const c of connections) c.destroy();
      const polls = await health.stop();
      expect(polls.length).toBeGreaterThan(20);
      expect(polls.filter((p) => p.status !== 200)).toEqual([]);
      expect(Math.max(...polls.map((p) => p.ms))).toBeLessThan(1000);
    }
  }, 40_000);

  test('headers trickling in are cut: on a kept-alive connection at the deadline, on a new one by Bun itself', async () => {
    const slowHead = `GET /health HTTP/1.1\r\nHost: conduit\r\nX-Padding: ${'a'.repeat(200)}\r\n\r\n`;
    const connections: RawConnection[] = [];
    const health = watchHealth();
    try {
      // One quick request each (fewer than the cap, all at once), then the next one's headers slowly.
      const kept = await Promise.all(Array.from({ length: CAP - 5 }, () => openRaw(app.url, '127.0.0.4')));
      connections.push(...kept);
      for (const c of kept) c.write('GET /health HTTP/1.1\r\nHost: conduit\r\n\r\n');
      await Promise.all(kept.map((c) => c.waitFor('{"status":"ok"}')));
      const answered = performance.now();
      for (const c of kept) void c.trickle(slowHead, 250);

      // New connections that never finish their first request's headers.
      const fresh = await Promise.all(Array.from({ length: 100 }, () => openRaw(app.url, '127.0.0.5')));
      connections.push(...fresh);
      const opened = performance.now();
      for (const c of fresh) void c.trickle(slowHead, 250);

      const keptClosed = await Promise.all(kept.map((c) => closedAfter(c, answered, CUT_BY_MS + 2000)));
      for (const [i, c] of kept.entries()) {
        expect(c.received.match(/HTTP\/1\.1 /g)).toHaveLength(1);
        expect(keptClosed[i]).toBeGreaterThanOrEqual(RECEIVE_MS);
        expect(keptClosed[i]).toBeLessThanOrEqual(CUT_BY_MS);
      }
      // Bun's own guard, 8–12 s after opening; not configurable, asserted so an upgrade that drops it shows.
      const freshClosed = await Promise.all(fresh.map((c) => closedAfter(c, opened, 16_000)));
      for (const [i, c] of fresh.entries()) {
        expect(c.received).toBe('');
        expect(freshClosed[i]).toBeLessThanOrEqual(14_000);
      }
    } finally {
      for (const c of connections) c.destroy();
      const polls = await health.stop();
      expect(polls.filter((p) => p.status !== 200)).toEqual([]);
      expect(Math.max(...polls.map((p) => p.ms))).toBeLessThan(1000);
    }
  }, 40_000);
});
