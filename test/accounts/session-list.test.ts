// The owner's list of sessions (issue 41 point 5): each sign-in listed with its device, address and times;
// ending one or all but this one refuses those tokens at once; another user's session is not found; a
// sign-in from a device never seen for the account is mailed to the owner.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';

const onPostgres = Boolean(process.env.DATABASE_URL);
const CHROME_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

let app: TestApp;
let smtp: FakeSmtp;
beforeAll(async () => {
  smtp = await startFakeSmtp();
  app = await startTestApp({ env: { SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'https://conduit.example' } });
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

const me = (token: string) => call(app.url, 'GET', '/api/auth/me', { token });
const sessions = (token: string) => call(app.url, 'GET', '/api/auth/sessions', { token });
const login = async (email: string, password: string, userAgent: string) => {
  const res = await call(app.url, 'POST', '/api/auth/login', { body: { email, password }, headers: { 'user-agent': userAgent } });
  expect(res.status).toBe(200);
  return res.body.token as string;
};
async function registerWith(userAgent: string) {
  const user = await registerUser(app.url);
  // registerUser sends Bun's own agent: sign in again from the browser the test names, a new device
  // whose notice is awaited so that later mails are counted from here.
  const token = await login(user.email, user.password, userAgent);
  const notice = await smtp.waitFor(user.email);
  expect(notice.subject).toBe('Вход в Conduit с нового устройства');
  return { ...user, token };
}

describe('the list', () => {
  test('every sign-in with its device in plain words, address, times; the caller’s marked current', async () => {
    const user = await registerWith(CHROME_WINDOWS);
    await login(user.email, user.password, SAFARI_IPHONE);
    const res = await sessions(user.token);
    expect(res.status).toBe(200);
    const list = res.body.sessions as Array<{ id: string; device: string; address: string; createdAt: string; lastUsedAt: string; current: boolean }>;
    expect(list).toHaveLength(3);
    const devices = list.map((s) => s.device);
    expect(devices).toContain('Chrome, Windows');
    expect(devices).toContain('Safari, iOS');
    const current = list.filter((s) => s.current);
    expect(current).toHaveLength(1);
    expect(list[0]!.current).toBe(true);
    expect(current[0]!.device).toBe('Chrome, Windows');
    for (const s of list) {
      expect(s.address.length).toBeGreaterThan(0);
      expect(Number.isNaN(Date.parse(s.createdAt))).toBe(false);
      expect(Date.parse(s.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(s.createdAt) - 1000);
    }
  });

  test('devices as people call them: the browser family and the system, no versions', async () => {
    const user = await registerWith(CHROME_WINDOWS);
    const agents = {
      'Edge, Windows': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86',
      'Яндекс Браузер, Android':
        'Mozilla/5.0 (Linux; Android 14; SM-A546B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 YaBrowser/24.12.1.77.00 SA/3 Mobile Safari/537.36',
      'Safari, macOS': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
      'Программа или скрипт': 'curl/8.5.0',
    };
    for (const agent of Object.values(agents)) await login(user.email, user.password, agent);
    const devices = ((await sessions(user.token)).body.sessions as Array<{ device: string }>).map((s) => s.device);
    for (const device of Object.keys(agents)) expect(devices).toContain(device);
  });

  test('needs a JWT: an API key is refused', async () => {
    const user = await registerUser(app.url);
    const key = (await call(app.url, 'POST', '/api/keys', { token: user.token, body: { name: 'k' } })).body.key as string;
    expect((await sessions(key)).status).toBe(401);
  });

  test('sessions ended with all the others (logout-all) are not listed', async () => {
    const user = await registerWith(CHROME_WINDOWS);
    expect((await call(app.url, 'POST', '/api/auth/logout-all', { token: user.token })).status).toBe(200);
    const fresh = await login(user.email, user.password, FIREFOX_LINUX);
    const list = (await sessions(fresh)).body.sessions as Array<{ device: string; current: boolean }>;
    expect(list).toEqual([expect.objectContaining({ device: 'Firefox, Linux', current: true })]);
  });
});

describe('ending sessions', () => {
  test('«Завершить» one: its token is refused at once, the others keep working, it leaves the list', async () => {
    const user = await registerWith(CHROME_WINDOWS);
    const phone = await login(user.email, user.password, SAFARI_IPHONE);
    const list = (await sessions(user.token)).body.sessions as Array<{ id: string; device: string }>;
    const phoneSession = list.find((s) => s.device === 'Safari, iOS')!;
    const res = await call(app.url, 'POST', `/api/auth/sessions/${phoneSession.id}/end`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Сеанс завершён');
    expect((await me(phone)).status).toBe(401);
    expect((await me(user.token)).status).toBe(200);
    const after = (await sessions(user.token)).body.sessions as Array<{ id: string }>;
    expect(after.map((s) => s.id)).not.toContain(phoneSession.id);
    // Already over: not found the second time.
    expect((await call(app.url, 'POST', `/api/auth/sessions/${phoneSession.id}/end`, { token: user.token })).status).toBe(404);
  });

  test('another user’s session is not found and keeps working', async () => {
    const owner = await registerWith(CHROME_WINDOWS);
    const stranger = await registerWith(FIREFOX_LINUX);
    const ownerSession = ((await sessions(owner.token)).body.sessions as Array<{ id: string; current: boolean }>).find((s) => s.current)!;
    const res = await call(app.url, 'POST', `/api/auth/sessions/${ownerSession.id}/end`, { token: stranger.token });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toContain('Сеанс не найден');
    expect((await me(owner.token)).status).toBe(200);
    expect((await call(app.url, 'POST', '/api/auth/sessions/not-a-uuid/end', { token: stranger.token })).status).toBe(404);
  });

  test('«Завершить все, кроме этой»: every other token is refused, this one works', async () => {
    const user = await registerWith(CHROME_WINDOWS);
    const phone = await login(user.email, user.password, SAFARI_IPHONE);
    const laptop = await login(user.email, user.password, FIREFOX_LINUX);
    const res = await call(app.url, 'POST', '/api/auth/sessions/end-others', { token: user.token });
    expect(res.status).toBe(200);
    // Registration's own session, the phone and the laptop.
    expect(res.body.ended).toBe(3);
    expect(res.body.message).toBe('Завершено сеансов: 3');
    for (const token of [phone, laptop]) expect((await me(token)).status).toBe(401);
    expect((await me(user.token)).status).toBe(200);
    const list = (await sessions(user.token)).body.sessions as Array<{ current: boolean }>;
    expect(list).toEqual([expect.objectContaining({ current: true })]);
    expect((await call(app.url, 'POST', '/api/auth/sessions/end-others', { token: user.token })).body.message).toBe('Других сеансов нет');
  });
});

describe('two instances', () => {
  test.skipIf(!onPostgres)('a session ended on one instance is refused on the other at once', async () => {
    const other = await startTestApp({ database: app.database });
    try {
      const user = await registerWith(CHROME_WINDOWS);
      const phone = await login(user.email, user.password, SAFARI_IPHONE);
      // The other instance has the user cached now: only the notification can tell it.
      expect((await call(other.url, 'GET', '/api/auth/me', { token: phone })).status).toBe(200);
      const phoneSession = ((await sessions(user.token)).body.sessions as Array<{ id: string; device: string }>).find((s) => s.device === 'Safari, iOS')!;
      expect((await call(app.url, 'POST', `/api/auth/sessions/${phoneSession.id}/end`, { token: user.token })).status).toBe(200);
      const until = Date.now() + 1000;
      let status = 200;
      while (status !== 401 && Date.now() < until) {
        status = (await call(other.url, 'GET', '/api/auth/me', { token: phone })).status;
        if (status !== 401) await Bun.sleep(20);
      }
      expect(status).toBe(401);
      expect((await call(other.url, 'GET', '/api/auth/me', { token: user.token })).status).toBe(200);
    } finally {
      await other.stop();
    }
  });
});

describe('security mails', () => {
  test('a sign-in from a device not seen before is mailed with the device and address; a known device is not', async () => {
    const user = await registerWith(CHROME_WINDOWS);
    const seen = smtp.messages.filter((m) => m.to.includes(user.email)).length;

    await login(user.email, user.password, CHROME_WINDOWS);
    await login(user.email, user.password, SAFARI_IPHONE);
    const mail = await smtp.waitFor(user.email, seen);
    expect(mail.subject).toBe('Вход в Conduit с нового устройства');
    expect(mail.text).toContain('Safari, iOS');
    expect(mail.text).toContain('адрес');
    expect(mail.text).toContain('«Сеансы»');
    // The second Chrome sign-in was not mailed: only the iPhone's notice came after `seen`.
    await Bun.sleep(200);
    const later = smtp.messages.filter((m) => m.to.includes(user.email)).slice(seen);
    expect(later.map((m) => m.text.includes('Chrome, Windows'))).toEqual([false]);
  });

  test('the password change is mailed, and the fresh token it answers is a listed session', async () => {
    const user = await registerWith(CHROME_WINDOWS);
    const seen = smtp.messages.filter((m) => m.to.includes(user.email)).length;
    const res = await call(app.url, 'POST', '/api/auth/password', {
      token: user.token,
      headers: { 'user-agent': CHROME_WINDOWS },
      body: { currentPassword: user.password, newPassword: 'brand-new-1' },
    });
    expect(res.status).toBe(200);
    const mail = await smtp.waitFor(user.email, seen);
    expect(mail.subject).toBe('Пароль в Conduit изменён');
    const list = (await sessions(res.body.token)).body.sessions as Array<{ device: string; current: boolean }>;
    expect(list).toEqual([expect.objectContaining({ device: 'Chrome, Windows', current: true })]);
  });
});
