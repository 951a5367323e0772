// Promo codes in a real browser (issue 45, point 3): the operator creates a campaign on «Промокоды», finds it in
// the list and opens it; a customer types one of its codes into «Промокод» on the balance card (in lower case,
// with spaces) and sees what was credited and the new balance; the campaign's page then shows the activation
// with the address half hidden, and «Остановить акцию» stops it. At 1280×800 and 390×844, nothing wider than the window.
import { expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { call, type TestApp } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS, horizontalOverflow, openPage, PHONE, registerThroughPage, screenPath, useConsoleApp } from '../helpers/browser';

const SCREENS = ['promotions-desktop', 'promo-redeem-phone'] as const;
const browserSuite = browserDescribe('web-promotions.test.ts');
const DESKTOP_800 = { width: 1280, height: 800 };

let app: TestApp;
let page: Page;
let browser: Browser;
let pageErrors: string[] = [];

browserSuite('promo codes in the console and on the balance card in chromium', () => {
  const session = useConsoleApp({ screens: SCREENS, operator: 'promo-web', ready: (s) => ({ app, page, pageErrors, browser } = s) });

  test(
    'create a campaign, redeem a code on the balance card, see the activation, stop the campaign',
    async () => {
      await page.setViewportSize(DESKTOP_800);
      const adminToken = await session.signIn();

      await page.goto(`${app.url}/app/admin/promotions`);
      const form = page.getByTestId('promo-create');
      await form.getByLabel('Название акции').fill('Зимняя акция');
      await form.getByLabel('Сумма за активацию, ₽').fill('150,50');
      await form.getByLabel('Число кодов (до 10 000)').fill('3');
      await form.getByLabel('Действует до').fill('2099-12-31T23:59');
      await form.getByRole('button', { name: 'Создать акцию' }).click();
      await page.getByTestId('promo-created').waitFor();
      expect(await page.getByTestId('promo-created').textContent()).toContain('Акция «Зимняя акция» создана: 3 кода.');
      expect(await page.getByTestId('promo-created-export').count()).toBe(1);

      const list = page.getByTestId('promo-list');
      await list.getByRole('link', { name: 'Зимняя акция' }).waitFor();
      const row = list.locator('tr[data-campaign="Зимняя акция"]');
      expect(await row.textContent()).toContain('0 из 3');
      expect(await row.textContent()).toContain('Действует');
      await page.screenshot({ path: screenPath('promotions-desktop'), fullPage: true });

      // The codes, as the operator would download them.
      const campaigns = (await call(app.url, 'GET', '/api/admin/promotions', { token: adminToken })).body.campaigns as { id: string; name: string }[];
      const campaignId = campaigns.find((c) => c.name === 'Зимняя акция')!.id;
      const csv = await (await fetch(`${app.url}/api/admin/promotions/${campaignId}/codes/export`, { headers: { authorization: `Bearer ${adminToken}` } })).text();
      const code = csv.split('\r\n')[1]!.split(',')[0]!;

      // A customer on a phone.
      const customer = await openPage(browser);
      await customer.page.setViewportSize(PHONE);
      const email = `oksana.${Date.now()}@example.com`;
      await registerThroughPage(customer.page, app.url, { email, password: 'customer-1' });
      const promo = customer.page.getByTestId('promo-form');
      await promo.getByLabel('Промокод').fill(` ${code.toLowerCase().replaceAll('-', ' ')} `);
      await promo.getByRole('button', { name: 'Активировать' }).click();
      await customer.page.getByTestId('promo-result').waitFor();
      const result = (await customer.page.getByTestId('promo-result').textContent())!.replace(/\s+/g, ' ');
      expect(result).toContain('Промокод акции «Зимняя акция» активирован: зачислено 150,50 ₽');
      expect(result).toContain('баланс 153,50 ₽');
      await customer.page.waitForFunction(() => document.querySelector('[data-testid="balance"]')?.textContent?.replace(/\s+/g, ' ').includes('153,50'));
      expect(await horizontalOverflow(customer.page)).toBeLessThanOrEqual(0);
      await customer.page.screenshot({ path: screenPath('promo-redeem-phone'), fullPage: true });

      // The same code again: the server's words under the field.
      await promo.getByLabel('Промокод').fill(code);
      await promo.getByRole('button', { name: 'Активировать' }).click();
      await customer.page.waitForFunction(() => document.body.textContent?.includes('Вы уже активировали промокод этой акции'));
      expect(customer.pageErrors).toEqual([]);
      await customer.context.close();

      // The campaign's page: the activation, masked; then stop it.
      await list.getByRole('link', { name: 'Зимняя акция' }).click();
      await page.getByTestId('promo-detail').getByRole('heading', { name: 'Зимняя акция' }).waitFor();
      expect(await page.getByTestId('promo-redemptions').textContent()).toBe('1 из 3');
      const redemptions = await page.getByTestId('promo-redemption-list').textContent();
      expect(redemptions).toContain('o***@example.com');
      expect(redemptions).not.toContain('oksana');
      await page.getByRole('button', { name: 'Остановить акцию' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Остановить' }).click();
      await page.waitForFunction(() => document.querySelector('[data-testid="promo-status"]')?.textContent === 'Остановлена');
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
