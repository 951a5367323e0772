// Key limits and usage as an owner sees them in a real browser (issue 33, points 3, 5, 9, 10): a key over
// its limit says how much of it is spent («Лимит исчерпан» only at 100 %) with a bar of its period's spend and
// where the period began (local time), an expired one «Истёк», the last use shows right after paid calls; refused calls are in the
// latest requests, found by the key filter; the usage page fits 390 px and the requests table its card
// at 1440 px; the chart's y-axis is as wide as its labels; model prices say ₽ and per 1M tokens.
// Screenshots: test-artifacts/screens/keys-limits(-phone).png, usage-refused(-phone).png and usage-chart.png.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import {
  browserDescribe,
  buildPage,
  DESKTOP,
  FLOW_TIMEOUT_MS,
  horizontalOverflow,
  launchChromium,
  PHONE,
  prepareScreens,
  registerThroughPage,
  screenPath,
  sessionToken,
  SETUP_TIMEOUT_MS,
} from '../helpers/browser';
import { openaiClient, settleAll } from '../helpers/gateway';

const SCREENS = ['keys-limits', 'keys-limits-phone', 'usage-refused', 'usage-refused-phone', 'usage-chart'] as const;
const WIDE = { width: 1440, height: 900 };
const browserSuite = browserDescribe('web-keys-usage.test.ts');

let fake: FakeUpstream;
let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];
const user = { email: uniqueEmail('keys-usage'), password: 'keys-usage-secret-1' };
/** A long key name: the usage page's key filter once grew to it and pushed the page sideways at 390 px. */
const LIMITED_NAME = 'Интеграция с сайтом интернет-магазина «Лён и хлопок»';
let limitedId = '';

async function createKey(token: string, body: Record<string, unknown>) {
  const res = await call<{ id: string; key: string }>(app.url, 'POST', '/api/keys', { token, body });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Every width the issue names: nothing scrolls sideways. */
async function fitsEveryWidth(shot: string) {
  for (const viewport of [WIDE, DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    // The chart redraws to the new width on its ResizeObserver's next call: what is checked is the page settled.
    await page.waitForFunction(() => document.documentElement.scrollWidth <= window.innerWidth, undefined, { timeout: 5_000 }).catch(() => {});
    const over = await horizontalOverflow(page);
    if (over > 0) {
      const wide = await page.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
          .slice(-8)
          .map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`),
      );
      throw new Error(`${viewport.width}: ${over} px sideways: ${wide.join(' | ')}`);
    }
  }
  await page.screenshot({ path: screenPath(`${shot}-phone`), fullPage: true });
  await page.setViewportSize(WIDE);
}

browserSuite('key limits and refused calls in chromium', () => {
  beforeAll(async () => {
    await buildPage();
    prepareScreens(SCREENS);
    fake = await startFakeUpstream();
    app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url } });
    browser = await launchChromium();
    // Moscow keeps UTC+3 all year: a UTC midnight is 03:00 there.
    context = await browser.newContext({ viewport: WIDE, locale: 'ru-RU', timezoneId: 'Europe/Moscow' });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await fake?.close();
  });

  test(
    'keys: a refused key says how much is spent, with its bar and period in local time, «Истёк», the last use right after paid calls',
    async () => {
      await registerThroughPage(page, app.url, user);
      const token = await sessionToken(page);
      const limited = await createKey(token, { name: LIMITED_NAME, spendLimit: 0.00001, limitReset: 'day' });
      limitedId = limited.id;
      const free = await createKey(token, { name: 'Бот поддержки' });
      const expiring = await createKey(token, { name: 'Старый ключ', expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
      expect((await call(app.url, 'PATCH', `/api/keys/${expiring.id}`, { token, body: { expiresAt: new Date(Date.now() - 1000).toISOString() } })).status).toBe(200);

      const client = openaiClient(app, limited.key);
      let served = 0;
      let refused: { status?: number } | null = null;
      for (let i = 0; i < 10 && !refused; i++) {
        const res = await client.chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет' }], max_tokens: 5 }).catch((e) => e);
        if (res.object === 'chat.completion') served++;
        else refused = res;
      }
      expect(refused?.status).toBe(402);
      expect(served).toBeGreaterThanOrEqual(1);
      // Six paid calls today in all (1,275e-5 ₽): the chart's y-axis then steps by 0,0000025 ₽, the long labels
      // («0,0000125 ₽») a fixed axis width cut.
      for (let i = served; i < 6; i++) {
        await openaiClient(app, free.key).chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет' }], max_tokens: 5 });
      }
      await settleAll(app);
      // As if the batched last-use write (every ~10 s) had not come yet: the page must still know.
      await app.sql('update api_keys set last_used_at = null');

      // The nav's link (the overview's first steps name the same screen in quotes).
      await page.getByRole('link', { name: 'API-ключи', exact: true }).click();
      const table = page.getByTestId('keys-table');
      const row = (id: string) => table.locator(`tr[data-key-id="${id}"]`);
      await row(limited.id).waitFor();

      expect(await row(free.id).getByTestId('key-state').textContent()).toBe('Активен');
      expect(await row(expiring.id).getByTestId('key-state').textContent()).toBe('Истёк');

      const bar = row(limited.id).getByRole('meter');
      const percent = Number(await bar.getAttribute('aria-valuenow'));
      // Refused when what is left cannot cover one more request's reservation: most of the limit is spent.
      expect(percent).toBeGreaterThanOrEqual(40);
      expect(percent).toBeLessThanOrEqual(100);
      const spent = await row(limited.id).getByTestId('key-spent').textContent();
      expect(spent).toContain(`из 0,00001\u00a0₽ (${percent} %)`);
      // «Лимит исчерпан» only once the spend reached the limit (issue 41 point 9): a refusal below it (what
      // was left could not cover that request's reservation) leaves a key that still serves smaller calls.
      expect(await row(limited.id).getByTestId('key-state').textContent()).toBe(percent >= 100 ? 'Лимит исчерпан' : `Израсходовано ${percent} %`);
      expect(await row(limited.id).getByTestId('key-period-start').textContent()).toBe('период с 03:00');

      for (const id of [limited.id, free.id]) {
        expect(await row(id).getByTestId('last-used').textContent()).not.toContain('ещё не использовался');
      }
      expect(await row(expiring.id).getByTestId('last-used').textContent()).toBe('ещё не использовался');

      await table.screenshot({ path: screenPath('keys-limits') });
      await fitsEveryWidth('keys-limits');
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'usage: the refused call labelled and found by the key filter; the filter fits 390 px, the table its card at 1440 px; the y-axis fits its labels',
    async () => {
      await page.getByRole('link', { name: 'Баланс' }).first().click();
      const recent = page.getByTestId('recent-requests');
      await recent.getByText('Отклонён: лимит ключа исчерпан').waitFor();

      const filter = page.getByTestId('recent-key-filter');
      await filter.selectOption(limitedId);
      // The filtered page has come when the other key's request has left it.
      await page
        .waitForFunction(
          (name) => [...document.querySelectorAll('[data-testid="recent-requests"] tbody tr')].every((tr) => tr.textContent!.includes(name)),
          LIMITED_NAME,
        )
        .catch(() => {});
      const rows = recent.locator('tbody tr');
      const texts = await rows.allTextContents();
      expect(texts.every((t) => t.includes(LIMITED_NAME))).toBe(true);
      expect(texts.filter((t) => t.includes('Отклонён')).length).toBe(1);

      // «Последние запросы» fits its card at 1440 px: no column cut off.
      const fit = () =>
        page.evaluate(() => {
          const table = document.querySelector('[data-testid="recent-requests"]') as HTMLElement;
          const card = table.closest('.card') as HTMLElement;
          const style = getComputedStyle(card);
          return { table: table.scrollWidth, card: card.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) };
        });
      const wide = await fit();
      expect(wide.table).toBeLessThanOrEqual(wide.card);

      // No y-axis label is cut at the chart's left edge: the canvas's first columns hold no ink.
      const ink = await page.evaluate(() => {
        const canvas = document.querySelector('.uplot canvas') as HTMLCanvasElement;
        const pixels = canvas.getContext('2d')!.getImageData(0, 0, 2, canvas.height).data;
        let inked = 0;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) inked++;
        return inked;
      });
      expect(ink).toBe(0);

      await page.locator('.uplot').screenshot({ path: screenPath('usage-chart') });
      await page.getByTestId('recent-requests').screenshot({ path: screenPath('usage-refused') });
      await page.setViewportSize(PHONE);
      const filterBox = await filter.boundingBox();
      expect(filterBox!.x + filterBox!.width).toBeLessThanOrEqual(PHONE.width);
      const phone = await fit();
      expect(phone.table).toBeLessThanOrEqual(phone.card);

      // Model prices name the currency and the unit on a phone too.
      const prices = page.getByTestId('model-prices');
      await prices.waitFor();
      const priceRow = prices.locator('tbody tr').first();
      expect(await priceRow.textContent()).toContain('₽');
      expect(await priceRow.locator('td[data-label="Вход, за 1 млн токенов"]').count()).toBe(1);

      await fitsEveryWidth('usage-refused');
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
