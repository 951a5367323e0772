// Idempotency-Key on /v1: a repeat with the same body gets the stored answer without a second upstream call
// or charge; while the first runs, or for a stream, a repeat is 409 naming the first request; another body
// with the same key is 400; a failed request frees its key for the retry.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { settleAll, unbalancedUsers, usageRows } from '../helpers/gateway';

setDefaultTimeout(30_000);

const messages = [{ role: 'user', content: 'Привет!' }];

let fake: FakeUpstream;
let app: TestApp;

beforeAll(async () => {
  fake = await startFakeUpstream({ slowMs: 600 });
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url } });
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

async function customer() {
  const user = await registerUser(app.url);
  const { key } = await createApiKey(app.url, user.token);
  const chat = (idempotencyKey: string | null, body: Record<string, unknown>) =>
    call(app.url, 'POST', '/v1/chat/completions', {
      headers: { authorization: `Bearer ${key}`, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
      body,
    });
  return { ...user, chat };
}

const upstreamCalls = () => fake.requests.filter((r) => r.path === '/v1/chat/completions').length;

describe('Idempotency-Key', () => {
  test('a repeat with the same body gets the stored answer: one upstream call, one charge', async () => {
    const c = await customer();
    const body = { model: 'acme/chat', messages };
    const first = await c.chat('order-42', body);
    const again = await c.chat('order-42', body);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(upstreamCalls()).toBe(1);
    await settleAll(app);
    expect(await usageRows(app, c.userId)).toHaveLength(1);
    expect(await unbalancedUsers(app)).toEqual([]);
    // Another user's same key is theirs alone.
    const other = await customer();
    expect((await other.chat('order-42', body)).headers.get('idempotent-replayed')).toBeNull();
    expect(upstreamCalls()).toBe(2);
  });

  test('the same key with another body is 400', async () => {
    const c = await customer();
    await c.chat('k-1', { model: 'acme/chat', messages });
    const other = await c.chat('k-1', { model: 'acme/chat', messages: [{ role: 'user', content: 'другое' }] });
    expect(other.status).toBe(400);
    expect(other.body.error.type).toBe('invalid_request_error');
    expect(other.body.error.message).toContain('Idempotency-Key');
    expect(other.body.error).toMatchObject({ param: 'Idempotency-Key', code: 'idempotency_key_reused' });
  });

  test('while the first still runs a repeat is 409 naming it; after it, the answer is replayed', async () => {
    const c = await customer();
    const body = { model: 'fake/slow', messages };
    const first = c.chat('slow-1', body);
    await Bun.sleep(150);
    const during = await c.chat('slow-1', body);
    expect(during.status).toBe(409);
    expect(during.body.error.type).toBe('conflict');
    expect(during.body.error.code).toBe('idempotency_in_progress');
    const done = await first;
    expect(done.status).toBe(200);
    expect(during.body.error.message).toContain(done.headers.get('x-request-id')!);
    const after = await c.chat('slow-1', body);
    expect(after.text).toBe(done.text);
    expect(upstreamCalls()).toBe(1);
  });

  test('a stream is not replayed: a repeat is 409 and nothing is asked or charged again', async () => {
    const c = await customer();
    const body = { model: 'acme/chat', messages, stream: true };
    const first = await c.chat('stream-1', body);
    expect(first.status).toBe(200);
    expect(first.text).toContain('data: [DONE]');
    const again = await c.chat('stream-1', body);
    expect(again.status).toBe(409);
    expect(upstreamCalls()).toBe(1);
  });

  test('a failed request frees its key: the retry runs', async () => {
    const c = await customer();
    const body = { model: 'fake/error-500', messages };
    expect((await c.chat('retry-1', body)).status).toBe(502);
    expect((await c.chat('retry-1', body)).status).toBe(502);
    expect(upstreamCalls()).toBe(2);
  });

  test('a malformed key is 400', async () => {
    const c = await customer();
    for (const bad of ['with space', 'x'.repeat(256)]) {
      const res = await c.chat(bad, { model: 'acme/chat', messages });
      expect(res.status).toBe(400);
    }
    expect(upstreamCalls()).toBe(0);
  });
});

describe('scoped to the key: two keys of one user', () => {
  const onPostgres = Boolean(process.env.DATABASE_URL);

  async function keyOf(target: TestApp, token: string, scope: 'key' | 'account') {
    const res = await call(target.url, 'POST', '/api/keys', { token, body: { name: `${scope} key`, scope } });
    expect(res.status).toBe(201);
    return res.body.key as string;
  }
  const chatWith = (target: TestApp, key: string, idempotencyKey: string) =>
    call(target.url, 'POST', '/v1/chat/completions', {
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey },
      body: { model: 'acme/chat', messages },
    });
  const responseOf = (target: TestApp, key: string, method: 'GET' | 'DELETE', id: string) => call(target.url, method, `/v1/responses/${id}`, { token: key });

  /** Runs on `one` and `two`: the same instance, or two instances on one PostgreSQL. */
  async function keysStayApart(one: TestApp, two: TestApp) {
    const user = await registerUser(one.url);
    const a = await keyOf(one, user.token, 'key');
    const b = await keyOf(one, user.token, 'key');
    const first = await chatWith(one, a, 'shared-42');
    expect(first.status).toBe(200);
    // Key B's same Idempotency-Key and body is its own request, not key A's answer.
    const fromB = await chatWith(two, b, 'shared-42');
    expect(fromB.status).toBe(200);
    expect(fromB.headers.get('idempotent-replayed')).toBeNull();
    expect(fromB.body.id).not.toBe(first.body.id);
    expect(upstreamCalls()).toBe(2);
    // Each key's repeat still gets its own stored answer.
    const againA = await chatWith(two, a, 'shared-42');
    expect(againA.headers.get('idempotent-replayed')).toBe('true');
    expect(againA.body.id).toBe(first.body.id);
    const againB = await chatWith(one, b, 'shared-42');
    expect(againB.body.id).toBe(fromB.body.id);
    expect(upstreamCalls()).toBe(2);

    // Account-scoped keys share the user's keys, as before.
    const wide1 = await keyOf(one, user.token, 'account');
    const wide2 = await keyOf(one, user.token, 'account');
    const wideFirst = await chatWith(one, wide1, 'shared-43');
    const wideAgain = await chatWith(two, wide2, 'shared-43');
    expect(wideAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(wideAgain.body.id).toBe(wideFirst.body.id);

    // A stored response: its key and account-scoped keys reach it; another key-scoped key does not.
    const created = await call(one.url, 'POST', '/v1/responses', { token: a, body: { model: 'acme/chat', input: 'Привет' } });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    expect((await responseOf(two, b, 'GET', id)).status).toBe(404);
    expect((await responseOf(two, b, 'DELETE', id)).status).toBe(404);
    expect(fake.storedResponses.has(id)).toBe(true);
    expect((await responseOf(two, wide1, 'GET', id)).status).toBe(200);
    expect((await responseOf(two, a, 'GET', id)).body.id).toBe(id);
    // Nor can it continue that conversation (the upstream would read any id under our one account).
    const follow = (target: TestApp, key: string) =>
      call(target.url, 'POST', '/v1/responses', { token: key, body: { model: 'acme/chat', input: 'И ещё', previous_response_id: id } });
    const refused = await follow(two, b);
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ param: 'previous_response_id', code: 'previous_response_not_found' });
    expect((await follow(two, a)).status).toBe(200);
    expect((await follow(one, wide2)).status).toBe(200);
    await settleAll(one);
    if (two !== one) await settleAll(two);
    expect(await unbalancedUsers(one)).toEqual([]);
  }

  test('a key-scoped key neither replays nor reads what another key of the user stored', async () => {
    await keysStayApart(app, app);
  });

  test.skipIf(!onPostgres)('the same across two instances on one PostgreSQL', async () => {
    const other = await startTestApp({ database: app.database, env: { UPSTREAM_BASE_URL: fake.url } });
    try {
      await keysStayApart(app, other);
    } finally {
      await other.stop();
    }
  });
});
