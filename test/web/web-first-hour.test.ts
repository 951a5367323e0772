// The first hour in chromium (issue 41 point 1), at 1280×800 and 390×844: `/` is a page saying what the
// service is, with «Войти» and «Зарегистрироваться» leading to the dashboard's forms; after registration the
// overview shows three steps (confirm the e-mail for the waiting bonus, create a key, try it) with the base
// URL and snippets that carry the new key only while it is on screen; a key made on a zero balance says so.
// Screenshots: test-artifacts/screens/first-hour-root-*.png, first-hour-overview-*.png.
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp';
import { call, uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS, horizontalOverflow, PHONE, registerThroughPage, screenPath, sessionToken, useBrowserApp } from '../helpers/browser';

const SCREENS = ['first-hour-root-desktop', 'first-hour-root-phone', 'first-hour-overview-desktop', 'first-hour-overview-phone'] as const;
const DESKTOP_800 = { width: 1280, height: 800 };
const SIZES = [
  ['desktop', DESKTOP_800],
  ['phone', PHONE],
] as const;
const LINK = /https:\/\/conduit\.example\/api\/auth\/verify-email\?token=([A-Za-z0-9_-]+)/;
const browserSuite = browserDescribe('web-first-hour.test.ts');

let smtp: FakeSmtp;
let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

browserSuite('the first hour in chromium', () => {
  useBrowserApp({
    screens: SCREENS,
    before: async () => {
      smtp = await startFakeSmtp();
    },
    app: () => ({
      env: { REQUIRE_EMAIL_VERIFICATION: 'true', SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'https://conduit.example', SUPPORT_CONTACT: 'help@conduit.example' },
    }),
    ready: (s) => ({ app, page, pageErrors } = s),
    after: () => smtp?.close(),
  });

  test(
    '/ says what the service is and leads to the registration and login forms at both widths',
    async () => {
      for (const [name, size] of SIZES) {
        await page.setViewportSize(size);
        await page.goto(`${app.url}/`);
        await page.getByRole('heading', { level: 1 }).waitFor();
        expect(await page.title()).toContain('Conduit');
        expect(await page.getByTestId('root-base-url').textContent()).toBe('https://conduit.example/v1');
        expect(await page.getByTestId('root-support').textContent()).toContain('help@conduit.example');
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        // Both ways in are seen without scrolling.
        for (const link of ['Зарегистрироваться', 'Войти']) {
          const box = (await page.getByRole('link', { name: link, exact: true }).boundingBox())!;
          expect(box.y + box.height).toBeLessThanOrEqual(size.height);
        }
        await page.screenshot({ path: screenPath(`first-hour-root-${name}`), fullPage: true });
      }
      await page.getByRole('link', { name: 'Зарегистрироваться', exact: true }).click();
      await page.waitForURL(`${app.url}/app/register`);
      await page.getByRole('heading', { name: 'Регистрация' }).waitFor();
      await page.goto(`${app.url}/`);
      await page.getByRole('link', { name: 'Войти', exact: true }).click();
      await page.waitForURL(`${app.url}/app/login`);
      await page.getByRole('heading', { name: 'Вход в панель' }).waitFor();
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'after registration: the bonus waits for the e-mail, a key is made from the overview, the snippets carry it while shown',
    async () => {
      await page.setViewportSize(DESKTOP_800);
      const user = { email: uniqueEmail('web-first-hour'), password: 'first-hour-secret-1' };
      await registerThroughPage(page, app.url, user);
      const steps = page.getByTestId('first-steps');
      await steps.waitFor();
      expect(await steps.getByTestId('step-email').getAttribute('data-done')).toBe('false');
      expect(await steps.getByTestId('step-email').textContent()).toContain('3,00');
      expect(await page.getByTestId('pending-bonus').textContent()).toContain('ждёт подтверждения e-mail');
      expect(await page.getByTestId('balance').textContent()).toContain('0,00');
      expect(await steps.getByTestId('first-base-url').textContent()).toBe('https://conduit.example/v1');
      const snippets = steps.getByTestId('first-snippets');
      for (const title of ['curl', 'Python', 'Node.js']) await snippets.getByRole('button', { name: `Копировать пример ${title}` }).waitFor();
      expect(await snippets.textContent()).toContain('ВАШ_КЛЮЧ');

      await steps.getByTestId('first-key-create').click();
      const key = (await steps.getByTestId('first-key-value').textContent())!.trim();
      expect(key).toMatch(/^cdt-/);
      expect(await steps.getByTestId('first-key-zero-balance').textContent()).toContain('баланс сейчас нулевой');
      expect(await steps.getByTestId('step-key').getAttribute('data-done')).toBe('true');
      const shown = (await snippets.textContent())!;
      expect(shown.split(key).length - 1).toBe(3);
      expect(shown).not.toContain('ВАШ_КЛЮЧ');
      const token = await sessionToken(page);
      expect((await call(app.url, 'GET', '/api/keys', { token })).body.keys).toHaveLength(1);

      for (const [name, size] of SIZES) {
        await page.setViewportSize(size);
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        await page.screenshot({ path: screenPath(`first-hour-overview-${name}`), fullPage: true });
      }
      await page.setViewportSize(DESKTOP_800);

      // Shown once: after a reload the snippets are back to the placeholder, the step stays done.
      await page.reload();
      await steps.getByTestId('first-snippets').waitFor();
      expect(await steps.getByTestId('first-snippets').textContent()).not.toContain(key);
      expect(await steps.getByTestId('first-snippets').textContent()).toContain('ВАШ_КЛЮЧ');
      expect(await steps.getByTestId('step-key').getAttribute('data-done')).toBe('true');

      // The keys screen's own creation says the same about the zero balance.
      await page.getByRole('link', { name: 'API-ключи' }).first().click();
      await page.getByLabel('Название', { exact: true }).fill('Второй');
      await page.getByRole('button', { name: 'Создать ключ' }).click();
      expect(await page.getByTestId('new-key-zero-balance').textContent()).toContain('Баланс сейчас нулевой');

      // The link from the mail lands the bonus: the overview stops saying it waits.
      const mail = await smtp.waitFor(user.email);
      const secret = LINK.exec(mail.text)![1]!;
      const confirmed = await fetch(`${app.url}/api/auth/verify-email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ token: secret }),
      });
      expect(confirmed.status).toBe(200);
      await page.getByRole('link', { name: 'Баланс и использование' }).first().click();
      await page.getByRole('button', { name: 'Обновить' }).click();
      await page.getByTestId('balance').getByText('3,00', { exact: false }).waitFor();
      await steps.getByTestId('step-email').and(page.locator('[data-done="true"]')).waitFor();
      expect(await page.getByTestId('pending-bonus').count()).toBe(0);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
