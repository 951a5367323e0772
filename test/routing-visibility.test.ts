// What routing shows and where stored state leads: /health/upstream and /metrics per provider, stored
// responses read back from the provider that created them (on any instance), the information document
// naming the providers and routes endpoints.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from './fakes/upstream';
import { call, createApiKey, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from './helpers/app';
import { openaiClient, waitFor } from './helpers/gateway';

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
const messages = [{ role: 'user' as const, content: 'Привет!' }];

let home: FakeUpstream;
let app: TestApp;
let admin: string;
const fakes: FakeUpstream[] = [];

beforeAll(async () => {
  home = await startFakeUpstream();
  app = await startTestApp({ env: env(home.url) });
  admin = (await registerAdmin(app, ADMIN)).token;
});
afterAll(async () => {
  await app?.close();
  await Promise.all([home, ...fakes].map((f) => f?.close()));
});

async function fake(options: Parameters<typeof startFakeUpstream>[0] = {}) {
  const f = await startFakeUpstream(options);
  fakes.push(f);
  return f;
}

const adminCall = (method: string, path: string, body?: unknown, target = app) => call(target.url, method, path, { token: admin, body });

async function addProvider(baseUrl: string, name = `p-${Math.random().toString(36).slice(2, 8)}`, target = app): Promise<string> {
  const res = await adminCall('POST', '/api/admin/providers', { name, baseUrl }, target);
  if (res.status !== 201) throw new Error(`provider not created: ${res.status} ${res.text}`);
  return res.body.id as string;
}

async function setRoute(pattern: string, targets: { providerId: string; priority?: number; weight?: number; model?: string }[], target = app) {
  const res = await adminCall('PUT', '/api/admin/routes', { pattern, targets }, target);
  if (res.status !== 200) throw new Error(`route not saved: ${res.status} ${res.text}`);
}

async function deleteRoute(pattern: string) {
  const res = await adminCall('DELETE', `/api/admin/routes?pattern=${encodeURIComponent(pattern)}`);
  if (res.status !== 200) throw new Error(`route not deleted: ${res.status} ${res.text}`);
}

async function customer(target = app) {
  const user = await registerUser(target.url);
  const { key } = await createApiKey(target.url, user.token);
  return { ...user, key };
}

const ask = (target: TestApp, key: string, model: string) =>
  call(target.url, 'POST', '/v1/chat/completions', { token: key, body: { model, messages } });

let modelCounter = 0;
const freshModel = () => `acme/visible-${++modelCounter}-${Math.random().toString(36).slice(2, 6)}`;

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
