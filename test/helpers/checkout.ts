// A top-up in a real browser: the app wired to the fake YooKassa (one shop) and the fake model upstream,
// YooKassa's payment page answered inside chromium, and the top-up form sent from the overview to that page.
// Shared by the browser test files that pay (web-billing, web-auto-topup).
import { expect } from 'bun:test';
import type { Route } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { startFakeYookassa, type FakeYookassa } from '../fakes/yookassa';
import { useBrowserApp, type BrowserApp } from './browser';
import { freePort } from './messenger';

export const SHOP_ID = '506751';
export const SECRET_KEY = 'test_Fh8hUAVVBGUGbjmlzba6TB0iyUbos_lueTHE-axOwM0';
/** The fake's payment pages live here; chromium never goes out: page.route answers them. */
const CHECKOUT = 'https://yoomoney.ru/checkout/**';

export interface CheckoutApp extends BrowserApp {
  readonly yk: FakeYookassa;
  readonly upstream: FakeUpstream;
}

/**
 * useBrowserApp for a file whose tests pay: starts the fake YooKassa with the shop and the fake upstream, the
 * app on a port it knows (YooKassa sends the buyer back to PUBLIC_BASE_URL), and answers the payment page
 * with a heading «Оплата <amount> <currency>» and a link «Вернуться в магазин» to the shop's return_url.
 */
export function useCheckoutApp(options: { screens: readonly string[]; ready?: (session: CheckoutApp) => unknown }): CheckoutApp {
  const fakes: { yk?: FakeYookassa; upstream?: FakeUpstream } = {};
  const missing = (what: string): never => {
    throw new Error(`useCheckoutApp: ${what} is not ready (read it inside a test or after the beforeAll)`);
  };
  const yk = () => fakes.yk ?? missing('the fake YooKassa');

  async function servePaymentPage(route: Route) {
    const payment = yk().payment(new URL(route.request().url()).searchParams.get('orderId') ?? '');
    if (!payment) return route.fulfill({ status: 404, contentType: 'text/plain', body: 'no such payment' });
    await route.fulfill({
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><html lang="ru"><head><title>ЮKassa</title></head><body>
      <h1>Оплата ${payment.amount.value} ${payment.amount.currency}</h1>
      <a href="${payment.returnUrl}">Вернуться в магазин</a></body></html>`,
    });
  }

  const browser = useBrowserApp({
    screens: options.screens,
    before: async () => {
      [fakes.yk, fakes.upstream] = await Promise.all([startFakeYookassa(), startFakeUpstream()]);
      fakes.yk.addShop(SHOP_ID, SECRET_KEY);
    },
    app: () => {
      const port = freePort();
      return {
        env: {
          PORT: String(port),
          PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
          YOOKASSA_SHOP_ID: SHOP_ID,
          YOOKASSA_SECRET_KEY: SECRET_KEY,
          YOOKASSA_API_BASE_URL: yk().url,
          UPSTREAM_BASE_URL: fakes.upstream!.url,
        },
      };
    },
    ready: async () => {
      await session.page.route(CHECKOUT, servePaymentPage);
      await options.ready?.(session);
    },
    after: () => Promise.all([fakes.yk?.close(), fakes.upstream?.close()]),
  });
  const session: CheckoutApp = Object.create(browser, {
    yk: { get: yk },
    upstream: { get: () => fakes.upstream ?? missing('the fake upstream') },
  });
  return session;
}

/**
 * On the overview with the top-up form open: fills the amount (and «Сохранить карту» with `saveCard`), sends
 * the form and follows the browser to YooKassa. Returns the payment the fake made and the top-up's id.
 */
export async function payThroughForm(session: CheckoutApp, amountText: string, options: { saveCard?: boolean } = {}) {
  const { page, yk, app } = session;
  const before = yk.payments.length;
  const form = page.getByTestId('topup-form');
  await form.getByLabel('Сумма пополнения').fill(amountText);
  if (options.saveCard) await form.getByLabel(/Сохранить карту/).check();
  await form.getByRole('button', { name: 'Перейти к оплате' }).click();
  await page.waitForURL(/^https:\/\/yoomoney\.ru\/checkout\//);
  expect(yk.payments).toHaveLength(before + 1);
  const payment = yk.payments.at(-1)!;
  expect(page.url()).toBe(payment.confirmationUrl);
  const topupId = payment.metadata.topupId!;
  expect(payment.returnUrl).toBe(`${app.url}/app/topups/${topupId}`);
  return { payment, topupId };
}
