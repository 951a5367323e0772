// Thousands of concurrent streams: the real entry point (as `npm start` runs it) with its default
// configuration holds more than Bun's default 256 upstream requests at once. 1,000 clients open streams
// that the fake upstream keeps open; each must get its first chunk while all the others are still open,
// and the fake must see all of them at once. The clients speak HTTP over raw sockets, because this test
// process's own fetch is itself limited to 256 requests at once. No timing is asserted.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { createApiKey, registerUser } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { waitFor } from '../helpers/gateway';
import { spawnServer, type ServerProcess } from '../helpers/process';

setDefaultTimeout(120_000);

const STREAMS = 1_000;

let fake: FakeUpstream;
let database: TestDatabase;
let server: ServerProcess;

beforeAll(async () => {
  fake = await startFakeUpstream();
  database = await createTestDatabase();
  const env: Record<string, string> = {
    DATA_DIR: database.dataDir,
    UPSTREAM_BASE_URL: fake.url,
    JWT_SECRET: 'concurrency-test-secret-that-is-long-enough',
    ENCRYPTION_KEY: 'ab'.repeat(32),
    LOG_REQUESTS: 'false',
    // Every client here shares one address; the per-address cap is another test's subject.
    MAX_CONNECTIONS_PER_ADDRESS: '0',
  };
  if (database.databaseUrl) env.DATABASE_URL = database.databaseUrl;
  server = await spawnServer(env);
});
afterAll(async () => {
  await server?.stop('SIGTERM');
  await fake?.close();
  await database?.drop();
});

interface RawStream {
  /** Resolves with the bytes received once the first SSE event has arrived. */
  firstEvent: Promise<string>;
  /** Resolves with everything received once the server ends the response. */
  ended: Promise<string>;
}

/** One streaming chat request over its own TCP connection. */
function openRawStream(port: number, key: string): RawStream {
  const body = JSON.stringify({ model: 'fake/held-stream', messages: [{ role: 'user', content: 'Привет' }], stream: true, max_tokens: 8 });
  const request =
    `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
  let received = '';
  let onFirst!: (text: string) => void;
  let onEnd!: (text: string) => void;
  let onError!: (error: Error) => void;
  const firstEvent = new Promise<string>((resolve, reject) => {
    onFirst = resolve;
    onError = reject;
  });
  const ended = new Promise<string>((resolve) => (onEnd = resolve));
  const decoder = new TextDecoder();
  void Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: {
      open(socket) {
        socket.write(request);
      },
      data(_socket, data) {
        received += decoder.decode(data, { stream: true });
        if (received.includes('data: ')) onFirst(received);
      },
      close() {
        onEnd(received);
        onError(new Error(`closed before the first event: ${received.slice(0, 200)}`));
      },
      error(_socket, error) {
        onError(error);
      },
    },
  }).catch((error) => onError(error));
  return { firstEvent, ended };
}

describe('concurrent streams', () => {
  test(`${STREAMS} streams are open at the upstream at once, and the last starts while the others are still open`, async () => {
    const user = await registerUser(server.url);
    const { key } = await createApiKey(server.url, user.token);
    const port = Number(new URL(server.url).port);

    const streams: RawStream[] = [];
    for (let i = 0; i < STREAMS; i++) {
      streams.push(openRawStream(port, key));
      // A few at a time, so the listen backlog is never the limit being measured.
      if (i % 100 === 99) await Bun.sleep(20);
    }
    const firsts = await Promise.all(streams.map((s) => s.firstEvent));
    expect(firsts.every((text) => text.startsWith('HTTP/1.1 200'))).toBe(true);
    // Every stream, the 1,000th included, started while none had ended: the fake still holds them all.
    expect(fake.heldOpen).toBe(STREAMS);
    expect(fake.peakHeldOpen).toBeGreaterThan(256);
    expect(fake.peakHeldOpen).toBe(STREAMS);

    fake.releaseHeld();
    const texts = await Promise.all(streams.map((s) => s.ended));
    expect(texts.filter((t) => t.includes('data: [DONE]'))).toHaveLength(STREAMS);
    await waitFor(() => fake.heldOpen === 0, 10_000);
  });
});
