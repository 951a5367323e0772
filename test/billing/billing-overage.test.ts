// Every token is billed: answers that cost more than their reservation (and than the instance's lease)
// are charged from the whole balance down to zero, the rest is recorded as unpaid, and the next request
// is refused with 402. Also what a reservation covers: n choices and the model's completion price.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { openaiClient, settleAll, unbalancedUsers, usageRows } from '../helpers/gateway';

setDefaultTimeout(30_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const messages = [{ role: 'user' as const, content: 'Привет!' }];
const NANO = 1_000_000_000n;
const PRICE = 125n;

let fake: FakeUpstream;
let app: TestApp;

beforeAll(async () => {
  fake = await startFakeUpstream();
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url } });
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

async function customer(target: TestApp = app) {
  const user = await registerUser(target.url);
  const key = await createApiKey(target.url, user.token);
  return { ...user, key: key.key, client: openaiClient(target, key.key) };
}

/** The user's money as the API shows it and as the books hold it (balance + leases). */
async function moneyOf(target: TestApp, userId: string, token: string) {
  const api = await call(target.url, 'GET', '/api/balance', { token });
  const [row] = await target.sql<{ total: string }>(
    `select (u.balance_nano + coalesce((select sum(amount_nano) from balance_leases b where b.user_id = u.id), 0))::text as total
     from users u where u.id = $1`,
    [userId],
  );
  return { api: api.body.balance as number, nano: BigInt(row!.total) };
}

const chatCalls = () => fake.requests.filter((r) => r.path === '/v1/chat/completions').length;

describe('usage above the reservation', () => {
  test('23,999,800 tokens from a 3.00 balance leave exactly 200 tokens’ worth', async () => {
    const c = await customer();
    const reply = await c.client.chat.completions.create({ model: 'fake/usage-100-23999700', messages, max_tokens: 5 });
    expect(reply.usage?.total_tokens).toBe(23_999_800);
    await settleAll(app);
    const money = await moneyOf(app, c.userId, c.token);
    expect(money.nano).toBe(200n * PRICE);
    expect(money.api).toBe(0.000025);
    const [row] = await usageRows(app, c.userId);
    expect(BigInt(String(row!.cost_nano))).toBe(23_999_800n * PRICE);
    expect(await unbalancedUsers(app)).toEqual([]);
    // What is left still pays for a small call (the fake reports 12 + 1 tokens for it).
    await c.client.chat.completions.create({ model: 'acme/chat', messages, max_tokens: 1 });
    await settleAll(app);
    expect((await moneyOf(app, c.userId, c.token)).nano).toBe((200n - 13n) * PRICE);
  });

  test('30,000,000 tokens take the balance to 0, record the rest as unpaid, and the next call is 402 without reaching the model', async () => {
    const c = await customer();
    await c.client.chat.completions.create({ model: 'fake/usage-100-29999900', messages, max_tokens: 5 });
    await settleAll(app);
    expect((await moneyOf(app, c.userId, c.token)).nano).toBe(0n);
    const [row] = await usageRows(app, c.userId);
    const r = row as unknown as { cost_nano: unknown; unpaid_nano: unknown; prompt_cost_nano: unknown; completion_cost_nano: unknown };
    expect(BigInt(String(r.cost_nano))).toBe(3n * NANO);
    expect(BigInt(String(r.unpaid_nano))).toBe(30_000_000n * PRICE - 3n * NANO);
    expect(BigInt(String(r.prompt_cost_nano)) + BigInt(String(r.completion_cost_nano))).toBe(30_000_000n * PRICE);
    expect(await unbalancedUsers(app)).toEqual([]);

    const before = chatCalls();
    const next = await c.client.chat.completions.create({ model: 'acme/chat', messages }).catch((e) => e);
    expect(next.status).toBe(402);
    expect(chatCalls()).toBe(before);

    // The dashboard shows what was left unpaid.
    const usage = await call(app.url, 'GET', '/api/usage', { token: c.token });
    // Newest first: the refused call (402, in usage since issue 33) and before it the call that ran over.
    expect(usage.body.data.map((row: { status: string }) => row.status)).toEqual(['refused_balance', 'ok']);
    const [refused, overrun] = usage.body.data;
    expect(overrun.unpaid).toBe(0.75);
    expect(overrun.cost).toBe(3);
    expect([refused.cost, refused.unpaid, refused.totalTokens]).toEqual([0, 0, 0]);
    expect(usage.body.totals.unpaid).toBe(0.75);
  });

  test('a stream whose usage outgrows the reservation is billed in full as well', async () => {
    const c = await customer();
    const stream = await c.client.chat.completions.create({
      model: 'fake/usage-100-7999900',
      messages,
      max_tokens: 5,
      stream: true,
    });
    for await (const _ of stream) {
      // drain
    }
    await settleAll(app);
    expect((await moneyOf(app, c.userId, c.token)).nano).toBe(3n * NANO - 8_000_000n * PRICE);
    expect(await unbalancedUsers(app)).toEqual([]);
  });
});

describe('what a reservation covers', () => {
  test('a request that can never fit the balance is 402 before the model is asked', async () => {
    const c = await customer();
    const before = chatCalls();
    // 30M completion tokens at 1.25e-7 cost 3.75: more than the 3.00 bonus.
    const res = await c.client.chat.completions.create({ model: 'acme/chat', messages, max_tokens: 30_000_000 }).catch((e) => e);
    expect(res.status).toBe(402);
    expect(chatCalls()).toBe(before);
  });

  test('n choices multiply the completion reservation', async () => {
    const c = await customer();
    const before = chatCalls();
    // One choice of 20M tokens fits 3.00 (2.5); two do not (5.0).
    const one = await c.client.chat.completions.create({ model: 'acme/chat', messages, max_tokens: 20_000_000 });
    expect(one.object).toBe('chat.completion');
    await settleAll(app);
    const two = await c.client.chat.completions.create({ model: 'acme/chat', messages, max_tokens: 20_000_000, n: 2 }).catch((e) => e);
    expect(two.status).toBe(402);
    expect(chatCalls()).toBe(before + 1);
    const bad = await call(app.url, 'POST', '/v1/chat/completions', {
      headers: { authorization: `Bearer ${c.key}` },
      body: { model: 'acme/chat', messages, n: 0 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('invalid_request_error');
  });
});

describe('usage figures that cannot be right', () => {
  test('non-numeric and absurd figures neither 500 nor stop billing for anyone; the reservation is released', async () => {
    const c = await customer();
    const garbage = await c.client.chat.completions.create({ model: 'fake/usage-garbage', messages, max_tokens: 5 });
    expect(garbage.object).toBe('chat.completion');
    // 3e9 tokens overflowed an int4 column and failed the whole batch, for every user, forever.
    const huge = await c.client.chat.completions.create({ model: 'fake/usage-3000000000-0', messages, max_tokens: 5 });
    expect(huge.object).toBe('chat.completion');
    const other = await customer();
    await other.client.chat.completions.create({ model: 'acme/chat', messages, max_tokens: 5 });
    await settleAll(app);
    const rows = await usageRows(app, c.userId);
    expect(rows.map((r) => r.total_tokens)).toEqual([0, 3_000_000_000]);
    expect(await usageRows(app, other.userId)).toHaveLength(1);
    expect(app.instance.services.billing.backlog).toBe(0);
    expect(await unbalancedUsers(app)).toEqual([]);
  });
});

describe('two instances with small leases', () => {
  test.skipIf(!onPostgres)('an overage on one instance takes the balance the other also draws from, never below zero', async () => {
    const env = { UPSTREAM_BASE_URL: fake.url, LEASE_CHUNK: '0.01' };
    const a = await startTestApp({ env });
    const b = await startTestApp({ database: a.database, env });
    try {
      const user = await registerUser(a.url);
      const key = (await createApiKey(a.url, user.token)).key;
      const [ca, cb] = [openaiClient(a, key), openaiClient(b, key)];
      // Both instances hold leases of 0.01 when the big answer settles.
      await Promise.all([
        ca.chat.completions.create({ model: 'acme/chat', messages, max_tokens: 5 }),
        cb.chat.completions.create({ model: 'acme/chat', messages, max_tokens: 5 }),
      ]);
      const small = 2n * (12n + 5n) * PRICE; // what the fake reports for each: 12 prompt + 5 completion
      await ca.chat.completions.create({ model: 'fake/usage-100-23999700', messages, max_tokens: 5 });
      await settleAll(a);
      await settleAll(b);
      const money = await moneyOf(a, user.userId, user.token);
      expect(money.nano).toBe(3n * NANO - small - 23_999_800n * PRICE);
      expect(await unbalancedUsers(a)).toEqual([]);

      // Now the 30M answer through the other instance: everything goes, nothing below zero.
      await cb.chat.completions.create({ model: 'fake/usage-100-29999900', messages, max_tokens: 5 });
      await settleAll(b);
      await settleAll(a);
      expect((await moneyOf(a, user.userId, user.token)).nano).toBe(0n);
      expect(await unbalancedUsers(a)).toEqual([]);
      for (const client of [ca, cb]) {
        const res = await client.chat.completions.create({ model: 'acme/chat', messages, max_tokens: 5 }).catch((e) => e);
        expect(res.status).toBe(402);
      }
    } finally {
      await b.stop();
      await a.close();
    }
  });
});
