// Issue 38 rows 1, 2, 7, 8, 9, 13 and point 1 (the reset link's own page): the mailed links (address
// verification, e-mail change, password reset) act only on a POST from their page, only for the address
// they were mailed to, and die when the account moves on; an ADMIN_EMAILS address becomes admin only when
// its mailbox holder sets the password; the reset respects two-factor login; TOTP guesses are counted per
// account; the e-mail change hides taken addresses when registration does. Mails go to the suite's SMTP
// server; client addresses are simulated with X-Forwarded-For under TRUST_PROXY.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { Secret, TOTP } from 'otpauth';
import { startFakeSmtp, type FakeSmtp, type ReceivedMail } from '../fakes/smtp';
import { call, createApiKey, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';

setDefaultTimeout(30_000);

const PUBLIC_BASE_URL = 'https://conduit.example';
const VERIFY_LINK = /https:\/\/conduit\.example\/api\/auth\/verify-email\?token=([A-Za-z0-9_-]+)/;
const CHANGE_LINK = /https:\/\/conduit\.example\/api\/account\/email\/confirm\?token=([A-Za-z0-9_-]+)/;
const RESET_LINK = /https:\/\/conduit\.example\/api\/auth\/password-reset\/confirm\?token=([A-Za-z0-9_-]+)/;

let smtp: FakeSmtp;
beforeAll(async () => {
  smtp = await startFakeSmtp();
});
afterAll(async () => {
  await smtp?.close();
});

function tokenIn(mail: ReceivedMail, pattern: RegExp): string {
  const match = pattern.exec(mail.text);
  if (!match) throw new Error(`no link in: ${mail.text}`);
  return match[1]!;
}
const mailsTo = (email: string) => smtp.messages.filter((m) => m.to.includes(email));
/** The next mail to `email` whose text matches `pattern` (waiting for it). */
async function nextMail(email: string, pattern: RegExp, from = 0): Promise<ReceivedMail> {
  for (let seen = from; ; seen++) {
    const mail = await smtp.waitFor(email, seen);
    if (pattern.test(mail.text) || pattern.test(mail.subject)) return mail;
  }
}

const authenticator = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
const codeAt = (secret: string, offsetSteps = 0) => authenticator(secret).generate({ timestamp: Date.now() + offsetSteps * 30_000 });
/** A code that is not one of the accepted window's (well away from now). */
const wrongCode = (secret: string) => codeAt(secret, 1000);

const me = async (app: TestApp, token: string) => (await call(app.url, 'GET', '/api/auth/me', { token })).body.user;
const login = (app: TestApp, email: string, password: string, totpCode?: string, headers: Record<string, string> = {}) =>
  call(app.url, 'POST', '/api/auth/login', { body: { email, password, ...(totpCode !== undefined ? { totpCode } : {}) }, headers });

/** What a mail scanner or a browser does with a link: a plain GET. */
const fetchLink = (app: TestApp, path: string, token: string, accept = 'text/html') =>
  fetch(`${app.url}${path}?token=${encodeURIComponent(token)}`, { headers: { accept } });
/** What the page's form sends: a form-encoded POST, as a browser submits it. */
const submitForm = (app: TestApp, path: string, fields: Record<string, string>) =>
  fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    body: new URLSearchParams(fields).toString(),
  });

async function withTwoFactor(app: TestApp, email = uniqueEmail('links-totp'), password = 'secret123') {
  const user = await registerUser(app.url, email, password);
  const setup = await call(app.url, 'POST', '/api/auth/2fa/setup', { token: user.token });
  const enabled = await call(app.url, 'POST', '/api/auth/2fa/enable', { token: user.token, body: { code: codeAt(setup.body.secret) } });
  expect(enabled.status).toBe(200);
  return { ...user, secret: setup.body.secret as string, recoveryCodes: enabled.body.recoveryCodes as string[] };
}

describe('row 1: an ADMIN_EMAILS address is promoted only by its mailbox holder setting the password', () => {
  const boss = uniqueEmail('boss');
  const listed = uniqueEmail('boss-verified');
  const guarded = uniqueEmail('boss-guarded');
  const keys = uniqueEmail('boss-keys');
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { ADMIN_EMAILS: `${boss},${listed},${guarded},${keys}`, SMTP_URL: smtp.url, PUBLIC_BASE_URL } });
  });
  afterAll(() => app?.close());

  test('a squatter registers the listed address; the scanner GETs the link: nothing changes; the holder sets the password and is the admin, the squatter is out', async () => {
    const squatter = await registerUser(app.url, boss, 'squatter-pass');
    const token = tokenIn(await smtp.waitFor(boss), VERIFY_LINK);

    // A mail scanner fetches every link, as HTML and as anything else.
    const scanned = await fetchLink(app, '/api/auth/verify-email', token);
    expect(scanned.status).toBe(200);
    const html = await scanned.text();
    expect(html).toContain('<form method="post"');
    expect(html).toContain('type="password"');
    expect((await fetchLink(app, '/api/auth/verify-email', token, '*/*')).status).toBe(200);
    expect(await me(app, squatter.token)).toMatchObject({ role: 'user', emailVerified: false });
    const squatterLogin = await login(app, boss, 'squatter-pass');
    expect(squatterLogin.body.user).toMatchObject({ role: 'user' });
    expect((await call(app.url, 'GET', '/api/admin/users', { token: squatterLogin.body.token })).status).toBe(403);

    // The form without a password changes nothing and comes back asking for it.
    const bare = await submitForm(app, '/api/auth/verify-email', { token });
    expect(bare.status).toBe(400);
    expect(await bare.text()).toContain('задайте пароль');
    expect(await me(app, squatter.token)).toMatchObject({ role: 'user', emailVerified: false });

    const done = await submitForm(app, '/api/auth/verify-email', { token, password: 'holder-pass-1' });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('администратора');
    // Every earlier session ended; the squatter's password is gone; the holder's works, as admin.
    expect((await call(app.url, 'GET', '/api/auth/me', { token: squatter.token })).status).toBe(401);
    expect((await call(app.url, 'GET', '/api/auth/me', { token: squatterLogin.body.token })).status).toBe(401);
    expect((await login(app, boss, 'squatter-pass')).status).toBe(401);
    const holder = await login(app, boss, 'holder-pass-1');
    expect(holder.body.user).toMatchObject({ role: 'admin', emailVerified: true });
    expect((await call(app.url, 'GET', '/api/admin/users', { token: holder.body.token })).status).toBe(200);
    // The owner is told the password changed.
    expect((await nextMail(boss, /Пароль .*изменён/)).text).toContain('Все прежние сеансы завершены');
    // One-time.
    expect((await submitForm(app, '/api/auth/verify-email', { token, password: 'again-pass-1' })).status).toBe(400);
  });

  test("the squatter's API keys and alert webhook end with the takeover: no key reaches /v1, no admin event goes to their server", async () => {
    const squatter = await registerUser(app.url, keys, 'squatter-pass');
    const key = await createApiKey(app.url, squatter.token);
    const hook = { webhookUrl: 'http://127.0.0.1:9/squatter-hook' };
    expect((await call(app.url, 'PUT', '/api/account/alerts', { token: squatter.token, body: hook })).body).toMatchObject(hook);
    // The key works before (and is in the verifier's cache): the takeover must end it, not only a cold read.
    expect((await call(app.url, 'GET', '/api/balance', { token: key.key })).status).toBe(200);

    const token = tokenIn(await smtp.waitFor(keys), VERIFY_LINK);
    const done = await submitForm(app, '/api/auth/verify-email', { token, password: 'holder-pass-1' });
    expect(done.status).toBe(200);
    // The page says what it said before: nothing about what the registrant had set up.
    const page = await done.text();
    expect(page).toContain('администратора');
    expect(page).not.toContain('ключ');
    expect(page).not.toContain('webhook');

    const balance = await call(app.url, 'GET', '/api/balance', { token: key.key });
    expect(balance.status).toBe(403);
    expect(balance.body.error.type).toBe('forbidden');
    const chat = await call(app.url, 'POST', '/v1/chat/completions', {
      headers: { authorization: `Bearer ${key.key}` },
      body: { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(chat.status).toBe(403);
    expect(chat.body.error.code).toBe('api_key_revoked');

    const holder = await login(app, keys, 'holder-pass-1');
    expect(holder.body.user).toMatchObject({ role: 'admin' });
    const listed = await call(app.url, 'GET', '/api/keys', { token: holder.body.token });
    expect(listed.body.keys).toEqual([expect.objectContaining({ id: key.id, isActive: false })]);
    const alerts = await call(app.url, 'GET', '/api/account/alerts', { token: holder.body.token });
    expect(alerts.status).toBe(200);
    expect(alerts.body).toMatchObject({ webhookUrl: null, webhookSecret: null });
  });

  test("a squatter cannot turn two-factor login on for the listed address (it would lock the holder's form); the holder, once admin, can", async () => {
    const squatter = await registerUser(app.url, guarded, 'squatter-pass');
    const setup = await call(app.url, 'POST', '/api/auth/2fa/setup', { token: squatter.token });
    expect(setup.status).toBe(409);
    expect(setup.body.error.type).toBe('conflict');
    expect(setup.body.error.message).toContain('ссылку из письма');
    expect(setup.body.secret).toBeUndefined();
    expect((await call(app.url, 'GET', '/api/auth/2fa', { token: squatter.token })).body).toEqual({ enabled: false });
    // Nothing was set up, so there is nothing to switch on with a code either.
    expect((await call(app.url, 'POST', '/api/auth/2fa/enable', { token: squatter.token, body: { code: '123456' } })).status).not.toBe(200);

    // The holder's form needs no one's code, and the holder, now admin, may turn the factor on.
    const token = tokenIn(await smtp.waitFor(guarded), VERIFY_LINK);
    expect((await submitForm(app, '/api/auth/verify-email', { token, password: 'holder-pass-3' })).status).toBe(200);
    const holder = await login(app, guarded, 'holder-pass-3');
    expect(holder.body.user).toMatchObject({ role: 'admin' });
    const own = await call(app.url, 'POST', '/api/auth/2fa/setup', { token: holder.body.token });
    expect(own.status).toBe(200);
    const enabled = await call(app.url, 'POST', '/api/auth/2fa/enable', { token: holder.body.token, body: { code: codeAt(own.body.secret) } });
    expect(enabled.status).toBe(200);
  });

  test('a verified listed address is not made admin by a login (only the form or admin:grant give the role)', async () => {
    const user = await registerUser(app.url, listed, 'squatter-pass');
    await app.sql('update users set email_verified_at = now() where id = $1', [user.userId]);
    const again = await login(app, listed, 'squatter-pass');
    expect(again.body.user).toMatchObject({ role: 'user', emailVerified: true });
  });
});

// A factor turned on before the operator listed the address (it cannot be turned on after, while the
// account is not admin): the holder's form asks for its code. The instance restarts on the same database
// with the new ADMIN_EMAILS, as an operator's would.
describe('row 1, an account whose two-factor login predates its listing in ADMIN_EMAILS', () => {
  const withCode = uniqueEmail('boss-totp');
  const pending = uniqueEmail('boss-pending');
  let app: TestApp;
  let database: TestApp['database'];
  let user: Awaited<ReturnType<typeof withTwoFactor>>;
  let pendingUser: Awaited<ReturnType<typeof registerUser>>;
  let pendingSecret: string;
  beforeAll(async () => {
    const before = await startTestApp({ env: { SMTP_URL: smtp.url, PUBLIC_BASE_URL } });
    database = before.database;
    user = await withTwoFactor(before, withCode, 'first-pass-1');
    pendingUser = await registerUser(before.url, pending, 'first-pass-1');
    pendingSecret = (await call(before.url, 'POST', '/api/auth/2fa/setup', { token: pendingUser.token })).body.secret;
    await before.stop();
    app = await startTestApp({ database, env: { ADMIN_EMAILS: `${withCode},${pending}`, SMTP_URL: smtp.url, PUBLIC_BASE_URL } });
  });
  afterAll(async () => {
    await app?.stop();
    await database?.drop();
  });

  test('a secret set up before the listing cannot be switched on after it', async () => {
    const enable = await call(app.url, 'POST', '/api/auth/2fa/enable', { token: pendingUser.token, body: { code: codeAt(pendingSecret) } });
    expect(enable.status).toBe(409);
    expect(enable.body.error.message).toContain('ссылку из письма');
    expect((await call(app.url, 'GET', '/api/auth/2fa', { token: pendingUser.token })).body).toEqual({ enabled: false });
  });

  test('with two-factor login on, the admin form also asks for the code (the page brings the field), and sets nothing without it', async () => {
    expect((await call(app.url, 'POST', '/api/auth/resend-verification', { token: user.token })).status).toBe(200);
    const token = tokenIn(await nextMail(withCode, VERIFY_LINK), VERIFY_LINK);
    const asked = await submitForm(app, '/api/auth/verify-email', { token, password: 'holder-pass-2' });
    expect(asked.status).toBe(401);
    const html = await asked.text();
    expect(html).toContain('name="totpCode"');
    expect(html).toContain('name="password"');
    expect((await call(app.url, 'GET', '/api/auth/me', { token: user.token })).status).toBe(200);
    expect((await login(app, withCode, 'holder-pass-2', codeAt(user.secret, 1))).status).toBe(401);

    const done = await submitForm(app, '/api/auth/verify-email', { token, password: 'holder-pass-2', totpCode: codeAt(user.secret, 1) });
    expect(done.status).toBe(200);
    expect((await call(app.url, 'GET', '/api/auth/me', { token: user.token })).status).toBe(401);
    // The window's codes are used up (enable, the form): a recovery code logs in.
    const relogged = await login(app, withCode, 'holder-pass-2', user.recoveryCodes[0]!);
    expect(relogged.body.user).toMatchObject({ role: 'admin', emailVerified: true });
  });
});

describe('row 1 with REQUIRE_EMAIL_VERIFICATION: links act on POST only, for their own address, and die with an e-mail change', () => {
  const boss = uniqueEmail('boss-required');
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { ADMIN_EMAILS: boss, SMTP_URL: smtp.url, PUBLIC_BASE_URL, REQUIRE_EMAIL_VERIFICATION: 'true' } });
  });
  afterAll(() => app?.close());

  test('GET of the verification link verifies nothing and credits nothing; the form does', async () => {
    const user = await registerUser(app.url, uniqueEmail('get-only'));
    const token = tokenIn(await smtp.waitFor(user.email), VERIFY_LINK);
    for (let i = 0; i < 3; i++) expect((await fetchLink(app, '/api/auth/verify-email', token)).status).toBe(200);
    const json = await fetchLink(app, '/api/auth/verify-email', token, 'application/json');
    expect(await json.json()).toMatchObject({ emailVerified: false, passwordRequired: false });
    expect(await me(app, user.token)).toMatchObject({ emailVerified: false, balance: 0 });

    const done = await submitForm(app, '/api/auth/verify-email', { token });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('подтверждён');
    expect(await me(app, user.token)).toMatchObject({ emailVerified: true, balance: 3, role: 'user' });
  });

  test('the variant: a kept verification link, an e-mail change to the listed address, its link fetched — the old link opens nothing, no admin; the bonus lands once, with the change', async () => {
    const attacker = await registerUser(app.url, uniqueEmail('keeper'), 'attacker-pass');
    const kept = tokenIn(await smtp.waitFor(attacker.email), VERIFY_LINK);

    const asked = await call(app.url, 'POST', '/api/account/email', { token: attacker.token, body: { newEmail: boss, password: 'attacker-pass' } });
    expect(asked.status).toBe(200);
    const change = tokenIn(await smtp.waitFor(boss), CHANGE_LINK);
    // The scanner at the listed address fetches the change link: nothing switches.
    const scanned = await fetchLink(app, '/api/account/email/confirm', change);
    expect(scanned.status).toBe(200);
    expect(await scanned.text()).toContain('<form method="post"');
    expect((await fetchLink(app, '/api/account/email/confirm', change, 'application/json')).status).toBe(200);
    expect(await me(app, attacker.token)).toMatchObject({ email: attacker.email });

    // Even if the change were submitted, the kept link was for the old address and died with the change. The
    // submit proves the listed mailbox (so the address is verified and the bonus lands), yet gives no admin role.
    const switched = await submitForm(app, '/api/account/email/confirm', { token: change });
    expect(switched.status).toBe(200);
    expect(await me(app, attacker.token)).toMatchObject({ email: boss, role: 'user', emailVerified: true, balance: 3 });
    expect((await fetchLink(app, '/api/auth/verify-email', kept)).status).toBe(400);
    expect((await submitForm(app, '/api/auth/verify-email', { token: kept })).status).toBe(400);
    expect((await submitForm(app, '/api/auth/verify-email', { token: kept, password: 'attacker-pass-2' })).status).toBe(400);
    expect(await me(app, attacker.token)).toMatchObject({ role: 'user', emailVerified: true, balance: 3 });
    expect(await app.sql(`select 1 from ledger_entries where user_id = $1`, [attacker.userId])).toHaveLength(1);
  });

  test('a verification link is bound to its address even if its row outlived a change (made by SQL here)', async () => {
    const user = await registerUser(app.url, uniqueEmail('bound'));
    const token = tokenIn(await smtp.waitFor(user.email), VERIFY_LINK);
    await app.sql('update users set email = $1 where id = $2', [uniqueEmail('moved'), user.userId]);
    expect((await fetchLink(app, '/api/auth/verify-email', token)).status).toBe(400);
    expect((await submitForm(app, '/api/auth/verify-email', { token })).status).toBe(400);
    expect(await me(app, user.token)).toMatchObject({ emailVerified: false, balance: 0 });
  });

  test('row 13: the e-mail change answers alike for a taken and a free address; the holder of the taken one is told by mail', async () => {
    const holder = await registerUser(app.url, uniqueEmail('holder'));
    const mover = await registerUser(app.url, uniqueEmail('mover'), 'mover-pass');
    // A pending link to an address of the mover's own: voided by the next request whether its address is taken or not.
    const own = uniqueEmail('own');
    expect((await call(app.url, 'POST', '/api/account/email', { token: mover.token, body: { newEmail: own, password: 'mover-pass' } })).status).toBe(200);
    const pending = tokenIn(await smtp.waitFor(own), CHANGE_LINK);
    const seen = mailsTo(holder.email).length;
    const taken = await call(app.url, 'POST', '/api/account/email', { token: mover.token, body: { newEmail: holder.email, password: 'mover-pass' } });
    expect((await fetchLink(app, '/api/account/email/confirm', pending)).status).toBe(400);
    const free = await call(app.url, 'POST', '/api/account/email', { token: mover.token, body: { newEmail: uniqueEmail('free'), password: 'mover-pass' } });
    expect(taken.status).toBe(200);
    expect(taken.status).toBe(free.status);
    expect(taken.text).toBe(free.text);
    const notice = await nextMail(holder.email, /другой учётной записи/, seen);
    expect(notice.text).toContain('https://conduit.example/app/login');
    expect(CHANGE_LINK.test(notice.text)).toBe(false);
    expect(await me(app, mover.token)).toMatchObject({ email: mover.email });
  });
});

describe('rows 2, 7, 8, 9: reset links, two-factor login and the limits', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { SMTP_URL: smtp.url, PUBLIC_BASE_URL, TRUST_PROXY: 'true', PASSWORD_RESET_LIMIT_PER_ADDRESS: '8' } });
  });
  afterAll(() => app?.close());

  let address = 0;
  /** A fresh client address per call, so only per-account counts can hold anything back. */
  const fresh = () => ({ 'x-forwarded-for': `198.51.100.${++address % 250}` });
  const resetLink = async (email: string) => {
    const from = mailsTo(email).length;
    expect((await call(app.url, 'POST', '/api/auth/password-reset', { body: { email }, headers: fresh() })).status).toBe(200);
    return tokenIn(await nextMail(email, RESET_LINK, from), RESET_LINK);
  };
  const confirm = (body: Record<string, string>, headers: Record<string, string> = fresh()) =>
    call(app.url, 'POST', '/api/auth/password-reset/confirm', { body, headers });

  test('row 2: with TOTP on, the reset needs a code; without one (or with a wrong one) nothing is set and no session is given', async () => {
    const user = await withTwoFactor(app);
    const token = await resetLink(user.email);

    const bare = await confirm({ token, password: 'mailbox-pass' });
    expect(bare.status).toBe(401);
    expect(bare.body.error).toMatchObject({ type: 'unauthorized', code: 'totp_required' });
    expect(bare.body.token).toBeUndefined();
    const wrong = await confirm({ token, password: 'mailbox-pass', totpCode: wrongCode(user.secret) });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('totp_invalid');
    // Nothing changed: the old password (with a code) still logs in, the new one does not, the session lives.
    expect((await login(app, user.email, 'mailbox-pass', codeAt(user.secret, 1))).status).toBe(401);
    expect((await call(app.url, 'GET', '/api/auth/me', { token: user.token })).status).toBe(200);

    // The owner, with the app's code: the same link now works.
    const done = await confirm({ token, password: 'owner-new-pass', totpCode: codeAt(user.secret, 1) });
    expect(done.status).toBe(200);
    expect(typeof done.body.token).toBe('string');
    expect((await call(app.url, 'GET', '/api/auth/me', { token: user.token })).status).toBe(401);
    expect((await nextMail(user.email, /Пароль .*изменён/)).subject).toMatch(/Пароль/);
  });

  test('row 2: a recovery code does too, and the owner is told it was used', async () => {
    const user = await withTwoFactor(app);
    const token = await resetLink(user.email);
    const done = await confirm({ token, password: 'owner-new-pass', totpCode: user.recoveryCodes[0]! });
    expect(done.status).toBe(200);
    expect((await nextMail(user.email, /код восстановления/i)).text).toContain('кодов восстановления');
  });

  test('row 8: a reset link dies with a password change, with logout-all, and with an e-mail change (never signing in under the new address)', async () => {
    const user = await registerUser(app.url, uniqueEmail('links-die'));
    const beforeChange = await resetLink(user.email);
    const changed = await call(app.url, 'POST', '/api/auth/password', { token: user.token, body: { currentPassword: 'secret123', newPassword: 'changed-pass' } });
    expect(changed.status).toBe(200);
    expect((await confirm({ token: beforeChange, password: 'reset-pass-1' })).status).toBe(400);

    const beforeLogout = await resetLink(user.email);
    expect((await call(app.url, 'POST', '/api/auth/logout-all', { token: changed.body.token })).status).toBe(200);
    expect((await confirm({ token: beforeLogout, password: 'reset-pass-2' })).status).toBe(400);

    const session = (await login(app, user.email, 'changed-pass')).body.token as string;
    const beforeMove = await resetLink(user.email);
    const newEmail = uniqueEmail('links-moved');
    expect((await call(app.url, 'POST', '/api/account/email', { token: session, body: { newEmail, password: 'changed-pass' } })).status).toBe(200);
    const change = tokenIn(await smtp.waitFor(newEmail), CHANGE_LINK);
    expect((await submitForm(app, '/api/account/email/confirm', { token: change })).status).toBe(200);
    const late = await confirm({ token: beforeMove, password: 'reset-pass-3' });
    expect(late.status).toBe(400);
    expect(late.body.token).toBeUndefined();
    expect((await login(app, newEmail, 'reset-pass-3')).status).toBe(401);
    expect((await login(app, newEmail, 'changed-pass')).status).toBe(200);
  });

  test('row 7: five wrong codes from five addresses lock the factor (the right code too) and mail the owner', async () => {
    const user = await withTwoFactor(app);
    for (let i = 0; i < 5; i++) {
      const wrong = await login(app, user.email, 'secret123', wrongCode(user.secret), fresh());
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('totp_invalid');
    }
    const locked = await login(app, user.email, 'secret123', codeAt(user.secret, 1), fresh());
    expect(locked.status).toBe(429);
    expect(locked.body.error.type).toBe('rate_limit_exceeded');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(60);
    // The reset is held back by the same lock.
    const token = await resetLink(user.email);
    expect((await confirm({ token, password: 'reset-pass', totpCode: codeAt(user.secret, 1) })).status).toBe(429);
    const mail = await nextMail(user.email, /Подбор кода/);
    expect(mail.text).toContain('Смените пароль');
  });

  test('row 9: confirm is limited per client address (PASSWORD_RESET_LIMIT_PER_ADDRESS), made-up tokens included', async () => {
    const one = { 'x-forwarded-for': '203.0.113.77' };
    for (let i = 0; i < 8; i++) expect((await confirm({ token: 'A'.repeat(43), password: 'whatever-1' }, one)).status).toBe(400);
    const limited = await confirm({ token: 'A'.repeat(43), password: 'whatever-1' }, one);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not held back.
    expect((await confirm({ token: 'A'.repeat(43), password: 'whatever-1' })).status).toBe(400);
  });

  test('the owner is mailed when two-factor login goes on and off', async () => {
    const user = await withTwoFactor(app);
    await nextMail(user.email, /включён двухфакторный вход/);
    const off = await call(app.url, 'POST', '/api/auth/2fa/disable', { token: user.token, body: { code: codeAt(user.secret, 1) } });
    expect(off.status).toBe(200);
    await nextMail(user.email, /отключён двухфакторный вход/);
  });
});

describe('issue 38 point 1: the reset link opens a server page whose form, posted, resets (no JavaScript, nothing on GET)', () => {
  const PATH = '/api/auth/password-reset/confirm';
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { SMTP_URL: smtp.url, PUBLIC_BASE_URL, TRUST_PROXY: 'true', PASSWORD_RESET_LIMIT_PER_ADDRESS: '6' } });
  });
  afterAll(() => app?.close());

  let address = 0;
  const fresh = () => ({ 'x-forwarded-for': `192.0.2.${++address % 250}` });
  const resetLink = async (email: string) => {
    const from = mailsTo(email).length;
    expect((await call(app.url, 'POST', '/api/auth/password-reset', { body: { email }, headers: fresh() })).status).toBe(200);
    return tokenIn(await nextMail(email, RESET_LINK, from), RESET_LINK);
  };
  /** The page's form as a browser posts it, from a client address of its own unless given. */
  const submit = (fields: Record<string, string>, headers: Record<string, string> = fresh()) =>
    fetch(`${app.url}${PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  /** The <form> of a page and its named fields, read from the HTML as a browser without scripts sees it. */
  function formOf(html: string) {
    const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/.exec(html);
    if (!form) return null;
    const inputs = [...form[2]!.matchAll(/<input\b([^>]*)>/g)].map((m) => m[1]!);
    const attr = (tag: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1];
    return {
      method: attr(form[1]!, 'method'),
      action: attr(form[1]!, 'action'),
      fields: Object.fromEntries(inputs.map((tag) => [attr(tag, 'name'), { type: attr(tag, 'type') ?? 'text', value: attr(tag, 'value') }])),
    };
  }

  test('the mail points at the page; GETs (HTML and JSON, many times) change nothing; the page is a script-free POST form; the form sets the password, ends the sessions and hands out none', async () => {
    const user = await registerUser(app.url, uniqueEmail('reset-page'), 'old-pass-1');
    const token = await resetLink(user.email);

    for (let i = 0; i < 5; i++) {
      const opened = await fetchLink(app, PATH, token);
      expect(opened.status).toBe(200);
      expect(opened.headers.get('cache-control')).toBe('no-store');
      expect(opened.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await opened.text();
      expect(html).not.toContain('<script');
      expect(formOf(html)).toEqual({
        method: 'post',
        action: PATH,
        fields: {
          token: { type: 'hidden', value: token },
          password: { type: 'password', value: undefined },
          passwordRepeat: { type: 'password', value: undefined },
        },
      });
      expect(html).toContain('Новый пароль');
    }
    const json = await fetchLink(app, PATH, token, 'application/json');
    expect(json.status).toBe(200);
    expect(await json.json()).toMatchObject({ reset: false, totpRequired: false });
    expect((await fetchLink(app, PATH, token, '*/*')).status).toBe(200);
    // Nothing changed: the session lives, the old password still logs in.
    expect((await call(app.url, 'GET', '/api/auth/me', { token: user.token })).status).toBe(200);
    expect((await login(app, user.email, 'old-pass-1')).status).toBe(200);

    // The two passwords differ, or it is too short: the form again with the message, nothing set.
    const mismatch = await submit({ token, password: 'new-pass-1', passwordRepeat: 'new-pass-2' });
    expect(mismatch.status).toBe(400);
    const mismatchHtml = await mismatch.text();
    expect(mismatchHtml).toContain('Пароли не совпадают');
    expect(formOf(mismatchHtml)?.fields.token).toEqual({ type: 'hidden', value: token });
    const short = await submit({ token, password: '12345', passwordRepeat: '12345' });
    expect(short.status).toBe(400);
    expect(await short.text()).toContain('не менее 6 символов');
    expect((await login(app, user.email, 'new-pass-1')).status).toBe(401);
    expect((await call(app.url, 'GET', '/api/auth/me', { token: user.token })).status).toBe(200);

    const done = await submit({ token, password: 'new-pass-1', passwordRepeat: 'new-pass-1' });
    expect(done.status).toBe(200);
    expect(done.headers.get('set-cookie')).toBeNull();
    const doneHtml = await done.text();
    expect(doneHtml).toContain('Пароль изменён');
    expect(doneHtml).toContain('href="/app/login"');
    expect(formOf(doneHtml)).toBeNull();
    // No session in the answer: no JWT anywhere in it.
    expect(doneHtml).not.toMatch(/eyJ[A-Za-z0-9_-]+\.eyJ/);
    expect((await call(app.url, 'GET', '/api/auth/me', { token: user.token })).status).toBe(401);
    expect((await login(app, user.email, 'old-pass-1')).status).toBe(401);
    expect((await login(app, user.email, 'new-pass-1')).status).toBe(200);
    expect((await nextMail(user.email, /Пароль .*изменён/)).text).toContain('Все прежние сеансы завершены');

    // Used: the link's page and its form now say it is dead, and set nothing.
    const dead = await fetchLink(app, PATH, token);
    expect(dead.status).toBe(400);
    const deadHtml = await dead.text();
    expect(deadHtml).toContain('Ссылка недействительна');
    expect(deadHtml).toContain('href="/app/forgot"');
    expect(formOf(deadHtml)).toBeNull();
    const again = await submit({ token, password: 'third-pass-1', passwordRepeat: 'third-pass-1' });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('недействительна');
    expect((await login(app, user.email, 'third-pass-1')).status).toBe(401);
  });

  test('with TOTP on: the page asks for the code; the form without it, or with a wrong one, changes nothing and comes back with the link still usable; with the code it works', async () => {
    const user = await withTwoFactor(app, uniqueEmail('reset-page-totp'), 'old-pass-1');
    const token = await resetLink(user.email);

    const opened = await fetchLink(app, PATH, token);
    const form = formOf(await opened.text());
    expect(form?.method).toBe('post');
    expect(Object.keys(form?.fields ?? {}).sort()).toEqual(['password', 'passwordRepeat', 'token', 'totpCode']);
    expect(await (await fetchLink(app, PATH, token, 'application/json')).json()).toMatchObject({ reset: false, totpRequired: true });

    const bare = await submit({ token, password: 'mailbox-pass', passwordRepeat: 'mailbox-pass' });
    expect(bare.status).toBe(401);
    const bareHtml = await bare.text();
    expect(bareHtml).toContain('Введите код');
    expect(formOf(bareHtml)?.fields.totpCode).toBeDefined();
    const blank = await submit({ token, password: 'mailbox-pass', passwordRepeat: 'mailbox-pass', totpCode: '  ' });
    expect(blank.status).toBe(401);
    const wrong = await submit({ token, password: 'mailbox-pass', passwordRepeat: 'mailbox-pass', totpCode: wrongCode(user.secret) });
    expect(wrong.status).toBe(401);
    const wrongHtml = await wrong.text();
    expect(wrongHtml).toContain('Неверный');
    expect(formOf(wrongHtml)?.fields.token).toEqual({ type: 'hidden', value: token });
    // Nothing changed: the session lives, the mailbox's password does not log in, the link still opens its form.
    expect((await call(app.url, 'GET', '/api/auth/me', { token: user.token })).status).toBe(200);
    expect((await login(app, user.email, 'mailbox-pass', codeAt(user.secret, 1))).status).toBe(401);
    expect((await fetchLink(app, PATH, token)).status).toBe(200);

    const done = await submit({ token, password: 'owner-new-pass', passwordRepeat: 'owner-new-pass', totpCode: codeAt(user.secret, 1) });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Пароль изменён');
    expect((await call(app.url, 'GET', '/api/auth/me', { token: user.token })).status).toBe(401);
    expect((await login(app, user.email, 'owner-new-pass', user.recoveryCodes[1]!)).status).toBe(200);
    expect((await fetchLink(app, PATH, token)).status).toBe(400);
  });

  test('with TOTP on, a recovery code in the form works too (once)', async () => {
    const user = await withTwoFactor(app, uniqueEmail('reset-page-recovery'), 'old-pass-1');
    const token = await resetLink(user.email);
    const done = await submit({ token, password: 'recovered-pass', passwordRepeat: 'recovered-pass', totpCode: user.recoveryCodes[0]! });
    expect(done.status).toBe(200);
    expect((await call(app.url, 'GET', '/api/auth/me', { token: user.token })).status).toBe(401);
    // The recovery code is spent: a second link with the same code is refused, and the password stays.
    const second = await resetLink(user.email);
    const reused = await submit({ token: second, password: 'another-pass', passwordRepeat: 'another-pass', totpCode: user.recoveryCodes[0]! });
    expect(reused.status).toBe(401);
    expect((await login(app, user.email, 'recovered-pass', user.recoveryCodes[2]!)).status).toBe(200);
  });

  test('dead links: made up, expired, or replaced by a newer one — a clear page (JSON clients a 400), and the form sets nothing', async () => {
    for (const made of ['', 'short', 'A'.repeat(43)]) {
      const page = await fetchLink(app, PATH, made);
      expect(page.status).toBe(400);
      expect(await page.text()).toContain('Ссылка недействительна');
      const json = await fetchLink(app, PATH, made, 'application/json');
      expect(json.status).toBe(400);
      expect((await json.json()).error.type).toBe('invalid_request_error');
    }
    const user = await registerUser(app.url, uniqueEmail('reset-page-dead'), 'old-pass-1');
    const replaced = await resetLink(user.email);
    const expired = await resetLink(user.email);
    expect((await fetchLink(app, PATH, replaced)).status).toBe(400);
    await app.sql(`update password_resets set expires_at = now() - interval '1 second' where user_id = $1`, [user.userId]);
    const page = await fetchLink(app, PATH, expired);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('устарела');
    for (const token of [replaced, expired]) {
      const posted = await submit({ token, password: 'late-pass-1', passwordRepeat: 'late-pass-1' });
      expect(posted.status).toBe(400);
      expect(await posted.text()).toContain('Ссылка недействительна');
    }
    expect((await login(app, user.email, 'old-pass-1')).status).toBe(200);
  });

  test("an account blocked while its link was out (by SQL here; an operator's block voids the links): the password is set as by the JSON confirm, and the page says the account is blocked instead of offering to sign in", async () => {
    const user = await registerUser(app.url, uniqueEmail('reset-page-blocked'), 'old-pass-1');
    const token = await resetLink(user.email);
    await app.sql('update users set blocked_at = now() where id = $1', [user.userId]);
    const done = await submit({ token, password: 'blocked-pass-1', passwordRepeat: 'blocked-pass-1' });
    expect(done.status).toBe(200);
    const html = await done.text();
    expect(html).toContain('заблокирована');
    expect(html).not.toContain('href="/app/login"');
    await app.sql('update users set blocked_at = null where id = $1', [user.userId]);
    expect((await login(app, user.email, 'blocked-pass-1')).status).toBe(200);
  });

  test('the form is held to the same per-address limit as the JSON confirm (PASSWORD_RESET_LIMIT_PER_ADDRESS), counted together', async () => {
    const one = { 'x-forwarded-for': '203.0.113.91' };
    const guess = { token: 'B'.repeat(43), password: 'whatever-1', passwordRepeat: 'whatever-1' };
    for (let i = 0; i < 3; i++) expect((await submit(guess, one)).status).toBe(400);
    for (let i = 0; i < 3; i++) {
      expect((await call(app.url, 'POST', PATH, { body: { token: guess.token, password: guess.password }, headers: one })).status).toBe(400);
    }
    const limited = await submit(guess, one);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.text()).toContain('Слишком много');
    // A live link from that address is held back too, and still works from another.
    const user = await registerUser(app.url, uniqueEmail('reset-page-limit'), 'old-pass-1');
    const token = await resetLink(user.email);
    const held = await submit({ token, password: 'limited-pass', passwordRepeat: 'limited-pass' }, one);
    expect(held.status).toBe(429);
    expect(formOf(await held.text())?.fields.token).toEqual({ type: 'hidden', value: token });
    expect((await submit({ token, password: 'limited-pass', passwordRepeat: 'limited-pass' })).status).toBe(200);
  });
});
