// The usage page's «Скачать CSV» in a real browser (Debian's chromium, driven by playwright-core) against
// the real app: the button asks for the period on screen and the browser receives the server's file.
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { createApiKey, uniqueEmail, type TestApp } from '../helpers/app';
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
import { openaiClient, settleAll } from '../helpers/gateway';

const browserSuite = browserDescribe('web-usage-export.test.ts');

let upstream: FakeUpstream;
let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

browserSuite('usage export in the dashboard', () => {
  useBrowserApp({
    before: async () => {
      upstream = await startFakeUpstream({ apiKey: 'upstream-secret' });
    },
    app: () => ({ env: { UPSTREAM_BASE_URL: upstream.url, UPSTREAM_API_KEY: 'upstream-secret' } }),
    ready: (s) => ({ app, page, pageErrors } = s),
    after: () => upstream?.close(),
  });

  test(
    'the button downloads the CSV of the period on screen, under the server’s file name',
    async () => {
      await registerThroughPage(page, app.url, { email: uniqueEmail('export'), password: 'export-secret-1' });
      const token = await sessionToken(page);
      const key = await createApiKey(app.url, token, 'для выгрузки');
      const client = openaiClient(app, key.key);
      for (let i = 0; i < 3; i++) await client.chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет' }] });
      await settleAll(app);
      await page.reload();

      const button = page.getByTestId('usage-export');
      await button.waitFor();
      // The filters of the period on screen (30 days by default, from this browser's midnight).
      const href = new URL((await button.getAttribute('data-href'))!, app.url);
      expect(href.pathname).toBe('/api/usage/export');
      const from = new Date(href.searchParams.get('from')!);
      expect(Math.round((Date.now() - from.getTime()) / 86_400_000)).toBeGreaterThanOrEqual(29);

      const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
      const day = from.toISOString().slice(0, 10);
      expect(download.suggestedFilename()).toBe(`conduit-usage-${day}-now.csv`);
      const rows: Record<string, string>[] = parse(readFileSync((await download.path())!, 'utf8'), { columns: true });
      expect(rows).toHaveLength(3);
      expect(rows.every((r) => r.key_name === 'для выгрузки' && r.model === 'acme/chat')).toBe(true);

      // Another period asks for its own.
      await page.getByRole('button', { name: '7 дн.' }).click();
      const week = new URL((await button.getAttribute('data-href'))!, app.url);
      expect(Math.round((Date.now() - new Date(week.searchParams.get('from')!).getTime()) / 86_400_000)).toBeLessThanOrEqual(7);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    '«Для Excel» downloads the same requests for a Russian Excel, with the key and model chosen in «Последние запросы»',
    async () => {
      // A second account in the same browser: the first test's session goes first.
      await page.evaluate(() => localStorage.removeItem('conduit.session'));
      await registerThroughPage(page, app.url, { email: uniqueEmail('excel'), password: 'export-secret-1' });
      const token = await sessionToken(page);
      const site = await createApiKey(app.url, token, 'Сайт');
      const bot = await createApiKey(app.url, token, 'Бот');
      const ask = (key: string, model: string) => openaiClient(app, key).chat.completions.create({ model, messages: [{ role: 'user', content: 'Привет' }] });
      await ask(site.key, 'acme/chat');
      await ask(site.key, 'acme/other');
      await ask(bot.key, 'acme/chat');
      await settleAll(app);
      await page.reload();

      for (const [size, name] of [
        [DESKTOP, 'usage-export-desktop'],
        [PHONE, 'usage-export-phone'],
      ] as const) {
        await page.setViewportSize(size);
        const excel = page.getByTestId('usage-export-excel');
        await excel.waitFor();
        expect(await excel.textContent()).toBe('Для Excel');
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        await excel.scrollIntoViewIfNeeded();
        await page.screenshot({ path: screenPath(name) });
      }
      await page.setViewportSize(DESKTOP);

      // Everything first: three requests, Russian headers, semicolons, Moscow time.
      const excel = page.getByTestId('usage-export-excel');
      const [all] = await Promise.all([page.waitForEvent('download'), excel.click()]);
      const allText = readFileSync((await all.path())!, 'utf8');
      expect(allText.charCodeAt(0)).toBe(0xfeff);
      const allRows: Record<string, string>[] = parse(allText.slice(1), { columns: true, delimiter: ';' });
      expect(allRows).toHaveLength(3);
      expect(allRows.every((r) => /^\d\d\.\d\d\.\d{4} \d\d:\d\d:\d\d$/.test(r['Время (МСК)']!) && /^\d+,\d{9}$/.test(r.Стоимость!))).toBe(true);

      // The list's filters go with both buttons.
      await page.getByTestId('recent-key-filter').selectOption(site.id);
      await page.getByTestId('recent-model-filter').selectOption('acme/chat');
      const csvHref = new URL((await page.getByTestId('usage-export').getAttribute('data-href'))!, app.url);
      expect([csvHref.searchParams.get('keyId'), csvHref.searchParams.get('model'), csvHref.searchParams.get('format')]).toEqual([site.id, 'acme/chat', null]);
      const excelHref = new URL((await excel.getAttribute('data-href'))!, app.url);
      expect([excelHref.searchParams.get('keyId'), excelHref.searchParams.get('model'), excelHref.searchParams.get('format')]).toEqual([
        site.id,
        'acme/chat',
        'excel-ru',
      ]);
      const [filtered] = await Promise.all([page.waitForEvent('download'), excel.click()]);
      const rows: Record<string, string>[] = parse(readFileSync((await filtered.path())!, 'utf8').slice(1), { columns: true, delimiter: ';' });
      expect(rows.map((r) => [r.Ключ, r.Модель])).toEqual([['Сайт', 'acme/chat']]);
      const [plain] = await Promise.all([page.waitForEvent('download'), page.getByTestId('usage-export').click()]);
      const plainRows: Record<string, string>[] = parse(readFileSync((await plain.path())!, 'utf8'), { columns: true, bom: true });
      expect(plainRows.map((r) => [r.key_name, r.model])).toEqual([['Сайт', 'acme/chat']]);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
