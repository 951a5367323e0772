// The client-matching switch on an agent's YCLIENTS section in chromium (issue 42 point 4): off by default, with
// the line that says what it trusts (an unverified phone and a name) and what that risks; switched on, saved,
// read back after a reload; at 1280 and 390 px nothing is wider than the window.
// Screenshots: test-artifacts/screens/client-matching-desktop|phone.png.
import { expect, test } from 'bun:test';
import { call } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS } from '../helpers/browser';
import { atBothWidths, type BookingPage, openBookingSection, useBookingPage } from '../helpers/booking-page';

const browserSuite = browserDescribe('web-client-matching.test.ts');
let s: BookingPage;

browserSuite('client matching switch', () => {
  useBookingPage(['client-matching-desktop', 'client-matching-phone'], (setup) => {
    s = setup;
  });

  test(
    'off by default with what it trusts said; switched on, saved and read back; both widths',
    async () => {
      const { app, page, pageErrors } = s;
      const { token, settingsUrl, booking } = await openBookingSection(s, 'matching');
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

      await atBothWidths(page, booking, ['client-matching-desktop', 'client-matching-phone']);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
