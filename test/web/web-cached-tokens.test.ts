// Cached and reasoning tokens on the dashboard, in a real browser (issue 45 point 2): a customer's recent
// requests say how many prompt tokens came from the provider's cache and how many answer tokens were
// reasoning; the operator's price form takes a row's own cache-read price (the cache-write one left empty is
// derived), the confirmation names it and the table shows it. Both at desktop and phone width.
// Screenshots: test-artifacts/screens/cached-usage(-phone).png, cached-prices-phone.png.
import { expect, test } from 'bun:test';
import { call, createApiKey, uniqueEmail } from '../helpers/app';
import {
  browserDescribe,
  DESKTOP,
  FLOW_TIMEOUT_MS,
  horizontalOverflow,
  openPage,
  PHONE,
  registerThroughPage,
  screenPath,
  sessionToken,
  useConsoleApp,
} from '../helpers/browser';
import { openaiClient, settleAll } from '../helpers/gateway';

const SCREENS = ['cached-usage', 'cached-usage-phone', 'cached-prices-phone'] as const;
const browserSuite = browserDescribe('web-cached-tokens.test.ts');

browserSuite('cached and reasoning tokens in chromium', () => {
  const session = useConsoleApp({ screens: SCREENS, operator: 'cache-ops', upstream: true });

  test(
    'recent requests: «из кэша», «в кэш» and «рассуждения» under the token counts, at both widths',
    async () => {
      const { app, page } = session;
      await registerThroughPage(page, app.url, { email: uniqueEmail('cache-user'), password: 'cache-user-secret-1' });
      const { key } = await createApiKey(app.url, await sessionToken(page));
      session.upstream.reportedUsage.set('acme/chat', {
        prompt_tokens: 1200,
        completion_tokens: 300,
        total_tokens: 1500,
        prompt_tokens_details: { cached_tokens: 800, cache_write_tokens: 100 },
        completion_tokens_details: { reasoning_tokens: 150 },
      });
      await openaiClient(app, key).chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет' }] });
      await settleAll(app);
      await page.reload();
      const parts = page.getByTestId('recent-requests').getByTestId('token-parts');
      await parts.waitFor();
      expect((await parts.textContent())?.replace(/[\s\u00a0\u202f]+/g, ' ')).toBe('из кэша 800 · в кэш 100 · рассуждения 150');
      await page.screenshot({ path: screenPath('cached-usage'), fullPage: true });
      await page.setViewportSize(PHONE);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: screenPath('cached-usage-phone'), fullPage: true });
      await page.setViewportSize(DESKTOP);
      expect(session.pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    "the price form: a row's own cache-read price, the cache-write one derived; confirmed, listed, at both widths",
    async () => {
      const { app } = session;
      const { page, context, pageErrors } = await openPage(session.browser);
      const token = await session.signIn(page);
      await page.goto(`${app.url}/app/admin/prices`);
      const prices = page.getByTestId('admin-prices');
      const form = prices.getByTestId('price-form');
      await form.getByLabel('Шаблон модели').fill('acme/*');
      await form.getByLabel('Запрос за 1M токенов').fill('2');
      await form.getByLabel('Ответ за 1M токенов').fill('8');
      // An empty cache price says how it is derived.
      expect(await form.getByText('Пусто — цена запроса × 1,25').count()).toBe(1);
      await form.getByLabel('Запрос из кэша за 1M токенов').fill('-1');
      await form.getByRole('button', { name: 'Сохранить цену' }).click();
      await form.locator('[aria-invalid="true"]').first().waitFor();
      await form.getByLabel('Запрос из кэша за 1M токенов').fill('0,5');
      await form.getByRole('button', { name: 'Сохранить цену' }).click();
      const dialog = page.getByRole('dialog', { name: 'Добавить цену для всех?' });
      await dialog.getByText('Запрос из кэша за 1 млн токенов').waitFor();
      await dialog.getByRole('button', { name: 'Сохранить для всех' }).click();
      await prices.getByText('Цена acme/* добавлена').waitFor();
      expect(await prices.getByRole('status').textContent()).toContain('из кэша 0,50');
      const row = prices.getByTestId('prices-table').locator('tr[data-pattern="acme/*"]');
      expect(await row.getByTestId('price-cache').textContent()).toContain('из кэша');
      const listed = await call(app.url, 'GET', '/api/admin/prices', { token });
      expect(listed.body.prices).toEqual([expect.objectContaining({ pattern: 'acme/*', cachedPromptPerMillion: 0.5, cacheWritePerMillion: null })]);
      await page.setViewportSize(PHONE);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: screenPath('cached-prices-phone'), fullPage: true });
      expect(pageErrors).toEqual([]);
      await context.close();
    },
    FLOW_TIMEOUT_MS,
  );
});
