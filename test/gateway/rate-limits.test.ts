// OpenAI's rate-limit contract (issue 43 point 5): a key's own rpm, tpm and rpd, the account's over all its
// keys, OpenAI's six x-ratelimit-* headers on plain, streamed and error answers, and a 429 that names the
// limit and when it resets. Across two instances: rate-limit-shared.test.ts.
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import OpenAI from 'openai';
import type { FakeUpstream } from '../fakes/upstream';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { openaiClient, useGatewayApp } from '../helpers/gateway';

setDefaultTimeout(30_000);

/** What the fake reports for one user message: prompt 10 + 2 × 1, completion 7. */
const TOKENS_PER_ANSWER = 19;
const UNLIMITED = '2147483647';
const messages = [{ role: 'user' as const, content: 'Привет' }];

let fake: FakeUpstream;
let app: TestApp;
useGatewayApp({ ready: (setup) => ({ app, fake } = setup) });

/** Waits for the start of a fresh minute when too little of this one is left for the test's requests. */
async function freshMinuteIfNeeded() {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await Bun.sleep(60_000 - intoMinute + 50);
}

async function keyWith(target: TestApp, token: string, limits: Record<string, number | null> = {}) {
  const res = await call(target.url, 'POST', '/api/keys', { token, body: { name: 'limited', ...limits } });
  expect(res.status).toBe(201);
  return { key: res.body.key as string, id: res.body.id as string, listed: res.body };
}

const ask = (target: TestApp, key: string, body: Record<string, unknown> = {}) =>
  call(target.url, 'POST', '/v1/chat/completions', { token: key, body: { model: 'acme/chat', messages, ...body } });

function limits(headers: Headers) {
  return {
    requests: [headers.get('x-ratelimit-limit-requests'), headers.get('x-ratelimit-remaining-requests')],
    tokens: [headers.get('x-ratelimit-limit-tokens'), headers.get('x-ratelimit-remaining-tokens')],
  };
}

describe("a key's own limits", () => {
  test('without any limit every answer still carries the six headers: the largest int32 and nothing to wait for', async () => {
    const user = await registerUser(app.url);
    const { key, listed } = await keyWith(app, user.token);
    expect([listed.rpm, listed.tpm, listed.rpd]).toEqual([null, null, null]);
    const res = await ask(app, key);
    expect(res.status).toBe(200);
    expect(limits(res.headers)).toEqual({ requests: [UNLIMITED, UNLIMITED], tokens: [UNLIMITED, UNLIMITED] });
    expect(res.headers.get('x-ratelimit-reset-requests')).toBe('0ms');
    expect(res.headers.get('x-ratelimit-reset-tokens')).toBe('0ms');
  });

  test('rpm: the key gets its number a minute, the headers count down, and the 429 names the limit; the SDK sees RateLimitError', async () => {
    const user = await registerUser(app.url);
    const { key } = await keyWith(app, user.token, { rpm: 3 });
    await freshMinuteIfNeeded();
    for (let i = 0; i < 3; i++) {
      const res = await ask(app, key);
      expect(res.status).toBe(200);
      expect(limits(res.headers).requests).toEqual(['3', String(2 - i)]);
      expect(res.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+ms|\d+s|1m0s)$/);
      // No token limit applies to this key.
      expect(limits(res.headers).tokens).toEqual([UNLIMITED, UNLIMITED]);
    }
    const refused = await ask(app, key);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'rate_limit_exceeded', code: 'rpm_exceeded', param: null });
    expect(refused.body.error.message).toMatch(/^Превышен лимит ключа: 3 запросов в минуту \(rpm\)\. Лимит обновится через \d+ с$/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('x-should-retry')).toBe('true');
    expect(limits(refused.headers).requests).toEqual(['3', '0']);
    expect(refused.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+s|1m0s)$/);

    const sdk = openaiClient(app, key);
    const error = await sdk.chat.completions.create({ model: 'acme/chat', messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('rpm_exceeded');
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('x-ratelimit-remaining-requests')).toBe('0');
  });

  test('tpm: a plain answer shows its own tokens spent, a stream shows what was left when it began, and the minute spent refuses the next request', async () => {
    const user = await registerUser(app.url);
    const tpm = 30;
    const { key } = await keyWith(app, user.token, { tpm });
    await freshMinuteIfNeeded();
    const first = await ask(app, key);
    expect(first.status).toBe(200);
    expect(first.body.usage.total_tokens).toBe(TOKENS_PER_ANSWER);
    expect(limits(first.headers).tokens).toEqual([String(tpm), String(tpm - TOKENS_PER_ANSWER)]);
    expect(first.headers.get('x-ratelimit-reset-tokens')).toMatch(/^(\d+ms|\d+s|1m0s)$/);
    expect(limits(first.headers).requests).toEqual([UNLIMITED, UNLIMITED]);

    // The stream's headers leave before its tokens are known; it is admitted, 11 tokens being left.
    const sdk = openaiClient(app, key);
    const stream = await sdk.chat.completions.create({ model: 'acme/chat', messages, stream: true, stream_options: { include_usage: true } }).withResponse();
    expect(stream.response.headers.get('x-ratelimit-remaining-tokens')).toBe(String(tpm - TOKENS_PER_ANSWER));
    let streamed = 0;
    for await (const chunk of stream.data) if (chunk.usage) streamed = chunk.usage.total_tokens;
    expect(streamed).toBeGreaterThan(0);

    // 19 + the stream's tokens passed 30: nothing is left this minute.
    const refused = await ask(app, key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('tpm_exceeded');
    expect(refused.body.error.message).toMatch(/^Превышен лимит ключа: 30 токенов в минуту \(tpm\)\. Лимит обновится через \d+ с$/);
    expect(limits(refused.headers).tokens).toEqual([String(tpm), '0']);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // A request refused for tokens is not counted as a request either (nothing to count it on here).
    expect(limits(refused.headers).requests).toEqual([UNLIMITED, UNLIMITED]);
  });

  test('rpd: the day limit refuses with the time to the next UTC midnight; with rpm too, the headers show the tighter of the two', async () => {
    const user = await registerUser(app.url);
    const { key } = await keyWith(app, user.token, { rpm: 10, rpd: 2 });
    await freshMinuteIfNeeded();
    const first = await ask(app, key);
    expect(limits(first.headers).requests).toEqual(['2', '1']);
    const second = await ask(app, key);
    expect(limits(second.headers).requests).toEqual(['2', '0']);
    const refused = await ask(app, key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rpd_exceeded');
    expect(refused.body.error.message).toMatch(/^Превышен лимит ключа: 2 запросов в сутки \(rpd\)\. Лимит обновится через /);
    const untilMidnight = 86_400 - Math.floor((Date.now() % 86_400_000) / 1000);
    expect(Math.abs(Number(refused.headers.get('retry-after')) - untilMidnight)).toBeLessThanOrEqual(5);
    expect(refused.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+h)?(\d+m)?\d+s$/);
    expect(limits(refused.headers).requests).toEqual(['2', '0']);
  });

  test('an error answer after the key check carries the headers and counts as a request', async () => {
    const user = await registerUser(app.url);
    const { key } = await keyWith(app, user.token, { rpm: 5, tpm: 1000 });
    await freshMinuteIfNeeded();
    const bad = await call(app.url, 'POST', '/v1/chat/completions', { token: key, body: { model: 'acme/chat' } });
    expect(bad.status).toBe(400);
    expect(limits(bad.headers)).toEqual({ requests: ['5', '4'], tokens: ['1000', '1000'] });
    const unknownModel = await call(app.url, 'POST', '/v1/embeddings', { token: key, body: { model: 'acme/chat', input: 'привет' } });
    expect(limits(unknownModel.headers).requests).toEqual(['5', '3']);
    // The key is refused before any limit is read: no figures about a key that is not one.
    const wrong = await call(app.url, 'POST', '/v1/chat/completions', { token: 'cdt-wrong', body: { model: 'acme/chat', messages } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('x-ratelimit-limit-requests')).toBeNull();
  });

  test("a key's limits changed later take effect at once; null gives it back the default", async () => {
    const user = await registerUser(app.url);
    const { key, id } = await keyWith(app, user.token, { rpm: 1 });
    await freshMinuteIfNeeded();
    expect((await ask(app, key)).status).toBe(200);
    expect((await ask(app, key)).status).toBe(429);
    const raised = await call(app.url, 'PATCH', `/api/keys/${id}`, { token: user.token, body: { rpm: 3, tpm: 500 } });
    expect(raised.status).toBe(200);
    expect([raised.body.rpm, raised.body.tpm, raised.body.rpd]).toEqual([3, 500, null]);
    const next = await ask(app, key);
    expect(next.status).toBe(200);
    expect(limits(next.headers)).toEqual({ requests: ['3', '1'], tokens: ['500', String(500 - TOKENS_PER_ANSWER)] });
    const cleared = await call(app.url, 'PATCH', `/api/keys/${id}`, { token: user.token, body: { rpm: null, tpm: null } });
    expect([cleared.body.rpm, cleared.body.tpm]).toEqual([null, null]);
    expect(limits((await ask(app, key)).headers).requests).toEqual([UNLIMITED, UNLIMITED]);
    const listed = await call(app.url, 'GET', '/api/keys', { token: user.token });
    expect(listed.body.keys[0]).toMatchObject({ rpm: null, tpm: null, rpd: null });
  });

  test('limits are whole numbers from 1; anything else is a 400 naming the field', async () => {
    const user = await registerUser(app.url);
    for (const body of [{ rpm: 0 }, { tpm: 1.5 }, { rpd: -1 }, { rpm: 'ten' }, { tpm: 2_000_000_000 }]) {
      const res = await call(app.url, 'POST', '/api/keys', { token: user.token, body: { name: 'bad', ...body } });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/Запросов в минуту|Токенов в минуту|Запросов в сутки/);
    }
  });
});

describe("the account's limits over all its keys", () => {
  async function accountApp(env: Record<string, string>) {
    return startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, UPSTREAM_API_KEY: 'upstream-secret', ...env } });
  }

  test('rpm of the account: two keys share it, the 429 says it is the account’s; another user is not held back', async () => {
    const a = await accountApp({ RATE_LIMIT_PER_USER_PER_MINUTE: '3' });
    try {
      const user = await registerUser(a.url);
      const one = await keyWith(a, user.token);
      const two = await keyWith(a, user.token, { rpm: 100 });
      await freshMinuteIfNeeded();
      const first = await ask(a, one.key);
      expect(limits(first.headers).requests).toEqual(['3', '2']);
      expect((await ask(a, two.key)).status).toBe(200);
      // The key's own 100 is looser than the account's 3: the headers show the account's.
      const third = await ask(a, two.key);
      expect(limits(third.headers).requests).toEqual(['3', '0']);
      const refused = await ask(a, one.key);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rpm_exceeded');
      expect(refused.body.error.message).toMatch(/^Превышен лимит аккаунта: 3 запросов в минуту \(rpm\)/);
      const other = await registerUser(a.url);
      expect((await ask(a, (await keyWith(a, other.token)).key)).status).toBe(200);
    } finally {
      await a.close();
    }
  });

  test("tpm and rpd of the account: one key's tokens use up the other's minute; the day's requests are counted over both keys", async () => {
    const a = await accountApp({ RATE_LIMIT_PER_USER_TOKENS_PER_MINUTE: '30', RATE_LIMIT_PER_USER_PER_DAY: '3' });
    try {
      const user = await registerUser(a.url);
      const one = await keyWith(a, user.token);
      const two = await keyWith(a, user.token, { tpm: 10_000 });
      await freshMinuteIfNeeded();
      const first = await ask(a, one.key);
      expect(limits(first.headers)).toEqual({ requests: ['3', '2'], tokens: ['30', String(30 - TOKENS_PER_ANSWER)] });
      expect((await ask(a, two.key)).status).toBe(200);
      const refused = await ask(a, two.key);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('tpm_exceeded');
      expect(refused.body.error.message).toMatch(/^Превышен лимит аккаунта: 30 токенов в минуту \(tpm\)/);
      // The refused request was given back to the day's count: one of the three is still left.
      expect(limits(refused.headers).requests).toEqual(['3', '1']);
    } finally {
      await a.close();
    }
    const d = await accountApp({ RATE_LIMIT_PER_USER_PER_DAY: '2' });
    try {
      const user = await registerUser(d.url);
      const one = await keyWith(d, user.token);
      const two = await keyWith(d, user.token);
      expect((await ask(d, one.key)).status).toBe(200);
      expect((await ask(d, two.key)).status).toBe(200);
      const refused = await ask(d, one.key);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rpd_exceeded');
      expect(refused.body.error.message).toMatch(/^Превышен лимит аккаунта: 2 запросов в сутки \(rpd\)/);
    } finally {
      await d.close();
    }
  });
});
