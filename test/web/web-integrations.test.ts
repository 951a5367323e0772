// The VK and Telegram sections of the agent page, in a real browser against the real app wired to the fake VK
// and the fake Telegram: settings saved and read back masked, the webhook URLs to copy, the VK connection
// check (ok and a wrong key), the confirmation code, the callback server registration, the bot token refused
// then accepted, and the channel check both ways. Screenshots: test-artifacts/screens/integrations*.png.
import { expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram';
import { startFakeVk, type FakeVk } from '../fakes/vk';
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
import { BOT, BOT_TOKEN, CHANNEL, freePort, messengerEnv, OPERATOR, seedTelegram } from '../helpers/messenger';
import { CODE, GROUP, SECRET, TOKEN } from '../helpers/social';

const SCREENS = ['integrations', 'integrations-phone'] as const;
const browserSuite = browserDescribe('web-integrations.test.ts');
const COMMUNITY = 'Салон «Лён»';
const WRONG_VK_TOKEN = 'vk1.a.not-a-real-token-0123456789abcdef';
const WRONG_BOT_TOKEN = `${BOT.id}:BBHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw9`;

let vk: FakeVk;
let telegram: FakeTelegram;
let app: TestApp;
let port: number;
let page: Page;
let pageErrors: string[] = [];
const user = { email: uniqueEmail('integrations'), password: 'integrations-secret-1' };

browserSuite('the VK and Telegram sections of the agent page in chromium', () => {
  useBrowserApp({
    screens: SCREENS,
    before: async () => {
      [vk, telegram] = await Promise.all([startFakeVk(), startFakeTelegram()]);
      vk.addGroup({ id: GROUP, name: COMMUNITY, token: TOKEN, confirmationCode: CODE });
      vk.settings.autoConfirm = true;
      seedTelegram(telegram);
      port = freePort();
    },
    app: () => ({ env: { ...messengerEnv(telegram, port), VK_API_BASE_URL: vk.url } }),
    ready: (s) => ({ app, page, pageErrors } = s),
    after: () => Promise.all([vk?.close(), telegram?.close()]),
  });

  test(
    'VK: settings masked, connection checked, code fetched, webhook registered; Telegram: bad token refused, bot saved, channel checked',
    async () => {
      await registerThroughPage(page, app.url, user);

      await page.getByRole('link', { name: 'Агенты' }).click();
      await page.getByLabel('Имя').fill(COMMUNITY);
      await page.getByRole('button', { name: 'Создать агента' }).click();
      await page.waitForURL(/\/app\/agents\/[0-9a-f-]{36}$/);
      const agentId = page.url().split('/').pop()!;
      const jwt = await sessionToken(page);
      const publicBase = `http://127.0.0.1:${port}`;
      const sections = page.getByRole('navigation', { name: 'Разделы агента' });
      await sections.getByRole('link', { name: 'ВКонтакте' }).click();

      // ---- VK ----
      const social = page.getByTestId('social-settings');
      await social.getByText('Не подключено').waitFor();
      const vkWebhookUrl = `${publicBase}/api/v1/social/webhook/${agentId}`;
      expect(await social.getByTestId('social-webhook-url').textContent()).toBe(vkWebhookUrl);
      await social.getByRole('button', { name: 'Копировать' }).click();
      await social.getByText('Скопировано').waitFor();

      // Saved without the confirmation code: the page asks VK for it below.
      await social.getByLabel('ID сообщества').fill(String(GROUP));
      await social.getByLabel('Ключ доступа сообщества').fill(TOKEN);
      await social.getByLabel('Секретный ключ').fill(SECRET);
      await social.getByRole('button', { name: 'Сохранить настройки ВКонтакте' }).click();
      await social.getByRole('status').filter({ hasText: 'Сохранено' }).first().waitFor();
      await social.getByText('Подключено', { exact: true }).waitFor();
      await social.getByText(`Сохранён: ${TOKEN.slice(0, 10)}••••••••. Оставьте пустым, чтобы не менять`).waitFor();
      await social.getByText('Сохранён. Оставьте пустым, чтобы не менять').waitFor();
      expect(await social.getByLabel('Ключ доступа сообщества').inputValue()).toBe('');
      expect(await social.getByLabel('Секретный ключ').inputValue()).toBe('');
      // Neither the whole key nor the secret is anywhere in the page, also after a reload.
      await page.reload();
      await social.getByText(`Сохранён: ${TOKEN.slice(0, 10)}••••••••`, { exact: false }).waitFor();
      expect(await social.getByLabel('ID сообщества').inputValue()).toBe(String(GROUP));
      expect(await social.getByTestId('social-webhook-url').textContent()).toBe(vkWebhookUrl);
      const html = await page.content();
      expect(html).not.toContain(TOKEN);
      expect(html).not.toContain(SECRET);

      // The connection check: the server tries the saved (sealed) key, nothing to type again; a typed key
      // is tried as typed.
      const checkVk = social.getByRole('button', { name: 'Проверить подключение' });
      await checkVk.click();
      await social.getByText(`Подключение работает: «${COMMUNITY}»`).waitFor();
      await social.getByLabel('Ключ доступа сообщества').fill(TOKEN);
      await checkVk.click();
      await social.getByText(`Подключение работает: «${COMMUNITY}»`).waitFor();
      await social.getByLabel('Ключ доступа сообщества').fill(WRONG_VK_TOKEN);
      await checkVk.click();
      const vkFailure = social.locator('.tool span.error[role="status"]');
      await vkFailure.waitFor();
      const vkReason = (await vkFailure.textContent())!;
      expect(vkReason).toContain('ключ');
      expect(vkReason).toMatch(/^[^a-z]*[А-Яа-яЁё]/);
      expect(await social.getByText('Подключение работает').count()).toBe(0);
      await social.getByLabel('Ключ доступа сообщества').fill('');

      // The confirmation code, asked from VK once and shown (and put into its field).
      expect(vk.calls.filter((c) => c.method === 'groups.getCallbackConfirmationCode')).toHaveLength(0);
      await social.getByRole('button', { name: 'Получить код подтверждения' }).click();
      await social
        .getByRole('status')
        .filter({ hasText: `Код: ${CODE}` })
        .waitFor();
      expect(await social.getByLabel('Код подтверждения').inputValue()).toBe(CODE);
      expect(vk.calls.filter((c) => c.method === 'groups.getCallbackConfirmationCode')).toHaveLength(1);

      // The webhook as the community's callback server; VK then confirms it against our endpoint.
      await social.getByRole('button', { name: 'Подключить webhook в сообществе' }).click();
      // VK confirms right after the call, so the status read back may be any step before «ok»: each in Russian.
      const registered = social.getByRole('status').filter({ hasText: /Сервер №\d+ подключён: / });
      await registered.waitFor();
      expect(await registered.textContent()).toMatch(/подключён: (адрес подтверждён ВКонтакте|ВКонтакте проверяет адрес|адрес ещё не подтверждён)$/);
      const serverId = Number((await registered.textContent())!.match(/№(\d+)/)![1]);
      await social.getByText(`Сервер Callback API №${serverId}`).waitFor();
      await vk.idle();
      const server = vk.callbackServers.find((s) => s.id === serverId)!;
      expect(server).toMatchObject({ groupId: GROUP, url: vkWebhookUrl, secret_key: SECRET, status: 'ok' });
      for (const event of ['message_new', 'message_event', 'message_allow', 'message_deny']) expect(server.events[event]).toBe(1);
      const vkStored = await call(app.url, 'GET', `/api/v1/social/${agentId}/settings`, { token: jwt });
      expect(vkStored.body).toMatchObject({ configured: true, groupId: GROUP, callbackServerId: serverId, confirmationCode: CODE, secretKeySet: true });

      // ---- Telegram ----
      await sections.getByRole('link', { name: 'Telegram' }).click();
      const messenger = page.getByTestId('messenger-settings');
      await messenger.getByText('Не подключено').waitFor();
      const tgWebhookUrl = `${publicBase}/api/v1/messenger/${agentId}/webhook`;
      expect(await messenger.getByTestId('messenger-webhook-url').textContent()).toBe(tgWebhookUrl);

      // A token Telegram does not know: the API's Russian 400 under the form, nothing saved.
      await messenger.getByLabel('Токен бота').fill(WRONG_BOT_TOKEN);
      await messenger.getByLabel('ID пользователя для уведомлений').fill(String(OPERATOR.id));
      await messenger.getByLabel('Канал').fill(`@${CHANNEL.username}`);
      const saveBot = messenger.getByRole('button', { name: 'Сохранить настройки Telegram' });
      await saveBot.click();
      const saveError = messenger.locator('form [role="alert"]');
      await saveError.waitFor();
      expect(await saveError.textContent()).toMatch(/Telegram не принял токен/);
      expect(await saveError.getAttribute('data-error-type')).toBe('invalid_request_error');
      expect(await saveError.textContent()).not.toContain(WRONG_BOT_TOKEN);
      expect((await call(app.url, 'GET', `/api/v1/messenger/${agentId}/settings`, { token: jwt })).body.configured).toBe(false);
      expect(telegram.webhook(WRONG_BOT_TOKEN)).toBeNull();

      // The right token: saved, masked, the bot named, its webhook registered with Telegram.
      await messenger.getByLabel('Токен бота').fill(BOT_TOKEN);
      await saveBot.click();
      await messenger.getByRole('status').filter({ hasText: 'Сохранено' }).waitFor();
      expect(await saveError.count()).toBe(0);
      await messenger.getByText('Подключено', { exact: true }).waitFor();
      await messenger.getByText(`Бот @${BOT.username}`).waitFor();
      await messenger.getByText(/^Webhook зарегистрирован/).waitFor();
      await messenger.getByText('Сохранён: ••••••••. Оставьте пустым, чтобы не менять').waitFor();
      expect(await messenger.getByLabel('Токен бота').inputValue()).toBe('');
      expect(await messenger.getByTestId('messenger-webhook-url').textContent()).toBe(tgWebhookUrl);
      expect(telegram.webhook(BOT_TOKEN)).toMatchObject({ url: tgWebhookUrl });
      expect(await page.content()).not.toContain(BOT_TOKEN);

      // The channel check: the bot is not an admin yet, then it is, with the right to post.
      const checkChannel = messenger.getByRole('button', { name: 'Проверить права бота в канале' });
      await checkChannel.click();
      const channelFailure = messenger.locator('.tool span.error[role="status"]');
      await channelFailure.waitFor();
      expect(await channelFailure.textContent()).toBe('Бот не состоит в канале: добавьте его администратором с правом публиковать сообщения');
      await page.screenshot({ path: screenPath('integrations'), fullPage: true });

      telegram.setChatMember(CHANNEL.id, BOT.id, { status: 'administrator', can_post_messages: true });
      await checkChannel.click();
      await messenger.getByText('Бот — администратор канала и может публиковать сообщения').waitFor();
      expect(await channelFailure.count()).toBe(0);
      const tgStored = await call(app.url, 'GET', `/api/v1/messenger/${agentId}/settings`, { token: jwt });
      expect(tgStored.body).toMatchObject({ configured: true, userId: String(OPERATOR.id), channelId: `@${CHANNEL.username}`, webhook: { registered: true } });

      // Phone width: the long webhook URLs do not push the page sideways.
      await page.setViewportSize(PHONE);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await sections.getByRole('link', { name: 'ВКонтакте' }).click();
      await social.scrollIntoViewIfNeeded();
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: screenPath('integrations-phone') });
      await page.setViewportSize(DESKTOP);

      for (const name of SCREENS) expect(statSync(screenPath(name)).size).toBeGreaterThan(1000);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
