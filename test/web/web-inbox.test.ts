// The owner's inbox as used every day (issue 33), in a real browser against the real app, the fake VK,
// the fake YCLIENTS and the fake model: «Диалоги» in the main menu with its badges (straight into the one
// list across the agents, issue 41), the conversation opening at its newest message and following new ones, the
// «новые сообщения ↓» cue while the reader is scrolled up, the bot's keyboards and the client's taps in
// the transcript, search as you type, formatted phones, the agent's results listing the booking, the
// YCLIENTS mapping by name, a tappable sync checkbox, the setup hints, and the menu at 390 px.
// Every screen is checked at both widths for sideways scrolling.
// Screenshots: test-artifacts/screens/inbox-transcript-desktop.png and inbox-transcript-phone.png (the
// conversation with a menu and taps), inbox-list-phone.png (the menu's badges and the list across two
// agents), inbox-mapping-phone.png.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { startFakeYclients, type FakeYclients } from '../fakes/yclients';
import { call, grantAdmin, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
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
  registerThroughPage,
  screenPath,
  sessionToken,
  SETUP_TIMEOUT_MS,
} from '../helpers/browser';
import { CLIENT, CODE, createSocialDriver, GROUP, payloadOf, SECRET, TOKEN } from '../helpers/social';

const SCREENS = ['inbox-transcript-desktop', 'inbox-transcript-phone', 'inbox-list-phone', 'inbox-mapping-phone'] as const;
const browserSuite = browserDescribe('web-inbox.test.ts');
const COMPANY = 4588;
/** Two days ahead in the company's zone (Moscow): the times offered are never in the past. */
const DAY = new Date(Date.now() + 3 * 3_600_000 + 2 * 86_400_000).toISOString().slice(0, 10);
const OTHER_CLIENT = CLIENT + 7;

let vk: FakeVk;
let upstream: FakeUpstream;
let yc: FakeYclients;
let app: TestApp;
let browser: Browser;
let page: Page;
let pageErrors: string[] = [];
const user = { email: uniqueEmail('inbox'), password: 'inbox-secret-1' };
const { messageNew, messageEvent, sendAndWait } = createSocialDriver(
  () => app,
  () => vk,
);

/** At both widths: the page does not scroll sideways. Ends at the desktop width. */
async function bothWidths(check: () => Promise<void> = async () => {}): Promise<void> {
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    await check();
    expect(await horizontalOverflow(page)).toBe(0);
  }
  await page.setViewportSize(DESKTOP);
}

/** How far the transcript's list is from its end (0: the newest message is in view). */
function distanceFromEnd(turns: Locator): Promise<number> {
  return turns.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
}

browserSuite('the inbox in chromium', () => {
  beforeAll(async () => {
    await buildPage();
    prepareScreens(SCREENS);
    [vk, upstream, yc] = await Promise.all([startFakeVk(), startFakeUpstream(), startFakeYclients()]);
    vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
    yc.addCompany({
      id: COMPANY,
      partnerToken: 'partner-token-web-inbox',
      login: 'anna@example.ru',
      password: 'S3cret-pa55word',
      staff: [
        { id: 901, name: 'Анна Иванова', specialization: 'Парикмахер' },
        { id: 902, name: 'Олег Петров', specialization: 'Барбер' },
      ],
      services: [{ id: 301, title: 'Стрижка', price_min: 1500, price_max: 2000, duration: 3600, staffIds: [901, 902] }],
      workingHours: [{ staffId: 901, date: DAY, start: '10:00', end: '12:00' }],
    });
    app = await startTestApp({
      env: {
        VK_API_BASE_URL: vk.url,
        UPSTREAM_BASE_URL: upstream.url,
        YCLIENTS_BASE_URL: yc.url,
        OUTBOX_POLL_INTERVAL_MS: '50',
        ADMIN_EMAILS: user.email,
      },
    });
    browser = await launchChromium();
    ({ page, pageErrors } = await openPage(browser));
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await Promise.all([vk?.close(), upstream?.close(), yc?.close()]);
  });

  test(
    'menus and taps in the transcript, opened at the newest message, the new-messages cue, the badge, search as you type, results by name',
    async () => {
      await registerThroughPage(page, app.url, user);
      const jwt = await sessionToken(page);
      // An operator's menu is the longest: it has «Администрирование» too.
      await grantAdmin(app, user.email);
      await page.reload();

      // The menu at 390 px: every section, «Диалоги» included, on screen without scrolling sideways.
      await page.setViewportSize(PHONE);
      const nav = page.getByRole('navigation', { name: 'Разделы' });
      await nav.getByRole('link', { name: 'Администрирование' }).waitFor();
      for (const name of ['Баланс и использование', 'API-ключи', 'Агенты', 'Диалоги', 'Выписка', 'Аккаунт', 'Администрирование']) {
        const box = (await nav.getByRole('link', { name }).boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
      }
      expect(await nav.evaluate((el) => el.scrollWidth - el.clientWidth)).toBe(0);
      expect(await horizontalOverflow(page)).toBe(0);

      // No agent yet: «Диалоги» says where agents are made.
      await nav.getByRole('link', { name: 'Диалоги' }).click();
      await page.getByRole('link', { name: 'Создать агента' }).waitFor();
      await bothWidths();

      const created = await call(app.url, 'POST', '/api/agents', {
        token: jwt,
        body: { name: 'Салон «Лён»', type: 'service', model: 'acme/chat', systemPrompt: 'Ты — администратор салона.' },
      });
      expect(created.status).toBe(201);
      const agentId = created.body.id as string;
      expect(
        (
          await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
            token: jwt,
            body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await call(app.url, 'PUT', `/api/v1/booking/${agentId}/settings`, {
            token: jwt,
            body: {
              partnerToken: 'partner-token-web-inbox',
              login: 'anna@example.ru',
              password: 'S3cret-pa55word',
              companyId: COMPANY,
              specialistMapping: { '901': 901, '902': 902 },
              serviceMapping: { '301': 301 },
            },
          })
        ).status,
      ).toBe(200);

      // The client talks a little, then books through the bot's buttons.
      for (const text of ['Здравствуйте', 'Сколько стоит стрижка?', 'А окрашивание?', 'Вы работаете в субботу?', 'Где вы находитесь?']) {
        await sendAndWait(agentId, messageNew(text));
      }
      const [menu] = await sendAndWait(agentId, messageNew('Меню'));
      const [who] = await sendAndWait(agentId, messageEvent(payloadOf(menu!, 'Записаться')));
      const [what] = await sendAndWait(agentId, messageEvent(payloadOf(who!, 'Анна Иванова')));
      const [when] = await sendAndWait(agentId, messageEvent(payloadOf(what!, 'Стрижка')));
      const [askName] = await sendAndWait(agentId, messageEvent(payloadOf(when!, '11:00')));
      expect(askName!.message).toContain('имя');
      await sendAndWait(agentId, messageNew('Ольга'));
      await sendAndWait(agentId, messageNew('+7 916 123-45-67'));
      const [booked] = await sendAndWait(agentId, messageNew('Подтвердить'));
      expect(booked!.message).toContain('Вы записаны');
      // A second client, so the search has something to leave out.
      await sendAndWait(agentId, messageNew('Добрый день, есть маникюр?', { peerId: OTHER_CLIENT }), 1, OTHER_CLIENT);

      // The badge: unread client messages, without a reload (the menu asks again on every move).
      await page.setViewportSize(DESKTOP);
      await page.goto(`${app.url}/app/`);
      const unread = nav.getByTestId('nav-unread');
      await unread.waitFor();
      expect(Number(await unread.textContent())).toBeGreaterThanOrEqual(12);

      // «Диалоги» opens the inbox straight away.
      await nav.getByRole('link', { name: /^Диалоги/ }).click();
      await page.waitForURL(/\/app\/dialogues$/);
      expect(await nav.getByRole('link', { name: /^Диалоги/ }).getAttribute('aria-current')).toBe('page');
      const list = page.getByTestId('dialogue-list');
      const items = list.getByTestId('dialogue-item');
      // Booked: the dialogue carries the name and phone the client gave, the phone formatted.
      const booking = items.filter({ hasText: 'Ольга' });
      await booking.getByText('+7 916 123-45-67').waitFor();
      await items.filter({ hasText: `Пользователь VK ${OTHER_CLIENT}` }).waitFor();

      // Search as you type: no Enter pressed.
      await page.getByRole('searchbox', { name: 'Поиск' }).fill('маникюр');
      await booking.waitFor({ state: 'detached' });
      // The list empties while the filtered page loads: what it then holds is the other client alone.
      await items.filter({ hasText: `Пользователь VK ${OTHER_CLIENT}` }).waitFor();
      expect(await items.count()).toBe(1);
      await page.getByRole('searchbox', { name: 'Поиск' }).fill('');
      await booking.waitFor();
      await bothWidths(() => booking.waitFor());

      // The conversation opens at its newest message.
      await booking.click();
      await page.waitForURL(/\/dialogues\/(?:[0-9a-f-]{36}\/)?[0-9a-f-]{36}$/);
      const turns = page.getByTestId('turns');
      await turns.getByText(booked!.message).waitFor();
      expect(await turns.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
      expect(await distanceFromEnd(turns)).toBeLessThanOrEqual(2);

      // The bot's keyboards under its messages, the client's taps by label.
      const slots = turns.getByTestId('turn').filter({ hasText: 'Свободное время — Стрижка, Анна Иванова:' });
      await slots
        .getByTestId('turn-buttons')
        .getByText(/11:00$/)
        .waitFor();
      expect(await slots.getByTestId('turn-buttons').locator('.turn-button').count()).toBeGreaterThanOrEqual(3);
      const chooser = turns.getByTestId('turn').filter({ hasText: 'К кому хотите записаться?' });
      expect(await chooser.getByTestId('turn-buttons').textContent()).toContain('Олег Петров');
      const tap = turns.locator('[data-author="client"]').filter({ hasText: 'Нажата кнопка' });
      expect(await tap.allTextContents()).toEqual([
        expect.stringContaining('Записаться'),
        expect.stringContaining('Анна Иванова'),
        expect.stringContaining('Стрижка'),
        expect.stringContaining('11:00'),
      ]);
      // The header's phone (the booking's summary in the transcript carries it too, further down the page).
      await page.getByText('Телефон: +7 916 123-45-67').first().waitFor();
      // Read now: the menu's badge drops at once to the other client's one message.
      await unread.filter({ hasText: /^1$/ }).waitFor();
      await slots.scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenPath('inbox-transcript-desktop'), fullPage: true });

      // Scrolled up to read: a new message does not pull the reader down; the cue takes them there.
      await turns.evaluate((el) => {
        el.scrollTop = 0;
        el.dispatchEvent(new Event('scroll'));
      });
      await sendAndWait(agentId, messageNew('А можно перенести на 12:00?'));
      const cue = page.getByTestId('new-turns');
      await cue.waitFor();
      expect(await cue.textContent()).toContain('Новые сообщения');
      expect(await turns.evaluate((el) => el.scrollTop)).toBe(0);
      await cue.click();
      await cue.waitFor({ state: 'detached' });
      expect(await distanceFromEnd(turns)).toBeLessThanOrEqual(2);
      // At the bottom: the next message is followed, no cue.
      await sendAndWait(agentId, messageNew('Спасибо!'));
      await turns.getByText('Echo: Спасибо!').waitFor();
      expect(await distanceFromEnd(turns)).toBeLessThanOrEqual(2);
      expect(await cue.count()).toBe(0);

      // The same at a phone's width.
      await page.setViewportSize(PHONE);
      await turns.getByText('Echo: Спасибо!').waitFor();
      expect(await horizontalOverflow(page)).toBe(0);
      await turns.evaluate((el) => {
        el.scrollTop = 0;
        el.dispatchEvent(new Event('scroll'));
      });
      await sendAndWait(agentId, messageNew('И ещё вопрос'));
      await cue.waitFor();
      expect(await horizontalOverflow(page)).toBe(0);
      await cue.click();
      await cue.waitFor({ state: 'detached' });
      expect(await distanceFromEnd(turns)).toBeLessThanOrEqual(2);
      await slots.scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenPath('inbox-transcript-phone'), fullPage: true });
      await page.setViewportSize(DESKTOP);

      // A client waiting for a person: the menu's second badge; with a second agent, «Диалоги» is still one
      // list, the waiting client pinned on top with its agent named.
      await sendAndWait(agentId, messageNew('оператор', { peerId: OTHER_CLIENT }), 1, OTHER_CLIENT);
      await sendAndWait(agentId, messageNew('8 (903) 555-12-34', { peerId: OTHER_CLIENT }), 1, OTHER_CLIENT);
      const second = await call(app.url, 'POST', '/api/agents', {
        token: jwt,
        body: { name: 'Барбершоп «Ус»', type: 'creator', model: 'acme/chat', systemPrompt: 'Ты — администратор.' },
      });
      expect(second.status).toBe(201);
      await page.goto(`${app.url}/app/dialogues`);
      await nav.getByTestId('nav-waiting').filter({ hasText: '1 ждёт' }).waitFor();
      const waiting = page.getByTestId('waiting-list').getByTestId('dialogue-item');
      const waitingClient = waiting.filter({ hasText: `Пользователь VK ${OTHER_CLIENT}` });
      await waitingClient.getByText('+7 903 555-12-34').waitFor();
      expect(await waitingClient.getByTestId('dialogue-agent').textContent()).toBe('Салон «Лён»');
      expect(await page.getByLabel('Агент').locator('option').allTextContents()).toEqual(['Все агенты', 'Салон «Лён»', 'Барбершоп «Ус»']);
      await bothWidths(async () => {
        await waitingClient.waitFor();
        if (page.viewportSize()!.width === PHONE.width) await page.screenshot({ path: screenPath('inbox-list-phone'), fullPage: true });
      });
      await page.getByLabel('Агент').selectOption({ label: 'Салон «Лён»' });
      await page.waitForURL(new RegExp(`/app/agents/${agentId}/dialogues$`));
      await waitingClient.waitFor();
      await items.filter({ hasText: 'Ольга' }).waitFor();

      // The agent's results list the booking itself: who, what, when, made by the buttons.
      await page.goto(`${app.url}/app/agents/${agentId}/results`);
      const bookings = page.getByTestId('results-bookings');
      const row = bookings.getByRole('row').filter({ hasText: 'Ольга' });
      await row.waitFor();
      for (const text of ['+7 916 123-45-67', 'Стрижка', 'Анна Иванова', `${DAY.slice(8, 10)}.${DAY.slice(5, 7)}.${DAY.slice(0, 4)}, 11:00`, 'кнопки диалога']) {
        await row.getByText(text).waitFor();
      }
      await bothWidths(() => row.waitFor());
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS * 2,
  );

  test(
    'YCLIENTS mapping by name with labelled fields, a tappable sync checkbox, hints for the setup jargon and the next step after the webhook',
    async () => {
      const jwt = await sessionToken(page);
      const agents = await call(app.url, 'GET', '/api/agents', { token: jwt });
      const agentId = agents.body.agents.find((a: { name: string }) => a.name === 'Салон «Лён»').id as string;
      await page.goto(`${app.url}/app/agents/${agentId}`);
      // Each part in its section: «Основное» says what the prompt is and how the model is chosen; «Telegram»
      // where the operator's id comes from; «ВКонтакте» where the key comes from; «YCLIENTS» the mapping.
      await page.getByText('Системный промпт — постоянная инструкция ассистенту').waitFor();
      await page.getByText(/цена за 1 000 токенов запроса и ответа/).waitFor();
      await page.goto(`${app.url}/app/agents/${agentId}/telegram`);
      await page.getByText(/напишите боту @userinfobot/).waitFor();
      await page.goto(`${app.url}/app/agents/${agentId}/vk`);
      await page.getByText(/Где взять: в сообществе ВКонтакте откройте «Управление»/).waitFor();
      await page.getByText(/Webhook — адрес, на который ВКонтакте присылает сообщения клиентов/).waitFor();

      // Registering the webhook: VK has not confirmed the address yet, and the page says what comes next.
      await page.getByRole('button', { name: 'Подключить webhook в сообществе' }).click();
      await page.getByText(/адрес ещё не подтверждён/).waitFor();
      const next = page.getByTestId('social-next-step');
      expect(await next.textContent()).toContain('нажмите «Подтвердить»');
      expect(await next.textContent()).toContain('сообщения клиентов начнут приходить в «Диалоги»');
      await page.goto(`${app.url}/app/agents/${agentId}/yclients`);

      const specialists = page.getByTestId('specialist-mapping');
      const services = page.getByTestId('service-mapping');
      await specialists.getByTestId('mapping-name').filter({ hasText: 'Анна Иванова → 901' }).waitFor();
      await specialists.getByTestId('mapping-name').filter({ hasText: 'Олег Петров → 902' }).waitFor();
      await services.getByTestId('mapping-name').filter({ hasText: 'Стрижка → 301' }).waitFor();
      const sync = page.getByRole('checkbox', { name: /Синхронизировать специалистов/ });

      await bothWidths(async () => {
        await specialists.getByTestId('mapping-name').first().waitFor();
        // Each field of a row says what it is, above its input, also when the row stacks on a phone.
        const row = specialists.getByTestId('mapping-row').first();
        for (const label of ['Наш идентификатор', 'ID сотрудника в YCLIENTS']) {
          const text = row.locator('.mapping-field .label').filter({ hasText: label });
          expect(await text.isVisible()).toBe(true);
        }
        const [labelBox, inputBox] = [(await row.locator('.mapping-field .label').first().boundingBox())!, (await row.locator('input').first().boundingBox())!];
        expect(labelBox.y + labelBox.height).toBeLessThanOrEqual(inputBox.y + 1);
        const box = (await sync.boundingBox())!;
        expect(box.width).toBeGreaterThanOrEqual(20);
        expect(box.height).toBeGreaterThanOrEqual(20);
        if (page.viewportSize()!.width === PHONE.width) {
          await specialists.scrollIntoViewIfNeeded();
          await page.screenshot({ path: screenPath('inbox-mapping-phone') });
        }
      });
      expect(pageErrors).toEqual([]);
      for (const name of SCREENS) expect(statSync(screenPath(name)).size).toBeGreaterThan(1000);
    },
    FLOW_TIMEOUT_MS,
  );
});
