// Screens for owners, not developers (issue 41 point 9), in chromium at 1280×800 and 390×844:
// - model ids never split mid-name on a phone (each of «owner/» and «model» on one line);
// - the «Уведомления» checkbox beside its words;
// - the agent page in sections with addresses, each at most about two screens tall at 1280×800; its model
//   picked from the catalogue with the price per 1 000 tokens, its tools by Russian names, no raw ids;
// - two-factor setup on a phone: «Открыть в приложении» with the otpauth:// link, the key in groups of
//   four, copied without spaces.
// Screenshots: test-artifacts/screens/agent-desktop|phone.png (the agent's «Основное»), words-2fa-phone.png.
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS, horizontalOverflow, PHONE, registerThroughPage, screenPath, sessionToken, useBrowserApp } from '../helpers/browser';

const SCREENS = ['agent-desktop', 'agent-phone', 'words-2fa-phone'] as const;
const DESKTOP_800 = { width: 1280, height: 800 };
const LONG_MODELS = ['openai/text-embedding-3-small', 'meta-llama/llama-3.1-405b-instruct'];
const browserSuite = browserDescribe('web-words.test.ts');

let app: TestApp;
let page: Page;
let pageErrors: string[] = [];
let upstream: FakeUpstream;

/** Model ids drawn whole: every part of every ModelName on the page sits on one line. */
const splitModelParts = () =>
  page.evaluate(() => [...document.querySelectorAll('.model-name > span')].filter((part) => part.getClientRects().length > 1).map((part) => part.textContent));

browserSuite('owner-friendly words and screens in chromium', () => {
  useBrowserApp({
    screens: SCREENS,
    before: async () => {
      upstream = await startFakeUpstream();
      upstream.models.push(...LONG_MODELS.map((id, i) => ({ id, created: 1_700_000_200 + i, owned_by: id.split('/')[0]! })));
    },
    app: () => ({ env: { UPSTREAM_BASE_URL: upstream.url } }),
    ready: (s) => ({ app, page, pageErrors } = s),
    after: () => upstream?.close(),
  });

  test(
    'model names whole on the phone; the alerts checkbox beside its words; two-factor setup with the app link and a grouped key',
    async () => {
      await page.setViewportSize(DESKTOP_800);
      await registerThroughPage(page, app.url, { email: uniqueEmail('web-words'), password: 'words-secret-1' });

      // The prices table at phone width: long ids wrap after «/» at most.
      await page.setViewportSize(PHONE);
      const prices = page.getByTestId('model-prices');
      await prices.locator(`[data-model="${LONG_MODELS[1]}"]`).waitFor();
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      expect(await splitModelParts()).toEqual([]);
      expect(await page.locator('.model-name > span').count()).toBeGreaterThanOrEqual(8);

      await page.getByRole('link', { name: 'Аккаунт' }).click();
      await page.waitForURL(`${app.url}/app/account`);
      for (const size of [DESKTOP_800, PHONE]) {
        await page.setViewportSize(size);
        const alerts = page.getByTestId('key-limit-alerts');
        await alerts.waitFor();
        const [box, words] = [(await alerts.locator('input').boundingBox())!, (await alerts.locator('span').boundingBox())!];
        // Beside, not above: the box's row overlaps the words' first line, left of them.
        expect(box.y).toBeLessThan(words.y + words.height);
        expect(words.y).toBeLessThan(box.y + box.height);
        expect(box.x + box.width).toBeLessThanOrEqual(words.x);
        expect(box.width).toBeLessThan(40);
      }

      // Two-factor setup on the phone.
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
      const section = page.getByTestId('two-factor');
      await section.getByRole('button', { name: 'Включить двухфакторный вход' }).click();
      const open = section.getByRole('link', { name: 'Открыть в приложении' });
      await open.waitFor();
      const href = (await open.getAttribute('href'))!;
      expect(href).toMatch(/^otpauth:\/\/totp\//);
      const secret = new URL(href).searchParams.get('secret')!;
      expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
      const shown = (await section.getByTestId('two-factor-secret').textContent())!;
      expect(shown).toMatch(/^[A-Z2-7]{4}( [A-Z2-7]{4})*( [A-Z2-7]{1,3})?$/);
      expect(shown.replaceAll(' ', '')).toBe(secret);
      await section.getByRole('button', { name: 'Скопировать ключ' }).click();
      await section.getByText('Скопировано').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await section.screenshot({ path: screenPath('words-2fa-phone') });
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'the agent page in sections, each about two screens at most; the model picker with prices; tools in Russian',
    async () => {
      await page.setViewportSize(DESKTOP_800);
      const token = await sessionToken(page);
      const created = await call(app.url, 'POST', '/api/agents', { token, body: { name: 'Салон «Вереск»', type: 'service' } });
      expect(created.status).toBe(201);
      const agentId = created.body.id as string;
      // Enough knowledge that the section has a list to show.
      for (const title of ['Стрижка', 'Окрашивание', 'Парковка']) {
        const entry = await call(app.url, 'POST', `/api/v1/agents/${agentId}/knowledge`, { token, body: { title, content: `${title}: подробности для клиентов.` } });
        expect(entry.status).toBe(201);
      }

      await page.goto(`${app.url}/app/agents/${agentId}`);
      const nav = page.getByRole('navigation', { name: 'Разделы агента' });
      await nav.getByRole('link').first().waitFor();
      const sections = await nav.getByRole('link').allTextContents();
      expect(sections).toEqual(['Основное', 'ВКонтакте', 'Telegram', 'YCLIENTS', 'Инструменты', 'База знаний', 'Рассылки', 'Итоги']);

      // «Основное»: the model is chosen from a list, each model with its price per 1 000 tokens; no hint at /v1/models.
      const picker = page.getByLabel('Модель', { exact: true });
      await page.waitForFunction((select) => (select as HTMLSelectElement).options.length >= 4, await picker.elementHandle());
      expect(await picker.evaluate((el) => el.tagName)).toBe('SELECT');
      const options = await picker.evaluate((select) => [...(select as HTMLSelectElement).options].map((o) => ({ value: o.value, text: o.textContent ?? '' })));
      for (const id of ['acme/chat', 'acme/large', ...LONG_MODELS]) {
        const option = options.find((o) => o.value === id);
        expect(option?.text).toMatch(new RegExp(`^${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} — запрос .*₽ · ответ .*₽ за 1 000 токенов$`));
      }
      await picker.selectOption('acme/large');
      await page
        .getByTestId('model-price')
        .getByText(/acme\/large: запрос .*₽/)
        .waitFor();
      await page.getByRole('button', { name: 'Сохранить агента' }).click();
      await page.getByRole('status').filter({ hasText: 'Сохранено' }).first().waitFor();
      expect((await call(app.url, 'GET', `/api/agents/${agentId}`, { token })).body.model).toBe('acme/large');
      expect(await page.locator('main').textContent()).not.toContain('/v1/models');
      // The working hours' zone by a city.
      await page
        .getByTestId('working-hours')
        .getByLabel(/Задать рабочее время/)
        .check();
      const zones = await page.getByLabel('Часовой пояс').evaluate((select) => [...(select as HTMLSelectElement).options].map((o) => o.textContent));
      expect(zones).toContain('Москва (МСК)');
      expect(zones.join(' ')).not.toMatch(/Europe\/|Asia\//);
      await page
        .getByTestId('working-hours')
        .getByLabel(/Задать рабочее время/)
        .uncheck();

      // Every section has its address, is marked current, and is at most about two screens tall at 1280×800.
      const heights: Record<string, number> = {};
      for (const name of sections) {
        await nav.getByRole('link', { name }).click();
        expect(await nav.getByRole('link', { name }).getAttribute('aria-current')).toBe('page');
        await page.waitForLoadState('networkidle');
        if (name === 'Telegram') await page.getByTestId('messenger-settings').waitFor();
        if (name === 'YCLIENTS') await page.getByTestId('booking-settings').waitFor();
        if (name === 'База знаний') await page.getByTestId('knowledge-list').getByText('Парковка', { exact: true }).waitFor();
        if (name === 'Итоги') await page.getByTestId('agent-results').waitFor();
        heights[name] = await page.evaluate(() => document.documentElement.scrollHeight);
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      }
      for (const [name, height] of Object.entries(heights)) expect({ name, height: Math.min(height, 2 * DESKTOP_800.height) }).toEqual({ name, height });
      expect(new URL(page.url()).pathname).toBe(`/app/agents/${agentId}/results`);
      // A reload keeps the section.
      await page.reload();
      await page.getByTestId('agent-results').waitFor();

      // «Инструменты»: Russian names with a line each; the ids only on hover.
      await nav.getByRole('link', { name: 'Инструменты' }).click();
      const tools = page.getByTestId('agent-tools');
      const escalate = tools.locator('[data-tool="escalate_to_human"]');
      await escalate.getByText('Передача сотруднику').waitFor();
      expect(await escalate.textContent()).toContain('Передаёт диалог вам');
      await tools.locator('[data-tool="search_knowledge"]').getByText('Поиск в базе знаний').waitFor();
      await tools.locator('[data-tool="book_appointment"]').getByText('Запись клиента').waitFor();
      expect(await tools.textContent()).not.toMatch(/\b[a-z]+_[a-z_]+\b/);

      // The screenshots of «Основное» at both widths.
      await nav.getByRole('link', { name: 'Основное' }).click();
      await picker.waitFor();
      await page.screenshot({ path: screenPath('agent-desktop'), fullPage: true });
      await page.setViewportSize(PHONE);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      expect(await splitModelParts()).toEqual([]);
      await page.screenshot({ path: screenPath('agent-phone'), fullPage: true });
      await page.setViewportSize(DESKTOP_800);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
