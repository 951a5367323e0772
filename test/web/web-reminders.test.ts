// The visit reminders' settings on an agent's YCLIENTS section in chromium (issue 42 point 1): hours before
// the visit and the salon's quiet hours, checked in the page with the server's schema, saved, read back
// after a reload; at 1280 and 390 px nothing is wider than the window.
// Screenshots: test-artifacts/screens/reminders-desktop|phone.png.
import { expect, test } from 'bun:test';
import { call } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS } from '../helpers/browser';
import { atBothWidths, type BookingPage, openBookingSection, useBookingPage } from '../helpers/booking-page';

const browserSuite = browserDescribe('web-reminders.test.ts');
let s: BookingPage;

browserSuite('visit reminder settings', () => {
  useBookingPage(['reminders-desktop', 'reminders-phone'], (setup) => {
    s = setup;
  });

  test(
    'defaults shown; a wrong value refused in Russian before any request; saved and read back; both widths',
    async () => {
      const { app, page, pageErrors, yc } = s;
      const { token, settingsUrl, booking } = await openBookingSection(s, 'reminders');
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

      await atBothWidths(page, reminders, ['reminders-desktop', 'reminders-phone']);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
