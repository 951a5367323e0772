// Providers and routes: operators add providers (keys sealed, read back masked) and routes from model ids
// to them; /v1 chat, embeddings and responses go the route's way, fail over to the next provider on a
// connection failure, a timeout, 408/429/5xx or a refused key, never on the client's own 4xx, and charge
// once for the answer given; providers failing in a row cool down (shared by every instance on
// PostgreSQL), one trial follows, and a refused key disables a provider until an operator changes it.
import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { FakeUpstream } from '../fakes/upstream';
import { call, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { chatCalls, ROUTED_MESSAGES, routingHarness } from '../helpers/routing';
import { balanceNanoInDb, openaiClient, settleAll, unbalancedUsers, usageRows, waitFor } from '../helpers/gateway';

setDefaultTimeout(30_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const ADMIN = uniqueEmail('routing-admin');
const THRESHOLD = 3;
const COOLDOWN_SECONDS = 2;
const env = (defaultUpstream: string) => ({
  UPSTREAM_BASE_URL: defaultUpstream,
  ADMIN_EMAILS: ADMIN,
  PROVIDER_FAILURE_THRESHOLD: String(THRESHOLD),
  PROVIDER_COOLDOWN_SECONDS: String(COOLDOWN_SECONDS),
});
// The fake reports 12 prompt and 7 completion tokens for one user message; TOKEN_PRICE is 125 nano a token.
const ANSWER_COST = 19n * 125n;
const messages = ROUTED_MESSAGES;
/** Nothing listens there: a provider that died. */
const DEAD_URL = 'http://127.0.0.1:9/v1';

const routing = routingHarness(env, ADMIN);
const { fake, adminCall, addProvider, setRoute, customer, ask } = routing;
let home: FakeUpstream;
let app: TestApp;
beforeAll(() => {
  home = routing.home;
  app = routing.app;
});

let modelCounter = 0;
/** A model id of its own per test, so each test has its own route. */
const freshModel = () => `acme/routed-${++modelCounter}-${Math.random().toString(36).slice(2, 6)}`;

describe('providers in the admin API', () => {
  test('a provider is created with its key sealed, read back masked, changed and deleted, each change in the audit log', async () => {
    const secret = 'sk-live-abcdef1234567890';
    const created = await adminCall('POST', '/api/admin/providers', { name: 'Запасной', baseUrl: 'https://api.example.com/v1/', apiKey: secret, timeoutMs: 5000 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Запасной',
      baseUrl: 'https://api.example.com/v1',
      enabled: true,
      timeoutMs: 5000,
      health: { state: 'up', consecutiveFailures: 0, cooldownUntil: null, lastError: null },
    });
    expect(created.body.apiKey).toMatch(/•/);
    expect(created.text).not.toContain(secret);
    const id = created.body.id as string;
    const [stored] = await app.sql<{ api_key_sealed: string }>('select api_key_sealed from providers where id = $1', [id]);
    expect(stored!.api_key_sealed).not.toContain(secret);

    const list = await adminCall('GET', '/api/admin/providers');
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(secret);
    expect(list.body.data[0]).toMatchObject({ id: 'default', baseUrl: home.url, health: { state: 'up' } });
    expect(list.body.data.map((p: { id: string }) => p.id)).toContain(id);

    const patched = await adminCall('PATCH', `/api/admin/providers/${id}`, { enabled: false, apiKey: 'sk-other-key-000' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, enabled: false });
    expect(patched.text).not.toContain('sk-other-key-000');

    // A route that sends to it keeps it from being deleted.
    const model = freshModel();
    await setRoute(model, [{ providerId: id }]);
    const refused = await adminCall('DELETE', `/api/admin/providers/${id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain(model);
    expect((await adminCall('DELETE', `/api/admin/routes?pattern=${encodeURIComponent(model)}`)).status).toBe(200);
    expect((await adminCall('DELETE', `/api/admin/providers/${id}`)).status).toBe(200);
    expect((await adminCall('GET', `/api/admin/providers/${id}`)).status).toBe(404);

    const audit = await adminCall('GET', `/api/admin/audit?targetId=${id}`);
    expect(audit.body.data.map((e: { action: string }) => e.action)).toEqual(['provider.delete', 'provider.update', 'provider.create']);
    expect(JSON.stringify(audit.body)).not.toContain(secret);
    expect(audit.body.data[1].after).toMatchObject({ enabled: false, apiKeyChanged: true });
  });

  test('the built-in default is neither deleted nor reconfigured here; a route naming an unknown provider is refused', async () => {
    expect((await adminCall('DELETE', '/api/admin/providers/default')).status).toBe(400);
    expect((await adminCall('PATCH', '/api/admin/providers/default', { baseUrl: 'https://elsewhere.example/v1' })).status).toBe(400);
    const unknown = await adminCall('PUT', '/api/admin/routes', { pattern: 'acme/x', targets: [{ providerId: 'no-such-provider' }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('providerId');
    const user = await registerUser(app.url);
    expect((await call(app.url, 'GET', '/api/admin/providers', { token: user.token })).status).toBe(403);
  });
});

describe('routing /v1 requests', () => {
  test('without a route a request goes to default as before, and its usage row names default and one attempt', async () => {
    const user = await customer();
    home.requests.splice(0);
    const res = await ask(app, user.key, 'acme/unrouted');
    expect(res.status).toBe(200);
    expect(chatCalls(home)).toHaveLength(1);
    const [row] = (await usageRows(app, user.userId)) as unknown as { provider_id: string; attempts: number }[];
    expect(row).toMatchObject({ provider_id: 'default', attempts: 1 });
  });

  test('a route sends to its provider with that provider’s key and its own model id', async () => {
    const a = await fake({ apiKey: 'sk-provider-a' });
    const id = await addProvider(a.url, { apiKey: 'sk-provider-a' });
    const model = freshModel();
    await setRoute(model, [{ providerId: id, model: 'acme/their-name' }]);
    const user = await customer();
    const answer = await openaiClient(app, user.key).chat.completions.create({ model, messages });
    expect(answer.choices[0]!.message.content).toBe('Echo: Привет!');
    expect(chatCalls(a)).toHaveLength(1);
    expect(chatCalls(a)[0]!.body.model).toBe('acme/their-name');
    expect(chatCalls(a)[0]!.headers.authorization).toBe('Bearer sk-provider-a');
    const [row] = (await usageRows(app, user.userId)) as unknown as { provider_id: string; model: string }[];
    // Priced and recorded under the id the client asked for.
    expect(row).toMatchObject({ provider_id: id, model });
  });

  test('the longest pattern wins and lower priority goes first', async () => {
    const [a, b] = await Promise.all([fake(), fake()]);
    const [ia, ib] = await Promise.all([addProvider(a.url), addProvider(b.url)]);
    const prefix = `acme/fam-${Math.random().toString(36).slice(2, 6)}-`;
    await setRoute(`${prefix}*`, [
      { providerId: ib, priority: 1 },
      { providerId: ia, priority: 0 },
    ]);
    await setRoute(`${prefix}special`, [{ providerId: ib }]);
    const user = await customer();
    expect((await ask(app, user.key, `${prefix}one`)).status).toBe(200);
    expect((await ask(app, user.key, `${prefix}special`)).status).toBe(200);
    expect(chatCalls(a).map((r) => r.body.model)).toEqual([`${prefix}one`]);
    expect(chatCalls(b).map((r) => r.body.model)).toEqual([`${prefix}special`]);
  });

  test('within a priority, targets share first attempts by weight', async () => {
    const [a, b] = await Promise.all([fake(), fake()]);
    const [ia, ib] = await Promise.all([addProvider(a.url), addProvider(b.url)]);
    const model = freshModel();
    await setRoute(model, [
      { providerId: ia, weight: 9 },
      { providerId: ib, weight: 1 },
    ]);
    const user = await customer();
    for (let i = 0; i < 60; i++) expect((await ask(app, user.key, model)).status).toBe(200);
    // 9:1 → about 54 and 6; far from an even split either way.
    expect(chatCalls(a).length).toBeGreaterThan(40);
    expect(chatCalls(b).length).toBeGreaterThan(0);
    expect(chatCalls(a).length + chatCalls(b).length).toBe(60);
  });
});

describe('failover', () => {
  for (const [trouble, setUp] of [
    [
      '429',
      async (f: FakeUpstream) => {
        f.outage = 429;
        return f.url;
      },
    ],
    [
      '500',
      async (f: FakeUpstream) => {
        f.outage = 500;
        return f.url;
      },
    ],
    [
      'a hang past the provider’s timeout',
      async (f: FakeUpstream) => {
        f.outage = 'hang';
        return f.url;
      },
    ],
    ['a dead provider', async () => DEAD_URL],
  ] as const) {
    test(`${trouble} on the first provider: the next answers, the client is charged once, the row names it and 2 attempts`, async () => {
      const [a, b] = await Promise.all([fake(), fake()]);
      const firstUrl = await setUp(a);
      const [ia, ib] = await Promise.all([addProvider(firstUrl, { timeoutMs: 300 }), addProvider(b.url)]);
      const model = freshModel();
      await setRoute(model, [
        { providerId: ia, priority: 0 },
        { providerId: ib, priority: 1 },
      ]);
      const user = await customer();
      await settleAll(app);
      const before = await balanceNanoInDb(app, user.userId);
      const res = await ask(app, user.key, model);
      expect(res.status).toBe(200);
      expect(res.body.choices[0].message.content).toBe('Echo: Привет!');
      expect(chatCalls(b)).toHaveLength(1);
      await settleAll(app);
      const rows = (await usageRows(app, user.userId)) as unknown as { provider_id: string; attempts: number; cost_nano: unknown; status: string }[];
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ provider_id: ib, attempts: 2, status: 'ok' });
      expect(BigInt(String(rows[0]!.cost_nano))).toBe(ANSWER_COST);
      expect(await balanceNanoInDb(app, user.userId)).toBe(before - ANSWER_COST);
      expect(await unbalancedUsers(app)).toEqual([]);
    });
  }

  test('a stream fails over before its first byte and reaches the client whole from the next provider', async () => {
    const [a, b] = await Promise.all([fake(), fake()]);
    a.outage = 503;
    const [ia, ib] = await Promise.all([addProvider(a.url), addProvider(b.url)]);
    const model = freshModel();
    await setRoute(model, [
      { providerId: ia, priority: 0 },
      { providerId: ib, priority: 1 },
    ]);
    const user = await customer();
    const stream = await openaiClient(app, user.key).chat.completions.create({ model, messages, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Hello from the fake upstream.');
    expect(chatCalls(a)).toHaveLength(1);
    expect(chatCalls(b)).toHaveLength(1);
  });

  test('the client’s own 4xx passes through at once: no other provider is asked', async () => {
    const [a, b] = await Promise.all([fake(), fake()]);
    const [ia, ib] = await Promise.all([addProvider(a.url), addProvider(b.url)]);
    const model = freshModel();
    await setRoute(model, [
      { providerId: ia, priority: 0, model: 'fake/error-400' },
      { providerId: ib, priority: 1 },
    ]);
    const user = await customer();
    const res = await ask(app, user.key, model);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('temperature');
    expect(chatCalls(b)).toHaveLength(0);
  });

  test('a stream the provider cuts mid-way is not retried: the client gets what came and the error event', async () => {
    const [a, b] = await Promise.all([fake(), fake()]);
    const [ia, ib] = await Promise.all([addProvider(a.url), addProvider(b.url)]);
    const model = freshModel();
    await setRoute(model, [
      { providerId: ia, priority: 0, model: 'fake/drop' },
      { providerId: ib, priority: 1 },
    ]);
    const user = await customer();
    const res = await fetch(`${app.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages, stream: true }),
    });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toContain('"Hel"');
    expect(text).toContain('upstream_error');
    expect(chatCalls(b)).toHaveLength(0);
  });

  test('when every provider fails the client gets 502 saying none could answer, and pays nothing', async () => {
    const [a, b] = await Promise.all([fake(), fake()]);
    a.outage = 500;
    b.outage = 429;
    const [ia, ib] = await Promise.all([addProvider(a.url), addProvider(b.url)]);
    const model = freshModel();
    await setRoute(model, [
      { providerId: ia, priority: 0 },
      { providerId: ib, priority: 1 },
      { providerId: 'default', priority: 2, model: 'fake/error-503' },
    ]);
    const user = await customer();
    await settleAll(app);
    const before = await balanceNanoInDb(app, user.userId);
    const res = await ask(app, user.key, model);
    expect(res.status).toBe(502);
    expect(res.body.error.message).toContain('Ни один провайдер');
    await settleAll(app);
    const rows = (await usageRows(app, user.userId)) as unknown as { attempts: number; provider_id: string; cost_nano: unknown }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ attempts: 3, provider_id: 'default' });
    expect(String(rows[0]!.cost_nano)).toBe('0');
    expect(await balanceNanoInDb(app, user.userId)).toBe(before);
  });

  test('an Idempotency-Key sees one request: the repeat replays the failed-over answer without asking anyone', async () => {
    const [a, b] = await Promise.all([fake(), fake()]);
    a.outage = 500;
    const [ia, ib] = await Promise.all([addProvider(a.url), addProvider(b.url)]);
    const model = freshModel();
    await setRoute(model, [
      { providerId: ia, priority: 0 },
      { providerId: ib, priority: 1 },
    ]);
    const user = await customer();
    const first = await ask(app, user.key, model, {}, { 'idempotency-key': 'routed-1' });
    const again = await ask(app, user.key, model, {}, { 'idempotency-key': 'routed-1' });
    expect(first.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(chatCalls(a)).toHaveLength(1);
    expect(chatCalls(b)).toHaveLength(1);
    expect(await usageRows(app, user.userId)).toHaveLength(1);
  });

  test('embeddings and responses route and fail over too', async () => {
    const [a, b] = await Promise.all([fake(), fake()]);
    a.outage = 502;
    const [ia, ib] = await Promise.all([addProvider(a.url), addProvider(b.url)]);
    const model = freshModel();
    await setRoute(model, [
      { providerId: ia, priority: 0 },
      { providerId: ib, priority: 1 },
    ]);
    const user = await customer();
    const client = openaiClient(app, user.key);
    const embedded = await client.embeddings.create({ model, input: 'Привет' });
    expect(embedded.data).toHaveLength(1);
    const response = await client.responses.create({ model, input: 'Привет' });
    expect(response.output_text).toBe('Echo: Привет');
    expect(b.requests.map((r) => r.path)).toEqual(['/v1/embeddings', '/v1/responses']);
    const rows = (await usageRows(app, user.userId)) as unknown as { endpoint: string; provider_id: string; attempts: number }[];
    expect(rows.map((r) => [r.endpoint, r.provider_id, r.attempts])).toEqual([
      ['embeddings', ib, 2],
      ['responses', ib, 2],
    ]);
  });
});

describe('cooldown', () => {
  test(`${THRESHOLD} failures in a row cool a provider down: it is skipped, then one trial brings it back`, async () => {
    const [a, b] = await Promise.all([fake(), fake()]);
    a.outage = 503;
    const [ia, ib] = await Promise.all([addProvider(a.url), addProvider(b.url)]);
    const model = freshModel();
    await setRoute(model, [
      { providerId: ia, priority: 0 },
      { providerId: ib, priority: 1 },
    ]);
    const user = await customer();
    for (let i = 0; i < THRESHOLD; i++) expect((await ask(app, user.key, model)).status).toBe(200);
    expect(chatCalls(a)).toHaveLength(THRESHOLD);
    await waitFor(async () => (await adminCall('GET', `/api/admin/providers/${ia}`)).body.health.state === 'cooling_down');
    const cooling = await adminCall('GET', `/api/admin/providers/${ia}`);
    expect(cooling.body.health).toMatchObject({ state: 'cooling_down', consecutiveFailures: THRESHOLD });
    expect(cooling.body.health.lastError).toContain('503');
    expect(Date.parse(cooling.body.health.cooldownUntil)).toBeGreaterThan(Date.now());

    // Skipped, not waited for, while it cools down.
    for (let i = 0; i < 5; i++) expect((await ask(app, user.key, model)).status).toBe(200);
    expect(chatCalls(a)).toHaveLength(THRESHOLD);
    const rows = (await usageRows(app, user.userId)) as unknown as { attempts: number }[];
    expect(rows.slice(THRESHOLD).map((r) => r.attempts)).toEqual([1, 1, 1, 1, 1]);

    // After the cooldown one trial decides: the provider is back.
    a.outage = null;
    await Bun.sleep(Date.parse(cooling.body.health.cooldownUntil) - Date.now() + 50);
    expect((await ask(app, user.key, model)).status).toBe(200);
    expect(chatCalls(a)).toHaveLength(THRESHOLD + 1);
    await waitFor(async () => (await adminCall('GET', `/api/admin/providers/${ia}`)).body.health.state === 'up');
    expect((await adminCall('GET', `/api/admin/providers/${ia}`)).body.health.consecutiveFailures).toBe(0);
  });

  test('a failed trial starts a new cooldown', async () => {
    const [a, b] = await Promise.all([fake(), fake()]);
    a.outage = 500;
    const [ia, ib] = await Promise.all([addProvider(a.url), addProvider(b.url)]);
    const model = freshModel();
    await setRoute(model, [
      { providerId: ia, priority: 0 },
      { providerId: ib, priority: 1 },
    ]);
    const user = await customer();
    for (let i = 0; i < THRESHOLD; i++) await ask(app, user.key, model);
    await waitFor(async () => (await adminCall('GET', `/api/admin/providers/${ia}`)).body.health.state === 'cooling_down');
    const first = Date.parse((await adminCall('GET', `/api/admin/providers/${ia}`)).body.health.cooldownUntil);
    await Bun.sleep(first - Date.now() + 50);
    expect((await ask(app, user.key, model)).status).toBe(200);
    expect(chatCalls(a)).toHaveLength(THRESHOLD + 1);
    await waitFor(async () => Date.parse((await adminCall('GET', `/api/admin/providers/${ia}`)).body.health.cooldownUntil) > first);
    for (let i = 0; i < 3; i++) await ask(app, user.key, model);
    expect(chatCalls(a)).toHaveLength(THRESHOLD + 1);
  });

  test('when every target is cooling down the least recently failed one is tried rather than refusing', async () => {
    const [a, b] = await Promise.all([fake(), fake()]);
    a.outage = 500;
    b.outage = 500;
    const [ia, ib] = await Promise.all([addProvider(a.url), addProvider(b.url)]);
    const model = freshModel();
    await setRoute(model, [
      { providerId: ia, priority: 0 },
      { providerId: ib, priority: 1 },
    ]);
    const user = await customer();
    // Each request fails on a, then on b: after THRESHOLD of them both cool down, b the more recently failed.
    for (let i = 0; i < THRESHOLD; i++) expect((await ask(app, user.key, model)).status).toBe(502);
    const health = async (id: string) => (await adminCall('GET', `/api/admin/providers/${id}`)).body.health.state;
    await waitFor(async () => (await health(ia)) === 'cooling_down' && (await health(ib)) === 'cooling_down');
    a.outage = null;
    const res = await ask(app, user.key, model);
    expect(res.status).toBe(200);
    expect(chatCalls(a)).toHaveLength(THRESHOLD + 1);
    expect(chatCalls(b)).toHaveLength(THRESHOLD);
  });

  test('a provider refusing our key is disabled until an operator changes it, and requests go elsewhere meanwhile', async () => {
    const [a, b] = await Promise.all([fake({ apiKey: 'sk-right' }), fake()]);
    const [ia, ib] = await Promise.all([addProvider(a.url, { apiKey: 'sk-wrong' }), addProvider(b.url)]);
    const model = freshModel();
    await setRoute(model, [
      { providerId: ia, priority: 0 },
      { providerId: ib, priority: 1 },
    ]);
    const user = await customer();
    expect((await ask(app, user.key, model)).status).toBe(200);
    await waitFor(async () => (await adminCall('GET', `/api/admin/providers/${ia}`)).body.health.state === 'disabled');
    expect((await adminCall('GET', `/api/admin/providers/${ia}`)).body.health.lastError).toContain('401');
    for (let i = 0; i < 3; i++) expect((await ask(app, user.key, model)).status).toBe(200);
    expect(chatCalls(a)).toHaveLength(1);

    const fixed = await adminCall('PATCH', `/api/admin/providers/${ia}`, { apiKey: 'sk-right' });
    expect(fixed.body.health).toMatchObject({ state: 'up', consecutiveFailures: 0 });
    expect((await ask(app, user.key, model)).status).toBe(200);
    expect(chatCalls(a)).toHaveLength(2);
    expect(chatCalls(a)[1]!.headers.authorization).toBe('Bearer sk-right');
  });

  test('a disabled provider that is the only one left is still tried, and its first answer brings it back', async () => {
    const a = await fake({ apiKey: 'sk-new' });
    const ia = await addProvider(a.url, { apiKey: 'sk-old' });
    const model = freshModel();
    await setRoute(model, [{ providerId: ia }]);
    const user = await customer();
    expect((await ask(app, user.key, model)).status).toBe(502);
    await waitFor(async () => (await adminCall('GET', `/api/admin/providers/${ia}`)).body.health.state === 'disabled');
    expect((await ask(app, user.key, model)).status).toBe(502);
    expect(chatCalls(a)).toHaveLength(2);
    // The provider's side is fixed (the account topped up, the key accepted again).
    a.apiKey = null;
    expect((await ask(app, user.key, model)).status).toBe(200);
    await waitFor(async () => (await adminCall('GET', `/api/admin/providers/${ia}`)).body.health.state === 'up');
  });

  test.skipIf(!onPostgres)('two instances share the cooldown, and an instance that starts reads it', async () => {
    const [a, b] = await Promise.all([fake(), fake()]);
    a.outage = 500;
    const second = await startTestApp({ database: app.database, env: env(home.url) });
    let third: TestApp | null = null;
    try {
      const [ia, ib] = await Promise.all([addProvider(a.url), addProvider(b.url)]);
      const model = freshModel();
      await setRoute(model, [
        { providerId: ia, priority: 0 },
        { providerId: ib, priority: 1 },
      ]);
      const user = await customer();
      // The routes reach the second instance by notification.
      await waitFor(async () => (await ask(second, user.key, model)).status === 200 && chatCalls(b).length > 0);
      const seen = chatCalls(a).length;
      // Failures on the first instance only.
      for (let i = seen; i < THRESHOLD; i++) await ask(app, user.key, model);
      await waitFor(async () => (await adminCall('GET', `/api/admin/providers/${ia}`, undefined, second)).body.health.state === 'cooling_down');
      const calls = chatCalls(a).length;
      for (let i = 0; i < 4; i++) expect((await ask(second, user.key, model)).status).toBe(200);
      expect(chatCalls(a)).toHaveLength(calls);
      third = await startTestApp({ database: app.database, env: env(home.url) });
      for (let i = 0; i < 4; i++) expect((await ask(third, user.key, model)).status).toBe(200);
      expect(chatCalls(a)).toHaveLength(calls);
    } finally {
      await third?.stop();
      await second.stop();
    }
  });
});
