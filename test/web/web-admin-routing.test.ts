// «Провайдеры» and «Маршруты» in the admin console, in a real browser (Debian's chromium, driven by
// playwright-core) against the real app and fake model providers, at 1440 and at a 390 px phone: a
// provider added (its key shown masked only, an empty key field keeping it), switched off and on; a route
// with two targets, each refused field shown under itself (the page's own check and the server's); a
// provider's pause after real failures through /v1 and its last hour; deletion after a confirmation,
// refused with the server's message while a route still uses the provider.
// Screenshots: test-artifacts/screens/admin-providers*.png, admin-routes*.png.
import { expect, setDefaultTimeout, test } from 'bun:test';
import { statSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { formatClock } from '../../web/src/shared/format';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, DESKTOP, FLOW_TIMEOUT_MS, horizontalOverflow, PHONE, screenPath, sessionToken, useBrowserApp, signInAsOperator } from '../helpers/browser';

setDefaultTimeout(30_000);

const SCREENS = ['admin-providers', 'admin-providers-phone', 'admin-routes', 'admin-routes-phone'] as const;
const browserSuite = browserDescribe('web-admin-routing.test.ts');
const WIDE = { width: 1440, height: 900 };
const SECRET = 'sk-spare-secret-0123456789';
const messages = [{ role: 'user' as const, content: 'Привет!' }];

let home: FakeUpstream;
let spare: FakeUpstream;
let main: FakeUpstream;
let app: TestApp;
let page: Page;
let pageErrors: string[] = [];
const admin = { email: uniqueEmail('routing-ops'), password: 'admin-secret-1' };
let customerKey: string;

const appUrl = (path: string) => `${app.url}/app${path}`;
const section = (name: string) => page.getByRole('navigation', { name: 'Разделы администрирования' }).getByRole('link', { name });
const shot = (name: (typeof SCREENS)[number]) => page.screenshot({ path: screenPath(name), fullPage: true });
const api = async (method: string, path: string, body?: unknown) => call(app.url, method, path, { token: await sessionToken(page), body });
const ask = (model: string) => call(app.url, 'POST', '/v1/chat/completions', { token: customerKey, body: { model, messages } });
const providerRow = (name: string) => page.getByTestId('provider-card').filter({ has: page.getByRole('heading', { name, exact: true }) });
/** A provider's action, from its card's «⋯» menu. */
async function menuAction(name: string, action: string) {
  await providerRow(name)
    .getByRole('button', { name: `Действия: ${name}` })
    .click();
  await page
    .getByRole('menu', { name: `Действия: ${name}` })
    .getByRole('menuitem', { name: action, exact: true })
    .click();
}

/** Nothing is wider than the screen at 1440 px nor at 390 px; the phone screenshot is taken there. */
async function widthCheck(name: (typeof SCREENS)[number]) {
  for (const size of [WIDE, PHONE]) {
    await page.setViewportSize(size);
    await page.evaluate(() => window.scrollTo(0, 0));
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  }
  await shot(name);
  await page.setViewportSize(DESKTOP);
}

browserSuite('providers and routes in the admin console in chromium', () => {
  useBrowserApp({
    screens: SCREENS,
    before: async () => {
      [home, spare, main] = await Promise.all([startFakeUpstream(), startFakeUpstream({ apiKey: SECRET }), startFakeUpstream()]);
    },
    app: () => ({
      env: {
        ADMIN_EMAILS: admin.email,
        UPSTREAM_BASE_URL: home.url,
        PROVIDER_FAILURE_THRESHOLD: '2',
        // Long enough that the pause is still on when the page is read.
        PROVIDER_COOLDOWN_SECONDS: '600',
        // No probes: the paused provider's GET /models answers, and a probe would end the pause.
        PROVIDER_PROBE_SECONDS: '0',
      },
    }),
    ready: async (s) => {
      ({ app, page, pageErrors } = s);
      const customer = await registerUser(app.url);
      customerKey = (await createApiKey(app.url, customer.token)).key;
      await signInAsOperator(page, app, admin);
    },
    after: () => Promise.all([home, spare, main].map((f) => f?.close())),
  });

  test(
    'a provider is added with its key shown masked only, edited with the key kept, switched off and on',
    async () => {
      await page.goto(appUrl('/admin'));
      await section('Провайдеры').click();
      await page.waitForURL(appUrl('/admin/providers'));
      const screen = page.getByTestId('admin-providers');
      const builtIn = screen.locator('[data-testid="provider-card"][data-provider-id="default"]');
      await builtIn.waitFor();
      expect(await builtIn.textContent()).toContain(home.url);
      expect(await builtIn.getByTestId('provider-health').textContent()).toContain('работает');

      // The page's own check, each message under its field.
      const form = screen.getByTestId('provider-form');
      await form.getByRole('button', { name: 'Добавить провайдера' }).click();
      await form
        .locator('.field', { has: page.getByLabel('Название') })
        .getByText('от 1 до 100 символов')
        .waitFor();
      await form
        .locator('.field', { has: page.getByLabel('Адрес API') })
        .getByText('http(s)-адрес без параметров')
        .waitFor();
      await form.getByLabel('Название').fill('Запасной');
      await form.getByLabel('Адрес API').fill(spare.url);
      await form.getByLabel('Ключ API').fill(SECRET);
      await form.getByLabel('Таймаут, мс').fill('5000');
      await form.getByRole('button', { name: 'Добавить провайдера' }).click();
      await screen.getByText('Провайдер Запасной добавлен').waitFor();
      const row = providerRow('Запасной');
      const masked = (await row.getByTestId('provider-key').textContent())!;
      expect(masked).toContain('•');
      expect(masked).not.toContain(SECRET);
      expect(await page.content()).not.toContain(SECRET);
      expect(await row.textContent()).toContain('5 с');
      expect(await row.getByTestId('provider-health').textContent()).toContain('работает');

      await form.getByLabel('Название').fill('Основной');
      await form.getByLabel('Адрес API').fill(main.url);
      await form.getByRole('button', { name: 'Добавить провайдера' }).click();
      await screen.getByText('Провайдер Основной добавлен').waitFor();
      expect(await providerRow('Основной').getByTestId('provider-key').textContent()).toBe('не задан');

      // A provider speaking Anthropic's Messages API: the form's protocol, shown on its card.
      await form.getByLabel('Протокол').selectOption('anthropic');
      await form.getByLabel('Название').fill('Claude');
      await form.getByLabel('Адрес API').fill(main.url);
      await form.getByRole('button', { name: 'Добавить провайдера' }).click();
      await screen.getByText('Провайдер Claude добавлен').waitFor();
      expect(await providerRow('Claude').getByTestId('provider-protocol').textContent()).toBe('Anthropic');
      expect(await providerRow('Основной').getByTestId('provider-protocol').textContent()).toBe('OpenAI');
      const claudeId = (await providerRow('Claude').getAttribute('data-provider-id'))!;
      expect((await api('GET', `/api/admin/providers/${claudeId}`)).body.protocol).toBe('anthropic');
      expect((await api('DELETE', `/api/admin/providers/${claudeId}`)).status).toBe(200);

      // Editing: the key field starts empty and an empty field keeps the key (the provider still answers with it).
      await menuAction('Запасной', 'Изменить');
      const edit = screen.getByRole('form', { name: 'Изменить провайдера Запасной' });
      expect(await edit.getByLabel('Ключ API').inputValue()).toBe('');
      await edit.getByLabel('Таймаут, мс').fill('4000');
      await edit.getByRole('button', { name: 'Сохранить провайдера' }).click();
      await screen.getByText('Провайдер Запасной сохранён').waitFor();
      await row.getByText('4 с').waitFor();
      expect(await row.getByTestId('provider-key').textContent()).toBe(masked);
      const spareId = (await row.getAttribute('data-provider-id'))!;
      expect((await api('PUT', '/api/admin/routes', { pattern: 'acme/key-check', targets: [{ providerId: spareId }] })).status).toBe(200);
      expect((await ask('acme/key-check')).status).toBe(200);
      expect(spare.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);
      expect((await api('DELETE', '/api/admin/routes?pattern=acme%2Fkey-check')).status).toBe(200);

      await menuAction('Запасной', 'Выключить');
      await screen.getByText('Провайдер Запасной выключен').waitFor();
      await row.getByText('выключен', { exact: true }).waitFor();
      expect((await api('GET', `/api/admin/providers/${spareId}`)).body.enabled).toBe(false);
      await menuAction('Запасной', 'Включить');
      await screen.getByText('Провайдер Запасной включён').waitFor();
      await row.getByText('выключен', { exact: true }).waitFor({ state: 'detached' });
      await shot('admin-providers');
      await widthCheck('admin-providers-phone');
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'a route with two targets: refused fields under themselves, the page’s check and the server’s, then saved in order',
    async () => {
      // A provider the page will offer but that is gone by the time the route is saved.
      const gone = await api('POST', '/api/admin/providers', { name: 'Временный', baseUrl: main.url });
      expect(gone.status).toBe(201);
      await section('Маршруты').click();
      await page.waitForURL(appUrl('/admin/routes'));
      const screen = page.getByTestId('admin-routes');
      await screen.getByText('Маршрутов нет').waitFor();
      const form = screen.getByTestId('route-form');
      await form.getByLabel('Шаблон модели').fill('acme/*');
      await form.getByLabel('Провайдер 1', { exact: true }).selectOption({ label: 'Запасной' });
      await form.getByRole('button', { name: 'Добавить провайдера в маршрут' }).click();
      await form.getByLabel('Провайдер 2', { exact: true }).selectOption({ label: 'Временный' });
      expect(await form.getByLabel('Приоритет 2').inputValue()).toBe('1');
      await form.getByLabel('Вес 2').fill('0');
      await form.getByRole('button', { name: 'Сохранить маршрут' }).click();
      const weight = form.locator('.field', { has: page.getByLabel('Вес 2') });
      await weight.getByText('weight — целое число от 1 до 1000').waitFor();
      expect(await form.getByLabel('Вес 2').getAttribute('aria-invalid')).toBe('true');
      expect(await form.getByLabel('Вес 1').getAttribute('aria-invalid')).toBe('false');

      // The server's refusal of one target's provider, under that target's field.
      expect((await api('DELETE', `/api/admin/providers/${gone.body.id}`)).status).toBe(200);
      await form.getByLabel('Вес 2').fill('3');
      await form.getByRole('button', { name: 'Сохранить маршрут' }).click();
      const provider2 = form.locator('.field', { has: page.getByLabel('Провайдер 2', { exact: true }) });
      await provider2.getByText('укажите id существующего провайдера').waitFor();
      expect(await form.getByLabel('Провайдер 2', { exact: true }).getAttribute('aria-invalid')).toBe('true');
      await form.getByText('Не сохранено: исправьте поля, отмеченные выше').waitFor();
      expect((await api('GET', '/api/admin/routes')).body.routes).toEqual([]);

      await form.getByLabel('Провайдер 2', { exact: true }).selectOption({ label: 'Основной' });
      await form.getByLabel('Модель у провайдера 2').fill('main-chat');
      await form.getByRole('button', { name: 'Сохранить маршрут' }).click();
      await screen.getByText('Маршрут acme/* добавлен').waitFor();
      const route = screen.locator('tr[data-pattern="acme/*"]');
      const targets = route.locator('li');
      // The notice comes with the server's answer; the table is read again after it: wait for its row.
      await targets.nth(1).waitFor();
      expect(await targets.allTextContents()).toEqual(['Запасной — приоритет 0, вес 1', 'Основной — приоритет 1, вес 3, модель main-chat']);
      const saved = (await api('GET', '/api/admin/routes')).body.routes;
      expect(saved).toHaveLength(1);
      expect(saved[0].targets).toMatchObject([
        { priority: 0, weight: 1 },
        { priority: 1, weight: 3, model: 'main-chat' },
      ]);

      // A second route, edited here: only the pausing provider behind it.
      await form.getByLabel('Шаблон модели').fill('acme/only-spare');
      await form.getByLabel('Провайдер 1', { exact: true }).selectOption({ label: 'Основной' });
      await form.getByRole('button', { name: 'Сохранить маршрут' }).click();
      await screen.getByText('Маршрут acme/only-spare добавлен').waitFor();
      await screen.getByRole('button', { name: 'Изменить маршрут acme/only-spare' }).click();
      const edit = screen.getByRole('form', { name: 'Изменить маршрут acme/only-spare' });
      expect(await edit.getByLabel('Шаблон модели').getAttribute('readonly')).not.toBeNull();
      await edit.getByLabel('Провайдер 1', { exact: true }).selectOption({ label: 'Запасной' });
      await edit.getByRole('button', { name: 'Сохранить маршрут' }).click();
      await screen.getByText('Маршрут acme/only-spare сохранён').waitFor();
      await screen.locator('tr[data-pattern="acme/only-spare"]').getByText('Запасной — приоритет 0, вес 1').waitFor();
      await shot('admin-routes');
      await widthCheck('admin-routes-phone');
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'after real failures through /v1 the provider shows its pause, its failures and its last hour',
    async () => {
      spare.outage = 503;
      // Its only provider fails: the client hears that none could answer, and each failure counts.
      expect((await ask('acme/only-spare')).status).toBe(502);
      expect((await ask('acme/only-spare')).status).toBe(502);
      // The two-target route skips the pausing provider and the next one answers under its own model id.
      expect((await ask('acme/chat')).status).toBe(200);
      expect(main.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => (r.body as { model: string }).model)).toEqual(['main-chat']);

      await section('Провайдеры').click();
      await page.waitForURL(appUrl('/admin/providers'));
      const spareRow = providerRow('Запасной');
      const spareId = (await spareRow.getAttribute('data-provider-id'))!;
      const health = (await api('GET', `/api/admin/providers/${spareId}`)).body.health;
      expect(health.state).toBe('cooling_down');
      const state = spareRow.getByTestId('provider-health');
      await state.getByText(`пауза после сбоев до ${formatClock(health.cooldownUntil)}`).waitFor();
      expect(await state.textContent()).toContain('Сбоев подряд: 2');
      expect(await state.textContent()).toContain('503');
      expect(await spareRow.getAttribute('data-state')).toBe('cooling_down');
      // The last hour: the answer it gave with the kept key and its two faults (the pausing provider is then
      // skipped, not tried); the other provider's one answer.
      const stat = (row: typeof spareRow, which: string) => row.locator(`[data-stat="${which}"] dd`).textContent();
      expect(await stat(spareRow, 'attempts')).toBe('3');
      expect(await stat(spareRow, 'faults')).toBe('2');
      expect(await stat(spareRow, 'client-errors')).toBe('0');
      expect(await stat(spareRow, 'p50')).toMatch(/^\d[\d\s\u00a0]* мс$/);
      const mainRow = providerRow('Основной');
      expect(await stat(mainRow, 'attempts')).toBe('1');
      expect(await stat(mainRow, 'faults')).toBe('0');
      expect(await stat(mainRow, 'p50')).toMatch(/^\d[\d\s\u00a0]* мс$/);
      expect(await mainRow.getByTestId('provider-health').textContent()).toContain('работает');
      await widthCheck('admin-providers-phone');
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'deleting asks first; a provider a route uses is refused with the server’s message, then deleted once the routes are gone',
    async () => {
      const screen = page.getByTestId('admin-providers');
      await menuAction('Запасной', 'Удалить');
      const dialog = page.getByRole('dialog', { name: 'Удалить провайдера?' });
      await dialog.getByRole('button', { name: 'Удалить' }).click();
      await dialog.getByText('Провайдер используется в маршрутах (acme/*, acme/only-spare)').waitFor();
      await dialog.getByRole('button', { name: 'Отмена' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect(await providerRow('Запасной').count()).toBe(1);

      await section('Маршруты').click();
      const routes = page.getByTestId('admin-routes');
      for (const pattern of ['acme/*', 'acme/only-spare']) {
        await routes.getByRole('button', { name: `Удалить маршрут ${pattern}` }).click();
        await page.getByRole('dialog', { name: 'Удалить маршрут?' }).getByRole('button', { name: 'Удалить' }).click();
        await routes.getByText(`Маршрут удалён: ${pattern}`).waitFor();
      }
      await routes.getByText('Маршрутов нет').waitFor();

      await section('Провайдеры').click();
      await menuAction('Запасной', 'Удалить');
      await dialog.getByRole('button', { name: 'Удалить' }).click();
      await screen.getByText('Провайдер удалён: Запасной').waitFor();
      await providerRow('Запасной').waitFor({ state: 'detached' });
      expect((await api('GET', '/api/admin/providers')).body.data.map((p: { name: string }) => p.name)).toEqual(['default', 'Основной']);

      for (const name of SCREENS) expect(statSync(screenPath(name)).size).toBeGreaterThan(1000);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
