// «Выставить счёт» on the «Выписка» screen in chromium (issue 41 point 6): until the operator has set the
// requisites the section says a счёт cannot be issued yet; then an amount outside the limits is refused under
// the field in the server's words, 1 234,56 issues a numbered счёт that appears in the list, and its PDF
// downloads with the amount in words, the bank block and both signature lines. At 1280×800 and 390×844 nothing
// is wider than the window. Screenshots of the section: test-artifacts/screens/invoices-desktop|phone.png.
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { extractText, getDocumentProxy } from 'unpdf';
import { call, registerAdmin, uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS, horizontalOverflow, PHONE, registerThroughPage, screenPath, sessionToken, useBrowserApp } from '../helpers/browser';
import { OPERATOR_REQUISITES } from '../helpers/requisites';

const SCREENS = ['invoices-desktop', 'invoices-phone'] as const;
const DESKTOP_800 = { width: 1280, height: 800 };
const ADMIN_EMAIL = uniqueEmail('web-invoices-admin');
const REQUISITES = OPERATOR_REQUISITES;
const browserSuite = browserDescribe('web-invoices.test.ts');

let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

browserSuite('«Выставить счёт» on the statement screen', () => {
  useBrowserApp({ screens: SCREENS, app: () => ({ env: { ADMIN_EMAILS: ADMIN_EMAIL } }), ready: (s) => ({ app, page, pageErrors } = s) });

  test(
    'waits for the requisites; refuses a bad amount; issues a счёт for 1 234,56 and downloads its PDF; both widths',
    async () => {
      const user = { email: uniqueEmail('web-invoices'), password: 'invoices-secret-1' };
      await page.setViewportSize(DESKTOP_800);
      await registerThroughPage(page, app.url, user);
      await page.goto(`${app.url}/app/statement`);
      const section = page.getByRole('region', { name: 'Счета на оплату' });
      await section.getByTestId('invoices-unavailable').waitFor();
      expect(await section.getByRole('button', { name: 'Выставить счёт' }).count()).toBe(0);

      const admin = await registerAdmin(app, ADMIN_EMAIL);
      expect((await call(app.url, 'PUT', '/api/admin/requisites', { token: admin.token, body: REQUISITES })).status).toBe(200);
      await page.reload();
      const form = section.getByRole('form', { name: 'Выставить счёт' });
      const amount = form.getByLabel('Сумма счёта, ₽');
      await amount.waitFor();
      await section.getByText('Счетов пока не было.').waitFor();

      // Below the least amount, and three decimals: refused under the field before anything is sent.
      for (const bad of ['50', '1234,567']) {
        await amount.fill(bad);
        await form.getByRole('button', { name: 'Выставить счёт' }).click();
        await form
          .getByRole('alert')
          .getByText(/сумма счёта — от 100 до 10\s000\s000, не больше двух знаков после запятой/)
          .waitFor();
      }
      const token = await sessionToken(page);
      expect((await call(app.url, 'GET', '/api/account/invoices', { token })).body.invoices).toEqual([]);
      // A счёт names its buyer: the customer's company and ИНН first.
      const buyer = { companyName: 'ООО «Ромашка»', inn: '7712345678', kpp: '771201001', address: '125009, г. Москва, ул. Тверская, д. 1' };
      expect((await call(app.url, 'PUT', '/api/account/requisites', { token, body: buyer })).status).toBe(200);

      await amount.fill('1 234,56');
      await form.getByRole('button', { name: 'Выставить счёт' }).click();
      const issued = section.getByTestId('invoice-issued');
      await issued.waitFor();
      const [invoice] = (await call(app.url, 'GET', '/api/account/invoices', { token })).body.invoices;
      expect(invoice).toMatchObject({ amount: 1234.56, currency: 'RUB' });
      expect(await issued.textContent()).toContain(`Счёт № ${invoice.number} выставлен`);
      expect(await amount.inputValue()).toBe('');
      const row = section.locator(`tr[data-number="${invoice.number}"]`);
      await row.getByText(/1\s234,56\s₽/).waitFor();

      const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: 'Счёт, PDF' }).click()]);
      expect(download.suggestedFilename()).toBe(`conduit-schet-${invoice.number}.pdf`);
      const pdf = await getDocumentProxy(new Uint8Array(readFileSync((await download.path())!)));
      const text = (await extractText(pdf, { mergePages: true })).text.replace(/[\s\u00a0]+/g, ' ');
      expect(text).toContain(`${REQUISITES.bankName} БИК ${REQUISITES.bik} Сч. № ${REQUISITES.correspondentAccount} Банк получателя`);
      expect(text).toContain(`Счёт на оплату № ${invoice.number} от`);
      expect(text).toContain('Всего к оплате: 1 234,56');
      expect(text).toContain('Одна тысяча двести тридцать четыре рубля 56 копеек');
      expect(text).toContain('Руководитель');
      expect(text).toContain('Бухгалтер');

      for (const [size, name] of [
        [DESKTOP_800, 'invoices-desktop'],
        [PHONE, 'invoices-phone'],
      ] as const) {
        await page.setViewportSize(size);
        expect({ width: size.width, overflow: await horizontalOverflow(page) }).toEqual({ width: size.width, overflow: 0 });
        await section.screenshot({ path: screenPath(name) });
      }
      // On the phone the form still works: a second счёт, listed first.
      await amount.fill('500');
      await form.getByRole('button', { name: 'Выставить счёт' }).click();
      await section.locator(`tr[data-number="${invoice.number + 1}"]`).waitFor();
      expect(await section.locator('tbody tr').first().getAttribute('data-number')).toBe(String(invoice.number + 1));
      expect(await horizontalOverflow(page)).toBe(0);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
