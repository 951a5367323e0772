// The client-matching switch on an agent's YCLIENTS section in chromium (issue 42 point 4): off by default, with
// the line that says what it trusts (an unverified phone and a name) and what that risks; switched on, saved,
// read back after a reload; at 1280 and 390 px nothing is wider than the window.
// Screenshots: test-artifacts/screens/client-matching-desktop|phone.png.
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { startFakeYclients, type FakeYclients } from '../fakes/yclients';
import { call, uniqueEmail, type TestApp } from '../helpers/app';
import {
  browserDescribe,
  DESKTOP,
  FLOW_TIMEOUT_MS,
  horizontalOverflow,
  PHONE,
  registerThroughPage,
  screenPath,
  sessionToken,
  useBrowserApp,
} from '../helpers/browser';

const SCREENS = ['client-matching-desktop', 'client-matching-phone'] as const;
const browserSuite = browserDescribe('web-client-matching.test.ts');

const PARTNER = 'partner-token-web-m4tch';
const LOGIN = 'admin@salon.example';
const PASSWORD = 'Web-S3cret-pass';
const COMPANY = 7313;
const MARIA = 2101;
const HAIRCUT = 93001;

let yc: FakeYclients;
let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

browserSuite('client matching switch', () => {
  useBrowserApp({
    screens: SCREENS,
    before: async () => {
      yc = await startFakeYclients();
      yc.addCompany({
        id: COMPANY,
        partnerToken: PARTNER,
        login: LOGIN,
        password: PASSWORD,
        staff: [{ id: MARIA, name: 'Мария', specialization: 'Парикмахер' }],
        services: [{ id: HAIRCUT, title: 'Стрижка', price_min: 1500, price_max: 2000, duration: 3600, staffIds: [MARIA] }],
      });
    },
    app: () => ({ env: { YCLIENTS_BASE_URL: yc.url } }),
    ready: (s) => ({ app, page, pageErrors } = s),
    after: () => yc?.close(),
  });

  test(
    'off by default with what it trusts said; switched on, saved and read back; both widths',
    async () => {
      await page.setViewportSize(DESKTOP);
      await registerThroughPage(page, app.url, { email: uniqueEmail('web-matching'), password: 'matching-secret-1' });
      const token = await sessionToken(page);
      const created = await call(app.url, 'POST', '/api/agents', { token, body: { name: 'Салон «Лён»', type: 'service', systemPrompt: 'Ты — администратор.' } });
      expect(created.status).toBe(201);
      const agentId = created.body.id as string;
      const settingsUrl = `/api/v1/booking/${agentId}/settings`;
      const base = {
        partnerToken: PARTNER,
        login: LOGIN,
        password: PASSWORD,
        companyId: COMPANY,
        specialistMapping: { maria: MARIA },
        serviceMapping: { haircut: HAIRCUT },
      };
      expect((await call(app.url, 'PUT', settingsUrl, { token, body: base })).status).toBe(200);

      await page.goto(`${app.url}/app/agents/${agentId}`);
      await page.getByRole('navigation', { name: 'Разделы агента' }).getByRole('link', { name: 'YCLIENTS' }).click();
      const booking = page.getByTestId('booking-settings');
      await booking.getByText('Подключено', { exact: true }).waitFor();
      const toggle = booking.getByLabel('Узнавать записи клиента в YCLIENTS по телефону и имени');
      expect(await toggle.isChecked()).toBe(false);
      const hint = await booking.getByTestId('match-client-records-hint').textContent();
      expect(hint).toContain('Телефон во ВКонтакте никто не проверяет');

      await toggle.check();
      await booking.getByRole('button', { name: 'Сохранить настройки YCLIENTS' }).click();
      await booking.getByText('Настройки сохранены, вход в YCLIENTS проверен').waitFor();
      expect((await call(app.url, 'GET', settingsUrl, { token })).body.matchClientRecords).toBe(true);
      await page.reload();
      await booking.getByText('Подключено', { exact: true }).waitFor();
      expect(await booking.getByLabel('Узнавать записи клиента в YCLIENTS по телефону и имени').isChecked()).toBe(true);

      for (const [size, name] of [
        [DESKTOP, 'client-matching-desktop'],
        [PHONE, 'client-matching-phone'],
      ] as const) {
        await page.setViewportSize(size);
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        await booking.screenshot({ path: screenPath(name) });
      }
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
