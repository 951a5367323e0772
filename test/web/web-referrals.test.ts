// The referral program in a real browser against the real app (issue 45, point 4): the overview points to
// «Рефералы» while payouts are on; the owner makes the invitation link there; a visitor who opens it
// registers through the page's form and is recorded as invited; after the invited account's card top-up
// the referrer's screen lists it, masked, with what it earned. Both widths, nothing wider than the window.
// Screenshots: test-artifacts/screens/referrals-desktop.png, referrals-phone.png.
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { startFakeYookassa, type FakeYookassa } from '../fakes/yookassa';
import { call, uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, DESKTOP, FLOW_TIMEOUT_MS, horizontalOverflow, openPage, PHONE, registerThroughPage, screenPath, useBrowserApp } from '../helpers/browser';

const SCREENS = ['referrals-desktop', 'referrals-phone'] as const;
const browserSuite = browserDescribe('web-referrals.test.ts');
const SHOP_ID = '506751';
const SECRET_KEY = 'test_Fh8hUAVVBGUGbjmlzba6TB0iyUbos_lueTHE-axOwM0';

let app: TestApp;
let page: Page;
let pageErrors: string[] = [];
let yk: FakeYookassa;

browserSuite('«Рефералы» in chromium', () => {
  const session = useBrowserApp({
    screens: SCREENS,
    before: async () => {
      yk = await startFakeYookassa();
      yk.addShop(SHOP_ID, SECRET_KEY);
    },
    app: () => ({ env: { REFERRAL_PERCENT: '10', YOOKASSA_SHOP_ID: SHOP_ID, YOOKASSA_SECRET_KEY: SECRET_KEY, YOOKASSA_API_BASE_URL: yk.url } }),
    ready: (s) => ({ app, page, pageErrors } = s),
    after: () => yk?.close(),
  });

  test(
    'the link is made on the referral screen; a visitor registers through it; the invited account’s top-up shows up masked with its earnings',
    async () => {
      const referrer = { email: uniqueEmail('web-referrer'), password: 'referrer-secret-1' };
      await registerThroughPage(page, app.url, referrer);
      const invite = page.getByTestId('referral-invite');
      await invite.getByText('10 % от пополнений каждого').waitFor();
      await invite.getByRole('link', { name: 'Ссылка-приглашение и приглашённые' }).click();
      await page.waitForURL(`${app.url}/app/referrals`);
      await page.getByText('в течение 12 месяцев после его регистрации').waitFor();
      await page.getByText('По вашей ссылке ещё никто не зарегистрировался.').waitFor();
      await page.getByRole('button', { name: 'Создать ссылку-приглашение' }).click();
      const link = (await page.getByTestId('referral-link').textContent())!;
      expect(link).toMatch(/^http:\/\/localhost:\d+\/app\/register\?ref=[a-z2-9]{8}$/);

      // A visitor in another browser opens the link (on this app's address) and registers.
      const visitor = await openPage(session.browser);
      const invitedEmail = uniqueEmail('web-invited');
      await visitor.page.goto(`${app.url}/app/register${new URL(link).search}`);
      await visitor.page.getByTestId('invited-notice').waitFor();
      await visitor.page.getByLabel('E-mail').fill(invitedEmail);
      await visitor.page.getByLabel('Пароль').fill('invited-secret-1');
      await visitor.page.getByRole('button', { name: 'Зарегистрироваться' }).click();
      await visitor.page.waitForURL(`${app.url}/app/`);
      const token = JSON.parse((await visitor.page.evaluate(() => localStorage.getItem('conduit.session')))!).token as string;
      expect(visitor.pageErrors).toEqual([]);
      await visitor.context.close();

      // Its card top-up of 250 ₽ earns the referrer 25 ₽.
      const topup = await call(app.url, 'POST', '/api/billing/topups', { token, body: { amount: 250 } });
      expect(topup.status).toBe(201);
      const [row] = await app.sql<{ payment_id: string }>('select payment_id from topups where id = $1', [topup.body.id]);
      yk.succeed(row!.payment_id);
      expect((await yk.notify(`${app.url}/api/billing/yookassa/notifications`, row!.payment_id)).status).toBe(200);

      await page.reload();
      const table = page.getByTestId('referred-table');
      await table.waitFor();
      const cells = await table.locator('tbody tr').first().locator('td').allTextContents();
      expect(cells[0]).toBe(`${invitedEmail.slice(0, 2)}***@example.com`);
      expect(cells[3]).toBe('Начисляется');
      expect(cells[4]!.replace(/\s/g, '')).toBe('25,00₽');
      expect((await page.getByTestId('referral-total').textContent())!.replace(/\s/g, '')).toBe('25,00₽');
      expect(await page.getByText(invitedEmail).count()).toBe(0);

      for (const size of [DESKTOP, PHONE]) {
        await page.setViewportSize(size);
        expect({ size: size.width, overflow: await horizontalOverflow(page) }).toEqual({ size: size.width, overflow: 0 });
        await page.screenshot({ path: screenPath(size === DESKTOP ? 'referrals-desktop' : 'referrals-phone'), fullPage: true });
      }
      await page.setViewportSize(DESKTOP);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
