// «Группы цен» (issue 45, point 1) in a real browser: the operator adds a group with a multiplier and its own
// price for one model, moves a customer into it on the customer's card, and the customer's overview then
// shows that group's prices; at desktop and phone width with nothing wider than the window.
// Screenshots: test-artifacts/screens/price-groups*.png.
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { call, uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS, horizontalOverflow, openPage, PHONE, registerThroughPage, screenPath, useConsoleApp } from '../helpers/browser';

const SCREENS = ['price-groups', 'price-groups-phone', 'price-groups-customer'] as const;
const browserSuite = browserDescribe('web-price-groups.test.ts');

const customer = { email: uniqueEmail('groups-web-customer'), password: 'customer-secret-1' };
let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

browserSuite('price groups in chromium', () => {
  const session = useConsoleApp({ screens: SCREENS, operator: 'groups-web', upstream: true, ready: (s) => ({ app, page, pageErrors } = s) });

  test(
    'a group made in the console, a customer moved into it on the card, and the customer sees the group’s prices',
    async () => {
      const token = await session.signIn();
      // List price: 1 ₽ a million prompt tokens and 2 ₽ a million completion tokens for acme/*.
      expect((await call(app.url, 'PUT', '/api/admin/prices', { token, body: { pattern: 'acme/*', promptPerMillion: 1, completionPerMillion: 2 } })).status).toBe(
        200,
      );

      // The customer signs up in a browser of their own and sees the list prices.
      const own = await openPage(session.browser);
      await registerThroughPage(own.page, app.url, customer);
      const prices = own.page.getByTestId('model-prices');
      const rowOf = (model: string) => prices.locator('tr', { hasText: model });
      // The prices show their currency once the billing settings have come: waited for as a person would look.
      const pricedRow = (pattern: RegExp) => prices.locator('tr', { hasText: pattern }).waitFor();
      await pricedRow(/acme\/chat.*1,00\s₽.*2,00\s₽/);
      expect(await rowOf('acme/chat').textContent()).toMatch(/1,00\s₽.*2,00\s₽/);

      await page.goto(`${app.url}/app/admin/price-groups`);
      const screen = page.getByTestId('admin-price-groups');
      await screen.locator('tr[data-group="base"]').getByText('По умолчанию').waitFor();
      const form = page.getByTestId('price-group-form');
      await form.getByLabel('Имя группы').fill('vip');
      await form.getByLabel('Название группы').fill('Постоянные клиенты');
      await form.getByLabel('Множитель').fill('0,5');
      await form.getByRole('button', { name: 'Добавить группу' }).click();
      await screen.getByRole('status').filter({ hasText: 'Группа «Постоянные клиенты» добавлена' }).waitFor();
      const vipRow = screen.locator('tr[data-group="vip"]');
      await vipRow.waitFor();
      expect(await vipRow.textContent()).toContain('× 0,5');

      // The new group is open: its own price for acme/large.
      const own_prices = page.getByTestId('group-prices');
      await own_prices.getByLabel('Шаблон модели').fill('acme/large');
      await own_prices.getByLabel(/Запрос за 1M токенов/).fill('0,3');
      await own_prices.getByLabel(/Ответ за 1M токенов/).fill('0,4');
      await own_prices.getByRole('button', { name: 'Сохранить цену группы' }).click();
      await own_prices.locator('tr', { hasText: 'acme/large' }).waitFor();
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: screenPath('price-groups'), fullPage: true });
      await page.setViewportSize(PHONE);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: screenPath('price-groups-phone'), fullPage: true });

      // The customer's card: moved into the group.
      const [row] = await app.sql<{ id: string }>('select id from users where email = $1', [customer.email]);
      await page.goto(`${app.url}/app/admin/users/${row!.id}`);
      const move = page.getByTestId('user-price-group');
      await move.getByLabel('Группа цен').selectOption('vip');
      await move.getByRole('button', { name: 'Перевести' }).click();
      await move.getByRole('status').filter({ hasText: 'Переведён в группу «Постоянные клиенты»' }).waitFor();
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      const audit = await call(app.url, 'GET', `/api/admin/audit?targetId=${row!.id}&action=user.price_group`, { token });
      expect(audit.body.data[0]).toMatchObject({ before: { priceGroup: 'base' }, after: { priceGroup: 'vip' } });

      // The customer's overview, reloaded: the group's prices.
      await own.page.reload();
      await pricedRow(/acme\/chat.*0,50\s₽.*1,00\s₽/);
      expect(await rowOf('acme/chat').textContent()).toMatch(/0,50\s₽.*1,00\s₽/);
      expect(await rowOf('acme/large').textContent()).toMatch(/0,30\s₽.*0,40\s₽/);
      await own.page.screenshot({ path: screenPath('price-groups-customer'), fullPage: true });
      expect(own.pageErrors).toEqual([]);
      expect(pageErrors).toEqual([]);
      await own.context.close();
    },
    FLOW_TIMEOUT_MS,
  );
});
