// Two-factor login (TOTP, RFC 6238) over HTTP: the codes are computed here with the same library an
// authenticator app's algorithm follows (otpauth), from the secret the setup route shows.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Secret, TOTP } from 'otpauth';
import { call, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

const authenticator = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
/** The code an app shows `offsetSteps` periods from now. */
const codeAt = (secret: string, offsetSteps = 0) => authenticator(secret).generate({ timestamp: Date.now() + offsetSteps * 30_000 });

const login = (base: string, email: string, password: string, totpCode?: string) =>
  call(base, 'POST', '/api/auth/login', { body: { email, password, ...(totpCode !== undefined ? { totpCode } : {}) } });

/** A user with two-factor login on: its secret and recovery codes. */
async function withTwoFactor(base: string) {
  const user = await registerUser(base, uniqueEmail('totp'));
  const setup = await call(base, 'POST', '/api/auth/2fa/setup', { token: user.token });
  expect(setup.status).toBe(200);
  const enabled = await call(base, 'POST', '/api/auth/2fa/enable', { token: user.token, body: { code: codeAt(setup.body.secret) } });
  expect(enabled.status).toBe(200);
  return { ...user, secret: setup.body.secret as string, recoveryCodes: enabled.body.recoveryCodes as string[] };
}

describe('setting two-factor login up', () => {
  test('setup shows a secret, its otpauth URL and a QR code; nothing changes until a first code confirms it', async () => {
    const user = await registerUser(app.url, uniqueEmail('totp-setup'));
    expect((await call(app.url, 'GET', '/api/auth/2fa', { token: user.token })).body).toEqual({ enabled: false });

    const setup = await call(app.url, 'POST', '/api/auth/2fa/setup', { token: user.token });
    expect(setup.status).toBe(200);
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(setup.body.otpauthUrl);
    expect(url.protocol).toBe('otpauth:');
    expect(url.searchParams.get('secret')).toBe(setup.body.secret);
    expect(url.searchParams.get('issuer')).toBe('Conduit');
    expect(decodeURIComponent(url.pathname)).toContain(user.email);
    expect(setup.body.qrSvg).toStartWith('<svg');

    // Sealed like integration secrets: the database never holds it in clear.
    const [stored] = await app.sql<{ secret_sealed: string }>('select secret_sealed from two_factor_secrets where user_id = $1', [user.userId]);
    expect(stored!.secret_sealed).not.toContain(setup.body.secret);

    // Pending: login needs no code, the status says off.
    expect((await login(app.url, user.email, user.password)).status).toBe(200);
    expect((await call(app.url, 'GET', '/api/auth/2fa', { token: user.token })).body).toEqual({ enabled: false });

    const wrong = await call(app.url, 'POST', '/api/auth/2fa/enable', { token: user.token, body: { code: codeAt(setup.body.secret, 10) } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ type: 'invalid_request_error', code: 'totp_invalid' });
    expect(wrong.body.error.message).toMatch(/[А-Яа-я]/);

    const enabled = await call(app.url, 'POST', '/api/auth/2fa/enable', { token: user.token, body: { code: codeAt(setup.body.secret) } });
    expect(enabled.status).toBe(200);
    expect(enabled.body.recoveryCodes).toHaveLength(10);
    expect(new Set(enabled.body.recoveryCodes).size).toBe(10);
    expect((await call(app.url, 'GET', '/api/auth/2fa', { token: user.token })).body).toEqual({ enabled: true });

    // Stored hashed only.
    const codes = await app.sql<{ code_hash: string }>('select code_hash from two_factor_recovery_codes where user_id = $1', [user.userId]);
    expect(codes).toHaveLength(10);
    for (const code of enabled.body.recoveryCodes as string[]) expect(codes.map((c) => c.code_hash)).not.toContain(code);

    // A new setup would replace the secret of a factor that is on: refused.
    const again = await call(app.url, 'POST', '/api/auth/2fa/setup', { token: user.token });
    expect(again.status).toBe(409);
    expect(again.body.error.type).toBe('conflict');
  });

  test('enable without a setup, and the routes without a token, are refused', async () => {
    const user = await registerUser(app.url, uniqueEmail('totp-nosetup'));
    const res = await call(app.url, 'POST', '/api/auth/2fa/enable', { token: user.token, body: { code: '123456' } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/настройку/);
    for (const [method, path] of [
      ['GET', '/api/auth/2fa'],
      ['POST', '/api/auth/2fa/setup'],
      ['POST', '/api/auth/2fa/enable'],
      ['POST', '/api/auth/2fa/disable'],
    ] as const) {
      expect((await call(app.url, method, path, { body: method === 'POST' ? { code: '123456' } : undefined })).status).toBe(401);
    }
  });
});

describe('logging in with two-factor login on', () => {
  test('the password first, then totp_required, a wrong code refused, a right one accepted once', async () => {
    const user = await withTwoFactor(app.url);

    const wrongPassword = await login(app.url, user.email, 'not-the-password');
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.body.error).toEqual({ type: 'unauthorized', message: expect.any(String) });

    const noCode = await login(app.url, user.email, user.password);
    expect(noCode.status).toBe(401);
    expect(noCode.body.error).toMatchObject({ type: 'unauthorized', code: 'totp_required' });
    expect(noCode.body.error.message).toMatch(/код/);
    expect(noCode.body.token).toBeUndefined();

    const wrongCode = await login(app.url, user.email, user.password, codeAt(user.secret, 5));
    expect(wrongCode.status).toBe(401);
    expect(wrongCode.body.error).toMatchObject({ type: 'unauthorized', code: 'totp_invalid' });

    // The enabling code's step is used up; the next one is still in the window.
    const code = codeAt(user.secret, 1);
    const ok = await login(app.url, user.email, user.password, code);
    expect(ok.status).toBe(200);
    expect(ok.body.user.email).toBe(user.email);
    expect((await call(app.url, 'GET', '/api/auth/me', { token: ok.body.token })).status).toBe(200);

    // Replay: the same code again, and a code of an earlier step, are refused.
    const replay = await login(app.url, user.email, user.password, code);
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('totp_invalid');
    expect((await login(app.url, user.email, user.password, codeAt(user.secret, 0))).status).toBe(401);
  });

  test('the same code sent twice at once logs in once', async () => {
    const user = await withTwoFactor(app.url);
    const code = codeAt(user.secret, 1);
    const answers = await Promise.all([1, 2, 3].map(() => login(app.url, user.email, user.password, code)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 401, 401]);
  });

  test('the tRPC login carries the code in its error data, as the dashboard reads it', async () => {
    const user = await withTwoFactor(app.url);
    const res = await call(app.url, 'POST', '/trpc/auth.login', { body: { email: user.email, password: user.password } });
    expect(res.status).toBe(401);
    expect(res.body.error.data).toMatchObject({ type: 'unauthorized', errorCode: 'totp_required' });
  });

  test('a recovery code logs in once in place of a code, with or without its dash', async () => {
    const user = await withTwoFactor(app.url);
    const recovery = user.recoveryCodes[0]!;
    expect(recovery).toMatch(/^[0-9a-z]{5}-[0-9a-z]{5}$/);
    const first = await login(app.url, user.email, user.password, ` ${recovery.toUpperCase().replace('-', '')} `);
    expect(first.status).toBe(200);
    const second = await login(app.url, user.email, user.password, recovery);
    expect(second.status).toBe(401);
    expect(second.body.error.code).toBe('totp_invalid');
    // The others still work.
    expect((await login(app.url, user.email, user.password, user.recoveryCodes[1]!)).status).toBe(200);
    // Another user's recovery code is nobody else's.
    const other = await withTwoFactor(app.url);
    expect((await login(app.url, user.email, user.password, other.recoveryCodes[0]!)).status).toBe(401);
  });
});

describe('switching two-factor login off', () => {
  test('needs a current code or a recovery code; afterwards login takes the password alone', async () => {
    const user = await withTwoFactor(app.url);
    const stale = await call(app.url, 'POST', '/api/auth/2fa/disable', { token: user.token, body: { code: codeAt(user.secret, -3) } });
    expect(stale.status).toBe(400);
    expect(stale.body.error.code).toBe('totp_invalid');
    const empty = await call(app.url, 'POST', '/api/auth/2fa/disable', { token: user.token, body: {} });
    expect(empty.status).toBe(400);
    expect((await call(app.url, 'GET', '/api/auth/2fa', { token: user.token })).body).toEqual({ enabled: true });

    const off = await call(app.url, 'POST', '/api/auth/2fa/disable', { token: user.token, body: { code: codeAt(user.secret, 1) } });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ enabled: false, message: expect.stringMatching(/отключ/) });
    expect((await call(app.url, 'GET', '/api/auth/2fa', { token: user.token })).body).toEqual({ enabled: false });
    expect((await login(app.url, user.email, user.password)).status).toBe(200);
    expect(await app.sql('select 1 from two_factor_recovery_codes where user_id = $1', [user.userId])).toHaveLength(0);

    // Off again: disabling once more is a clear 400, and a fresh setup works.
    const twice = await call(app.url, 'POST', '/api/auth/2fa/disable', { token: user.token, body: { code: '123456' } });
    expect(twice.status).toBe(400);
    expect((await call(app.url, 'POST', '/api/auth/2fa/setup', { token: user.token })).status).toBe(200);
  });

  test('a recovery code switches it off too', async () => {
    const user = await withTwoFactor(app.url);
    const off = await call(app.url, 'POST', '/api/auth/2fa/disable', { token: user.token, body: { code: user.recoveryCodes[9] } });
    expect(off.status).toBe(200);
    expect((await login(app.url, user.email, user.password)).status).toBe(200);
  });
});

describe('wrong codes and the login throttle', () => {
  let throttled: TestApp;
  beforeAll(async () => {
    throttled = await startTestApp({ env: { LOGIN_MAX_FAILURES: '3', LOGIN_LOCKOUT_SECONDS: '60' } });
  });
  afterAll(async () => {
    await throttled?.close();
  });

  test('a wrong code counts like a wrong password; asking for the code does not', async () => {
    const user = await withTwoFactor(throttled.url);
    // The password alone, many times: each answer is totp_required, none of them counted.
    for (let i = 0; i < 5; i++) expect((await login(throttled.url, user.email, user.password)).body.error.code).toBe('totp_required');

    for (let i = 0; i < 3; i++) expect((await login(throttled.url, user.email, user.password, '000000')).status).toBe(401);
    // Past the free attempts even the right code waits, as after wrong passwords.
    const held = await login(throttled.url, user.email, user.password, codeAt(user.secret, 1));
    expect(held.status).toBe(429);
    expect(held.body.error.type).toBe('rate_limit_exceeded');
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  test('wrong codes on disable are throttled per user', async () => {
    const user = await withTwoFactor(throttled.url);
    for (let i = 0; i < 5; i++) {
      expect((await call(throttled.url, 'POST', '/api/auth/2fa/disable', { token: user.token, body: { code: '000000' } })).status).toBe(400);
    }
    const held = await call(throttled.url, 'POST', '/api/auth/2fa/disable', { token: user.token, body: { code: codeAt(user.secret, 1) } });
    expect(held.status).toBe(429);
    expect(held.headers.get('retry-after')).toBeTruthy();
  });
});
