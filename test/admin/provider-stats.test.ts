// The providers' last hour in the admin API (issue 29 point 5, issue 41 point 4): GET /api/admin/providers and
// /:id carry each provider's attempts over the newest hour — every attempt, one that failed over to another
// provider included — of them its own faults (a 5xx, a stream it cut) and the clients' own errors (a 400
// passed through, which is no fault of the provider's and does not count in its failures in a row), and the
// median time of its successful answers from the usage log; «Сбоев подряд» never exceeds the hour's faults.
// The counts an instance made reach the table when it stops. On PostgreSQL the usage log's hour is read
// through an index range on created_at, not a scan of the log.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/gateway';

setDefaultTimeout(30_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const ADMIN = uniqueEmail('stats-admin');
const messages = [{ role: 'user' as const, content: 'Привет!' }];

let home: FakeUpstream;
let good: FakeUpstream;
let broken: FakeUpstream;
let picky: FakeUpstream;
let app: TestApp;
let admin: string;
let key: string;

beforeAll(async () => {
  [home, good, broken, picky] = await Promise.all([startFakeUpstream(), startFakeUpstream(), startFakeUpstream(), startFakeUpstream()]);
  broken.outage = 500;
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: home.url, ADMIN_EMAILS: ADMIN } });
  admin = (await registerAdmin(app, ADMIN)).token;
  const user = await registerUser(app.url);
  key = (await createApiKey(app.url, user.token)).key;
});
afterAll(async () => {
  await app?.close();
  await Promise.all([home, good, broken, picky].map((f) => f?.close()));
});

const adminCall = (method: string, path: string, body?: unknown) => call(app.url, method, path, { token: admin, body });
const ask = (model: string, stream = false) => call(app.url, 'POST', '/v1/chat/completions', { token: key, body: { model, messages, stream } });

interface Listed {
  id: string;
  health: { consecutiveFailures: number; lastFailureAt: string | null };
  lastHour: { attempts: number; faults: number; clientErrors: number; successRate: number | null; p50LatencyMs: number | null; p95LatencyMs: number | null };
}

async function listed(): Promise<Map<string, Listed>> {
  const list = await adminCall('GET', '/api/admin/providers');
  expect(list.status).toBe(200);
  return new Map((list.body.data as Listed[]).map((p) => [p.id, p]));
}

async function addProvider(name: string, baseUrl: string): Promise<string> {
  const res = await adminCall('POST', '/api/admin/providers', { name, baseUrl });
  expect(res.status).toBe(201);
  // A provider nobody has called yet has an empty hour, not a missing one.
  expect(res.body.lastHour).toEqual({ attempts: 0, faults: 0, clientErrors: 0, successRate: null, p50LatencyMs: null, p95LatencyMs: null });
  return res.body.id as string;
}

async function route(pattern: string, ...providerIds: string[]) {
  const targets = providerIds.map((providerId, priority) => ({ providerId, priority }));
  expect((await adminCall('PUT', '/api/admin/routes', { pattern, targets })).status).toBe(200);
}

/** A usage row as the gateway writes it, `ageSeconds` old. */
const insertUsage = (providerId: string | null, status: string, durationMs: number, ageSeconds = 0) =>
  app.sql(
    `insert into usage_records (user_id, model, status, duration_ms, provider_id, created_at)
     values (gen_random_uuid(), 'acme/chat', $1, $2, $3, now() - make_interval(secs => $4))`,
    [status, durationMs, providerId, ageSeconds],
  );

test('a failover counts an attempt and a fault for the provider that failed and an attempt for the one that answered', async () => {
  const [failing, answering] = await Promise.all([addProvider('Падающий', broken.url), addProvider('Запасной', good.url)]);
  await route('acme/failover', failing, answering);
  const answered = await ask('acme/failover');
  expect(answered.status).toBe(200);
  // The usage row names the provider that answered, after two attempts.
  expect(broken.requests.length).toBe(1);
  expect(good.requests.length).toBe(1);

  let byId = await listed();
  expect(byId.get(failing)!.lastHour).toEqual({ attempts: 1, faults: 1, clientErrors: 0, successRate: 0, p50LatencyMs: null, p95LatencyMs: null });
  expect(byId.get(answering)!.lastHour).toMatchObject({ attempts: 1, faults: 0, clientErrors: 0 });
  expect(byId.get(answering)!.lastHour.p50LatencyMs).toBeNumber();
  await waitFor(async () => (await listed()).get(failing)!.health.consecutiveFailures === 1);

  // Two more requests only the failing provider serves: 502 each, its faults in a row and in the hour agree.
  await route('acme/broken', failing);
  expect((await ask('acme/broken')).status).toBe(502);
  expect((await ask('acme/broken')).status).toBe(502);
  await waitFor(async () => (await listed()).get(failing)!.health.consecutiveFailures === 3);
  byId = await listed();
  expect(byId.get(failing)!.lastHour).toEqual({ attempts: 3, faults: 3, clientErrors: 0, successRate: 0, p50LatencyMs: null, p95LatencyMs: null });
  expect(byId.get(failing)!.health.consecutiveFailures).toBeLessThanOrEqual(byId.get(failing)!.lastHour.faults);
  expect(byId.get(failing)!.health.lastFailureAt).toBeString();
  // The one provider's read carries the same figures.
  const one = await adminCall('GET', `/api/admin/providers/${failing}`);
  expect(one.body.lastHour).toEqual({ attempts: 3, faults: 3, clientErrors: 0, successRate: 0, p50LatencyMs: null, p95LatencyMs: null });
});

test('a client’s own 400 passed through is a client error, not a fault, and does not add to the failures in a row', async () => {
  const id = await addProvider('Строгий', picky.url);
  await route('fake/error-400', id);
  picky.outage = 500;
  expect((await ask('fake/error-400')).status).toBe(502);
  await waitFor(async () => (await listed()).get(id)!.health.consecutiveFailures === 1);
  picky.outage = null;
  const refused = await ask('fake/error-400');
  expect(refused.status).toBe(400);
  expect(refused.body.error.message).toContain('temperature');
  expect((await ask('fake/error-400')).status).toBe(400);
  // The provider did its job: its failures in a row end, and the hour shows one fault, two client errors.
  await waitFor(async () => (await listed()).get(id)!.health.consecutiveFailures === 0);
  const hour = (await listed()).get(id)!.lastHour;
  expect(hour).toEqual({ attempts: 3, faults: 1, clientErrors: 2, successRate: 2 / 3, p50LatencyMs: null, p95LatencyMs: null });
});

test('a stream the provider cuts after its answer began is one attempt and one fault', async () => {
  const id = await addProvider('Обрывающий', good.url);
  await route('fake/drop', id);
  const cut = await ask('fake/drop', true);
  expect(cut.status).toBe(200);
  expect(cut.text).toContain('upstream_error');
  const hour = (await listed()).get(id)!.lastHour;
  expect(hour).toMatchObject({ attempts: 1, faults: 1, clientErrors: 0 });
});

test('the hour is the newest sixty minutes of every instance’s counts; the median is of the answers given', async () => {
  const quietId = await addProvider('Тихий', good.url);
  // Counts another instance wrote 30 minutes ago, and some from two hours ago that are out of the hour.
  await app.sql(
    `insert into provider_attempt_counts (provider_id, minute, attempts, faults, client_errors) values
       ($1, date_trunc('minute', now()) - interval '30 minutes', 7, 2, 1),
       ($1, date_trunc('minute', now()) - interval '2 hours', 50, 50, 0)`,
    [quietId],
  );
  // Its answers: 100, 200 and 900 ms; a timeout and a client who left are not answers; an answer from two
  // hours ago is out of the hour.
  await insertUsage(quietId, 'ok', 900);
  await insertUsage(quietId, 'ok', 100);
  await insertUsage(quietId, 'ok', 200);
  await insertUsage(quietId, 'upstream_timeout', 60_000);
  await insertUsage(quietId, 'client_closed', 5);
  await insertUsage(quietId, 'ok', 1, 2 * 3600);
  expect((await listed()).get(quietId)!.lastHour).toEqual({ attempts: 7, faults: 2, clientErrors: 1, successRate: 5 / 7, p50LatencyMs: 200, p95LatencyMs: 900 });

  // This instance's counts add to the same minute's row.
  await route('acme/quiet', quietId);
  expect((await ask('acme/quiet')).status).toBe(200);
  expect((await listed()).get(quietId)!.lastHour).toMatchObject({ attempts: 8, faults: 2, clientErrors: 1 });
  expect((await ask('acme/quiet')).status).toBe(200);
  expect((await listed()).get(quietId)!.lastHour).toMatchObject({ attempts: 9, faults: 2, clientErrors: 1 });

  // A request no route matches goes to the built-in provider; a row from before routing (no provider) is its too.
  expect((await ask('acme/unrouted')).status).toBe(200);
  await insertUsage(null, 'ok', 40);
  expect((await adminCall('GET', '/api/admin/providers/default')).body.lastHour).toMatchObject({ attempts: 1, faults: 0, clientErrors: 0 });
});

test('an instance that stops writes the attempts it counted: the next one reads them', async () => {
  const first = await startTestApp({ env: { UPSTREAM_BASE_URL: home.url, ADMIN_EMAILS: ADMIN } });
  let next: TestApp | null = null;
  try {
    const boss = (await registerAdmin(first, ADMIN)).token;
    const created = await call(first.url, 'POST', '/api/admin/providers', { token: boss, body: { name: 'Перед остановкой', baseUrl: broken.url } });
    const id = created.body.id as string;
    expect((await call(first.url, 'PUT', '/api/admin/routes', { token: boss, body: { pattern: 'acme/stop', targets: [{ providerId: id }] } })).status).toBe(200);
    const customer = await registerUser(first.url);
    const customerKey = (await createApiKey(first.url, customer.token)).key;
    const answer = await call(first.url, 'POST', '/v1/chat/completions', { token: customerKey, body: { model: 'acme/stop', messages } });
    expect(answer.status).toBe(502);
    // Stopped at once, with no admin read to write the counts first: the shutdown writes them.
    await first.stop();
    next = await startTestApp({ database: first.database, env: { UPSTREAM_BASE_URL: home.url, ADMIN_EMAILS: ADMIN } });
    const read = await call(next.url, 'GET', `/api/admin/providers/${id}`, { token: boss });
    expect(read.body.lastHour).toEqual({ attempts: 1, faults: 1, clientErrors: 0, successRate: 0, p50LatencyMs: null, p95LatencyMs: null });
  } finally {
    await next?.stop();
    await first.database.drop();
  }
});

test.skipIf(!onPostgres)('two instances on one database: each one’s attempts add to the same hour', async () => {
  const second = await startTestApp({ database: app.database, env: { UPSTREAM_BASE_URL: home.url, ADMIN_EMAILS: ADMIN } });
  try {
    const id = await addProvider('Общий', broken.url);
    await route('acme/shared', id);
    // The route reaches the second instance by NOTIFY.
    await waitFor(
      async () => (await call(second.url, 'POST', '/v1/chat/completions', { token: key, body: { model: 'acme/shared', messages } })).status === 502,
      5000,
      100,
    );
    expect((await ask('acme/shared')).status).toBe(502);
    // The second instance's read writes its counts; the first's read writes its own and sums both.
    const fromSecond = (await call(second.url, 'GET', `/api/admin/providers/${id}`, { token: admin })).body.lastHour;
    expect(fromSecond.attempts).toBeGreaterThanOrEqual(1);
    const both = (await adminCall('GET', `/api/admin/providers/${id}`)).body.lastHour;
    expect(both).toEqual({
      attempts: fromSecond.attempts + 1,
      faults: fromSecond.attempts + 1,
      clientErrors: 0,
      successRate: 0,
      p50LatencyMs: null,
      p95LatencyMs: null,
    });
  } finally {
    await second.stop();
  }
});

test.skipIf(!onPostgres)('on PostgreSQL the newest hour of a long usage log is read through an index range on created_at', async () => {
  // A month of usage from many users, one row every 13 seconds: the hour is a small slice of it.
  await app.sql(`
    insert into usage_records (user_id, model, status, duration_ms, provider_id, created_at)
    select gen_random_uuid(), 'acme/chat', 'ok', g % 900, (array['default', 'x', 'y'])[1 + g % 3], now() - make_interval(secs => g * 13)
      from generate_series(1, 200000) g`);
  await app.sql('analyze usage_records');
  const plan = await app.sql<{ 'QUERY PLAN': string }>(
    `explain select coalesce(provider_id, 'default'), count(*) from usage_records where created_at >= now() - interval '1 hour' group by 1`,
  );
  const text = plan.map((row) => row['QUERY PLAN']).join('\n');
  // usage_records_created_idx, or its copy on each month's partition (usage_records_p2026_11_created_at_idx).
  expect(text).toMatch(/usage_records(_p\d{4}_\d{2})?_created(_at)?_idx/);
  // The months ahead are partitions with no rows yet: a scan of one costs nothing. No other is scanned.
  const scans = text.split('\n').filter((line) => line.includes('Seq Scan'));
  expect(scans.filter((line) => !line.includes('cost=0.00..0.00'))).toEqual([]);
  // The screen's figures stay right over that log: the hour's rows only.
  const list = await adminCall('GET', '/api/admin/providers');
  expect(list.status).toBe(200);
  expect(list.body.data.find((p: { id: string }) => p.id === 'default').lastHour.p50LatencyMs).toBeNumber();
});
