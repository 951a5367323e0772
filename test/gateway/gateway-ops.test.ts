// The gateway as an operator runs it: the model list and upstream health, balance and usage views,
// parallel spending against a small balance, several instances on one database, and SIGTERM with a
// stream in flight.
import { afterAll, beforeAll, beforeEach, describe, expect, test, setDefaultTimeout } from 'bun:test';
import { expectedUsage, startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { openaiClient, setBalanceNano, settleAll, unbalancedUsers, usageRows, waitFor } from '../helpers/gateway';
import { spawnServer } from '../helpers/process';

// Starting an app on a fresh database takes longer than bun's 5 s default (a bare `bun test` has no --timeout).
setDefaultTimeout(30_000);

const PRICE = 125n;
const onPostgres = Boolean(process.env.DATABASE_URL);
const messages = [{ role: 'user' as const, content: 'Привет!' }];

let fake: FakeUpstream;
let app: TestApp;
const ADMIN = uniqueEmail('ops-admin');

beforeAll(async () => {
  fake = await startFakeUpstream({ apiKey: 'upstream-secret', slowMs: 400, slowStreamDelayMs: 20 });
  app = await startTestApp({
    env: {
      UPSTREAM_BASE_URL: fake.url,
      UPSTREAM_API_KEY: 'upstream-secret',
      MODELS_CACHE_SECONDS: '1',
      UPSTREAM_HEALTH_CACHE_SECONDS: '1',
      ADMIN_EMAILS: ADMIN,
    },
  });
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

async function newCustomer(target: TestApp = app) {
  const user = await registerUser(target.url);
  const key = await createApiKey(target.url, user.token);
  return { ...user, key: key.key, keyId: key.id, client: openaiClient(target, key.key) };
}

const modelListRequests = () => fake.requests.filter((r) => r.path === '/v1/models').length;

describe('GET /v1/models', () => {
  test('the upstream list in OpenAI shape without a credential, cached, then the last good copy while the upstream is down', async () => {
    const first = await call(app.url, 'GET', '/v1/models');
    expect(first.status).toBe(200);
    expect(first.body.object).toBe('list');
    expect(first.body.data.length).toBeGreaterThan(0);
    for (const m of first.body.data) {
      expect(m).toMatchObject({ id: expect.any(String), object: 'model', created: expect.any(Number), owned_by: expect.any(String) });
    }
    expect(first.body.data.map((m: { id: string }) => m.id)).toEqual(fake.models.map((m) => m.id));

    // The SDK reads it too.
    const customer = await newCustomer();
    const listed = await customer.client.models.list();
    expect(listed.data.map((m) => m.id)).toEqual(fake.models.map((m) => m.id));
    expect(modelListRequests()).toBe(1);

    await Bun.sleep(1100); // past MODELS_CACHE_SECONDS
    fake.modelsDown = true;
    const stale = await call(app.url, 'GET', '/v1/models');
    expect(stale.status).toBe(200);
    expect(stale.body).toEqual(first.body);
    expect(modelListRequests()).toBe(2);

    fake.modelsDown = false;
    fake.models = [{ id: 'acme/new-model', created: 1_700_000_000, owned_by: 'acme' }];
    await Bun.sleep(1100);
    const fresh = await call(app.url, 'GET', '/v1/models');
    expect(fresh.body.data.map((m: { id: string }) => m.id)).toEqual(['acme/new-model']);
  });

  test('with no good copy yet and the upstream down → 502 upstream_error', async () => {
    const other = await startTestApp({ env: { UPSTREAM_BASE_URL: 'http://127.0.0.1:9/v1' } });
    try {
      const res = await call(other.url, 'GET', '/v1/models');
      expect(res.status).toBe(502);
      expect(res.body.error.type).toBe('upstream_error');
    } finally {
      await other.close();
    }
  });
});

describe('GET /health/upstream', () => {
  test('200 when the upstream answers, 503 when it does not; the latency and the error for an admin only', async () => {
    const ok = await call(app.url, 'GET', '/health/upstream');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ status: 'ok' });
    const admin = (await registerAdmin(app, ADMIN)).token;
    const detailed = await call(app.url, 'GET', '/health/upstream', { token: admin });
    expect(detailed.body.status).toBe('ok');
    expect(detailed.body.latencyMs).toBeGreaterThanOrEqual(0);

    fake.modelsDown = true;
    await Bun.sleep(1100); // past UPSTREAM_HEALTH_CACHE_SECONDS
    const down = await call(app.url, 'GET', '/health/upstream');
    expect(down.status).toBe(503);
    expect(down.body.status).toBe('unavailable');

    const other = await startTestApp({ env: { UPSTREAM_BASE_URL: 'http://127.0.0.1:9/v1', ADMIN_EMAILS: ADMIN } });
    try {
      const unreachable = await call(other.url, 'GET', '/health/upstream');
      expect(unreachable.status).toBe(503);
      expect(unreachable.body).toEqual({ status: 'unavailable' });
      const otherAdmin = (await registerAdmin(other, ADMIN)).token;
      expect((await call(other.url, 'GET', '/health/upstream', { token: otherAdmin })).body.error).toBe('unreachable');
    } finally {
      await other.close();
    }
  });

  test('anyone may probe, but the upstream is asked at most once per UPSTREAM_HEALTH_CACHE_SECONDS, a failure included', async () => {
    await Bun.sleep(1100); // past the cache of the test before
    for (let i = 0; i < 50; i++) {
      const res = await call(app.url, 'GET', '/health/upstream');
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('ok');
    }
    expect(modelListRequests()).toBeLessThanOrEqual(2);

    // Probes arriving together share one call; a failing upstream is not asked at the flood's rate either.
    await Bun.sleep(1100);
    fake.reset();
    fake.modelsDown = true;
    const burst = await Promise.all(Array.from({ length: 50 }, () => call(app.url, 'GET', '/health/upstream')));
    expect(burst.map((r) => r.status)).toEqual(Array(50).fill(503));
    for (let i = 0; i < 20; i++) expect((await call(app.url, 'GET', '/health/upstream')).status).toBe(503);
    expect(modelListRequests()).toBe(1);
  });
});

describe('the operator’s upstream account', () => {
  test('an upstream 401 about the operator’s key reaches the client as 502, its text only in the log', async () => {
    const lines: string[] = [];
    const { createLogger } = await import('../../src/logger');
    const { startInstance } = await import('../../src/server');
    const { testConfig } = await import('../helpers/app');
    const config = testConfig(app.database, { UPSTREAM_BASE_URL: fake.url, UPSTREAM_API_KEY: 'wrong-upstream-key' });
    const instance = await startInstance(config, { logger: createLogger('info', {}, (line) => lines.push(line)) });
    try {
      const user = await registerUser(instance.url);
      const key = await createApiKey(instance.url, user.token);
      const res = await call(instance.url, 'POST', '/v1/chat/completions', {
        headers: { authorization: `Bearer ${key.key}` },
        body: { model: 'acme/chat', messages },
      });
      expect(res.status).toBe(502);
      expect(res.body.error.type).toBe('upstream_error');
      expect(res.text).not.toMatch(/api key|Incorrect|invalid_api_key/i);
      expect(lines.some((l) => l.includes('the upstream refused the operator') && l.includes('"status":401'))).toBe(true);
      expect(lines.join('\n')).not.toContain('wrong-upstream-key');
    } finally {
      await instance.stop(1000);
    }
  });
});

describe('balance and usage', () => {
  test('GET /api/balance answers to a JWT and to an API key alike', async () => {
    const c = await newCustomer();
    const viaJwt = await call(app.url, 'GET', '/api/balance', { token: c.token });
    const viaKey = await call(app.url, 'GET', '/api/balance', { token: c.key });
    expect(viaJwt.status).toBe(200);
    // The amount with its currency (BALANCE_CURRENCY, RUB by default).
    expect(viaJwt.body).toEqual({ balance: 3, currency: 'RUB' });
    expect(viaKey.body).toEqual({ balance: 3, currency: 'RUB' });
    expect((await call(app.url, 'GET', '/api/balance')).status).toBe(401);
  });

  test('GET /api/usage pages newest first without gaps or repeats, filters by key and date, and totals the filter', async () => {
    const c = await newCustomer();
    const second = await createApiKey(app.url, c.token, 'second');
    const secondClient = openaiClient(app, second.key);
    const usage = expectedUsage({ messages });
    for (let i = 0; i < 5; i++) await c.client.chat.completions.create({ model: 'acme/chat', messages });
    for (let i = 0; i < 2; i++) await secondClient.chat.completions.create({ model: 'acme/chat', messages });
    await settleAll(app);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `/api/usage?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await call(app.url, 'GET', query, { token: c.token });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(3);
      expect(page.body.totals).toEqual({
        requests: 7,
        promptTokens: usage.prompt_tokens * 7,
        completionTokens: usage.completion_tokens * 7,
        totalTokens: usage.total_tokens * 7,
        cost: (usage.total_tokens * 7 * 125) / 1e9,
        promptCost: (usage.prompt_tokens * 7 * 125) / 1e9,
        completionCost: (usage.completion_tokens * 7 * 125) / 1e9,
        unpaid: 0,
      });
      seen.push(...page.body.data.map((r: { id: string }) => r.id));
      cursor = page.body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(7);
    expect(seen).toEqual([...seen].sort((a, b) => Number(b) - Number(a)));

    const row = (await call(app.url, 'GET', '/api/usage?limit=1', { token: c.token })).body.data[0];
    expect(row).toMatchObject({
      model: 'acme/chat',
      keyId: second.id,
      agentId: null,
      stream: false,
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
      totalTokens: usage.total_tokens,
      cost: (usage.total_tokens * 125) / 1e9,
      status: 'ok',
      usageSource: 'upstream',
    });

    const byKey = await call(app.url, 'GET', `/api/usage?keyId=${second.id}`, { token: c.token });
    expect(byKey.body.data).toHaveLength(2);
    expect(byKey.body.totals.requests).toBe(2);
    expect(byKey.body.data.every((r: { keyId: string }) => r.keyId === second.id)).toBe(true);

    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    const yesterday = new Date(Date.now() - 86_400_000).toISOString();
    const future = await call(app.url, 'GET', `/api/usage?from=${tomorrow}`, { token: c.token });
    expect(future.body).toEqual({
      data: [],
      nextCursor: null,
      totals: { requests: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, cost: 0, promptCost: 0, completionCost: 0, unpaid: 0 },
    });
    const window = await call(app.url, 'GET', `/api/usage?from=${yesterday}&to=${tomorrow}`, { token: c.token });
    expect(window.body.totals.requests).toBe(7);

    // Another user sees none of it.
    const stranger = await registerUser(app.url);
    expect((await call(app.url, 'GET', '/api/usage', { token: stranger.token })).body.totals.requests).toBe(0);

    for (const bad of ['limit=0', 'limit=101', 'cursor=not-a-cursor', 'from=yesterday', 'keyId=123']) {
      const res = await call(app.url, 'GET', `/api/usage?${bad}`, { token: c.token });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
    }
  });
  test('GET /api/usage/summary sums by day in the caller’s time zone and by model, in the database', async () => {
    const c = await newCustomer();
    const usage = expectedUsage({ messages });
    for (let i = 0; i < 3; i++) await c.client.chat.completions.create({ model: 'acme/chat', messages });
    await c.client.chat.completions.create({ model: 'acme/other', messages });
    await settleAll(app);
    // Two of them late in the evening UTC: already the next day in Moscow.
    await app.sql(
      `update usage_records set created_at = case when model = 'acme/other' then timestamptz '2026-11-20 12:00:00+00'
                                                 else timestamptz '2026-11-20 22:30:00+00' end
        where user_id = $1`,
      [c.userId],
    );
    const from = '2026-11-19T00:00:00Z';
    const utc = await call(app.url, 'GET', `/api/usage/summary?from=${from}`, { token: c.key });
    expect(utc.status).toBe(200);
    expect(utc.body.timeZone).toBe('UTC');
    expect(utc.body.days.map((d: { day: string; model: string; requests: number }) => [d.day, d.model, d.requests])).toEqual([
      ['2026-11-20', 'acme/chat', 3],
      ['2026-11-20', 'acme/other', 1],
    ]);
    const moscow = await call(app.url, 'GET', `/api/usage/summary?from=${from}&timeZone=Europe/Moscow`, { token: c.token });
    expect(moscow.body.days.map((d: { day: string; model: string }) => [d.day, d.model])).toEqual([
      ['2026-11-20', 'acme/other'],
      ['2026-11-21', 'acme/chat'],
    ]);
    expect(moscow.body.models).toEqual([
      {
        model: 'acme/chat',
        requests: 3,
        promptTokens: 3 * usage.prompt_tokens,
        completionTokens: 3 * usage.completion_tokens,
        totalTokens: 3 * usage.total_tokens,
        cost: (3 * usage.total_tokens * 125) / 1e9,
        promptCost: (3 * usage.prompt_tokens * 125) / 1e9,
        completionCost: (3 * usage.completion_tokens * 125) / 1e9,
        unpaid: 0,
      },
      {
        model: 'acme/other',
        requests: 1,
        promptTokens: usage.prompt_tokens,
        completionTokens: usage.completion_tokens,
        totalTokens: usage.total_tokens,
        cost: (usage.total_tokens * 125) / 1e9,
        promptCost: (usage.prompt_tokens * 125) / 1e9,
        completionCost: (usage.completion_tokens * 125) / 1e9,
        unpaid: 0,
      },
    ]);
    const listed = await call(app.url, 'GET', `/api/usage?from=${from}`, { token: c.token });
    expect(moscow.body.totals).toEqual(listed.body.totals);
    for (const bad of ['', `from=${from}&timeZone=Mars/Olympus`, `from=${from}&timeZone=UTC;drop`, 'from=yesterday']) {
      const res = await call(app.url, 'GET', `/api/usage/summary?${bad}`, { token: c.token });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
    }
  });

  test('rows sharing one microsecond timestamp (one batch, now()) page without loss, one at a time', async () => {
    const c = await newCustomer();
    await Promise.all(Array.from({ length: 8 }, () => c.client.chat.completions.create({ model: 'acme/chat', messages })));
    await settleAll(app);
    // As the database's own now() would stamp a batch: finer than a JavaScript Date can hold.
    await app.sql(`update usage_records set created_at = '2026-11-20 10:00:00.123456+00' where user_id = $1`, [c.userId]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `/api/usage?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await call(app.url, 'GET', query, { token: c.token });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((r: { id: string }) => r.id));
      cursor = page.body.nextCursor;
    } while (cursor && seen.length < 20);
    expect(seen).toHaveLength(8);
    expect(new Set(seen).size).toBe(8);
  });
});

describe('parallel spending', () => {
  // Reservations of (prompt estimate + max_tokens) × price: ten of them fit, an eleventh does not,
  // as long as the prompt estimate stays under 100 tokens (this one is about 10).
  const MAX_TOKENS = 10_000;
  const tenReservations = 10n * BigInt(MAX_TOKENS + 100) * PRICE;
  // fake/slow holds every answer long enough that all 50 reserve before any settles (a settled call frees
  // its reservation): 400 ms was not, with the suite's files in parallel on two cores (17 and 30 served).
  // After the file's beforeEach, which resets the fake.
  beforeEach(() => {
    fake.slowMs = 2500;
  });

  test('50 parallel requests against a balance that covers 10: exactly 10 are served, the rest get 402, the books balance', async () => {
    const c = await newCustomer();
    await setBalanceNano(app, c.userId, tenReservations);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => c.client.chat.completions.create({ model: 'fake/slow', messages, max_tokens: MAX_TOKENS }).catch((e) => e)),
    );
    const served = results.filter((r) => r.object === 'chat.completion');
    const refused = results.filter((r) => r.status === 402);
    expect(served).toHaveLength(10);
    expect(refused).toHaveLength(40);
    expect(refused[0].error.type).toBe('insufficient_balance');
    expect(fake.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(10);

    await settleAll(app);
    const spent = BigInt(served.reduce((sum, r) => sum + r.usage.total_tokens, 0)) * PRICE;
    const [user] = await app.sql<{ balance_nano: unknown }>('select balance_nano from users where id = $1', [c.userId]);
    expect(BigInt(String(user!.balance_nano))).toBe(tenReservations - spent);
    // The 40 refused calls are in usage too (issue 33): zero tokens, zero cost, status refused_balance.
    const rows = await usageRows(app, c.userId);
    expect(rows.filter((r) => r.status === 'ok')).toHaveLength(10);
    expect(rows.filter((r) => r.status === 'refused_balance').map((r) => r.total_tokens)).toEqual(Array(40).fill(0));
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test.skipIf(!onPostgres)('two instances on one PostgreSQL spending one balance in parallel never overdraw it', async () => {
    const other = await startTestApp({
      database: app.database,
      env: { UPSTREAM_BASE_URL: fake.url, UPSTREAM_API_KEY: 'upstream-secret' },
    });
    try {
      const c = await newCustomer();
      await setBalanceNano(app, c.userId, tenReservations);
      const clients = [c.client, openaiClient(other, c.key)];
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => clients[i % 2]!.chat.completions.create({ model: 'fake/slow', messages, max_tokens: MAX_TOKENS }).catch((e) => e)),
      );
      const served = results.filter((r) => r.object === 'chat.completion').length;
      expect(served).toBeGreaterThanOrEqual(1);
      expect(served).toBeLessThanOrEqual(10);
      expect(results.filter((r) => r.status === 402)).toHaveLength(50 - served);
      await settleAll(other);
      await settleAll(app);
      expect(await unbalancedUsers(app)).toEqual([]);
      const [row] = await app.sql<{ balance_nano: unknown }>('select balance_nano from users where id = $1', [c.userId]);
      expect(BigInt(String(row!.balance_nano)) >= 0n).toBe(true);
    } finally {
      await other.stop();
    }
  });
});

describe('revocation across instances', () => {
  test.skipIf(!onPostgres)('a key revoked on one instance is refused by another sharing the database within 1 s', async () => {
    const other = await startTestApp({
      database: app.database,
      env: { UPSTREAM_BASE_URL: fake.url, UPSTREAM_API_KEY: 'upstream-secret' },
    });
    try {
      const c = await newCustomer();
      const onOther = openaiClient(other, c.key);
      await onOther.chat.completions.create({ model: 'acme/chat', messages }); // cached over there now
      expect((await call(app.url, 'DELETE', `/api/keys/${c.keyId}`, { token: c.token })).status).toBe(200);
      const revokedAt = performance.now();
      let status = 0;
      await waitFor(
        async () => {
          status = (await onOther.chat.completions.create({ model: 'acme/chat', messages }).catch((e) => e)).status ?? 200;
          return status === 403;
        },
        1000,
        20,
      );
      expect(status).toBe(403);
      expect(performance.now() - revokedAt).toBeLessThan(1000);
    } finally {
      await other.stop();
    }
  });
});

describe('SIGTERM', () => {
  async function serverProcess(extra: Record<string, string>) {
    const database = await createTestDatabase();
    const env: Record<string, string> = {
      DATA_DIR: database.dataDir,
      UPSTREAM_BASE_URL: fake.url,
      UPSTREAM_API_KEY: 'upstream-secret',
      LOG_LEVEL: 'info',
      ...extra,
    };
    if (database.databaseUrl) env.DATABASE_URL = database.databaseUrl;
    const server = await spawnServer(env);
    const user = await registerUser(server.url);
    const { key } = await createApiKey(server.url, user.token);
    return { database, server, user, key };
  }

  /** Opens a stream and resolves once its first bytes arrived, with the promise of the whole text. */
  async function openStream(url: string, key: string): Promise<{ rest: Promise<string> }> {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake/slow-stream', messages, stream: true }),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const first = await reader.read();
    text += decoder.decode(first.value);
    const rest = (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          text += decoder.decode(value, { stream: true });
        }
      } catch {
        // Cut off: what arrived is in text.
      }
      return text;
    })();
    return { rest };
  }

  test('stops accepting at once, lets the stream in flight finish, writes its usage, returns the lease, exits 0', async () => {
    const { database, server, user, key } = await serverProcess({ SHUTDOWN_GRACE_MS: '20000' });
    try {
      const streamed = (await openStream(server.url, key)).rest; // 100 pieces 20 ms apart: about 2 s
      const exited = server.stop('SIGTERM');
      await Bun.sleep(150);
      const refused = await fetch(`${server.url}/health`).then(
        () => false,
        () => true,
      );
      expect(refused).toBe(true);
      const text = await streamed;
      expect(text).toContain('p99 ');
      expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
      expect(await exited).toBe(0);

      const after = await startTestApp({ database });
      try {
        const rows = await usageRows(after, user.userId);
        expect(rows.map((r) => [r.status, r.stream])).toEqual([['ok', true]]);
        expect(rows[0]!.completion_tokens).toBe(100);
        expect(await after.sql('select * from balance_leases')).toEqual([]);
        expect(await unbalancedUsers(after)).toEqual([]);
      } finally {
        await after.stop();
      }
    } finally {
      await database.drop();
    }
  });

  test('a stream longer than SHUTDOWN_GRACE_MS is cut at the bound, and what it streamed is still billed', async () => {
    fake.slowStreamDelayMs = 200; // 100 pieces: 20 s, far past the bound
    const { database, server, user, key } = await serverProcess({ SHUTDOWN_GRACE_MS: '500' });
    try {
      const streamed = (await openStream(server.url, key)).rest;
      await Bun.sleep(300);
      const started = performance.now();
      expect(await server.stop('SIGTERM')).toBe(0);
      expect(performance.now() - started).toBeLessThan(5000);
      const text = await streamed;
      expect(text).not.toContain('p99 ');
      // Ended cleanly: an SSE error event saying why, as the last event, and no reset connection.
      const events = text.trim().split('\n\n');
      const last = JSON.parse(events.at(-1)!.replace(/^data: /, ''));
      expect(last.error.type).toBe('service_unavailable');
      expect(last.error.message).toMatch(/[А-Яа-я]/);

      const after = await startTestApp({ database });
      try {
        const rows = await usageRows(after, user.userId);
        expect(rows).toHaveLength(1);
        expect(rows[0]!.status).toBe('server_shutdown');
        expect(rows[0]!.completion_tokens).toBeGreaterThan(0);
        expect(rows[0]!.completion_tokens).toBeLessThan(100);
        expect(await after.sql('select * from balance_leases')).toEqual([]);
        expect(await unbalancedUsers(after)).toEqual([]);
      } finally {
        await after.stop();
      }
    } finally {
      await database.drop();
    }
  });
});
