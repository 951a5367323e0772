// Auto top-up on the dashboard page in chromium, against the real app wired to the fake YooKassa and the fake
// model upstream: a top-up with «Сохранить карту», the saved card shown by name, the form «пополнять на X,
// когда баланс ниже Y, не больше Z в месяц» refused in the page and then saved, the auto payment the next
// crossing makes listed with its status, and the card removed after a confirmation. Screenshots:
// test-artifacts/screens/auto-topup*.png.
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import type { FakeYookassa } from '../fakes/yookassa';
import { createApiKey, uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, DESKTOP, FLOW_TIMEOUT_MS, horizontalOverflow, PHONE, registerThroughPage, screenPath, sessionToken } from '../helpers/browser';
import { payThroughForm, useCheckoutApp } from '../helpers/checkout';
import { openaiClient, setBalanceNano, settleAll } from '../helpers/gateway';

const SCREENS = ['auto-topup', 'auto-topup-phone'] as const;
const browserSuite = browserDescribe('web-auto-topup.test.ts');

let yk: FakeYookassa;
let app: TestApp;
let page: Page;
let pageErrors: string[] = [];
const user = { email: uniqueEmail('autotopup'), password: 'autotopup-secret-1' };

browserSuite('auto top-up on the dashboard page in chromium', () => {
  const session = useCheckoutApp({ screens: SCREENS, ready: (s) => ({ app, page, pageErrors, yk } = s) });

  test(
    'save the card on a top-up, set auto top-up, see the auto payment, remove the card',
    async () => {
      await registerThroughPage(page, app.url, user);
      const section = page.getByTestId('auto-topup');
      await section.getByTestId('no-card').waitFor();

      // A top-up with «Сохранить карту»: YooKassa is asked to keep it.
      await page.getByRole('button', { name: 'Пополнить баланс' }).click();
      const { payment } = await payThroughForm(session, '100', { saveCard: true });
      expect(payment.savePaymentMethod).toBe(true);
      yk.succeed(payment.id);
      await page.getByRole('link', { name: 'Вернуться в магазин' }).click();
      await page.getByTestId('topup-status').getByText('Оплачено', { exact: true }).waitFor({ timeout: 15_000 });
      await page.getByRole('link', { name: 'Вернуться к балансу' }).click();
      await section.getByTestId('saved-card').getByText('Bank card *4477').waitFor();

      // The form: refused in the page with the server's words, then saved.
      await section.getByLabel('Пополнять баланс автоматически').check();
      await section.getByLabel(/Пополнять на/).fill('10');
      await section.getByLabel(/Когда баланс ниже/).fill('50');
      await section.getByLabel(/Не больше в месяц/).fill('5');
      await section.getByRole('button', { name: 'Сохранить' }).click();
      await section.getByText('лимит в месяц не может быть меньше суммы одного пополнения', { exact: true }).waitFor();
      expect(yk.count('POST')).toBe(1);
      await section.getByLabel(/Не больше в месяц/).fill('1000');
      await section.getByRole('button', { name: 'Сохранить' }).click();
      await section.getByText('Сохранено').waitFor();

      // Spending crosses the threshold: one auto payment, listed with its status.
      const token = await sessionToken(page);
      const [owner] = await app.sql<{ id: string }>('select id from users where email = $1', [user.email]);
      const key = await createApiKey(app.url, token);
      await setBalanceNano(app, owner!.id, 50_000_000_000n + 2125n);
      const client = openaiClient(app, key.key);
      for (let i = 0; i < 2; i++) await client.chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет!' }], max_tokens: 5 });
      await settleAll(app);
      await app.instance.services.topups.autoTopup.idle();
      await page.reload();
      const attempts = section.getByTestId('auto-topup-attempts');
      await attempts.getByText('Оплачено').waitFor();
      expect(await attempts.textContent()).toContain('10,00');
      // The section alone: docs/auto-topup.md shows it (docs/screens/auto-topup-desktop.png is a copy).
      await section.screenshot({ path: screenPath('auto-topup') });
      await page.setViewportSize(PHONE);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: screenPath('auto-topup-phone'), fullPage: true });
      await page.setViewportSize(DESKTOP);

      // «Удалить» asks first; then the card is gone and auto top-up is off.
      await section.getByRole('button', { name: 'Удалить' }).click();
      await page.getByRole('button', { name: 'Удалить карту' }).click();
      await section.getByTestId('no-card').waitFor();
      expect(await section.getByLabel('Пополнять баланс автоматически').isChecked()).toBe(false);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
