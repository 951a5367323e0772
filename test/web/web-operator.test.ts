// The operator's console in a real browser (issue 33, points 11 and 9): a credit confirmed with its amount,
// account and reason before money moves; a user's key given a budget and another revoked from the
// account's page; the audit filtered on the server and naming accounts by e-mail, money as «502,99 ₽»;
// the daily figures as a chart with a CSV download; saved prices with ₽ and their unit. Every screen at
// desktop and phone width with nothing wider than the window.
// Screenshots: test-artifacts/screens/operator-*.png.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { formatMoney } from '../../web/src/shared/format';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import {
  browserDescribe,
  buildPage,
  DESKTOP,
  FLOW_TIMEOUT_MS,
  horizontalOverflow,
  launchChromium,
  openPage,
  PHONE,
  prepareScreens,
  screenPath,
  SETUP_TIMEOUT_MS,
  signInAsOperator,
} from '../helpers/browser';
import { openaiClient, settleAll } from '../helpers/gateway';

const SCREENS = [
  'operator-user',
  'operator-user-phone',
  'operator-audit',
  'operator-audit-phone',
  'operator-stats',
  'operator-stats-phone',
  'operator-prices',
  'operator-prices-phone',
] as const;
const browserSuite = browserDescribe('web-operator.test.ts');

const tag = `op${Date.now().toString(36)}`;
const admin = { email: `operator-${tag}@example.com`, password: 'operator-secret-1' };

let upstream: FakeUpstream;
let app: TestApp;
let browser: Browser;
let page: Page;
let pageErrors: string[] = [];
let target: { token: string; userId: string; email: string };
let siteKey: { key: string; id: string };
let botKey: { key: string; id: string };

const appUrl = (path: string) => `${app.url}/app${path}`;
const rub = (value: number) => formatMoney(value, 'RUB', 'amount');
const ask = (key: string) =>
  openaiClient(app, key)
    .chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет' }], max_tokens: 5 })
    .catch((e) => e);

/** The screen at desktop and at phone width: nothing wider than the window; a screenshot of each. */
async function bothWidths(name: 'operator-user' | 'operator-audit' | 'operator-stats' | 'operator-prices') {
  await page.setViewportSize(DESKTOP);
  expect(await horizontalOverflow(page)).toBe(0);
  await page.screenshot({ path: screenPath(name), fullPage: true });
  await page.setViewportSize(PHONE);
  await page.evaluate(() => window.scrollTo(0, 0));
  expect(await horizontalOverflow(page)).toBe(0);
  await page.screenshot({ path: screenPath(`${name}-phone`), fullPage: true });
  await page.setViewportSize(DESKTOP);
}

browserSuite('the operator console in chromium', () => {
  beforeAll(async () => {
    await buildPage();
    prepareScreens(SCREENS);
    upstream = await startFakeUpstream();
    app = await startTestApp({ env: { ADMIN_EMAILS: admin.email, UPSTREAM_BASE_URL: upstream.url } });
    target = await registerUser(app.url, `client-${tag}@example.com`);
    siteKey = await createApiKey(app.url, target.token, 'Сайт');
    botKey = await createApiKey(app.url, target.token, 'Бот');
    expect((await ask(siteKey.key)).object).toBe('chat.completion');
    await settleAll(app);
    browser = await launchChromium();
    ({ page, pageErrors } = await openPage(browser));
    await signInAsOperator(page, app, admin);
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await upstream?.close();
  });

  test(
    'a credit waits for a confirmation naming amount, account and reason; a key gets a budget, another is revoked and refused on /v1',
    async () => {
      const before = (await call(app.url, 'GET', '/api/balance', { token: target.token })).body.balance as number;
      await page.goto(appUrl(`/admin/users/${target.userId}`));
      await page.getByTestId('admin-user').getByRole('heading', { name: target.email }).waitFor();

      const credit = page.getByTestId('credit-form');
      await credit.getByLabel('Сумма').fill('150');
      await credit.getByLabel('Причина').fill('Компенсация за сбой 26 ноября');
      const reference = await credit.getByLabel('Ссылка операции').inputValue();
      await credit.getByRole('button', { name: 'Провести' }).click();
      const dialog = page.getByRole('dialog', { name: 'Начислить деньги на баланс?' });
      const facts = dialog.getByTestId('credit-confirm');
      await facts.waitFor();
      const shown = (await facts.textContent())!;
      expect(shown).toContain(rub(150));
      expect(shown).toContain(target.email);
      expect(shown).toContain('Компенсация за сбой 26 ноября');
      expect(shown).toContain(reference);
      // Cancelled: nothing is credited.
      await dialog.getByRole('button', { name: 'Отмена' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect((await call(app.url, 'GET', '/api/balance', { token: target.token })).body.balance).toBe(before);
      // Confirmed: credited once.
      await credit.getByRole('button', { name: 'Провести' }).click();
      await dialog.getByRole('button', { name: 'Начислить' }).click();
      await credit
        .getByTestId('credit-result')
        .getByText(`Начислено ${rub(150)}`)
        .waitFor();
      expect((await call(app.url, 'GET', '/api/balance', { token: target.token })).body.balance).toBeCloseTo(before + 150, 9);

      // A budget for «Сайт»: 5 ₽ a day.
      const keys = page.getByTestId('admin-user-keys');
      await keys.getByRole('button', { name: 'Лимит расходов ключа Сайт' }).click();
      const budget = page.getByRole('dialog', { name: 'Лимит расходов ключа' });
      await budget.getByLabel('Лимит расходов').fill('-1');
      await budget.getByRole('button', { name: 'Сохранить лимит' }).click();
      await budget.getByText('Лимит расходов не может быть отрицательным').waitFor();
      await budget.getByLabel('Лимит расходов').fill('5');
      await budget.getByLabel('Период лимита').selectOption('day');
      await budget.getByRole('button', { name: 'Сохранить лимит' }).click();
      await page.getByTestId('admin-key-message').getByText('Лимит расходов ключа «Сайт» сохранён').waitFor();
      await keys
        .locator(`tr[data-key-id="${siteKey.id}"]`)
        .getByTestId('admin-key-budget')
        .getByText(`${rub(5)} в сутки`)
        .waitFor();
      const listed = (await call(app.url, 'GET', '/api/keys', { token: target.token })).body.keys;
      expect(listed.find((k: { id: string }) => k.id === siteKey.id)).toMatchObject({ spendLimit: 5, limitReset: 'day' });

      // «Бот» revoked, after a confirmation naming the key and the account.
      await keys.getByRole('button', { name: 'Отозвать ключ Бот' }).click();
      const revoke = page.getByRole('dialog', { name: 'Отозвать ключ пользователя?' });
      expect(await revoke.textContent()).toContain(target.email);
      await revoke.getByRole('button', { name: 'Отозвать ключ' }).click();
      await page.getByTestId('admin-key-message').getByText('Ключ «Бот» отозван').waitFor();
      await keys.locator(`tr[data-key-id="${botKey.id}"]`).getByText('Отозван').waitFor();
      expect((await ask(botKey.key)).status).toBe(403);
      expect((await ask(siteKey.key)).object).toBe('chat.completion');
      await bothWidths('operator-user');
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'the audit names accounts by e-mail, shows money as the dashboard does and filters by action, e-mail and period',
    async () => {
      await page.goto(appUrl('/admin/audit'));
      const table = page.getByTestId('audit-table');
      const creditRow = table.locator('tbody tr[data-action="user.credit"]').first();
      await creditRow.waitFor();
      // The target by e-mail, linked to the account.
      await creditRow.getByRole('link', { name: target.email }).waitFor();
      const creditText = (await creditRow.textContent())!;
      expect(creditText).toContain(`сумма: ${rub(150)}`);
      expect(creditText).toMatch(/баланс: [\d\s\u00a0]+,\d\d\s₽ → [\d\s\u00a0]+,\d\d\s₽/);
      // Every digit on hover.
      expect(await creditRow.locator('.money').first().getAttribute('title')).toMatch(/^Точно: /);

      const filters = page.getByTestId('audit-filters');
      await filters.getByLabel('Действие').selectOption('key.limit');
      await filters.getByLabel('E-mail').fill(target.email.slice(0, 14));
      await filters.getByRole('button', { name: 'Найти' }).click();
      await table.locator('tbody tr[data-action="user.credit"]').first().waitFor({ state: 'detached' });
      await table.locator('tbody tr[data-action="key.limit"]').waitFor();
      const rows = table.locator('tbody tr');
      expect(await rows.count()).toBe(1);
      const limitText = (await rows.first().textContent())!;
      expect(limitText).toContain('Лимит расходов ключа пользователя');
      expect(limitText).toContain('Сайт');
      expect(limitText).toContain(`лимит расходов: без лимита → ${rub(5)}`);
      expect(limitText).toContain('период лимита: без сброса → в сутки');

      // A period that ends before today finds nothing; a reversed one is refused in the page.
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      const today = new Date().toISOString().slice(0, 10);
      await filters.getByLabel('Последний день').fill(yesterday);
      await filters.getByRole('button', { name: 'Найти' }).click();
      await page.getByTestId('audit-log').getByText('Записей нет.').waitFor();
      await filters.getByLabel('Первый день').fill(today);
      await filters.getByRole('button', { name: 'Найти' }).click();
      await filters.getByText('Период задан неверно').waitFor();
      await filters.getByLabel('Первый день').fill('');
      await filters.getByLabel('Последний день').fill('');
      await filters.getByLabel('Действие').selectOption('key.revoke');
      await filters.getByRole('button', { name: 'Найти' }).click();
      await table.locator('tbody tr[data-action="key.revoke"]').getByRole('link', { name: target.email }).waitFor();
      await bothWidths('operator-audit');
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'the daily figures are a chart with the table folded away, and «Скачать CSV» downloads the same numbers',
    async () => {
      await page.goto(appUrl('/admin/stats'));
      const chart = page.getByTestId('stats-chart');
      await chart.locator('canvas').first().waitFor();
      // The 30 rows are folded under the chart.
      expect(await page.getByTestId('stats-table').isVisible()).toBe(false);
      const over = page.getByTestId('stats-chart-canvas').locator('.u-over');
      await over.scrollIntoViewIfNeeded();
      const box = (await over.boundingBox())!;
      await page.mouse.move(box.x + box.width - 4, box.y + box.height / 2);
      const tooltip = page.getByTestId('stats-chart-tooltip');
      await tooltip.waitFor();
      expect(await tooltip.textContent()).toContain(`Начисления: ${rub(150)}`);

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('csv-download').click()]);
      expect(download.suggestedFilename()).toMatch(/^conduit-daily-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
      const lines = (await readFile((await download.path())!, 'utf8'))
        .replace(/^\uFEFF/, '')
        .trimEnd()
        .split('\r\n');
      expect(lines[0]).toBe('day,revenue,credits,spend,provider_cost,margin,requests,currency');
      expect(lines).toHaveLength(31);
      const today = new Date().toISOString().slice(0, 10);
      const todayLine = lines.find((l) => l.startsWith(today))!.split(',');
      expect(todayLine[2]).toBe('150.000000000');
      expect(Number(todayLine[6])).toBeGreaterThanOrEqual(2);
      await bothWidths('operator-stats');
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'saved prices read «15,00 ₽» per cell, with the unit, and the default as a pair «… ₽ / … ₽ за 1 млн токенов»',
    async () => {
      const token = (await call(app.url, 'POST', '/api/auth/login', { body: admin })).body.token as string;
      expect((await call(app.url, 'PUT', '/api/admin/prices', { token, body: { pattern: 'acme/*', promptPerMillion: 15, completionPerMillion: 60 } })).status).toBe(
        200,
      );
      await page.goto(appUrl('/admin/prices'));
      const row = page.getByTestId('prices-table').locator('tr[data-pattern="acme/*"]');
      await row.waitFor();
      const text = (await row.textContent())!;
      expect(text).toContain(rub(15));
      expect(text).toContain(rub(60));
      expect(await page.getByTestId('admin-prices').getByTestId('price-pair').first().textContent()).toMatch(/₽ \/ .*₽ за 1 млн токенов$/);
      await bothWidths('operator-prices');
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
