// E-mail change over HTTP: the confirmation link goes to the new address (the suite's SMTP server), the
// switch happens when its page's form is submitted (opening it changes nothing) and verifies the new
// address, the old address is told and gets a «это был не я — отменить» link (7 days, once, ending the
// sessions), and the admin role does not follow the new address until its verification form is used.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startFakeSmtp, type FakeSmtp, type ReceivedMail } from '../fakes/smtp';
import { call, grantAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';

const PUBLIC_BASE_URL = 'https://conduit.example';
const CHANGE_LINK = /https:\/\/conduit\.example\/api\/account\/email\/confirm\?token=([A-Za-z0-9_-]+)/;
const REVERT_LINK = /https:\/\/conduit\.example\/api\/account\/email\/revert\?token=([A-Za-z0-9_-]+)/;
const VERIFY_LINK = /https:\/\/conduit\.example\/api\/auth\/verify-email\?token=([A-Za-z0-9_-]+)/;
const ADMIN_OLD = 'change-admin-old@example.com';
const ADMIN_NEW = 'change-admin-new@example.com';

let smtp: FakeSmtp;
let app: TestApp;
beforeAll(async () => {
  smtp = await startFakeSmtp();
  app = await startTestApp({
    env: { SMTP_URL: smtp.url, SMTP_FROM: 'Conduit <no-reply@conduit.example>', PUBLIC_BASE_URL, ADMIN_EMAILS: `${ADMIN_OLD},${ADMIN_NEW}` },
  });
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

function tokenIn(mail: ReceivedMail, pattern: RegExp): string {
  const match = pattern.exec(mail.text);
  if (!match) throw new Error(`no link in: ${mail.text}`);
  return match[1]!;
}

const requestChange = (token: string, newEmail: string, password = 'secret123') =>
  call(app.url, 'POST', '/api/account/email', { token, body: { newEmail, password } });
const confirm = (token: string) => call(app.url, 'POST', '/api/account/email/confirm', { body: { token } });
/** The link's page form, as a browser submits it. */
const submitPage = (token: string) =>
  fetch(`${app.url}/api/account/email/confirm`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    body: new URLSearchParams({ token }).toString(),
  });
const me = async (token: string) => (await call(app.url, 'GET', '/api/auth/me', { token })).body.user;
const login = (email: string, password = 'secret123') => call(app.url, 'POST', '/api/auth/login', { body: { email, password } });

/** Requests a change and returns the token from the mail the new address received. */
async function mailedToken(userToken: string, newEmail: string, typed = newEmail): Promise<string> {
  const seen = smtp.messages.filter((m) => m.to.includes(newEmail)).length;
  const res = await requestChange(userToken, typed);
  expect(res.status).toBe(200);
  expect(res.body.message).toMatch(/ссылк/);
  return tokenIn(await smtp.waitFor(newEmail, seen), CHANGE_LINK);
}

describe('changing the e-mail', () => {
  test("the link goes to the new address; its page's form switches the account and tells the old address", async () => {
    const user = await registerUser(app.url, uniqueEmail('change-old'));
    const newEmail = uniqueEmail('change-new');
    // Typed with spaces and capitals: the address is kept as registration keeps one.
    const token = await mailedToken(user.token, newEmail, `  ${newEmail.toUpperCase()} `);
    const mail = smtp.messages.find((m) => m.to.includes(newEmail))!;
    expect(mail.subject).toMatch(/[А-Яа-я]/);
    expect(mail.text).toContain('1 ч');

    // Nothing changes until the link is opened.
    expect((await me(user.token)).email).toBe(user.email);
    expect((await app.sql<{ token_hash: string }>('select token_hash from email_changes')).some((r) => r.token_hash === token)).toBe(false);

    // Opening the link shows a form and changes nothing.
    const opened = await fetch(`${app.url}/api/account/email/confirm?token=${token}`, { headers: { accept: 'text/html' } });
    expect(opened.status).toBe(200);
    expect(opened.headers.get('cache-control')).toBe('no-store');
    expect(await opened.text()).toContain('<form method="post" action="/api/account/email/confirm">');
    expect((await me(user.token)).email).toBe(user.email);

    const page = await submitPage(token);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('E-mail изменён');
    expect(html).toContain(newEmail);

    expect(await me(user.token)).toMatchObject({ email: newEmail, emailVerified: true });
    expect((await login(newEmail)).status).toBe(200);
    expect((await login(user.email)).status).toBe(401);

    const notice = await smtp.waitFor(user.email);
    expect(notice.subject).toContain('изменён');
    expect(notice.text).toContain(newEmail);

    // One-time.
    const again = await confirm(token);
    expect(again.status).toBe(400);
    expect(again.body.error.type).toBe('invalid_request_error');
    expect(again.body.error.message).toMatch(/Ссылка недействительна/);
  });

  test('POST confirm answers JSON; a newer request voids the earlier link; an expired link is refused', async () => {
    const user = await registerUser(app.url, uniqueEmail('change-json'));
    const first = await mailedToken(user.token, uniqueEmail('change-first'));
    const secondEmail = uniqueEmail('change-second');
    const second = await mailedToken(user.token, secondEmail);
    expect((await confirm(first)).status).toBe(400);

    await app.sql(`update email_changes set expires_at = now() - interval '1 second' where user_id = $1`, [user.userId]);
    expect((await confirm(second)).status).toBe(400);
    expect((await me(user.token)).email).toBe(user.email);

    const third = await mailedToken(user.token, secondEmail);
    const ok = await confirm(third);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ email: secondEmail, emailVerified: true, message: expect.stringMatching(/изменён/) });
  });

  test('bad input: wrong password, the same address, a malformed one, a missing token', async () => {
    const user = await registerUser(app.url, uniqueEmail('change-bad'));
    const wrong = await requestChange(user.token, uniqueEmail('change-x'), 'not-my-password');
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toBe('Неверный пароль');
    const same = await requestChange(user.token, user.email.toUpperCase());
    expect(same.status).toBe(400);
    expect(same.body.error.message).toMatch(/текущий/);
    const malformed = await requestChange(user.token, 'not-an-email');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toMatch(/Новый e-mail/);
    expect((await call(app.url, 'POST', '/api/account/email/confirm', { body: {} })).status).toBe(400);
    expect((await confirm('short')).status).toBe(400);
    expect((await call(app.url, 'POST', '/api/account/email', { body: { newEmail: uniqueEmail(), password: 'secret123' } })).status).toBe(401);
  });

  test('an address taken by another account: refused at the request, and again at the link', async () => {
    const user = await registerUser(app.url, uniqueEmail('change-taken'));
    const other = await registerUser(app.url, uniqueEmail('change-owner'));
    const refused = await requestChange(user.token, other.email);
    expect(refused.status).toBe(409);
    expect(refused.body.error.type).toBe('conflict');
    expect(refused.body.error.message).toMatch(/[А-Яа-я]/);

    const wanted = uniqueEmail('change-race');
    const token = await mailedToken(user.token, wanted);
    await registerUser(app.url, wanted);
    const late = await confirm(token);
    expect(late.status).toBe(409);
    expect(late.body.error.type).toBe('conflict');
    const page = await submitPage(token);
    expect(page.status).toBe(409);
    expect(await page.text()).toContain('Адрес уже занят');
    expect((await me(user.token)).email).toBe(user.email);
  });

  test('requests are limited per user (each checks the password and may send a mail)', async () => {
    const user = await registerUser(app.url, uniqueEmail('change-limit'));
    for (let i = 0; i < 5; i++) expect((await requestChange(user.token, uniqueEmail('change-l'), 'wrong-password')).status).toBe(400);
    const held = await requestChange(user.token, uniqueEmail('change-l'));
    expect(held.status).toBe(429);
    expect(held.headers.get('retry-after')).toBeTruthy();
  });
});

/** Changes the user's address through the link's form and returns the cancel token mailed to the old one. */
async function changedWithCancel(user: { token: string; email: string }, newEmail: string): Promise<string> {
  const seen = smtp.messages.filter((m) => m.to.includes(user.email)).length;
  expect((await submitPage(await mailedToken(user.token, newEmail))).status).toBe(200);
  return tokenIn(await smtp.waitFor(user.email, seen), REVERT_LINK);
}
const openCancel = (token: string) => fetch(`${app.url}/api/account/email/revert?token=${token}`, { headers: { accept: 'text/html' } });
const submitCancel = (token: string) =>
  fetch(`${app.url}/api/account/email/revert`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    body: new URLSearchParams({ token }).toString(),
  });

describe('«это был не я — отменить»', () => {
  test('the notice carries a 7-day link; its form puts the old address back, verified, and ends every session, once', async () => {
    const user = await registerUser(app.url, uniqueEmail('cancel-old'));
    const newEmail = uniqueEmail('cancel-new');
    const seen = smtp.messages.filter((m) => m.to.includes(user.email)).length;
    expect((await submitPage(await mailedToken(user.token, newEmail))).status).toBe(200);
    const notice = await smtp.waitFor(user.email, seen);
    expect(notice.text).toContain('Это был не я — отменить');
    expect(notice.text).toContain('7 дней');
    const token = tokenIn(notice, REVERT_LINK);
    const [row] = await app.sql<{ days: number }>(
      `select round(extract(epoch from expires_at - now()) / 86400)::int as days from email_change_reverts where user_id = $1`,
      [user.userId],
    );
    expect(row?.days).toBe(7);

    // What the person who changed the address may do next ends neither the link nor the way back.
    const attacker = (await login(newEmail)).body.token as string;
    expect((await call(app.url, 'POST', '/api/auth/logout-all', { token: attacker })).status).toBeLessThan(300);
    const fresh = (await login(newEmail)).body.token as string;

    // Opening the link shows a form and changes nothing.
    const opened = await openCancel(token);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('cache-control')).toBe('no-store');
    expect(await opened.text()).toContain('<form method="post" action="/api/account/email/revert">');
    expect((await me(fresh)).email).toBe(newEmail);

    const done = await submitCancel(token);
    expect(done.status).toBe(200);
    const html = await done.text();
    expect(html).toContain('Прежний адрес возвращён');
    expect(html).toContain(user.email);
    expect(html).toContain('href="/app/forgot"');

    // Every session ended, the old address is the account's again and verified, the new one signs in no more.
    expect((await call(app.url, 'GET', '/api/auth/me', { token: fresh })).status).toBe(401);
    const back = await login(user.email);
    expect(back.status).toBe(200);
    expect(back.body.user).toMatchObject({ email: user.email, emailVerified: true });
    expect((await login(newEmail)).status).toBe(401);

    // Once: the used link's page and form both say so, and nothing changes.
    const reused = await submitCancel(token);
    expect(reused.status).toBe(400);
    const reusedHtml = await reused.text();
    expect(reusedHtml).toContain('Ссылка недействительна');
    expect(reusedHtml).toContain('уже использована или прошло больше 7 дней');
    expect((await openCancel(token)).status).toBe(400);
    expect((await login(user.email)).status).toBe(200);
  });

  test('an expired link is refused with a clear page, and the address stays as it is', async () => {
    const user = await registerUser(app.url, uniqueEmail('cancel-late'));
    const newEmail = uniqueEmail('cancel-late-new');
    const token = await changedWithCancel(user, newEmail);
    await app.sql(`update email_change_reverts set expires_at = now() - interval '1 second' where user_id = $1`, [user.userId]);
    const opened = await openCancel(token);
    expect(opened.status).toBe(400);
    expect(await opened.text()).toContain('прошло больше 7 дней');
    const submitted = await submitCancel(token);
    expect(submitted.status).toBe(400);
    expect(await submitted.text()).toContain('Ссылка недействительна');
    const json = await call(app.url, 'POST', '/api/account/email/revert', { body: { token } });
    expect(json.status).toBe(400);
    expect(json.body.error.message).toMatch(/прошло больше 7 дней/);
    expect((await me(user.token)).email).toBe(newEmail);
    expect((await submitCancel('made-up')).status).toBe(400);
  });

  test('the first change is undone even after a second one, whose own link then dies', async () => {
    const user = await registerUser(app.url, uniqueEmail('cancel-twice'));
    const second = uniqueEmail('cancel-second');
    const first = await changedWithCancel(user, second);
    const third = uniqueEmail('cancel-third');
    const fromSecond = await changedWithCancel({ token: user.token, email: second }, third);
    // A client's JSON POST does what the page's form does.
    const undone = await call(app.url, 'POST', '/api/account/email/revert', { body: { token: first } });
    expect(undone.status).toBe(200);
    expect(undone.body).toMatchObject({ email: user.email, message: expect.stringMatching(/завершены/) });
    expect((await login(user.email)).status).toBe(200);
    // The link mailed to the middle address must not take the account away from the restored one.
    expect((await submitCancel(fromSecond)).status).toBe(400);
    expect((await login(user.email)).status).toBe(200);
  });

  test('an old address taken meanwhile by another account: refused, the link stays usable', async () => {
    const user = await registerUser(app.url, uniqueEmail('cancel-taken'));
    const token = await changedWithCancel(user, uniqueEmail('cancel-taken-new'));
    const squatter = await registerUser(app.url, user.email);
    const refused = await submitCancel(token);
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('Адрес уже занят');
    await app.sql('delete from users where id = $1', [squatter.userId]);
    expect((await submitCancel(token)).status).toBe(200);
  });
});

describe('the admin role and a new address', () => {
  test('does not follow the new address until its verification form is used, then comes back', async () => {
    const admin = await registerUser(app.url, ADMIN_OLD);
    await grantAdmin(app, ADMIN_OLD);
    expect((await me(admin.token)).role).toBe('admin');

    const token = await mailedToken(admin.token, ADMIN_NEW);
    expect((await confirm(token)).status).toBe(200);
    expect(await me(admin.token)).toMatchObject({ email: ADMIN_NEW, role: 'user', emailVerified: true });
    expect((await call(app.url, 'GET', '/api/admin/users', { token: admin.token })).status).toBe(403);
    // Logging in again does not bring it back either: the address is listed but not proven.
    const relogged = await login(ADMIN_NEW);
    expect(relogged.body.user.role).toBe('user');

    // Proving the new address with the verification link's form, which sets the password, does.
    const seen = smtp.messages.filter((m) => m.to.includes(ADMIN_NEW)).length;
    expect((await call(app.url, 'POST', '/api/auth/resend-verification', { token: admin.token })).status).toBe(200);
    const verifyToken = tokenIn(await smtp.waitFor(ADMIN_NEW, seen), VERIFY_LINK);
    expect((await fetch(`${app.url}/api/auth/verify-email?token=${verifyToken}`)).status).toBe(200);
    expect(await me(admin.token)).toMatchObject({ role: 'user', emailVerified: true });
    const verified = await call(app.url, 'POST', '/api/auth/verify-email', { body: { token: verifyToken, password: 'admin-new-pass' } });
    expect(verified.status).toBe(200);
    expect((await login(ADMIN_NEW, 'admin-new-pass')).body.user).toMatchObject({ role: 'admin', emailVerified: true });
  });
});

describe('without SMTP_URL', () => {
  test('the change is unavailable, said clearly', async () => {
    const bare = await startTestApp();
    try {
      const user = await registerUser(bare.url, uniqueEmail('change-nosmtp'));
      const res = await call(bare.url, 'POST', '/api/account/email', { token: user.token, body: { newEmail: uniqueEmail(), password: 'secret123' } });
      expect(res.status).toBe(503);
      expect(res.body.error.type).toBe('service_unavailable');
      expect(res.body.error.message).toMatch(/не настроена отправка почты/);
    } finally {
      await bare.close();
    }
  });
});
