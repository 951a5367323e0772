// A request that names no completion cap goes upstream with the one its reservation assumed
// (RESERVE_COMPLETION_TOKENS): a well-behaved upstream then never answers past what was set aside, so
// neither a key's spend limit nor a balance is overrun by concurrent requests. An upstream that ignores
// the cap is still billed in full.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { balanceNanoInDb, openaiClient, setBalanceNano, settleAll, unbalancedUsers, usageRows } from '../helpers/gateway';

setDefaultTimeout(30_000);

const CAP = 400;
/** Would write 3,000 tokens (0.000375 at 125e-9 a token) if nothing capped it. */
const LONG = 'fake/long-3000';
const messages = [{ role: 'user' as const, content: 'Напиши длинный рассказ' }];

let fake: FakeUpstream;
let app: TestApp;

beforeAll(async () => {
  fake = await startFakeUpstream();
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, RESERVE_COMPLETION_TOKENS: String(CAP) } });
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

const chatBodies = () => fake.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body);

describe('the reserved completion cap goes upstream', () => {
  test('chat without a cap gets max_tokens, plain and streamed; a client’s own cap goes as it sent it', async () => {
    const user = await registerUser(app.url);
    const { key } = await createApiKey(app.url, user.token);
    const client = openaiClient(app, key);
    const plain = await client.chat.completions.create({ model: LONG, messages });
    expect(plain.usage?.completion_tokens).toBe(CAP);
    const stream = await client.chat.completions.create({ model: LONG, messages, stream: true });
    for await (const _ of stream) {
      // drain
    }
    await client.chat.completions.create({ model: LONG, messages, max_completion_tokens: 50 });
    await client.chat.completions.create({ model: LONG, messages, max_tokens: 60 });
    // An explicit null names no cap: the reserved one replaces it (one key, not two).
    const nulled = await call(app.url, 'POST', '/v1/chat/completions', {
      token: key,
      body: { model: LONG, messages, max_completion_tokens: null },
    });
    expect(nulled.status).toBe(200);
    expect(nulled.body.usage.completion_tokens).toBe(CAP);

    const [a, b, c, d, e] = chatBodies();
    expect(a).toMatchObject({ model: LONG, messages, max_tokens: CAP });
    expect(a.max_completion_tokens).toBeUndefined();
    expect(b).toMatchObject({ stream: true, max_tokens: CAP, stream_options: { include_usage: true } });
    expect(c).toMatchObject({ max_completion_tokens: 50 });
    expect(c.max_tokens).toBeUndefined();
    expect(d).toMatchObject({ max_tokens: 60 });
    expect(d.max_completion_tokens).toBeUndefined();
    expect(e).toMatchObject({ max_completion_tokens: CAP });
    expect(e.max_tokens).toBeUndefined();
  });

  test('/v1/responses without max_output_tokens gets the cap', async () => {
    const user = await registerUser(app.url);
    const { key } = await createApiKey(app.url, user.token);
    const res = await call(app.url, 'POST', '/v1/responses', { token: key, body: { model: LONG, input: 'Привет' } });
    expect(res.status).toBe(200);
    expect(res.body.usage.output_tokens).toBe(CAP);
    const own = await call(app.url, 'POST', '/v1/responses', { token: key, body: { model: LONG, input: 'Привет', max_output_tokens: 20 } });
    expect(own.body.usage.output_tokens).toBe(20);
    const sent = fake.requests.filter((r) => r.path === '/v1/responses').map((r) => r.body);
    expect(sent.map((b) => b.max_output_tokens)).toEqual([CAP, 20]);
  });
});

describe('limits hold under concurrency', () => {
  test('50 parallel uncapped requests never spend past a key’s small limit', async () => {
    const user = await registerUser(app.url);
    const limit = 0.001;
    const created = await call(app.url, 'POST', '/api/keys', { token: user.token, body: { name: 'small', spendLimit: limit } });
    expect(created.status).toBe(201);
    const client = openaiClient(app, created.body.key);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2
          ? client.chat.completions.create({ model: LONG, messages })
          : call(app.url, 'POST', '/v1/responses', { token: created.body.key, body: { model: LONG, input: 'Привет' } }).then((r) =>
              r.status === 200 ? r.body : { status: r.status },
            )
        ).catch((e) => e),
      ),
    );
    const served = results.filter((r) => r.object === 'chat.completion' || r.object === 'response').length;
    expect(served).toBeGreaterThanOrEqual(1);
    // Whoever did not fit was refused before the upstream was asked.
    expect(results.filter((r) => r.status === 402)).toHaveLength(50 - served);
    expect(fake.requests).toHaveLength(served);

    await settleAll(app);
    const listed = (await call(app.url, 'GET', '/api/keys', { token: user.token })).body.keys.find((k: any) => k.id === created.body.id);
    expect(listed.spentThisPeriod).toBeGreaterThan(0);
    expect(listed.spentThisPeriod).toBeLessThanOrEqual(limit);
    expect(await unbalancedUsers(app)).toEqual([]);

    // With less left than one reservation (the cap alone costs 0.00005), the next is refused unsent.
    fake.reset();
    const left = limit - listed.spentThisPeriod;
    if (left >= 0.00005) {
      await call(app.url, 'PATCH', `/api/keys/${created.body.id}`, {
        token: user.token,
        body: { spendLimit: Number((listed.spentThisPeriod + 0.00004).toFixed(9)) },
      });
    }
    const refused = await call(app.url, 'POST', '/v1/chat/completions', { token: created.body.key, body: { model: LONG, messages } });
    expect(refused.status).toBe(402);
    expect(fake.requests).toHaveLength(0);
  });

  test('50 parallel uncapped requests never spend past a small balance: nothing is left unpaid', async () => {
    const user = await registerUser(app.url);
    const { key } = await createApiKey(app.url, user.token);
    const balance = 1_000_000n; // 0.001
    await setBalanceNano(app, user.userId, balance);
    const client = openaiClient(app, key);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        client.chat.completions.create({ model: LONG, messages, stream: i % 2 === 0 }).then(
          async (r: any) => {
            if (typeof r[Symbol.asyncIterator] === 'function') for await (const _ of r) void _;
            return 'served';
          },
          (e) => e.status,
        ),
      ),
    );
    const served = results.filter((r) => r === 'served').length;
    expect(served).toBeGreaterThanOrEqual(1);
    expect(results.filter((r) => r === 402)).toHaveLength(50 - served);

    await settleAll(app);
    const rows = await usageRows(app, user.userId);
    const ok = rows.filter((r) => r.status === 'ok');
    expect(ok).toHaveLength(served);
    for (const row of ok) expect(row.completion_tokens).toBe(CAP);
    const unpaid = rows.reduce((sum, r: any) => sum + BigInt(r.unpaid_nano), 0n);
    const charged = rows.reduce((sum, r) => sum + BigInt(r.cost_nano as string), 0n);
    expect(unpaid).toBe(0n);
    expect(charged).toBeLessThanOrEqual(balance);
    expect(await balanceNanoInDb(app, user.userId)).toBe(balance - charged);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('an upstream that ignores the cap is billed in full from the balance', async () => {
    const user = await registerUser(app.url);
    const { key } = await createApiKey(app.url, user.token);
    const client = openaiClient(app, key);
    // fake/usage-P-C reports C whatever max_tokens says: far past the 400 reserved.
    const answer = await client.chat.completions.create({ model: 'fake/usage-10-3000', messages });
    expect(answer.usage?.completion_tokens).toBe(3000);
    expect(chatBodies()[0]).toMatchObject({ max_tokens: CAP });
    await settleAll(app);
    const [row] = await usageRows(app, user.userId);
    expect(row!.completion_tokens).toBe(3000);
    expect(BigInt(row!.cost_nano as string)).toBe(3010n * 125n);
    expect(await unbalancedUsers(app)).toEqual([]);
  });
});
