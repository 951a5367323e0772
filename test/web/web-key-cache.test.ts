// The keys screen sets a key's response cache (issue 43 point 6) in a real browser: chosen when the key is
// made, shown in the list, changed in the key's dialog; the key's record says what the screen said.
import { expect, test } from 'bun:test';
import { uniqueEmail } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS, registerThroughPage, useBrowserApp } from '../helpers/browser';

const browserSuite = browserDescribe('web-key-cache.test.ts');

browserSuite('the keys screen: response cache', () => {
  const session = useBrowserApp();

  test(
    'a key made with the cache for temperature 0, then switched to any temperature in its dialog',
    async () => {
      const { app, page } = session;
      await registerThroughPage(page, app.url, { email: uniqueEmail('key-cache'), password: 'key-cache-secret-1' });
      await page.goto(`${app.url}/app/keys`);
      await page.getByRole('heading', { name: 'API-ключи' }).waitFor();

      const form = page.getByTestId('new-key-form');
      await form.getByLabel('Название', { exact: true }).fill('Кэшируемый');
      await form.getByLabel('Кэш ответов').selectOption('on');
      await form.getByRole('button', { name: 'Создать ключ' }).click();
      await page.getByTestId('created-key').waitFor();
      const row = page.locator('[data-testid="keys-table"] tbody tr', { hasText: 'Кэшируемый' });
      await row.getByTestId('key-cache').getByText('Кэш ответов: temperature 0').waitFor();
      const keyId = (await row.getAttribute('data-key-id'))!;
      const cacheOf = async () => (await app.sql<{ cache: string }>('select cache from api_keys where id = $1', [keyId]))[0]!.cache;
      expect(await cacheOf()).toBe('on');

      await row.getByRole('button', { name: 'Изменить ключ «Кэшируемый»' }).click();
      const dialog = page.getByRole('dialog', { name: 'Изменить ключ «Кэшируемый»' });
      expect(await dialog.getByLabel('Кэш ответов').inputValue()).toBe('on');
      await dialog.getByLabel('Кэш ответов').selectOption('any');
      await dialog.getByRole('button', { name: 'Сохранить' }).click();
      await row.getByTestId('key-cache').getByText('Кэш ответов: любая temperature').waitFor();
      expect(await cacheOf()).toBe('any');
      expect(session.pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
