// Price groups (issue 45, point 1): an operator's groups multiply the list prices, may carry their own price
// for some models and may restrict their accounts to some models; every billed /v1 route prices a request in
// its payer's group, GET /v1/models shows each caller its own prices and models, new accounts get the
// default group, a move between groups takes effect on the next request (on another instance too), and
// every change is audited.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { balanceNanoInDb, openaiClient, settleAll, START_NANO, unbalancedUsers, usageRows, waitFor } from '../helpers/gateway';
import { newOrganization } from '../helpers/organizations';
import { priceForGroup, type ModelPrice } from '../../src/pricing/prices';

setDefaultTimeout(30_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const ADMIN = uniqueEmail('groups-admin');
const messages = [{ role: 'user' as const, content: 'Привет!' }];
// The fake reports 12 prompt tokens and 7 completion tokens for this one message without a cap.
const PROMPT = 12n;
const COMPLETION = 7n;

let fake: FakeUpstream;
let app: TestApp;
let admin: { token: string; userId: string };

const adminCall = (method: string, path: string, body?: unknown, target = app) => call(target.url, method, path, { token: admin.token, body });

async function ok(res: Promise<{ status: number; text: string; body: any }>, status = 200) {
  const done = await res;
  if (done.status !== status) throw new Error(`expected ${status}, got ${done.status}: ${done.text}`);
  return done.body;
}

async function customerIn(group: string | null, target = app) {
  const user = await registerUser(target.url);
  if (group) await ok(adminCall('PUT', `/api/admin/users/${user.userId}/price-group`, { group }, target));
  const key = await createApiKey(target.url, user.token);
  return { ...user, key: key.key, client: openaiClient(target, key.key) };
}

async function onlyUsage(userId: string) {
  await settleAll(app);
  const rows = await usageRows(app, userId);
  expect(rows).toHaveLength(1);
  const row = rows[0] as unknown as { cost_nano: unknown; prompt_cost_nano: unknown; completion_cost_nano: unknown; model: string };
  return {
    model: row.model,
    cost: BigInt(String(row.cost_nano)),
    prompt: BigInt(String(row.prompt_cost_nano)),
    completion: BigInt(String(row.completion_cost_nano)),
  };
}

const chatRequests = () => fake.requests.filter((r) => r.path === '/v1/chat/completions');

beforeAll(async () => {
  fake = await startFakeUpstream();
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, ADMIN_EMAILS: ADMIN, MODELS_CACHE_SECONDS: '1' } });
  admin = await registerAdmin(app, ADMIN);
  // List prices: 1000 nano a prompt token and 2000 a completion token for acme/*, 3000 both ways for other/*.
  await ok(adminCall('PUT', '/api/admin/prices', { pattern: 'acme/*', promptPerMillion: 1, completionPerMillion: 2 }));
  await ok(adminCall('PUT', '/api/admin/prices', { pattern: 'other/*', promptPerMillion: 3, completionPerMillion: 3 }));
  // vip: half the list price, every model. partners: ×1.3, acme/* only, acme/large at its own price.
  await ok(adminCall('POST', '/api/admin/price-groups', { name: 'vip', title: 'VIP', multiplier: 0.5 }), 201);
  await ok(adminCall('POST', '/api/admin/price-groups', { name: 'partners', title: 'Партнёры', multiplier: 1.3, allowedModels: ['acme/*'] }), 201);
  await ok(adminCall('PUT', '/api/admin/price-groups/partners/prices', { pattern: 'acme/large', promptPerMillion: 0.3, completionPerMillion: 0.4 }));
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.reset();
  fake.models.push({ id: 'other/model', created: 1_700_000_200, owned_by: 'other' });
});

describe('one multiplier function', () => {
  test('scales every price field a list price has, each rounded up once; ×1 is the price itself', () => {
    const list: ModelPrice = {
      pattern: 'acme/*',
      promptNanoPerMillion: 1001n,
      completionNanoPerMillion: 3333n,
      perSecondNano: 7n,
      cachedPromptNanoPerMillion: 101n,
      cacheWriteNanoPerMillion: 1251n,
    };
    expect(priceForGroup(list, 333_333n)).toEqual({
      pattern: 'acme/*',
      promptNanoPerMillion: 334n,
      completionNanoPerMillion: 1111n,
      perSecondNano: 3n,
      cachedPromptNanoPerMillion: 34n,
      cacheWriteNanoPerMillion: 417n,
    });
    expect(priceForGroup(list, 1_000_000n)).toBe(list);
    expect(priceForGroup({ pattern: null, promptNanoPerMillion: 125_000_000n, completionNanoPerMillion: 125_000_000n }, 0n)).toEqual({
      pattern: null,
      promptNanoPerMillion: 0n,
      completionNanoPerMillion: 0n,
    });
  });
});

describe('two accounts in different groups', () => {
  test('pay different prices for one model, exact to the nano-unit, in usage and in the balance', async () => {
    const plain = await customerIn(null);
    const vip = await customerIn('vip');
    const a = await plain.client.chat.completions.create({ model: 'acme/chat', messages });
    const b = await vip.client.chat.completions.create({ model: 'acme/chat', messages });
    expect(a.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7 });
    expect(b.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7 });

    const listCost = PROMPT * 1000n + COMPLETION * 2000n;
    const vipCost = PROMPT * 500n + COMPLETION * 1000n;
    expect(await onlyUsage(plain.userId)).toEqual({ model: 'acme/chat', cost: listCost, prompt: PROMPT * 1000n, completion: COMPLETION * 2000n });
    expect(await onlyUsage(vip.userId)).toEqual({ model: 'acme/chat', cost: vipCost, prompt: PROMPT * 500n, completion: COMPLETION * 1000n });
    expect(await balanceNanoInDb(app, plain.userId)).toBe(START_NANO - listCost);
    expect(await balanceNanoInDb(app, vip.userId)).toBe(START_NANO - vipCost);
    // What each sees: the answer's cost and the usage page.
    expect((a.usage as unknown as { cost: number }).cost).toBe(Number(listCost) / 1e9);
    expect((b.usage as unknown as { cost: number }).cost).toBe(Number(vipCost) / 1e9);
    const usage = await call(app.url, 'GET', '/api/usage', { token: vip.token });
    expect(usage.body.data[0]).toMatchObject({ model: 'acme/chat', cost: Number(vipCost) / 1e9 });
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('a multiplier that does not land on a whole nano-unit rounds each price up once', async () => {
    await ok(adminCall('PUT', '/api/admin/prices', { pattern: 'odd/model', promptPerMillion: 0.000001001, completionPerMillion: 0.000003333 }));
    await ok(adminCall('POST', '/api/admin/price-groups', { name: 'third', title: 'Треть', multiplier: 0.333333 }), 201);
    const user = await customerIn('third');
    await user.client.chat.completions.create({ model: 'odd/model', messages });
    // 1001 × 0.333333 = 333.666… → 334 nano per 1M prompt tokens; 3333 × 0.333333 = 1110.998… → 1111.
    // 12 × 334 + 7 × 1111 = 11785 per 1M tokens → 1 nano-unit for the request (rounded up once).
    expect((await onlyUsage(user.userId)).cost).toBe(1n);
    fake.models.push({ id: 'odd/model', created: 1_700_000_300, owned_by: 'odd' });
    await waitFor(async () => (await call(app.url, 'GET', '/v1/models/odd%2Fmodel', { token: user.key })).status === 200);
    const listed = await call(app.url, 'GET', '/v1/models/odd%2Fmodel', { token: user.key });
    expect(listed.body.pricing).toEqual({
      prompt: '0.000000000000334',
      completion: '0.000000000001111',
      // The cache prices derive from the list row (1001 × 0.1 → 101, × 1.25 → 1252), then take the multiplier: 34 and 418.
      input_cache_read: '0.000000000000034',
      input_cache_write: '0.000000000000418',
    });
  });

  test('a group’s own price beats list price × multiplier; other models of the group pay the multiplier', async () => {
    const partner = await customerIn('partners');
    await partner.client.chat.completions.create({ model: 'acme/large', messages });
    expect((await onlyUsage(partner.userId)).cost).toBe(PROMPT * 300n + COMPLETION * 400n);
    const other = await customerIn('partners');
    await other.client.chat.completions.create({ model: 'acme/chat', messages });
    expect((await onlyUsage(other.userId)).cost).toBe(PROMPT * 1300n + COMPLETION * 2600n);
  });

  test('a model outside the group’s list is 403 model_not_allowed on every billed route: nothing reserved, charged or sent', async () => {
    const partner = await customerIn('partners');
    const refused = await partner.client.chat.completions.create({ model: 'other/model', messages }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 403, code: 'model_not_allowed', type: 'forbidden', param: 'model' });
    expect((refused as Error).message).toContain('other/model');
    expect((refused as Error).message).toMatch(/недоступна для вашей учётной записи/);
    const streamed = await partner.client.chat.completions.create({ model: 'Other/Model', messages, stream: true }).catch((e: unknown) => e);
    expect(streamed).toMatchObject({ status: 403, code: 'model_not_allowed' });
    const embedded = await partner.client.embeddings.create({ model: 'other/model', input: 'привет' }).catch((e: unknown) => e);
    expect(embedded).toMatchObject({ status: 403, code: 'model_not_allowed' });
    const responded = await partner.client.responses.create({ model: 'other/model', input: 'привет' }).catch((e: unknown) => e);
    expect(responded).toMatchObject({ status: 403, code: 'model_not_allowed' });
    const anthropic = await call(app.url, 'POST', '/v1/messages', {
      headers: { 'x-api-key': partner.key, 'anthropic-version': '2023-06-01' },
      body: { model: 'other/model', max_tokens: 16, messages: [{ role: 'user', content: 'Привет' }] },
    });
    expect(anthropic.status).toBe(403);
    expect(anthropic.body).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
    // The cached path asks the same question first.
    const cached = await call(app.url, 'POST', '/v1/chat/completions', {
      token: partner.key,
      headers: { 'x-conduit-cache': 'on' },
      body: { model: 'other/model', messages },
    });
    expect(cached.status).toBe(403);
    expect(cached.body.error.code).toBe('model_not_allowed');

    expect(fake.requests.filter((r) => r.method === 'POST')).toEqual([]);
    await settleAll(app);
    expect(await usageRows(app, partner.userId)).toEqual([]);
    expect(await balanceNanoInDb(app, partner.userId)).toBe(START_NANO);
    const leased = await app.sql('select 1 from balance_leases where user_id = $1 and amount_nano <> 0', [partner.userId]);
    expect(leased).toEqual([]);
    // The group's own models still work.
    expect((await partner.client.chat.completions.create({ model: 'acme/chat', messages })).object).toBe('chat.completion');
    expect(chatRequests()).toHaveLength(1);
  });
});

describe('GET /v1/models', () => {
  const pricing = (body: any, id: string) => (body.data as { id: string; pricing: unknown }[]).find((m) => m.id === id)?.pricing;

  test('with a key: that account’s prices and only its group’s models; without one: the default group’s', async () => {
    const anonymous = await call(app.url, 'GET', '/v1/models');
    expect(anonymous.body.data.map((m: { id: string }) => m.id)).toEqual(expect.arrayContaining(['acme/chat', 'acme/large', 'other/model']));
    expect(pricing(anonymous.body, 'acme/chat')).toEqual({
      prompt: '0.000001',
      completion: '0.000002',
      input_cache_read: '0.0000001',
      input_cache_write: '0.00000125',
    });

    const vip = await customerIn('vip');
    const vipList = (await vip.client.models.list()).data as unknown as { id: string; pricing: unknown }[];
    expect(vipList.map((m) => m.id)).toEqual(expect.arrayContaining(['acme/chat', 'acme/large', 'other/model']));
    expect(vipList.find((m) => m.id === 'acme/chat')?.pricing).toEqual({
      prompt: '0.0000005',
      completion: '0.000001',
      input_cache_read: '0.00000005',
      input_cache_write: '0.000000625',
    });

    const partner = await customerIn('partners');
    const partnerList = await call(app.url, 'GET', '/v1/models', { token: partner.key });
    expect(partnerList.body.data.map((m: { id: string }) => m.id)).toEqual(['acme/chat', 'acme/large']);
    expect(pricing(partnerList.body, 'acme/large')).toEqual({
      prompt: '0.0000003',
      completion: '0.0000004',
      input_cache_read: '0.00000003',
      input_cache_write: '0.000000375',
    });
    expect(pricing(partnerList.body, 'acme/chat')).toEqual({
      prompt: '0.0000013',
      completion: '0.0000026',
      input_cache_read: '0.00000013',
      input_cache_write: '0.000001625',
    });
    expect((await call(app.url, 'GET', '/v1/models/other%2Fmodel', { token: partner.key })).status).toBe(404);
    expect((await call(app.url, 'GET', '/v1/models/other%2Fmodel')).status).toBe(200);

    // The dashboard's session (JWT) sees the same as the account's key; a key that does not work sees the default's.
    const viaJwt = await call(app.url, 'GET', '/v1/models', { token: partner.token });
    expect(viaJwt.body.data.map((m: { id: string }) => m.id)).toEqual(['acme/chat', 'acme/large']);
    const wrong = await call(app.url, 'GET', '/v1/models', { token: `${partner.key.slice(0, -4)}zzzz` });
    expect(wrong.status).toBe(200);
    expect(wrong.body.data.map((m: { id: string }) => m.id)).toContain('other/model');
  });

  test('a move shows the new group’s prices at once', async () => {
    const user = await customerIn(null);
    expect(pricing((await call(app.url, 'GET', '/v1/models', { token: user.key })).body, 'acme/chat')).toEqual({
      prompt: '0.000001',
      completion: '0.000002',
      input_cache_read: '0.0000001',
      input_cache_write: '0.00000125',
    });
    await ok(adminCall('PUT', `/api/admin/users/${user.userId}/price-group`, { group: 'vip' }));
    expect(pricing((await call(app.url, 'GET', '/v1/models', { token: user.key })).body, 'acme/chat')).toEqual({
      prompt: '0.0000005',
      completion: '0.000001',
      input_cache_read: '0.00000005',
      input_cache_write: '0.000000625',
    });
  });
});

describe('the console', () => {
  test('new accounts and organisations get the default group; the default moves, never disappears', async () => {
    const before = await registerUser(app.url);
    expect((await ok(adminCall('GET', `/api/admin/users/${before.userId}`))).user.priceGroup).toBe('base');
    await ok(adminCall('PATCH', '/api/admin/price-groups/vip', { isDefault: true }));
    try {
      const after = await registerUser(app.url);
      expect((await ok(adminCall('GET', `/api/admin/users/${after.userId}`))).user.priceGroup).toBe('vip');
      const { org } = await newOrganization(app, 'ООО «Группа»');
      expect((await ok(adminCall('GET', `/api/admin/users/${org.id}`))).user).toMatchObject({ kind: 'organization', priceGroup: 'vip' });
      // Anonymous visitors see the default group's prices.
      const anonymous = await call(app.url, 'GET', '/v1/models');
      expect(anonymous.body.data.find((m: { id: string }) => m.id === 'acme/chat').pricing).toEqual({
        prompt: '0.0000005',
        completion: '0.000001',
        input_cache_read: '0.00000005',
        input_cache_write: '0.000000625',
      });
      const groups = (await ok(adminCall('GET', '/api/admin/price-groups'))).groups as { name: string; isDefault: boolean }[];
      expect(groups.filter((g) => g.isDefault).map((g) => g.name)).toEqual(['vip']);
      // The default cannot be unset or deleted; it moves by naming another.
      expect((await adminCall('PATCH', '/api/admin/price-groups/vip', { isDefault: false })).status).toBe(400);
      expect((await adminCall('DELETE', '/api/admin/price-groups/vip')).status).toBe(409);
    } finally {
      await ok(adminCall('PATCH', '/api/admin/price-groups/base', { isDefault: true }));
    }
    const list = await call(app.url, 'GET', '/api/admin/users?limit=5', { token: admin.token });
    expect(list.body.data[0]).toHaveProperty('priceGroup');
  });

  test('bad input is 400, an unknown group 404, a group with accounts 409, a non-admin 403', async () => {
    const bad = async (method: string, path: string, body: unknown) => {
      const res = await adminCall(method, path, body);
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
      expect(res.body.error.message).toMatch(/[А-Яа-яЁё]/);
    };
    await bad('POST', '/api/admin/price-groups', { name: 'Bad Name', title: 'x' });
    await bad('POST', '/api/admin/price-groups', { name: 'neg', title: 'x', multiplier: -1 });
    await bad('POST', '/api/admin/price-groups', { name: 'fine', title: 'x', multiplier: 0.0000001 });
    await bad('POST', '/api/admin/price-groups', { name: 'fine', title: '' });
    await bad('POST', '/api/admin/price-groups', { name: 'fine', title: 'x', allowedModels: ['not a model'] });
    await bad('PUT', '/api/admin/price-groups/vip/prices', { pattern: 'acme/*', promptPerMillion: -1, completionPerMillion: 1 });
    expect((await adminCall('POST', '/api/admin/price-groups', { name: 'vip', title: 'Ещё раз' })).status).toBe(409);

    for (const [method, path, body] of [
      ['GET', '/api/admin/price-groups/nobody', undefined],
      ['PATCH', '/api/admin/price-groups/nobody', { title: 'x' }],
      ['DELETE', '/api/admin/price-groups/nobody', undefined],
      ['PUT', '/api/admin/price-groups/nobody/prices', { pattern: 'acme/*', promptPerMillion: 1, completionPerMillion: 1 }],
      ['DELETE', '/api/admin/price-groups/vip/prices?pattern=none%2F*', undefined],
    ] as const) {
      const res = await adminCall(method, path, body);
      expect(res.status).toBe(404);
      expect(res.body.error.type).toBe('not_found');
    }
    const user = await registerUser(app.url);
    expect((await adminCall('PUT', `/api/admin/users/${user.userId}/price-group`, { group: 'nobody' })).status).toBe(404);
    expect((await adminCall('PUT', '/api/admin/users/00000000-0000-4000-8000-000000000000/price-group', { group: 'vip' })).status).toBe(404);

    await ok(adminCall('POST', '/api/admin/price-groups', { name: 'busy', title: 'Занятая' }), 201);
    await ok(adminCall('PUT', `/api/admin/users/${user.userId}/price-group`, { group: 'busy' }));
    const busy = await adminCall('DELETE', '/api/admin/price-groups/busy');
    expect(busy.status).toBe(409);
    expect(busy.body.error.message).toContain('1 пользователь');
    await ok(adminCall('PUT', `/api/admin/users/${user.userId}/price-group`, { group: 'base' }));
    await ok(adminCall('DELETE', '/api/admin/price-groups/busy'));
    expect((await adminCall('GET', '/api/admin/price-groups/busy')).status).toBe(404);

    for (const [method, path, body] of [
      ['GET', '/api/admin/price-groups', undefined],
      ['POST', '/api/admin/price-groups', { name: 'mine', title: 'Моя' }],
      ['PUT', `/api/admin/users/${user.userId}/price-group`, { group: 'vip' }],
    ] as const) {
      expect((await call(app.url, method, path, { token: user.token, body })).status).toBe(403);
    }
    expect((await ok(adminCall('GET', `/api/admin/users/${user.userId}`))).user.priceGroup).toBe('base');
  });

  test('every change is in the audit, in Russian, with before and after', async () => {
    await ok(adminCall('POST', '/api/admin/price-groups', { name: 'audited', title: 'Проверка', multiplier: 2, allowedModels: ['acme/*'] }), 201);
    await ok(adminCall('PATCH', '/api/admin/price-groups/audited', { multiplier: 1.25, allowedModels: null }));
    await ok(adminCall('PUT', '/api/admin/price-groups/audited/prices', { pattern: 'acme/chat', promptPerMillion: 0.5, completionPerMillion: 0.5 }));
    await ok(adminCall('DELETE', '/api/admin/price-groups/audited/prices?pattern=acme%2Fchat'));
    const user = await registerUser(app.url);
    await ok(adminCall('PUT', `/api/admin/users/${user.userId}/price-group`, { group: 'audited' }));
    // The same move again changes nothing and writes nothing.
    await ok(adminCall('PUT', `/api/admin/users/${user.userId}/price-group`, { group: 'audited' }));

    const rows = (await ok(adminCall('GET', '/api/admin/audit?limit=100&targetId=audited'))).data as any[];
    expect(rows.map((r) => r.action).reverse()).toEqual(['price_group.create', 'price_group.update', 'price_group.price_upsert', 'price_group.price_delete']);
    const update = rows.find((r) => r.action === 'price_group.update');
    expect(update).toMatchObject({
      actionText: 'Группа цен изменена',
      targetText: 'Группа цен audited',
      before: { multiplier: '2', allowedModels: ['acme/*'] },
      after: { multiplier: '1.25', allowedModels: null },
    });
    expect(update.changes.map((c: { text: string }) => c.text)).toEqual(expect.arrayContaining(['множитель: 2 → 1.25', 'доступные модели: acme/* → все модели']));

    const moves = (await ok(adminCall('GET', `/api/admin/audit?limit=100&targetId=${user.userId}&action=user.price_group`))).data as any[];
    expect(moves).toHaveLength(1);
    expect(moves[0]).toMatchObject({ before: { priceGroup: 'base' }, after: { priceGroup: 'audited' }, targetText: `Пользователь ${user.email}` });
    expect(moves[0].changes.map((c: { text: string }) => c.text)).toEqual(['группа цен: base → audited']);
  });
});

describe('two instances on one database', () => {
  test.skipIf(!onPostgres)('a move on one instance prices the next request on the other; a new group is known there at once', async () => {
    const other = await startTestApp({ database: app.database, env: { UPSTREAM_BASE_URL: fake.url, ADMIN_EMAILS: ADMIN } });
    try {
      const user = await customerIn(null);
      const client = openaiClient(other, user.key);
      // The other instance has the key (and its group) cached.
      await client.chat.completions.create({ model: 'acme/chat', messages });
      await ok(adminCall('POST', '/api/admin/price-groups', { name: 'moved', title: 'Переведённые', multiplier: 2, allowedModels: ['acme/large'] }), 201);
      await ok(adminCall('PUT', `/api/admin/users/${user.userId}/price-group`, { group: 'moved' }));
      let status = 0;
      await waitFor(
        async () => {
          status =
            ((await client.chat.completions.create({ model: 'acme/chat', messages }).catch((e: { status: number }) => e)) as { status?: number }).status ?? 200;
          return status === 403;
        },
        5000,
        50,
      );
      expect(status).toBe(403);
      await client.chat.completions.create({ model: 'acme/large', messages });
      await other.instance.services.billing.returnIdleLeases(true);
      await other.instance.services.billing.flush();
      await settleAll(app);
      // Every request before the move reached the other instance paid the list price; the one after, ×2.
      const rows = (await usageRows(app, user.userId)) as unknown as { model: string; status: string; cost_nano: unknown }[];
      const paid = rows.filter((r) => r.status === 'ok').map((r) => [r.model, BigInt(String(r.cost_nano))]);
      expect(paid.at(-1)).toEqual(['acme/large', PROMPT * 2000n + COMPLETION * 4000n]);
      expect(new Set(paid.slice(0, -1).map(([model, cost]) => `${model} ${cost}`))).toEqual(new Set([`acme/chat ${PROMPT * 1000n + COMPLETION * 2000n}`]));
      expect(await unbalancedUsers(app)).toEqual([]);
    } finally {
      await other.stop();
    }
  });
});
