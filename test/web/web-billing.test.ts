// Money in and priced right, on the dashboard page in a real browser (Debian's chromium, driven by
// playwright-core) against the real app wired to the fake YooKassa and the fake model upstream: a top-up
// from the amount to YooKassa's payment page and back to the return page, which waits for the payment
// and shows the new balance; a canceled one with its reason; the history; keys with a spend limit, its
// period and an expiry, created and changed in the page; and the usage tables with the prompt and the
// completion priced apart. Screenshots: test-artifacts/screens/billing-*.png.
import { expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { formatDateTime, formatMoney } from '../../web/src/shared/format';
import type { FakeYookassa } from '../fakes/yookassa';
import { call, uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, DESKTOP, FLOW_TIMEOUT_MS, horizontalOverflow, PHONE, registerThroughPage, screenPath, sessionToken } from '../helpers/browser';
import { payThroughForm, useCheckoutApp } from '../helpers/checkout';
import { openaiClient, setBalanceNano, settleAll } from '../helpers/gateway';

const SCREENS = ['billing-overview', 'billing-overview-phone', 'billing-return', 'billing-return-phone', 'billing-keys', 'billing-keys-phone'] as const;
const browserSuite = browserDescribe('web-billing.test.ts');

let yk: FakeYookassa;
let app: TestApp;
let page: Page;
let pageErrors: string[] = [];
const user = { email: uniqueEmail('billing'), password: 'billing-secret-1' };

const appUrl = (path: string) => `${app.url}/app${path}`;
const shot = (name: (typeof SCREENS)[number]) => page.screenshot({ path: screenPath(name), fullPage: true });

const WIDE = { width: 1440, height: 900 };

/** At 1440 px and at phone width nothing is wider than the screen; the phone screenshot is taken there. */
async function phoneCheck(name: (typeof SCREENS)[number]) {
  await page.setViewportSize(WIDE);
  expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
  await page.setViewportSize(PHONE);
  await page.evaluate(() => window.scrollTo(0, 0));
  expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await shot(name);
  await page.setViewportSize(DESKTOP);
}

browserSuite('top-ups, key limits and split costs on the dashboard page in chromium', () => {
  const session = useCheckoutApp({ screens: SCREENS, ready: (s) => ({ app, page, pageErrors, yk } = s) });

  test(
    'a top-up: the amount checked by the server’s schema, YooKassa’s page, the return page waits for the payment and shows the new balance',
    async () => {
      await registerThroughPage(page, app.url, user);
      const token = await sessionToken(page);
      expect(await page.getByTestId('balance').textContent()).toBe(formatMoney(3, 'RUB', 'amount'));
      await page.getByText('Пополнений пока не было.').waitFor();

      await page.getByRole('button', { name: 'Пополнить баланс' }).click();
      const form = page.getByTestId('topup-form');
      const amount = form.getByLabel('Сумма пополнения');
      // The form opens with the focus in its field; the limits and the currency are the server's.
      expect(await amount.evaluate((el) => el === document.activeElement)).toBe(true);
      expect(await form.textContent()).toContain(formatMoney(10, 'RUB', 'amount'));
      expect(await form.textContent()).toContain(formatMoney(100_000, 'RUB', 'amount'));
      expect(await form.textContent()).toContain('₽');

      // Refused in the page with the server's own messages, before any payment is created.
      await amount.fill('5');
      await form.getByRole('button', { name: 'Перейти к оплате' }).click();
      await form.getByText('должна быть от 10,00\u00a0₽ до 100\u202f000,00\u00a0₽').waitFor();
      await amount.fill('10,555');
      await form.getByRole('button', { name: 'Перейти к оплате' }).click();
      await form.getByText('не больше двух знаков после запятой').waitFor();
      expect(yk.count('POST')).toBe(0);

      // The browser leaves for YooKassa's payment page.
      const { payment, topupId } = await payThroughForm(session, '1 500,50');
      expect(payment.amount).toEqual({ value: '1500.50', currency: 'RUB' });
      await page.getByRole('heading', { name: 'Оплата 1500.50 RUB' }).waitFor();

      // Back before paying: the return page waits for the outcome.
      await page.getByRole('link', { name: 'Вернуться в магазин' }).click();
      await page.waitForURL(appUrl(`/topups/${topupId}`));
      const outcome = page.getByTestId('topup-outcome');
      await outcome.getByRole('heading', { name: `Пополнение на ${formatMoney(1500.5, 'RUB', 'amount')}` }).waitFor();
      const status = page.getByTestId('topup-status');
      await status.getByText('Ждём подтверждения оплаты от ЮKassa').waitFor();
      expect(await status.textContent()).toContain('Ожидает оплаты');
      expect(await status.getAttribute('aria-live')).toBe('polite');

      // A balance with more than two decimals (paid calls leave such): 2.999988 before the top-up.
      const [owner] = await app.sql<{ id: string }>('select id from users where email = $1', [user.email]);
      await setBalanceNano(app, owner!.id, 2_999_988_000n);
      // The buyer pays; the page's next checks see it (the server re-reads the payment from YooKassa).
      yk.succeed(payment.id);
      await status.getByText('Оплачено', { exact: true }).waitFor({ timeout: 15_000 });
      expect(await status.textContent()).toContain(`на баланс зачислено ${formatMoney(1500.5, 'RUB', 'amount')}`);
      const balance = await call<{ balance: number }>(app.url, 'GET', '/api/balance', { token });
      expect(balance.body.balance).toBe(1503.499988);
      // A balance reads with two decimals here as on the overview («1 503,50 ₽», not «1 503,499988 ₽»).
      expect(await page.getByTestId('topup-balance').textContent()).toBe('1\u202f503,50\u00a0₽');
      await shot('billing-return');
      await phoneCheck('billing-return-phone');

      // The history on the overview; the balance there is the new one.
      await outcome.getByRole('link', { name: 'Вернуться к балансу' }).click();
      await page.waitForURL(appUrl('/'));
      await page
        .getByTestId('balance')
        .getByText(formatMoney(1503.5, 'RUB', 'amount'))
        .waitFor();
      const history = page.getByTestId('topups-table');
      const paidRow = history.locator(`tr[data-topup-id="${topupId}"]`);
      await paidRow.waitFor();
      expect(await paidRow.textContent()).toContain(formatMoney(1500.5, 'RUB', 'amount'));
      expect(await paidRow.textContent()).toContain('Оплачено');
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'a canceled top-up: YooKassa’s notification closes it, the return page says why, the balance stays',
    async () => {
      const token = await sessionToken(page);
      await page.getByRole('button', { name: 'Пополнить баланс' }).click();
      const { payment, topupId } = await payThroughForm(session, '200');

      yk.cancel(payment.id, 'insufficient_funds', 'payment_network');
      const notified = await yk.notify(`${app.url}/api/billing/yookassa/notifications`, payment.id);
      expect(notified.status).toBe(200);

      await page.getByRole('link', { name: 'Вернуться в магазин' }).click();
      await page.waitForURL(appUrl(`/topups/${topupId}`));
      const status = page.getByTestId('topup-status');
      await status.getByText('Отменено', { exact: true }).waitFor();
      expect(await status.textContent()).toContain('Платёж отменён: недостаточно средств для оплаты');
      expect((await call<{ balance: number }>(app.url, 'GET', '/api/balance', { token })).body.balance).toBe(1503.499988);

      // Both in the history, newest first, the statuses in Russian.
      await page.getByRole('link', { name: '← К балансу' }).click();
      const rows = page.getByTestId('topups-table').locator('tbody tr');
      await page.getByTestId('topups-table').locator(`tr[data-topup-id="${topupId}"]`).getByText('Отменено').waitFor();
      expect(await rows.count()).toBe(2);
      expect(await rows.nth(0).textContent()).toContain(formatMoney(200, 'RUB', 'amount'));
      expect(await rows.nth(0).textContent()).toContain('недостаточно средств');
      expect(await rows.nth(1).textContent()).toContain('Оплачено');
      await shot('billing-overview');
      await phoneCheck('billing-overview-phone');

      // An unknown top-up: the server's message, and the way back.
      await page.goto(appUrl('/topups/00000000-0000-4000-8000-000000000000'));
      await page.getByText('Пополнение не найдено').waitFor();
      await page.getByRole('link', { name: 'Вернуться к балансу' }).waitFor();
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'keys: a spend limit with its period and an expiry, created and changed in the page; the list shows limit, spend and expiry',
    async () => {
      const token = await sessionToken(page);
      await page.goto(appUrl('/keys'));
      const form = page.getByTestId('new-key-form');
      await form.getByLabel('Название').fill('Лимитный ключ');
      await form.getByLabel('Лимит расходов').fill('2000000000');
      await form.getByRole('button', { name: 'Создать ключ' }).click();
      await form.getByText('Лимит расходов не может превышать 1 000 000 000').waitFor();
      await form.getByLabel('Лимит расходов').fill('150,5');
      await form.getByLabel('Период лимита').selectOption({ label: 'в сутки' });
      // The expiry as the browser's datetime-local field takes it: local time, to the minute.
      const { local, iso } = await page.evaluate(() => {
        const d = new Date(Date.now() + 30 * 86_400_000);
        d.setSeconds(0, 0);
        const pad = (n: number) => String(n).padStart(2, '0');
        return { local: `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`, iso: d.toISOString() };
      });
      await form.getByLabel('Действует до').fill(local);
      await form.getByRole('button', { name: 'Создать ключ' }).click();
      const key = (await page.getByTestId('new-key-value').textContent())!;

      const table = page.getByTestId('keys-table');
      const row = table.locator('tbody tr', { hasText: 'Лимитный ключ' });
      await row.waitFor();
      expect(await row.getByTestId('key-limit').textContent()).toBe(`${formatMoney(150.5, 'RUB', 'amount')} в сутки`);
      expect(await row.getByTestId('key-spent').textContent()).toContain(formatMoney(0, 'RUB', 'cost'));
      expect(await row.getByTestId('key-expiry').textContent()).toBe(formatDateTime(iso));
      let listed = (await call(app.url, 'GET', '/api/keys', { token })).body.keys.find((k: { name: string }) => k.name === 'Лимитный ключ');
      expect(listed).toMatchObject({ spendLimit: 150.5, limitReset: 'day', expiresAt: iso, expired: false });

      // A call with the key: its spend in the period shows in the list.
      await openaiClient(app, key).chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет' }] });
      await settleAll(app);
      listed = (await call(app.url, 'GET', '/api/keys', { token })).body.keys.find((k: { name: string }) => k.name === 'Лимитный ключ');
      expect(listed.spentThisPeriod).toBeGreaterThan(0);
      await page.reload();
      // The spend reads like every cost on the page: the currency, three significant digits, every digit on hover.
      await row
        .getByTestId('key-spent')
        .getByText(formatMoney(listed.spentThisPeriod, 'RUB', 'cost'))
        .waitFor();
      const spent = row.getByTestId('key-spent').locator('.money');
      expect(Number(await spent.getAttribute('data-exact'))).toBe(listed.spentThisPeriod);
      const title = await spent.getAttribute('title');
      if (title !== null) expect(title).toContain(formatMoney(listed.spentThisPeriod, 'RUB', 'exact'));

      // The change dialog: Escape closes it and gives the focus back to its button.
      const edit = page.getByRole('button', { name: 'Изменить ключ «Лимитный ключ»' });
      await edit.click();
      const dialog = page.getByRole('dialog', { name: 'Изменить ключ «Лимитный ключ»' });
      await dialog.waitFor();
      expect(await dialog.getByLabel('Лимит расходов').inputValue()).toBe('150,5');
      expect(await dialog.getByLabel('Действует до').inputValue()).toBe(local);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      expect(await edit.evaluate((el) => el === document.activeElement)).toBe(true);

      // New name, limit and period; the expiry removed.
      await edit.click();
      await dialog.getByLabel('Название ключа').fill('Ключ с лимитом');
      await dialog.getByLabel('Лимит расходов').fill('-1');
      await dialog.getByRole('button', { name: 'Сохранить' }).click();
      await dialog.getByText('Лимит расходов не может быть отрицательным').waitFor();
      await dialog.getByLabel('Лимит расходов').fill('75');
      await dialog.getByLabel('Период лимита').selectOption({ label: 'в месяц' });
      await dialog.getByLabel('Действует до').fill('');
      await dialog.getByRole('button', { name: 'Сохранить' }).click();
      await page.getByText('Ключ «Ключ с лимитом» сохранён').waitFor();
      const renamed = table.locator('tbody tr', { hasText: 'Ключ с лимитом' });
      await renamed
        .getByTestId('key-limit')
        .getByText(`${formatMoney(75, 'RUB', 'amount')} в месяц`)
        .waitFor();
      expect(await renamed.getByTestId('key-expiry').textContent()).toBe('бессрочно');
      listed = (await call(app.url, 'GET', '/api/keys', { token })).body.keys.find((k: { id: string }) => k.id === listed.id);
      expect(listed).toMatchObject({ name: 'Ключ с лимитом', spendLimit: 75, limitReset: 'month', expiresAt: null });
      await shot('billing-keys');

      // An emptied limit removes it.
      await page.getByRole('button', { name: 'Изменить ключ «Ключ с лимитом»' }).click();
      await page.getByRole('dialog', { name: 'Изменить ключ «Ключ с лимитом»' }).getByLabel('Лимит расходов').fill('');
      await page.getByRole('dialog').getByRole('button', { name: 'Сохранить' }).click();
      await renamed.getByTestId('key-limit').getByText('без лимита').waitFor();
      expect((await call(app.url, 'GET', '/api/keys', { token })).body.keys.find((k: { id: string }) => k.id === listed.id).spendLimit).toBeNull();

      // A key past its expiry says so.
      await app.sql(`update api_keys set expires_at = now() - interval '1 hour' where id = $1`, [listed.id]);
      await page.reload();
      await renamed.getByTestId('key-state').getByText('Истёк', { exact: true }).waitFor();
      expect(await renamed.textContent()).not.toContain('Активен');
      await phoneCheck('billing-keys-phone');
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'usage: the latest requests show the prompt and the completion priced apart',
    async () => {
      const token = await sessionToken(page);
      const usage = await call(app.url, 'GET', '/api/usage?limit=1', { token });
      const record = usage.body.data[0] as { promptCost: number; completionCost: number; cost: number; unpaid: number };
      expect(record.promptCost).toBeGreaterThan(0);
      expect(record.unpaid).toBe(0);
      await page.goto(appUrl('/'));
      const recent = page.getByTestId('recent-requests');
      await recent.getByText('acme/chat').waitFor();
      const headers = await recent.locator('thead th').allTextContents();
      expect(headers).toEqual(expect.arrayContaining(['Цена запроса', 'Цена ответа', 'Списано']));
      expect(headers).not.toContain('Не оплачено');
      const cells = await recent.locator('tbody tr').first().locator('td').allTextContents();
      expect(cells).toEqual(
        expect.arrayContaining([
          formatMoney(record.promptCost, 'RUB', 'cost'),
          formatMoney(record.completionCost, 'RUB', 'cost'),
          formatMoney(record.cost, 'RUB', 'cost'),
        ]),
      );
      expect(await page.getByTestId('usage-totals').textContent()).toContain('Запросы (вход)');

      for (const name of SCREENS) expect(statSync(screenPath(name)).size).toBeGreaterThan(1000);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
