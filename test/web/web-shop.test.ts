// The shop of an E-commerce agent on the dashboard page, in a real browser against the real app: payment
// settings with the one-time notification URL, the catalog (add, edit, availability, delete, CSV import
// all-or-nothing), and orders with the status filter and their items. Screenshot: test-artifacts/screens/shop.png.
import { expect, test } from 'bun:test';
import { existsSync, statSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { formatPrice } from '../../web/src/integrations/price';
import { call, uniqueEmail, type TestApp } from '../helpers/app';
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

const SCREENS = ['shop', 'shop-phone'] as const;
const browserSuite = browserDescribe('web-shop.test.ts');
const TEMPLATE = 'https://pay.example.ru/pay?order={orderNumber}&sum={amount}';

let app: TestApp;
let page: Page;
let pageErrors: string[] = [];
const user = { email: uniqueEmail('shop'), password: 'shop-secret-1' };

browserSuite('the shop of an E-commerce agent in chromium', () => {
  useBrowserApp({ screens: SCREENS, ready: (s) => ({ app, page, pageErrors } = s) });

  test(
    'payment settings with the one-time URL, products added and imported, orders filtered and opened',
    async () => {
      await registerThroughPage(page, app.url, user);

      await page.getByRole('link', { name: 'Агенты' }).click();
      await page.getByLabel('Имя').fill('Магазин «Лён»');
      await page.getByLabel('Тип').selectOption('ecommerce');
      await page.getByRole('button', { name: 'Создать агента' }).click();
      await page.waitForURL(/\/app\/agents\/[0-9a-f-]{36}$/);
      const agentId = page.url().split('/').pop()!;
      const token = await sessionToken(page);
      await page.getByRole('navigation', { name: 'Разделы агента' }).getByRole('link', { name: 'Магазин' }).click();
      const shop = page.getByTestId('shop');
      await shop.getByRole('heading', { name: 'Магазин', exact: true }).waitFor();
      expect(await page.getByTestId('booking-settings').count()).toBe(0);

      // Payment settings: the schema's message before any request, then the full URL once.
      const settings = shop.getByTestId('shop-settings');
      await settings.getByText('Не настроено').waitFor();
      await settings.getByLabel('Шаблон ссылки на оплату').fill('http://pay.example.ru/pay');
      await settings.getByRole('button', { name: 'Сохранить настройки оплаты' }).click();
      await settings.getByText('ссылка https:// на страницу оплаты, в которой есть {orderNumber} или {orderId}').waitFor();
      await settings.getByLabel('Шаблон ссылки на оплату').fill(TEMPLATE);
      await settings.getByRole('button', { name: 'Сохранить настройки оплаты' }).click();
      const once = settings.getByTestId('shop-webhook-secret');
      await once.waitFor();
      expect(await once.textContent()).toContain('только сейчас');
      const fullUrl = (await settings.getByTestId('shop-webhook-full-url').textContent())!;
      expect(fullUrl).toStartWith(`${app.config.publicBaseUrl}/api/v1/commerce/webhook/${agentId}?token=`);
      await once.getByRole('button', { name: 'Копировать' }).click();
      await once.getByText('Скопировано').waitFor();
      const stored = await call(app.url, 'GET', `/api/v1/commerce/${agentId}/settings`, { token });
      expect(stored.body).toMatchObject({ configured: true, paymentLinkTemplate: TEMPLATE });
      expect(stored.body.webhookUrl).not.toBe(fullUrl);

      await once.getByRole('button', { name: 'Адрес сохранён, скрыть' }).click();
      await page.reload();
      await settings.getByText('Настроено', { exact: true }).waitFor();
      expect(await settings.getByTestId('shop-webhook-url').textContent()).toBe(stored.body.webhookUrl);
      expect(await page.content()).not.toContain(fullUrl.split('token=')[1]);
      expect(await settings.getByLabel('Шаблон ссылки на оплату').inputValue()).toBe(TEMPLATE);

      // A product: the price typed in roubles is sent as exact kopecks (1499.99 * 100 is not 149999 in floats).
      const catalog = shop.getByTestId('shop-catalog');
      await catalog.getByText('Товаров пока нет').waitFor();
      await catalog.getByRole('button', { name: 'Добавить товар' }).click();
      const form = catalog.getByTestId('product-form');
      await form.getByLabel('Название товара').fill('Плед «Север»');
      await form.getByLabel('Цена').fill('1499,999');
      await form.getByRole('button', { name: 'Добавить товар' }).click();
      await form.getByText('копейки — не больше двух знаков').waitFor();
      await form.getByLabel('Цена').fill('1 499,99');
      await form.getByRole('button', { name: 'Добавить товар' }).click();
      await catalog.getByText('Товар «Плед «Север»» добавлен').waitFor();
      const products = catalog.getByTestId('products-table');
      const plaid = products.locator('tbody tr', { hasText: 'Плед «Север»' });
      expect(await plaid.getByTestId('product-price').textContent()).toBe(formatPrice(149_999, 'RUB'));
      const listed = await call(app.url, 'GET', `/api/v1/commerce/${agentId}/products`, { token });
      expect(listed.body.products).toMatchObject([{ title: 'Плед «Север»', priceMinor: 149_999, currency: 'RUB', available: true }]);

      // Edit, take off sale, and a delete that is cancelled.
      await form.getByRole('button', { name: 'Отмена' }).click();
      await catalog.getByRole('button', { name: 'Изменить товар «Плед «Север»»' }).click();
      expect(await form.getByLabel('Цена').inputValue()).toBe('1499,99');
      await form.getByLabel('Цена').fill('1500');
      await form.getByRole('button', { name: 'Сохранить товар' }).click();
      await catalog.getByText('Товар «Плед «Север»» сохранён').waitFor();
      expect(await plaid.getByTestId('product-price').textContent()).toBe(formatPrice(150_000, 'RUB'));
      await catalog.getByRole('button', { name: 'Снять с продажи «Плед «Север»»' }).click();
      await plaid.getByText('Нет в наличии').waitFor();
      await catalog.getByRole('button', { name: 'Удалить товар «Плед «Север»»' }).click();
      const dialog = page.getByRole('dialog', { name: 'Удалить товар?' });
      await dialog.waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      const edited = await call(app.url, 'GET', `/api/v1/commerce/${agentId}/products`, { token });
      expect(edited.body.products).toMatchObject([{ priceMinor: 150_000, available: false }]);

      // CSV import: a bad row refuses the whole file with the row's reason; a good file reports its count.
      const importer = catalog.getByTestId('product-import');
      await importer.getByLabel('Содержимое CSV').fill('title;price;available\nЧехол;900;да\nПодушка;сто рублей;да\n');
      await importer.getByRole('button', { name: 'Импортировать' }).click();
      const rowErrors = importer.getByTestId('import-errors');
      await rowErrors.waitFor();
      expect(await rowErrors.textContent()).toContain('Ничего не импортировано');
      expect(await rowErrors.textContent()).toContain('Строка 2: ');
      expect(await rowErrors.textContent()).toContain('Цена: ожидается цена в рублях с копейками, например 1499,90');
      expect((await call(app.url, 'GET', `/api/v1/commerce/${agentId}/products`, { token })).body.products).toHaveLength(1);

      // The good file through the file input, as an owner would pick it.
      await importer.getByLabel('Или файл CSV').setInputFiles({
        name: 'products.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('title;price;available\nЧехол;900;да\nПодушка;1 200,50;нет\n'),
      });
      // The file is read asynchronously into the text area, where the owner sees what will be sent.
      await page.waitForFunction(() => document.querySelector<HTMLTextAreaElement>('textarea[name="csv"]')?.value.includes('Подушка;1 200,50'));
      await importer.getByRole('button', { name: 'Импортировать' }).click();
      await importer.getByTestId('import-result').getByText('Импортировано товаров: 2').waitFor();
      expect(await rowErrors.count()).toBe(0);
      await products.locator('tbody tr', { hasText: 'Подушка' }).getByText(formatPrice(120_050, 'RUB')).waitFor();
      expect(await products.locator('tbody tr').count()).toBe(3);

      // Orders, as checkout writes them (the VK dialogue is covered by commerce.test.ts).
      const item = (title: string, priceMinor: number, quantity: number) => ({ productId: crypto.randomUUID(), title, priceMinor, quantity });
      const insertOrder = (number: string, status: string, items: ReturnType<typeof item>[], phone: string, minutesAgo: number) =>
        app.sql(
          `insert into orders (agent_id, number, status, items, total_minor, currency, client_phone, payment_link, paid_at, created_at)
         values ($1, $2, $3, $4::jsonb, $5, 'RUB', $6, $7, case when $3 = 'paid' then now() end, now() - make_interval(mins => $8))`,
          [
            agentId,
            number,
            status,
            JSON.stringify(items),
            items.reduce((s, i) => s + i.priceMinor * i.quantity, 0),
            phone,
            `https://pay.example.ru/pay?order=${number}`,
            minutesAgo,
          ],
        );
      await insertOrder('ORD-20261201-1', 'pending', [item('Чехол', 90_000, 1)], '79160000001', 10);
      await insertOrder('ORD-20261201-2', 'paid', [item('Плед «Север»', 150_000, 2), item('Подушка', 120_050, 1)], '79160000002', 5);

      const orders = shop.getByTestId('shop-orders');
      await orders.getByRole('button', { name: 'Обновить' }).click();
      const table = orders.getByTestId('orders-table');
      await table.locator('tbody tr', { hasText: 'ORD-20261201-1' }).getByText('Ожидает оплаты').waitFor();
      const paidRow = table.locator('tbody tr', { hasText: 'ORD-20261201-2' });
      expect(await paidRow.textContent()).toContain(formatPrice(420_050, 'RUB'));
      expect(await paidRow.textContent()).toContain('79160000002');

      // The previous filter's rows leave at once; the paid order comes back alone with the new answer.
      await orders.getByLabel('Статус').selectOption({ label: 'Оплачен' });
      await paidRow.getByText('Оплачен', { exact: true }).waitFor();
      expect(await table.locator('tbody tr').count()).toBe(1);
      await orders.getByLabel('Статус').selectOption({ label: 'Отменён' });
      await orders.getByText('Заказов со статусом «Отменён» нет.').waitFor();
      await orders.getByLabel('Статус').selectOption({ label: 'Оплачен' });

      await orders.getByRole('button', { name: 'Заказ ORD-20261201-2: состав' }).click();
      const details = orders.getByTestId('order-details');
      await details.getByRole('heading', { name: 'Заказ ORD-20261201-2' }).waitFor();
      const items = details.getByTestId('order-items');
      expect(await items.locator('tbody tr').count()).toBe(2);
      expect(await items.locator('tbody tr', { hasText: 'Плед «Север»' }).textContent()).toContain(formatPrice(300_000, 'RUB'));
      expect(await details.getByTestId('order-total').textContent()).toBe(formatPrice(420_050, 'RUB'));
      await page.screenshot({ path: screenPath('shop'), fullPage: true });

      // Phone width: nothing wider than the screen.
      await page.setViewportSize(PHONE);
      await shop.scrollIntoViewIfNeeded();
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: screenPath('shop-phone') });
      await page.setViewportSize(DESKTOP);

      for (const name of SCREENS) expect(statSync(screenPath(name)).size).toBeGreaterThan(1000);
      expect(existsSync(screenPath('shop'))).toBe(true);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
