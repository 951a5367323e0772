// The exact response cache (issue 43 point 6), driven by the official openai SDK: a repeated non-stream
// request is answered from PostgreSQL without a second upstream call, `x-conduit-cache: hit`, billed at
// CACHE_HIT_PRICE_RATIO of its tokens' price; per key (`cache` on the key) or per request (the header);
// never at temperature > 0 unless the key's mode is `any`, never for streams, never across owners; expired
// answers are not served and are swept.
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import type OpenAI from 'openai';
import { gatewaySlot } from '../../src/gateway/api';
import type { FakeUpstream } from '../fakes/upstream';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
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
} from '../helpers/gateway';

setDefaultTimeout(30_000);

let app: TestApp;
let fake: FakeUpstream;
useGatewayApp({
  ready: (s) => {
    app = s.app;
    fake = s.fake;
  },
});

const ON = { headers: { 'x-conduit-cache': 'on' } };
const upstreamCalls = () => fake.requests.filter((r) => r.path === '/v1/chat/completions').length;
const question = (content = 'Сколько будет 2 + 2?') => [{ role: 'user' as const, content }];
/** The fake reports 1000 prompt and 333 completion tokens for this model: 166 625 nano-units at the default price. */
const MODEL = 'fake/usage-1000-333';
const FULL_NANO = 1333n * PRICE_NANO;
/** 0.1 of it, rounded up once: 16 662.5 → 16 663. */
const HIT_NANO = 16_663n;
const asNano = (cost: number | string) => BigInt(Math.round(Number(cost) * 1e9));

/** A key made through the dashboard's API with the given cache mode, and an SDK client using it. */
async function keyWithCache(target: TestApp, token: string, cache?: 'off' | 'on' | 'any', scope: 'key' | 'account' = 'key') {
  const res = await call(target.url, 'POST', '/api/keys', { token, body: { name: `cache ${cache}`, scope, ...(cache ? { cache } : {}) } });
  expect(res.status).toBe(201);
  expect(res.body.cache).toBe(cache ?? 'off');
  return { id: res.body.id as string, client: openaiClient(target, res.body.key as string) };
}

async function ask(client: OpenAI, body: Record<string, unknown>, options: { headers?: Record<string, string> } = {}) {
  const { data, response } = await client.chat.completions
    .create({ model: MODEL, messages: question(), ...body } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, options)
    .withResponse();
  return { data, verdict: response.headers.get('x-conduit-cache'), cost: response.headers.get('x-conduit-cost') };
}

describe('the response cache', () => {
  test('a repeated request goes upstream once; the repeat is a hit with the same answer, billed at the ratio exactly', async () => {
    const c = await newGatewayCustomer(app);
    const first = await ask(c.client, { temperature: 0 }, ON);
    expect(first.verdict).toBe('miss');
    const again = await ask(c.client, { temperature: 0 }, ON);
    expect(again.verdict).toBe('hit');
    expect(upstreamCalls()).toBe(1);
    // The same answer: its id, content and token counts; only the cost is the hit's own.
    expect(again.data.id).toBe(first.data.id);
    expect(again.data.choices).toEqual(first.data.choices);
    expect(again.data.usage).toEqual({ ...first.data.usage!, cost: Number(HIT_NANO) / 1e9 } as OpenAI.CompletionUsage);
    expect(asNano(first.cost!)).toBe(FULL_NANO);
    expect(asNano(again.cost!)).toBe(HIT_NANO);
    expect(asNano((again.data.usage as unknown as { cost: number }).cost)).toBe(HIT_NANO);

    const rows = await usageRows(app, c.userId);
    expect(rows.map((r) => [r.usage_source, BigInt(r.cost_nano as string), r.prompt_tokens, r.completion_tokens])).toEqual([
      ['upstream', FULL_NANO, 1000, 333],
      ['cache', HIT_NANO, 1000, 333],
    ]);
    expect(rows[1]).toMatchObject({ status: 'ok', model: MODEL, stream: false, api_key_id: c.keyId, upstream_status: null });
    await settleAll(app);
    expect(await balanceNanoInDb(app, c.userId)).toBe(START_NANO - FULL_NANO - HIT_NANO);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('the usage history marks the hit', async () => {
    const c = await newGatewayCustomer(app);
    await ask(c.client, { temperature: 0 }, ON);
    await ask(c.client, { temperature: 0 }, ON);
    const usage = await call(app.url, 'GET', '/api/usage', { token: c.token });
    expect(usage.status).toBe(200);
    expect(usage.body.data.map((r: { usageSource: string; cost: number }) => [r.usageSource, asNano(r.cost)])).toEqual([
      ['cache', HIT_NANO],
      ['upstream', FULL_NANO],
    ]);
  });

  test('key-level: a key with cache "on" caches its temperature-0 requests without the header; "any" at any temperature', async () => {
    const user = await registerUser(app.url);
    const key = await keyWithCache(app, user.token, 'on');
    expect((await ask(key.client, { temperature: 0 })).verdict).toBe('miss');
    expect((await ask(key.client, { temperature: 0 })).verdict).toBe('hit');
    expect(upstreamCalls()).toBe(1);
    // `x-conduit-cache: off` skips it for one request.
    expect((await ask(key.client, { temperature: 0 }, { headers: { 'x-conduit-cache': 'off' } })).verdict).toBeNull();
    expect(upstreamCalls()).toBe(2);
    // Temperature above 0, or absent (the model's default, 1): not cached under "on".
    expect((await ask(key.client, { temperature: 0.7 })).verdict).toBeNull();
    expect((await ask(key.client, { temperature: 0.7 })).verdict).toBeNull();
    expect((await ask(key.client, {})).verdict).toBeNull();
    expect(upstreamCalls()).toBe(5);

    // Changed later through the API (PATCH), as the keys panel does: "any" caches every temperature.
    const changed = await call(app.url, 'PATCH', `/api/keys/${key.id}`, { token: user.token, body: { cache: 'any' } });
    expect(changed.status).toBe(200);
    expect(changed.body.cache).toBe('any');
    const listed = await call(app.url, 'GET', '/api/keys', { token: user.token });
    expect(listed.body.keys.find((k: { id: string }) => k.id === key.id).cache).toBe('any');
    expect((await ask(key.client, { temperature: 0.7 })).verdict).toBe('miss');
    const warm = await ask(key.client, { temperature: 0.7 });
    expect(warm.verdict).toBe('hit');
    expect((await ask(key.client, {})).verdict).toBe('miss');
    expect((await ask(key.client, {})).verdict).toBe('hit');
    expect(upstreamCalls()).toBe(7);

    // A key left "off" (the default) caches nothing unless asked.
    const plain = await keyWithCache(app, user.token);
    expect((await ask(plain.client, { temperature: 0, messages: question('без кэша') })).verdict).toBeNull();
    expect((await ask(plain.client, { temperature: 0, messages: question('без кэша') })).verdict).toBeNull();
    expect(upstreamCalls()).toBe(9);
  });

  test('header-level: only at temperature 0 and n = 1, unless the key allows any temperature', async () => {
    const c = await newGatewayCustomer(app);
    for (const body of [{}, { temperature: 0.5 }, { temperature: 0, n: 2 }]) {
      expect((await ask(c.client, body, ON)).verdict).toBeNull();
      expect((await ask(c.client, body, ON)).verdict).toBeNull();
    }
    expect(upstreamCalls()).toBe(6);
    // The header on a key of mode "any" caches a temperature above 0.
    const user = await registerUser(app.url);
    const any = await keyWithCache(app, user.token, 'any');
    expect((await ask(any.client, { temperature: 1.2 }, ON)).verdict).toBe('miss');
    expect((await ask(any.client, { temperature: 1.2 }, ON)).verdict).toBe('hit');
    expect(upstreamCalls()).toBe(7);
  });

  test('another message or parameter misses; the same request with its keys in another order hits', async () => {
    const c = await newGatewayCustomer(app);
    const base = { temperature: 0, messages: question('Столица Франции?') };
    expect((await ask(c.client, base, ON)).verdict).toBe('miss');
    expect((await ask(c.client, { ...base, messages: question('Столица Италии?') }, ON)).verdict).toBe('miss');
    expect((await ask(c.client, { ...base, max_tokens: 50 }, ON)).verdict).toBe('miss');
    expect((await ask(c.client, { ...base, seed: 7 }, ON)).verdict).toBe('miss');
    expect((await ask(c.client, { ...base, model: 'fake/usage-1000-334' }, ON)).verdict).toBe('miss');
    expect(upstreamCalls()).toBe(5);
    // Written by hand: the keys in another order, a message's too, and stream: false (which changes nothing).
    const raw = `{"temperature":0,"stream":false,"messages":[{"content":"Столица Франции?","role":"user"}],"model":"${MODEL}"}`;
    const res = await call(app.url, 'POST', '/v1/chat/completions', { rawBody: raw, headers: { authorization: `Bearer ${c.key}`, 'x-conduit-cache': 'on' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-conduit-cache')).toBe('hit');
    expect(upstreamCalls()).toBe(5);
  });

  test('never across owners: another account misses, and so does another key-scoped key; account-scoped keys share', async () => {
    const a = await newGatewayCustomer(app);
    const body = { temperature: 0, messages: question('общий вопрос') };
    expect((await ask(a.client, body, ON)).verdict).toBe('miss');
    expect((await ask(a.client, body, ON)).verdict).toBe('hit');
    const b = await newGatewayCustomer(app);
    const fromB = await ask(b.client, body, ON);
    expect(fromB.verdict).toBe('miss');
    expect(upstreamCalls()).toBe(2);
    // A's second key-scoped key does not read what A's first key kept.
    const second = await keyWithCache(app, a.token, 'on');
    expect((await ask(second.client, body)).verdict).toBe('miss');
    expect(upstreamCalls()).toBe(3);
    // Account-scoped keys share the account's answers with each other.
    const wide1 = await keyWithCache(app, a.token, 'on', 'account');
    const wide2 = await keyWithCache(app, a.token, 'on', 'account');
    const kept = await ask(wide1.client, body);
    expect(kept.verdict).toBe('miss');
    const shared = await ask(wide2.client, body);
    expect(shared.verdict).toBe('hit');
    expect(shared.data.id).toBe(kept.data.id);
    expect(upstreamCalls()).toBe(4);
  });

  test('streams are not cached', async () => {
    const c = await newGatewayCustomer(app);
    const user = await registerUser(app.url);
    const any = await keyWithCache(app, user.token, 'any');
    for (const client of [c.client, any.client]) {
      for (let i = 0; i < 2; i += 1) {
        const { data, response } = await client.chat.completions
          .create({ model: 'acme/chat', messages: question(), temperature: 0, stream: true }, ON)
          .withResponse();
        expect(response.headers.get('x-conduit-cache')).toBeNull();
        for await (const _chunk of data) {
          // Read to the end: the stream settles when it is done.
        }
      }
    }
    expect(upstreamCalls()).toBe(4);
    // And a stream after a kept answer to the same request is still a stream from the model.
    expect((await ask(c.client, { model: 'acme/chat', temperature: 0 }, ON)).verdict).toBe('miss');
    const streamed = await c.client.chat.completions.create({ model: 'acme/chat', messages: question(), temperature: 0, stream: true }, ON);
    for await (const _chunk of streamed) {
      // drained
    }
    expect(upstreamCalls()).toBe(6);
  });

  test('a hit is refused with 402 when the balance cannot pay even the hit, and nothing is asked upstream', async () => {
    const c = await newGatewayCustomer(app);
    expect((await ask(c.client, { temperature: 0 }, ON)).verdict).toBe('miss');
    await setBalanceNano(app, c.userId, HIT_NANO - 1n);
    const refused = await c.client.chat.completions.create({ model: MODEL, messages: question(), temperature: 0 }, ON).catch((e: unknown) => e);
    expect((refused as { status?: number }).status).toBe(402);
    expect(upstreamCalls()).toBe(1);
    await setBalanceNano(app, c.userId, HIT_NANO);
    expect((await ask(c.client, { temperature: 0 }, ON)).verdict).toBe('hit');
    await settleAll(app);
    expect(await balanceNanoInDb(app, c.userId)).toBe(0n);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('an answer is served for CACHE_TTL_SECONDS, then asked again; expired answers are swept', async () => {
    const short = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, UPSTREAM_API_KEY: 'upstream-secret', CACHE_TTL_SECONDS: '1' } });
    try {
      const c = await newGatewayCustomer(short);
      expect((await ask(c.client, { temperature: 0 }, ON)).verdict).toBe('miss');
      const [kept] = await short.sql<{ ttl: number }>('select extract(epoch from expires_at - created_at)::float8 as ttl from response_cache where user_id = $1', [
        c.userId,
      ]);
      expect(kept!.ttl).toBe(1);
      expect((await ask(c.client, { temperature: 0 }, ON)).verdict).toBe('hit');
      // Past its second the answer is not served, swept or not.
      await Bun.sleep(1100);
      expect(await short.instance.services.feature(gatewaySlot).responseCache.purge()).toBe(1);
      expect((await ask(c.client, { temperature: 0 }, ON)).verdict).toBe('miss');
      expect(upstreamCalls()).toBe(2);
      await short.sql(`update response_cache set expires_at = now() - interval '1 second' where user_id = $1`, [c.userId]);
      expect((await ask(c.client, { temperature: 0 }, ON)).verdict).toBe('miss');
      expect(upstreamCalls()).toBe(3);
    } finally {
      await short.close();
    }
  });
});
