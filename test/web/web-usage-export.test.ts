// The usage page's «Скачать CSV» in a real browser (Debian's chromium, driven by playwright-core) against
// the real app: the button asks for the period on screen and the browser receives the server's file.
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { createApiKey, uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS, registerThroughPage, sessionToken, useBrowserApp } from '../helpers/browser';
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
});
