// One model id, one price (issue 38, row 4): a model id is priced, routed and sent upstream the same way
// whatever its letter case, a `:suffix` variant of a model priced by its own row is refused unless the
// variant has a row of its own, and UNPRICED_MODELS=refuse refuses what no row prices. Before, a case
// variant or `:nitro` of a priced model went upstream as sent and was billed at the default TOKEN_PRICE.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { settleAll, unbalancedUsers, usageRows } from '../helpers/gateway';
import { chatCalls } from '../helpers/routing';

setDefaultTimeout(30_000);

const ADMIN = uniqueEmail('model-id-admin');
const messages = [{ role: 'user' as const, content: 'Привет!' }];
// The fake reports 12 prompt tokens and 7 completion tokens for one user message without a cap.
const PROMPT = 12n;
const COMPLETION = 7n;

let fake: FakeUpstream;
let app: TestApp;
let admin: string;

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.models.push(
    { id: 'openai/gpt-4o-mini', created: 1_700_000_200, owned_by: 'openai' },
    { id: 'openai/gpt-4o-mini:free', created: 1_700_000_300, owned_by: 'openai' },
    { id: 'listed/model', created: 1_700_000_400, owned_by: 'listed' },
  );
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, ADMIN_EMAILS: ADMIN } });
  admin = (await registerAdmin(app, ADMIN)).token;
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});
beforeEach(() => fake.requests.splice(0));

async function setPrice(pattern: string, promptPerMillion: number, completionPerMillion: number, target = app, token = admin) {
  const res = await call(target.url, 'PUT', '/api/admin/prices', { token, body: { pattern, promptPerMillion, completionPerMillion } });
  if (res.status !== 200) throw new Error(`price not saved: ${res.status} ${res.text}`);
}

async function customer(target = app) {
  const user = await registerUser(target.url);
  const { key } = await createApiKey(target.url, user.token);
  return { ...user, key };
}

const chat = (target: TestApp, key: string, model: string) => call(target.url, 'POST', '/v1/chat/completions', { token: key, body: { model, messages } });

async function onlyRow(target: TestApp, userId: string) {
  await settleAll(target);
  const rows = (await usageRows(target, userId)) as unknown as { model: string; cost_nano: unknown; status: string }[];
  expect(rows).toHaveLength(1);
  return { ...rows[0]!, cost: BigInt(String(rows[0]!.cost_nano)) };
}

describe('one model id, one price', () => {
  test('a priced model is 402 for a poor account whatever its letter case; nothing goes upstream', async () => {
    // 1,000 / 4,000 per 1M tokens: the completion cap alone costs more than a new account's bonus.
    await setPrice('openai/gpt-4o-mini', 1000, 4000);
    const user = await customer();
    for (const model of ['openai/gpt-4o-mini', 'openai/GPT-4o-mini', 'OPENAI/GPT-4O-MINI']) {
      const res = await chat(app, user.key, model);
      expect({ model, status: res.status, type: res.body.error?.type }).toEqual({ model, status: 402, type: 'insufficient_balance' });
    }
    expect(chatCalls(fake)).toHaveLength(0);
  });

  test('a case variant is billed at the model’s price and sent upstream as the priced id', async () => {
    await setPrice('acme/Mixed-Case', 2, 3); // 2,000 and 3,000 nano per token
    const user = await customer();
    const res = await chat(app, user.key, 'ACME/mixed-case');
    expect(res.status).toBe(200);
    expect(chatCalls(fake).map((r) => r.body.model)).toEqual(['acme/Mixed-Case']);
    const row = await onlyRow(app, user.userId);
    expect(row.model).toBe('acme/Mixed-Case');
    expect(row.cost).toBe(PROMPT * 2000n + COMPLETION * 3000n);
  });

  test('a :suffix variant of a model priced by its own row is refused with 400 model_not_found, never billed at the default', async () => {
    await setPrice('openai/gpt-4o-mini', 1000, 4000);
    const user = await customer();
    for (const model of ['openai/gpt-4o-mini:nitro', 'openai/GPT-4o-mini:floor', 'openai/gpt-4o-mini:free']) {
      const res = await chat(app, user.key, model);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
      expect(res.body.error.message).toContain('openai/gpt-4o-mini');
    }
    // Embeddings and responses price the same way.
    const embedded = await call(app.url, 'POST', '/v1/embeddings', { token: user.key, body: { model: 'openai/gpt-4o-mini:nitro', input: 'текст' } });
    expect(embedded.status).toBe(400);
    expect(embedded.body.error.code).toBe('model_not_found');
    const responded = await call(app.url, 'POST', '/v1/responses', { token: user.key, body: { model: 'openai/gpt-4o-mini:nitro', input: 'Привет' } });
    expect(responded.status).toBe(400);
    expect(responded.body.error.code).toBe('model_not_found');
    expect(fake.requests).toHaveLength(0);
  });

  test('GET /v1/models lists what may be asked for: not a variant refused for want of its own price', async () => {
    await setPrice('openai/gpt-4o-mini', 1000, 4000);
    const ids = (await call(app.url, 'GET', '/v1/models')).body.data.map((m: { id: string }) => m.id);
    expect(ids).toContain('openai/gpt-4o-mini');
    expect(ids).toContain('acme/chat');
    expect(ids).not.toContain('openai/gpt-4o-mini:free');
    expect((await call(app.url, 'GET', '/v1/models/openai/gpt-4o-mini:free')).status).toBe(404);
    expect((await call(app.url, 'GET', '/v1/models/openai/gpt-4o-mini')).status).toBe(200);
  });

  test('a variant with a price of its own (exact, or a prefix past its base) is served at that price, sent as asked', async () => {
    await setPrice('acme/base', 1000, 4000);
    await setPrice('acme/base:cheap', 1, 1);
    await setPrice('acme/base:bulk*', 0.5, 0.5);
    const first = await customer();
    expect((await chat(app, first.key, 'acme/BASE:cheap')).status).toBe(200);
    expect((await onlyRow(app, first.userId)).cost).toBe((PROMPT + COMPLETION) * 1000n);
    const second = await customer();
    expect((await chat(app, second.key, 'acme/base:bulk-eu')).status).toBe(200);
    expect((await onlyRow(app, second.userId)).cost).toBe((PROMPT + COMPLETION) * 500n);
    expect(chatCalls(fake).map((r) => r.body.model)).toEqual(['acme/base:cheap', 'acme/base:bulk-eu']);
  });

  test('a variant of a model priced only by a prefix row costs what the model costs, and a model of no row the default', async () => {
    await setPrice('widget/*', 1, 2);
    const user = await customer();
    expect((await chat(app, user.key, 'WIDGET/small:nitro')).status).toBe(200);
    expect((await onlyRow(app, user.userId)).cost).toBe(PROMPT * 1000n + COMPLETION * 2000n);
    const other = await customer();
    expect((await chat(app, other.key, 'nobody/unlisted')).status).toBe(200);
    expect((await onlyRow(app, other.userId)).cost).toBe((PROMPT + COMPLETION) * 125n);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('a route for a model catches its case and :suffix variants', async () => {
    const routed = await startFakeUpstream();
    try {
      const created = await call(app.url, 'POST', '/api/admin/providers', { token: admin, body: { name: 'routed', baseUrl: routed.url } });
      expect(created.status).toBe(201);
      const saved = await call(app.url, 'PUT', '/api/admin/routes', { token: admin, body: { pattern: 'routed/model', targets: [{ providerId: created.body.id }] } });
      expect(saved.status).toBe(200);
      await setPrice('routed/model', 1, 1);
      await setPrice('routed/model:fast', 1, 1);
      const user = await customer();
      expect((await chat(app, user.key, 'Routed/Model')).status).toBe(200);
      expect((await chat(app, user.key, 'routed/model:fast')).status).toBe(200);
      expect(chatCalls(routed).map((r) => r.body.model)).toEqual(['routed/model', 'routed/model:fast']);
      expect(chatCalls(fake)).toHaveLength(0);
    } finally {
      await routed.close();
    }
  });
});

describe('UNPRICED_MODELS=refuse', () => {
  test('a model no row prices is refused with 400 model_not_found; a priced one is served', async () => {
    const strict = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, ADMIN_EMAILS: ADMIN, UNPRICED_MODELS: 'refuse' } });
    try {
      const token = (await registerAdmin(strict, ADMIN)).token;
      await setPrice('listed/model', 1, 1, strict, token);
      const user = await customer(strict);
      const refused = await chat(strict, user.key, 'unlisted/model');
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
      expect(refused.body.error.message).toContain('unlisted/model');
      const embedded = await call(strict.url, 'POST', '/v1/embeddings', { token: user.key, body: { model: 'unlisted/model', input: 'текст' } });
      expect(embedded.status).toBe(400);
      expect(fake.requests).toHaveLength(0);
      expect((await chat(strict, user.key, 'Listed/Model')).status).toBe(200);
      expect(chatCalls(fake).map((r) => r.body.model)).toEqual(['listed/model']);
      // The catalog lists only what is priced.
      const ids = (await call(strict.url, 'GET', '/v1/models')).body.data.map((m: { id: string }) => m.id);
      expect(ids).toEqual(['listed/model']);
      expect((await call(strict.url, 'GET', '/v1/models/acme/chat')).status).toBe(404);
    } finally {
      await strict.close();
    }
  });
});
