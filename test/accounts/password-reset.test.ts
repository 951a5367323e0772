// Password reset by e-mail (issue 32 point 1): the same answer whether or not the address has an account,
// a one-time link valid 1 h mailed to a real SMTP server on a local port, a newer link voiding older ones,
// the limits per address and per e-mail, and a clear 503 where no mail server is configured.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startFakeSmtp, type FakeSmtp, type ReceivedMail } from '../fakes/smtp';
import { call, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';

const PUBLIC_BASE_URL = 'https://conduit.example';
const LINK = /https:\/\/conduit\.example\/api\/auth\/password-reset\/confirm\?token=([A-Za-z0-9_-]+)/;

let smtp: FakeSmtp;
let app: TestApp;
beforeAll(async () => {
  smtp = await startFakeSmtp();
  app = await startTestApp({ env: { SMTP_URL: smtp.url, SMTP_FROM: 'Conduit <no-reply@conduit.example>', PUBLIC_BASE_URL } });
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

const requestReset = (email: string, base = app.url) => call(base, 'POST', '/api/auth/password-reset', { body: { email } });
const confirm = (token: string, password: string) => call(app.url, 'POST', '/api/auth/password-reset/confirm', { body: { token, password } });
const login = (email: string, password: string) => call(app.url, 'POST', '/api/auth/login', { body: { email, password } });

function linkToken(mail: ReceivedMail): string {
  const match = LINK.exec(mail.text);
  if (!match) throw new Error(`no reset link in: ${mail.text}`);
  return match[1]!;
}

describe('asking for a link', () => {
  test('an existing and an unknown address get identical answers; only the existing one is mailed', async () => {
    const user = await registerUser(app.url);
    const unknown = uniqueEmail('nobody');
    const known = await requestReset(user.email.toUpperCase());
    const stranger = await requestReset(unknown);
    expect(known.status).toBe(200);
    expect(stranger.status).toBe(200);
    expect(known.text).toBe(stranger.text);
    expect(known.body.message).toMatch(/ссылк/);

    const mail = await smtp.waitFor(user.email);
    expect(mail.from).toBe('no-reply@conduit.example');
    expect(mail.subject).toBe('Сброс пароля в Conduit');
    expect(mail.text).toContain('1 час');
    expect(linkToken(mail)).toHaveLength(43);
    await Bun.sleep(200);
    expect(smtp.messages.some((m) => m.to.includes(unknown))).toBe(false);
  });

  test('only the SHA-256 of the token is stored, expiring in an hour', async () => {
    const user = await registerUser(app.url);
    await requestReset(user.email);
    const token = linkToken(await smtp.waitFor(user.email));
    const rows = await app.sql<{ token_hash: string; minutes: number | string }>(
      `select token_hash, extract(epoch from (expires_at - now())) / 60 as minutes from password_resets where user_id = $1`,
      [user.userId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(new Bun.CryptoHasher('sha256').update(token).digest('hex'));
    expect(Number(rows[0]!.minutes)).toBeGreaterThan(58);
    expect(Number(rows[0]!.minutes)).toBeLessThanOrEqual(60);
  });

  test('a bad e-mail → 400 in Russian', async () => {
    const res = await requestReset('not-an-address');
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('invalid_request_error');
    expect(res.body.error.message).toContain('e-mail');
  });
});

describe('using the link', () => {
  test('sets the new password, signs in, ends the old sessions; the link works once', async () => {
    const user = await registerUser(app.url);
    await requestReset(user.email);
    const token = linkToken(await smtp.waitFor(user.email));

    const res = await confirm(token, 'reset-pass-1');
    expect(res.status).toBe(200);
    expect(res.body.user.email).toBe(user.email);
    expect((await call(app.url, 'GET', '/api/auth/me', { token: res.body.token })).status).toBe(200);
    expect((await call(app.url, 'GET', '/api/auth/me', { token: user.token })).status).toBe(401);
    expect((await login(user.email, user.password)).status).toBe(401);
    expect((await login(user.email, 'reset-pass-1')).status).toBe(200);

    const again = await confirm(token, 'reset-pass-2');
    expect(again.status).toBe(400);
    expect(again.body.error.type).toBe('invalid_request_error');
    expect(again.body.error.message).toMatch(/недействительна/);
    expect((await login(user.email, 'reset-pass-1')).status).toBe(200);
  });

  test('a newer link voids the older one', async () => {
    const user = await registerUser(app.url);
    await requestReset(user.email);
    const first = linkToken(await smtp.waitFor(user.email, 0));
    await requestReset(user.email);
    const second = linkToken(await smtp.waitFor(user.email, 1));
    expect((await confirm(first, 'older-link-1')).status).toBe(400);
    expect((await confirm(second, 'newer-link-1')).status).toBe(200);
  });

  test('an expired or unknown link → 400; the password rules of registration apply', async () => {
    const user = await registerUser(app.url);
    await requestReset(user.email);
    const token = linkToken(await smtp.waitFor(user.email));

    const short = await confirm(token, '123');
    expect(short.status).toBe(400);
    expect(short.body.error.message).toContain('не менее 6 символов');

    await app.sql(`update password_resets set expires_at = now() - interval '1 second' where user_id = $1`, [user.userId]);
    expect((await confirm(token, 'too-late-1')).status).toBe(400);
    for (const unknown of ['A'.repeat(43), 'garbage', '']) {
      const res = await confirm(unknown, 'whatever-1');
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
    }
    expect((await login(user.email, user.password)).status).toBe(200);
  });
});

describe('limits', () => {
  test('per e-mail and per client address (429 with Retry-After), unknown addresses counted alike', async () => {
    const limited = await startTestApp({
      env: { SMTP_URL: smtp.url, PUBLIC_BASE_URL, PASSWORD_RESET_LIMIT_PER_EMAIL: '2', PASSWORD_RESET_LIMIT_PER_ADDRESS: '6' },
    });
    try {
      const user = await registerUser(limited.url);
      const unknown = uniqueEmail('nobody');
      for (const email of [user.email, unknown]) {
        expect((await requestReset(email, limited.url)).status).toBe(200);
        expect((await requestReset(email, limited.url)).status).toBe(200);
        const refused = await requestReset(email, limited.url);
        expect(refused.status).toBe(429);
        expect(refused.body.error.type).toBe('rate_limit_exceeded');
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      // Six requests from this address so far: a fresh e-mail is refused by the address's count.
      const byAddress = await requestReset(uniqueEmail('fresh'), limited.url);
      expect(byAddress.status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe('without SMTP_URL', () => {
  test('503 service_unavailable telling to ask the operator', async () => {
    const bare = await startTestApp();
    try {
      const user = await registerUser(bare.url);
      const res = await requestReset(user.email, bare.url);
      expect(res.status).toBe(503);
      expect(res.body.error.type).toBe('service_unavailable');
      expect(res.body.error.message).toContain('администратор');
    } finally {
      await bare.close();
    }
  });
});
