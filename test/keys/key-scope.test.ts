// Which usage an API key reads: its own (scope "key", the default) or the whole account's (a key created
// with scope "account"); the dashboard's JWT always reads the whole account. Over HTTP with two keys of
// one account making /v1 calls through the official SDK.
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { call, registerUser, type TestApp } from '../helpers/app';
import { openaiClient, settleAll, useGatewayApp } from '../helpers/gateway';

setDefaultTimeout(30_000);

const messages = [{ role: 'user' as const, content: 'Привет!' }];
let app: TestApp;
useGatewayApp({
  ready: (s) => {
    app = s.app;
  },
});

async function createKey(token: string, body: Record<string, unknown>) {
  const res = await call(app.url, 'POST', '/api/keys', { token, body });
  expect(res.status).toBe(201);
  return res.body as { id: string; key: string; scope: string };
}

/** An account with key A (2 calls), key B (3 calls) and an account-scoped key C (no calls). */
async function accountWithTwoKeys() {
  const user = await registerUser(app.url);
  const a = await createKey(user.token, { name: 'A' });
  const b = await createKey(user.token, { name: 'B', scope: 'key' });
  const c = await createKey(user.token, { name: 'C', scope: 'account' });
  for (let i = 0; i < 2; i++) await openaiClient(app, a.key).chat.completions.create({ model: 'acme/chat', messages });
  for (let i = 0; i < 3; i++) await openaiClient(app, b.key).chat.completions.create({ model: 'acme/chat', messages });
  await settleAll(app);
  return { user, a, b, c };
}

const keyIdsOf = (res: { body: { data: { keyId: string | null }[] } }) => res.body.data.map((r) => r.keyId);

describe('key scope', () => {
  test('a key is created with scope "key" unless it asks for "account"; the listing shows each', async () => {
    const user = await registerUser(app.url);
    const plain = await createKey(user.token, { name: 'plain' });
    const wide = await createKey(user.token, { name: 'wide', scope: 'account' });
    expect(plain.scope).toBe('key');
    expect(wide.scope).toBe('account');
    const listed = await call(app.url, 'GET', '/api/keys', { token: user.token });
    expect(Object.fromEntries(listed.body.keys.map((k: { name: string; scope: string }) => [k.name, k.scope]))).toEqual({
      plain: 'key',
      wide: 'account',
    });

    const bad = await call(app.url, 'POST', '/api/keys', { token: user.token, body: { name: 'x', scope: 'admin' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('invalid_request_error');
    expect(bad.body.error.message).toContain('ожидается key (ключ видит только своё использование) или account');
  });

  test('GET /api/usage: key A sees only its rows, key B only its own, an account key and the JWT see both', async () => {
    const { user, a, b, c } = await accountWithTwoKeys();

    const viaA = await call(app.url, 'GET', '/api/usage', { token: a.key });
    expect(viaA.status).toBe(200);
    expect(keyIdsOf(viaA)).toEqual([a.id, a.id]);
    expect(viaA.body.totals.requests).toBe(2);

    const viaB = await call(app.url, 'GET', '/api/usage', { token: b.key });
    expect(keyIdsOf(viaB)).toEqual([b.id, b.id, b.id]);
    expect(viaB.body.totals.requests).toBe(3);

    for (const token of [c.key, user.token]) {
      const all = await call(app.url, 'GET', '/api/usage', { token });
      expect(all.status).toBe(200);
      expect(all.body.totals.requests).toBe(5);
      expect(keyIdsOf(all).sort()).toEqual([a.id, a.id, b.id, b.id, b.id].sort());
      // The wider view still filters by key when asked.
      expect(keyIdsOf(await call(app.url, 'GET', `/api/usage?keyId=${b.id}`, { token }))).toEqual([b.id, b.id, b.id]);
    }

    // Naming itself is allowed; naming another key is refused, not answered with an empty page.
    expect(keyIdsOf(await call(app.url, 'GET', `/api/usage?keyId=${a.id}`, { token: a.key }))).toEqual([a.id, a.id]);
    expect(keyIdsOf(await call(app.url, 'GET', `/api/usage?keyId=${a.id.toUpperCase()}`, { token: a.key }))).toEqual([a.id, a.id]);
    const other = await call(app.url, 'GET', `/api/usage?keyId=${b.id}`, { token: a.key });
    expect(other.status).toBe(403);
    expect(other.body.error).toEqual({
      message: 'Этот API-ключ видит только своё использование: для всего аккаунта войдите в панель (JWT) или создайте ключ с scope: "account"',
      type: 'forbidden',
    });
  });

  test('GET /api/usage/summary is scoped the same way; the balance is the account’s for every key', async () => {
    const { user, a, b, c } = await accountWithTwoKeys();
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const summary = (token: string, extra = '') => call(app.url, 'GET', `/api/usage/summary?from=${from}${extra}`, { token });

    expect((await summary(a.key)).body.totals.requests).toBe(2);
    expect((await summary(b.key)).body.totals.requests).toBe(3);
    expect((await summary(c.key)).body.totals.requests).toBe(5);
    expect((await summary(user.token)).body.totals.requests).toBe(5);
    expect((await summary(a.key, `&keyId=${b.id}`)).status).toBe(403);

    const balance = (await call(app.url, 'GET', '/api/balance', { token: user.token })).body;
    expect(balance.balance).toBeLessThan(3);
    for (const key of [a, b, c]) expect((await call(app.url, 'GET', '/api/balance', { token: key.key })).body).toEqual(balance);
  });

  test('through the typed /trpc path as through REST', async () => {
    const { a, b } = await accountWithTwoKeys();
    const res = await fetch(`${app.url}/trpc/account.usage?input=${encodeURIComponent(JSON.stringify({ limit: 10 }))}`, {
      headers: { authorization: `Bearer ${a.key}` },
    });
    const body = (await res.json()) as { result: { data: { data: { keyId: string }[] } } };
    expect(body.result.data.data.map((r) => r.keyId)).toEqual([a.id, a.id]);
    const refused = await fetch(`${app.url}/trpc/account.usage?input=${encodeURIComponent(JSON.stringify({ keyId: b.id }))}`, {
      headers: { authorization: `Bearer ${a.key}` },
    });
    expect(refused.status).toBe(403);
  });
});
