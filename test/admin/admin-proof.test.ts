// Issue 28, row 1: ADMIN_EMAILS names the admins' addresses, but typing one at registration proves
// nothing. A listed address becomes admin only through the mailed verification link's form, which also
// sets the account's password (issue 38 row 1: whoever registered the address chose the old one), or the
// operator's `npm run admin:grant -- <email>` on the server.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { fileURLToPath } from 'node:url';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp';
import { call, registerUser, startTestApp, TEST_ENCRYPTION_KEY, TEST_JWT_SECRET, uniqueEmail, type TestApp } from '../helpers/app';

setDefaultTimeout(30_000);

const onPostgres = !!process.env.DATABASE_URL;
const PUBLIC_BASE_URL = 'https://conduit.example';
const LINK = /https:\/\/conduit\.example\/api\/auth\/verify-email\?token=([A-Za-z0-9_-]+)/;
const GRANT_SCRIPT = fileURLToPath(new URL('../../scripts/admin-grant.ts', import.meta.url));

const me = async (app: TestApp, token: string) => (await call(app.url, 'GET', '/api/auth/me', { token })).body.user;
const adminUsers = (app: TestApp, token: string) => call(app.url, 'GET', '/api/admin/users', { token });
const credit = (app: TestApp, token: string, userId: string, reference: string) =>
  call(app.url, 'POST', `/api/admin/users/${userId}/credit`, { token, body: { amount: 1000, reason: 'test', reference } });

/** Runs `npm run admin:grant -- <email>`'s script as the operator would, with the app's configuration. */
async function runGrant(app: TestApp, adminEmails: string, email: string) {
  const proc = Bun.spawn([process.execPath, GRANT_SCRIPT, email], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      NODE_ENV: 'test',
      ...(app.database.databaseUrl ? { DATABASE_URL: app.database.databaseUrl } : {}),
      DATA_DIR: app.database.dataDir,
      JWT_SECRET: TEST_JWT_SECRET,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      ADMIN_EMAILS: adminEmails,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const code = await proc.exited;
  return { code, stdout: await new Response(proc.stdout).text(), stderr: await new Response(proc.stderr).text() };
}

describe('without mail', () => {
  const operator = uniqueEmail('operator');
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { ADMIN_EMAILS: operator } });
  });
  afterAll(() => app?.close());

  test("a stranger who registers the operator's address before the operator is a user: no admin routes, no credit, not after a login either", async () => {
    const squatter = await call(app.url, 'POST', '/api/auth/register', { body: { email: operator, password: 'squatter-1' } });
    expect(squatter.status).toBe(201);
    expect(squatter.body.user.role).toBe('user');
    const victim = await registerUser(app.url);
    expect((await adminUsers(app, squatter.body.token)).status).toBe(403);
    expect((await credit(app, squatter.body.token, victim.userId, 'squat-1')).status).toBe(403);

    const login = await call(app.url, 'POST', '/api/auth/login', { body: { email: operator, password: 'squatter-1' } });
    expect(login.status).toBe(200);
    expect(login.body.user.role).toBe('user');
    expect((await credit(app, login.body.token, victim.userId, 'squat-2')).status).toBe(403);
    expect(await me(app, victim.token)).toMatchObject({ balance: 3 });
    expect(await app.sql(`select 1 from ledger_entries where kind = 'admin_credit'`)).toHaveLength(0);
  });
});

describe('npm run admin:grant -- <email>', () => {
  const operator = uniqueEmail('ops');
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { ADMIN_EMAILS: operator } });
  });
  afterAll(() => app?.close());

  test('refuses an address outside ADMIN_EMAILS and one without an account; grants a listed, registered one, which the open session then uses', async () => {
    const outsider = await registerUser(app.url);
    const owner = await registerUser(app.url, operator, 'operator-secret');
    expect((await adminUsers(app, owner.token)).status).toBe(403);
    // PGlite: one process at a time may open DATA_DIR, so the server stops while the command runs.
    if (!onPostgres) await app.stop();

    const notListed = await runGrant(app, operator, outsider.email);
    expect(notListed.code).toBe(1);
    expect(notListed.stderr).toContain('ADMIN_EMAILS');
    const unregistered = await runGrant(app, `${operator},${uniqueEmail('nobody')}`, uniqueEmail('nobody'));
    expect(unregistered.code).toBe(1);
    const granted = await runGrant(app, `other@example.com, ${operator.toUpperCase()}`, operator.toUpperCase());
    expect(granted.stderr).toBe('');
    expect(granted.code).toBe(0);
    expect(granted.stdout).toContain(`admin role granted: ${operator} (account ${owner.userId}`);

    if (!onPostgres) app = await startTestApp({ database: app.database, env: { ADMIN_EMAILS: operator } });
    // The token issued before the grant: the role is read from the database on every request.
    expect((await adminUsers(app, owner.token)).status).toBe(200);
    const credited = await credit(app, owner.token, outsider.userId, 'grant-1');
    expect(credited.status).toBe(200);
    expect(await me(app, outsider.token)).toMatchObject({ balance: 1003, role: 'user' });
    const login = await call(app.url, 'POST', '/api/auth/login', { body: { email: operator, password: 'operator-secret' } });
    expect(login.body.user.role).toBe('admin');
  });
});

for (const required of [false, true]) {
  describe(`with SMTP_URL and REQUIRE_EMAIL_VERIFICATION=${required}`, () => {
    const operator = uniqueEmail('mailed-ops');
    let smtp: FakeSmtp;
    let app: TestApp;
    beforeAll(async () => {
      smtp = await startFakeSmtp();
      app = await startTestApp({
        env: { ADMIN_EMAILS: operator, SMTP_URL: smtp.url, PUBLIC_BASE_URL, REQUIRE_EMAIL_VERIFICATION: String(required) },
      });
    });
    afterAll(async () => {
      await app?.close();
      await smtp?.close();
    });

    test('the listed address is mailed a link; the account is a user until its form sets the password, then admin (earlier sessions ended)', async () => {
      const plain = await call(app.url, 'POST', '/api/auth/register', { body: { email: uniqueEmail('plain'), password: 'secret123' } });
      const registered = await call(app.url, 'POST', '/api/auth/register', { body: { email: operator, password: 'secret123' } });
      expect(registered.status).toBe(201);
      expect(registered.body.user.role).toBe('user');
      // The answer is the one any address gets: it does not tell that this one is an admin's.
      expect(registered.body.message).toBe(plain.body.message);
      const token = registered.body.token as string;
      expect((await adminUsers(app, token)).status).toBe(403);

      const mail = await smtp.waitFor(operator);
      expect(mail.subject).toMatch(/[А-Яа-я]/);
      // Without REQUIRE_EMAIL_VERIFICATION the bonus came with the registration: the mail promises none.
      expect(mail.text.includes('бонус')).toBe(required);
      if (!required) expect(smtp.messages.filter((m) => m.to.includes(plain.body.user.email))).toHaveLength(0);
      const secret = LINK.exec(mail.text)?.[1];
      expect(secret).toBeDefined();

      // Opening the link changes nothing.
      const opened = await fetch(`${app.url}/api/auth/verify-email?token=${secret}`);
      expect(opened.status).toBe(200);
      expect(await me(app, token)).toMatchObject({ role: 'user', emailVerified: false });

      const submitted = await call(app.url, 'POST', '/api/auth/verify-email', { body: { token: secret, password: 'operator-pass-1' } });
      expect(submitted.status).toBe(200);
      expect(submitted.body).toMatchObject({ emailVerified: true, role: 'admin' });
      expect((await call(app.url, 'GET', '/api/auth/me', { token })).status).toBe(401);
      expect((await call(app.url, 'POST', '/api/auth/login', { body: { email: operator, password: 'secret123' } })).status).toBe(401);
      const login = await call(app.url, 'POST', '/api/auth/login', { body: { email: operator, password: 'operator-pass-1' } });
      expect(login.body.user).toMatchObject({ role: 'admin', emailVerified: true, balance: 3 });
      expect((await adminUsers(app, login.body.token)).status).toBe(200);
    });
  });
}
