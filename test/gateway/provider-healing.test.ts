// Providers that heal themselves (issue 43 point 4): a provider cooling down or disabled for faults is probed
// by the gateway every PROVIDER_PROBE_SECONDS and back in service on its own when it answers; the failure
// ratio rule cools down a provider whose faults come between successes; probes run once across instances;
// «Проверить сейчас» over the admin API; the providers' balances read and the operators mailed once per
// crossing below a threshold. The cooldown here is ten minutes, so only a probe can bring a provider back.
import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/gateway';
import { chatCalls, routingHarness } from '../helpers/routing';

setDefaultTimeout(30_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const ADMIN = uniqueEmail('healing-admin');
const PROBE_SECONDS = 1;
let smtp: FakeSmtp;
beforeAll(async () => {
  smtp = await startFakeSmtp();
  return async () => smtp.close();
});
const env = (defaultUpstream: string) => ({
  UPSTREAM_BASE_URL: defaultUpstream,
  ADMIN_EMAILS: ADMIN,
  SMTP_URL: smtp.url,
  PROVIDER_FAILURE_THRESHOLD: '3',
  PROVIDER_COOLDOWN_SECONDS: '600',
  PROVIDER_PROBE_SECONDS: String(PROBE_SECONDS),
  PROVIDER_FAILURE_WINDOW: '10',
  PROVIDER_FAILURE_RATIO: '0.5',
  PROVIDER_BALANCE_SECONDS: '1',
});

const routing = routingHarness(env, ADMIN);
const { fake, adminCall, addProvider, setRoute, customer, ask } = routing;
let app: TestApp;
beforeAll(() => {
  app = routing.app;
});

let modelCounter = 0;
const freshModel = () => `acme/healing-${++modelCounter}-${Math.random().toString(36).slice(2, 6)}`;

interface ProbeView {
  at: string;
  ok: boolean;
  status: number | null;
  latencyMs: number;
  error: string | null;
  trigger: 'schedule' | 'operator';
}

async function provider(id: string) {
  const res = await adminCall('GET', `/api/admin/providers/${id}`);
  expect(res.status).toBe(200);
  return res.body as {
    health: { state: string; consecutiveFailures: number };
    probes: ProbeView[];
    lastHour: { attempts: number; faults: number; successRate: number | null; p50LatencyMs: number | null; p95LatencyMs: number | null };
    balance: { url: string; amount: number | null; threshold: number | null; below: boolean; checkedAt: string | null; error: string | null } | null;
  };
}

const stateOf = async (id: string) => (await provider(id)).health.state;
const waitForState = (id: string, state: string) => waitFor(async () => (await stateOf(id)) === state, 10_000, 50);
const modelsCalls = (f: FakeUpstream) => f.requests.filter((r) => r.method === 'GET' && r.path === '/v1/models').length;

/**
 * The host breaks (every POST answers `status`, GET /models 503, so probes fail too): three requests fail over
 * to `default` with no client error, and the provider cools down.
 */
async function breakDown(p: FakeUpstream, id: string, model: string, key: string, status = 500) {
  p.outage = status;
  p.modelsDown = true;
  for (let i = 0; i < 3; i++) expect((await ask(app, key, model)).status).toBe(200);
  await waitForState(id, 'cooling_down');
}

/** A provider first in a route of its own, `default` (the harness's home fake) behind it. */
async function routedProvider(f: FakeUpstream, extra: Record<string, unknown> = {}) {
  const id = await addProvider(f.url, extra);
  const model = freshModel();
  await setRoute(model, [
    { providerId: id, priority: 0 },
    { providerId: 'default', priority: 1 },
  ]);
  return { id, model };
}

describe('probes bring a provider back without an operator', () => {
  test('a provider that failed cools down, a probe sees it answering again, it is up and requests go to it again', async () => {
    const p = await fake();
    const { id, model } = await routedProvider(p);
    const { key } = await customer();
    await breakDown(p, id, model, key);
    // Cooling down with the host still broken: the probes fail and change nothing.
    await waitFor(async () => (await provider(id)).probes.some((probe) => !probe.ok), 10_000, 50);
    expect(await stateOf(id)).toBe('cooling_down');
    const failing = (await provider(id)).probes.find((probe) => !probe.ok)!;
    expect(failing).toMatchObject({ status: 503, trigger: 'schedule' });
    expect(failing.error).toContain('503');

    const before = chatCalls(p).length;
    p.outage = null;
    p.modelsDown = false;
    await waitForState(id, 'up');
    const seen = await provider(id);
    expect(seen.probes[0]).toMatchObject({ ok: true, status: 200, trigger: 'schedule', error: null });
    expect(seen.health.consecutiveFailures).toBe(0);
    // Nobody touched the provider: no audit row of it.
    const audit = await adminCall('GET', `/api/admin/audit?targetId=${id}`);
    expect((audit.body.data as { action: string }[]).map((r) => r.action)).toEqual(['provider.create']);
    expect((await ask(app, key, model)).status).toBe(200);
    expect(chatCalls(p).length).toBe(before + 1);
  });

  test('a provider disabled because it refused our key returns once the key works there again', async () => {
    const p = await fake({ apiKey: 'sk-provider-side-0001' });
    const { id, model } = await routedProvider(p, { apiKey: 'sk-ours-not-yet-0002' });
    const { key } = await customer();
    expect((await ask(app, key, model)).status).toBe(200);
    await waitForState(id, 'disabled');
    // Its /models wants the key too: the probes are refused while the key is.
    await waitFor(async () => (await provider(id)).probes.some((probe) => probe.status === 401), 10_000, 50);
    expect(await stateOf(id)).toBe('disabled');
    const refused = (await provider(id)).probes.find((probe) => probe.status === 401)!;
    expect(refused.error).not.toContain('sk-ours-not-yet-0002');

    // The provider's side accepts our key now (the account was paid, the key activated).
    const before = chatCalls(p).length;
    p.apiKey = 'sk-ours-not-yet-0002';
    await waitForState(id, 'up');
    expect((await ask(app, key, model)).status).toBe(200);
    expect(chatCalls(p).length).toBe(before + 1);
  });

  test('a provider killed and started again under load: no client error, and the first probe after the restart puts it back', async () => {
    const first = await startFakeUpstream();
    const port = Number(new URL(first.url).port);
    const { id, model } = await routedProvider(first);
    const { key } = await customer();
    const statuses: number[] = [];
    let running = true;
    const worker = async () => {
      while (running) statuses.push((await ask(app, key, model)).status);
    };
    const load = Promise.all([worker(), worker(), worker(), worker()]);
    try {
      await waitFor(() => chatCalls(first).length >= 8, 10_000, 10);
      await first.close();
      await waitForState(id, 'cooling_down');
      const sentDuringOutage = statuses.length;
      await waitFor(() => statuses.length >= sentDuringOutage + 8, 10_000, 10);

      const again = await startFakeUpstream({ port });
      try {
        await waitForState(id, 'up');
        // Probed once since it was back, and that probe put it in service: within a probe period of the restart.
        expect(modelsCalls(again)).toBe(1);
        const newest = (await provider(id)).probes[0]!;
        expect(newest).toMatchObject({ ok: true, trigger: 'schedule' });
        await waitFor(() => chatCalls(again).length >= 4, 10_000, 10);
      } finally {
        running = false;
        await load;
        await again.close();
      }
    } finally {
      running = false;
      await load;
    }
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });
});

describe('the failure ratio', () => {
  test('5 faults among its last 10 requests, never 3 in a row, put a provider in cooldown; a probe brings it back', async () => {
    const p = await fake();
    const id = await addProvider(p.url);
    const good = freshModel();
    const bad = freshModel();
    await setRoute(good, [{ providerId: id }]);
    await setRoute(bad, [{ providerId: id, model: 'fake/error-500' }]);
    const { key } = await customer();
    p.modelsDown = true;
    // fault, success, fault, success…: four faults among eight leave it up (the threshold of 3 in a row is never met).
    for (let i = 0; i < 4; i++) {
      expect((await ask(app, key, bad)).status).toBe(502);
      expect((await ask(app, key, good)).status).toBe(200);
    }
    // The last success's reset is written after the fault before it (one write after another per provider).
    await waitFor(async () => (await provider(id)).health.consecutiveFailures === 0, 10_000, 50);
    expect((await provider(id)).health.state).toBe('up');
    expect((await ask(app, key, bad)).status).toBe(502);
    await waitForState(id, 'cooling_down');
    const hour = (await provider(id)).lastHour;
    expect(hour.attempts).toBe(9);
    expect(hour.faults).toBe(5);
    expect(hour.successRate).toBeCloseTo(4 / 9, 5);
    expect(hour.p50LatencyMs).not.toBeNull();
    expect(hour.p95LatencyMs).toBeGreaterThanOrEqual(hour.p50LatencyMs!);

    p.modelsDown = false;
    await waitForState(id, 'up');
  });
});

describe('«Проверить сейчас»', () => {
  test('an admin probes a provider at once: the outcome is returned, recorded, audited, and a success puts it back', async () => {
    const p = await fake();
    const { id, model } = await routedProvider(p);
    const { key } = await customer();
    await breakDown(p, id, model, key, 503);

    const failed = await adminCall('POST', `/api/admin/providers/${id}/probe`);
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ ok: false, status: 503, state: 'cooling_down' });
    expect(failed.body.error).toContain('503');

    p.outage = null;
    p.modelsDown = false;
    const ok = await adminCall('POST', `/api/admin/providers/${id}/probe`);
    expect(ok.body).toMatchObject({ ok: true, status: 200, error: null, state: 'up' });
    expect(ok.body.latencyMs).toBeGreaterThanOrEqual(0);
    expect(await stateOf(id)).toBe('up');
    const operatorProbes = (await provider(id)).probes.filter((probe) => probe.trigger === 'operator');
    expect(operatorProbes.map((probe) => probe.ok)).toEqual([true, false]);

    const audit = await adminCall('GET', `/api/admin/audit?action=provider.probe&targetId=${id}`);
    expect(audit.body.data).toHaveLength(2);
    // Newest first, in the audit's Russian.
    expect((audit.body.data[0].changes as { text: string }[]).map((c) => c.text)).toEqual(
      expect.arrayContaining(['отвечает: да', 'код ответа: 200', 'состояние: работает']),
    );

    // The built-in provider too; an unknown one is 404; a customer may not.
    expect((await adminCall('POST', '/api/admin/providers/default/probe')).body).toMatchObject({ ok: true, state: 'up' });
    expect((await adminCall('POST', '/api/admin/providers/no-such-provider/probe')).status).toBe(404);
    const user = await registerUser(app.url);
    expect((await call(app.url, 'POST', `/api/admin/providers/${id}/probe`, { token: user.token })).status).toBe(403);
  });

  test('a provider without /models is probed with a one-token chat request for the model the operator named', async () => {
    const p = await fake();
    const id = await addProvider(p.url, { probeModel: 'acme/probe-model' });
    const res = await adminCall('POST', `/api/admin/providers/${id}/probe`);
    expect(res.body).toMatchObject({ ok: true, status: 200 });
    const probe = chatCalls(p).at(-1)!;
    expect(probe.body).toMatchObject({ model: 'acme/probe-model', max_tokens: 1, stream: false });
    expect(modelsCalls(p)).toBe(0);
  });
});

describe('balances', () => {
  test('a provider’s balance is read from its credits endpoint, shown, and the operators mailed once per crossing below its threshold', async () => {
    const q = await fake({ apiKey: 'sk-balance-key-0003' });
    q.credits = { total_credits: 10, total_usage: 2 };
    const id = await addProvider(q.url, { apiKey: 'sk-balance-key-0003', balanceUrl: `${q.url}/credits`, balanceThreshold: 5 });
    const balance = async () => (await provider(id)).balance!;
    await waitFor(async () => (await balance()).amount === 8, 10_000, 50);
    expect(await balance()).toMatchObject({ url: `${q.url}/credits`, amount: 8, threshold: 5, below: false, error: null });
    const credits = q.requests.find((r) => r.path === '/v1/credits')!;
    expect(credits.headers.authorization).toBe('Bearer sk-balance-key-0003');

    const mails = () => smtp.messages.filter((m) => m.to.includes(ADMIN) && m.subject.includes('Баланс провайдера'));
    q.credits = { total_credits: 10, total_usage: 6.5 };
    await waitFor(async () => (await balance()).below, 10_000, 50);
    expect((await balance()).amount).toBe(3.5);
    await waitFor(() => mails().length === 1, 10_000, 50);
    expect(mails()[0]!.text).toContain('3,5');
    // Still below after more reads: no second mail.
    const readAt = (await balance()).checkedAt;
    await waitFor(async () => (await balance()).checkedAt !== readAt, 10_000, 50);
    q.credits = { total_credits: 10, total_usage: 7 };
    await waitFor(async () => (await balance()).amount === 3, 10_000, 50);
    const lowerAt = (await balance()).checkedAt;
    await waitFor(async () => (await balance()).checkedAt !== lowerAt, 10_000, 50);
    expect(mails()).toHaveLength(1);

    // Topped up above the threshold, then down again: the next crossing mails again.
    q.credits = { total_credits: 20, total_usage: 7 };
    await waitFor(async () => (await balance()).amount === 13, 10_000, 50);
    expect((await balance()).below).toBe(false);
    q.credits = { total_credits: 20, total_usage: 16 };
    await waitFor(() => mails().length === 2, 10_000, 50);
    expect(mails()).toHaveLength(2);

    // A read that fails is shown as such, the last amount kept.
    q.credits = null;
    await waitFor(async () => (await balance()).error !== null, 10_000, 50);
    expect(await balance()).toMatchObject({ amount: 4, error: 'status 404' });
  });

  test('a provider on no balance endpoint shows none', async () => {
    const p = await fake();
    const id = await addProvider(p.url);
    expect((await provider(id)).balance).toBeNull();
  });
});

describe('two instances', () => {
  test.skipIf(!onPostgres)('probe a provider once per period between them', async () => {
    const second = await startTestApp({ database: app.database, env: env(routing.home.url) });
    try {
      const p = await fake();
      const { id, model } = await routedProvider(p);
      const { key } = await customer();
      await breakDown(p, id, model, key);
      const probes = async () =>
        (await app.sql<{ at: Date | string }>(`select at from provider_probes where provider_id = $1 order by at, id`, [id])).map((r) => new Date(r.at).getTime());
      await waitFor(async () => (await probes()).length >= 6, 20_000, 50);
      const times = await probes();
      // No two probes within half a period: neither instance probed what the other just had.
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual((PROBE_SECONDS * 1000) / 2);
      // The second instance follows the recovery the first one's probe (or its own) wrote.
      p.outage = null;
      p.modelsDown = false;
      await waitFor(async () => (await call(second.url, 'GET', `/api/admin/providers/${id}`, { token: routing.adminToken })).body.health.state === 'up', 10_000, 50);
      expect((await ask(second, key, model)).status).toBe(200);
    } finally {
      await second.stop();
    }
  });
});
