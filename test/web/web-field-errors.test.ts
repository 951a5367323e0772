// Issue 16, points 4 and 5, in a real browser (desktop and 390 px): a refused field shows its message
// under itself, outlined and tied to the message (aria-invalid, aria-describedby), whether the page's own
// check or the server refused it, and the line under the save button only points at the fields; the VK
// section says «Подключено» only after VK answered with the saved key, checks with that saved key without
// asking for it again, and every disabled button says why. Screenshots: test-artifacts/screens/field-errors*.png.
import { expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, DESKTOP, FLOW_TIMEOUT_MS, horizontalOverflow, PHONE, registerThroughPage, screenPath, useBrowserApp } from '../helpers/browser';
import { CODE, GROUP, SECRET, TOKEN } from '../helpers/social';

const SCREENS = ['field-errors', 'field-errors-phone'] as const;
const browserSuite = browserDescribe('web-field-errors.test.ts');
const COMMUNITY = 'Салон «Лён»';

let vk: FakeVk;
let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

/** The field's input is outlined as invalid and described by the message shown under it; returns the message. */
async function fieldError(section: Locator, label: string): Promise<string> {
  const input = section.getByLabel(label, { exact: true });
  expect(await input.getAttribute('aria-invalid')).toBe('true');
  const describedBy = (await input.getAttribute('aria-describedby')) ?? '';
  const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'));
  expect(errorId).toBeDefined();
  const message = page.locator(`[id="${errorId}"]`);
  // Under its own field: inside the same .field block as the input.
  const field = section.locator('.field').filter({ has: page.getByLabel(label, { exact: true }) });
  expect(await field.locator(`[id="${errorId}"]`).count()).toBe(1);
  expect(await field.getAttribute('class')).toContain('field-invalid');
  return (await message.textContent()) ?? '';
}

browserSuite('field errors and the VK status in chromium', () => {
  useBrowserApp({
    screens: SCREENS,
    before: async () => {
      vk = await startFakeVk();
      vk.addGroup({ id: GROUP, name: COMMUNITY, token: TOKEN, confirmationCode: CODE });
    },
    app: () => ({ env: { VK_API_BASE_URL: vk.url } }),
    ready: (s) => ({ app, page, pageErrors } = s),
    after: () => vk?.close(),
  });

  test(
    'errors under their fields; «Подключено» only after VK answered; the check uses the saved key; disabled buttons say why',
    async () => {
      await registerThroughPage(page, app.url, { email: uniqueEmail('fields'), password: 'field-errors-secret-1' });
      // The dashboard links to the API reference.
      expect(await page.getByTestId('docs-link').getAttribute('href')).toBe('/docs');
      await page.getByRole('link', { name: 'Агенты' }).click();
      await page.getByLabel('Имя').fill(COMMUNITY);
      await page.getByRole('button', { name: 'Создать агента' }).click();
      await page.waitForURL(/\/app\/agents\/[0-9a-f-]{36}$/);
      const agentPage = page.url();
      await page.goto(`${agentPage}/telegram`);
      const messenger = page.getByTestId('messenger-settings');
      expect(await messenger.getByRole('button', { name: 'Проверить права бота в канале' }).isDisabled()).toBe(true);
      await messenger.getByText('Доступно после сохранения настроек').waitFor();
      await page.goto(`${agentPage}/vk`);

      const social = page.getByTestId('social-settings');
      await social.getByTestId('social-status').filter({ hasText: 'Не подключено' }).waitFor();
      // Nothing saved yet: the buttons that need saved settings are off, and say so.
      expect(await social.getByRole('button', { name: 'Получить код подтверждения' }).isDisabled()).toBe(true);
      expect(await social.getByRole('button', { name: 'Подключить webhook в сообществе' }).isDisabled()).toBe(true);
      expect(await social.getByText('Доступно после сохранения настроек').count()).toBe(2);
      expect(await social.getByRole('button', { name: 'Проверить подключение' }).isDisabled()).toBe(true);
      await social.getByText('Введите ID сообщества и ключ доступа или сохраните настройки').waitFor();

      // The page's own check: the message under «ID сообщества», the field outlined.
      const save = social.getByRole('button', { name: 'Сохранить настройки ВКонтакте' });
      await social.getByLabel('ID сообщества').fill('12ab');
      await save.click();
      expect(await fieldError(social, 'ID сообщества')).toBe('только цифры — числовой id сообщества ВКонтакте');

      // The server's refusal (a first save needs the key and the secret): under «Ключ доступа сообщества»,
      // not under the button, where only a pointer to the fields remains.
      await social.getByLabel('ID сообщества').fill(String(GROUP));
      await save.click();
      const formAlerts = social.locator('form > [role="alert"]');
      await formAlerts.waitFor();
      expect(await formAlerts.textContent()).toBe('Не сохранено: исправьте поля, отмеченные выше');
      const serverMessage = await fieldError(social, 'Ключ доступа сообщества');
      expect(serverMessage).toBe('Укажите ключ доступа сообщества и секретный ключ: без них сообщество не подключить');
      expect(await social.getByLabel('ID сообщества').getAttribute('aria-invalid')).toBe('false');
      await page.screenshot({ path: screenPath('field-errors'), fullPage: true });

      await page.setViewportSize(PHONE);
      await social.getByLabel('Ключ доступа сообщества').scrollIntoViewIfNeeded();
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: screenPath('field-errors-phone') });
      await page.setViewportSize(DESKTOP);

      // Saved while VK does not answer: saved, but not «Подключено».
      vk.failNextHttp('groups.getById', 503, 3);
      await social.getByLabel('Ключ доступа сообщества').fill(TOKEN);
      await social.getByLabel('Секретный ключ').fill(SECRET);
      await save.click();
      await social.getByRole('status').filter({ hasText: 'Сохранено' }).first().waitFor();
      await social.getByTestId('social-status').filter({ hasText: 'Нет связи с ВКонтакте' }).waitFor();
      await social.getByText('ВКонтакте сейчас недоступен, попробуйте позже').first().waitFor();
      expect(await social.getByText('Подключено', { exact: true }).count()).toBe(0);
      expect(await social.getByLabel('Ключ доступа сообщества').getAttribute('aria-invalid')).toBe('false');
      // Saved settings open the other buttons, and their reasons go.
      expect(await social.getByText('Доступно после сохранения настроек').count()).toBe(0);

      // VK is back: «Проверить подключение» with the key field empty checks the saved key on the server.
      vk.reset();
      vk.addGroup({ id: GROUP, name: COMMUNITY, token: TOKEN, confirmationCode: CODE });
      expect(await social.getByLabel('Ключ доступа сообщества').inputValue()).toBe('');
      await social.getByRole('button', { name: 'Проверить подключение' }).click();
      await social.getByText(`Подключение работает: «${COMMUNITY}»`).waitFor();
      await social.getByTestId('social-status').filter({ hasText: 'Подключено' }).waitFor();
      expect(vk.calls.filter((c) => c.method === 'groups.getById').every((c) => c.token === TOKEN)).toBe(true);
      expect(await page.content()).not.toContain(TOKEN);

      // A new key comes with the first call ready to paste: curl and the OpenAI SDK, with the full base URL.
      await page.getByRole('link', { name: 'API-ключи', exact: true }).click();
      await page.getByLabel('Название').fill('Ключ для примера');
      await page.getByRole('button', { name: 'Создать ключ' }).click();
      const key = (await page.getByTestId('new-key-value').textContent())!;
      const origin = new URL(page.url()).origin;
      const snippets = page.getByTestId('key-snippets').locator('pre');
      expect(await snippets.count()).toBe(2);
      const [curl, sdk] = await snippets.allTextContents();
      expect(curl).toContain(`curl ${origin}/v1/chat/completions`);
      expect(curl).toContain(`Authorization: Bearer ${key}`);
      expect(sdk).toContain(`new OpenAI({ baseURL: '${origin}/v1', apiKey: '${key}' })`);
      await page.setViewportSize(PHONE);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.setViewportSize(DESKTOP);

      for (const name of SCREENS) expect(statSync(screenPath(name)).size).toBeGreaterThan(1000);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
