// /v1/chat/completions driven by the official OpenAI SDK against a fake upstream.
import { describe, expect, test, setDefaultTimeout } from 'bun:test';
import OpenAI from 'openai';
import { expectedUsage, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import {
  balanceNanoInDb,
  newGatewayCustomer,
  openaiClient,
  PRICE_NANO,
  setBalanceNano,
  settleAll,
  START_NANO,
  unbalancedUsers,
  usageRows,
  useGatewayApp,
  waitFor,
} from '../helpers/gateway';

// Starting an app on a fresh database takes longer than bun's 5 s default (a bare `bun test` has no --timeout).
setDefaultTimeout(30_000);

const PRICE = PRICE_NANO;
const START = START_NANO;

let fake: FakeUpstream;
let app: TestApp;
useGatewayApp({ env: { BODY_LIMIT_BYTES: '65536' }, ready: (s) => ({ app, fake } = s) });
const newCustomer = () => newGatewayCustomer(app);

async function balance(token: string): Promise<number> {
  const res = await call(app.url, 'GET', '/api/balance', { token });
  expect(res.status).toBe(200);
  return res.body.balance;
}

const messages = [
  { role: 'system' as const, content: 'Be brief.' },
  { role: 'user' as const, content: 'Привет!' },
];

describe('non-streaming', () => {
  test('the SDK gets the upstream answer as sent; every parameter reaches the upstream unchanged', async () => {
    const c = await newCustomer();
    const params = {
      model: 'acme/chat',
      messages,
      temperature: 0.3,
      max_tokens: 50,
      top_p: 0.9,
      response_format: { type: 'json_object' as const },
      tools: [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }],
      user: 'end-user-7',
    };
    const completion = await c.client.chat.completions.create(params);
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]!.message.content).toBe('Echo: Привет!');
    const usage = expectedUsage(params);
    // Conduit adds what the call cost (see test/gateway/answer-cost.test.ts).
    expect(completion.usage).toEqual({ ...usage, cost: Number(BigInt(usage.total_tokens) * PRICE) / 1e9 } as typeof usage);

    const sent = fake.requests.find((r) => r.path === '/v1/chat/completions')!;
    expect(sent.body).toEqual(params);
    expect(sent.headers.authorization).toBe('Bearer upstream-secret');
    expect(JSON.stringify(sent.headers)).not.toContain(c.key);
  });

  test('the balance drops by exactly total_tokens × price, with one usage row and one ledger row', async () => {
    const c = await newCustomer();
    const completion = await c.client.chat.completions.create({ model: 'acme/chat', messages });
    const tokens = BigInt(completion.usage!.total_tokens);
    expect(await balance(c.token)).toBe(Number(START - tokens * PRICE) / 1e9);

    const rows = await usageRows(app, c.userId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual(expect.objectContaining({ status: 'ok', total_tokens: Number(tokens), usage_source: 'upstream', api_key_id: c.keyId }));
    expect(BigInt(rows[0]!.cost_nano as string)).toBe(tokens * PRICE);
    const ledger = await app.sql<{ amount_nano: unknown; kind: string }>("select amount_nano, kind from ledger_entries where user_id = $1 and kind = 'usage'", [
      c.userId,
    ]);
    expect(ledger.map((l) => BigInt(l.amount_nano as string))).toEqual([-(tokens * PRICE)]);
    await settleAll(app);
    expect(await balanceNanoInDb(app, c.userId)).toBe(START - tokens * PRICE);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('content-part arrays are accepted and forwarded', async () => {
    const c = await newCustomer();
    const completion = await c.client.chat.completions.create({
      model: 'acme/chat',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is here?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe('Echo: What is here?');
  });

  test('an answer without usage is billed by our own token count', async () => {
    const c = await newCustomer();
    await c.client.chat.completions.create({ model: 'fake/no-usage', messages });
    const [row] = await usageRows(app, c.userId);
    expect(row!.usage_source).toBe('tokenizer');
    expect(row!.completion_tokens).toBeGreaterThan(0);
    expect(row!.prompt_tokens).toBeGreaterThan(0);
    expect(BigInt(row!.cost_nano as string)).toBe(BigInt(row!.total_tokens) * PRICE);
  });

  test('tool-call arguments of an answer without usage are billed too, plain and streamed', async () => {
    const c = await newCustomer();
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }];
    const plain = await c.client.chat.completions.create({ model: 'fake/no-usage-tool-call', messages, tools });
    expect(plain.choices[0]!.message.tool_calls?.length).toBe(1);
    const stream = await c.client.chat.completions.create({ model: 'fake/no-usage-tool-call', messages, tools, stream: true });
    for await (const _ of stream) {
      // drain
    }
    await settleAll(app);
    const rows = await usageRows(app, c.userId);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.usage_source).toBe('tokenizer');
      // "get_weather" and {"city":"Paris"} are several tokens; content is null, so they are all there is.
      expect(row.completion_tokens).toBeGreaterThanOrEqual(5);
    }
  });
});

describe('streaming', () => {
  test('chunks reach the client as they arrive, without a usage chunk it did not ask for', async () => {
    const c = await newCustomer();
    fake.pieceDelayMs = 60;
    const stream = await c.client.chat.completions.create({ model: 'acme/chat', messages, stream: true });
    const arrivals: number[] = [];
    let text = '';
    for await (const chunk of stream) {
      arrivals.push(performance.now());
      expect(chunk.usage ?? null).toBeNull();
      expect('usage' in chunk).toBe(false);
      expect(chunk.choices).toHaveLength(1);
      text += chunk.choices[0]!.delta.content ?? '';
    }
    expect(text).toBe('Hello from the fake upstream.');
    // Seven pieces 60 ms apart: had the gateway buffered the stream, they would arrive together.
    expect(arrivals[arrivals.length - 1]! - arrivals[0]!).toBeGreaterThan(250);
    // The upstream was asked for usage anyway, and billing used its figures.
    expect(fake.requests[0]!.body.stream_options).toEqual({ include_usage: true });
    const [row] = await usageRows(app, c.userId);
    expect(row).toEqual(expect.objectContaining({ status: 'ok', usage_source: 'upstream', stream: true }));
    const usage = expectedUsage(fake.requests[0]!.body);
    expect(row!.total_tokens).toBe(usage.total_tokens);
    expect(await balance(c.token)).toBe(Number(START - BigInt(usage.total_tokens) * PRICE) / 1e9);
  });

  test('a client that asked for usage gets the upstream bytes exactly', async () => {
    const c = await newCustomer();
    const res = await fetch(`${app.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/chat', messages, stream: true, stream_options: { include_usage: true } }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    await waitFor(() => fake.streams.length === 1);
    // Byte for byte, but for the cost Conduit adds to the usage chunk (see test/gateway/answer-cost.test.ts).
    const usage = expectedUsage({ messages });
    const cost = Number(BigInt(usage.total_tokens) * PRICE) / 1e9;
    expect(text).toBe(fake.streams[0]!.replace('"usage":{', `"usage":{"cost":${cost},`));
    expect(text).toContain('"usage":{');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  test('a client that did not ask sees the same stream minus the usage parts', async () => {
    const c = await newCustomer();
    const res = await fetch(`${app.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/chat', messages, stream: true }),
    });
    const text = await res.text();
    await waitFor(() => fake.streams.length === 1);
    const expected = fake.streams[0]!.split('\n\n')
      .filter((e) => !e.includes('"choices":[],'))
      .join('\n\n')
      .replaceAll(',"usage":null', '');
    expect(text).toBe(expected);
    expect(text).not.toContain('usage');
  });

  test('with include_usage the SDK sees the final usage chunk', async () => {
    const c = await newCustomer();
    const stream = await c.client.chat.completions.create({
      model: 'acme/chat',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    const expected = expectedUsage({ messages });
    expect(usage).toEqual({ ...expected, cost: Number(BigInt(expected.total_tokens) * PRICE) / 1e9 } as typeof expected);
  });

  test('a stream without usage is billed by counting what was streamed', async () => {
    const c = await newCustomer();
    const stream = await c.client.chat.completions.create({ model: 'fake/no-usage', messages, stream: true });
    for await (const _ of stream) void _;
    const [row] = await usageRows(app, c.userId);
    expect(row!.usage_source).toBe('tokenizer');
    expect(row!.completion_tokens).toBeGreaterThanOrEqual(5);
    expect(BigInt(row!.cost_nano as string)).toBe(BigInt(row!.total_tokens) * PRICE);
  });

  test('closing the stream aborts the upstream at once and bills only what was streamed', async () => {
    const c = await newCustomer();
    const stream = await c.client.chat.completions.create({ model: 'fake/slow-stream', messages, stream: true });
    let pieces = 0;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) pieces += 1;
      if (pieces === 3) break; // the SDK aborts the request on break
    }
    const closedAt = performance.now();
    await waitFor(() => fake.aborted.includes('fake/slow-stream'), 2000);
    expect(performance.now() - closedAt).toBeLessThan(1000);
    await waitFor(async () => (await usageRows(app, c.userId)).length === 1);
    const [row] = await usageRows(app, c.userId);
    expect(row!.status).toBe('client_closed');
    expect(row!.completion_tokens).toBeGreaterThan(0);
    expect(row!.completion_tokens).toBeLessThan(20); // 100 pieces were on offer
    expect(BigInt(row!.cost_nano as string)).toBe(BigInt(row!.total_tokens) * PRICE);
    await settleAll(app);
    expect(await balanceNanoInDb(app, c.userId)).toBe(START - BigInt(row!.total_tokens) * PRICE);
  });

  test('an upstream that breaks mid-stream: the client gets what came and an error event; that much is billed', async () => {
    const c = await newCustomer();
    const stream = await c.client.chat.completions.create({ model: 'fake/drop', messages, stream: true });
    let text = '';
    let failure: unknown;
    try {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    } catch (error) {
      failure = error;
    }
    expect(text).toBe('Hello');
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    const [row] = await usageRows(app, c.userId);
    expect(row!.status).toBe('upstream_dropped');
    expect(row!.completion_tokens).toBeGreaterThan(0);
  });
});

describe('failures', () => {
  test('a client that gives up while the upstream thinks stops the upstream and pays nothing', async () => {
    const c = await newCustomer();
    const before = fake.requests.length;
    const giveUp = new AbortController();
    const answer = c.client.chat.completions.create({ model: 'fake/slow', messages }, { signal: giveUp.signal, maxRetries: 0 }).catch((e: unknown) => e);
    const askedUpstream = () => fake.requests.slice(before).find((r) => r.body?.model === 'fake/slow');
    await waitFor(() => askedUpstream() !== undefined, 5000);
    giveUp.abort();
    expect(await answer).toBeInstanceOf(OpenAI.APIUserAbortError);
    // The upstream (which would think for 10 s) sees Conduit hang up on it.
    await waitFor(() => askedUpstream()!.abortedAt !== null, 5000);
    await settleAll(app);
    const [row] = await usageRows(app, c.userId);
    expect(row!.status).toBe('client_closed');
    expect(BigInt(row!.cost_nano as string)).toBe(0n);
    expect(await balanceNanoInDb(app, c.userId)).toBe(START);
  });

  async function expectApiError(promise: Promise<unknown>, status: number, type: string) {
    try {
      await promise;
    } catch (error) {
      expect(error).toBeInstanceOf(OpenAI.APIError);
      const e = error as InstanceType<typeof OpenAI.APIError>;
      expect(e.status).toBe(status);
      expect((e.error as { type?: string })?.type ?? e.type).toBe(type);
      return e;
    }
    throw new Error('expected an API error');
  }

  test('upstream 5xx → 502 upstream_error; the reservation is released and the failure recorded', async () => {
    const c = await newCustomer();
    await expectApiError(c.client.chat.completions.create({ model: 'fake/error-500', messages }), 502, 'upstream_error');
    await expectApiError(c.client.chat.completions.create({ model: 'fake/error-503', messages }), 502, 'upstream_error');
    const rows = await usageRows(app, c.userId);
    expect(rows.map((r) => [r.status, r.upstream_status, BigInt(r.cost_nano as string)])).toEqual([
      ['upstream_error', 500, 0n],
      ['upstream_error', 503, 0n],
    ]);
    expect(await balance(c.token)).toBe(3);
  });

  test('upstream 4xx to a valid request passes through with its status and message', async () => {
    const c = await newCustomer();
    const e = await expectApiError(c.client.chat.completions.create({ model: 'fake/not-found', messages }), 404, 'invalid_request_error');
    expect(e.message).toContain('does not exist');
    const bad = await expectApiError(c.client.chat.completions.create({ model: 'fake/error-400', messages }), 400, 'invalid_request_error');
    expect(bad.message).toContain('temperature');
    const rows = await usageRows(app, c.userId);
    expect(rows.map((r) => r.status)).toEqual(['upstream_rejected', 'upstream_rejected']);
    expect(await balance(c.token)).toBe(3);
  });

  test('an upstream that closes the connection without answering → 502', async () => {
    const c = await newCustomer();
    await expectApiError(c.client.chat.completions.create({ model: 'fake/drop', messages }), 502, 'upstream_error');
    expect(await balance(c.token)).toBe(3);
  });

  test('an upstream that is not there → 502; one that is too slow → 504; both leave a usage row', async () => {
    const refused = await startTestApp({ env: { UPSTREAM_BASE_URL: 'http://127.0.0.1:9/v1' } });
    const slow = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, UPSTREAM_API_KEY: 'upstream-secret', UPSTREAM_TIMEOUT_MS: '300' } });
    try {
      for (const [target, model, status, type, usageStatus] of [
        [refused, 'acme/chat', 502, 'upstream_error', 'upstream_error'],
        [slow, 'fake/slow', 504, 'upstream_timeout', 'upstream_timeout'],
      ] as const) {
        const user = await registerUser(target.url);
        const { key } = await createApiKey(target.url, user.token);
        await expectApiError(openaiClient(target, key).chat.completions.create({ model, messages }), status, type);
        const rows = await usageRows(target, user.userId);
        expect(rows.map((r) => r.status)).toEqual([usageStatus]);
        expect((await call(target.url, 'GET', '/api/balance', { token: user.token })).body.balance).toBe(3);
      }
    } finally {
      await refused.close();
      await slow.close();
    }
  });
});

describe('keys and money on the hot path', () => {
  test('missing or invalid key → 401; revoked → 403 at once; nothing reaches the upstream', async () => {
    const c = await newCustomer();
    const noKey = await fetch(`${app.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/chat', messages }),
    });
    expect(noKey.status).toBe(401);
    expect((await noKey.json()).error.type).toBe('unauthorized');
    const wrong = openaiClient(app, `${c.key.slice(0, -4)}zzzz`);
    // The SDK's APIPromise is a Promise already resolved underneath, which expect().rejects inspects
    // directly: catch it instead.
    expect(await wrong.chat.completions.create({ model: 'acme/chat', messages }).catch((e) => e)).toMatchObject({ status: 401 });
    const jwtAsKey = openaiClient(app, c.token);
    expect(await jwtAsKey.chat.completions.create({ model: 'acme/chat', messages }).catch((e) => e)).toMatchObject({ status: 401 });

    await c.client.chat.completions.create({ model: 'acme/chat', messages }); // now cached
    expect((await call(app.url, 'DELETE', `/api/keys/${c.keyId}`, { token: c.token })).status).toBe(200);
    fake.reset();
    const revoked = await c.client.chat.completions.create({ model: 'acme/chat', messages }).catch((e) => e);
    expect(revoked.status).toBe(403);
    expect(revoked.error.type).toBe('forbidden');
    expect(fake.requests).toHaveLength(0);
  });

  test('lastUsedAt is written (batched) after use', async () => {
    const c = await newCustomer();
    await c.client.chat.completions.create({ model: 'acme/chat', messages });
    await app.instance.services.verifier.flushLastUsed();
    const listed = await call(app.url, 'GET', '/api/keys', { token: c.token });
    const lastUsed = new Date(listed.body.keys[0].lastUsedAt).getTime();
    expect(Date.now() - lastUsed).toBeLessThan(60_000);
  });

  test('a balance that cannot cover the reservation → 402 and nothing is forwarded', async () => {
    const c = await newCustomer();
    await setBalanceNano(app, c.userId, 1000n); // 8 tokens' worth
    fake.reset();
    const e = await c.client.chat.completions.create({ model: 'acme/chat', messages, max_tokens: 100 }).catch((x) => x);
    expect(e.status).toBe(402);
    expect(e.error.type).toBe('insufficient_balance');
    expect(fake.requests).toHaveLength(0);
    expect(await balance(c.token)).toBe(0.000001);
  });

  test('spending down to nothing: requests succeed until the balance is exhausted, then 402', async () => {
    const c = await newCustomer();
    const usage = expectedUsage({ messages, max_tokens: 5 });
    // Enough for three answers of this size, reserved with max_tokens 5.
    await setBalanceNano(app, c.userId, BigInt(usage.total_tokens * 3 + 40) * PRICE);
    let ok = 0;
    let refused = 0;
    for (let i = 0; i < 6; i++) {
      const r = await c.client.chat.completions.create({ model: 'acme/chat', messages, max_tokens: 5 }).catch((x) => x);
      if (r.status === 402) refused += 1;
      else ok += 1;
    }
    expect(ok).toBeGreaterThanOrEqual(2);
    expect(refused).toBeGreaterThanOrEqual(1);
    await settleAll(app);
    expect(await balanceNanoInDb(app, c.userId)).toBeGreaterThanOrEqual(0n);
    expect(await unbalancedUsers(app)).toEqual([]);
  });
});

describe('request checks', () => {
  const post = (key: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${app.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body,
    });

  test.each([
    ['no slash in model', { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }],
    ['no model', { messages: [{ role: 'user', content: 'x' }] }],
    ['no messages', { model: 'acme/chat' }],
    ['empty messages', { model: 'acme/chat', messages: [] }],
    ['bad role', { model: 'acme/chat', messages: [{ role: 'robot', content: 'x' }] }],
    ['numeric content', { model: 'acme/chat', messages: [{ role: 'user', content: 5 }] }],
    ['unknown part type', { model: 'acme/chat', messages: [{ role: 'user', content: [{ type: 'video', url: 'x' }] }] }],
    ['array body', [1, 2]],
  ])('%s → 400 invalid_request_error', async (_name, body) => {
    const c = await newCustomer();
    fake.reset();
    const res = await post(c.key, JSON.stringify(body));
    expect(res.status).toBe(400);
    const json = await res.json();
    expect(json.error.type).toBe('invalid_request_error');
    expect(json.error.message).toMatch(/[А-Яа-я]/);
    expect(fake.requests).toHaveLength(0);
  });

  test('malformed JSON → 400, a body over the limit → 413', async () => {
    const c = await newCustomer();
    const bad = await post(c.key, '{"model": "acme/chat", ');
    expect(bad.status).toBe(400);
    const big = await post(c.key, JSON.stringify({ model: 'acme/chat', messages: [{ role: 'user', content: 'x'.repeat(70_000) }] }));
    expect(big.status).toBe(413);
    expect((await big.json()).error.type).toBe('payload_too_large');
  });
});

describe('rate limit', () => {
  test('a per-key limit answers 429 with Retry-After once exceeded; other keys are unaffected', async () => {
    const limited = await startTestApp({
      env: { UPSTREAM_BASE_URL: fake.url, UPSTREAM_API_KEY: 'upstream-secret', RATE_LIMIT_PER_MINUTE: '2' },
    });
    try {
      const user = await registerUser(limited.url);
      const a = await createApiKey(limited.url, user.token, 'a');
      const b = await createApiKey(limited.url, user.token, 'b');
      const client = openaiClient(limited, a.key);
      await client.chat.completions.create({ model: 'acme/chat', messages });
      await client.chat.completions.create({ model: 'acme/chat', messages });
      const res = await fetch(`${limited.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'acme/chat', messages }),
      });
      expect(res.status).toBe(429);
      expect((await res.json()).error.type).toBe('rate_limit_exceeded');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      await openaiClient(limited, b.key).chat.completions.create({ model: 'acme/chat', messages });
    } finally {
      await limited.close();
    }
  });
});
