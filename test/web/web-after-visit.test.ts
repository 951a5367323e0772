// «После визита» on an agent's YCLIENTS section in chromium (issue 42 point 2): the review request's delay,
// the salon's review page, «записаться снова» per service and «мы вас ждали», checked in the page (the link
// with the server's schema), saved, read back after a reload; at 1280 and 390 px nothing is wider than the window.
// Screenshots: test-artifacts/screens/after-visit-desktop|phone.png.
import { expect, test } from 'bun:test';
import { call } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS } from '../helpers/browser';
import { atBothWidths, type BookingPage, openBookingSection, useBookingPage } from '../helpers/booking-page';

const browserSuite = browserDescribe('web-after-visit.test.ts');
let s: BookingPage;

browserSuite('after-visit settings', () => {
  useBookingPage(['after-visit-desktop', 'after-visit-phone'], (setup) => {
    s = setup;
  });

  test(
    '«После визита»: defaults shown; a wrong link refused before any request; saved and read back; both widths',
    async () => {
      const { app, page, pageErrors, yc } = s;
      const { token, settingsUrl, booking } = await openBookingSection(s, 'after-visit');
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

      await atBothWidths(page, after, ['after-visit-desktop', 'after-visit-phone']);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
