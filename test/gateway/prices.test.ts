// Per-model prices on /v1: the longest matching row prices a request (prompt and completion apart), a
// model no row matches costs TOKEN_PRICE, the cost rounds up once per request, GET /v1/models shows the
// prices in force, usage rows and the usage views keep the two parts apart, and a change made on one
// instance prices the next request on another.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { openaiClient, settleAll, unbalancedUsers, usageRows, waitFor } from '../helpers/gateway';

setDefaultTimeout(30_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const ADMIN = uniqueEmail('price-admin');
const messages = [{ role: 'user' as const, content: 'Привет!' }];
// The fake reports 12 prompt tokens and 7 completion tokens for one user message without a cap.
const PROMPT = 12n;
const COMPLETION = 7n;

let fake: FakeUpstream;
let app: TestApp;
let admin: string;

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.models.push({ id: 'openai/gpt-4o-mini', created: 1_700_000_200, owned_by: 'openai', pricing: { prompt: '0.00000015', completion: '0.0000006' } });
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, ADMIN_EMAILS: ADMIN, MODELS_CACHE_SECONDS: '1' } });
  admin = (await registerAdmin(app, ADMIN)).token;
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});
beforeEach(() => fake.requests.splice(0));

async function setPrice(pattern: string, promptPerMillion: number, completionPerMillion: number, target = app) {
  const res = await call(target.url, 'PUT', '/api/admin/prices', { token: admin, body: { pattern, promptPerMillion, completionPerMillion } });
  if (res.status !== 200) throw new Error(`price not saved: ${res.status} ${res.text}`);
}

async function costOfOneCall(model: string, target = app) {
  const user = await registerUser(target.url);
  const key = await createApiKey(target.url, user.token);
  await openaiClient(target, key.key).chat.completions.create({ model, messages });
  await settleAll(target);
  const [row] = await usageRows(target, user.userId);
  const r = row as unknown as { cost_nano: unknown; prompt_cost_nano: unknown; completion_cost_nano: unknown };
  return {
    cost: BigInt(String(r.cost_nano)),
    prompt: BigInt(String(r.prompt_cost_nano)),
    completion: BigInt(String(r.completion_cost_nano)),
    user,
  };
}

describe('prices on /v1', () => {
  test('the longest match wins; no match costs TOKEN_PRICE; prompt and completion are priced apart', async () => {
    await setPrice('acme/*', 1, 2); // 1000 and 2000 nano per token
    await setPrice('acme/large', 0.5, 0.75);
    await setPrice('*', 0.2, 0.2);

    const chat = await costOfOneCall('acme/chat');
    expect(chat).toMatchObject({ prompt: PROMPT * 1000n, completion: COMPLETION * 2000n, cost: PROMPT * 1000n + COMPLETION * 2000n });
    const large = await costOfOneCall('acme/large');
    expect(large.cost).toBe(PROMPT * 500n + COMPLETION * 750n);
    const other = await costOfOneCall('other/model');
    expect(other.cost).toBe((PROMPT + COMPLETION) * 200n);

    await call(app.url, 'DELETE', `/api/admin/prices?pattern=${encodeURIComponent('*')}`, { token: admin });
    const fallback = await costOfOneCall('other/model');
    expect(fallback.cost).toBe((PROMPT + COMPLETION) * 125n);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('a price below a nano-unit per token rounds up once per request', async () => {
    await setPrice('tiny/model', 0.0001, 0.0003); // 0.1 and 0.3 nano per token
    const tiny = await costOfOneCall('tiny/model');
    // 12 × 0.1 + 7 × 0.3 = 3.3 → 4 for the request; the prompt part rounds down, the completion takes the rest.
    expect(tiny).toMatchObject({ cost: 4n, prompt: 1n, completion: 3n });
  });

  test('the usage views show the prompt and completion cost apart and the summary sums them', async () => {
    await setPrice('split/model', 1, 3);
    const { user } = await costOfOneCall('split/model');
    const usage = await call(app.url, 'GET', '/api/usage', { token: user.token });
    expect(usage.body.data[0]).toMatchObject({ promptCost: 0.000012, completionCost: 0.000021, cost: 0.000033, unpaid: 0 });
    expect(usage.body.totals).toMatchObject({ promptCost: 0.000012, completionCost: 0.000021, cost: 0.000033 });
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const summary = await call(app.url, 'GET', `/api/usage/summary?from=${encodeURIComponent(from)}`, { token: user.token });
    expect(summary.body.totals).toMatchObject({ promptCost: 0.000012, completionCost: 0.000021 });
    expect(summary.body.models[0]).toMatchObject({ model: 'split/model', promptCost: 0.000012, completionCost: 0.000021 });
  });

  test('GET /v1/models carries the price in force per token as decimal strings, not the upstream’s', async () => {
    await setPrice('openai/*', 0.3, 1.2);
    await waitFor(async () => {
      const list = await call(app.url, 'GET', '/v1/models');
      const gpt = list.body.data.find((m: { id: string }) => m.id === 'openai/gpt-4o-mini');
      return gpt?.pricing?.prompt === '0.0000003';
    });
    const list = await call(app.url, 'GET', '/v1/models');
    const byId = new Map(list.body.data.map((m: { id: string }) => [m.id, m]));
    // The cache prices derived from the prompt price (CACHE_READ_PRICE_RATIO 0.1, CACHE_WRITE_PRICE_RATIO 1.25).
    expect((byId.get('openai/gpt-4o-mini') as any).pricing).toEqual({
      prompt: '0.0000003',
      completion: '0.0000012',
      input_cache_read: '0.00000003',
      input_cache_write: '0.000000375',
    });
    expect((byId.get('acme/chat') as any).pricing).toEqual({
      prompt: '0.000001',
      completion: '0.000002',
      input_cache_read: '0.0000001',
      input_cache_write: '0.00000125',
    });
  });

  test('the reservation uses the model’s completion price: an expensive model is 402 where a cheap one runs', async () => {
    await setPrice('pricey/model', 1, 1_000_000); // 1 per completion token
    const user = await registerUser(app.url);
    const key = await createApiKey(app.url, user.token);
    const client = openaiClient(app, key.key);
    const before = fake.requests.length;
    const res = await client.chat.completions.create({ model: 'pricey/model', messages, max_tokens: 4 }).catch((e) => e);
    expect(res.status).toBe(402);
    expect(fake.requests.length).toBe(before);
    expect((await client.chat.completions.create({ model: 'pricey/model', messages, max_tokens: 2 })).object).toBe('chat.completion');
  });

  test.skipIf(!onPostgres)('a price saved on one instance prices the next request on another', async () => {
    const other = await startTestApp({ database: app.database, env: { UPSTREAM_BASE_URL: fake.url, ADMIN_EMAILS: ADMIN } });
    try {
      await setPrice('shared/model', 2, 2);
      await waitFor(() => other.instance.services.prices.priceOf('shared/model').pattern === 'shared/model', 2000);
      const { cost } = await costOfOneCall('shared/model', other);
      expect(cost).toBe((PROMPT + COMPLETION) * 2000n);
    } finally {
      await other.stop();
    }
  });
});
