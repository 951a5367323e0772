// REQUIRE_EMAIL_VERIFICATION: the registration bonus waits for a one-time link sent by e-mail, delivered
// here to a real SMTP server on a local port.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { loadConfig } from '../../src/config';
import { startFakeSmtp, type FakeSmtp, type ReceivedMail } from '../fakes/smtp';
import { call, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';

const PUBLIC_BASE_URL = 'https://conduit.example';
const LINK = /https:\/\/conduit\.example\/api\/auth\/verify-email\?token=([A-Za-z0-9_-]+)/;

let smtp: FakeSmtp;
let app: TestApp;
beforeAll(async () => {
  smtp = await startFakeSmtp();
  app = await startTestApp({
    env: {
      REQUIRE_EMAIL_VERIFICATION: 'true',
      SMTP_URL: smtp.url,
      SMTP_FROM: 'Conduit <no-reply@conduit.example>',
      PUBLIC_BASE_URL,
    },
  });
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

async function registered(email = uniqueEmail('verify')) {
  const res = await call(app.url, 'POST', '/api/auth/register', { body: { email, password: 'secret123' } });
  expect(res.status).toBe(201);
  return { email, token: res.body.token as string, user: res.body.user, message: res.body.message as string };
}

function linkToken(mail: ReceivedMail): string {
  const match = LINK.exec(mail.text);
  if (!match) throw new Error(`no verification link in: ${mail.text}`);
  return match[1]!;
}

/** The GET a browser (or a mail scanner) makes: the page, which changes nothing. */
const openLink = (token: string, accept = 'text/html') => fetch(`${app.url}/api/auth/verify-email?token=${encodeURIComponent(token)}`, { headers: { accept } });
/** The page's form submitted (form-encoded, as a browser posts it), or a client's JSON POST. */
const useLink = (token: string, accept = 'text/html') =>
  fetch(`${app.url}/api/auth/verify-email`, {
    method: 'POST',
    headers: accept === 'application/json' ? { 'content-type': 'application/json', accept } : { 'content-type': 'application/x-www-form-urlencoded', accept },
    body: accept === 'application/json' ? JSON.stringify({ token }) : new URLSearchParams({ token }).toString(),
  });

const me = async (token: string) => (await call(app.url, 'GET', '/api/auth/me', { token })).body.user;
const ledger = (userId: string) =>
  app.sql<{ kind: string; amount_nano: bigint | string }>('select kind, amount_nano from ledger_entries where user_id = $1', [userId]);

describe('registration with REQUIRE_EMAIL_VERIFICATION', () => {
  test('credits nothing at first and sends a one-time link from SMTP_FROM', async () => {
    const { email, token, user, message } = await registered();
    expect(user).toMatchObject({ email, balance: 0, emailVerified: false });
    expect(message).toContain('письм');
    expect(await ledger(user.id)).toEqual([]);
    expect(await me(token)).toMatchObject({ balance: 0, emailVerified: false });

    const mail = await smtp.waitFor(email);
    expect(mail.from).toBe('no-reply@conduit.example');
    expect(mail.subject).toMatch(/[А-Яа-я]/);
    expect(mail.text).toMatch(/[А-Яа-я]/);
    const secret = linkToken(mail);
    // 32 random bytes: not guessable, and only its hash is kept.
    expect(secret.length).toBeGreaterThanOrEqual(43);
    const stored = await app.sql<Record<string, unknown>>('select * from email_verifications where user_id = $1', [user.id]);
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(secret);
  });

  test("the link's form (no JWT) verifies the e-mail and credits the bonus once; a second use is refused", async () => {
    const { email, token, user } = await registered();
    const secret = linkToken(await smtp.waitFor(email));

    // Opening the link shows the form and changes nothing.
    const form = await openLink(secret);
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('<form method="post" action="/api/auth/verify-email">');
    expect(await me(token)).toMatchObject({ balance: 0, emailVerified: false });
    // What the overview shows as waiting for the confirmation.
    expect((await call(app.url, 'GET', '/api/auth/me', { token })).body.pendingBonus).toBe(3);

    const page = await useLink(secret);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('подтвержд');
    expect(html).toContain('/app');
    expect(await me(token)).toMatchObject({ balance: 3, emailVerified: true });
    expect((await ledger(user.id)).map((r) => [r.kind, String(r.amount_nano)])).toEqual([['registration_bonus', '3000000000']]);
    // The overview's «ждёт подтверждения e-mail» ends when the bonus lands.
    expect((await call(app.url, 'GET', '/api/auth/me', { token })).body.pendingBonus).toBe(0);

    const again = await useLink(secret, 'application/json');
    expect(again.status).toBe(400);
    const body = (await again.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toMatch(/[А-Яа-я]/);
    // A person using it again learns the address is confirmed already (issue 41 point 9), not «недействительна».
    const againInBrowser = await useLink(secret);
    expect(againInBrowser.status).toBe(200);
    expect(againInBrowser.headers.get('content-type')).toContain('text/html');
    const againHtml = await againInBrowser.text();
    expect(againHtml).toContain('Адрес уже подтверждён');
    expect(againHtml).not.toContain('недействительна');
    expect(await me(token)).toMatchObject({ balance: 3 });
  });

  test('ten parallel openings of one link: one succeeds, the bonus is credited once', async () => {
    const { email, token, user } = await registered();
    const secret = linkToken(await smtp.waitFor(email));
    const pages = await Promise.all(Array.from({ length: 10 }, async () => (await useLink(secret)).text()));
    // One confirms (and credits); the nine others find the address confirmed already and say so.
    const credited = pages.filter((p) => p.includes('Стартовый бонус начислен'));
    expect(credited).toHaveLength(1);
    expect(pages.filter((p) => p.includes('Адрес уже подтверждён'))).toHaveLength(9);
    expect(await ledger(user.id)).toHaveLength(1);
    expect(await me(token)).toMatchObject({ balance: 3 });
  });

  test('an expired, made-up or missing token is refused and credits nothing', async () => {
    const { email, token, user } = await registered();
    const secret = linkToken(await smtp.waitFor(email));
    await app.sql(`update email_verifications set expires_at = now() - interval '1 second' where user_id = $1`, [user.id]);
    expect((await openLink(secret)).status).toBe(400);
    expect((await useLink(secret)).status).toBe(400);
    expect((await useLink('A'.repeat(43))).status).toBe(400);
    const missing = await fetch(`${app.url}/api/auth/verify-email`);
    expect(missing.status).toBe(400);
    expect(await me(token)).toMatchObject({ balance: 0, emailVerified: false });
  });

  test('a new link can be asked for (JWT): the old one stops working; the resend has its own limit', async () => {
    const { email, token } = await registered();
    const first = linkToken(await smtp.waitFor(email, 0));
    const resent = await call(app.url, 'POST', '/api/auth/resend-verification', { token });
    expect(resent.status).toBe(200);
    expect(resent.body.message).toMatch(/[А-Яа-я]/);
    const second = linkToken(await smtp.waitFor(email, 1));
    expect(second).not.toBe(first);
    expect((await openLink(first)).status).toBe(400);

    // The registration mail and four more in an hour; then 429 with Retry-After.
    for (let i = 0; i < 3; i++) expect((await call(app.url, 'POST', '/api/auth/resend-verification', { token })).status).toBe(200);
    const limited = await call(app.url, 'POST', '/api/auth/resend-verification', { token });
    expect(limited.status).toBe(429);
    expect(limited.body.error.type).toBe('rate_limit_exceeded');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);

    const latest = linkToken(await smtp.waitFor(email, 4));
    expect((await useLink(latest)).status).toBe(200);
    expect(await me(token)).toMatchObject({ balance: 3, emailVerified: true });
    const done = await call(app.url, 'POST', '/api/auth/resend-verification', { token });
    expect(done.status).toBe(409);
    expect(done.body.error.type).toBe('conflict');
    expect((await call(app.url, 'POST', '/api/auth/resend-verification')).status).toBe(401);
  });

  test('a mail server that refuses does not fail the registration; a resend gets the link through later', async () => {
    smtp.setRefusing(true);
    let account;
    try {
      account = await registered();
      // Give the refused delivery time to happen.
      await Bun.sleep(300);
    } finally {
      smtp.setRefusing(false);
    }
    expect(smtp.messages.filter((m) => m.to.includes(account.email))).toHaveLength(0);
    expect((await call(app.url, 'POST', '/api/auth/resend-verification', { token: account.token })).status).toBe(200);
    const secret = linkToken(await smtp.waitFor(account.email));
    expect((await useLink(secret)).status).toBe(200);
    expect(await me(account.token)).toMatchObject({ balance: 3, emailVerified: true });
  });
});

describe('an address that already has an account (issue 28: registration told strangers which e-mails exist)', () => {
  test('is answered like a new registration, and its owner is mailed (in Russian) that someone tried; the account is untouched', async () => {
    const owner = await registered(uniqueEmail('taken'));
    await smtp.waitFor(owner.email, 0); // its own verification link
    const fresh = await call(app.url, 'POST', '/api/auth/register', { body: { email: uniqueEmail('fresh'), password: 'other-pass-1' } });
    const again = await call(app.url, 'POST', '/api/auth/register', { body: { email: owner.email.toUpperCase(), password: 'other-pass-1' } });
    expect(again.status).toBe(fresh.status);
    expect(again.status).toBe(201);
    expect(Object.keys(again.body).sort()).toEqual(Object.keys(fresh.body).sort());
    expect(again.body.message).toBe(fresh.body.message);
    expect(Object.keys(again.body.user).sort()).toEqual(Object.keys(fresh.body.user).sort());
    expect(again.body.user).toMatchObject({ email: owner.email, balance: 0, role: 'user', emailVerified: false });
    expect(again.body.user.id).not.toBe(owner.user.id);
    expect(typeof again.body.token).toBe('string');
    // The answer's token opens nothing of the owner's.
    expect((await call(app.url, 'GET', '/api/auth/me', { token: again.body.token })).status).toBe(401);

    const notice = await smtp.waitFor(owner.email, 1);
    expect(notice.subject).toMatch(/[А-Яа-я]/);
    expect(notice.text).toContain('пытался зарегистрироваться');
    expect(notice.text).toContain('https://conduit.example/app/login');
    expect(LINK.test(notice.text)).toBe(false);

    // One account, its password unchanged, still waiting for its own link.
    expect(await app.sql('select 1 from users where email = $1', [owner.email])).toHaveLength(1);
    expect((await call(app.url, 'POST', '/api/auth/login', { body: { email: owner.email, password: 'other-pass-1' } })).status).toBe(401);
    expect((await call(app.url, 'POST', '/api/auth/login', { body: { email: owner.email, password: 'secret123' } })).status).toBe(200);
    expect(await me(owner.token)).toMatchObject({ balance: 0, emailVerified: false });
  });

  test('without REQUIRE_EMAIL_VERIFICATION it stays a 409, and nothing is mailed', async () => {
    const plain = await startTestApp({ env: { SMTP_URL: smtp.url } });
    try {
      const email = uniqueEmail('taken-plain');
      expect((await call(plain.url, 'POST', '/api/auth/register', { body: { email, password: 'secret123' } })).status).toBe(201);
      const again = await call(plain.url, 'POST', '/api/auth/register', { body: { email, password: 'secret123' } });
      expect(again.status).toBe(409);
      expect(again.body.error.type).toBe('conflict');
      await Bun.sleep(200);
      expect(smtp.messages.filter((m) => m.to.includes(email))).toHaveLength(0);
    } finally {
      await plain.close();
    }
  });
});

describe('without REQUIRE_EMAIL_VERIFICATION (the default)', () => {
  test('the bonus is credited at once, nothing is mailed, emailVerified is false and no link can be asked for', async () => {
    const plain = await startTestApp({ env: { SMTP_URL: smtp.url } });
    try {
      const email = uniqueEmail('plain');
      const res = await call(plain.url, 'POST', '/api/auth/register', { body: { email, password: 'secret123' } });
      expect(res.status).toBe(201);
      expect(res.body.user).toMatchObject({ balance: 3, emailVerified: false });
      // The bonus came with the registration: nothing waits for the unconfirmed address.
      expect((await call(plain.url, 'GET', '/api/auth/me', { token: res.body.token })).body.pendingBonus).toBe(0);
      const resend = await call(plain.url, 'POST', '/api/auth/resend-verification', { token: res.body.token });
      expect(resend.status).toBe(400);
      await Bun.sleep(200);
      expect(smtp.messages.filter((m) => m.to.includes(email))).toHaveLength(0);
    } finally {
      await plain.close();
    }
  });

  test('REQUIRE_EMAIL_VERIFICATION without SMTP_URL stops start-up', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', REQUIRE_EMAIL_VERIFICATION: 'true', JWT_SECRET: 'x'.repeat(32), ENCRYPTION_KEY: 'a'.repeat(64) })).toThrow(
      /SMTP_URL/,
    );
  });
});
