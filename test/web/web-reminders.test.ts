// The visit reminders' settings on an agent's YCLIENTS section in chromium (issue 42 point 1): hours before
// the visit and the salon's quiet hours, checked in the page with the server's schema, saved, read back
// after a reload; at 1280 and 390 px nothing is wider than the window.
// Screenshots: test-artifacts/screens/reminders-desktop|phone.png.
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

const SCREENS = ['reminders-desktop', 'reminders-phone'] as const;
const browserSuite = browserDescribe('web-reminders.test.ts');

const PARTNER = 'partner-token-web-r3m1';
const LOGIN = 'admin@salon.example';
const PASSWORD = 'Web-S3cret-pass';
const COMPANY = 7312;
const MARIA = 2101;
const HAIRCUT = 93001;

let yc: FakeYclients;
let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

browserSuite('visit reminder settings', () => {
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
    'defaults shown; a wrong value refused in Russian before any request; saved and read back; both widths',
    async () => {
      await page.setViewportSize(DESKTOP);
      await registerThroughPage(page, app.url, { email: uniqueEmail('web-reminders'), password: 'reminders-secret-1' });
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
      const reminders = booking.getByTestId('visit-reminders');
      expect(await reminders.getByLabel('Напоминать за, часов').inputValue()).toBe('24, 2');
      expect(await reminders.getByLabel('Тихие часы с').inputValue()).toBe('21:00');
      expect(await reminders.getByLabel('Тихие часы до').inputValue()).toBe('09:00');

      // A save logs in to YCLIENTS first (POST /auth): none may be made for a form the page refuses.
      const logins = () => yc.calls.filter((c) => c.method === 'POST' && c.path === '/auth').length;
      const loginsBefore = logins();
      await reminders.getByLabel('Напоминать за, часов').fill('завтра');
      await booking.getByRole('button', { name: 'Сохранить настройки YCLIENTS' }).click();
      await reminders.getByText('Перечислите часы через запятую, например: 24, 2').waitFor();
      await reminders.getByLabel('Напоминать за, часов').fill('0.1');
      await booking.getByRole('button', { name: 'Сохранить настройки YCLIENTS' }).click();
      await reminders.getByText('напоминание — не раньше чем за 15 минут до визита').waitFor();
      expect(logins()).toBe(loginsBefore);

      await reminders.getByLabel('Напоминать за, часов').fill('48, 3');
      await reminders.getByLabel('Тихие часы с').fill('22:00');
      await reminders.getByLabel('Тихие часы до').fill('08:30');
      await booking.getByRole('button', { name: 'Сохранить настройки YCLIENTS' }).click();
      await booking.getByText('Настройки сохранены, вход в YCLIENTS проверен').waitFor();
      const saved = await call(app.url, 'GET', settingsUrl, { token });
      expect(saved.body).toMatchObject({ reminderOffsetsMinutes: [2880, 180], quietFrom: '22:00', quietTo: '08:30' });

      await page.reload();
      await booking.getByText('Подключено', { exact: true }).waitFor();
      expect(await reminders.getByLabel('Напоминать за, часов').inputValue()).toBe('48, 3');
      expect(await reminders.getByLabel('Тихие часы до').inputValue()).toBe('08:30');

      for (const [size, name] of [
        [DESKTOP, 'reminders-desktop'],
        [PHONE, 'reminders-phone'],
      ] as const) {
        await page.setViewportSize(size);
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        await reminders.screenshot({ path: screenPath(name) });
      }
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
