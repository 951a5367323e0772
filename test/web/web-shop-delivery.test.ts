// The shop's delivery settings on the dashboard (issue 42 point 6), in a real browser against the real app:
// pickup with its address, courier and post, each on or off with a price typed in roubles and stored in
// kopecks; the form's own Russian messages before any request; the values kept after a reload; nothing
// wider than the window at 1280 and 390 px. Screenshots: test-artifacts/screens/shop-delivery*.png.
import { expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import type { Page } from 'playwright-core';
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

const SCREENS = ['shop-delivery', 'shop-delivery-phone'] as const;
const browserSuite = browserDescribe('web-shop-delivery.test.ts');
const TEMPLATE = 'https://pay.example.ru/pay?order={orderNumber}&sum={amount}';

let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

browserSuite('the shop’s delivery settings in chromium', () => {
  useBrowserApp({ screens: SCREENS, ready: (s) => ({ app, page, pageErrors } = s) });

  test(
    'pickup needs its address, a price must be a sum; saved in kopecks, kept after a reload; both widths',
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
      await delivery.getByRole('button', { name: 'Сохранить доставку' }).click();
      await delivery.getByText('Доставка сохранена').waitFor();
      const expected = {
        pickup: { enabled: true, priceMinor: 0, address: 'Москва, ул. Покровка, д. 12' },
        courier: { enabled: true, priceMinor: 30000 },
        post: { enabled: true, priceMinor: 24990 },
      };
      const stored = await call(app.url, 'GET', settingsUrl, { token });
      expect(stored.body.delivery).toEqual(expected);
      // The payment settings were sent as stored: the template is unchanged.
      expect(stored.body.paymentLinkTemplate).toBe(TEMPLATE);

      await page.reload();
      await delivery.getByRole('button', { name: 'Сохранить доставку' }).waitFor();
      expect(await courier.getByLabel('Курьер: цена, ₽').inputValue()).toBe('300,00');
      expect(await post.getByLabel('Почта: цена, ₽').inputValue()).toBe('249,90');
      expect(await pickup.getByLabel('Адрес самовывоза').inputValue()).toBe('Москва, ул. Покровка, д. 12');
      expect(await courier.getByLabel('Предлагать клиентам').isChecked()).toBe(true);

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
      for (const name of SCREENS) expect(statSync(screenPath(name)).size).toBeGreaterThan(1000);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
