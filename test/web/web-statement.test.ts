// The statement of account, the monthly documents, the account page and the operator's requisites in a
// real browser against the real app (issue 33, points 7, 8, 13): the site root sends a browser to the
// dashboard, the login page names support, a blocked user is told whom to contact, the account page shows
// the e-mail with its state and next step, the customer's requisites, the «Выписка» screen lists every
// movement with the running balance, the CSV and the PDFs download (the act's text is read back), and the
// admin's «Реквизиты» tab saves the operator's company. Every screen at 1280 px and 390 px with nothing
// wider than the window. Screenshots: test-artifacts/screens/statement-desktop.png, statement-phone.png.
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { extractText, getDocumentProxy } from 'unpdf';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, grantAdmin, registerUser, uniqueEmail, type TestApp } from '../helpers/app';
import {
  browserDescribe,
  DESKTOP,
  FLOW_TIMEOUT_MS,
  horizontalOverflow,
  openPage,
  PHONE,
  registerThroughPage,
  screenPath,
  sessionToken,
  useBrowserApp,
} from '../helpers/browser';
import { openaiClient, settleAll } from '../helpers/gateway';

const SCREENS = ['statement-desktop', 'statement-phone', 'account-profile-phone', 'admin-requisites-phone'] as const;
const browserSuite = browserDescribe('web-statement.test.ts');
const SUPPORT = 'help@conduit.example';
const ADMIN_EMAIL = uniqueEmail('web-statement-admin');

let app: TestApp;
let upstream: FakeUpstream;
let page: Page;
let pageErrors: string[] = [];
const user = { email: uniqueEmail('web-statement'), password: 'statement-secret-1' };
/** The documents' months are Moscow's (UTC+3 all year). */
const thisMonth = () => new Date(Date.now() + 3 * 3_600_000).toISOString().slice(0, 7);

/** Both widths: nothing wider than the window. */
async function fitsBothWidths(p: Page): Promise<void> {
  for (const size of [DESKTOP, PHONE]) {
    await p.setViewportSize(size);
    expect({ size: size.width, overflow: await horizontalOverflow(p) }).toEqual({ size: size.width, overflow: 0 });
  }
  await p.setViewportSize(DESKTOP);
}

browserSuite('the statement, the documents, the account page and the requisites in chromium', () => {
  const session = useBrowserApp({
    screens: SCREENS,
    before: async () => {
      upstream = await startFakeUpstream();
    },
    app: () => ({ env: { UPSTREAM_BASE_URL: upstream.url, SUPPORT_CONTACT: SUPPORT, ADMIN_EMAILS: ADMIN_EMAIL, TOKEN_PRICE: '0.05' } }),
    ready: (s) => ({ app, page, pageErrors } = s),
    after: () => upstream?.close(),
  });

  test(
    'the site root leads to the dashboard; the login page names support; a blocked user is told whom to contact',
    async () => {
      await page.goto(`${app.url}/`);
      await page.getByRole('link', { name: 'Войти' }).click();
      await page.waitForURL(`${app.url}/app/login`);
      const support = page.getByTestId('support-line');
      await support.getByText(SUPPORT).waitFor();
      expect(await support.getByRole('link', { name: SUPPORT }).getAttribute('href')).toBe(`mailto:${SUPPORT}`);
      await fitsBothWidths(page);

      const admin = await registerUser(app.url, ADMIN_EMAIL);
      await grantAdmin(app, ADMIN_EMAIL);
      const blocked = await registerUser(app.url);
      expect((await call(app.url, 'POST', `/api/admin/users/${blocked.userId}/block`, { token: admin.token })).status).toBe(200);
      await page.getByLabel('E-mail').fill(blocked.email);
      await page.getByLabel('Пароль').fill(blocked.password);
      await page.getByRole('button', { name: 'Войти' }).click();
      await page.getByRole('alert').getByText(`Учётная запись заблокирована: обратитесь в поддержку — ${SUPPORT}`).waitFor();
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    "the account page: e-mail with its state and next step, the statement link, support, the customer's requisites",
    async () => {
      await registerThroughPage(page, app.url, user);
      await page.getByRole('link', { name: 'Аккаунт' }).click();
      const profile = page.getByTestId('profile');
      await profile.getByTestId('profile-email').getByText(user.email).waitFor();
      await profile.getByTestId('profile-email-state').getByText('не подтверждён').waitFor();
      await profile.getByTestId('verify-hint').getByRole('button', { name: 'Отправить письмо ещё раз' }).waitFor();
      await profile.getByTestId('profile-support').getByRole('link', { name: SUPPORT }).waitFor();

      const requisites = page.getByTestId('customer-requisites');
      await requisites.getByLabel('Название организации').fill('ООО «Ромашка»');
      await requisites.getByLabel('ИНН').fill('77');
      await requisites.getByRole('button', { name: 'Сохранить реквизиты' }).click();
      await requisites.getByText('ИНН: 10 цифр у организации или 12 у ИП').waitFor();
      await requisites.getByLabel('ИНН').fill('7712345678');
      await requisites.getByLabel('КПП').fill('77120100');
      await requisites.getByRole('button', { name: 'Сохранить реквизиты' }).click();
      await requisites.getByText('КПП: 9 цифр').waitFor();
      await requisites.getByLabel('КПП').fill('771201001');
      await requisites.getByLabel('Адрес').fill('г. Москва, ул. Тверская, д. 1');
      await requisites.getByRole('button', { name: 'Сохранить реквизиты' }).click();
      await requisites.getByRole('status').getByText('Сохранено').waitFor();
      const token = await sessionToken(page);
      expect((await call(app.url, 'GET', '/api/account/requisites', { token })).body).toEqual({
        companyName: 'ООО «Ромашка»',
        inn: '7712345678',
        kpp: '771201001',
        address: 'г. Москва, ул. Тверская, д. 1',
      });

      await fitsBothWidths(page);
      await page.setViewportSize(PHONE);
      await profile.screenshot({ path: screenPath('account-profile-phone') });
      await page.setViewportSize(DESKTOP);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    "the statement: every movement with the running balance, the CSV; documents wait for the operator's requisites, then download",
    async () => {
      const token = await sessionToken(page);
      const me = (await call(app.url, 'GET', '/api/auth/me', { token })).body.user;
      const admin = (await call(app.url, 'POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: 'secret123' } })).body;
      expect(
        (
          await call(app.url, 'POST', `/api/admin/users/${me.id}/credit`, {
            token: admin.token,
            body: { amount: 250, reason: 'Возврат за сбой', reference: `web-${me.id}` },
          })
        ).status,
      ).toBe(200);
      const { key } = await createApiKey(app.url, token);
      const client = openaiClient(app, key);
      for (let i = 0; i < 2; i++) await client.chat.completions.create({ model: 'fake/chat', messages: [{ role: 'user', content: `вопрос ${i}` }], max_tokens: 16 });
      await settleAll(app);

      await page.getByTestId('statement-link').click();
      await page.waitForURL(`${app.url}/app/statement`);
      const statement = page.getByTestId('statement');
      const table = statement.getByTestId('statement-table');
      await table.waitFor();
      expect(await table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-kind')))).toEqual([
        'registration_bonus',
        'admin_credit',
        'usage',
      ]);
      await table.locator('tr[data-kind="admin_credit"]').getByText('Возврат за сбой').waitFor();
      await table.locator('tr[data-kind="usage"]').getByText('2 запроса').waitFor();
      const balance = (await call(app.url, 'GET', '/api/balance', { token })).body.balance as number;
      const closing = (await statement.getByTestId('statement-closing').textContent())!.replace(/\s/g, '');
      expect(closing).toBe(
        `${balance
          .toFixed(2)
          .replace('.', ',')
          .replace(/\B(?=(\d{3})+(?!\d))/g, '')}₽`,
      );

      const [csv] = await Promise.all([page.waitForEvent('download'), statement.getByTestId('statement-csv').click()]);
      expect(csv.suggestedFilename()).toMatch(/^conduit-statement-\d{4}-\d{2}-01-\d{4}-\d{2}-\d{2}\.csv$/);
      const csvText = readFileSync((await csv.path())!, 'utf8');
      expect(csvText).toContain('admin_credit,Начисление оператора,Возврат за сбой,250.000000000');

      // Without the operator's requisites the documents say so.
      const documents = page.getByTestId('documents');
      await documents.getByTestId('documents-unavailable').waitFor();
      await documents.locator(`tr[data-month="${thisMonth()}"]`).getByText('текущий месяц').waitFor();
      await fitsBothWidths(page);

      // The operator saves the requisites in the admin console (a second browser context).
      const adminSide = await openPage(session.browser);
      await adminSide.page.goto(`${app.url}/app/login`);
      await adminSide.page.getByLabel('E-mail').fill(ADMIN_EMAIL);
      await adminSide.page.getByLabel('Пароль').fill('secret123');
      await adminSide.page.getByRole('button', { name: 'Войти' }).click();
      await adminSide.page.waitForURL(`${app.url}/app/`);
      await adminSide.page.getByRole('link', { name: 'Администрирование' }).click();
      await adminSide.page.getByRole('link', { name: 'Реквизиты' }).click();
      await adminSide.page.waitForURL(`${app.url}/app/admin/requisites`);
      const form = adminSide.page.getByTestId('operator-requisites');
      await form.getByText('Пока реквизиты не сохранены').waitFor();
      const values: Record<string, string> = {
        'Название организации': 'ООО «Кондуит»',
        ИНН: '7701234567',
        КПП: '770101001',
        ОГРН: '1027700132195',
        Адрес: 'г. Москва, Пресненская наб., д. 10',
        Банк: 'АО «Тестбанк»',
        БИК: '04452522',
        'Расчётный счёт': '40702810400000012345',
        'Корреспондентский счёт': '30101810400000000225',
        'Строка об НДС': 'Без НДС (УСН)',
      };
      for (const [label, value] of Object.entries(values)) await form.getByLabel(label, { exact: true }).fill(value);
      await form.getByRole('button', { name: 'Сохранить реквизиты' }).click();
      await form.getByText('БИК: 9 цифр').waitFor();
      await form.getByLabel('БИК', { exact: true }).fill('044525225');
      await form.getByRole('button', { name: 'Сохранить реквизиты' }).click();
      await form.getByRole('status').getByText('Сохранено').waitFor();
      const audit = await call(app.url, 'GET', '/api/admin/audit?limit=5', { token: admin.token });
      expect(audit.body.data.some((e: { action: string }) => e.action === 'requisites.update')).toBe(true);
      await fitsBothWidths(adminSide.page);
      await adminSide.page.setViewportSize(PHONE);
      await form.screenshot({ path: screenPath('admin-requisites-phone') });
      expect(adminSide.pageErrors).toEqual([]);
      await adminSide.context.close();

      // The month ends: the monthly job, run as at 01:00 in Moscow on the next month's first day, issues its акт.
      const [year, month] = [Number(thisMonth().slice(0, 4)), Number(thisMonth().slice(5))];
      await app.instance.services.statement.closingJob.runOnce(new Date(Date.UTC(year, month, 1) - 2 * 3_600_000));
      const issued = (await call(app.url, 'GET', '/api/account/documents', { token })).body.months[0].documents[0];

      // Back on the user's statement: the issued act downloads, and its text names both parties and the total.
      await page.reload();
      const row = documents.locator(`tr[data-month="${thisMonth()}"]`);
      const button = row.getByRole('button', { name: `Акт № ${issued.number}, PDF` });
      await button.waitFor();
      expect(await documents.getByTestId('documents-unavailable').count()).toBe(0);
      const [act] = await Promise.all([page.waitForEvent('download'), button.click()]);
      expect(act.suggestedFilename()).toBe(`akt-${issued.number}-${year}.pdf`);
      const pdf = await getDocumentProxy(new Uint8Array(readFileSync((await act.path())!)));
      const text = (await extractText(pdf, { mergePages: true })).text.replace(/[\s\u00a0]+/g, ' ').replace(/\u2011/g, '-');
      expect(text).toContain('Исполнитель: ООО «Кондуит», ИНН 7701234567, КПП 770101001, г. Москва, Пресненская наб., д. 10, ОГРН 1027700132195');
      expect(text).toContain(`Заказчик: ООО «Ромашка», ИНН 7712345678, КПП 771201001, г. Москва, ул. Тверская, д. 1, e-mail ${user.email}`);
      expect(text).toContain('2 запроса');
      expect(text).toMatch(/Руководитель _+ \/ _+ \/ М\.П\./);

      await page.setViewportSize(DESKTOP);
      expect(await horizontalOverflow(page)).toBe(0);
      await page.screenshot({ path: screenPath('statement-desktop'), fullPage: true });
      await page.setViewportSize(PHONE);
      expect(await horizontalOverflow(page)).toBe(0);
      await page.screenshot({ path: screenPath('statement-phone'), fullPage: true });
      await page.setViewportSize(DESKTOP);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS * 2,
  );
});
