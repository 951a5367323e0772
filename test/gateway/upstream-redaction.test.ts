// An upstream's error message reaches the client (and the usage row) without our provider key: a host or
// a proxy that echoes our Authorization header, or the bare key, must not hand it to a customer.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { usageRows } from '../helpers/gateway';

setDefaultTimeout(30_000);

const PROVIDER_KEY = 'sk-provider-0123456789abcdefSECRET';
let fake: FakeUpstream;
let app: TestApp;

beforeAll(async () => {
  fake = await startFakeUpstream({ apiKey: PROVIDER_KEY });
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, UPSTREAM_API_KEY: PROVIDER_KEY } });
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.reset();
  fake.echoAuthorization = true;
});

const messages = [{ role: 'user', content: 'Привет!' }];

async function customer() {
  const user = await registerUser(app.url);
  const key = await createApiKey(app.url, user.token);
  return { userId: user.userId as string, key: key.key as string };
}

/** The answer's text shows the upstream's message, with neither the key nor a bearer token in it. */
function expectRedacted(text: string) {
  expect(text).toContain('received Authorization');
  expect(text).not.toContain(PROVIDER_KEY);
  expect(text).not.toContain('0123456789abcdef');
  expect(text).not.toMatch(/Bearer (?!\[redacted\])/);
  expect(text).toContain('[redacted]');
}

describe('upstream error messages never carry the provider key', () => {
  test('a chat completion the upstream refuses: the relayed message and the usage row', async () => {
    const c = await customer();
    const res = await call(app.url, 'POST', '/v1/chat/completions', { token: c.key, body: { model: 'fake/error-400', messages } });
    expect(res.status).toBe(400);
    expectRedacted(res.body.error.message);
    // The same message, stream or not.
    const streamed = await call(app.url, 'POST', '/v1/chat/completions', {
      token: c.key,
      body: { model: 'fake/error-400', messages, stream: true },
    });
    expect(streamed.status).toBe(400);
    expectRedacted(streamed.body.error.message);
    const rows = await usageRows(app, c.userId);
    expect(rows).toHaveLength(2);
    for (const row of rows as unknown as { error: string }[]) expectRedacted(row.error);
  });

  test('embeddings and responses: refusals, and a stored response the upstream no longer has', async () => {
    const c = await customer();
    const embeddings = await call(app.url, 'POST', '/v1/embeddings', { token: c.key, body: { model: 'fake/not-found', input: 'x' } });
    expect(embeddings.status).toBe(404);
    expectRedacted(embeddings.body.error.message);

    const refused = await call(app.url, 'POST', '/v1/responses', { token: c.key, body: { model: 'fake/not-found', input: 'x' } });
    expect(refused.status).toBe(404);
    expectRedacted(refused.body.error.message);

    const created = await call(app.url, 'POST', '/v1/responses', { token: c.key, body: { model: 'acme/chat', input: 'Привет' } });
    expect(created.status).toBe(200);
    fake.storedResponses.delete(created.body.id);
    const gone = await call(app.url, 'GET', `/v1/responses/${created.body.id}`, { token: c.key });
    expect(gone.status).toBe(404);
    expectRedacted(gone.text);
    const deleted = await call(app.url, 'DELETE', `/v1/responses/${created.body.id}`, { token: c.key });
    expect(deleted.status).toBe(404);
    expectRedacted(deleted.text);
  });

  test('an error event in the middle of a stream, chat and responses, with or without usage asked', async () => {
    const c = await customer();
    const read = async (path: string, body: Record<string, unknown>) => {
      const res = await fetch(`${app.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, stream: true }),
      });
      expect(res.status).toBe(200);
      return res.text();
    };
    for (const text of [
      await read('/v1/chat/completions', { model: 'fake/stream-error', messages }),
      await read('/v1/chat/completions', { model: 'fake/stream-error', messages, stream_options: { include_usage: true } }),
      await read('/v1/responses', { model: 'fake/stream-error', input: 'Привет' }),
    ]) {
      expect(text).toContain('Hel');
      expectRedacted(text);
    }
  });
});
