// Per-key spend limits and expiry: set on creation or with PATCH /api/keys/:id, shown in the listing with
// the spend of the current period, enforced on /v1 (402 naming the limit; 401 once expired) under
// concurrency and across instances, with the same lease mechanism as the balance.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { openaiClient, setBalanceNano, settleAll, unbalancedUsers, usageRows } from '../helpers/gateway';

setDefaultTimeout(30_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const messages = [{ role: 'user' as const, content: 'Привет!' }];
/** What the fake reports for one such request with max_tokens 5: 12 prompt + 5 completion tokens at 125. */
const ONE_REQUEST = 17 * 125e-9;

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

async function keyWith(token: string, body: Record<string, unknown>, target: TestApp = app) {
  const res = await call(target.url, 'POST', '/api/keys', { token, body: { name: 'limited', ...body } });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${res.text}`);
  return res.body as { id: string; key: string; spendLimit: number | null; limitReset: string; expiresAt: string | null };
}

const ask = (client: ReturnType<typeof openaiClient>) => client.chat.completions.create({ model: 'acme/chat', messages, max_tokens: 5 }).catch((e) => e);

describe('setting limits', () => {
  test('creation takes spendLimit, limitReset and expiresAt; the listing shows them with the period’s spend', async () => {
    const { token } = await registerUser(app.url);
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const key = await keyWith(token, { spendLimit: 1.5, limitReset: 'day', expiresAt });
    expect(key).toMatchObject({ spendLimit: 1.5, limitReset: 'day', expiresAt });
    await ask(openaiClient(app, key.key));
    await settleAll(app);
    const list = await call(app.url, 'GET', '/api/keys', { token });
    const listed = list.body.keys[0];
    const now = new Date();
    expect(listed).toMatchObject({ spendLimit: 1.5, limitReset: 'day', expiresAt, expired: false });
    expect(listed.periodStart).toBe(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString());
    expect(listed.spentThisPeriod).toBeCloseTo(ONE_REQUEST, 12);
  });

  test('bad limits are refused with Russian messages: negative, too precise, an unknown period, a past expiry', async () => {
    const { token } = await registerUser(app.url);
    for (const body of [{ spendLimit: -1 }, { spendLimit: 0.0000000001 }, { limitReset: 'year' }, { expiresAt: '2000-01-01T00:00:00Z' }, { expiresAt: 'tomorrow' }]) {
      const res = await call(app.url, 'POST', '/api/keys', { token, body: { name: 'x', ...body } });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
      expect(res.body.error.message).toMatch(/[А-Яа-я]/);
    }
  });

  test('PATCH changes the name and limits, null removes them; another user’s key is 404', async () => {
    const owner = await registerUser(app.url);
    const stranger = await registerUser(app.url);
    const key = await keyWith(owner.token, { spendLimit: 2 });
    const patched = await call(app.url, 'PATCH', `/api/keys/${key.id}`, {
      token: owner.token,
      body: { name: 'renamed', spendLimit: 3, limitReset: 'month' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'renamed', spendLimit: 3, limitReset: 'month' });
    const cleared = await call(app.url, 'PATCH', `/api/keys/${key.id}`, { token: owner.token, body: { spendLimit: null } });
    expect(cleared.body.spendLimit).toBeNull();
    const foreign = await call(app.url, 'PATCH', `/api/keys/${key.id}`, { token: stranger.token, body: { spendLimit: 1 } });
    expect(foreign.status).toBe(404);
    const notJson = await call(app.url, 'PATCH', `/api/keys/${key.id}`, { token: owner.token, body: { spendLimit: 'lots' } });
    expect(notJson.status).toBe(400);
  });
});

describe('enforcing limits on /v1', () => {
  test('a key over its limit gets 402 naming the limit; the owner’s other keys and raising the limit serve again', async () => {
    const { token } = await registerUser(app.url);
    const limited = await keyWith(token, { spendLimit: 0.00001, limitReset: 'week' });
    const free = await keyWith(token, {});
    const client = openaiClient(app, limited.key);
    let served = 0;
    let refused: any = null;
    for (let i = 0; i < 10 && !refused; i++) {
      const res = await ask(client);
      if (res.object === 'chat.completion') served++;
      else refused = res;
    }
    expect(served).toBeGreaterThanOrEqual(1);
    expect(served).toBeLessThanOrEqual(4); // 0.00001 / 0.000002125 = 4.7 requests
    expect(refused.status).toBe(402);
    expect(refused.error?.type ?? refused.type).toBe('insufficient_balance');
    expect(refused.message).toContain('0,00001\u00a0₽ в неделю');
    expect((await ask(openaiClient(app, free.key))).object).toBe('chat.completion');

    await settleAll(app);
    const listed = (await call(app.url, 'GET', '/api/keys', { token })).body.keys.find((k: any) => k.id === limited.id);
    expect(listed.spentThisPeriod).toBeLessThanOrEqual(0.00001);

    await call(app.url, 'PATCH', `/api/keys/${limited.id}`, { token, body: { spendLimit: 1 } });
    expect((await ask(client)).object).toBe('chat.completion');
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('40 parallel requests against a limit worth ten serve at most ten', async () => {
    const { token } = await registerUser(app.url);
    const key = await keyWith(token, { spendLimit: Number((10 * ONE_REQUEST).toFixed(9)) });
    const client = openaiClient(app, key.key);
    const results = await Promise.all(Array.from({ length: 40 }, () => ask(client)));
    const served = results.filter((r) => r.object === 'chat.completion').length;
    expect(served).toBeGreaterThanOrEqual(1);
    expect(served).toBeLessThanOrEqual(10);
    expect(results.filter((r) => r.status === 402)).toHaveLength(40 - served);
  });

  test.skipIf(!onPostgres)('the limit holds across two instances on one database', async () => {
    const other = await startTestApp({ database: app.database, env: { UPSTREAM_BASE_URL: fake.url } });
    try {
      const { token } = await registerUser(app.url);
      const key = await keyWith(token, { spendLimit: Number((10 * ONE_REQUEST).toFixed(9)) });
      const clients = [openaiClient(app, key.key), openaiClient(other, key.key)];
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => ask(clients[i % 2]!)));
      const served = results.filter((r) => r.object === 'chat.completion').length;
      expect(served).toBeGreaterThanOrEqual(1);
      expect(served).toBeLessThanOrEqual(10);
      // And again once every claim went back: what was spent plus what is left is the limit.
      await settleAll(app);
      await settleAll(other);
      const listed = (await call(app.url, 'GET', '/api/keys', { token })).body.keys[0];
      expect(listed.spentThisPeriod).toBeCloseTo(served * ONE_REQUEST, 12);
      const [row] = await app.sql<{ budget: string }>('select budget_nano::text as budget from api_keys where id = $1', [key.id]);
      expect(BigInt(row!.budget)).toBe(BigInt(Math.round((10 - served) * 17 * 125)));
    } finally {
      await other.stop();
    }
  });

  test('an expired key gets 401 at once, on /v1 and on the account views', async () => {
    const { token } = await registerUser(app.url);
    const key = await keyWith(token, { expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    const client = openaiClient(app, key.key);
    expect((await ask(client)).object).toBe('chat.completion');
    const past = new Date(Date.now() - 1000).toISOString();
    expect((await call(app.url, 'PATCH', `/api/keys/${key.id}`, { token, body: { expiresAt: past } })).status).toBe(200);
    const refused = await ask(client);
    expect(refused.status).toBe(401);
    expect(refused.error?.type ?? refused.type).toBe('unauthorized');
    const balance = await call(app.url, 'GET', '/api/balance', { headers: { authorization: `Bearer ${key.key}` } });
    expect(balance.status).toBe(401);
    const listed = (await call(app.url, 'GET', '/api/keys', { token })).body.keys[0];
    expect(listed.expired).toBe(true);
  });
});

describe('limits the owner can see', () => {
  test('a call refused for the key’s limit is a usage row of no tokens and no cost, found by the key filter; the key says its limit is used up until it is raised', async () => {
    const { token, userId } = await registerUser(app.url);
    const limited = await keyWith(token, { spendLimit: 0.00001, limitReset: 'day' });
    const client = openaiClient(app, limited.key);
    let served = 0;
    let refused: any = null;
    for (let i = 0; i < 10 && !refused; i++) {
      const res = await ask(client);
      if (res.object === 'chat.completion') served++;
      else refused = res;
    }
    expect(refused.status).toBe(402);
    await settleAll(app);

    const rows = await usageRows(app, userId);
    expect(rows).toHaveLength(served + 1);
    const row = rows.at(-1)!;
    expect(row).toMatchObject({
      status: 'refused_key_limit',
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      usage_source: 'none',
      model: 'acme/chat',
      api_key_id: limited.id,
    });
    expect(BigInt(row.cost_nano as string)).toBe(0n);
    expect(fake.requests).toHaveLength(served);

    // The key filter finds it, and the totals over the filter (from the rollups) count it with no cost.
    const usage = await call(app.url, 'GET', `/api/usage?keyId=${limited.id}&limit=100`, { token });
    expect(usage.status).toBe(200);
    expect(usage.body.data[0]).toMatchObject({ status: 'refused_key_limit', promptTokens: 0, completionTokens: 0, cost: 0, keyId: limited.id });
    expect(usage.body.totals.requests).toBe(served + 1);
    expect(usage.body.totals.cost).toBeCloseTo(served * ONE_REQUEST, 12);
    const [sums] = await app.sql<{ requests: string; failed: string; cost: string }>(
      `select sum(requests)::text as requests, sum(failed_requests)::text as failed, sum(cost_nano)::text as cost
       from usage_rollups_daily where api_key_id = $1`,
      [limited.id],
    );
    expect(sums).toEqual({ requests: String(served + 1), failed: '1', cost: String(served * 17 * 125) });
    // The CSV export has it too, with its status and a cost of zero.
    const csv = await fetch(`${app.url}/api/usage/export?keyId=${limited.id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(csv.status).toBe(200);
    const lines = (await csv.text()).trim().split(/\r?\n/);
    expect(lines).toHaveLength(served + 2);
    expect(lines.filter((l) => l.includes('refused_key_limit'))).toHaveLength(1);

    const listed = async () => (await call(app.url, 'GET', '/api/keys', { token })).body.keys.find((k: any) => k.id === limited.id);
    expect((await listed()).limitReached).toBe(true);
    await call(app.url, 'PATCH', `/api/keys/${limited.id}`, { token, body: { spendLimit: 1 } });
    expect((await listed()).limitReached).toBe(false);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('a call refused for the balance is recorded as refused_balance; a key with spend up to its limit reads as used up', async () => {
    const { token, userId } = await registerUser(app.url);
    const key = await keyWith(token, { spendLimit: 1, limitReset: 'month' });
    expect((await ask(openaiClient(app, key.key))).object).toBe('chat.completion');
    await settleAll(app);
    expect((await call(app.url, 'GET', '/api/keys', { token })).body.keys[0]).toMatchObject({ limitReached: false });
    // Lowered to exactly what the key spent this month.
    await call(app.url, 'PATCH', `/api/keys/${key.id}`, { token, body: { spendLimit: ONE_REQUEST } });
    expect((await call(app.url, 'GET', '/api/keys', { token })).body.keys[0]).toMatchObject({ limitReached: true, spentThisPeriod: ONE_REQUEST });

    const free = await keyWith(token, {});
    await setBalanceNano(app, userId, 0n);
    const refused = await ask(openaiClient(app, free.key));
    expect(refused.status).toBe(402);
    const rows = await usageRows(app, userId);
    expect(rows.at(-1)).toMatchObject({ status: 'refused_balance', total_tokens: 0, api_key_id: free.id });
    expect(BigInt(rows.at(-1)!.cost_nano as string)).toBe(0n);
    expect((await call(app.url, 'GET', '/api/keys', { token })).body.keys.find((k: any) => k.id === free.id).limitReached).toBe(false);
  });

  test('lastUsedAt shows with the usage rows, before the batched last-use write', async () => {
    const { token } = await registerUser(app.url);
    const key = await keyWith(token, {});
    expect((await ask(openaiClient(app, key.key))).object).toBe('chat.completion');
    await settleAll(app);
    // As if the batched write (every ~10 s) had not come yet.
    await app.sql('update api_keys set last_used_at = null where id = $1', [key.id]);
    const [row] = await app.sql<{ at: string }>(
      `select to_char(max(created_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at from usage_records where api_key_id = $1`,
      [key.id],
    );
    const listed = (await call(app.url, 'GET', '/api/keys', { token })).body.keys[0];
    expect(listed.lastUsedAt).toBe(row!.at);
  });

  test.skipIf(!onPostgres)('a call served by another instance shows as the key’s last use here once its row is written', async () => {
    const other = await startTestApp({ database: app.database, env: { UPSTREAM_BASE_URL: fake.url } });
    try {
      const { token } = await registerUser(app.url);
      const key = await keyWith(token, {});
      expect((await ask(openaiClient(other, key.key))).object).toBe('chat.completion');
      // The other instance's settlement batch is written; its batched last-use write is not.
      await other.instance.services.billing.flush();
      await app.sql('update api_keys set last_used_at = null where id = $1', [key.id]);
      const listed = (await call(app.url, 'GET', '/api/keys', { token })).body.keys[0];
      expect(listed.lastUsedAt).not.toBeNull();
      const [row] = await app.sql<{ at: string }>(
        `select to_char(max(created_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at from usage_records where api_key_id = $1`,
        [key.id],
      );
      expect(listed.lastUsedAt).toBe(row!.at);
    } finally {
      await other.stop();
    }
  });
});
