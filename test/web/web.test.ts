// The dashboard page in a real browser (Debian's chromium, driven by playwright-core) against the real
// app, the fake model upstream and the fake YCLIENTS: what a user clicks, reads and gets back.
// Screenshots of the main screens go to test-artifacts/screens/.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { existsSync, statSync } from 'node:fs';
import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import { formatMoney } from '../../web/src/shared/format';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { startFakeYclients, type FakeCompanySpec, type FakeYclients } from '../fakes/yclients';
import { call, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import {
  browserDescribe,
  buildPage,
  DESKTOP,
  FLOW_TIMEOUT_MS,
  horizontalOverflow,
  launchChromium,
  openPage,
  PHONE,
  prepareScreens,
  screenPath,
  sessionToken,
  SETUP_TIMEOUT_MS,
} from '../helpers/browser';

const SCREENS = ['login', 'overview', 'keys', 'agents', 'agent-yclients', 'agent-yclients-phone'] as const;
const browserSuite = browserDescribe('web.test.ts');

const PARTNER = 'partner-token-web-7c1d';
const LOGIN = 'admin@salon.example';
const PASSWORD = 'Web-S3cret-pass';
const COMPANY = 7311;
const MARIA = 2101;
const HAIRCUT = 93001;
const company: FakeCompanySpec = {
  id: COMPANY,
  partnerToken: PARTNER,
  login: LOGIN,
  password: PASSWORD,
  staff: [{ id: MARIA, name: 'Мария', specialization: 'Парикмахер' }],
  services: [{ id: HAIRCUT, title: 'Стрижка', price_min: 1500, price_max: 2000, duration: 3600, staffIds: [MARIA] }],
  workingHours: [{ staffId: MARIA, date: '2026-12-01', start: '10:00', end: '13:00' }],
};

let upstream: FakeUpstream;
let yc: FakeYclients;
let app: TestApp;
let browser: Browser;
let page: Page;
let pageErrors: string[] = [];
const user = { email: uniqueEmail('web'), password: 'web-secret-1' };

const shot = (name: (typeof SCREENS)[number]) => page.screenshot({ path: screenPath(name), fullPage: true });
const appUrl = (path: string) => `${app.url}/app${path}`;
const jwt = () => sessionToken(page);

browserSuite('dashboard page in chromium', () => {
  beforeAll(async () => {
    // From a clean clone the page is not built yet: typecheck + Vite build, once.
    await buildPage();
    prepareScreens(SCREENS);
    upstream = await startFakeUpstream();
    yc = await startFakeYclients();
    yc.addCompany(company);
    app = await startTestApp({ env: { UPSTREAM_BASE_URL: upstream.url, YCLIENTS_BASE_URL: yc.url } });
    browser = await launchChromium();
    ({ page, pageErrors } = await openPage(browser));
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await yc?.close();
    await upstream?.close();
  });

  test(
    'register, create a key and read it once, call /v1 with it, see usage and the new balance, revoke it',
    async () => {
      await page.goto(appUrl('/'));
      await page.waitForURL('**/app/login');
      expect(await page.getByRole('heading', { name: 'Вход в панель' }).isVisible()).toBe(true);
      await page.getByRole('link', { name: 'Зарегистрироваться' }).click();

      // The server's schema, run in the page: its Russian messages next to the fields, no request sent.
      await page.getByLabel('E-mail').fill('не-почта');
      await page.getByLabel('Пароль').fill('123');
      await page.getByRole('button', { name: 'Зарегистрироваться' }).click();
      await page.getByText('Укажите корректный e-mail').waitFor();
      await page.getByText('Пароль должен содержать не менее 6 символов').waitFor();

      await page.getByLabel('E-mail').fill(user.email);
      await page.getByLabel('Пароль').fill(user.password);
      await page.getByRole('button', { name: 'Зарегистрироваться' }).click();
      await page.waitForURL(appUrl('/'));
      expect(await page.getByTestId('balance').textContent()).toBe(formatMoney(3, 'RUB', 'amount'));
      expect(await page.getByTestId('account-email').textContent()).toBe(user.email);

      // Keys: the full key once, with the API's warning.
      await page.getByRole('link', { name: 'API-ключи', exact: true }).click();
      await page.getByText('Ключей пока нет.').waitFor();
      await page.getByRole('button', { name: 'Создать ключ' }).click();
      await page.getByText('Укажите название ключа').waitFor();
      await page.getByLabel('Название').fill('Браузерный ключ');
      await page.getByRole('button', { name: 'Создать ключ' }).click();
      const keyValue = page.getByTestId('new-key-value');
      await keyValue.waitFor();
      const key = (await keyValue.textContent())!;
      expect(key).toMatch(/^cdt-[A-Za-z0-9]+$/);
      expect(await page.getByTestId('created-key').textContent()).toContain('только один раз');
      await page.getByTestId('created-key').getByRole('button', { name: 'Копировать', exact: true }).click();
      await page.getByText('Скопировано').waitFor();
      await page.locator('[data-testid="keys-table"] tbody tr', { hasText: 'Браузерный ключ' }).waitFor();
      await shot('keys');
      await page.getByRole('button', { name: 'Ключ сохранён, скрыть' }).click();
      expect(await page.content()).not.toContain(key);
      await page.reload();
      await page.locator('[data-testid="keys-table"] tbody tr', { hasText: 'Браузерный ключ' }).waitFor();
      expect(await page.content()).not.toContain(key);

      // A model call with the key, as any OpenAI client makes it.
      const client = new OpenAI({ apiKey: key, baseURL: `${app.url}/v1`, maxRetries: 0 });
      const completion = await client.chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет из браузерного теста' }] });
      expect(completion.usage?.total_tokens).toBeGreaterThan(0);

      const balance = await call<{ balance: number }>(app.url, 'GET', '/api/balance', { token: key });
      expect(balance.status).toBe(200);
      expect(balance.body.balance).toBeLessThan(3);

      await page.getByRole('link', { name: 'Баланс и использование' }).click();
      const shown = await page
        .getByTestId('balance')
        .textContent()
        .catch((e) => String(e));
      expect(shown).toBe(formatMoney(balance.body.balance, 'RUB', 'amount'));
      const recent = page.getByTestId('recent-requests');
      await recent.getByText('acme/chat').waitFor();
      expect(await recent.textContent()).toContain('Браузерный ключ');
      expect(await page.getByTestId('usage-by-model').textContent()).toContain('acme/chat');
      expect(await page.getByTestId('usage-totals').textContent()).toContain(formatMoney(3 - balance.body.balance, 'RUB', 'cost'));
      await page.getByTestId('usage-chart').locator('canvas').first().waitFor();
      await shot('overview');

      // Revoke, after the confirmation; the key stops working at once.
      await page.getByRole('link', { name: 'API-ключи', exact: true }).click();
      await page.getByRole('button', { name: 'Отозвать ключ «Браузерный ключ»' }).click();
      const dialog = page.getByRole('dialog', { name: 'Отозвать ключ?' });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Отмена' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await page.getByRole('button', { name: 'Отозвать ключ «Браузерный ключ»' }).click();
      await dialog.getByRole('button', { name: 'Отозвать' }).click();
      await page.getByText('Ключ отозван: «Браузерный ключ»').waitFor();
      await page.locator('[data-testid="keys-table"] tbody tr', { hasText: 'Браузерный ключ' }).getByText('Отозван').waitFor();

      const refused = await call(app.url, 'POST', '/v1/chat/completions', {
        token: key,
        body: { model: 'acme/chat', messages: [{ role: 'user', content: 'ещё раз' }] },
      });
      expect(refused.status).toBe(403);
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'a Service agent: created, edited, and its YCLIENTS settings saved against the fake booking system',
    async () => {
      await page.getByRole('link', { name: 'Агенты' }).click();
      await page.getByText('Агентов пока нет').waitFor();
      await page.getByLabel('Имя').fill('Салон «Ромашка»');
      await page.getByLabel('Тип').selectOption('service');
      // The model is picked from the catalogue (issue 41 point 9), or left to the server's default.
      const picker = page.getByLabel('Модель', { exact: true });
      await page.waitForFunction((select) => (select as HTMLSelectElement).options.length >= 2, await picker.elementHandle());
      expect(await picker.inputValue()).toBe('');
      await page.getByRole('button', { name: 'Создать агента' }).click();
      await page.waitForURL(/\/app\/agents\/[0-9a-f-]{36}$/);
      const agentId = page.url().split('/').pop()!;
      await page.getByRole('heading', { name: 'Салон «Ромашка»' }).waitFor();

      // The agent's own settings.
      await page.getByLabel('Системный промпт').fill('Вы — администратор салона «Ромашка». Отвечайте вежливо.');
      await page.getByLabel(/Показывать модели фото клиентов/).check();
      // Voice messages without VK's text: off until switched on; the model field shows only then.
      expect(await page.getByLabel('Модель распознавания речи').count()).toBe(0);
      await page.getByLabel(/Расшифровывать голосовые сообщения/).check();
      await page.getByLabel('Модель распознавания речи').fill('openai/whisper-1');
      // Working hours: Monday to Friday by default once switched on; Saturday added, the times set.
      const hours = page.getByTestId('working-hours');
      await hours.getByLabel(/Задать рабочее время/).check();
      await hours.getByLabel('Сб').check();
      await hours.getByLabel('С', { exact: true }).fill('09:30');
      await hours.getByLabel('До', { exact: true }).fill('08:00');
      await page.getByRole('button', { name: 'Сохранить агента' }).click();
      await hours.getByText('конец рабочего дня должен быть позже начала').waitFor();
      await hours.getByLabel('До', { exact: true }).fill('18:00');
      await hours.getByLabel('Часовой пояс').selectOption({ label: 'Екатеринбург (МСК+2)' });
      await page.getByRole('button', { name: 'Сохранить агента' }).click();
      await page.getByRole('status').filter({ hasText: 'Сохранено' }).first().waitFor();
      const read = await call(app.url, 'GET', `/api/agents/${agentId}`, { token: await sessionToken(page) });
      expect(read.body.workingHours).toEqual({ days: [1, 2, 3, 4, 5, 6], from: '09:30', to: '18:00', timeZone: 'Asia/Yekaterinburg' });
      expect(read.body).toMatchObject({ transcribeVoice: true, transcriptionModel: 'openai/whisper-1' });

      // All three integrations apply to a Service agent, each a section of its own.
      const sections = page.getByRole('navigation', { name: 'Разделы агента' });
      await sections.getByRole('link', { name: 'Telegram' }).click();
      await page.getByTestId('messenger-settings').waitFor();
      await sections.getByRole('link', { name: 'ВКонтакте' }).click();
      await page.getByTestId('social-settings').waitFor();
      expect(await page.getByTestId('social-webhook-url').textContent()).toBe(`${app.config.publicBaseUrl}/api/v1/social/webhook/${agentId}`);
      await sections.getByRole('link', { name: 'YCLIENTS' }).click();
      const booking = page.getByTestId('booking-settings');
      await booking.getByText('Не подключено').waitFor();

      await booking.getByLabel('Токен партнёра YCLIENTS').fill(PARTNER);
      await booking.getByLabel('Логин администратора').fill(LOGIN);
      await booking.getByLabel('Пароль администратора').fill('wrong-password');
      await booking.getByLabel('ID компании в YCLIENTS').fill(String(COMPANY));
      const specialists = booking.getByTestId('specialist-mapping');
      await specialists.getByRole('button', { name: 'Добавить строку' }).click();
      await specialists.locator('input[data-role="internal"]').fill('maria');
      await specialists.locator('input[data-role="external"]').fill('мария');
      await booking.getByRole('button', { name: 'Сохранить настройки YCLIENTS' }).click();
      // The schema's message, before any request.
      await specialists.getByText('ожидается числовой id YCLIENTS').waitFor();
      await specialists.locator('input[data-role="external"]').fill(String(MARIA));
      const services = booking.getByTestId('service-mapping');
      await services.getByRole('button', { name: 'Добавить строку' }).click();
      await services.locator('input[data-role="internal"]').fill('haircut');
      await services.locator('input[data-role="external"]').fill(String(HAIRCUT));

      // The API's Russian error, next to the button that caused it.
      await booking.getByRole('button', { name: 'Сохранить настройки YCLIENTS' }).click();
      const failure = booking.locator('p.error[data-error-type="invalid_request_error"]');
      await failure.waitFor();
      expect(await failure.textContent()).toContain('YCLIENTS не принял данные входа');

      await booking.getByLabel('Пароль администратора').fill(PASSWORD);
      await booking.getByRole('button', { name: 'Сохранить настройки YCLIENTS' }).click();
      await booking.getByText('Настройки сохранены, вход в YCLIENTS проверен').waitFor();
      await booking.getByText('Подключено', { exact: true }).waitFor();
      expect(await booking.getByLabel('Пароль администратора').inputValue()).toBe('');
      expect(await page.content()).not.toContain(PASSWORD);

      const saved = await call(app.url, 'GET', `/api/v1/booking/${agentId}/settings`, { token: await jwt() });
      expect(saved.status).toBe(200);
      expect(saved.body).toMatchObject({
        configured: true,
        companyId: COMPANY,
        specialistMapping: { maria: MARIA },
        serviceMapping: { haircut: HAIRCUT },
      });
      const agent = await call(app.url, 'GET', `/api/agents/${agentId}`, { token: await jwt() });
      expect(agent.body).toMatchObject({ type: 'service', systemPrompt: 'Вы — администратор салона «Ромашка». Отвечайте вежливо.', acceptsImages: true });

      // The settings survive a reload: read back from the API, secrets as "set" only.
      await page.reload();
      await booking.getByText('Подключено', { exact: true }).waitFor();
      expect(await booking.getByLabel('ID компании в YCLIENTS').inputValue()).toBe(String(COMPANY));
      expect(await specialists.locator('input[data-role="internal"]').inputValue()).toBe('maria');
      await shot('agent-yclients');

      await page.setViewportSize(PHONE);
      await page.evaluate(() => window.scrollTo(0, 0));
      // Phone width: nothing wider than the screen.
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: screenPath('agent-yclients-phone') });
      await page.setViewportSize(DESKTOP);

      await page.getByRole('link', { name: '← Все агенты' }).click();
      await page.getByRole('link', { name: 'Салон «Ромашка»' }).waitFor();
      await shot('agents');
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'an expired session sends the user to log in; the login form works from the keyboard',
    async () => {
      await page.evaluate(() => {
        const session = JSON.parse(localStorage.getItem('conduit.session')!);
        localStorage.setItem('conduit.session', JSON.stringify({ ...session, expiresAt: Date.now() - 1000 }));
      });
      await page.goto(appUrl('/keys'));
      // The address asked for waits in ?next= for the login.
      await page.waitForURL('**/app/login?next=%2Fkeys');
      await page.getByText('Сессия истекла: войдите снова').waitFor();

      await page.getByLabel('E-mail').focus();
      await page.keyboard.type(user.email);
      await page.keyboard.press('Tab');
      await page.keyboard.type('неверный-пароль');
      await page.keyboard.press('Enter');
      await page.getByText('Неверный e-mail или пароль').waitFor();
      await shot('login');

      await page.getByLabel('Пароль').fill(user.password);
      await page.keyboard.press('Enter');
      await page.waitForURL(appUrl('/keys'));
      await page.getByRole('heading', { name: 'API-ключи', level: 1 }).waitFor();

      // A token the server no longer accepts (here: signed with another secret) ends the session too.
      await page.evaluate(() => {
        const session = JSON.parse(localStorage.getItem('conduit.session')!);
        localStorage.setItem('conduit.session', JSON.stringify({ ...session, token: `${session.token}x` }));
      });
      await page.reload();
      await page.waitForURL('**/app/login?next=%2Fkeys');
      await page.getByText('Сессия истекла: войдите снова').waitFor();
    },
    FLOW_TIMEOUT_MS,
  );

  test('screenshots of the main screens are saved, and the page raised no errors', () => {
    for (const name of SCREENS) {
      const file = screenPath(name);
      expect(existsSync(file)).toBe(true);
      expect(statSync(file).size).toBeGreaterThan(1000);
    }
    expect(pageErrors).toEqual([]);
  });
});
