// The account's sessions in chromium (issue 41 point 5): every sign-in listed with its device in plain
// words, address and times, this one marked; «Завершить» ends one (its token refused at once),
// «Завершить все, кроме этой» the rest. At 1280×800 and 390×844 nothing is wider than the window.
// Screenshots of the section: test-artifacts/screens/sessions-desktop|phone.png (docs/screens/ has copies).
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { call, uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS, horizontalOverflow, PHONE, registerThroughPage, screenPath, useBrowserApp } from '../helpers/browser';

const SCREENS = ['sessions-desktop', 'sessions-phone'] as const;
const DESKTOP_800 = { width: 1280, height: 800 };
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const browserSuite = browserDescribe('web-sessions.test.ts');

let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

const loginAs = async (email: string, password: string, userAgent: string) =>
  (await call(app.url, 'POST', '/api/auth/login', { body: { email, password }, headers: { 'user-agent': userAgent } })).body.token as string;
const me = (token: string) => call(app.url, 'GET', '/api/auth/me', { token });

browserSuite('sessions on the account page', () => {
  useBrowserApp({ screens: SCREENS, ready: (s) => ({ app, page, pageErrors } = s) });

  test(
    'the list with devices; end one; end all but this one; both widths',
    async () => {
      const user = { email: uniqueEmail('web-sessions'), password: 'sessions-secret-1' };
      await page.setViewportSize(DESKTOP_800);
      await registerThroughPage(page, app.url, user);
      const phone = await loginAs(user.email, user.password, SAFARI_IPHONE);
      const laptop = await loginAs(user.email, user.password, FIREFOX_WINDOWS);

      await page.getByRole('link', { name: 'Аккаунт' }).click();
      await page.waitForURL(`${app.url}/app/account`);
      const list = page.getByRole('list', { name: 'Сеансы входа' });
      await list.waitFor();
      const rows = list.getByTestId('session');
      await rows.nth(2).waitFor();
      expect(await rows.count()).toBe(3);
      const current = rows.filter({ hasText: 'Этот сеанс' });
      expect(await current.count()).toBe(1);
      // Playwright's chromium here runs headless on Linux.
      expect(await current.locator('.session-device').textContent()).toContain('Chrome, Linux');
      await rows.filter({ hasText: 'Safari, iOS' }).waitFor();
      await rows.filter({ hasText: 'Firefox, Windows' }).waitFor();
      expect(await current.getByRole('button', { name: /Завершить/ }).count()).toBe(0);
      await list
        .getByText(/Адрес: /)
        .first()
        .waitFor();
      await list
        .getByText(/Последнее действие: /)
        .first()
        .waitFor();

      for (const [size, name] of [
        [DESKTOP_800, 'sessions-desktop'],
        [PHONE, 'sessions-phone'],
      ] as const) {
        await page.setViewportSize(size);
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        // The section alone: the rest of the account page has screenshots of its own.
        await page.getByRole('region', { name: 'Сеансы' }).screenshot({ path: screenPath(name) });
      }

      // End the phone's session (still at phone width): confirmed, gone from the list, its token refused.
      await rows
        .filter({ hasText: 'Safari, iOS' })
        .getByRole('button', { name: /Завершить/ })
        .click();
      const dialog = page.getByRole('dialog', { name: 'Завершить сеанс?' });
      await dialog.getByText('Safari, iOS').waitFor();
      await dialog.getByRole('button', { name: 'Завершить', exact: true }).click();
      await page.getByRole('status').getByText('Сеанс завершён').waitFor();
      await rows.filter({ hasText: 'Safari, iOS' }).waitFor({ state: 'detached' });
      expect(await rows.count()).toBe(2);
      expect((await me(phone)).status).toBe(401);
      expect((await me(laptop)).status).toBe(200);

      await page.setViewportSize(DESKTOP_800);
      await page.getByRole('button', { name: 'Завершить все, кроме этой' }).click();
      const others = page.getByRole('dialog', { name: 'Завершить все сеансы, кроме этого?' });
      await others.getByRole('button', { name: 'Завершить остальные' }).click();
      await page.getByRole('status').getByText('Завершено сеансов: 1').waitFor();
      await rows.filter({ hasText: 'Firefox, Windows' }).waitFor({ state: 'detached' });
      expect(await rows.count()).toBe(1);
      await page.getByText('Других сеансов нет.').waitFor();
      expect((await me(laptop)).status).toBe(401);
      // This page goes on working.
      await page.reload();
      await list.waitFor();
      expect(await rows.count()).toBe(1);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
