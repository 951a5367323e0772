// The operator's «Банковские выписки» (issue 44, point 4) in a real browser: the Windows-1251 statement uploaded
// through the page, the proposed match ticked and «Зачислить» pressed (the customer's balance grows by it), the
// short payment assigned by hand to its счёт, the unknown payer's set aside with a reason, a счёт «Отметить
// оплаченным»; the НДС rate chosen in «Реквизиты». At 1280×800 and 390×844 with nothing wider than the window.
// Screenshots: test-artifacts/screens/bank-statements-desktop|phone.png.
import { expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { call, registerUser, uniqueEmail, type TestApp } from '../helpers/app';
import { fixtureStatement } from '../helpers/bank';
import { browserDescribe, FLOW_TIMEOUT_MS, horizontalOverflow, PHONE, screenPath, sessionToken, signInAsOperator, useBrowserApp } from '../helpers/browser';
import { OPERATOR_REQUISITES } from '../helpers/requisites';

const SCREENS = ['bank-statements-desktop', 'bank-statements-phone'] as const;
const browserSuite = browserDescribe('web-bank-statements.test.ts');
const DESKTOP_800 = { width: 1280, height: 800 };
const admin = { email: uniqueEmail('bank-web'), password: 'bank-secret-1' };
const ROMASHKA = { companyName: 'ООО «Ромашка»', inn: '7712345678', kpp: '771201001', address: 'Москва' };
const SOKOLOVA = { companyName: 'ИП Соколова И. П.', inn: '500100732259', kpp: '', address: 'Химки' };

let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

browserSuite('bank statements in the console in chromium', () => {
  useBrowserApp({
    screens: SCREENS,
    app: () => ({ env: { ADMIN_EMAILS: admin.email } }),
    ready: (s) => ({ app, page, pageErrors } = s),
  });

  test(
    'upload, tick the match and credit it; assign and ignore the unmatched; mark a счёт paid; choose the НДС rate; both widths',
    async () => {
      await page.setViewportSize(DESKTOP_800);
      await signInAsOperator(page, app, admin);
      const token = await sessionToken(page);

      // «Реквизиты»: the НДС rate is a choice in the form, saved with the rest.
      await page.goto(`${app.url}/app/admin/requisites`);
      const requisites = page.getByTestId('operator-requisites');
      for (const [name, value] of Object.entries(OPERATOR_REQUISITES)) await requisites.locator(`[name="${name}"]`).fill(value);
      await requisites.getByLabel('Ставка НДС').selectOption('22');
      await requisites.getByRole('button', { name: 'Сохранить реквизиты' }).click();
      await page.waitForFunction(() => document.body.textContent?.includes('Изменены'));
      expect((await call(app.url, 'GET', '/api/admin/requisites', { token })).body.requisites.vatRate).toBe(22);

      const romashka = await registerUser(app.url);
      const sokolova = await registerUser(app.url);
      expect((await call(app.url, 'PUT', '/api/account/requisites', { token: romashka.token, body: ROMASHKA })).status).toBe(200);
      expect((await call(app.url, 'PUT', '/api/account/requisites', { token: sokolova.token, body: SOKOLOVA })).status).toBe(200);
      const issue = async (t: string, amount: number) => (await call(app.url, 'POST', '/api/account/invoices', { token: t, body: { amount } })).body.number as number;
      const match = await issue(romashka.token, 15000);
      const short = await issue(sokolova.token, 5000);
      const manual = await issue(romashka.token, 700);
      const file = join(tmpdir(), `kl_to_1c-${Date.now()}.txt`);
      writeFileSync(
        file,
        fixtureStatement({
          OPERATOR_ACCOUNT: OPERATOR_REQUISITES.account,
          TOTAL_IN: '0.00',
          CLOSING: '0.00',
          MATCH_AMOUNT: '15000.00',
          MATCH_INN: ROMASHKA.inn,
          MATCH_INVOICE: String(match),
          SHORT_AMOUNT: '4999.00',
          SHORT_INN: SOKOLOVA.inn,
          SHORT_INVOICE: String(short),
        }),
      );
      const balance = async (t: string) => (await call(app.url, 'GET', '/api/balance', { token: t })).body.balance as number;
      const before = { romashka: await balance(romashka.token), sokolova: await balance(sokolova.token) };

      await page.goto(`${app.url}/app/admin/bank`);
      const upload = page.getByTestId('bank-upload');
      await upload.getByLabel('Файл выписки').setInputFiles(file);
      await upload.getByRole('button', { name: 'Загрузить' }).click();
      const summary = page.getByTestId('bank-import-summary');
      await summary.getByText('входящих платежей: 3').waitFor();
      const payments = page.getByTestId('bank-import-payments');
      expect(await payments.locator('tr[data-payment="77"]').textContent()).toContain('Сумма платежа не равна сумме счёта');
      expect(await payments.locator('tr[data-payment="3091"]').textContent()).toContain('Плательщик неизвестен');
      const tick = payments.getByRole('checkbox', { name: 'Зачислить платёж № 512' });
      expect(await tick.isChecked()).toBe(true);
      await upload.getByRole('button', { name: 'Зачислить' }).last().click();
      await summary.getByText('Зачислено платежей: 1.').waitFor();
      expect(await balance(romashka.token)).toBe(before.romashka + 15000);

      const unmatched = page.getByTestId('bank-unmatched');
      const shortRow = unmatched.locator('tr[data-payment="77"]');
      await shortRow.waitFor();
      expect(await shortRow.getByLabel('Счёт № или ID учётной записи').inputValue()).toBe(String(short));
      await page.screenshot({ path: screenPath('bank-statements-desktop'), fullPage: true });
      expect(await horizontalOverflow(page)).toBe(0);
      await shortRow.getByRole('button', { name: 'Зачислить' }).click();
      await shortRow.waitFor({ state: 'detached' });
      expect(await balance(sokolova.token)).toBe(before.sokolova + 4999);
      const unknownRow = unmatched.locator('tr[data-payment="3091"]');
      await unknownRow.getByLabel('Причина').fill('Чужой платёж, вернуть');
      await unknownRow.getByRole('button', { name: 'Отклонить' }).click();
      await unmatched.getByText('Несопоставленных платежей нет.').waitFor();

      const invoices = page.getByTestId('bank-invoices');
      const manualRow = invoices.locator(`tr[data-invoice="${manual}"]`);
      expect(await invoices.locator(`tr[data-invoice="${match}"]`).textContent()).toContain('Оплачен 02.12.2026');
      await manualRow.getByRole('button', { name: 'Отметить оплаченным' }).click();
      await manualRow.getByText(/^Оплачен \d\d\.\d\d\.\d{4}$/).waitFor();
      expect(await balance(romashka.token)).toBe(before.romashka + 15000 + 700);

      await page.setViewportSize(PHONE);
      await page.reload();
      await page.getByTestId('bank-invoices').locator(`tr[data-invoice="${manual}"]`).waitFor();
      expect(await horizontalOverflow(page)).toBe(0);
      await page.screenshot({ path: screenPath('bank-statements-phone'), fullPage: true });
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
