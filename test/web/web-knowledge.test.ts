// The agent page's «Инструменты ассистента» and «База знаний» in a real browser against the real app:
// the create form starting from the type's prompt template, the tools list with what is missing, and the
// knowledge editor (add, edit, search check with stemming, text import all-or-nothing, delete).
// Screenshots: test-artifacts/screens/knowledge.png and knowledge-phone.png.
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { PROMPT_TEMPLATES } from '../../src/agents/templates';
import { call, uniqueEmail, type TestApp } from '../helpers/app';
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

const SCREENS = ['knowledge', 'knowledge-phone'] as const;
const browserSuite = browserDescribe('web-knowledge.test.ts');

let app: TestApp;
let page: Page;
let pageErrors: string[] = [];
const user = { email: uniqueEmail('knowledge'), password: 'knowledge-secret-1' };

browserSuite('the tools list and the knowledge base of an agent in chromium', () => {
  useBrowserApp({ screens: SCREENS, ready: (s) => ({ app, page, pageErrors } = s) });

  test(
    'template in the create form, tools with what is missing, knowledge entries added, edited, searched, imported and deleted',
    async () => {
      await registerThroughPage(page, app.url, user);
      await page.getByRole('link', { name: 'Агенты' }).click();
      const prompt = page.getByLabel('Системный промпт');
      expect(await prompt.inputValue()).toBe(PROMPT_TEMPLATES.service);
      await page.getByLabel('Имя').fill('Салон «Лён»');
      await page.getByLabel('Тип').selectOption('creator');
      // The untouched template follows the type.
      expect(await prompt.inputValue()).toBe(PROMPT_TEMPLATES.creator);
      await page.getByRole('button', { name: 'Создать агента' }).click();
      await page.waitForURL(/\/app\/agents\/[0-9a-f-]{36}$/);
      const agentId = page.url().split('/').pop()!;
      const token = await sessionToken(page);
      expect((await call(app.url, 'GET', `/api/agents/${agentId}`, { token })).body.systemPrompt).toBe(PROMPT_TEMPLATES.creator);

      const sections = page.getByRole('navigation', { name: 'Разделы агента' });
      await sections.getByRole('link', { name: 'Инструменты' }).click();
      const tools = page.getByTestId('agent-tools');
      const missing = tools.getByTestId('agent-tools-missing');
      await missing.getByText('Добавьте записи в базу знаний').waitFor();

      // The tool, by its Russian name, says what it lacks.
      await missing.locator('[data-tool="search_knowledge"]').getByText('Поиск в базе знаний').waitFor();

      await sections.getByRole('link', { name: 'База знаний' }).click();
      const kb = page.getByTestId('knowledge');
      await kb.getByText('Записей пока нет').waitFor();
      await kb.getByRole('button', { name: 'Добавить запись' }).click();
      const form = kb.getByTestId('knowledge-form');
      await form.getByRole('button', { name: 'Добавить запись' }).click();
      await form.getByText('обязательное поле').first().waitFor();
      await form.getByLabel('Заголовок').fill('Стрижка');
      await form.getByLabel('Текст записи').fill('Женская стрижка — 2500 ₽, мужская — 1500 ₽.');
      await form.getByRole('button', { name: 'Добавить запись' }).click();
      await kb.getByText('Запись «Стрижка» добавлена').waitFor();
      const list = kb.getByTestId('knowledge-list');
      await list.getByText('Женская стрижка — 2500 ₽').waitFor();

      await form.getByRole('button', { name: 'Отмена' }).click();
      await kb.getByRole('button', { name: 'Изменить запись «Стрижка»' }).click();
      expect(await form.getByLabel('Текст записи').inputValue()).toBe('Женская стрижка — 2500 ₽, мужская — 1500 ₽.');
      await form.getByLabel('Текст записи').fill('Женская стрижка — 2700 ₽, мужская — 1500 ₽.');
      await form.getByRole('button', { name: 'Сохранить запись' }).click();
      await kb.getByText('Запись «Стрижка» сохранена').waitFor();
      await list.getByText('Женская стрижка — 2700 ₽').waitFor();

      // Text import: a section with an overlong title refuses the whole text; a good one adds each section.
      const importer = kb.getByTestId('knowledge-import');
      await importer.getByLabel('Текст для импорта').fill(`${'Очень длинный заголовок '.repeat(10)}\nтекст\n\nПарковка\nВо дворе, бесплатно.`);
      await importer.getByRole('button', { name: 'Импортировать' }).click();
      const errors = importer.getByTestId('knowledge-import-errors');
      await errors.waitFor();
      expect(await errors.textContent()).toContain('Запись 1: ');
      expect((await call(app.url, 'GET', `/api/v1/agents/${agentId}/knowledge`, { token })).body.entries).toHaveLength(1);
      await importer.getByLabel('Текст для импорта').fill('Парковка\nВо дворе, бесплатно.\n\nЧасы работы\nЕжедневно с 10 до 21, стрижки детям по выходным.');
      await importer.getByRole('button', { name: 'Импортировать' }).click();
      await importer.getByTestId('knowledge-import-result').getByText('Импортировано записей: 2').waitFor();
      await list.getByText('Парковка').waitFor();

      // The search check: another form of the word finds the entry, best first.
      const search = kb.getByTestId('knowledge-search');
      await search.getByLabel('Вопрос клиента').fill('стрижки');
      await search.getByRole('button', { name: 'Найти' }).click();
      const found = search.getByTestId('knowledge-search-results');
      await found.waitFor();
      expect(await found.locator('li').allTextContents()).toEqual(['Стрижка', 'Часы работы']);

      await sections.getByRole('link', { name: 'Инструменты' }).click();
      await tools.getByRole('button', { name: 'Обновить' }).click();
      await tools.getByTestId('agent-tools-available').locator('[data-tool="search_knowledge"]').getByText('Поиск в базе знаний').waitFor();
      expect(await tools.getByTestId('agent-tools-missing').count()).toBe(0);
      await sections.getByRole('link', { name: 'База знаний' }).click();

      await page.setViewportSize(DESKTOP);
      await kb.screenshot({ path: screenPath('knowledge') });
      await page.setViewportSize(PHONE);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await kb.screenshot({ path: screenPath('knowledge-phone') });
      await page.setViewportSize(DESKTOP);

      await kb.getByRole('button', { name: 'Удалить запись «Парковка»' }).click();
      const dialog = page.getByRole('dialog', { name: 'Удалить запись?' });
      await dialog.getByRole('button', { name: 'Удалить' }).click();
      await kb.getByText('Запись «Парковка» удалена').waitFor();
      const left = (await call(app.url, 'GET', `/api/v1/agents/${agentId}/knowledge`, { token })).body.entries.map((e: { title: string }) => e.title);
      expect(left).toEqual(['Стрижка', 'Часы работы']);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
