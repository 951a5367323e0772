// «Администрирование» on the dashboard page, in a real browser (Debian's chromium, driven by
// playwright-core) against the real app and the fake model upstream: hidden from a normal user (and the
// server's 403 handled), and for an admin (ADMIN_EMAILS) the users search, a user's detail, a credit with
// its reference (a double click credits once), blocking with a confirmation, the audit row, the daily
// figures, the price table and the price import with its preview. Without YooKassa the top-up stays hidden.
// Screenshots: test-artifacts/screens/admin-*.png.
import { expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { formatInt, formatMoney } from '../../web/src/shared/format';
import { ledgerReference } from '../../web/src/shared/texts';
import { DEFAULT_MODELS, startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, grantAdmin, registerUser, uniqueEmail, type TestApp } from '../helpers/app';
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
import { openaiClient, settleAll } from '../helpers/gateway';

const SCREENS = [
  'admin-users',
  'admin-users-phone',
  'admin-user',
  'admin-user-phone',
  'admin-audit',
  'admin-audit-phone',
  'admin-stats',
  'admin-stats-phone',
  'admin-prices',
  'admin-prices-phone',
] as const;
const browserSuite = browserDescribe('web-admin.test.ts');

let upstream: FakeUpstream;
let app: TestApp;
let page: Page;
let pageErrors: string[] = [];
const tag = `web${Date.now().toString(36)}`;
const admin = { email: `ops-${tag}@example.com`, password: 'admin-secret-1' };
const normal = { email: uniqueEmail('plain'), password: 'plain-secret-1' };
let target: { token: string; userId: string; email: string; password: string };

const appUrl = (path: string) => `${app.url}/app${path}`;
// Balances read with two decimals and the currency, as everywhere in the dashboard.
const rub = (value: number) => formatMoney(value, 'RUB', 'amount');
const shot = (name: (typeof SCREENS)[number]) => page.screenshot({ path: screenPath(name), fullPage: true });
const adminLink = () => page.getByRole('navigation', { name: 'Разделы' }).getByRole('link', { name: 'Администрирование' });
const section = (name: string) => page.getByRole('navigation', { name: 'Разделы администрирования' }).getByRole('link', { name });

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

const adminCredits = (reference: string) =>
  app.sql<{ amount_nano: string }>(`select amount_nano::text as amount_nano from ledger_entries where kind = 'admin_credit' and reference = $1`, [reference]);

test("a usage entry's batch reference reads in words with the Russian plural; other references stay as they are", () => {
  const words = (reference: string) => ledgerReference(reference);
  expect(['requests:1', 'requests:3', 'requests:5', 'requests:11', 'requests:21', 'requests:1500'].map(words)).toEqual([
    { words: '1 запрос' },
    { words: '3 запроса' },
    { words: '5 запросов' },
    { words: '11 запросов' },
    { words: '21 запрос' },
    { words: `${formatInt(1500)} запросов` },
  ]);
  expect(words('TICKET-7')).toEqual({ code: 'TICKET-7' });
  expect(words('requests:')).toEqual({ code: 'requests:' });
});

browserSuite('the admin console of the dashboard page in chromium', () => {
  useBrowserApp({
    screens: SCREENS,
    before: async () => {
      upstream = await startFakeUpstream();
      upstream.models = [
        ...DEFAULT_MODELS,
        { id: 'vendor/cheap', created: 1_700_000_200, owned_by: 'vendor', pricing: { prompt: '0.000001', completion: '0.000002' } },
        { id: 'vendor/odd', created: 1_700_000_300, owned_by: 'vendor', pricing: { prompt: '0.0000001234567891', completion: '0' } },
        { id: 'vendor/no-pricing', created: 1_700_000_500, owned_by: 'vendor' },
      ];
    },
    // No YooKassa here: the top-up stays hidden.
    app: () => ({ env: { ADMIN_EMAILS: admin.email, UPSTREAM_BASE_URL: upstream.url } }),
    ready: async (s) => {
      ({ app, page, pageErrors } = s);
      target = await registerUser(app.url, `client-${tag}@example.com`);
      const { key } = await createApiKey(app.url, target.token, 'ключ клиента');
      await openaiClient(app, key).chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет' }] });
      await settleAll(app);
    },
    after: () => upstream?.close(),
  });

  test(
    'a normal user sees no admin section; its address says «Нет доступа» and the server answers 403; no top-up without YooKassa',
    async () => {
      await registerThroughPage(page, app.url, normal);
      await page.getByTestId('balance').waitFor();
      await page.getByRole('heading', { name: 'Последние запросы' }).waitFor();
      expect(await page.getByRole('navigation', { name: 'Разделы' }).getByRole('link').allTextContents()).toEqual([
        'Баланс и использование',
        'API-ключи',
        'Агенты',
        'Диалоги',
        'Выписка',
        'Организация',
        'Аккаунт',
      ]);
      expect(await page.getByRole('button', { name: 'Пополнить баланс' }).count()).toBe(0);
      expect(await page.getByTestId('topup-history').count()).toBe(0);

      await page.goto(appUrl('/admin'));
      await page.getByTestId('admin-no-access').getByText('доступен только администраторам').waitFor();
      expect(await page.getByTestId('admin-users').count()).toBe(0);
      const refused = await call(app.url, 'GET', '/api/admin/users', { token: await sessionToken(page) });
      expect(refused.status).toBe(403);
      expect(refused.body.error.type).toBe('forbidden');
      await page.getByRole('button', { name: 'Выйти' }).click();
      await page.waitForURL('**/app/login');
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'an admin finds a user by e-mail, opens them, credits with a reference (once, even on a double click), blocks and unblocks them',
    async () => {
      await registerThroughPage(page, app.url, admin);
      // Registering a listed address makes no admin: the operator grants it (npm run admin:grant), and the page learns it on reload.
      await grantAdmin(app, admin.email);
      await page.reload();
      await adminLink().click();
      await page.waitForURL(appUrl('/admin'));
      await page.getByRole('heading', { name: 'Администрирование', level: 1 }).waitFor();

      const users = page.getByTestId('admin-users');
      await users.getByLabel('Поиск по e-mail').fill(`CLIENT-${tag}`);
      await users.getByRole('button', { name: 'Найти' }).click();
      const table = users.getByTestId('users-table');
      await table.locator(`tr[data-user-id="${target.userId}"]`).waitFor();
      await users.getByRole('status').getByText('Найдено на странице: 1').waitFor();
      expect(await table.locator('tbody tr').count()).toBe(1);
      const before = (await call(app.url, 'GET', '/api/balance', { token: target.token })).body.balance as number;
      const row = table.locator('tbody tr').first();
      expect(await row.textContent()).toContain(rub(before));
      expect(await row.textContent()).toContain('Пользователь');
      expect(await row.textContent()).toContain('Активен');
      await shot('admin-users');
      await phoneCheck('admin-users-phone');

      await row.getByRole('link', { name: target.email }).click();
      await page.waitForURL(appUrl(`/admin/users/${target.userId}`));
      const detail = page.getByTestId('admin-user');
      await detail.getByRole('heading', { name: target.email }).waitFor();
      expect(await page.getByTestId('admin-user-balance').textContent()).toBe(rub(before));
      expect(await page.getByTestId('admin-user-keys').textContent()).toContain('ключ клиента');
      expect(await page.getByTestId('admin-user-usage').textContent()).toContain('acme/chat');
      expect(await page.getByTestId('admin-user-ledger').textContent()).toContain('Стартовый бонус');
      // The one API request's ledger entry: its batch reference («requests:1») in words.
      const usageEntry = page.getByTestId('admin-user-ledger').locator('tr', { hasText: 'Запросы по API-ключам' });
      expect(await usageEntry.getByText('1 запрос', { exact: true }).getAttribute('title')).toBe('requests:1');

      // The credit: the reference comes prefilled (the operator may change it).
      const credit = page.getByTestId('credit-form');
      const reference = credit.getByLabel('Ссылка операции');
      const generated = await reference.inputValue();
      expect(generated).toMatch(/^manual-\d{14}-[a-z0-9]+$/);
      await credit.getByRole('button', { name: 'Провести' }).click();
      await credit.getByText('укажите ненулевую сумму').waitFor();
      await credit.getByText('укажите причину').waitFor();
      const ticket = `ticket-${tag}`;
      await credit.getByLabel('Сумма').fill('250');
      await credit.getByLabel('Причина').fill('Компенсация за сбой');
      await reference.fill(ticket);
      await credit.getByRole('button', { name: 'Провести' }).click();
      // Money moves after the confirmation (issue 33, point 11; its own test: web-operator.test.ts).
      await page.getByRole('dialog', { name: 'Начислить деньги на баланс?' }).getByRole('button', { name: 'Начислить' }).click();
      const result = credit.getByTestId('credit-result');
      await result.getByText(`Начислено ${rub(250)} (ссылка ${ticket})`).waitFor();
      expect(await result.textContent()).toContain(`Баланс: ${rub(before + 250)}`);
      await page
        .getByTestId('admin-user-balance')
        .getByText(rub(before + 250))
        .waitFor();
      // A new reference for the next operation.
      expect(await reference.inputValue()).not.toBe(ticket);
      expect(await reference.inputValue()).toMatch(/^manual-/);

      // The same reference again: the page says it was used, nothing is sent or credited.
      await credit.getByLabel('Сумма').fill('250');
      await credit.getByLabel('Причина').fill('Компенсация за сбой');
      await reference.fill(ticket);
      await credit.getByRole('button', { name: 'Провести' }).click();
      await credit.getByText('Операция с этой ссылкой уже проведена').waitFor();
      expect(await adminCredits(ticket)).toEqual([{ amount_nano: '250000000000' }]);

      // A double click on the generated reference credits once.
      await reference.fill(generated);
      await credit.getByLabel('Сумма').fill('10,5');
      await credit.getByLabel('Причина').fill('Бонус');
      await credit.getByRole('button', { name: 'Провести' }).click();
      await page.getByRole('dialog', { name: 'Начислить деньги на баланс?' }).getByRole('button', { name: 'Начислить' }).dblclick();
      await result.getByText(`Начислено ${rub(10.5)}`).waitFor();
      await page
        .getByTestId('admin-user-balance')
        .getByText(rub(before + 260.5))
        .waitFor();
      expect(await adminCredits(generated)).toEqual([{ amount_nano: '10500000000' }]);
      expect((await call(app.url, 'GET', '/api/balance', { token: target.token })).body.balance).toBeCloseTo(before + 260.5, 9);
      const ledger = page.getByTestId('admin-user-ledger');
      await ledger.getByText(ticket).waitFor();
      expect(await ledger.textContent()).toContain('Начисление или списание администратором');

      // The account's own audit rows, newest first.
      const ownAudit = page.getByTestId('audit-table');
      await ownAudit.locator('tbody tr[data-action="user.credit"]').nth(1).waitFor();
      expect(await ownAudit.locator('tbody tr').first().textContent()).toContain(generated);

      // Blocking, after a confirmation that can be cancelled.
      await detail.getByRole('button', { name: 'Заблокировать' }).click();
      const dialog = page.getByRole('dialog', { name: 'Заблокировать пользователя?' });
      await dialog.waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      await detail.getByRole('button', { name: 'Заблокировать' }).click();
      await dialog.getByRole('button', { name: 'Заблокировать' }).click();
      await detail.getByText('Пользователь заблокирован').waitFor();
      await detail.getByText('Заблокирован', { exact: true }).waitFor();
      const login = await call(app.url, 'POST', '/api/auth/login', { body: { email: target.email, password: target.password } });
      expect(login.status).toBe(403);
      await shot('admin-user');
      await phoneCheck('admin-user-phone');

      await detail.getByRole('button', { name: 'Разблокировать' }).click();
      await page.getByRole('dialog', { name: 'Снять блокировку?' }).getByRole('button', { name: 'Разблокировать' }).click();
      await detail.getByText('Блокировка снята').waitFor();
      expect((await call(app.url, 'POST', '/api/auth/login', { body: { email: target.email, password: target.password } })).status).toBe(200);
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'the audit log shows the credit with its reference; the daily figures count it',
    async () => {
      await section('Журнал действий').click();
      await page.waitForURL(appUrl('/admin/audit'));
      const audit = page.getByTestId('audit-table');
      const creditRow = audit.locator('tbody tr[data-action="user.credit"]', { hasText: `ticket-${tag}` });
      await creditRow.waitFor();
      const text = (await creditRow.textContent())!;
      expect(text).toContain('Начисление или списание');
      expect(text).toContain(admin.email);
      expect(text).toContain('Компенсация за сбой');
      expect(text).toContain('сумма: 250');
      expect(await audit.locator('tbody tr').first().getAttribute('data-action')).toBe('user.unblock');
      await creditRow.getByRole('link', { name: target.email }).waitFor();
      await shot('admin-audit');
      await phoneCheck('admin-audit-phone');

      await section('Выручка и расход').click();
      const totals = page.getByTestId('stats-totals');
      await totals.waitFor();
      expect(await totals.textContent()).toContain(`Начисления${formatMoney(260.5, 'RUB', 'cost')}`);
      expect(await totals.textContent()).toContain(`Запросов${formatInt(1)}`);
      expect(await page.getByTestId('stats-table').locator('tbody tr').count()).toBe(30);
      // A period the server refuses, refused in the page with its message.
      await page.getByLabel('Первый день').fill('2026-02-02');
      await page.getByLabel('Последний день').fill('2026-02-01');
      await page.getByRole('button', { name: 'Показать' }).click();
      await page.getByText('Период задан неверно').waitFor();
      const today = new Date().toISOString().slice(0, 10);
      await page.getByLabel('Первый день').fill(today);
      await page.getByLabel('Последний день').fill(today);
      await page.getByRole('button', { name: 'Показать' }).click();
      await page.getByTestId('stats-table').locator('tbody tr').nth(1).waitFor({ state: 'detached' });
      expect(await page.getByTestId('stats-table').locator('tbody tr').count()).toBe(1);
      await shot('admin-stats');
      await phoneCheck('admin-stats-phone');
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'prices: a row added, changed and deleted; the import previews the provider’s prices × multiplier and saves only the checked rows',
    async () => {
      await section('Цены').click();
      await page.waitForURL(appUrl('/admin/prices'));
      const prices = page.getByTestId('admin-prices');
      await prices.getByText('все модели стоят по умолчанию').waitFor();
      const form = prices.getByTestId('price-form');
      await form.getByLabel('Шаблон модели').fill('bad pattern');
      await form.getByLabel('Запрос за 1M токенов').fill('1,5');
      await form.getByLabel('Ответ за 1M токенов').fill('2');
      await form.getByRole('button', { name: 'Сохранить цену' }).click();
      await form.getByText('укажите идентификатор модели').waitFor();
      await form.getByLabel('Шаблон модели').fill('acme/*');
      await form.getByRole('button', { name: 'Сохранить цену' }).click();
      // A price applies to everyone: saved once the operator confirms (web-console.test.ts covers the dialog).
      await page.getByRole('dialog', { name: 'Добавить цену для всех?' }).getByRole('button', { name: 'Сохранить для всех' }).click();
      await prices.getByText('Цена acme/* добавлена').waitFor();
      const table = prices.getByTestId('prices-table');
      const acme = table.locator('tr[data-pattern="acme/*"]');
      expect(await acme.textContent()).toContain('1,5');

      await prices.getByRole('button', { name: 'Изменить цену acme/*' }).click();
      const edit = prices.getByRole('form', { name: 'Изменить цену acme/*' });
      expect(await edit.getByLabel('Шаблон модели').getAttribute('readonly')).not.toBeNull();
      expect(await edit.getByLabel('Запрос за 1M токенов').evaluate((el) => el === document.activeElement)).toBe(true);
      await edit.getByLabel('Запрос за 1M токенов').fill('3,000000001');
      await edit.getByRole('button', { name: 'Сохранить цену' }).click();
      await page.getByRole('dialog', { name: 'Изменить цену для всех?' }).getByRole('button', { name: 'Сохранить для всех' }).click();
      await prices.getByText('Цена acme/* сохранена').waitFor();
      // Rounded to kopecks like all money on the dashboard (issue 33, point 9); every digit on hover.
      await acme.locator(`.money[title="Точно: ${formatMoney(3.000000001, 'RUB', 'exact')}"]`).waitFor();
      const listed = await call(app.url, 'GET', '/api/admin/prices', { token: await sessionToken(page) });
      expect(listed.body.prices).toEqual([expect.objectContaining({ pattern: 'acme/*', promptPerMillion: 3.000000001, completionPerMillion: 2 })]);

      // The import: the provider's prices × 90, beside the prices in force; only the checked rows are saved.
      const importer = page.getByTestId('price-import');
      await importer.getByLabel('Множитель').fill('0');
      await importer.getByRole('button', { name: 'Показать цены' }).click();
      await importer.getByText('положительное число').waitFor();
      await importer.getByLabel('Множитель').fill('90');
      await importer.getByLabel('Фильтр моделей').fill('vendor/');
      await importer.getByRole('button', { name: 'Показать цены' }).click();
      const preview = importer.getByTestId('import-preview');
      const cheap = preview.locator('tr[data-model="vendor/cheap"]');
      await cheap.waitFor();
      expect(await cheap.textContent()).toContain('1 / 2');
      expect(await cheap.textContent()).toContain(`${rub(90)} / ${rub(180)} за 1 млн токенов`);
      expect(await cheap.textContent()).toContain('по умолчанию');
      const odd = preview.locator('tr[data-model="vendor/odd"]');
      expect(await odd.textContent()).toContain('0,1234567891 / 0');
      expect(await odd.locator(`.money[title="Точно: ${formatMoney(11.111111019, 'RUB', 'exact')}"]`).count()).toBe(1);
      expect(await preview.locator('tbody tr').count()).toBe(2);
      await importer.getByText('Пропущено моделей: 1').click();
      await importer.getByText('провайдер не указал цену').waitFor();
      expect(await importer.getByRole('checkbox', { name: 'Сохранить цену vendor/cheap' }).isChecked()).toBe(true);
      await importer.getByRole('checkbox', { name: 'Сохранить цену vendor/odd' }).uncheck();
      await importer.getByRole('status').getByText('Отмечено: 1').waitFor();
      await phoneCheck('admin-prices-phone');
      await importer.getByRole('button', { name: 'Сохранить отмеченные (1)' }).click();
      await importer.getByTestId('import-result').getByText('Сохранено цен: 1').waitFor();
      await table.locator('tr[data-pattern="vendor/cheap"]').waitFor();
      expect(await table.locator('tr[data-pattern="vendor/odd"]').count()).toBe(0);
      await shot('admin-prices');

      // Delete, after the confirmation.
      await prices.getByRole('button', { name: 'Удалить цену acme/*' }).click();
      await page.getByRole('dialog', { name: 'Удалить цену?' }).getByRole('button', { name: 'Удалить' }).click();
      await prices.getByText('Цена удалена: acme/*').waitFor();
      await acme.waitFor({ state: 'detached' });
      expect((await call(app.url, 'GET', '/api/admin/prices', { token: await sessionToken(page) })).body.prices.map((p: { pattern: string }) => p.pattern)).toEqual([
        'vendor/cheap',
      ]);

      await section('Журнал действий').click();
      await page.getByTestId('audit-table').locator('tbody tr[data-action="price.import"]').getByText('vendor/cheap').waitFor();
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'a role taken away while the page is open: the next 403 hides the section',
    async () => {
      await app.sql(`update users set role = 'user' where email = $1`, [admin.email]);
      await section('Пользователи').click();
      await page.getByTestId('admin-no-access').waitFor();
      await adminLink().waitFor({ state: 'detached' });
      await app.sql(`update users set role = 'admin' where email = $1`, [admin.email]);

      for (const name of SCREENS) expect(statSync(screenPath(name)).size).toBeGreaterThan(1000);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
