// The «Аккаунт» page's «Уведомления» section in a real browser against the real app: the menu leads
// there, a bad threshold is refused under its field before any request, a saved threshold and webhook
// reach the server, the webhook's secret is shown once and masked after a reload.
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { call, uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS, registerThroughPage, sessionToken, useBrowserApp } from '../helpers/browser';

const browserSuite = browserDescribe('web-account-alerts.test.ts');

let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

browserSuite('alerts in the dashboard', () => {
  useBrowserApp({ ready: (s) => ({ app, page, pageErrors } = s) });

  test(
    'the threshold and webhook are set from «Аккаунт»; the secret is shown once, then masked',
    async () => {
      await registerThroughPage(page, app.url, { email: uniqueEmail('alerts-web'), password: 'alerts-secret-1' });
      const token = await sessionToken(page);
      await page.getByRole('link', { name: 'Аккаунт' }).click();
      await page.waitForURL(`${app.url}/app/account`);
      const section = page.getByTestId('alerts-section');
      await section.waitFor();

      const threshold = section.getByLabel(/Порог баланса/);
      await threshold.fill('-5');
      await section.getByRole('button', { name: 'Сохранить' }).click();
      expect(await section.getByText('должен быть больше нуля').first().isVisible()).toBe(true);
      expect((await call(app.url, 'GET', '/api/account/alerts', { token })).body.lowBalanceThreshold).toBeNull();

      await threshold.fill('2,5');
      await section.getByLabel('Адрес вебхука').fill('http://127.0.0.1:9/hooks');
      await section.getByRole('button', { name: 'Сохранить' }).click();
      const secret = section.getByTestId('webhook-secret');
      await secret.waitFor();
      const shown = (await secret.textContent())!;
      expect(shown).toMatch(/^whsec_/);
      const stored = (await call(app.url, 'GET', '/api/account/alerts', { token })).body;
      expect(stored).toMatchObject({ lowBalanceThreshold: 2.5, webhookUrl: 'http://127.0.0.1:9/hooks', keyLimitAlerts: true });

      await page.reload();
      const masked = page.getByTestId('webhook-secret-masked');
      await masked.waitFor();
      expect(await masked.textContent()).toContain('••••');
      expect(await page.getByTestId('webhook-secret').count()).toBe(0);
      expect(await page.getByLabel(/Порог баланса/).inputValue()).toBe('2,5');
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
