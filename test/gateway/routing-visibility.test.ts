// What routing shows and where stored state leads: /health/upstream and /metrics per provider, stored
// responses read back from the provider that created them (on any instance), the information document
// naming the providers and routes endpoints.
import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { FakeUpstream } from '../fakes/upstream';
import { call, registerAdmin, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { routingHarness } from '../helpers/routing';
import { openaiClient, waitFor } from '../helpers/gateway';

setDefaultTimeout(30_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const ADMIN = uniqueEmail('routing-visibility-admin');
const THRESHOLD = 2;
const env = (defaultUpstream: string) => ({
  UPSTREAM_BASE_URL: defaultUpstream,
  ADMIN_EMAILS: ADMIN,
  PROVIDER_FAILURE_THRESHOLD: String(THRESHOLD),
  PROVIDER_COOLDOWN_SECONDS: '60',
  // Every probe asks the providers: the tests change them between probes.
  UPSTREAM_HEALTH_CACHE_SECONDS: '0',
});
const routing = routingHarness(env, ADMIN);
const { fake, adminCall, addProvider, setRoute, deleteRoute, customer, ask } = routing;
let home: FakeUpstream;
let app: TestApp;
let admin: string;
beforeAll(() => {
  home = routing.home;
  app = routing.app;
  admin = routing.adminToken;
});

let modelCounter = 0;
const freshModel = () => `acme/visible-${++modelCounter}-${Math.random().toString(36).slice(2, 6)}`;

/** One sample of /metrics text: the value of `name{labels}`, 0 when absent. */
async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inside = line.slice(name.length + 1, line.indexOf('}'));
    const have = inside.split(',');
    if (have.length === wanted.length && wanted.every((w) => have.includes(w))) return Number(line.slice(line.indexOf('}') + 1));
  }
  return 0;
}

describe('GET /health/upstream per provider', () => {
  /** The endpoint as an admin reads it: with the details. */
  const asAdmin = (target: TestApp = app, token = admin) => call(target.url, 'GET', '/health/upstream', { token });

  test('anyone gets {status} only; an admin gets each provider with its health; another credential is refused', async () => {
    const a = await fake();
    const ia = await addProvider(a.url, { name: 'Первый' });
    const model = freshModel();
    await setRoute(model, [{ providerId: ia }]);
    a.outage = 500;
    const user = await customer();
    expect((await ask(app, user.key, model)).status).toBe(502);
    await waitFor(async () => (await asAdmin()).body.providers?.find((p: { id: string }) => p.id === ia)?.lastError !== null);

    const open = await call(app.url, 'GET', '/health/upstream');
    expect(open.status).toBe(200);
    expect(open.body).toEqual({ status: 'ok' });
    expect(open.text).not.toContain('Первый');
    expect(open.text).not.toContain(ia);

    const ok = await asAdmin();
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'ok' });
    expect(ok.body.latencyMs).toBeGreaterThanOrEqual(0);
    expect(ok.body.providers[0]).toMatchObject({ id: 'default', name: 'default', state: 'up', consecutiveFailures: 0, lastError: null });
    expect(ok.body.providers[0].latencyMs).toBeGreaterThanOrEqual(0);
    const first = ok.body.providers.find((p: { id: string }) => p.id === ia);
    expect(first).toMatchObject({ id: ia, name: 'Первый', enabled: true, state: 'up', consecutiveFailures: 1 });
    expect(first.lastError).toContain('500');

    // A customer's JWT or API key is no way in to the details.
    expect((await call(app.url, 'GET', '/health/upstream', { token: user.token })).status).toBe(403);
    expect((await call(app.url, 'GET', '/health/upstream', { token: user.key })).status).toBe(401);
    a.outage = null;
    await deleteRoute(model);
  });

  test('a route left without a provider is named to the admin but keeps the instance in (200) while anything can be served; 503 only when nothing can', async () => {
    const [a, b] = await Promise.all([fake(), fake()]);
    const [ia, ib] = await Promise.all([addProvider(a.url), addProvider(b.url)]);
    const model = freshModel();
    await setRoute(model, [
      { providerId: ia, priority: 0 },
      { providerId: ib, priority: 1 },
    ]);

    // Both providers of the route fail until both cool down: its model has no provider left.
    a.outage = 500;
    b.outage = 503;
    const user = await customer();
    for (let i = 0; i < THRESHOLD; i++) expect((await ask(app, user.key, model)).status).toBe(502);
    await waitFor(async () => (await asAdmin()).body.unservedRoutes?.includes(model) === true);
    const down = await asAdmin();
    expect(down.status).toBe(200);
    expect(down.body.status).toBe('ok');
    expect(down.body.unservedRoutes).toEqual([model]);
    const cooling = down.body.providers.find((p: { id: string }) => p.id === ia);
    expect(cooling).toMatchObject({ state: 'cooling_down', consecutiveFailures: THRESHOLD });
    expect(Date.parse(cooling.cooldownUntil)).toBeGreaterThan(Date.now());
    expect((await call(app.url, 'GET', '/health/upstream')).body).toEqual({ status: 'ok' });

    // A route whose only target is switched off: the same, the instance stays in.
    const c = await fake();
    const ic = await addProvider(c.url);
    const lonely = freshModel();
    await setRoute(lonely, [{ providerId: ic }]);
    expect((await adminCall('PATCH', `/api/admin/providers/${ic}`, { enabled: false })).status).toBe(200);
    await waitFor(async () => (await asAdmin()).body.unservedRoutes?.includes(lonely) === true);
    expect((await call(app.url, 'GET', '/health/upstream')).status).toBe(200);

    // An operator fixes the second provider: the route is served again.
    b.outage = null;
    expect((await adminCall('PATCH', `/api/admin/providers/${ib}`, { enabled: true })).status).toBe(200);
    await waitFor(async () => !(await asAdmin()).body.unservedRoutes?.includes(model));
    expect((await asAdmin()).body.providers.find((p: { id: string }) => p.id === ib)).toMatchObject({ state: 'up', consecutiveFailures: 0 });
    await deleteRoute(model);
    await deleteRoute(lonely);

    // default is down and no route can serve: nothing can be served, 503; a "*" route to a working
    // provider brings the instance back.
    const dead = await startTestApp({ env: env('http://127.0.0.1:9/v1') });
    try {
      const deadAdmin = (await registerAdmin(dead, ADMIN)).token;
      const before = await call(dead.url, 'GET', '/health/upstream');
      expect(before.status).toBe(503);
      expect(before.body).toEqual({ status: 'unavailable' });
      expect((await asAdmin(dead, deadAdmin)).body.error).toBe('unreachable');
      const created = await call(dead.url, 'POST', '/api/admin/providers', { token: deadAdmin, body: { name: 'живой', baseUrl: a.url } });
      expect(created.status).toBe(201);
      a.outage = null;
      const routed = await call(dead.url, 'PUT', '/api/admin/routes', { token: deadAdmin, body: { pattern: '*', targets: [{ providerId: created.body.id }] } });
      expect(routed.status).toBe(200);
      await waitFor(async () => (await call(dead.url, 'GET', '/health/upstream')).status === 200);
    } finally {
      await dead.close();
    }
  });
});

describe('/metrics per provider', () => {
  test('attempts by provider and outcome, their latency, failovers and cooldowns entered', async () => {
    const [a, b, c] = await Promise.all([fake(), fake(), fake()]);
    a.outage = 502;
    c.outage = 401;
    const [ia, ib, ic] = await Promise.all([addProvider(a.url), addProvider(b.url), addProvider(c.url)]);
    const model = freshModel();
    await setRoute(model, [
      { providerId: ic, priority: 0 },
      { providerId: ia, priority: 1 },
      { providerId: ib, priority: 2 },
    ]);
    const user = await customer();
    // The first request: c refuses our key (disabled), a fails, b answers. The second: a fails again and
    // cools down, b answers. The third goes straight to b.
    for (let i = 0; i < THRESHOLD + 1; i++) expect((await ask(app, user.key, model)).status).toBe(200);
    expect(await metric('conduit_provider_requests_total', { provider: ic, outcome: 'refused' })).toBe(1);
    expect(await metric('conduit_provider_requests_total', { provider: ia, outcome: 'server_error' })).toBe(THRESHOLD);
    expect(await metric('conduit_provider_requests_total', { provider: ib, outcome: 'ok' })).toBe(THRESHOLD + 1);
    expect(await metric('conduit_provider_response_seconds_count', { provider: ib })).toBe(THRESHOLD + 1);
    expect(await metric('conduit_provider_response_seconds_bucket', { provider: ib, le: '+Inf' })).toBe(THRESHOLD + 1);
    expect(await metric('conduit_provider_failovers_total', { provider: ic })).toBe(1);
    expect(await metric('conduit_provider_failovers_total', { provider: ia })).toBe(THRESHOLD);
    expect(await metric('conduit_provider_failovers_total', { provider: ib })).toBe(0);
    expect(await metric('conduit_provider_state_changes_total', { provider: ia, state: 'cooling_down' })).toBe(1);
    await waitFor(async () => (await metric('conduit_provider_state_changes_total', { provider: ic, state: 'disabled' })) === 1);
    await deleteRoute(model);
  });
});

test('the information document names the providers and routes endpoints', async () => {
  const res = await call(app.url, 'GET', '/');
  expect(res.body.endpoints.admin).toMatchObject({
    providers: 'GET|POST /api/admin/providers, GET|PATCH|DELETE /api/admin/providers/:id, POST /api/admin/providers/:id/probe',
    routes: 'GET|PUT /api/admin/routes, DELETE /api/admin/routes?pattern=',
  });
});

describe('GET /v1/models with routes', () => {
  test('lists default’s unrouted models, each exact route’s id and a prefix route’s models under it, with our prices; a provider that cannot list leaves the others in', async () => {
    const tag = Math.random().toString(36).slice(2, 7);
    const prefix = `vendor-${tag}/`;
    const [b, c, d] = await Promise.all([fake(), fake(), fake()]);
    b.models = [
      { id: 'gpt-4o-mini', created: 1_700_000_500, owned_by: 'openai' },
      { id: `${prefix}alpha`, created: 1_700_000_600, owned_by: 'vendor' },
      { id: `${prefix}special`, created: 1_700_000_650, owned_by: 'vendor' },
      { id: 'elsewhere/x', created: 1_700_000_700, owned_by: 'elsewhere' },
    ];
    c.models = [{ id: `${prefix}beta`, created: 1_700_000_800, owned_by: 'vendor' }];
    d.modelsDown = true;
    const [ib, ic, id] = await Promise.all([addProvider(b.url), addProvider(c.url), addProvider(d.url)]);
    const mini = `acme/mini-${tag}`;
    await setRoute(mini, [{ providerId: ib, model: 'gpt-4o-mini' }]);
    await setRoute(`${prefix}*`, [
      { providerId: id, priority: 0 },
      { providerId: ib, priority: 1 },
      { providerId: ic, priority: 2 },
    ]);
    // A longer pattern takes one of b's models: it is listed once, under that route.
    await setRoute(`${prefix}special`, [{ providerId: ic }]);
    // The default's model acme/large now goes to b, which does not list it: still served, so listed.
    await setRoute('acme/large', [{ providerId: ib }]);
    expect((await adminCall('PUT', '/api/admin/prices', { pattern: mini, promptPerMillion: 2, completionPerMillion: 4 })).status).toBe(200);
    try {
      const user = await customer();
      const client = openaiClient(app, user.key);
      await waitFor(async () => (await client.models.list()).data.some((m) => m.id === mini));
      const listed = (await client.models.list()).data as unknown as {
        id: string;
        owned_by: string;
        created: number;
        pricing: { prompt: string; completion: string };
      }[];
      const ids = listed.map((m) => m.id);
      expect(ids).toContain('acme/chat'); // default's, no route
      expect(ids).toContain('acme/large');
      expect(ids).toContain(mini);
      expect(ids).toContain(`${prefix}alpha`);
      expect(ids).toContain(`${prefix}beta`);
      expect(ids.filter((i) => i === `${prefix}special`)).toHaveLength(1);
      expect(ids).not.toContain('gpt-4o-mini'); // the provider's own id, not what clients ask for
      expect(ids).not.toContain('elsewhere/x'); // not under the route's prefix
      expect(new Set(ids).size).toBe(ids.length);
      const entry = listed.find((m) => m.id === mini)!;
      expect(entry).toMatchObject({ id: mini, owned_by: 'openai', created: 1_700_000_500, pricing: { prompt: '0.000002', completion: '0.000004' } });
      expect((await client.models.retrieve(`${prefix}beta`)).id).toBe(`${prefix}beta`);
      // d could not list: the others are served all the same, and d was asked.
      expect(d.requests.some((r) => r.path === '/v1/models')).toBe(true);
    } finally {
      for (const pattern of [mini, `${prefix}*`, `${prefix}special`, 'acme/large']) await deleteRoute(pattern);
    }
  });
});

describe('margin: cost prices per route target', () => {
  test('each usage row records what the answering provider charges at its target’s cost price; the daily stats show spend, provider cost and margin per day, model and provider', async () => {
    const [a, b, c] = await Promise.all([fake(), fake(), fake()]);
    a.outage = 500;
    const [ia, ib, ic] = await Promise.all([addProvider(a.url), addProvider(b.url), addProvider(c.url)]);
    const priced = freshModel();
    const unpriced = freshModel();
    const put = await adminCall('PUT', '/api/admin/routes', {
      pattern: priced,
      targets: [
        { providerId: ia, priority: 0, costPrice: { promptPerMillion: 9, completionPerMillion: 9 } },
        { providerId: ib, priority: 1, costPrice: { promptPerMillion: 0.05, completionPerMillion: 0.1 } },
      ],
    });
    expect(put.status).toBe(200);
    expect(put.body.targets[1]).toEqual({ providerId: ib, priority: 1, weight: 1, costPrice: { promptPerMillion: 0.05, completionPerMillion: 0.1 } });
    const listed = await adminCall('GET', '/api/admin/routes');
    expect(listed.body.routes.find((r: { pattern: string }) => r.pattern === priced).targets[0].costPrice).toEqual({ promptPerMillion: 9, completionPerMillion: 9 });
    await setRoute(unpriced, [{ providerId: ic }]);

    const user = await customer();
    // a fails, b answers: b's cost price. The fake reports 12 prompt and 7 completion tokens; TOKEN_PRICE is
    // 125 nano a token both ways: 2 375 nano charged; b charges 12 × 0.05 + 7 × 0.1 per 1M = 1 300 nano.
    for (let i = 0; i < 2; i++) expect((await ask(app, user.key, priced)).status).toBe(200);
    expect((await ask(app, user.key, unpriced)).status).toBe(200);
    await app.instance.services.billing.flush();
    const rows = await app.sql<{ model: string; provider_id: string; cost_nano: string; provider_cost_nano: string | null }>(
      'select model, provider_id, cost_nano::text, provider_cost_nano::text from usage_records where user_id = $1 order by model, id',
      [user.userId],
    );
    const byModel = (x: unknown[], y: unknown[]) => (x[0] === y[0] ? 0 : x[0] === priced ? -1 : 1);
    expect(rows.map((r) => [r.model, r.provider_id, r.cost_nano, r.provider_cost_nano]).sort(byModel)).toEqual([
      [priced, ib, '2375', '1300'],
      [priced, ib, '2375', '1300'],
      [unpriced, ic, '2375', null],
    ]);

    const today = new Date().toISOString().slice(0, 10);
    const stats = await adminCall('GET', `/api/admin/stats/daily?from=${today}&to=${today}`);
    expect(stats.status).toBe(200);
    const mine = stats.body.byModelProvider.filter((m: { model: string }) => m.model === priced || m.model === unpriced);
    expect(mine).toHaveLength(2);
    const p = mine.find((m: { model: string }) => m.model === priced);
    expect(p).toMatchObject({ day: today, provider: ib, requests: 2 });
    expect(p.spend).toBeCloseTo(4750e-9, 15);
    expect(p.providerCost).toBeCloseTo(2600e-9, 15);
    expect(p.margin).toBeCloseTo(2150e-9, 15);
    expect(mine.find((m: { model: string }) => m.model === unpriced)).toMatchObject({ provider: ic, requests: 1, providerCost: null, margin: null });
    // The day's figures are the sums of the priced groups.
    const day = stats.body.days[0];
    const pricedGroups = stats.body.byModelProvider.filter((m: { providerCost: number | null }) => m.providerCost !== null);
    const sum = (key: 'providerCost' | 'margin') => pricedGroups.reduce((t: number, m: Record<string, number>) => t + m[key]!, 0);
    expect(day.providerCost).toBeCloseTo(sum('providerCost'), 12);
    expect(day.margin).toBeCloseTo(sum('margin'), 12);
    expect(stats.body.totals.providerCost).toBeCloseTo(day.providerCost, 12);
    await deleteRoute(priced);
    await deleteRoute(unpriced);
  });
});

describe('usage rows name the provider and the attempts for operators', () => {
  test('an admin’s CSV export of an account has provider_id, attempts and provider_cost, the admin’s account view counts by provider; the customer’s own export names none', async () => {
    const [a, b] = await Promise.all([fake(), fake()]);
    a.outage = 503;
    const [ia, ib] = await Promise.all([addProvider(a.url), addProvider(b.url)]);
    const model = freshModel();
    const put = await adminCall('PUT', '/api/admin/routes', {
      pattern: model,
      targets: [
        { providerId: ia, priority: 0 },
        { providerId: ib, priority: 1, costPrice: { promptPerMillion: 0.05, completionPerMillion: 0.1 } },
      ],
    });
    expect(put.status).toBe(200);
    const user = await customer();
    expect((await ask(app, user.key, model)).status).toBe(200);
    expect((await ask(app, user.key, 'acme/chat')).status).toBe(200);

    const exported = await fetch(`${app.url}/api/admin/users/${user.userId}/usage/export`, { headers: { authorization: `Bearer ${admin}` } });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toContain('text/csv');
    const lines = (await exported.text())
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    const header = lines[0]!.split(',');
    expect(header.slice(-3)).toEqual(['provider_id', 'attempts', 'provider_cost']);
    const cells = lines.slice(1).map((line) => Object.fromEntries(line.split(',').map((v, i) => [header[i], v])));
    // Newest first.
    expect(cells.map((c) => [c.model, c.provider_id, c.attempts, c.provider_cost])).toEqual([
      ['acme/chat', 'default', '1', ''],
      [model, ib, '2', '0.000001300'],
    ]);

    // The admin's view of the account: requests per provider, those that failed over, attempts.
    const detail = await adminCall('GET', `/api/admin/users/${user.userId}`);
    expect(detail.status).toBe(200);
    const byProvider = Object.fromEntries(detail.body.usageByProvider.map((p: { provider: string }) => [p.provider, p]));
    expect(byProvider[ib]).toMatchObject({ requests: 1, failedOver: 1, attempts: 2 });
    expect(byProvider[ib].providerCost).toBeCloseTo(1300e-9, 15);
    expect(byProvider.default).toMatchObject({ requests: 1, failedOver: 0, attempts: 1, providerCost: null });

    // The customer's own file is as before.
    const own = await fetch(`${app.url}/api/usage/export`, { headers: { authorization: `Bearer ${user.token}` } });
    const ownHeader = (await own.text()).replace(/^\uFEFF/, '').split('\r\n')[0]!;
    expect(ownHeader).not.toContain('provider');
    expect(ownHeader.endsWith('duration_ms,audio_seconds')).toBe(true);

    // Only operators, only accounts that exist.
    expect((await fetch(`${app.url}/api/admin/users/${user.userId}/usage/export`, { headers: { authorization: `Bearer ${user.token}` } })).status).toBe(403);
    expect((await fetch(`${app.url}/api/admin/users/${user.userId}/usage/export`)).status).toBe(401);
    const unknown = await fetch(`${app.url}/api/admin/users/00000000-0000-4000-8000-000000000000/usage/export`, { headers: { authorization: `Bearer ${admin}` } });
    expect(unknown.status).toBe(404);
    expect((await fetch(`${app.url}/api/admin/users/not-a-uuid/usage/export`, { headers: { authorization: `Bearer ${admin}` } })).status).toBe(404);
    expect((await fetch(`${app.url}/api/admin/users/${user.userId}/usage/export?from=yesterday`, { headers: { authorization: `Bearer ${admin}` } })).status).toBe(
      400,
    );
    await deleteRoute(model);
  });
});

describe('stored responses', () => {
  test('GET and DELETE /v1/responses/{id} go to the provider that created the response, not to default', async () => {
    const b = await fake();
    const ib = await addProvider(b.url);
    const model = freshModel();
    await setRoute(model, [{ providerId: ib }]);
    const user = await customer();
    const client = openaiClient(app, user.key);
    const plain = await client.responses.create({ model, input: 'Привет' });
    const streamed = await client.responses.create({ model, input: 'Пока', stream: true });
    let streamedId = '';
    for await (const event of streamed) if (event.type === 'response.completed') streamedId = event.response.id;
    expect(streamedId).not.toBe('');
    const [{ provider_id }] = (await app.sql<{ provider_id: string }>('select provider_id from upstream_responses where response_id = $1', [plain.id])) as [
      { provider_id: string },
    ];
    expect(provider_id).toBe(ib);

    // The route changes afterwards: the responses stay where they were made.
    await deleteRoute(model);
    const again = await client.responses.retrieve(plain.id);
    expect(again.id).toBe(plain.id);
    expect(again.output_text).toBe('Echo: Привет');
    expect((await client.responses.retrieve(streamedId)).id).toBe(streamedId);
    await client.responses.delete(plain.id);
    const gone = await client.responses.retrieve(plain.id).catch((x) => x);
    expect(gone.status).toBe(404);
    expect(home.requests.filter((r) => r.path.startsWith('/v1/responses'))).toHaveLength(0);
    expect(b.requests.filter((r) => r.path.startsWith('/v1/responses/')).map((r) => r.method)).toEqual(['GET', 'GET', 'DELETE']);
  });

  test('a response of a provider since deleted is not found, and default is not asked for it', async () => {
    const b = await fake();
    const ib = await addProvider(b.url);
    const model = freshModel();
    await setRoute(model, [{ providerId: ib }]);
    const user = await customer();
    const client = openaiClient(app, user.key);
    const created = await client.responses.create({ model, input: 'Привет' });
    await deleteRoute(model);
    expect((await adminCall('DELETE', `/api/admin/providers/${ib}`)).status).toBe(200);
    await waitFor(async () => (await adminCall('GET', `/api/admin/providers/${ib}`)).status === 404);
    const gone = await client.responses.retrieve(created.id).catch((x) => x);
    expect(gone.status).toBe(404);
    expect(home.requests.filter((r) => r.path.startsWith('/v1/responses'))).toHaveLength(0);
  });

  test.skipIf(!onPostgres)('another instance reads a response back from the provider that created it', async () => {
    const b = await fake();
    const second = await startTestApp({ database: app.database, env: env(home.url) });
    try {
      const ib = await addProvider(b.url);
      const model = freshModel();
      await setRoute(model, [{ providerId: ib }]);
      const user = await customer();
      const created = await openaiClient(app, user.key).responses.create({ model, input: 'Привет' });
      await waitFor(async () => (await adminCall('GET', `/api/admin/providers/${ib}`, undefined, second)).status === 200);
      const again = await openaiClient(second, user.key).responses.retrieve(created.id);
      expect(again.output_text).toBe('Echo: Привет');
      expect(home.requests.filter((r) => r.path.startsWith('/v1/responses'))).toHaveLength(0);
    } finally {
      await second.stop();
    }
  });
});
