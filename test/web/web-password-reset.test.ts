// «Забыли пароль?» in a real browser against the real app and a real SMTP server: the login page's link,
// the e-mail page, the mailed link, the new password, signed in. Each page at 1440 and 390 px without
// sideways scrolling; the account page's password change and sign-out everywhere.
import { expect, test } from 'bun:test';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp';
import { call, registerAdmin, registerUser, uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS, horizontalOverflow, PHONE, sessionToken, useBrowserApp } from '../helpers/browser';

const browserSuite = browserDescribe('web-password-reset.test.ts');
const WIDE = { width: 1440, height: 900 };
const ADMIN_EMAIL = uniqueEmail('web-reset-admin');
// The mail's link opens the server's page (test/accounts/mailed-links.test.ts); the dashboard's own reset page takes
// the same token at /app/reset, which is what these tests drive.
const LINK = /https:\/\/conduit\.example\/api\/auth\/password-reset\/confirm\?token=([A-Za-z0-9_-]+)/;
const dashboardPath = (text: string) => `/app/reset?token=${LINK.exec(text)![1]!}`;

let smtp: FakeSmtp;
let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

async function noOverflowAt(sizes = [WIDE, PHONE]) {
  for (const size of sizes) {
    await page.setViewportSize(size);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
  }
  await page.setViewportSize(WIDE);
}

browserSuite('password reset in the dashboard', () => {
  useBrowserApp({
    before: async () => {
      smtp = await startFakeSmtp();
    },
    app: () => ({ env: { SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'https://conduit.example', ADMIN_EMAILS: ADMIN_EMAIL } }),
    ready: (s) => {
      ({ app, page, pageErrors } = s);
      // In full PostgreSQL runs (2 of 4, never with this file alone) one answer to a form of this file took
      // over the default 10 s to show: the first test's notice once, the password change's refusal once. The
      // cause is not found (see the closing note of 2026-11-26 evening); the waits are 30 s meanwhile.
      page.setDefaultTimeout(30_000);
    },
    after: () => smtp?.close(),
  });

  test(
    'forgot password → mail → the link → a new password → signed in; the old password no longer works',
    async () => {
      const user = await registerUser(app.url, uniqueEmail('web-reset'), 'old-secret-1');
      await page.goto(`${app.url}/app/login`);
      await page.getByRole('link', { name: 'Забыли пароль?' }).click();
      await page.waitForURL(`${app.url}/app/forgot`);
      await noOverflowAt();
      await page.getByLabel('E-mail').fill(user.email);
      await page.getByRole('button', { name: 'Прислать ссылку' }).click();
      // Two of four full PostgreSQL runs saw no notice within the default 10 s, and no run of this file
      // alone did: a longer wait, and on failure the page's own text, to tell a slow answer from an error.
      const sent = await page
        .getByTestId('reset-sent')
        .textContent({ timeout: 30_000 })
        .catch(async (error) => {
          throw new Error(
            `no «reset-sent»: ${error}\npage: ${await page
              .locator('main')
              .textContent()
              .catch(() => '?')}`,
          );
        });
      expect(sent).toContain('ссылк');

      const mail = await smtp.waitFor(user.email);
      const path = dashboardPath(mail.text);
      await page.goto(`${app.url}${path}`);
      await page.getByLabel('Новый пароль').waitFor();
      await noOverflowAt();
      await page.getByLabel('Новый пароль').fill('new-secret-1');
      await page.getByRole('button', { name: 'Сохранить и войти' }).click();
      await page.waitForURL(`${app.url}/app/`);
      expect((await call(app.url, 'GET', '/api/auth/me', { token: await sessionToken(page) })).body.user.email).toBe(user.email);
      expect((await call(app.url, 'GET', '/api/auth/me', { token: user.token })).status).toBe(401);
      expect((await call(app.url, 'POST', '/api/auth/login', { body: { email: user.email, password: 'old-secret-1' } })).status).toBe(401);

      // The same link a second time: refused in words, nothing changes.
      await page.evaluate(() => localStorage.clear());
      await page.goto(`${app.url}${path}`);
      await page.getByLabel('Новый пароль').fill('third-secret-1');
      await page.getByRole('button', { name: 'Сохранить и войти' }).click();
      expect(await page.getByRole('alert').first().textContent()).toContain('недействительна');
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'with two-factor login on, the reset page asks for the code before it sets anything (issue 38 row 2)',
    async () => {
      const user = await registerUser(app.url, uniqueEmail('web-reset-totp'), 'old-secret-1');
      const setup = await call(app.url, 'POST', '/api/auth/2fa/setup', { token: user.token });
      const totp = new TOTP({ secret: Secret.fromBase32(setup.body.secret), digits: 6, period: 30, algorithm: 'SHA1' });
      const codeAt = (steps: number) => totp.generate({ timestamp: Date.now() + steps * 30_000 });
      expect((await call(app.url, 'POST', '/api/auth/2fa/enable', { token: user.token, body: { code: codeAt(0) } })).status).toBe(200);
      const seen = smtp.messages.filter((m) => m.to.includes(user.email)).length;
      expect((await call(app.url, 'POST', '/api/auth/password-reset', { body: { email: user.email } })).status).toBe(200);
      let mail = await smtp.waitFor(user.email, seen);
      for (let i = seen + 1; !LINK.test(mail.text); i++) mail = await smtp.waitFor(user.email, i);
      const path = dashboardPath(mail.text);

      await page.evaluate(() => localStorage.clear());
      await page.goto(`${app.url}${path}`);
      await page.getByLabel('Новый пароль').fill('new-secret-1');
      await page.getByRole('button', { name: 'Сохранить и войти' }).click();
      const code = page.getByTestId('reset-totp');
      await code.waitFor();
      // Nothing set yet: the old password (with a code) is still the one.
      expect((await call(app.url, 'GET', '/api/auth/me', { token: user.token })).status).toBe(200);
      await noOverflowAt();
      await code.fill(codeAt(1));
      await page.getByRole('button', { name: 'Сохранить и войти' }).click();
      await page.waitForURL(`${app.url}/app/`);
      expect((await call(app.url, 'GET', '/api/auth/me', { token: user.token })).status).toBe(401);
      expect(pageErrors).toEqual([]);
      // Signed out again, as the next test starts from the login page.
      await page.evaluate(() => localStorage.clear());
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'the account page: a password change keeps this session, sign-out everywhere ends it',
    async () => {
      const user = await registerUser(app.url, uniqueEmail('web-account'), 'old-secret-1');
      await page.goto(`${app.url}/app/login`);
      await page.getByLabel('E-mail').fill(user.email);
      await page.getByLabel('Пароль').fill(user.password);
      await page.getByRole('button', { name: 'Войти' }).click();
      await page.waitForURL(`${app.url}/app/`);
      await page.getByRole('link', { name: 'Аккаунт' }).click();
      // The account page has other forms asking for the password (the e-mail change): this one's section.
      const change = page.getByRole('region', { name: 'Смена пароля' });
      await change.getByLabel('Текущий пароль').waitFor();
      await noOverflowAt();

      await change.getByLabel('Текущий пароль').fill('wrong-one-1');
      await change.getByLabel('Новый пароль').fill('new-secret-1');
      await change.getByRole('button', { name: 'Сменить пароль' }).click();
      expect(await page.getByRole('alert').first().textContent()).toContain('Текущий пароль указан неверно');

      await change.getByLabel('Текущий пароль').fill(user.password);
      await change.getByRole('button', { name: 'Сменить пароль' }).click();
      await page.getByText('Пароль изменён').waitFor();
      const fresh = await sessionToken(page);
      expect((await call(app.url, 'GET', '/api/auth/me', { token: fresh })).status).toBe(200);
      expect((await call(app.url, 'GET', '/api/auth/me', { token: user.token })).status).toBe(401);

      await page.getByRole('button', { name: 'Выйти на всех устройствах' }).click();
      await page.getByRole('button', { name: 'Завершить все сеансы' }).click();
      await page.waitForURL(/\/app\/login/);
      await page.getByText('Все сеансы завершены').waitFor();
      expect((await call(app.url, 'GET', '/api/auth/me', { token: fresh })).status).toBe(401);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'the operator’s console: «Отправить ссылку для сброса пароля» mails the user, «Завершить все сеансы» ends them, both in the audit table',
    async () => {
      const admin = await registerAdmin(app, ADMIN_EMAIL, 'admin-secret-1');
      const user = await registerUser(app.url, uniqueEmail('web-helped'), 'old-secret-1');
      await page.evaluate(() => localStorage.clear());
      await page.goto(`${app.url}/app/login`);
      await page.getByLabel('E-mail').fill(admin.email);
      await page.getByLabel('Пароль').fill(admin.password);
      await page.getByRole('button', { name: 'Войти' }).click();
      await page.waitForURL(`${app.url}/app/`);
      await page.goto(`${app.url}/app/admin/users/${user.userId}`);
      const detail = page.getByTestId('admin-user');
      await detail.waitFor();

      await detail.getByRole('button', { name: 'Отправить ссылку для сброса пароля' }).click();
      await page.getByRole('dialog', { name: 'Отправить ссылку для сброса пароля?' }).getByRole('button', { name: 'Отправить ссылку' }).click();
      expect(await page.getByTestId('admin-session-message').textContent()).toContain(user.email);
      expect(LINK.test((await smtp.waitFor(user.email)).text)).toBe(true);

      await detail.getByRole('button', { name: 'Завершить все сеансы' }).click();
      await page.getByRole('dialog', { name: 'Завершить все сеансы пользователя?' }).getByRole('button', { name: 'Завершить сеансы' }).click();
      await page.getByTestId('admin-session-message').getByText('Все сеансы пользователя завершены').waitFor();
      expect((await call(app.url, 'GET', '/api/auth/me', { token: user.token })).status).toBe(401);
      await page.getByTestId('audit-table').locator('tbody tr[data-action="user.sessions_ended"]').waitFor();
      await page.getByTestId('audit-table').locator('tbody tr[data-action="user.password_reset_sent"]').waitFor();
      await noOverflowAt();
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
