// The providers' last hour in the admin API (issue 29, point 5): GET /api/admin/providers and /:id carry
// each provider's requests, errors and median answer time over the newest hour, counted from the usage
// log — failures of the provider's own counted as errors, a client leaving not, rows older than an hour
// left out, rows from before routing counted for the built-in `default` — and on PostgreSQL that hour is
// read through an index range on created_at, not a scan of the whole log.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';

setDefaultTimeout(30_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const ADMIN = uniqueEmail('stats-admin');
const messages = [{ role: 'user' as const, content: 'Привет!' }];

let home: FakeUpstream;
let good: FakeUpstream;
let broken: FakeUpstream;
let app: TestApp;
let admin: string;

beforeAll(async () => {
  [home, good, broken] = await Promise.all([startFakeUpstream(), startFakeUpstream(), startFakeUpstream()]);
  broken.outage = 500;
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: home.url, ADMIN_EMAILS: ADMIN } });
  admin = (await registerAdmin(app, ADMIN)).token;
});
afterAll(async () => {
  await app?.close();
  await Promise.all([home, good, broken].map((f) => f?.close()));
});

const adminCall = (method: string, path: string, body?: unknown) => call(app.url, method, path, { token: admin, body });

async function addProvider(name: string, baseUrl: string): Promise<string> {
  const res = await adminCall('POST', '/api/admin/providers', { name, baseUrl });
  expect(res.status).toBe(201);
  // A provider nobody has called yet has an empty hour, not a missing one.
  expect(res.body.lastHour).toEqual({ requests: 0, errors: 0, p50LatencyMs: null });
  return res.body.id as string;
}

/** A usage row as the gateway writes it, `ageSeconds` old. */
const insertUsage = (providerId: string | null, status: string, durationMs: number, ageSeconds = 0) =>
  app.sql(
    `insert into usage_records (user_id, model, status, duration_ms, provider_id, created_at)
     values (gen_random_uuid(), 'acme/chat', $1, $2, $3, now() - make_interval(secs => $4))`,
    [status, durationMs, providerId, ageSeconds],
  );

test('each provider lists its last hour: requests, errors on its side and the median time of its answers', async () => {
  const [goodId, brokenId, quietId] = await Promise.all([addProvider('Рабочий', good.url), addProvider('Сломанный', broken.url), addProvider('Тихий', good.url)]);
  for (const [pattern, providerId] of [
    ['acme/good', goodId],
    ['acme/broken', brokenId],
  ] as const) {
    expect((await adminCall('PUT', '/api/admin/routes', { pattern, targets: [{ providerId }] })).status).toBe(200);
  }
  const user = await registerUser(app.url);
  const { key } = await createApiKey(app.url, user.token);
  const ask = (model: string) => call(app.url, 'POST', '/v1/chat/completions', { token: key, body: { model, messages } });
  expect((await ask('acme/good')).status).toBe(200);
  expect((await ask('acme/good')).status).toBe(200);
  expect((await ask('acme/broken')).status).toBe(502);
  expect((await ask('acme/unrouted')).status).toBe(200);

  // The quiet provider's hour, written as the gateway would: three answers (100, 200 and 900 ms), a
  // timeout, a client that left; and an answer from two hours ago that is no longer in the hour.
  await insertUsage(quietId, 'ok', 900);
  await insertUsage(quietId, 'ok', 100);
  await insertUsage(quietId, 'ok', 200);
  await insertUsage(quietId, 'upstream_timeout', 60_000);
  await insertUsage(quietId, 'client_closed', 5);
  await insertUsage(quietId, 'ok', 1, 2 * 3600);
  // A row from before routing has no provider: the environment's upstream gave it.
  await insertUsage(null, 'ok', 40);

  const list = await adminCall('GET', '/api/admin/providers');
  expect(list.status).toBe(200);
  const byId = new Map((list.body.data as { id: string; lastHour: unknown }[]).map((p) => [p.id, p.lastHour]));
  expect(byId.get(quietId)).toEqual({ requests: 5, errors: 1, p50LatencyMs: 200 });
  expect(byId.get(goodId)).toMatchObject({ requests: 2, errors: 0 });
  expect((byId.get(goodId) as { p50LatencyMs: unknown }).p50LatencyMs).toBeNumber();
  // Its only request failed: an error, and no answer to time.
  expect(byId.get(brokenId)).toEqual({ requests: 1, errors: 1, p50LatencyMs: null });
  expect(byId.get('default')).toMatchObject({ requests: 2, errors: 0 });

  // One provider's read carries the same figures.
  const one = await adminCall('GET', `/api/admin/providers/${quietId}`);
  expect(one.status).toBe(200);
  expect(one.body.lastHour).toEqual({ requests: 5, errors: 1, p50LatencyMs: 200 });
  expect((await adminCall('GET', '/api/admin/providers/default')).body.lastHour).toMatchObject({ requests: 2, errors: 0 });
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
  expect(list.body.data.find((p: { id: string }) => p.id === 'default').lastHour.requests).toBeLessThan(400);
});
