// /v1 speaks OpenAI's error dialect: {error:{message,type,param,code}}, x-should-retry, retry-after,
// openai-processing-ms and the x-ratelimit-* headers; the dashboard API keeps its own shape.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import OpenAI from 'openai';
import { formatResetDuration } from '../../src/gateway/rate-limit';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { openaiClient, setBalanceNano } from '../helpers/gateway';

setDefaultTimeout(30_000);

const RATE_LIMIT = 4;
let fake: FakeUpstream;
let app: TestApp;

beforeAll(async () => {
  fake = await startFakeUpstream();
  app = await startTestApp({
    env: {
      UPSTREAM_BASE_URL: fake.url,
      BODY_LIMIT_BYTES: '4096',
      RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
      UPSTREAM_TIMEOUT_MS: '500',
    },
  });
  // fake/slow waits far past the gateway's timeout.
  fake.slowMs = 5000;
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.reset();
  fake.slowMs = 5000;
});

const messages = [{ role: 'user' as const, content: 'Привет!' }];

async function customer() {
  const user = await registerUser(app.url);
  const key = await createApiKey(app.url, user.token);
  return { ...user, key: key.key, keyId: key.id };
}

/** A raw /v1 call, so status, headers and the exact body can be checked. */
async function v1(path: string, init: { key?: string; body?: unknown; rawBody?: string; method?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  const body = init.rawBody ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined);
  const res = await fetch(`${app.url}${path}`, { method: init.method ?? (body !== undefined ? 'POST' : 'GET'), headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text) };
}

/** The error object, checked to have exactly OpenAI's four fields. */
function openAiError(body: any) {
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(typeof body.error.message).toBe('string');
  return body.error as { message: string; type: string; param: string | null; code: string | null };
}

function expectOpenAiHeaders(headers: Headers, retry: 'true' | 'false' | null) {
  expect(headers.get('x-should-retry')).toBe(retry);
  expect(headers.get('openai-processing-ms')).toMatch(/^\d+$/);
  expect(headers.get('x-request-id')).toBeTruthy();
}

describe('OpenAI error objects on /v1', () => {
  test('401 missing and wrong keys, 403 revoked, 401 expired: each with its code, none retryable', async () => {
    const missing = await v1('/v1/chat/completions', { body: { model: 'acme/chat', messages } });
    expect(missing.status).toBe(401);
    expect(openAiError(missing.body)).toMatchObject({ type: 'unauthorized', param: null, code: 'missing_api_key' });
    expectOpenAiHeaders(missing.headers, 'false');

    const c = await customer();
    const wrong = await v1('/v1/chat/completions', { key: `${c.key.slice(0, -4)}zzzz`, body: { model: 'acme/chat', messages } });
    expect(wrong.status).toBe(401);
    expect(openAiError(wrong.body)).toMatchObject({ type: 'unauthorized', param: null, code: 'invalid_api_key' });

    const expiring = await call(app.url, 'POST', '/api/keys', {
      token: c.token,
      body: { name: 'expiring', expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
    });
    const patch = await call(app.url, 'PATCH', `/api/keys/${expiring.body.id}`, {
      token: c.token,
      body: { expiresAt: new Date(Date.now() - 1000).toISOString() },
    });
    expect(patch.status).toBe(200);
    const expired = await v1('/v1/chat/completions', { key: expiring.body.key, body: { model: 'acme/chat', messages } });
    expect(expired.status).toBe(401);
    expect(openAiError(expired.body)).toMatchObject({ type: 'unauthorized', code: 'api_key_expired' });

    expect((await call(app.url, 'DELETE', `/api/keys/${c.keyId}`, { token: c.token })).status).toBe(200);
    const revoked = await v1('/v1/chat/completions', { key: c.key, body: { model: 'acme/chat', messages } });
    expect(revoked.status).toBe(403);
    expect(openAiError(revoked.body)).toMatchObject({ type: 'forbidden', param: null, code: 'api_key_revoked' });
    expectOpenAiHeaders(revoked.headers, 'false');
  });

  test('400: malformed JSON is invalid_json; a schema failure names the field in param', async () => {
    const c = await customer();
    const broken = await v1('/v1/chat/completions', { key: c.key, rawBody: '{"model": "acme/chat", ' });
    expect(broken.status).toBe(400);
    expect(openAiError(broken.body)).toMatchObject({ type: 'invalid_request_error', param: null, code: 'invalid_json' });
    expectOpenAiHeaders(broken.headers, 'false');

    const noMessages = await v1('/v1/chat/completions', { key: c.key, body: { model: 'acme/chat' } });
    expect(noMessages.status).toBe(400);
    expect(openAiError(noMessages.body)).toMatchObject({ type: 'invalid_request_error', param: 'messages' });
    expect(noMessages.body.error.message).toMatch(/[а-яА-Я]/);

    const badN = await v1('/v1/chat/completions', { key: c.key, body: { model: 'acme/chat', messages, n: -3 } });
    expect(badN.status).toBe(400);
    expect(openAiError(badN.body).param).toBe('n');
  });

  test('the model field in param, and a nested field as OpenAI spells it', async () => {
    const c = await customer();
    const noModel = await v1('/v1/chat/completions', { key: c.key, body: { messages } });
    expect(noModel.status).toBe(400);
    expect(openAiError(noModel.body).param).toBe('model');
    const badRole = await v1('/v1/chat/completions', { key: c.key, body: { model: 'acme/chat', messages: [{ role: 42, content: 'x' }] } });
    expect(badRole.status).toBe(400);
    expect(openAiError(badRole.body).param).toMatch(/^messages\[0\]/);
  });

  test('404 for an unknown /v1 path and an unknown method, in OpenAI shape', async () => {
    const unknown = await v1('/v1/no-such-thing');
    expect(unknown.status).toBe(404);
    expect(openAiError(unknown.body)).toMatchObject({ type: 'not_found', param: null, code: 'unknown_url' });
    expectOpenAiHeaders(unknown.headers, 'false');
    const wrongMethod = await v1('/v1/models', { method: 'PUT', rawBody: '{}' });
    expect(wrongMethod.status).toBe(404);
    openAiError(wrongMethod.body);
  });

  test('an upstream 4xx is relayed with its own type, param and code', async () => {
    const c = await customer();
    const unknownModel = await v1('/v1/chat/completions', { key: c.key, body: { model: 'fake/unknown-model', messages } });
    expect(unknownModel.status).toBe(404);
    expect(openAiError(unknownModel.body)).toMatchObject({ type: 'invalid_request_error', param: null, code: 'model_not_found' });
    expectOpenAiHeaders(unknownModel.headers, 'false');

    const badTemperature = await v1('/v1/chat/completions', { key: c.key, body: { model: 'fake/error-400', messages } });
    expect(badTemperature.status).toBe(400);
    expect(openAiError(badTemperature.body)).toMatchObject({ param: 'temperature', code: 'invalid_value' });
  });

  test('402: the balance is insufficient_quota, the key limit key_spend_limit; never retried', async () => {
    const poor = await customer();
    await setBalanceNano(app, poor.userId, 0n);
    const broke = await v1('/v1/chat/completions', { key: poor.key, body: { model: 'acme/chat', messages } });
    expect(broke.status).toBe(402);
    expect(openAiError(broke.body)).toMatchObject({ type: 'insufficient_balance', param: null, code: 'insufficient_quota' });
    expectOpenAiHeaders(broke.headers, 'false');

    const owner = await customer();
    const limited = await call(app.url, 'POST', '/api/keys', {
      token: owner.token,
      body: { name: 'tiny', spendLimit: 0.000001, limitReset: 'day' },
    });
    expect(limited.status).toBe(201);
    const overLimit = await v1('/v1/chat/completions', { key: limited.body.key, body: { model: 'acme/chat', messages, max_tokens: 5 } });
    expect(overLimit.status).toBe(402);
    expect(openAiError(overLimit.body)).toMatchObject({ type: 'insufficient_balance', code: 'key_spend_limit' });
  });

  test('413 payload_too_large, refused before the body is read', async () => {
    const c = await customer();
    const huge = await v1('/v1/chat/completions', {
      key: c.key,
      body: { model: 'acme/chat', messages: [{ role: 'user', content: 'x'.repeat(8000) }] },
    });
    expect(huge.status).toBe(413);
    expect(openAiError(huge.body)).toMatchObject({ type: 'payload_too_large', param: null, code: 'payload_too_large' });
    expectOpenAiHeaders(huge.headers, 'false');
  });

  test('502 upstream_error and 504 upstream_timeout are retryable', async () => {
    const c = await customer();
    const bad = await v1('/v1/chat/completions', { key: c.key, body: { model: 'fake/error-502', messages } });
    expect(bad.status).toBe(502);
    expect(openAiError(bad.body)).toMatchObject({ type: 'upstream_error', param: null, code: 'upstream_error' });
    expectOpenAiHeaders(bad.headers, 'true');

    const slow = await v1('/v1/chat/completions', { key: c.key, body: { model: 'fake/slow', messages } });
    expect(slow.status).toBe(504);
    expect(openAiError(slow.body)).toMatchObject({ type: 'upstream_timeout', param: null, code: 'upstream_timeout' });
    expectOpenAiHeaders(slow.headers, 'true');
  });

  test('the dashboard API keeps {message, type} and gets none of the /v1 headers', async () => {
    for (const path of ['/api/keys', '/api/no-such-route']) {
      const res = await call(app.url, 'GET', path);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(Object.keys(res.body.error).sort()).toEqual(['message', 'type']);
      expect(res.headers.get('x-should-retry')).toBeNull();
      expect(res.headers.get('openai-processing-ms')).toBeNull();
    }
    const bad = await call(app.url, 'POST', '/api/auth/register', { body: { email: 'nope', password: 'secret123' } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error).sort()).toEqual(['message', 'type']);
  });
});

describe('rate-limit headers', () => {
  test('reset durations are written as OpenAI writes them', () => {
    expect(formatResetDuration(250)).toBe('250ms');
    expect(formatResetDuration(1000)).toBe('1s');
    expect(formatResetDuration(1200)).toBe('2s');
    expect(formatResetDuration(360_000)).toBe('6m0s');
    expect(formatResetDuration(3_723_000)).toBe('1h2m3s');
  });

  test('successful answers count down; the 429 says 0 remaining, when to retry, and that a retry may work', async () => {
    const c = await customer();
    const client = openaiClient(app, c.key);
    const { data, response } = await client.chat.completions.create({ model: 'acme/chat', messages }).withResponse();
    expect(data.object).toBe('chat.completion');
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe(String(RATE_LIMIT));
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe(String(RATE_LIMIT - 1));
    expect(response.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+ms|\d+s|1m0s)$/);
    expect(response.headers.get('openai-processing-ms')).toMatch(/^\d+$/);
    expect(response.headers.get('x-should-retry')).toBeNull();

    // A stream carries them too, with its headers.
    const stream = await client.chat.completions.create({ model: 'acme/chat', messages, stream: true }).withResponse();
    expect(stream.response.headers.get('x-ratelimit-remaining-requests')).toBe(String(RATE_LIMIT - 2));
    expect(stream.response.headers.get('openai-processing-ms')).toMatch(/^\d+$/);
    for await (const chunk of stream.data) void chunk;

    for (let i = 2; i < RATE_LIMIT; i++) expect((await v1('/v1/chat/completions', { key: c.key, body: { model: 'acme/chat', messages } })).status).toBe(200);
    const limited = await v1('/v1/chat/completions', { key: c.key, body: { model: 'acme/chat', messages } });
    expect(limited.status).toBe(429);
    expect(openAiError(limited.body)).toMatchObject({ type: 'rate_limit_exceeded', param: null, code: 'rpm_exceeded' });
    expectOpenAiHeaders(limited.headers, 'true');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(limited.headers.get('x-ratelimit-limit-requests')).toBe(String(RATE_LIMIT));
    expect(limited.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+s|1m0s)$/);
  });
});

describe('what the SDK retries', () => {
  /** An SDK client allowed one retry, counting the attempts it makes. */
  function countingClient(key: string) {
    let attempts = 0;
    const client = new OpenAI({
      baseURL: `${app.url}/v1`,
      apiKey: key,
      maxRetries: 1,
      timeout: 20_000,
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        attempts++;
        return fetch(input, init);
      }) as typeof fetch,
    });
    return { client, attempts: () => attempts };
  }

  test('a 402 is asked once', async () => {
    const poor = await customer();
    await setBalanceNano(app, poor.userId, 0n);
    const { client, attempts } = countingClient(poor.key);
    const error = await client.chat.completions.create({ model: 'acme/chat', messages }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBe(402);
    expect(error.code).toBe('insufficient_quota');
    expect(error.type).toBe('insufficient_balance');
    expect(attempts()).toBe(1);
    expect(fake.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(0);
  });

  test('an upstream 429 is relayed with its retry-after, and the SDK tries once more', async () => {
    const c = await customer();
    const { client, attempts } = countingClient(c.key);
    const started = performance.now();
    const error = await client.chat.completions.create({ model: 'fake/error-429', messages }).catch((e) => e);
    expect(error.status).toBe(429);
    expect(error.code).toBe('rate_limit_exceeded');
    expect(error.headers.get('retry-after')).toBe('1');
    expect(error.headers.get('x-should-retry')).toBe('true');
    expect(attempts()).toBe(2);
    expect(fake.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(2);
    // The SDK kept the relayed wait of one second.
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  });

  test('a 400 relayed from the upstream is not retried, and its param and code reach the SDK', async () => {
    const c = await customer();
    const { client, attempts } = countingClient(c.key);
    const error = await client.chat.completions.create({ model: 'fake/error-400', messages }).catch((e) => e);
    expect(error.status).toBe(400);
    expect(error.param).toBe('temperature');
    expect(error.code).toBe('invalid_value');
    expect(attempts()).toBe(1);
  });
});
