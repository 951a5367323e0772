// One upstream answer cannot take the process's memory: a body that is not a stream is read up to
// UPSTREAM_MAX_BODY_BYTES and then refused with 502, a stream's event that never ends is not held past the
// SSE cap (the stream ends with an error event); both are billed for what the upstream had sent.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { settleAll, unbalancedUsers, usageRows } from '../helpers/gateway';

setDefaultTimeout(30_000);

const MAX_BODY = 64 * 1024;
const messages = [{ role: 'user', content: 'Привет!' }];

let fake: FakeUpstream;
let app: TestApp;

beforeAll(async () => {
  fake = await startFakeUpstream();
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, UPSTREAM_MAX_BODY_BYTES: String(MAX_BODY) } });
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

async function customer() {
  const user = await registerUser(app.url);
  const { key } = await createApiKey(app.url, user.token);
  return { userId: user.userId, key };
}

describe('UPSTREAM_MAX_BODY_BYTES', () => {
  test('an answer within the limit is served; one past it is 502, billed for the bytes read', async () => {
    const c = await customer();
    const within = await call(app.url, 'POST', '/v1/chat/completions', { token: c.key, body: { model: 'fake/huge-json-40000', messages } });
    expect(within.status).toBe(200);
    expect(within.body.choices[0].message.content.length).toBeGreaterThan(30_000);

    const over = await call(app.url, 'POST', '/v1/chat/completions', { token: c.key, body: { model: 'fake/huge-json-1000000', messages } });
    expect(over.status).toBe(502);
    expect(over.body.error).toMatchObject({ type: 'upstream_error', message: 'Сервис модели прислал слишком большой ответ' });

    await settleAll(app);
    const rows = await usageRows(app, c.userId);
    expect(rows.map((r) => r.status)).toEqual(['ok', 'upstream_error']);
    const failed = rows[1]! as (typeof rows)[number] & { error: string };
    expect(failed.error).toContain('UPSTREAM_MAX_BODY_BYTES');
    // At least the limit's worth of bytes was read, billed as oversized stream events are (two bytes a token).
    expect(failed.completion_tokens).toBeGreaterThanOrEqual(MAX_BODY / 2);
    expect(BigInt(failed.cost_nano as string)).toBeGreaterThan(0n);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('/v1/responses and /v1/embeddings: the same 502, billed', async () => {
    const c = await customer();
    const responses = await call(app.url, 'POST', '/v1/responses', { token: c.key, body: { model: 'fake/huge-json-1000000', input: 'Привет' } });
    expect(responses.status).toBe(502);
    expect(responses.body.error.message).toBe('Сервис модели прислал слишком большой ответ');
    const embeddings = await call(app.url, 'POST', '/v1/embeddings', { token: c.key, body: { model: 'fake/huge-json-1000000', input: 'Привет' } });
    expect(embeddings.status).toBe(502);
    await settleAll(app);
    const rows = await usageRows(app, c.userId);
    expect(rows.map((r) => [r.status, Number(r.cost_nano) > 0])).toEqual([
      ['upstream_error', true],
      ['upstream_error', true],
    ]);
    expect(rows[0]!.completion_tokens).toBeGreaterThanOrEqual(MAX_BODY / 2);
    expect(await unbalancedUsers(app)).toEqual([]);
  });
});

/**
 * An event dropped at the 1 MiB cap is billed by its bytes (two to a token). Where the network splits the
 * stream decides how many of the event's opening bytes were still read as ordinary text, so the bound
 * leaves a kilobyte for them.
 */
const BILLED_AT_LEAST = (1024 * 1024 - 1024) / 2;

describe('an SSE line that never ends', () => {
  /** The stream's text as the client reads it. */
  async function streamText(path: string, key: string, body: Record<string, unknown>) {
    const res = await fetch(`${app.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
    });
    return { status: res.status, text: await res.text() };
  }

  test('chat: the stream ends with an upstream_error event instead of holding the line; billed for what came', async () => {
    const c = await customer();
    const { status, text } = await streamText('/v1/chat/completions', c.key, { model: 'fake/endless-line-3000000', messages });
    expect(status).toBe(200);
    expect(text).toContain('"content":"Hel"');
    expect(text).toContain('"type":"upstream_error"');
    // Nothing of the endless line reached the client.
    expect(text.length).toBeLessThan(100_000);
    await settleAll(app);
    const [row] = await usageRows(app, c.userId);
    expect(row!.status).not.toBe('ok');
    expect(row!.completion_tokens).toBeGreaterThanOrEqual(BILLED_AT_LEAST);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('/v1/responses: the same', async () => {
    const c = await customer();
    const { status, text } = await streamText('/v1/responses', c.key, { model: 'fake/endless-line-3000000', input: 'Привет' });
    expect(status).toBe(200);
    expect(text).toContain('"delta":"Hel"');
    expect(text).toContain('"type":"upstream_error"');
    expect(text.length).toBeLessThan(100_000);
    await settleAll(app);
    const [row] = await usageRows(app, c.userId);
    expect(row!.status).toBe('upstream_error');
    expect(row!.completion_tokens).toBeGreaterThanOrEqual(BILLED_AT_LEAST);
    expect(await unbalancedUsers(app)).toEqual([]);
  });
});
