import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test';
import { SignJWT } from 'jose';
import { call, registerUser, startTestApp, TEST_JWT_SECRET, uniqueEmail, type TestApp } from '../helpers/app';
import { errorOf, okBody, rest } from '../helpers/rest';

// Starting an app on a fresh database takes longer than bun's 5 s default (a bare `bun test` has no --timeout).
setDefaultTimeout(30_000);

let app: TestApp;
beforeAll(async () => {
  // TRUST_PROXY lets a test speak from another address through X-Forwarded-For.
  app = await startTestApp({ env: { LOGIN_MAX_FAILURES: '3', LOGIN_LOCKOUT_SECONDS: '60', TRUST_PROXY: 'true' } });
});
afterAll(() => app?.close());

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('registration', () => {
  test('creates a user with the 3.00 bonus, a JWT and a Russian message', async () => {
    const email = uniqueEmail();
    const res = await rest(app.url).auth.register({ email, password: 'secret1' });
    expect(res.status).toBe(201);
    const registered = okBody(res);
    expect(registered.user).toEqual({ id: expect.any(String), email, balance: 3, role: 'user', emailVerified: false });
    expect(registered.token.split('.')).toHaveLength(3);
    expect(registered.message).toMatch(/[А-Яа-я]/);
    expect(JSON.stringify(registered)).not.toMatch(/password|hash/i);
  });

  test('trims and lower-cases the e-mail, and the bonus is a ledger entry written with the user', async () => {
    const local = uniqueEmail('MiXeD');
    const res = await rest(app.url).auth.register({ email: `  ${local.toUpperCase()}  `, password: 'secret1' });
    expect(res.status).toBe(201);
    const { user: created } = okBody(res);
    expect(created.email).toBe(local.toLowerCase());
    const rows = await app.sql<{ kind: string; amount_nano: bigint | string }>('select kind, amount_nano from ledger_entries where user_id = $1', [created.id]);
    expect(rows.map((r) => [r.kind, String(r.amount_nano)])).toEqual([['registration_bonus', '3000000000']]);
    const [user] = await app.sql<{ balance_nano: bigint | string; password_hash: string }>('select balance_nano, password_hash from users where id = $1', [
      created.id,
    ]);
    expect(String(user!.balance_nano)).toBe('3000000000');
    expect(user!.password_hash).toStartWith('$argon2id$');
  });

  test.each([
    ['bad e-mail', { email: 'not-an-email', password: 'secret1' }],
    ['short password', { email: uniqueEmail(), password: '12345' }],
    ['missing fields', {}],
    ['wrong types', { email: 42, password: ['x'] }],
    ['oversized e-mail', { email: `${'a'.repeat(300)}@example.com`, password: 'secret1' }],
  ])('%s → 400 invalid_request_error', async (_name, body) => {
    const res = await call(app.url, 'POST', '/api/auth/register', { body });
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('invalid_request_error');
    expect(res.body.error.message).toMatch(/[А-Яа-я]/);
  });

  test('an SQL-looking e-mail is just an invalid e-mail, and a quoted-but-valid one is stored verbatim', async () => {
    const injection = await call(app.url, 'POST', '/api/auth/register', {
      body: { email: "x'; drop table users; --@example.com", password: 'secret1' },
    });
    expect(injection.status).toBe(400);
    const quoted = `o'brien-${Date.now()}@example.com`;
    const res = await call(app.url, 'POST', '/api/auth/register', { body: { email: quoted, password: "p'); --" } });
    expect(res.status).toBe(201);
    const login = await call(app.url, 'POST', '/api/auth/login', { body: { email: quoted, password: "p'); --" } });
    expect(login.status).toBe(200);
    const [{ n } = { n: 0 }] = await app.sql<{ n: number | string }>('select count(*) as n from users');
    expect(Number(n)).toBeGreaterThan(1);
  });

  test('the same e-mail twice → 409 conflict, whatever its case', async () => {
    const email = uniqueEmail();
    expect((await rest(app.url).auth.register({ email, password: 'secret1' })).status).toBe(201);
    const again = await rest(app.url).auth.register({ email: email.toUpperCase(), password: 'other-password' });
    expect(again.status).toBe(409);
    expect(errorOf(again).type).toBe('conflict');
  });

  test('ten parallel registrations of one e-mail: exactly one succeeds, nine get 409', async () => {
    const email = uniqueEmail('race');
    const results = await Promise.all(Array.from({ length: 10 }, () => call(app.url, 'POST', '/api/auth/register', { body: { email, password: 'secret1' } })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    const rows = await app.sql('select id from users where email = $1', [email]);
    expect(rows).toHaveLength(1);
  });
});

describe('login', () => {
  test('returns {token, user} for the right password, with the e-mail normalised', async () => {
    const { email, password, userId } = await registerUser(app.url);
    const res = await rest(app.url).auth.login({ email: ` ${email.toUpperCase()} `, password });
    expect(res.status).toBe(200);
    const session = okBody(res);
    expect(session.user).toEqual({ id: userId, email, balance: 3, role: 'user', emailVerified: false });
    const keys = await rest(app.url, session.token).keys.list();
    expect(keys.status).toBe(200);
  });

  test('wrong password and unknown e-mail → 401 unauthorized with the same message', async () => {
    const { email } = await registerUser(app.url);
    const wrong = await call(app.url, 'POST', '/api/auth/login', { body: { email, password: 'nope-nope' } });
    const unknown = await call(app.url, 'POST', '/api/auth/login', { body: { email: uniqueEmail(), password: 'nope-nope' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.error).toEqual(unknown.body.error);
    expect(wrong.body.error.type).toBe('unauthorized');
  });

  test('repeated failures make that address wait (429 with Retry-After), even for the right password; the owner elsewhere gets in', async () => {
    const { email, password } = await registerUser(app.url);
    const guesser = { 'x-forwarded-for': '192.0.2.10' };
    for (let i = 0; i < 3; i++) {
      expect((await call(app.url, 'POST', '/api/auth/login', { body: { email, password: 'wrong-one' }, headers: guesser })).status).toBe(401);
    }
    const waiting = await call(app.url, 'POST', '/api/auth/login', { body: { email, password }, headers: guesser });
    expect(waiting.status).toBe(429);
    expect(waiting.body.error.type).toBe('rate_limit_exceeded');
    expect(Number(waiting.headers.get('retry-after'))).toBeGreaterThan(0);
    // The account is not locked: its owner, from another address, logs in.
    const owner = await call(app.url, 'POST', '/api/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': '192.0.2.11' } });
    expect(owner.status).toBe(200);
  });
});

describe('JWT checks on dashboard routes', () => {
  const sign = (payload: Record<string, unknown>, secret = TEST_JWT_SECRET, alg = 'HS256') =>
    new SignJWT(payload).setProtectedHeader({ alg }).sign(new TextEncoder().encode(secret));

  test('missing, malformed and non-Bearer credentials → 401', async () => {
    const cases: Record<string, string>[] = [{}, { authorization: 'Bearer' }, { authorization: 'Basic abc' }, { authorization: 'Bearer a.b.c' }];
    for (const headers of cases) {
      const res = await call(app.url, 'GET', '/api/keys', { headers });
      expect(res.status).toBe(401);
      expect(res.body.error.type).toBe('unauthorized');
    }
  });

  test('an expired token → 401', async () => {
    const { userId, email } = await registerUser(app.url);
    const now = Math.floor(Date.now() / 1000);
    const token = await sign({ sub: userId, email, iat: now - 90_000, exp: now - 3_600 });
    const res = await call(app.url, 'GET', '/api/keys', { token });
    expect(res.status).toBe(401);
  });

  test('a token lives 24 hours', async () => {
    const { token } = await registerUser(app.url);
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(payload.exp - payload.iat).toBe(24 * 3600);
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).alg).toBe('HS256');
  });

  test('a tampered signature or payload → 401', async () => {
    const { token } = await registerUser(app.url);
    const [h, p, s] = token.split('.');
    const flipped = s!.slice(0, -2) + (s!.endsWith('AA') ? 'BB' : 'AA');
    expect((await call(app.url, 'GET', '/api/keys', { token: `${h}.${p}.${flipped}` })).status).toBe(401);
    const other = await registerUser(app.url);
    const otherPayload = other.token.split('.')[1];
    expect((await call(app.url, 'GET', '/api/keys', { token: `${h}.${otherPayload}.${s}` })).status).toBe(401);
  });

  test('alg none and a token signed with another secret or algorithm → 401', async () => {
    const { userId, email } = await registerUser(app.url);
    const now = Math.floor(Date.now() / 1000);
    const none = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ sub: userId, email, iat: now, exp: now + 3600 })}.`;
    expect((await call(app.url, 'GET', '/api/keys', { token: none })).status).toBe(401);
    const foreign = await sign({ sub: userId, email, exp: now + 3600 }, 'another-secret-that-is-also-32-bytes-long');
    expect((await call(app.url, 'GET', '/api/keys', { token: foreign })).status).toBe(401);
    const hs512 = await sign({ sub: userId, email, exp: now + 3600 }, TEST_JWT_SECRET, 'HS512');
    expect((await call(app.url, 'GET', '/api/keys', { token: hs512 })).status).toBe(401);
  });

  test('a valid signature for an unknown or deleted user → 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const ghost = await sign({ sub: '00000000-0000-4000-8000-000000000000', email: 'ghost@example.com', exp: now + 3600 });
    expect((await call(app.url, 'GET', '/api/keys', { token: ghost })).status).toBe(401);
    const notUuid = await sign({ sub: "1' or '1'='1", email: 'x@example.com', exp: now + 3600 });
    expect((await call(app.url, 'GET', '/api/keys', { token: notUuid })).status).toBe(401);
    const { token, userId } = await registerUser(app.url);
    await app.sql('delete from users where id = $1', [userId]);
    expect((await call(app.url, 'GET', '/api/keys', { token })).status).toBe(401);
  });
});
