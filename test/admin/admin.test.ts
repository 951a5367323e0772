import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test';
import { call, createApiKey, grantAdmin, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { openaiClient, settleAll, unbalancedUsers } from '../helpers/gateway';
import { DEFAULT_MODELS, expectedUsage, startFakeUpstream, type FakeUpstream } from '../fakes/upstream';

// Starting an app on a fresh database takes longer than bun's 5 s default (a bare `bun test` has no --timeout).
setDefaultTimeout(30_000);

const ADMIN_EMAIL = uniqueEmail('admin');
const SECOND_ADMIN_EMAIL = uniqueEmail('admin2');
const TOKEN_PRICE_NANO = 125n;

let fake: FakeUpstream;
let app: TestApp;
let admin: { token: string; userId: string };

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.models = [
    ...DEFAULT_MODELS,
    { id: 'vendor/cheap', created: 1_700_000_200, owned_by: 'vendor', pricing: { prompt: '0.000001', completion: '0.000002' } },
    {
      id: 'vendor/odd',
      created: 1_700_000_300,
      owned_by: 'vendor',
      pricing: { prompt: '0.0000001234567891', completion: '0', image: '0.01' },
    },
    { id: 'vendor/auto', created: 1_700_000_400, owned_by: 'vendor', pricing: { prompt: '-1', completion: '-1' } },
    { id: 'vendor/no-pricing', created: 1_700_000_500, owned_by: 'vendor' },
  ];
  app = await startTestApp({
    env: {
      // Listed in another case and with spaces: the list is normalised like the e-mails themselves.
      ADMIN_EMAILS: ` ${ADMIN_EMAIL.toUpperCase()} , ${SECOND_ADMIN_EMAIL}`,
      UPSTREAM_BASE_URL: fake.url,
    },
  });
  admin = await registerAdmin(app, ADMIN_EMAIL);
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const adminCall = (method: string, path: string, body?: unknown) => call(app.url, method, path, { token: admin.token, body });
const nanoToUnits = (nano: bigint) => Number(nano) / 1e9;
const today = () => new Date().toISOString().slice(0, 10);

async function auditRows(targetId: string) {
  const res = await adminCall('GET', `/api/admin/audit?targetId=${encodeURIComponent(targetId)}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.data as { action: string; adminEmail: string; adminId: string; before: any; after: any; targetType: string }[];
}

async function chatOnce(key: string, model = 'acme/chat') {
  const messages = [{ role: 'user' as const, content: 'hello' }];
  const answer = await openaiClient(app, key).chat.completions.create({ model, messages });
  return { answer, usage: expectedUsage({ model, messages }) };
}

describe('roles', () => {
  test('an address in ADMIN_EMAILS is admin once granted (registering it is not enough), anyone else a user; login and /api/auth/me show the stored role', async () => {
    expect((await call(app.url, 'POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: 'secret123' } })).body.user).toEqual({
      id: admin.userId,
      email: ADMIN_EMAIL,
      balance: 3,
      role: 'admin',
      emailVerified: false,
    });
    const me = await call(app.url, 'GET', '/api/auth/me', { token: admin.token });
    expect(me.status).toBe(200);
    expect(me.body.user).toEqual({ id: admin.userId, email: ADMIN_EMAIL, balance: 3, role: 'admin', emailVerified: false });

    const second = await call(app.url, 'POST', '/api/auth/register', {
      body: { email: SECOND_ADMIN_EMAIL.toUpperCase(), password: 'secret123' },
    });
    expect(second.status).toBe(201);
    expect(second.body.user.role).toBe('user');
    expect((await call(app.url, 'GET', '/api/admin/users', { token: second.body.token })).status).toBe(403);
    await grantAdmin(app, SECOND_ADMIN_EMAIL);
    expect((await call(app.url, 'GET', '/api/admin/users', { token: second.body.token })).status).toBe(200);
    expect((await call(app.url, 'GET', '/api/auth/me', { token: second.body.token })).body.user.role).toBe('admin');

    const plain = await call(app.url, 'POST', '/api/auth/register', { body: { email: uniqueEmail(), password: 'secret123' } });
    expect(plain.body.user.role).toBe('user');
    expect((await call(app.url, 'GET', '/api/auth/me', { token: plain.body.token })).body.user.role).toBe('user');
    expect((await call(app.url, 'GET', '/api/auth/me')).status).toBe(401);
  });

  test('the role is read from the database on every request, not from the token', async () => {
    const user = await registerUser(app.url);
    expect((await call(app.url, 'GET', '/api/admin/users', { token: user.token })).status).toBe(403);
    await app.sql(`update users set role = 'admin' where id = $1`, [user.userId]);
    expect((await call(app.url, 'GET', '/api/admin/users', { token: user.token })).status).toBe(200);
    await app.sql(`update users set role = 'user' where id = $1`, [user.userId]);
    expect((await call(app.url, 'GET', '/api/admin/users', { token: user.token })).status).toBe(403);
  });
});

describe('access to /api/admin', () => {
  const someId = '00000000-0000-4000-8000-000000000000';
  const routes: [string, string, unknown?][] = [
    ['GET', '/api/admin/users'],
    ['GET', '/api/admin/users?search=a&limit=5'],
    ['GET', `/api/admin/users/${someId}`],
    ['POST', `/api/admin/users/${someId}/credit`, { amount: 10, reason: 'test', reference: 'r-access' }],
    ['POST', `/api/admin/users/${someId}/block`],
    ['POST', `/api/admin/users/${someId}/unblock`],
    ['GET', '/api/admin/stats/daily'],
    ['GET', '/api/admin/audit'],
    ['GET', '/api/admin/prices'],
    ['PUT', '/api/admin/prices', { pattern: 'acme/*', promptPerMillion: 1, completionPerMillion: 1 }],
    ['DELETE', '/api/admin/prices?pattern=acme%2F*'],
    ['POST', '/api/admin/prices/import/preview', { multiplier: 1 }],
    ['POST', '/api/admin/prices/import', { multiplier: 1, models: ['vendor/cheap'] }],
  ];

  test('a user JWT → 403 forbidden on every admin route, whatever the body; nothing changes', async () => {
    const user = await registerUser(app.url);
    for (const [method, path, body] of routes) {
      const res = await call(app.url, method, path, { token: user.token, body });
      expect({ route: `${method} ${path}`, status: res.status, type: res.body?.error?.type }).toEqual({
        route: `${method} ${path}`,
        status: 403,
        type: 'forbidden',
      });
      expect(res.body.error.message).toMatch(/администратор/);
      // Garbage in the body is not looked at before the credential.
      const garbage = await call(app.url, method, path, { token: user.token, body: method === 'GET' || method === 'DELETE' ? undefined : { x: 1 } });
      expect(garbage.status).toBe(403);
    }
    expect(await app.sql(`select 1 from model_prices where pattern = 'acme/*'`)).toHaveLength(0);
    expect(await app.sql(`select 1 from ledger_entries where reference = 'r-access'`)).toHaveLength(0);
  });

  test("no credential → 401; an API key (even an admin's) → 401, the dashboard wants a JWT", async () => {
    const { key } = await createApiKey(app.url, admin.token, 'admin key');
    for (const [method, path, body] of routes) {
      const anonymous = await call(app.url, method, path, { body });
      expect({ route: `${method} ${path}`, status: anonymous.status }).toEqual({ route: `${method} ${path}`, status: 401 });
      expect(anonymous.body.error.type).toBe('unauthorized');
      const withKey = await call(app.url, method, path, { token: key, body });
      expect(withKey.status).toBe(401);
    }
  });
});

describe('users', () => {
  test('search is a case-insensitive substring of the e-mail with LIKE wildcards taken literally; paging is newest first', async () => {
    const tag = `srch${Date.now().toString(36)}`;
    const first = await registerUser(app.url, `a_b.${tag}@example.com`);
    const second = await registerUser(app.url, `axb.${tag}@example.com`);
    const third = await registerUser(app.url, `zz.${tag}@example.com`);

    const all = await adminCall('GET', `/api/admin/users?search=${tag.toUpperCase()}`);
    expect(all.status).toBe(200);
    expect(all.body.data.map((u: { id: string }) => u.id)).toEqual([third.userId, second.userId, first.userId]);
    expect(all.body.nextCursor).toBeNull();
    expect(all.body.data[0]).toEqual({
      id: third.userId,
      email: `zz.${tag}@example.com`,
      role: 'user',
      kind: 'person',
      balance: 3,
      createdAt: expect.any(String),
      blocked: false,
      blockedAt: null,
      spendThisMonth: 0,
      priceGroup: 'base',
    });

    // "_" would match any one character in LIKE: here it must match only itself.
    const underscore = await adminCall('GET', `/api/admin/users?search=${encodeURIComponent(`a_b.${tag}`)}`);
    expect(underscore.body.data.map((u: { id: string }) => u.id)).toEqual([first.userId]);
    const percent = await adminCall('GET', `/api/admin/users?search=${encodeURIComponent(`%${tag}`)}`);
    expect(percent.body.data).toEqual([]);

    const page1 = await adminCall('GET', `/api/admin/users?search=${tag}&limit=2`);
    expect(page1.body.data.map((u: { id: string }) => u.id)).toEqual([third.userId, second.userId]);
    expect(page1.body.nextCursor).toEqual(expect.any(String));
    const page2 = await adminCall('GET', `/api/admin/users?search=${tag}&limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body.data.map((u: { id: string }) => u.id)).toEqual([first.userId]);
    expect(page2.body.nextCursor).toBeNull();

    // Without a search, the admin sees everyone, the admins among them.
    const everyone = await adminCall('GET', '/api/admin/users?limit=100');
    expect(everyone.body.data.find((u: { id: string }) => u.id === admin.userId)?.role).toBe('admin');

    const badCursor = await adminCall('GET', '/api/admin/users?cursor=nonsense');
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.error.type).toBe('invalid_request_error');
    expect((await adminCall('GET', '/api/admin/users?limit=0')).status).toBe(400);
  });

  test('detail: keys without secrets, usage by model with its prompt and completion cost, the ledger newest first', async () => {
    const user = await registerUser(app.url);
    const { key, id: keyId } = await createApiKey(app.url, user.token, 'detail key');
    const { usage } = await chatOnce(key, 'acme/chat');
    await chatOnce(key, 'acme/chat');
    const { usage: large } = await chatOnce(key, 'acme/large');
    await settleAll(app);

    const res = await adminCall('GET', `/api/admin/users/${user.userId}`);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(key);
    expect(res.text).not.toMatch(/hash/i);
    expect(res.body.keys).toHaveLength(1);
    expect(res.body.keys[0]).toMatchObject({ id: keyId, name: 'detail key', keyPrefix: key.slice(0, 12), isActive: true });
    // With its budget, which the operator may set (issue 33, point 11).
    expect(Object.keys(res.body.keys[0]).sort()).toEqual([
      'createdAt',
      'expired',
      'id',
      'isActive',
      'keyPrefix',
      'lastUsedAt',
      'limitReset',
      'name',
      'spendLimit',
      'spentThisPeriod',
    ]);

    const chatCost = BigInt(usage.total_tokens) * TOKEN_PRICE_NANO;
    const largeCost = BigInt(large.total_tokens) * TOKEN_PRICE_NANO;
    const byModel = Object.fromEntries(res.body.usageByModel.map((m: { model: string }) => [m.model, m]));
    expect(byModel['acme/chat']).toMatchObject({
      requests: 2,
      promptTokens: 2 * usage.prompt_tokens,
      completionTokens: 2 * usage.completion_tokens,
      totalTokens: 2 * usage.total_tokens,
      cost: nanoToUnits(2n * chatCost),
      unpaid: 0,
    });
    expect(byModel['acme/large']).toMatchObject({ requests: 1, cost: nanoToUnits(largeCost) });
    for (const m of res.body.usageByModel) {
      expect(Math.round((m.promptCost + m.completionCost - m.unpaid) * 1e9)).toBe(Math.round(m.cost * 1e9));
    }
    // Most expensive first.
    expect(res.body.usageByModel[0].model).toBe('acme/chat');

    expect(res.body.ledger.at(-1)).toEqual({
      id: expect.any(String),
      amount: 3,
      kind: 'registration_bonus',
      reference: null,
      createdAt: expect.any(String),
    });
    // Settlements are written in batches, each with one usage entry per user: the 3 requests are 1 to 3
    // entries, `requests:<count>` each, together exactly what they cost.
    const usageEntries = res.body.ledger.filter((l: { kind: string }) => l.kind === 'usage') as { amount: number; reference: string }[];
    expect(usageEntries.reduce((n, l) => n + Number(/^requests:(\d+)$/.exec(l.reference)?.[1]), 0)).toBe(3);
    expect(Math.round(usageEntries.reduce((sum, l) => sum + l.amount, 0) * 1e9)).toBe(-Number(2n * chatCost + largeCost));
    const times = res.body.ledger.map((l: { createdAt: string }) => Date.parse(l.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const expectedBalance = 3 - nanoToUnits(2n * chatCost + largeCost);
    expect(res.body.user.balance).toBeCloseTo(expectedBalance, 9);
    expect(res.body.user.spendThisMonth).toBeCloseTo(nanoToUnits(2n * chatCost + largeCost), 9);

    const listed = await adminCall('GET', `/api/admin/users?search=${encodeURIComponent(user.email)}`);
    expect(listed.body.data[0].spendThisMonth).toBe(res.body.user.spendThisMonth);
    expect(listed.body.data[0].balance).toBe(res.body.user.balance);
  });

  test('an unknown or malformed user id → 404', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await adminCall('GET', `/api/admin/users/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.type).toBe('not_found');
      expect(res.body.error.message).toMatch(/[А-Яа-я]/);
    }
  });
});

describe('credits', () => {
  test('a credit adds exactly once per reference, writes a ledger row and an audit row', async () => {
    const user = await registerUser(app.url);
    const reference = `ticket-${Date.now()}`;
    const body = { amount: 100.000000001, reason: 'компенсация за сбой', reference };
    const first = await adminCall('POST', `/api/admin/users/${user.userId}/credit`, body);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ balance: 103.000000001 });
    const again = await adminCall('POST', `/api/admin/users/${user.userId}/credit`, body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ balance: 103.000000001 });

    const ledger = await app.sql<{ amount_nano: unknown; reference: string }>(
      `select amount_nano::text as amount_nano, reference from ledger_entries where user_id = $1 and kind = 'admin_credit'`,
      [user.userId],
    );
    expect(ledger).toEqual([{ amount_nano: '100000000001', reference }]);

    const audit = await auditRows(user.userId);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'user.credit',
      targetType: 'user',
      adminEmail: ADMIN_EMAIL,
      adminId: admin.userId,
      before: { balance: '3' },
      after: { balance: '103.000000001', amount: '100.000000001', reason: 'компенсация за сбой', reference },
    });

    // The same reference for another amount or user is a mistake, not a repeat.
    const other = await registerUser(app.url);
    expect((await adminCall('POST', `/api/admin/users/${user.userId}/credit`, { ...body, amount: 5 })).status).toBe(409);
    const elsewhere = await adminCall('POST', `/api/admin/users/${other.userId}/credit`, body);
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.error.type).toBe('conflict');
    expect((await call(app.url, 'GET', '/api/balance', { token: other.token })).body.balance).toBe(3);
  });

  test('ten parallel credits with one reference credit once', async () => {
    const user = await registerUser(app.url);
    const body = { amount: 7.5, reason: 'бонус', reference: `parallel-${Date.now()}` };
    const results = await Promise.all(Array.from({ length: 10 }, () => adminCall('POST', `/api/admin/users/${user.userId}/credit`, body)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    for (const r of results) expect(r.body.balance).toBe(10.5);
    const rows = await app.sql(`select 1 from ledger_entries where user_id = $1 and kind = 'admin_credit'`, [user.userId]);
    expect(rows).toHaveLength(1);
    expect(await auditRows(user.userId)).toHaveLength(1);
  });

  test.each([
    ['zero', { amount: 0 }],
    ['finer than 1e-9', { amount: 1.0000000001 }],
    ['a string', { amount: '10' }],
    ['too large', { amount: 1e10 }],
    ['no reference', { reference: undefined }],
    ['an empty reference', { reference: '   ' }],
    ['a long reference', { reference: 'r'.repeat(201) }],
    ['no reason', { reason: '' }],
  ])('%s → 400 and nothing credited', async (_name, patch) => {
    const user = await registerUser(app.url);
    const body = { amount: 1, reason: 'проверка', reference: `bad-${Math.random()}`, ...patch };
    const res = await adminCall('POST', `/api/admin/users/${user.userId}/credit`, body);
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('invalid_request_error');
    expect(res.body.error.message).toMatch(/[А-Яа-я]/);
    expect(await app.sql(`select 1 from ledger_entries where user_id = $1 and kind = 'admin_credit'`, [user.userId])).toHaveLength(0);
  });

  test('a credit to an unknown user → 404', async () => {
    const res = await adminCall('POST', '/api/admin/users/00000000-0000-4000-8000-000000000000/credit', {
      amount: 1,
      reason: 'x',
      reference: `nobody-${Date.now()}`,
    });
    expect(res.status).toBe(404);
  });

  test('a negative correction never takes the balance below zero and says how much can be taken', async () => {
    const user = await registerUser(app.url);
    const refusedReference = `neg-${Date.now()}-a`;
    const tooMuch = await adminCall('POST', `/api/admin/users/${user.userId}/credit`, {
      amount: -3.5,
      reason: 'ошибочное начисление',
      reference: refusedReference,
    });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.error.type).toBe('invalid_request_error');
    // Money as the dashboard shows it (issue 33, point 9).
    expect(tooMuch.body.error.message).toMatch(/не больше 3,00\s₽\./);
    expect((await call(app.url, 'GET', '/api/balance', { token: user.token })).body.balance).toBe(3);
    expect(await app.sql(`select 1 from ledger_entries where user_id = $1 and kind = 'admin_credit'`, [user.userId])).toHaveLength(0);
    expect(await auditRows(user.userId)).toHaveLength(0);

    const partial = await adminCall('POST', `/api/admin/users/${user.userId}/credit`, {
      amount: -2.25,
      reason: 'частичная корректировка',
      reference: `neg-${Date.now()}-b`,
    });
    expect(partial.body).toEqual({ balance: 0.75 });
    // The failed attempt left its reference free: it can be used for a correction that fits.
    const exact = await adminCall('POST', `/api/admin/users/${user.userId}/credit`, {
      amount: -0.75,
      reason: 'обнуление',
      reference: refusedReference,
    });
    expect(exact.body).toEqual({ balance: 0 });
    const belowZero = await adminCall('POST', `/api/admin/users/${user.userId}/credit`, {
      amount: -0.000000001,
      reason: 'ещё',
      reference: `neg-${Date.now()}-c`,
    });
    expect(belowZero.status).toBe(400);
    expect(belowZero.body.error.message).toMatch(/не больше 0,00\s₽\./);
    const [row] = await app.sql<{ balance_nano: unknown }>('select balance_nano::text as balance_nano from users where id = $1', [user.userId]);
    expect(row!.balance_nano).toBe('0');
  });

  test('a correction can take money an idle lease of this instance was holding', async () => {
    const user = await registerUser(app.url);
    const { key } = await createApiKey(app.url, user.token);
    await chatOnce(key);
    // The request left a lease (a slice of the balance set aside by this instance) behind.
    const leased = await app.sql(`select 1 from balance_leases where user_id = $1`, [user.userId]);
    expect(leased.length).toBeGreaterThan(0);
    const balance = (await call(app.url, 'GET', '/api/balance', { token: user.token })).body.balance as number;
    const res = await adminCall('POST', `/api/admin/users/${user.userId}/credit`, {
      amount: -balance,
      reason: 'списать всё',
      reference: `lease-${Date.now()}`,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ balance: 0 });
    expect((await call(app.url, 'GET', '/api/balance', { token: user.token })).body.balance).toBe(0);
  });

  test('after all the credits and corrections the ledger still equals every balance', async () => {
    await settleAll(app);
    expect(await unbalancedUsers(app)).toEqual([]);
  });
});

describe('blocking', () => {
  test('a blocked user cannot log in (only the right password hears why), and the tokens and keys stop at once', async () => {
    const user = await registerUser(app.url);
    const { key } = await createApiKey(app.url, user.token);
    await chatOnce(key);

    const blocked = await adminCall('POST', `/api/admin/users/${user.userId}/block`);
    expect(blocked.status).toBe(200);
    expect(blocked.body).toMatchObject({ id: user.userId, blocked: true, blockedAt: expect.any(String) });

    const login = await call(app.url, 'POST', '/api/auth/login', { body: { email: user.email, password: user.password } });
    expect(login.status).toBe(403);
    expect(login.body.error.type).toBe('forbidden');
    expect(login.body.error.message).toContain('заблокирована');
    // A wrong password hears what it hears for any account: blocking does not tell which e-mails exist.
    const wrong = await call(app.url, 'POST', '/api/auth/login', { body: { email: user.email, password: 'wrong-password' } });
    const unknown = await call(app.url, 'POST', '/api/auth/login', { body: { email: uniqueEmail(), password: 'wrong-password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);

    // A block ends the dashboard sessions (issue 32): the token is refused as ended; the login says why.
    const dashboard = await call(app.url, 'GET', '/api/keys', { token: user.token });
    expect(dashboard.status).toBe(401);
    expect(dashboard.body.error.type).toBe('unauthorized');

    const refused = await openaiClient(app, key)
      .chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => null,
        (error: { status?: number }) => error,
      );
    expect(refused?.status).toBe(403);
    expect((await call(app.url, 'GET', '/api/balance', { token: key })).status).toBe(403);

    const unblocked = await adminCall('POST', `/api/admin/users/${user.userId}/unblock`);
    expect(unblocked.status).toBe(200);
    expect(unblocked.body).toMatchObject({ blocked: false, blockedAt: null });
    const again = await call(app.url, 'POST', '/api/auth/login', { body: { email: user.email, password: user.password } });
    expect(again.status).toBe(200);
    // An unblock does not bring the ended sessions back; the new login's token works.
    expect((await call(app.url, 'GET', '/api/keys', { token: user.token })).status).toBe(401);
    expect((await call(app.url, 'GET', '/api/keys', { token: again.body.token })).status).toBe(200);
    expect((await call(app.url, 'GET', '/api/balance', { token: key })).status).toBe(200);
    const { answer } = await chatOnce(key);
    expect(answer.choices[0]?.message.content).toBe('Echo: hello');

    const audit = await auditRows(user.userId);
    expect(audit.map((a) => a.action)).toEqual(['user.unblock', 'user.block']);
    expect(audit[1]).toMatchObject({ before: { blocked: false, blockedAt: null }, after: { blocked: true } });
    expect(audit[0]).toMatchObject({ before: { blocked: true }, after: { blocked: false, blockedAt: null } });
  });

  test('blocking twice changes nothing the second time; an admin cannot block themself; unknown users → 404', async () => {
    const user = await registerUser(app.url);
    expect((await adminCall('POST', `/api/admin/users/${user.userId}/block`)).status).toBe(200);
    const twice = await adminCall('POST', `/api/admin/users/${user.userId}/block`);
    expect(twice.status).toBe(200);
    expect(twice.body.blocked).toBe(true);
    expect(await auditRows(user.userId)).toHaveLength(1);

    const self = await adminCall('POST', `/api/admin/users/${admin.userId}/block`);
    expect(self.status).toBe(400);
    expect(self.body.error.message).toMatch(/[А-Яа-я]/);
    expect((await adminCall('GET', '/api/admin/prices')).status).toBe(200);

    expect((await adminCall('POST', '/api/admin/users/00000000-0000-4000-8000-000000000000/block')).status).toBe(404);
    expect((await adminCall('POST', '/api/admin/users/nope/unblock')).status).toBe(404);
  });

  test('a blocked admin loses the admin routes too', async () => {
    const second = await call(app.url, 'POST', '/api/auth/login', { body: { email: SECOND_ADMIN_EMAIL, password: 'secret123' } });
    expect(second.body.user.role).toBe('admin');
    const [{ id }] = (await app.sql<{ id: string }>('select id from users where email = $1', [SECOND_ADMIN_EMAIL])) as [{ id: string }];
    expect((await adminCall('POST', `/api/admin/users/${id}/block`)).status).toBe(200);
    // The block ended the admin's sessions (issue 32); an unblock does not revive them, a new login works.
    expect((await call(app.url, 'GET', '/api/admin/users', { token: second.body.token })).status).toBe(401);
    expect((await adminCall('POST', `/api/admin/users/${id}/unblock`)).status).toBe(200);
    expect((await call(app.url, 'GET', '/api/admin/users', { token: second.body.token })).status).toBe(401);
    const again = await call(app.url, 'POST', '/api/auth/login', { body: { email: SECOND_ADMIN_EMAIL, password: 'secret123' } });
    expect((await call(app.url, 'GET', '/api/admin/users', { token: again.body.token })).status).toBe(200);
  });
});

describe('daily stats', () => {
  const statsToday = async () => {
    const res = await adminCall('GET', `/api/admin/stats/daily?from=${today()}&to=${today()}`);
    expect(res.status).toBe(200);
    expect(res.body.days).toHaveLength(1);
    return res.body.days[0] as { day: string; revenue: number; credits: number; spend: number; requests: number };
  };

  test("revenue counts top-ups, credits count operators' money (corrections included), spend and requests count usage", async () => {
    const before = await statsToday();
    const user = await registerUser(app.url);
    const { key } = await createApiKey(app.url, user.token);
    const { usage } = await chatOnce(key);
    await adminCall('POST', `/api/admin/users/${user.userId}/credit`, { amount: 12.5, reason: 'бонус', reference: `stats-${Date.now()}-a` });
    await adminCall('POST', `/api/admin/users/${user.userId}/credit`, { amount: -2, reason: 'поправка', reference: `stats-${Date.now()}-b` });
    // A confirmed top-up as the payment flow records it: the ledger row with the balance it raised.
    await app.sql(
      `with t as (insert into ledger_entries (user_id, amount_nano, kind, reference) values ($1, 250000000000, 'topup', $2))
       update users set balance_nano = balance_nano + 250000000000 where id = $1`,
      [user.userId, `payment-${Date.now()}`],
    );
    await settleAll(app);

    const after = await statsToday();
    expect(after.day).toBe(today());
    expect(after.revenue - before.revenue).toBeCloseTo(250, 9);
    expect(after.credits - before.credits).toBeCloseTo(10.5, 9);
    expect(after.requests - before.requests).toBe(1);
    expect(after.spend - before.spend).toBeCloseTo(nanoToUnits(BigInt(usage.total_tokens) * TOKEN_PRICE_NANO), 9);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('every day of the range is listed, with zeros where nothing happened; totals add the days up', async () => {
    const day = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
    const res = await adminCall('GET', `/api/admin/stats/daily?from=${day(2)}&to=${day(0)}`);
    expect(res.status).toBe(200);
    expect(res.body.days.map((d: { day: string }) => d.day)).toEqual([day(2), day(1), day(0)]);
    expect(res.body.days[0]).toEqual({ day: day(2), revenue: 0, credits: 0, spend: 0, providerCost: 0, margin: 0, requests: 0 });
    expect(res.body.totals.requests).toBe(res.body.days[2].requests);
    expect(res.body.totals.revenue).toBe(res.body.days[2].revenue);

    const fallback = await adminCall('GET', '/api/admin/stats/daily');
    expect(fallback.body.days).toHaveLength(30);
    expect(fallback.body.to).toBe(today());
  });

  test.each([
    ['a malformed date', 'from=2026-13-01&to=2026-12-31'],
    ['from after to', 'from=2026-02-02&to=2026-02-01'],
    ['over a year', 'from=2024-01-01&to=2026-01-01'],
  ])('%s → 400', async (_name, query) => {
    const res = await adminCall('GET', `/api/admin/stats/daily?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/[А-Яа-я]/);
  });
});

describe('audit log', () => {
  test('newest first, paged, with who did what', async () => {
    const user = await registerUser(app.url);
    await adminCall('POST', `/api/admin/users/${user.userId}/credit`, { amount: 1, reason: 'a', reference: `audit-${Date.now()}-1` });
    await adminCall('POST', `/api/admin/users/${user.userId}/block`);
    await adminCall('POST', `/api/admin/users/${user.userId}/unblock`);

    const page1 = await adminCall('GET', '/api/admin/audit?limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((a: { action: string }) => a.action)).toEqual(['user.unblock', 'user.block']);
    expect(page1.body.data[0]).toEqual({
      id: expect.any(String),
      createdAt: expect.any(String),
      adminId: admin.userId,
      adminEmail: ADMIN_EMAIL,
      action: 'user.unblock',
      targetType: 'user',
      targetId: user.userId,
      targetEmail: user.email,
      before: { blocked: true, blockedAt: expect.any(String) },
      after: { blocked: false, blockedAt: null },
      // The Russian view beside the raw fields (issue 41, point 7).
      actionText: 'Снятие блокировки',
      targetText: `Пользователь ${user.email}`,
      targetExists: true,
      changes: [
        { field: 'blocked', label: 'заблокирован', before: 'да', after: 'нет', text: 'заблокирован: да → нет' },
        {
          field: 'blockedAt',
          label: 'заблокирован с',
          before: expect.stringMatching(/ по Москве$/),
          after: '—',
          text: expect.stringMatching(/^заблокирован с: .+ по Москве → —$/),
        },
      ],
    });
    const page2 = await adminCall('GET', `/api/admin/audit?limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body.data[0]).toMatchObject({ action: 'user.credit', targetId: user.userId });
    expect(Number(page2.body.data[0].id)).toBeLessThan(Number(page1.body.data[1].id));
    expect((await adminCall('GET', '/api/admin/audit?cursor=bad')).status).toBe(400);
  });
});

describe('prices', () => {
  const listPrices = async () => {
    const res = await adminCall('GET', '/api/admin/prices');
    expect(res.status).toBe(200);
    return res.body as { prices: { pattern: string; promptPerMillion: number; completionPerMillion: number; updatedAt: string }[]; default: unknown };
  };

  test('set, change and remove a price whose pattern holds "/" and "*"; every change is audited', async () => {
    // The cache ratios a row without cache prices of its own derives them by (issue 45).
    expect((await listPrices()).default).toEqual({ promptPerMillion: 0.125, completionPerMillion: 0.125, cacheReadRatio: 0.1, cacheWriteRatio: 1.25 });

    const put = await adminCall('PUT', '/api/admin/prices', { pattern: 'crud-test/*', promptPerMillion: 1.5, completionPerMillion: 2.000000001 });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      pattern: 'crud-test/*',
      // A token price unless said otherwise; no price a second of audio.
      kind: 'per_token',
      promptPerMillion: 1.5,
      completionPerMillion: 2.000000001,
      perSecond: 0,
      // No cache prices of its own: derived from the prompt price.
      cachedPromptPerMillion: null,
      cacheWritePerMillion: null,
      updatedAt: expect.any(String),
    });
    expect((await listPrices()).prices).toContainEqual(put.body);

    const exact = await adminCall('PUT', '/api/admin/prices', { pattern: 'crud-test/model-1:free', promptPerMillion: 0, completionPerMillion: 0 });
    expect(exact.status).toBe(200);
    const changed = await adminCall('PUT', '/api/admin/prices', { pattern: 'crud-test/*', promptPerMillion: 3, completionPerMillion: 4 });
    expect(changed.body).toMatchObject({ promptPerMillion: 3, completionPerMillion: 4 });
    const rows = (await listPrices()).prices.filter((p) => p.pattern.startsWith('crud-test/'));
    expect(rows.map((p) => [p.pattern, p.promptPerMillion, p.completionPerMillion])).toEqual([
      ['crud-test/*', 3, 4],
      ['crud-test/model-1:free', 0, 0],
    ]);

    const removed = await adminCall('DELETE', `/api/admin/prices?pattern=${encodeURIComponent('crud-test/*')}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true, message: expect.stringMatching(/[А-Яа-я]/) });
    expect((await listPrices()).prices.map((p) => p.pattern)).not.toContain('crud-test/*');
    const again = await adminCall('DELETE', `/api/admin/prices?pattern=${encodeURIComponent('crud-test/*')}`);
    expect(again.status).toBe(404);
    expect(again.body.error.type).toBe('not_found');

    const audit = await auditRows('crud-test/*');
    expect(audit.map((a) => a.action)).toEqual(['price.delete', 'price.upsert', 'price.upsert']);
    expect(audit[2]).toMatchObject({
      targetType: 'price',
      before: null,
      after: { pattern: 'crud-test/*', promptPerMillion: '1.5', completionPerMillion: '2.000000001' },
    });
    expect(audit[1]).toMatchObject({ before: { promptPerMillion: '1.5' }, after: { promptPerMillion: '3', completionPerMillion: '4' } });
    expect(audit[0]).toMatchObject({ before: { pattern: 'crud-test/*', promptPerMillion: '3' }, after: null });
  });

  test.each([
    ['a pattern with a space', { pattern: 'bad pattern' }],
    ['a star inside', { pattern: 'a*b' }],
    ['an empty pattern', { pattern: '' }],
    ['a negative price', { promptPerMillion: -1 }],
    ['a price finer than 1e-9', { completionPerMillion: 0.0000000001 }],
    ['a price as a string', { promptPerMillion: '1' }],
  ])('%s → 400 and nothing saved', async (_name, patch) => {
    const body = { pattern: 'invalid-test/model', promptPerMillion: 1, completionPerMillion: 1, ...patch };
    const res = await adminCall('PUT', '/api/admin/prices', body);
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('invalid_request_error');
    expect((await listPrices()).prices.filter((p) => p.pattern.startsWith('invalid-test') || p.pattern === 'bad pattern')).toEqual([]);
  });

  test('import preview prices the upstream list × multiplier beside the price in force, and saves nothing', async () => {
    await adminCall('PUT', '/api/admin/prices', { pattern: 'vendor/*', promptPerMillion: 50, completionPerMillion: 60 });
    const before = await listPrices();

    const res = await adminCall('POST', '/api/admin/prices/import/preview', { multiplier: 90, filter: 'VENDOR/' });
    expect(res.status).toBe(200);
    expect(res.body.rows).toEqual([
      {
        model: 'vendor/cheap',
        upstreamPrompt: '0.000001',
        upstreamCompletion: '0.000002',
        promptPerMillion: 90,
        completionPerMillion: 180,
        current: { pattern: 'vendor/*', promptPerMillion: 50, completionPerMillion: 60 },
      },
      {
        model: 'vendor/odd',
        upstreamPrompt: '0.0000001234567891',
        upstreamCompletion: '0',
        // 0.1234567891 × 90 = 11.111111019 exactly.
        promptPerMillion: 11.111111019,
        completionPerMillion: 0,
        current: { pattern: 'vendor/*', promptPerMillion: 50, completionPerMillion: 60 },
      },
    ]);
    expect(res.body.skipped).toEqual([
      { model: 'vendor/auto', reason: 'variable_pricing' },
      { model: 'vendor/no-pricing', reason: 'no_pricing' },
    ]);

    // Half a nano-unit rounds up: 0.1234567891 × 1.5 = 0.18518518365 → 0.185185184.
    const rounded = await adminCall('POST', '/api/admin/prices/import/preview', { multiplier: 1.5, filter: 'odd' });
    expect(rounded.body.rows.map((r: { promptPerMillion: number }) => r.promptPerMillion)).toEqual([0.185185184]);

    // Without a filter the whole list is looked at; models the upstream prices nowhere are skipped.
    const everything = await adminCall('POST', '/api/admin/prices/import/preview', { multiplier: 1 });
    expect(everything.body.skipped).toContainEqual({ model: 'acme/chat', reason: 'no_pricing' });
    const acme = everything.body.rows.find((r: { model: string }) => r.model === 'acme/chat');
    expect(acme).toBeUndefined();

    expect(await listPrices()).toEqual(before);
    for (const multiplier of [0, -1, 'x', 2_000_000]) {
      expect((await adminCall('POST', '/api/admin/prices/import/preview', { multiplier })).status).toBe(400);
    }
  });

  test('import saves the chosen models as exact-id rows, skips the rest, and is audited', async () => {
    const res = await adminCall('POST', '/api/admin/prices/import', {
      multiplier: 90,
      models: ['vendor/cheap', 'vendor/odd', 'vendor/no-pricing', 'vendor/missing'],
    });
    expect(res.status).toBe(200);
    expect(
      res.body.imported.map((r: { model: string; promptPerMillion: number; completionPerMillion: number }) => [r.model, r.promptPerMillion, r.completionPerMillion]),
    ).toEqual([
      ['vendor/cheap', 90, 180],
      ['vendor/odd', 11.111111019, 0],
    ]);
    expect(res.body.skipped).toEqual([
      { model: 'vendor/missing', reason: 'not_found' },
      { model: 'vendor/no-pricing', reason: 'no_pricing' },
    ]);

    const saved = (await listPrices()).prices.filter((p) => p.pattern.startsWith('vendor/'));
    expect(saved.map((p) => [p.pattern, p.promptPerMillion, p.completionPerMillion])).toEqual([
      ['vendor/*', 50, 60],
      ['vendor/cheap', 90, 180],
      ['vendor/odd', 11.111111019, 0],
    ]);

    // The preview now shows the imported rows as the prices in force.
    const preview = await adminCall('POST', '/api/admin/prices/import/preview', { multiplier: 100, filter: 'vendor/cheap' });
    expect(preview.body.rows[0].current).toEqual({ pattern: 'vendor/cheap', promptPerMillion: 90, completionPerMillion: 180 });

    const audit = (await adminCall('GET', '/api/admin/audit?limit=10')).body.data.find((a: { action: string }) => a.action === 'price.import');
    expect(audit).toMatchObject({
      adminEmail: ADMIN_EMAIL,
      targetType: 'price',
      targetId: null,
      before: { prices: [] },
      after: {
        multiplier: '90',
        prices: [
          { pattern: 'vendor/cheap', promptPerMillion: '90', completionPerMillion: '180' },
          { pattern: 'vendor/odd', promptPerMillion: '11.111111019', completionPerMillion: '0' },
        ],
      },
    });

    const nothing = await adminCall('POST', '/api/admin/prices/import', { multiplier: 1, models: [] });
    expect(nothing.status).toBe(400);
  });
});

describe('ADMIN_EMAILS is applied at every login', () => {
  test('removing the address takes the role away at the next login; adding it back needs the proof again', async () => {
    const email = uniqueEmail('ops');
    let instance = await startTestApp({ env: { ADMIN_EMAILS: email } });
    const database = instance.database;
    try {
      const registered = await registerAdmin(instance, email);
      expect((await call(instance.url, 'GET', '/api/admin/users', { token: registered.token })).status).toBe(200);
      await instance.stop();

      instance = await startTestApp({ database, env: { ADMIN_EMAILS: '' } });
      // Until the next login the stored role stands.
      expect((await call(instance.url, 'GET', '/api/admin/users', { token: registered.token })).status).toBe(200);
      const login = await call(instance.url, 'POST', '/api/auth/login', { body: { email, password: registered.password } });
      expect(login.body.user.role).toBe('user');
      expect((await call(instance.url, 'GET', '/api/admin/users', { token: registered.token })).status).toBe(403);
      expect((await call(instance.url, 'GET', '/api/admin/users', { token: login.body.token })).status).toBe(403);
      await instance.stop();

      instance = await startTestApp({ database, env: { ADMIN_EMAILS: `other@example.com,${email}` } });
      const listedAgain = await call(instance.url, 'POST', '/api/auth/login', { body: { email, password: registered.password } });
      expect(listedAgain.body.user.role).toBe('user');
      await grantAdmin(instance, email);
      const back = await call(instance.url, 'POST', '/api/auth/login', { body: { email, password: registered.password } });
      expect(back.body.user.role).toBe('admin');
      expect((await call(instance.url, 'GET', '/api/admin/users', { token: back.body.token })).status).toBe(200);
    } finally {
      await instance.stop();
      await database.drop();
    }
  });
});
