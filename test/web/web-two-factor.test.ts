// Two-factor login in chromium (issue 32 point 4): switched on from «Аккаунт» with the QR code's secret
// and a code computed here, the recovery codes shown once, then a login that asks for the code after the
// password. At 1440 and 390 px nothing is wider than the window. Screenshots:
// test-artifacts/screens/two-factor-desktop|phone.png.
import { expect, test } from 'bun:test';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { call, uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS, horizontalOverflow, PHONE, registerThroughPage, screenPath, sessionToken, useBrowserApp } from '../helpers/browser';

const SCREENS = ['two-factor-desktop', 'two-factor-phone', 'two-factor-login'] as const;
const WIDE = { width: 1440, height: 900 };
const browserSuite = browserDescribe('web-two-factor.test.ts');

let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

const codeAt = (secret: string, offsetSteps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });

browserSuite('two-factor login in chromium', () => {
  useBrowserApp({ screens: SCREENS, ready: (s) => ({ app, page, pageErrors } = s) });

  test(
    'enable with a code, see the recovery codes once, log out, log in with a code',
    async () => {
      const user = { email: uniqueEmail('web-2fa'), password: 'two-factor-secret-1' };
      await page.setViewportSize(WIDE);
      await registerThroughPage(page, app.url, user);
      await page.getByRole('link', { name: 'Аккаунт' }).click();
      await page.waitForURL(`${app.url}/app/account`);
      const section = page.getByTestId('two-factor');
      await section.getByRole('heading', { name: 'Двухфакторный вход' }).waitFor();
      await section.getByRole('button', { name: 'Включить двухфакторный вход' }).click();

      const qr = section.getByTestId('two-factor-qr');
      await qr.waitFor();
      // The QR image really loaded (an SVG the browser drew), at its size.
      expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
      // Shown in groups of four («ABCD EFGH …») for typing by hand.
      const secret = (await section.getByTestId('two-factor-secret').textContent())!.replaceAll(' ', '');
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);

      // A wrong code first: its message under the field, nothing enabled.
      await section.getByLabel('Код из приложения').fill(codeAt(secret, 10));
      await section.getByRole('button', { name: 'Подтвердить и включить' }).click();
      await section.getByText('Неверный или уже использованный код подтверждения').waitFor();
      expect(await section.getByLabel('Код из приложения').getAttribute('aria-invalid')).toBe('true');

      await section.getByLabel('Код из приложения').fill(codeAt(secret));
      await section.getByRole('button', { name: 'Подтвердить и включить' }).click();
      const codes = section.getByTestId('recovery-codes');
      await codes.waitFor();
      expect(await codes.locator('li').count()).toBe(10);
      await section.getByTestId('two-factor-state').getByText('Включён', { exact: true }).waitFor();
      const token = await sessionToken(page);
      expect((await call(app.url, 'GET', '/api/auth/2fa', { token })).body).toEqual({ enabled: true });

      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: screenPath('two-factor-desktop'), fullPage: true });
      await page.setViewportSize(PHONE);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: screenPath('two-factor-phone'), fullPage: true });
      await page.setViewportSize(WIDE);

      // Shown once: after hiding them (or a reload) they are gone for good.
      await section.getByRole('button', { name: 'Коды сохранены, скрыть' }).click();
      expect(await section.getByTestId('recovery-codes').count()).toBe(0);

      await page.getByRole('button', { name: 'Выйти', exact: true }).click();
      await page.waitForURL(/\/app\/login/);
      await page.getByLabel('E-mail').fill(user.email);
      await page.getByLabel('Пароль', { exact: true }).fill(user.password);
      await page.getByRole('button', { name: 'Войти' }).click();
      // The password was right: the page asks for the code instead of failing.
      const codeField = page.getByLabel('Код подтверждения');
      await codeField.waitFor();
      expect(page.url()).toContain('/app/login');
      await page.setViewportSize(PHONE);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: screenPath('two-factor-login') });
      await page.setViewportSize(WIDE);

      await codeField.fill(codeAt(secret, 1));
      await page.getByRole('button', { name: 'Войти' }).click();
      await page.waitForURL(`${app.url}/app/`);
      await page.getByTestId('account-email').filter({ hasText: user.email }).waitFor();

      // And the e-mail change section sits on the same page.
      await page.getByRole('link', { name: 'Аккаунт' }).click();
      await page.getByTestId('email-change').getByRole('heading', { name: 'Смена e-mail' }).waitFor();
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
