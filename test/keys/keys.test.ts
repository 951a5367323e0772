import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test';
import { createHash } from 'node:crypto';
import { call, createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { errorOf, okBody, rest } from '../helpers/rest';

// Starting an app on a fresh database takes longer than bun's 5 s default (a bare `bun test` has no --timeout).
setDefaultTimeout(30_000);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { MAX_KEYS_PER_USER: '3' } });
});
afterAll(() => app?.close());

const KEY_FORMAT = /^cdt-[A-Za-z0-9]{8}[A-Za-z0-9]{32}$/;

describe('API keys', () => {
  test('creation returns the full key once, with keyPrefix, createdAt and the warning', async () => {
    const { token } = await registerUser(app.url);
    const res = await rest(app.url, token).keys.create({ name: 'production' });
    expect(res.status).toBe(201);
    const created = okBody(res);
    expect(created).toEqual({
      id: expect.any(String),
      name: 'production',
      key: expect.stringMatching(KEY_FORMAT),
      keyPrefix: expect.stringMatching(/^cdt-[A-Za-z0-9]{8}$/),
      createdAt: expect.any(String),
      lastUsedAt: null,
      isActive: true,
      spendLimit: null,
      limitReset: 'none',
      expiresAt: null,
      expired: false,
      spentThisPeriod: 0,
      limitReached: false,
      periodStart: new Date(0).toISOString(),
      scope: 'key',
      cache: 'off',
      rpm: null,
      tpm: null,
      rpd: null,
      createdBy: null,
      warning: expect.stringMatching(/[А-Яа-я]/),
    });
    expect(created.key.startsWith(created.keyPrefix)).toBe(true);
    expect(created.key.length - created.keyPrefix.length).toBe(32);
    expect(new Date(created.createdAt).toISOString()).toBe(created.createdAt);
  });

  test('only the SHA-256 of the key and its prefix are stored', async () => {
    const { token } = await registerUser(app.url);
    const { key, id } = await createApiKey(app.url, token);
    const [row] = await app.sql<Record<string, unknown>>('select * from api_keys where id = $1', [id]);
    expect(row!.key_hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(Object.values(row!).map(String)).not.toContain(key);
    expect(JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(key.slice(12));
  });

  test('keys are random: a thousand characters of them use the whole alphabet and never repeat a key', async () => {
    const { token } = await registerUser(app.url);
    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) seen.add((await createApiKey(app.url, token, `k${i}`)).key);
    expect(seen.size).toBe(3);
    const { randomAlphanumeric } = await import('../../src/keys/api-keys');
    const sample = randomAlphanumeric(62 * 400);
    const counts = new Map<string, number>();
    for (const ch of sample) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // Uniform: every character within a generous band around 400 (modulo bias would skew the first 8).
    for (const n of counts.values()) expect(n).toBeGreaterThan(250);
  });

  test('listing shows keys and count, never the key or its hash; lastUsedAt is null until used', async () => {
    const { token } = await registerUser(app.url);
    const a = await createApiKey(app.url, token, 'first');
    const b = await createApiKey(app.url, token, 'second');
    const res = await rest(app.url, token).keys.list();
    expect(res.status).toBe(200);
    const { count, keys } = okBody(res);
    expect(count).toBe(2);
    expect(keys.map((k) => k.id).sort()).toEqual([a.id, b.id].sort());
    for (const listed of keys) {
      expect(Object.keys(listed).sort()).toEqual([
        'cache',
        'createdAt',
        'createdBy',
        'expired',
        'expiresAt',
        'id',
        'isActive',
        'keyPrefix',
        'lastUsedAt',
        'limitReached',
        'limitReset',
        'name',
        'periodStart',
        'rpd',
        'rpm',
        'scope',
        'spendLimit',
        'spentThisPeriod',
        'tpm',
      ]);
      expect(listed.lastUsedAt).toBeNull();
      expect(listed.isActive).toBe(true);
    }
    expect(res.text).not.toContain(a.key);
    expect(res.text).not.toContain(b.key);
    expect(res.text).not.toContain(createHash('sha256').update(a.key).digest('hex'));
  });

  test('revoking keeps the key listed with isActive false; revoking again is still success', async () => {
    const { token } = await registerUser(app.url);
    const { id } = await createApiKey(app.url, token);
    const api = rest(app.url, token);
    const res = await api.keys.revoke({ id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.stringMatching(/[А-Яа-я]/) });
    expect(okBody(await api.keys.list()).keys).toEqual([expect.objectContaining({ id, isActive: false })]);
    expect((await api.keys.revoke({ id })).status).toBe(200);
  });

  test("user B cannot revoke user A's key (404), nor see it; absent and malformed ids are 404 too", async () => {
    const alice = await registerUser(app.url);
    const bob = await registerUser(app.url);
    const { id } = await createApiKey(app.url, alice.token);
    const res = await rest(app.url, bob.token).keys.revoke({ id });
    expect(res.status).toBe(404);
    expect(errorOf(res).type).toBe('not_found');
    expect(okBody(await rest(app.url, bob.token).keys.list()).count).toBe(0);
    expect(okBody(await rest(app.url, alice.token).keys.list()).keys[0]!.isActive).toBe(true);
    // Raw paths, not the typed client: a malformed id must reach the route as sent, unencoded.
    for (const missing of ['00000000-0000-4000-8000-000000000000', 'nope', "1'%20or%20'1'='1"]) {
      const r = await call(app.url, 'DELETE', `/api/keys/${missing}`, { token: alice.token });
      expect(r.status).toBe(404);
      expect(r.body.error.type).toBe('not_found');
    }
  });

  test('name is required, 1–100 characters', async () => {
    const { token } = await registerUser(app.url);
    // Bodies the input type refuses go through `call`: the typed client would not let them be written.
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'x'.repeat(101) }, { name: 5 }]) {
      const res = await call(app.url, 'POST', '/api/keys', { token, body });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
    }
    expect((await rest(app.url, token).keys.create({ name: 'x'.repeat(100) })).status).toBe(201);
  });

  test('a cap on active keys per user gives a clear 400; revoking one frees a place', async () => {
    const { token } = await registerUser(app.url);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createApiKey(app.url, token, `k${i}`)).id);
    const api = rest(app.url, token);
    const over = await api.keys.create({ name: 'one too many' });
    expect(over.status).toBe(400);
    expect(errorOf(over).type).toBe('invalid_request_error');
    expect(errorOf(over).message).toContain('3');
    await api.keys.revoke({ id: ids[0]! });
    expect((await api.keys.create({ name: 'replacement' })).status).toBe(201);
  });

  test('parallel creations cannot pass the cap together', async () => {
    const { token } = await registerUser(app.url);
    const api = rest(app.url, token);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => api.keys.create({ name: `p${i}` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 400)).toHaveLength(5);
  });

  test('key routes need a JWT: an API key is not accepted for managing keys', async () => {
    const { token } = await registerUser(app.url);
    const { key } = await createApiKey(app.url, token);
    const res = await rest(app.url, key).keys.list();
    expect(res.status).toBe(401);
    expect(errorOf(res).type).toBe('unauthorized');
  });
});
