// The shop's delivery settings on the dashboard (issue 42 point 6), in a real browser against the real app:
// pickup with its address, courier and post, each on or off with a price typed in roubles and stored in
// kopecks; the form's own Russian messages before any request; the values kept after a reload; nothing
// wider than the window at 1280 and 390 px. Screenshots: test-artifacts/screens/shop-delivery*.png.
import { expect, test } from 'bun:test';
import { statSync } from 'node:fs';
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

const SCREENS = ['shop-delivery', 'shop-delivery-phone', 'shop-order-status', 'shop-order-status-phone'] as const;
const browserSuite = browserDescribe('web-shop-delivery.test.ts');
const TEMPLATE = 'https://pay.example.ru/pay?order={orderNumber}&sum={amount}';

let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

browserSuite('the shop’s delivery settings in chromium', () => {
  useBrowserApp({ screens: SCREENS, ready: (s) => ({ app, page, pageErrors } = s) });

  test(
    'delivery settings (pickup needs its address, a price must be a sum; kopecks; kept after a reload), then an order shipped with a tracking number and delivered; both widths',
    async () => {
      await registerThroughPage(page, app.url, { email: uniqueEmail('shop-delivery'), password: 'delivery-secret-1' });
      const token = await sessionToken(page);
      const created = await call(app.url, 'POST', '/api/agents', { token, body: { name: 'Магазин «Лён»', type: 'ecommerce', model: 'acme/chat' } });
      expect(created.status).toBe(201);
      const agentId = created.body.id as string;
      const settingsUrl = `/api/v1/commerce/${agentId}/settings`;

      await page.goto(`${app.url}/app/agents/${agentId}`);
      await page.getByRole('navigation', { name: 'Разделы агента' }).getByRole('link', { name: 'Магазин' }).click();
      const delivery = page.getByTestId('shop-delivery');
      // Not before the payment settings exist; the form appears once they are saved on the same page.
      await delivery.getByText('после сохранения настроек оплаты').waitFor();
      const payment = page.getByTestId('shop-settings');
      await payment.getByLabel('Шаблон ссылки на оплату').fill(TEMPLATE);
      await payment.getByRole('button', { name: 'Сохранить настройки оплаты' }).click();
      await delivery.getByRole('button', { name: 'Сохранить доставку' }).waitFor();

      const pickup = delivery.getByTestId('delivery-pickup');
      const courier = delivery.getByTestId('delivery-courier');
      const post = delivery.getByTestId('delivery-post');
      await pickup.getByLabel('Предлагать клиентам').check();
      await courier.getByLabel('Предлагать клиентам').check();
      await courier.getByLabel('Курьер: цена, ₽').fill('300');
      await post.getByLabel('Почта: цена, ₽').fill('двести');
      await delivery.getByRole('button', { name: 'Сохранить доставку' }).click();
      await post.getByText('Почта: цена доставки:').waitFor();
      await post.getByLabel('Почта: цена, ₽').fill('249,90');
      await delivery.getByRole('button', { name: 'Сохранить доставку' }).click();
      await pickup.getByText('адрес самовывоза: одна строка от 5 до 300 символов').waitFor();
      expect((await call(app.url, 'GET', settingsUrl, { token })).body.delivery).toBeNull();

      await pickup.getByLabel('Адрес самовывоза').fill('Москва, ул. Покровка, д. 12');
      await post.getByLabel('Предлагать клиентам').check();
      const hours = delivery.getByLabel('Напомнить о неоплаченном заказе через, ч');
      expect(await hours.inputValue()).toBe('2');
      await hours.fill('200');
      await delivery.getByRole('button', { name: 'Сохранить доставку' }).click();
      await delivery.getByText('Напоминание: целое число часов от 0').waitFor();
      await hours.fill('3');
      await delivery.getByRole('button', { name: 'Сохранить доставку' }).click();
      await delivery.getByText('Доставка сохранена').waitFor();
      const expected = {
        pickup: { enabled: true, priceMinor: 0, address: 'Москва, ул. Покровка, д. 12' },
        courier: { enabled: true, priceMinor: 30000 },
        post: { enabled: true, priceMinor: 24990 },
      };
      const stored = await call(app.url, 'GET', settingsUrl, { token });
      expect(stored.body.delivery).toEqual(expected);
      expect(stored.body.unpaidReminderHours).toBe(3);
      // The payment settings were sent as stored: the template is unchanged.
      expect(stored.body.paymentLinkTemplate).toBe(TEMPLATE);

      await page.reload();
      await delivery.getByRole('button', { name: 'Сохранить доставку' }).waitFor();
      expect(await courier.getByLabel('Курьер: цена, ₽').inputValue()).toBe('300,00');
      expect(await post.getByLabel('Почта: цена, ₽').inputValue()).toBe('249,90');
      expect(await pickup.getByLabel('Адрес самовывоза').inputValue()).toBe('Москва, ул. Покровка, д. 12');
      expect(await courier.getByLabel('Предлагать клиентам').isChecked()).toBe(true);
      expect(await hours.inputValue()).toBe('3');

      for (const [size, name] of [
        [DESKTOP, 'shop-delivery'],
        [PHONE, 'shop-delivery-phone'],
      ] as const) {
        await page.setViewportSize(size);
        await delivery.scrollIntoViewIfNeeded();
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        await delivery.screenshot({ path: screenPath(name) });
      }
      await page.setViewportSize(DESKTOP);

      // An order paid with courier delivery, as check-out writes it: the owner ships it with a tracking
      // number, then marks it delivered; the buttons follow the status.
      const delivered = { method: 'courier', priceMinor: 30000, address: 'Москва, ул. Ленина, д. 5, кв. 12', recipientName: 'Анна Иванова' };
      const [{ id: orderId }] = (await app.sql(
        `insert into orders (agent_id, number, status, items, total_minor, currency, client_phone, delivery, payment_link, paid_at)
         values ($1, 'ORD-20261201-0007', 'paid', $2::jsonb, 180000, 'RUB', '79161234567', $3::jsonb, 'https://pay.example.ru/pay?order=ORD-20261201-0007', now())
         returning id`,
        [agentId, JSON.stringify([{ productId: crypto.randomUUID(), title: 'Плед', priceMinor: 150000, quantity: 1 }]), JSON.stringify(delivered)],
      )) as [{ id: string }];
      const orders = page.getByTestId('shop-orders');
      await orders.getByRole('button', { name: 'Обновить' }).click();
      await orders.getByRole('button', { name: 'Заказ ORD-20261201-0007: состав' }).click();
      const details = orders.getByTestId('order-details');
      const facts = details.getByTestId('order-delivery');
      await facts.getByText(`Курьер, ${formatPrice(30000, 'RUB')}`).waitFor();
      expect(await facts.textContent()).toContain('Анна Иванова');
      expect(await details.getByTestId('order-delivery-price').textContent()).toBe(formatPrice(30000, 'RUB'));
      expect(await details.getByTestId('order-total').textContent()).toBe(formatPrice(180000, 'RUB'));
      const actions = details.getByTestId('order-actions');
      expect(await actions.getByRole('button', { name: 'Доставлен' }).count()).toBe(0);

      await actions.getByRole('button', { name: 'Отправлен' }).click();
      await actions.getByLabel('Трек-номер').fill('№');
      await actions.getByRole('button', { name: 'Отметить отправленным' }).click();
      await actions.getByText('трек-номер: от 4 до 64 символов').waitFor();
      await actions.getByLabel('Трек-номер').fill('RA123456789RU');
      for (const [size, name] of [
        [DESKTOP, 'shop-order-status'],
        [PHONE, 'shop-order-status-phone'],
      ] as const) {
        await page.setViewportSize(size);
        await details.scrollIntoViewIfNeeded();
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        await details.screenshot({ path: screenPath(name) });
      }
      await actions.getByRole('button', { name: 'Отметить отправленным' }).click();
      await facts.getByText('RA123456789RU').waitFor();
      await details.getByText('Отправлен', { exact: true }).first().waitFor();
      expect(await actions.getByRole('button', { name: 'Отправлен', exact: true }).count()).toBe(0);
      await actions.getByRole('button', { name: 'Доставлен' }).click();
      await details.getByText('Доставлен', { exact: true }).first().waitFor();
      await details.getByTestId('order-actions').waitFor({ state: 'detached' });
      const storedOrder = (await call(app.url, 'GET', `/api/v1/commerce/${agentId}/orders/${orderId}`, { token })).body;
      expect(storedOrder).toMatchObject({ status: 'delivered', trackingNumber: 'RA123456789RU', delivery: delivered });
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.setViewportSize(DESKTOP);

      for (const name of SCREENS) expect(statSync(screenPath(name)).size).toBeGreaterThan(1000);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
