// The operator console in chromium (issue 41 point 4, and from point 9 the console's bar on a phone and the
// price-change confirmation). «Провайдеры» as cards at 1280×800 and 390×844: the address and name on one
// line cut with «…» (the whole in the title), the state a one-line pill, «встроенный» unbroken, the actions
// in a «⋯» menu whose button and items lie inside the card and the window, nothing wider than the window;
// the hour's attempts after a real failover (the failing provider 1 attempt / 1 fault, the answering one its
// attempts and a client's 400 as a client error). On a phone the console's navigation is one compact bar
// (the site's sections behind «Меню») with every section still reachable. A price change says what changes
// for everyone before it is saved; «Отмена» leaves the price as it was.
// Screenshots: test-artifacts/screens/providers-desktop|phone.png (docs/screens/ has copies).
import { expect, test } from 'bun:test';
import type { Locator, Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS, horizontalOverflow, PHONE, screenPath, sessionToken, useBrowserApp, signInAsOperator } from '../helpers/browser';

const SCREENS = ['providers-desktop', 'providers-phone'] as const;
const DESKTOP_800 = { width: 1280, height: 800 };
const browserSuite = browserDescribe('web-console.test.ts');
const messages = [{ role: 'user' as const, content: 'Привет' }];
const LONG_NAME = 'Резервный провайдер в другом дата-центре с очень длинным названием';
const LONG_URL = 'https://openai-compatible-gateway.very-long-subdomain.example-provider.internal/api/openai/compatible/v1';

let app: TestApp;
let page: Page;
let pageErrors: string[] = [];
let home: FakeUpstream;
let broken: FakeUpstream;
let good: FakeUpstream;
let customerKey: string;
const admin = { email: uniqueEmail('console-ops'), password: 'console-secret-1' };

const appUrl = (path: string) => `${app.url}/app${path}`;
const api = async (method: string, path: string, body?: unknown) => call(app.url, method, path, { token: await sessionToken(page), body });
const ask = (model: string) => call(app.url, 'POST', '/v1/chat/completions', { token: customerKey, body: { model, messages } });
const card = (name: string) => page.getByTestId('provider-card').filter({ has: page.getByRole('heading', { name, exact: true }) });
const stat = (c: Locator, which: string) => c.locator(`[data-stat="${which}"] dd`).textContent();
/** Money as the page writes it, its no-break spaces made plain for comparing. */
const plain = (texts: string[]) => texts.map((t) => t.replace(/[\u00a0\u202f]/g, ' '));

type Box = { x: number; y: number; width: number; height: number };
const inside = (inner: Box, outer: Box) =>
  inner.x >= outer.x - 0.5 &&
  inner.y >= outer.y - 0.5 &&
  inner.x + inner.width <= outer.x + outer.width + 0.5 &&
  inner.y + inner.height <= outer.y + outer.height + 0.5;

/** One line of text: no taller than 1.6 of its line height, not wrapping, cut with an ellipsis when it must be. */
async function oneLine(element: Locator): Promise<{ lines: number; whiteSpace: string; textOverflow: string; cut: boolean; title: string | null }> {
  return element.evaluate((el) => {
    const style = getComputedStyle(el);
    const lineHeight = Number.parseFloat(style.lineHeight) || Number.parseFloat(style.fontSize) * 1.2;
    const height = el.getBoundingClientRect().height - Number.parseFloat(style.paddingTop) - Number.parseFloat(style.paddingBottom);
    return {
      lines: Math.round(height / lineHeight),
      whiteSpace: style.whiteSpace,
      textOverflow: style.textOverflow,
      cut: el.scrollWidth > el.clientWidth,
      title: el.getAttribute('title'),
    };
  });
}

/** At the window's size now: every card's name, address, pills and menu button as the issue asks. */
async function checkCards(viewport: { width: number; height: number }) {
  expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
  const window = { x: 0, y: -1e6, width: viewport.width, height: 2e6 };
  const cards = page.getByTestId('provider-card');
  const count = await cards.count();
  expect(count).toBe(4);
  for (let i = 0; i < count; i++) {
    const c = cards.nth(i);
    await c.scrollIntoViewIfNeeded();
    const box = (await c.boundingBox())!;
    expect(inside(box, window)).toBe(true);
    const url = await oneLine(c.getByTestId('provider-url'));
    expect(url.lines).toBe(1);
    expect(url.whiteSpace).toBe('nowrap');
    expect(url.textOverflow).toBe('ellipsis');
    expect(url.title).toBe(await c.getByTestId('provider-url').textContent());
    const name = await oneLine(c.getByRole('heading'));
    expect(name.lines).toBe(1);
    expect(name.textOverflow).toBe('ellipsis');
    for (const pill of await c.locator('.pill').all()) {
      const shape = await oneLine(pill);
      expect(shape.lines).toBe(1);
      expect(shape.whiteSpace).toBe('nowrap');
      expect(shape.cut).toBe(false);
      expect(inside((await pill.boundingBox())!, box)).toBe(true);
    }
    const menuButton = c.getByTestId('provider-menu').getByRole('button');
    if ((await menuButton.count()) > 0) expect(inside((await menuButton.boundingBox())!, box)).toBe(true);
  }
  // The long address is cut, not wrapped; the built-in provider's «встроенный» is one unbroken word.
  expect((await oneLine(card(LONG_NAME).getByTestId('provider-url'))).cut).toBe(true);
  expect(await card('default').locator('.pill', { hasText: 'встроенный' }).textContent()).toBe('встроенный');

  // The long one's menu opens inside the window, each item within the card's width.
  const long = card(LONG_NAME);
  await long.getByRole('button', { name: `Действия: ${LONG_NAME}` }).click();
  const menu = page.getByRole('menu', { name: `Действия: ${LONG_NAME}` });
  await menu.waitFor();
  const cardBox = (await long.boundingBox())!;
  for (const item of await menu.getByRole('menuitem').all()) {
    const b = (await item.boundingBox())!;
    expect(inside(b, window)).toBe(true);
    expect(b.x).toBeGreaterThanOrEqual(cardBox.x - 0.5);
    expect(b.x + b.width).toBeLessThanOrEqual(cardBox.x + cardBox.width + 0.5);
  }
  expect(await menu.getByRole('menuitem').allTextContents()).toEqual(['Изменить', 'Выключить', 'Удалить']);
  expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'detached' });
}

async function menuAction(name: string, action: string) {
  await card(name)
    .getByRole('button', { name: `Действия: ${name}` })
    .click();
  await page
    .getByRole('menu', { name: `Действия: ${name}` })
    .getByRole('menuitem', { name: action, exact: true })
    .click();
}

browserSuite('the operator console: providers as cards, the phone’s bar, price changes confirmed', () => {
  useBrowserApp({
    screens: SCREENS,
    before: async () => {
      [home, broken, good] = await Promise.all([startFakeUpstream(), startFakeUpstream(), startFakeUpstream()]);
      broken.outage = 500;
    },
    app: () => ({ env: { ADMIN_EMAILS: admin.email, UPSTREAM_BASE_URL: home.url } }),
    ready: async (s) => {
      ({ app, page, pageErrors } = s);
      const customer = await registerUser(app.url);
      customerKey = (await createApiKey(app.url, customer.token)).key;
      await signInAsOperator(page, app, admin);
    },
    after: () => Promise.all([home, broken, good].map((f) => f?.close())),
  });

  test(
    'providers as cards at 1280 and 390 px with the hour’s attempts, faults and client errors; actions in a «⋯» menu',
    async () => {
      const add = async (name: string, baseUrl: string) => {
        const res = await api('POST', '/api/admin/providers', { name, baseUrl, apiKey: 'sk-provider-secret-0123456789' });
        expect(res.status).toBe(201);
        return res.body.id as string;
      };
      const failing = await add('Падающий', broken.url);
      const answering = await add('Запасной', good.url);
      await add(LONG_NAME, LONG_URL);
      expect(
        (
          await api('PUT', '/api/admin/routes', {
            pattern: 'acme/*',
            targets: [
              { providerId: failing, priority: 0 },
              { providerId: answering, priority: 1 },
            ],
          })
        ).status,
      ).toBe(200);
      expect((await api('PUT', '/api/admin/routes', { pattern: 'fake/error-400', targets: [{ providerId: answering }] })).status).toBe(200);
      // A failover: the first provider answers 500, the second answers; then a client's own 400 from the second.
      expect((await ask('acme/chat')).status).toBe(200);
      expect((await ask('fake/error-400')).status).toBe(400);

      await page.setViewportSize(DESKTOP_800);
      await page.goto(appUrl('/admin/providers'));
      await page.getByTestId('providers-list').waitFor();
      const failingCard = card('Падающий');
      expect(await stat(failingCard, 'attempts')).toBe('1');
      expect(await stat(failingCard, 'faults')).toBe('1');
      expect(await stat(failingCard, 'client-errors')).toBe('0');
      expect(await stat(failingCard, 'p50')).toBe('—');
      expect(await failingCard.getByTestId('provider-health').textContent()).toContain('Сбоев подряд: 1');
      expect(await failingCard.getByTestId('provider-health').textContent()).toContain('500');
      const answeringCard = card('Запасной');
      expect(await stat(answeringCard, 'attempts')).toBe('2');
      expect(await stat(answeringCard, 'faults')).toBe('0');
      expect(await stat(answeringCard, 'client-errors')).toBe('1');
      expect(await stat(answeringCard, 'p50')).toMatch(/^\d[\d\s\u00a0]* мс$/);
      expect(await answeringCard.getByTestId('provider-state').textContent()).toBe('работает');
      // The key masked; never the key itself.
      expect(await answeringCard.getByTestId('provider-key').textContent()).not.toContain('0123456789');

      await checkCards(DESKTOP_800);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.getByTestId('admin-providers').screenshot({ path: screenPath('providers-desktop') });
      await page.setViewportSize(PHONE);
      await checkCards(PHONE);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: screenPath('providers-phone'), fullPage: true });

      // The menu's actions, at phone width: edit opens the form, switch off and on, delete asks first.
      await menuAction('Запасной', 'Изменить');
      const edit = page.getByRole('form', { name: 'Изменить провайдера Запасной' });
      expect(await edit.getByLabel('Название').inputValue()).toBe('Запасной');
      await edit.getByRole('button', { name: 'Отмена' }).click();
      await menuAction('Запасной', 'Выключить');
      await page.getByRole('status').getByText('Провайдер Запасной выключен').waitFor();
      await card('Запасной').locator('.pill', { hasText: 'выключен' }).waitFor();
      expect((await api('GET', `/api/admin/providers/${answering}`)).body.enabled).toBe(false);
      await menuAction('Запасной', 'Включить');
      await page.getByRole('status').getByText('Провайдер Запасной включён').waitFor();
      expect((await api('GET', `/api/admin/providers/${answering}`)).body.enabled).toBe(true);

      await menuAction(LONG_NAME, 'Удалить');
      const dialog = page.getByRole('dialog', { name: 'Удалить провайдера?' });
      await dialog.getByRole('button', { name: 'Отмена' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect(await card(LONG_NAME).count()).toBe(1);
      await menuAction(LONG_NAME, 'Удалить');
      await dialog.getByRole('button', { name: 'Удалить', exact: true }).click();
      await page.getByRole('status').getByText(`Провайдер удалён: ${LONG_NAME}`).waitFor();
      await card(LONG_NAME).waitFor({ state: 'detached' });
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'on a phone the console’s navigation is one compact bar, and every section stays reachable',
    async () => {
      await page.setViewportSize(PHONE);
      await page.goto(appUrl('/admin/providers'));
      const bar = page.getByRole('navigation', { name: 'Разделы администрирования' });
      await bar.waitFor();
      const site = page.getByRole('navigation', { name: 'Разделы', exact: true });
      // The site's sections wait behind «Меню»: the header and the console's bar are one row each.
      expect(await site.isVisible()).toBe(false);
      const header = (await page.locator('header.topbar').boundingBox())!;
      const barBox = (await bar.boundingBox())!;
      expect(header.height + barBox.height).toBeLessThanOrEqual(120);
      expect(barBox.height).toBeLessThanOrEqual(56);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);

      // Every console section by its link in the bar (scrolled into view as a finger would).
      for (const [name, path] of [
        ['Пользователи', '/admin'],
        ['Выручка и расход', '/admin/stats'],
        ['Журнал действий', '/admin/audit'],
        ['Цены', '/admin/prices'],
        ['Группы цен', '/admin/price-groups'],
        ['Провайдеры', '/admin/providers'],
        ['Маршруты', '/admin/routes'],
        ['Реквизиты', '/admin/requisites'],
        ['Банковские выписки', '/admin/bank'],
        ['Промокоды', '/admin/promotions'],
      ] as const) {
        const link = bar.getByRole('link', { name, exact: true });
        await link.click();
        await page.waitForURL(appUrl(path));
        expect(await link.getAttribute('aria-current')).toBe('page');
        // The current section is in the bar's view, not scrolled away.
        const box = (await link.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(-0.5);
        expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width + 0.5);
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      }

      // The site's sections through «Меню».
      const toggle = page.getByRole('button', { name: 'Меню' });
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      await toggle.click();
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      expect(await site.getByRole('link', { name: 'Документация API' }).getAttribute('href')).toBe('/docs');
      await site.getByRole('link', { name: 'API-ключи', exact: true }).click();
      await page.waitForURL(appUrl('/keys'));
      // Outside the console the site's navigation is as before, without «Меню».
      expect(await site.isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: 'Меню' }).count()).toBe(0);
      await site.getByRole('link', { name: 'Администрирование', exact: true }).click();
      await page.waitForURL(appUrl('/admin'));
      expect(await site.isVisible()).toBe(false);

      // On a desktop there is no «Меню»: the site's sections are in view.
      await page.setViewportSize(DESKTOP_800);
      expect(await page.getByRole('button', { name: 'Меню' }).isVisible()).toBe(false);
      expect(await site.isVisible()).toBe(true);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'a price change says what changes for everyone before saving; «Отмена» leaves it as it was',
    async () => {
      const prices = async () => (await api('GET', '/api/admin/prices')).body.prices as { pattern: string; promptPerMillion: number; completionPerMillion: number }[];
      for (const size of [DESKTOP_800, PHONE]) {
        const pattern = size === PHONE ? 'phone/*' : 'desk/*';
        await page.setViewportSize(size);
        await page.goto(appUrl('/admin/prices'));
        const screen = page.getByTestId('admin-prices');
        const form = screen.getByTestId('price-form');
        await form.getByLabel('Шаблон модели').fill(pattern);
        await form.getByLabel('Запрос за 1M токенов').fill('1,5');
        await form.getByLabel('Ответ за 1M токенов').fill('2');
        await form.getByRole('button', { name: 'Сохранить цену' }).click();
        // A new row: the price these models paid (the default, TOKEN_PRICE per token × 1M) → the new one.
        const added = page.getByRole('dialog', { name: 'Добавить цену для всех?' });
        await added.waitFor();
        expect(await added.getByText(pattern, { exact: true }).count()).toBe(1);
        expect(plain(await added.getByTestId('price-change-line').allTextContents())).toEqual(['0,125 ₽ → 1,50 ₽', '0,125 ₽ → 2,00 ₽']);
        await added.getByText('применяется ко всем пользователям').waitFor();
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        expect(inside((await added.boundingBox())!, { x: 0, y: 0, ...size })).toBe(true);
        // Cancelled: nothing saved.
        await added.getByRole('button', { name: 'Отмена' }).click();
        await added.waitFor({ state: 'hidden' });
        expect((await prices()).map((p) => p.pattern)).not.toContain(pattern);
        await form.getByRole('button', { name: 'Сохранить цену' }).click();
        await added.getByRole('button', { name: 'Сохранить для всех' }).click();
        await screen.getByText(`Цена ${pattern} добавлена`).waitFor();
        expect((await prices()).find((p) => p.pattern === pattern)).toMatchObject({ promptPerMillion: 1.5, completionPerMillion: 2 });

        // A change of that row: old → new per million, the unchanged one said so.
        await screen.getByRole('button', { name: `Изменить цену ${pattern}` }).click();
        const edit = screen.getByRole('form', { name: `Изменить цену ${pattern}` });
        await edit.getByLabel('Запрос за 1M токенов').fill('3');
        await edit.getByRole('button', { name: 'Сохранить цену' }).click();
        const changed = page.getByRole('dialog', { name: 'Изменить цену для всех?' });
        await changed.waitFor();
        expect(plain(await changed.getByTestId('price-change-line').allTextContents())).toEqual(['1,50 ₽ → 3,00 ₽', '2,00 ₽ → 2,00 ₽ (без изменений)']);
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        await changed.getByRole('button', { name: 'Отмена' }).click();
        await changed.waitFor({ state: 'hidden' });
        // As it was: on the server and in the table.
        expect((await prices()).find((p) => p.pattern === pattern)).toMatchObject({ promptPerMillion: 1.5, completionPerMillion: 2 });
        expect(await screen.getByTestId('prices-table').locator(`tr[data-pattern="${pattern}"]`).textContent()).toContain('1,50');
        await edit.getByRole('button', { name: 'Сохранить цену' }).click();
        await changed.getByRole('button', { name: 'Сохранить для всех' }).click();
        await screen.getByText(`Цена ${pattern} сохранена`).waitFor();
        expect((await prices()).find((p) => p.pattern === pattern)).toMatchObject({ promptPerMillion: 3, completionPerMillion: 2 });
      }
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'a per-second price for a transcription model: saved from the form, shown a second in the table and a minute in the public list',
    async () => {
      await page.setViewportSize(DESKTOP_800);
      await page.goto(appUrl('/admin/prices'));
      const screen = page.getByTestId('admin-prices');
      const form = screen.getByTestId('price-form');
      await form.getByLabel('Шаблон модели').fill('acme/chat');
      await form.getByLabel('Как считать').selectOption('per_second');
      expect(await form.getByLabel('Запрос за 1M токенов').count()).toBe(0);
      await form.getByRole('button', { name: 'Сохранить цену' }).click();
      await form.getByText('укажите цену секунды аудио').waitFor();
      await form.getByLabel('Секунда аудио').fill('0,0015');
      await form.getByRole('button', { name: 'Сохранить цену' }).click();
      const added = page.getByRole('dialog', { name: 'Добавить цену для всех?' });
      await added.waitFor();
      expect(plain(await added.getByTestId('price-change-line').allTextContents())).toEqual(['0,0015 ₽']);
      await added.getByRole('button', { name: 'Сохранить для всех' }).click();
      await screen.getByText('Цена acme/chat добавлена: 0,0015 ₽ за секунду аудио').waitFor();
      const listed = (await api('GET', '/api/admin/prices')).body.prices.find((p: { pattern: string }) => p.pattern === 'acme/chat');
      expect(listed).toMatchObject({ kind: 'per_second', perSecond: 0.0015 });
      const row = screen.getByTestId('prices-table').locator('tr[data-pattern="acme/chat"]');
      expect(plain([(await row.getByTestId('price-per-second').textContent()) ?? ''])).toEqual(['0,0015 ₽ за секунду аудио']);
      const models = await call(app.url, 'GET', '/v1/models/acme%2Fchat');
      expect(models.body.pricing).toEqual({ prompt: '0', completion: '0', audio_second: '0.0015' });
      // The dashboard's model prices: a minute of audio (0.0015 × 60), in place of the two token prices.
      await page.goto(appUrl('/'));
      const perMinute = page.getByTestId('model-prices').getByTestId('price-per-minute');
      await perMinute.waitFor();
      expect(plain(await perMinute.allTextContents())).toEqual(['0,09 ₽ за минуту аудио']);
      await api('DELETE', '/api/admin/prices?pattern=acme%2Fchat');
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
