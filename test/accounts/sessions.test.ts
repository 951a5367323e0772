// Sessions that end (issue 32 point 3): logout-all, a password change, a reset, an operator's block or
// "end sessions" make every dashboard token issued before refuse at once, on every instance; the fresh
// token a change or reset answers works, even in the very second of the cut.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp';
import { call, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';

const onPostgres = Boolean(process.env.DATABASE_URL);
const ADMIN_EMAIL = uniqueEmail('sessions-admin');
const PUBLIC_BASE_URL = 'https://conduit.example';

let app: TestApp;
let smtp: FakeSmtp;
let adminToken: string;
beforeAll(async () => {
  smtp = await startFakeSmtp();
  app = await startTestApp({ env: { ADMIN_EMAILS: ADMIN_EMAIL, SMTP_URL: smtp.url, PUBLIC_BASE_URL } });
  adminToken = (await registerAdmin(app, ADMIN_EMAIL)).token;
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

const me = (token: string, base = app.url) => call(base, 'GET', '/api/auth/me', { token });
const login = (email: string, password: string) => call(app.url, 'POST', '/api/auth/login', { body: { email, password } });

/** NOTIFY reaches another instance a moment after the commit: wait for it, but not for long. */
async function eventually(check: () => Promise<boolean>, timeoutMs = 2000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await Bun.sleep(20);
  }
}

describe('logout-all', () => {
  test('every token of the user answers 401 at once; a login afterwards, in the same second, works', async () => {
    const user = await registerUser(app.url);
    const second = (await login(user.email, user.password)).body.token as string;
    expect((await me(user.token)).status).toBe(200);
    expect((await me(second)).status).toBe(200);

    const res = await call(app.url, 'POST', '/api/auth/logout-all', { token: second });
    expect(res.status).toBe(200);
    expect(res.body.message).toMatch(/сеанс/);
    for (const token of [user.token, second]) {
      const refused = await me(token);
      expect(refused.status).toBe(401);
      expect(refused.body.error.type).toBe('unauthorized');
    }
    // Issued within the same second as the cut (JWT times are whole seconds): still accepted.
    const fresh = await login(user.email, user.password);
    expect(fresh.status).toBe(200);
    expect((await me(fresh.body.token)).status).toBe(200);
  });

  test('other users keep their sessions', async () => {
    const a = await registerUser(app.url);
    const b = await registerUser(app.url);
    expect((await call(app.url, 'POST', '/api/auth/logout-all', { token: a.token })).status).toBe(200);
    expect((await me(b.token)).status).toBe(200);
  });

  test('an API key is not a session: logout-all needs a JWT and leaves keys working', async () => {
    const user = await registerUser(app.url);
    const key = (await call(app.url, 'POST', '/api/keys', { token: user.token, body: { name: 'k' } })).body.key as string;
    expect((await call(app.url, 'POST', '/api/auth/logout-all', { token: key })).status).toBe(401);
    expect((await call(app.url, 'POST', '/api/auth/logout-all', { token: user.token })).status).toBe(200);
    expect((await call(app.url, 'GET', '/api/balance', { token: key })).status).toBe(200);
  });

  test.skipIf(!onPostgres)('a second instance on the same database refuses the old token too', async () => {
    const other = await startTestApp({ database: app.database, env: { ADMIN_EMAILS: ADMIN_EMAIL } });
    try {
      const user = await registerUser(app.url);
      // The second instance has the user cached now: only the notification can tell it.
      expect((await me(user.token, other.url)).status).toBe(200);
      expect((await me(user.token, other.url)).status).toBe(200);
      expect((await call(app.url, 'POST', '/api/auth/logout-all', { token: user.token })).status).toBe(200);
      expect(await eventually(async () => (await me(user.token, other.url)).status === 401, 1000)).toBe(true);
      const fresh = (await login(user.email, user.password)).body.token as string;
      expect((await me(fresh, other.url)).status).toBe(200);
    } finally {
      await other.stop();
    }
  });
});

describe('password change', () => {
  test('a wrong current password → 400 naming the field; nothing changes', async () => {
    const user = await registerUser(app.url);
    const res = await call(app.url, 'POST', '/api/auth/password', {
      token: user.token,
      body: { currentPassword: 'not-the-password', newPassword: 'brand-new-1' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('invalid_request_error');
    expect(res.body.error.message).toBe('Текущий пароль указан неверно');
    expect((await me(user.token)).status).toBe(200);
    expect((await login(user.email, user.password)).status).toBe(200);
  });

  test('a new password shorter than registration allows → 400', async () => {
    const user = await registerUser(app.url);
    const res = await call(app.url, 'POST', '/api/auth/password', {
      token: user.token,
      body: { currentPassword: user.password, newPassword: '123' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('не менее 6 символов');
  });

  test('answers a fresh token that works; every earlier token, the caller’s included, is refused; the new password logs in', async () => {
    const user = await registerUser(app.url);
    const other = (await login(user.email, user.password)).body.token as string;
    const res = await call(app.url, 'POST', '/api/auth/password', {
      token: user.token,
      body: { currentPassword: user.password, newPassword: 'brand-new-1' },
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toMatch(/Пароль изменён/);
    expect((await me(res.body.token)).status).toBe(200);
    expect((await me(user.token)).status).toBe(401);
    expect((await me(other)).status).toBe(401);
    expect((await login(user.email, user.password)).status).toBe(401);
    expect((await login(user.email, 'brand-new-1')).status).toBe(200);
  });

  test('wrong guesses of the current password are throttled like logins (429 with Retry-After)', async () => {
    const user = await registerUser(app.url);
    const attempts = app.config.loginMaxFailures + 1;
    const statuses: number[] = [];
    for (let i = 0; i < attempts; i++) {
      const res = await call(app.url, 'POST', '/api/auth/password', {
        token: user.token,
        body: { currentPassword: `guess-${i}`, newPassword: 'brand-new-1' },
      });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(statuses.slice(0, app.config.loginMaxFailures).every((s) => s === 400)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });
});

describe('changes made elsewhere reach the token cache', () => {
  test('a block written straight into the database (another module, another instance) applies to a cached token', async () => {
    const user = await registerUser(app.url);
    expect((await me(user.token)).status).toBe(200); // cached now
    await app.sql('update users set blocked_at = now() where id = $1', [user.userId]);
    expect(await eventually(async () => (await me(user.token)).status === 403)).toBe(true);
    await app.sql('update users set blocked_at = null where id = $1', [user.userId]);
    expect(await eventually(async () => (await me(user.token)).status === 200)).toBe(true);
  });
});

describe('the operator', () => {
  const adminCall = (method: string, path: string) => call(app.url, method, path, { token: adminToken });
  const auditOf = async (userId: string) =>
    (await adminCall('GET', `/api/admin/audit?targetId=${userId}&limit=100`)).body.data as Array<{ action: string; adminEmail: string }>;

  test('a block ends the sessions; an unblock does not bring the old tokens back (a new login does)', async () => {
    const user = await registerUser(app.url);
    expect((await me(user.token)).status).toBe(200);
    expect((await adminCall('POST', `/api/admin/users/${user.userId}/block`)).status).toBe(200);
    expect((await me(user.token)).status).toBe(401);
    expect((await adminCall('POST', `/api/admin/users/${user.userId}/unblock`)).status).toBe(200);
    expect((await me(user.token)).status).toBe(401);
    const fresh = await login(user.email, user.password);
    expect(fresh.status).toBe(200);
    expect((await me(fresh.body.token)).status).toBe(200);
  });

  test('«end all sessions» refuses the user’s tokens at once and leaves an audit row', async () => {
    const user = await registerUser(app.url);
    const res = await adminCall('POST', `/api/admin/users/${user.userId}/end-sessions`);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Все сеансы пользователя завершены');
    expect((await me(user.token)).status).toBe(401);
    const audit = await auditOf(user.userId);
    expect(audit.map((row) => row.action)).toContain('user.sessions_ended');
    expect(audit.find((row) => row.action === 'user.sessions_ended')!.adminEmail).toBe(ADMIN_EMAIL.toLowerCase());
  });

  test('«send a reset link» mails the user a working link and leaves an audit row', async () => {
    const user = await registerUser(app.url);
    const res = await adminCall('POST', `/api/admin/users/${user.userId}/password-reset`);
    expect(res.status).toBe(200);
    expect(res.body.message).toContain(user.email);
    const mail = await smtp.waitFor(user.email);
    expect(mail.text).toContain('Администратор');
    const token = /https:\/\/conduit\.example\/api\/auth\/password-reset\/confirm\?token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!;
    const confirmed = await call(app.url, 'POST', '/api/auth/password-reset/confirm', { body: { token, password: 'from-operator-1' } });
    expect(confirmed.status).toBe(200);
    expect((await me(user.token)).status).toBe(401);
    expect((await login(user.email, 'from-operator-1')).status).toBe(200);
    expect((await auditOf(user.userId)).map((row) => row.action)).toContain('user.password_reset_sent');
  });

  test('both actions: an unknown user → 404, a non-admin → 403, and no audit row', async () => {
    const user = await registerUser(app.url);
    for (const path of ['password-reset', 'end-sessions']) {
      expect((await adminCall('POST', `/api/admin/users/00000000-0000-4000-8000-000000000000/${path}`)).status).toBe(404);
      const byUser = await call(app.url, 'POST', `/api/admin/users/${user.userId}/${path}`, { token: user.token });
      expect(byUser.status).toBe(403);
    }
    expect(await auditOf(user.userId)).toEqual([]);
  });
});
