// «После визита» on an agent's YCLIENTS section in chromium (issue 42 point 2): the review request's delay,
// the salon's review page, «записаться снова» per service and «мы вас ждали», checked in the page (the link
// with the server's schema), saved, read back after a reload; at 1280 and 390 px nothing is wider than the window.
// Screenshots: test-artifacts/screens/after-visit-desktop|phone.png.
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

const SCREENS = ['after-visit-desktop', 'after-visit-phone'] as const;
const browserSuite = browserDescribe('web-after-visit.test.ts');

const PARTNER = 'partner-token-web-av1';
const LOGIN = 'admin@salon.example';
const PASSWORD = 'Web-S3cret-pass';
const COMPANY = 7313;
const MARIA = 2102;
const HAIRCUT = 93002;

let yc: FakeYclients;
let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

browserSuite('after-visit settings', () => {
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
    '«После визита»: defaults shown; a wrong link refused before any request; saved and read back; both widths',
    async () => {
      await page.setViewportSize(DESKTOP);
      await registerThroughPage(page, app.url, { email: uniqueEmail('web-after-visit'), password: 'after-visit-secret-1' });
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
      const after = booking.getByTestId('after-visit');
      expect(await after.getByLabel('Просить оценку через, часов после визита').inputValue()).toBe('2');
      expect(await after.getByLabel('Ссылка на отзывы о салоне').inputValue()).toBe('');
      expect(await after.getByLabel('Написать клиенту, который не пришёл', { exact: false }).isChecked()).toBe(false);

      const logins = () => yc.calls.filter((c) => c.method === 'POST' && c.path === '/auth').length;
      const loginsBefore = logins();
      await after.getByLabel('Ссылка на отзывы о салоне').fill('http://2gis.ru/reviews');
      await booking.getByRole('button', { name: 'Сохранить настройки YCLIENTS' }).click();
      await after.getByText('ожидается ссылка, начинающаяся с https://').waitFor();
      await after.getByLabel('Ссылка на отзывы о салоне').fill('https://2gis.ru/reviews');
      await after.getByLabel('Предложить записаться снова').fill('haircut 30');
      await booking.getByRole('button', { name: 'Сохранить настройки YCLIENTS' }).click();
      await after.getByText('Пишите так: услуга: дней, например haircut: 30').waitFor();
      expect(logins()).toBe(loginsBefore);

      await after.getByLabel('Предложить записаться снова').fill('haircut: 30');
      await after.getByLabel('Просить оценку через, часов после визита').fill('3');
      await after.getByLabel('Написать клиенту, который не пришёл', { exact: false }).check();
      await booking.getByRole('button', { name: 'Сохранить настройки YCLIENTS' }).click();
      await booking.getByText('Настройки сохранены, вход в YCLIENTS проверен').waitFor();
      const saved = await call(app.url, 'GET', settingsUrl, { token });
      expect(saved.body).toMatchObject({ reviewDelayMinutes: 180, reviewUrl: 'https://2gis.ru/reviews', rebookDays: { haircut: 30 }, noShowMessage: true });

      await page.reload();
      await booking.getByText('Подключено', { exact: true }).waitFor();
      expect(await after.getByLabel('Просить оценку через, часов после визита').inputValue()).toBe('3');
      expect(await after.getByLabel('Предложить записаться снова').inputValue()).toBe('haircut: 30');

      for (const [size, name] of [
        [DESKTOP, 'after-visit-desktop'],
        [PHONE, 'after-visit-phone'],
      ] as const) {
        await page.setViewportSize(size);
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        await after.screenshot({ path: screenPath(name) });
      }
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
