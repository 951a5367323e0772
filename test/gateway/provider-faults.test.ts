// Clients cannot steer providers (issue 38, row 5): only a provider's own faults count against it. A
// moderation refusal is the client's (relayed, counting for nothing) where it used to disable the provider
// for everyone; a refusal naming our key, our credits or our quota still disables it; one account's slow
// requests count once, so five of them no longer cool a provider down; failovers after a timeout are
// capped per key and minute, so a route of timing-out providers cannot multiply one client's generations.
import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { chatCalls, routingHarness } from '../helpers/routing';
import { usageRows, waitFor } from '../helpers/gateway';

setDefaultTimeout(30_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const ADMIN = uniqueEmail('faults-admin');
const THRESHOLD = 3;
const TIMEOUT_FAILOVERS = 2;
const env = (defaultUpstream: string) => ({
  UPSTREAM_BASE_URL: defaultUpstream,
  ADMIN_EMAILS: ADMIN,
  PROVIDER_FAILURE_THRESHOLD: String(THRESHOLD),
  PROVIDER_COOLDOWN_SECONDS: '600',
  // No probes: a disabled or cooling provider stays so while a test reads it (probes: provider-healing.test.ts).
  PROVIDER_PROBE_SECONDS: '0',
  ROUTE_TIMEOUT_FAILOVERS_PER_MINUTE: String(TIMEOUT_FAILOVERS),
});
const routing = routingHarness(env, ADMIN);
const { fake, adminCall, addProvider, setRoute, customer, ask } = routing;
let app: TestApp;
beforeAll(() => {
  app = routing.app;
});

let modelCounter = 0;
const freshModel = () => `acme/faults-${++modelCounter}-${Math.random().toString(36).slice(2, 6)}`;
const healthOf = async (id: string) => (await adminCall('GET', `/api/admin/providers/${id}`)).body.health;

/** OpenRouter's moderation refusal (openrouter.ai/docs/api/reference/errors-and-debugging). */
const MODERATION = {
  code: 403,
  message: 'Your chosen model requires moderation and your input was flagged',
  metadata: { reasons: ['violence'], flagged_input: 'как сделать…', provider_name: 'OpenAI', model_slug: 'openai/gpt-4o-mini' },
};

/** A route of a provider answering `status` with `error`, then a good one; its ids and fakes. */
async function troubledRoute(status: number | 'hang', error: Record<string, unknown> | null, timeoutMs?: number) {
  const [bad, good] = await Promise.all([fake(), fake()]);
  bad.outage = status;
  bad.outageError = error;
  const [ibad, igood] = await Promise.all([addProvider(bad.url, timeoutMs ? { timeoutMs } : {}), addProvider(good.url)]);
  const model = freshModel();
  await setRoute(model, [
    { providerId: ibad, priority: 0 },
    { providerId: igood, priority: 1 },
  ]);
  return { bad, good, ibad, model };
}

describe('refusals: whose fault', () => {
  test('a moderation 403 is relayed to the client and counts for nothing: the provider stays up, no other is asked', async () => {
    const { bad, good, ibad, model } = await troubledRoute(403, MODERATION);
    const user = await customer();
    for (let i = 0; i < THRESHOLD + 2; i++) {
      const res = await ask(app, user.key, model);
      expect(res.status).toBe(403);
      expect(res.body.error.message).toContain('flagged');
    }
    expect(chatCalls(bad)).toHaveLength(THRESHOLD + 2);
    expect(chatCalls(good)).toHaveLength(0);
    expect(await healthOf(ibad)).toMatchObject({ state: 'up', consecutiveFailures: 0, lastError: null });
    // Another client is served by it as before.
    bad.outage = null;
    expect((await ask(app, (await customer()).key, model)).status).toBe(200);
    expect(chatCalls(bad)).toHaveLength(THRESHOLD + 3);
  });

  test('OpenAI-style content-policy, model-access and unexplained 403s are the client’s too', async () => {
    for (const error of [
      { message: 'Your request was rejected as a result of our safety system.', type: 'invalid_request_error', code: 'content_policy_violation' },
      { message: 'Forbidden', type: 'invalid_request_error', code: null },
      { message: 'Your organization is not allowed to access this model.', type: 'invalid_request_error', code: 'model_not_found' },
    ]) {
      const { good, ibad, model } = await troubledRoute(403, error);
      const res = await ask(app, (await customer()).key, model);
      expect(res.status).toBe(403);
      expect(chatCalls(good)).toHaveLength(0);
      expect((await healthOf(ibad)).state).toBe('up');
    }
  });

  test('a 403 naming our key or account, a 402 out of credits and a 429 out of quota disable the provider; the next one answers', async () => {
    const refusals: [number, Record<string, unknown>][] = [
      [403, { message: 'Your API key has been disabled', type: 'invalid_request_error', code: 'invalid_api_key' }],
      [403, { message: 'Country, region, or territory not supported', type: 'request_forbidden', code: 'unsupported_country_region_territory' }],
      [402, { code: 402, message: 'Insufficient credits. Add more using https://openrouter.ai/credits' }],
      [429, { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', code: 'insufficient_quota' }],
    ];
    for (const [status, error] of refusals) {
      const { good, ibad, model } = await troubledRoute(status, error);
      const user = await customer();
      expect((await ask(app, user.key, model)).status).toBe(200);
      expect(chatCalls(good)).toHaveLength(1);
      await waitFor(async () => (await healthOf(ibad)).state === 'disabled');
      expect((await healthOf(ibad)).lastError).toContain(String(status));
    }
  });

  test('a 402 about this request’s size goes to the next provider and counts for nothing', async () => {
    const { good, ibad, model } = await troubledRoute(402, {
      code: 402,
      message: 'This request requires more credits, or fewer max_tokens. You requested up to 16384 tokens, but can only afford 1200.',
    });
    const user = await customer();
    for (let i = 0; i < THRESHOLD + 1; i++) expect((await ask(app, user.key, model)).status).toBe(200);
    expect(chatCalls(good)).toHaveLength(THRESHOLD + 1);
    expect(await healthOf(ibad)).toMatchObject({ state: 'up', consecutiveFailures: 0 });
  });
});

describe('timeouts', () => {
  test('one account’s slow requests count once: they do not cool the provider down; slow answers for several accounts do', async () => {
    const slow = await fake();
    slow.outage = 'hang';
    const islow = await addProvider(slow.url, { timeoutMs: 150 });
    const model = freshModel();
    await setRoute(model, [{ providerId: islow }]);
    const user = await customer();
    for (let i = 0; i < THRESHOLD + 2; i++) expect((await ask(app, user.key, model)).status).toBe(504);
    expect(chatCalls(slow)).toHaveLength(THRESHOLD + 2);
    await waitFor(async () => (await healthOf(islow)).consecutiveFailures === 1);
    expect((await healthOf(islow)).state).toBe('up');

    // Clients of other accounts get no answer either: now it is the provider.
    for (let i = 1; i < THRESHOLD; i++) expect((await ask(app, (await customer()).key, model)).status).toBe(504);
    await waitFor(async () => (await healthOf(islow)).state === 'cooling_down');
    expect((await healthOf(islow)).consecutiveFailures).toBe(THRESHOLD);
  });

  test.skipIf(!onPostgres)('one account’s timeouts count once across instances too', async () => {
    const slow = await fake();
    slow.outage = 'hang';
    const islow = await addProvider(slow.url, { timeoutMs: 150 });
    const model = freshModel();
    await setRoute(model, [{ providerId: islow }]);
    const others = await Promise.all(Array.from({ length: THRESHOLD }, () => startTestApp({ database: app.database, env: env(routing.home.url) })));
    try {
      for (const other of others) await waitFor(() => other.instance.services.routing.candidates(model)[0]?.provider.id === islow);
      const user = await customer();
      // The same account on every instance: one failure, the provider stays up.
      for (const target of [app, ...others]) expect((await ask(target, user.key, model)).status).toBe(504);
      await waitFor(async () => (await healthOf(islow)).consecutiveFailures === 1);
      await Bun.sleep(200);
      expect(await healthOf(islow)).toMatchObject({ state: 'up', consecutiveFailures: 1 });
    } finally {
      await Promise.all(others.map((o) => o.close()));
    }
  });

  test(`failovers after a timeout are capped per key and minute (${TIMEOUT_FAILOVERS}): then the request ends with its timeout`, async () => {
    const [a, b, c] = await Promise.all([fake(), fake(), fake()]);
    a.outage = 'hang';
    b.outage = 'hang';
    const [ia, ib, ic] = await Promise.all([addProvider(a.url, { timeoutMs: 150 }), addProvider(b.url, { timeoutMs: 150 }), addProvider(c.url)]);
    const model = freshModel();
    await setRoute(model, [
      { providerId: ia, priority: 0 },
      { providerId: ib, priority: 1 },
      { providerId: ic, priority: 2 },
    ]);
    const user = await customer();
    // Two timeouts, two failovers: the budget of the minute.
    expect((await ask(app, user.key, model)).status).toBe(200);
    expect([chatCalls(a).length, chatCalls(b).length, chatCalls(c).length]).toEqual([1, 1, 1]);
    // No more failovers after a timeout for this key this minute: one attempt, its timeout.
    const capped = await ask(app, user.key, model);
    expect(capped.status).toBe(504);
    expect([chatCalls(a).length, chatCalls(b).length, chatCalls(c).length]).toEqual([2, 1, 1]);
    const rows = (await usageRows(app, user.userId)) as unknown as { attempts: number; status: string }[];
    expect(rows.map((r) => [r.status, r.attempts]).sort()).toEqual(
      [
        ['ok', 3],
        ['upstream_timeout', 1],
      ].sort(),
    );
    // Another key has its own.
    expect((await ask(app, (await customer()).key, model)).status).toBe(200);
    expect([chatCalls(a).length, chatCalls(b).length, chatCalls(c).length]).toEqual([3, 2, 2]);
  });
});
