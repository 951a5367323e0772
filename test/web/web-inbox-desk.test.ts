// The inbox as a chat in chromium (issue 41 point 2), against the real app, the fake VK and the fake model:
// «Диалоги» opens one list across two agents with the waiting client pinned on top («ждёт … мин»); a long
// conversation (over 40 messages) opens at its newest message with the reply box inside the window at
// 1280×800 and 390×844 and the page itself never scrolling (the messages do); a quick reply saved, picked,
// edited and sent (VK gets the edited text); an internal note VK never gets; «Вернуть ассистенту» shows the
// text first and VK receives exactly it; «Удалить диалог» behind «⋯», confirmed.
// Screenshots: test-artifacts/screens/inbox-desktop|phone.png (docs/screens/ has copies the README shows).
import { expect, test } from 'bun:test';
import type { Locator, Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { call, uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS, horizontalOverflow, PHONE, registerThroughPage, screenPath, sessionToken, useBrowserApp } from '../helpers/browser';
import { waitFor } from '../helpers/messenger';
import { CLIENT, CODE, createSocialDriver, GROUP, SECRET, TOKEN } from '../helpers/social';

const SCREENS = ['inbox-desktop', 'inbox-phone'] as const;
const DESKTOP_800 = { width: 1280, height: 800 };
const browserSuite = browserDescribe('web-inbox-desk.test.ts');
const WAITING = CLIENT + 2;
const SEEDED = 46;

let vk: FakeVk;
let upstream: FakeUpstream;
let app: TestApp;
let page: Page;
let pageErrors: string[] = [];
const user = { email: uniqueEmail('inbox-desk'), password: 'inbox-desk-secret-1' };
const { messageNew, sendAndWait } = createSocialDriver(
  () => app,
  () => vk,
);

async function connectedAgent(token: string, name: string): Promise<string> {
  const created = await call(app.url, 'POST', '/api/agents', { token, body: { name, type: 'service', model: 'acme/chat', systemPrompt: 'Ты — администратор.' } });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const saved = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
    token,
    body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
  });
  expect(saved.status).toBe(200);
  return agentId;
}

/** The reply box inside the window, the page not scrollable, the messages scrollable and at their end. */
async function fitsTheWindow(turns: Locator, size: { width: number; height: number }): Promise<void> {
  const box = (await page.locator('form.reply').boundingBox())!;
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.y + box.height).toBeLessThanOrEqual(size.height);
  const send = (await page.locator('form.reply button[type="submit"]').boundingBox())!;
  expect(send.y + send.height).toBeLessThanOrEqual(size.height);
  // One scroll: the document has nothing to scroll, and a try to scroll it leaves it where it was.
  expect(await page.evaluate(() => document.scrollingElement!.scrollHeight - document.scrollingElement!.clientHeight)).toBeLessThanOrEqual(0);
  await page.mouse.move(size.width / 2, 10);
  await page.mouse.wheel(0, 2000);
  await page.evaluate(() => window.scrollTo(0, 5000));
  expect(await page.evaluate(() => document.scrollingElement!.scrollTop)).toBe(0);
  expect(await turns.evaluate((el) => el.scrollHeight > el.clientHeight + 200)).toBe(true);
  expect(await turns.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThanOrEqual(2);
  expect(await horizontalOverflow(page)).toBe(0);
}

browserSuite('the inbox as a chat in chromium', () => {
  useBrowserApp({
    screens: SCREENS,
    before: async () => {
      [vk, upstream] = await Promise.all([startFakeVk(), startFakeUpstream()]);
      vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
    },
    app: () => ({ env: { VK_API_BASE_URL: vk.url, UPSTREAM_BASE_URL: upstream.url, OUTBOX_POLL_INTERVAL_MS: '50' } }),
    ready: (s) => ({ app, page, pageErrors } = s),
    after: () => Promise.all([vk?.close(), upstream?.close()]),
  });

  test(
    'two agents in one list, the waiting client on top, a long conversation that fits the window, a quick reply, a note, the release text, the confirmed delete',
    async () => {
      await page.setViewportSize(DESKTOP_800);
      await registerThroughPage(page, app.url, user);
      const jwt = await sessionToken(page);
      const salon = await connectedAgent(jwt, 'Салон «Лён»');
      const barber = await connectedAgent(jwt, 'Барбершоп «Ус»');

      // The salon's client has a long history: earlier turns seeded, then one real exchange after them.
      const [seeded] = await app.sql<{ id: string }>(
        "insert into dialogues (agent_id, channel, peer_id, last_message_at) values ($1, 'social', $2, now()) returning id",
        [salon, String(CLIENT)],
      );
      const longId = seeded!.id;
      await app.sql(
        `insert into dialogue_messages (dialogue_id, role, content, created_at)
         select $1, case when i % 2 = 1 then 'user' else 'assistant' end,
                case when i % 2 = 1 then 'Вопрос клиента номер ' || i else 'Ответ ассистента номер ' || i end,
                now() - interval '2 hours' + i * interval '1 minute'
         from generate_series(1, $2::int) i`,
        [longId, SEEDED],
      );
      await sendAndWait(salon, messageNew('Подскажите цены на окрашивание'));
      // The barber's: one client talks to the bot, another asks for a person and waits.
      await sendAndWait(barber, messageNew('Есть запись на субботу?', { peerId: CLIENT + 1 }), 1, CLIENT + 1);
      await sendAndWait(barber, messageNew('оператор', { peerId: WAITING }), 1, WAITING);
      await sendAndWait(barber, messageNew('+7 916 555-44-33', { peerId: WAITING }), 1, WAITING);

      // «Диалоги» opens the one list straight away: no agent to pick first.
      await page.goto(`${app.url}/app/`);
      const nav = page.getByRole('navigation', { name: 'Разделы' });
      await nav.getByRole('link', { name: /^Диалоги/ }).click();
      await page.waitForURL(`${app.url}/app/dialogues`);
      const pinned = page.getByTestId('waiting-list').getByTestId('dialogue-item');
      await pinned.first().waitFor();
      expect(await pinned.count()).toBe(1);
      expect(await pinned.textContent()).toContain(`Пользователь VK ${WAITING}`);
      expect(await pinned.getByTestId('dialogue-agent').textContent()).toBe('Барбершоп «Ус»');
      expect(await pinned.getByTestId('waiting-time').textContent()).toMatch(/^ждёт (меньше минуты|\d+ мин)$/);
      const items = page.getByTestId('dialogue-list').getByTestId('dialogue-item');
      await items.nth(1).waitFor();
      expect(await items.count()).toBe(2);
      // Newest activity first below the pinned one, each row naming its agent.
      expect(await items.getByTestId('dialogue-agent').allTextContents()).toEqual(['Барбершоп «Ус»', 'Салон «Лён»']);
      // The pinned one sits above the rest.
      expect((await pinned.boundingBox())!.y).toBeLessThan((await items.first().boundingBox())!.y);
      expect(await horizontalOverflow(page)).toBe(0);

      // Filter by agent: the agent's own address, its rows only.
      await page.getByLabel('Агент').selectOption({ label: 'Салон «Лён»' });
      await page.waitForURL(`${app.url}/app/agents/${salon}/dialogues`);
      await page.getByTestId('waiting-list').waitFor({ state: 'detached' });
      await items.first().getByText(`Пользователь VK ${CLIENT}`).waitFor();
      expect(await items.count()).toBe(1);
      await page.getByLabel('Агент').selectOption({ label: 'Все агенты' });
      await page.waitForURL(`${app.url}/app/dialogues`);

      // The long conversation at 1280×800: opens at its newest message, the reply box in the window, one scroll.
      await items.filter({ hasText: 'Салон «Лён»' }).click();
      await page.waitForURL(new RegExp(`/app/dialogues/${salon}/${longId}$`));
      const turns = page.getByTestId('turns');
      await turns.getByText('Echo: Подскажите цены на окрашивание').waitFor();
      expect(await turns.getByTestId('turn').count()).toBeGreaterThan(40);
      await fitsTheWindow(turns, DESKTOP_800);

      // A quick reply: saved in its list, picked into the box, edited, sent — VK gets the edited text.
      await page.getByTestId('quick-replies').click();
      await page.getByRole('button', { name: 'Изменить список' }).click();
      const manage = page.getByTestId('quick-replies-dialog');
      await manage.getByLabel('Название').fill('Цены');
      await manage.getByLabel('Текст').fill('Окрашивание стоит от 3000 ₽.');
      await manage.getByRole('button', { name: 'Сохранить' }).click();
      await manage.getByTestId('quick-reply-row').filter({ hasText: 'Цены' }).waitFor();
      await manage.getByRole('button', { name: 'Закрыть' }).click();
      await manage.waitFor({ state: 'hidden' });
      await page.getByTestId('quick-replies').click();
      await page.getByRole('button', { name: /^Цены/ }).click();
      const box = page.getByLabel('Ответ клиенту');
      expect(await box.inputValue()).toBe('Окрашивание стоит от 3000 ₽.');
      await box.fill(`${await box.inputValue()} Запишем на завтра?`);
      const REPLY = 'Окрашивание стоит от 3000 ₽. Запишем на завтра?';
      const sentBefore = vk.sentMessages.length;
      await page.getByRole('button', { name: 'Отправить' }).click();
      await turns.getByTestId('turn').filter({ hasText: REPLY }).waitFor();
      await waitFor(() => vk.sentMessages.some((m) => m.message === REPLY), 5000, 'the quick reply in VK');
      expect(vk.sentMessages.slice(sentBefore).map((m) => m.message)).toEqual([REPLY]);

      // An internal note: in the transcript, marked, and VK gets nothing.
      const NOTE = 'Клиентка просила перезвонить после 18:00';
      await page.getByRole('button', { name: 'Заметка', exact: true }).click();
      await page.getByLabel('Заметка для себя и коллег').fill(NOTE);
      await page.getByRole('button', { name: 'Сохранить заметку' }).click();
      const note = turns.locator('[data-author="note"]').filter({ hasText: NOTE });
      await note.waitFor();
      expect(await note.getByTestId('note-mark').textContent()).toBe('Заметка — клиент её не видит');
      await Bun.sleep(500);
      expect(vk.sentMessages.some((m) => m.message.includes(NOTE))).toBe(false);
      expect(vk.sentMessages.length).toBe(sentBefore + 1);
      await fitsTheWindow(turns, DESKTOP_800);
      // Back to replying; the list shown from its top (opening a row scrolled it), for the screenshot.
      await page.getByRole('button', { name: 'Ответ клиенту' }).click();
      await page.getByRole('button', { name: 'Отправить' }).waitFor();
      await page.locator('.inbox-list-scroll').evaluate((el) => {
        el.scrollTop = 0;
      });
      await page.screenshot({ path: screenPath('inbox-desktop') });

      // The phone: the conversation alone under a compact header, the reply box in the window, one scroll.
      await page.setViewportSize(PHONE);
      await note.waitFor();
      await turns.evaluate((el) => {
        el.scrollTop = el.scrollHeight;
        el.dispatchEvent(new Event('scroll'));
      });
      await fitsTheWindow(turns, PHONE);
      // Compact: the client's name, the header and the actions take well under a third of the screen.
      const head = (await page.locator('.transcript-head').boundingBox())!;
      expect(head.y + head.height).toBeLessThan(PHONE.height / 3);
      expect((await turns.boundingBox())!.height).toBeGreaterThan(PHONE.height / 3);
      await page.screenshot({ path: screenPath('inbox-phone') });
      // Opened at this address on a phone, the sections' row brings the current one, «Диалоги», into view.
      await page.reload();
      await note.waitFor();
      const section = (await page
        .getByRole('navigation', { name: 'Разделы' })
        .getByRole('link', { name: /Диалоги/ })
        .boundingBox())!;
      expect(section.x).toBeGreaterThanOrEqual(0);
      expect(section.x + section.width).toBeLessThanOrEqual(PHONE.width);

      // «Вернуть ассистенту»: the text the client will get, shown first; VK receives exactly it.
      await page.setViewportSize(DESKTOP_800);
      await page.getByRole('button', { name: 'Вернуть ассистенту' }).click();
      const release = page.getByTestId('release-dialog');
      const preview = release.getByTestId('release-preview');
      await preview.waitFor();
      const shown = (await preview.textContent())!;
      expect(shown.length).toBeGreaterThan(10);
      const beforeRelease = vk.sentMessages.length;
      // Nothing is sent while the owner reads it.
      await Bun.sleep(300);
      expect(vk.sentMessages.length).toBe(beforeRelease);
      await release.getByRole('button', { name: 'Вернуть и отправить' }).click();
      await page.getByTestId('dialogue-state').filter({ hasText: 'Отвечает ассистент' }).waitFor();
      await waitFor(() => vk.sentMessages.length > beforeRelease, 5000, 'the release notice in VK');
      expect(vk.sentMessages.slice(beforeRelease).map((m) => [m.peerId, m.message])).toEqual([[CLIENT, shown]]);

      // Delete: not beside «Отправить» but behind «⋯», and only once confirmed.
      expect(
        await page
          .locator('form.reply')
          .getByRole('button', { name: /Удалить/ })
          .count(),
      ).toBe(0);
      await page.getByRole('button', { name: 'Ещё действия' }).click();
      await page.getByRole('menuitem', { name: 'Удалить диалог' }).click();
      const confirm = page.getByRole('dialog', { name: 'Удалить диалог клиента?' });
      await confirm.waitFor();
      await confirm.getByRole('button', { name: 'Отмена' }).click();
      await confirm.waitFor({ state: 'hidden' });
      expect((await app.sql('select 1 from dialogues where id = $1', [longId])).length).toBe(1);
      await page.getByRole('button', { name: 'Ещё действия' }).click();
      await page.getByRole('menuitem', { name: 'Удалить диалог' }).click();
      await confirm.getByRole('button', { name: 'Удалить' }).click();
      await page.waitForURL(`${app.url}/app/dialogues`);
      await items.filter({ hasText: 'Салон «Лён»' }).waitFor({ state: 'detached' });
      expect((await app.sql('select 1 from dialogues where id = $1', [longId])).length).toBe(0);

      // The list on the phone: the waiting client still pinned, nothing wider than the window.
      await page.setViewportSize(PHONE);
      await pinned.first().waitFor();
      expect(await horizontalOverflow(page)).toBe(0);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS * 2,
  );
});
