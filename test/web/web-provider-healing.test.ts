// «Провайдеры» after issue 43 point 4, in a real browser (Debian's chromium) against the real app and fake
// providers, at 1440 and at a 390 px phone: a provider's success rate and answer times (p50, p95) over its
// last hour, its balance read from an OpenRouter-shaped credits endpoint and marked below its threshold, and
// «Проверить сейчас»: a failed probe shown in its history, then a probe that finds it answering and puts it
// back in service. The periodic probes are off here (PROVIDER_PROBE_SECONDS=0): only the button probes.
// Screenshots: test-artifacts/screens/admin-provider-healing*.png.
import { expect, setDefaultTimeout, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, uniqueEmail, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/gateway';
import { browserDescribe, DESKTOP, FLOW_TIMEOUT_MS, horizontalOverflow, PHONE, screenPath, sessionToken, useBrowserApp, signInAsOperator } from '../helpers/browser';

setDefaultTimeout(30_000);

const SCREENS = ['admin-provider-healing', 'admin-provider-healing-phone'] as const;
const browserSuite = browserDescribe('web-provider-healing.test.ts');
const WIDE = { width: 1440, height: 900 };
const MODEL = 'acme/healing';

let home: FakeUpstream;
let flaky: FakeUpstream;
let app: TestApp;
let page: Page;
let pageErrors: string[] = [];
const admin = { email: uniqueEmail('healing-ops'), password: 'admin-secret-1' };
let customerKey: string;

const api = async (method: string, path: string, body?: unknown) => call(app.url, method, path, { token: await sessionToken(page), body });
const ask = () => call(app.url, 'POST', '/v1/chat/completions', { token: customerKey, body: { model: MODEL, messages: [{ role: 'user', content: 'Привет!' }] } });

browserSuite('a provider’s figures, balance and probes in the admin console in chromium', () => {
  useBrowserApp({
    screens: SCREENS,
    before: async () => {
      [home, flaky] = await Promise.all([startFakeUpstream(), startFakeUpstream()]);
    },
    app: () => ({
      env: {
        ADMIN_EMAILS: admin.email,
        UPSTREAM_BASE_URL: home.url,
        PROVIDER_FAILURE_THRESHOLD: '2',
        PROVIDER_COOLDOWN_SECONDS: '600',
        PROVIDER_PROBE_SECONDS: '0',
        PROVIDER_BALANCE_SECONDS: '1',
      },
    }),
    ready: async (s) => {
      ({ app, page, pageErrors } = s);
      const customer = await registerUser(app.url);
      customerKey = (await createApiKey(app.url, customer.token)).key;
      await signInAsOperator(page, app, admin);
    },
    after: () => Promise.all([home, flaky].map((f) => f?.close())),
  });

  test(
    'success rate, p50 and p95, a balance below its threshold, and «Проверить сейчас» failing then bringing the provider back',
    async () => {
      flaky.credits = { total_credits: 10, total_usage: 7.25 };
      const created = await api('POST', '/api/admin/providers', {
        name: 'Нестабильный',
        baseUrl: flaky.url,
        balanceUrl: `${flaky.url}/credits`,
        balanceThreshold: 5,
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      expect(
        (
          await api('PUT', '/api/admin/routes', {
            pattern: MODEL,
            targets: [
              { providerId: id, priority: 0 },
              { providerId: 'default', priority: 1 },
            ],
          })
        ).status,
      ).toBe(200);
      // Two answers, then two faults (each failing over to default): a pause, half the attempts successful.
      for (let i = 0; i < 2; i++) expect((await ask()).status).toBe(200);
      flaky.outage = 503;
      flaky.modelsDown = true;
      for (let i = 0; i < 2; i++) expect((await ask()).status).toBe(200);
      await waitFor(async () => (await api('GET', `/api/admin/providers/${id}`)).body.health.state === 'cooling_down');
      await waitFor(async () => (await api('GET', `/api/admin/providers/${id}`)).body.balance?.amount === 2.75);

      await page.goto(`${app.url}/app/admin/providers`);
      const card = page.locator(`[data-testid="provider-card"][data-provider-id="${id}"]`);
      await card.waitFor();
      const stat = (which: string) => card.locator(`[data-stat="${which}"] dd`).textContent();
      expect(await stat('attempts')).toBe('4');
      expect(await stat('faults')).toBe('2');
      expect(await stat('success-rate')).toBe('50 %');
      expect(await stat('p50')).toMatch(/^\d[\d\s\u00a0]* мс$/);
      expect(await stat('p95')).toMatch(/^\d[\d\s\u00a0]* мс$/);
      const balance = card.getByTestId('provider-balance');
      expect(await balance.getAttribute('data-below')).toBe('true');
      expect(await balance.textContent()).toContain('2,75');
      expect(await balance.textContent()).toContain('порог 5');
      expect(await card.getByTestId('provider-state').textContent()).toContain('пауза');
      await card.getByText('Провайдера проверяют, пока он на паузе или отключён после сбоев.').waitFor();

      // The host is still down: the probe says so, and the card keeps the pause and shows the probe.
      await card.getByRole('button', { name: 'Проверить сейчас' }).click();
      await page.getByRole('status').getByText('Проверка Нестабильный: не отвечает: status 503').waitFor();
      const probes = card.getByTestId('provider-probes').locator('li');
      await probes.first().waitFor();
      expect(await probes.count()).toBe(1);
      expect(await probes.first().textContent()).toContain('не отвечает · 503');
      expect(await probes.first().textContent()).toContain('вручную');
      expect(await card.getAttribute('data-state')).toBe('cooling_down');

      // Back up: the next probe puts it in service without anything else touched.
      flaky.outage = null;
      flaky.modelsDown = false;
      await card.getByRole('button', { name: 'Проверить сейчас' }).click();
      await page
        .getByRole('status')
        .getByText(/Проверка Нестабильный: отвечает \(200, \d+ мс\)/)
        .waitFor();
      await page.locator(`[data-testid="provider-card"][data-provider-id="${id}"][data-state="up"]`).waitFor();
      expect(await probes.count()).toBe(2);
      expect(await probes.first().textContent()).toContain('отвечает · 200');
      expect(await card.getByTestId('provider-state').textContent()).toBe('работает');
      expect((await ask()).status).toBe(200);
      expect(flaky.requests.filter((r) => r.path === '/v1/chat/completions').length).toBe(5);

      await page.screenshot({ path: screenPath('admin-provider-healing'), fullPage: true });
      for (const size of [WIDE, PHONE]) {
        await page.setViewportSize(size);
        await page.evaluate(() => window.scrollTo(0, 0));
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      }
      await page.screenshot({ path: screenPath('admin-provider-healing-phone'), fullPage: true });
      await page.setViewportSize(DESKTOP);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
