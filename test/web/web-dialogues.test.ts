// The «Диалоги» section in a real browser against the real app, the fake VK and the fake model upstream
// (issue 15): a client writes in VK, the dialogue appears and updates without a reload, the owner takes
// it over and replies (VK receives the reply once), releases it, and the assistant answers the client's
// next message. The agent page shows the agent's results. At 390 px nothing scrolls sideways.
// Screenshots: test-artifacts/screens/dialogues*.png.
import { expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
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
import { waitFor } from '../helpers/messenger';
import { CLIENT, CODE, createSocialDriver, GROUP, SECRET, TOKEN } from '../helpers/social';

const SCREENS = ['dialogues', 'dialogues-phone', 'dialogues-list-phone'] as const;
const browserSuite = browserDescribe('web-dialogues.test.ts');
const REPLY = 'Здравствуйте! Стрижка стоит 1500 ₽, запишу вас на завтра?';

let vk: FakeVk;
let upstream: FakeUpstream;
let app: TestApp;
let page: Page;
let pageErrors: string[] = [];
const user = { email: uniqueEmail('dialogues'), password: 'dialogues-secret-1' };
const { post, messageNew, sendAndWait, processed } = createSocialDriver(
  () => app,
  () => vk,
);

browserSuite('the «Диалоги» section in chromium', () => {
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
    'a client writes, the owner takes over and replies once, releases, and the assistant answers again',
    async () => {
      await registerThroughPage(page, app.url, user);
      const jwt = await sessionToken(page);
      const created = await call(app.url, 'POST', '/api/agents', {
        token: jwt,
        body: { name: 'Салон «Лён»', type: 'service', model: 'acme/chat', systemPrompt: 'Ты — администратор салона.' },
      });
      expect(created.status).toBe(201);
      const agentId = created.body.id as string;
      const saved = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
        token: jwt,
        body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
      });
      expect(saved.status).toBe(200);

      // The client's first message, before the owner looks.
      await sendAndWait(agentId, messageNew('Привет'));

      // The agent page: its results, and the way into the dialogues.
      await page.goto(`${app.url}/app/agents/${agentId}/results`);
      const results = page.getByTestId('agent-results');
      await results.getByRole('heading', { name: 'Итоги агента' }).waitFor();
      expect(await results.getByTestId('results-dialogues').textContent()).toBe('1');
      await results.getByRole('link', { name: 'Открыть диалоги' }).click();
      await page.waitForURL(new RegExp(`/app/agents/${agentId}/dialogues$`));
      const list = page.getByTestId('dialogue-list');
      const item = list.getByTestId('dialogue-item').filter({ hasText: `Пользователь VK ${CLIENT}` });
      await item.waitFor();
      await item.getByText('Отвечает ассистент').waitFor();

      // A new message shows in the open list without a reload.
      await sendAndWait(agentId, messageNew('Сколько стоит стрижка?'));
      await item.getByText('Ассистент: Echo: Сколько стоит стрижка?').waitFor();
      await item.getByText('2 непрочит.').waitFor();

      // The transcript: authors, and the model's answer with its model and tokens.
      await item.click();
      await page.waitForURL(/\/dialogues\/[0-9a-f-]{36}$/);
      const turns = page.getByTestId('turns');
      await turns.getByText('Echo: Сколько стоит стрижка?').waitFor();
      const modelTurn = turns.getByTestId('turn').filter({ hasText: 'Echo: Сколько стоит стрижка?' });
      await modelTurn.getByText(/acme\/chat · \d+ \+ \d+ токенов/).waitFor();
      expect(await turns.getByTestId('turn').count()).toBe(4);
      // Opened: read.
      await item.getByText('2 непрочит.').waitFor({ state: 'detached' });

      // Takeover: the assistant keeps quiet but for one acknowledgement while the owner has not written yet;
      // the client's next message and that line appear in the open transcript.
      await page.getByRole('button', { name: 'Перехватить' }).click();
      await page.getByTestId('dialogue-state').filter({ hasText: 'У оператора' }).waitFor();
      await page.getByTestId('holder').filter({ hasText: 'Диалог ведёте вы' }).waitFor();
      const quiet = messageNew('Алло, есть кто-нибудь?');
      await post(agentId, quiet);
      expect(await processed(agentId, quiet.event_id as string)).toBe('with_operator_acknowledged');
      await turns.getByText('Алло, есть кто-нибудь?').waitFor();
      await turns.getByText('Ваш вопрос уже у сотрудника').waitFor();

      // The reply: sent to VK once, shown as the operator's turn.
      const before = vk.sentMessages.length;
      await page.getByLabel('Ответ клиенту').fill(REPLY);
      await page.getByRole('button', { name: 'Отправить' }).click();
      await turns.getByTestId('turn').filter({ hasText: REPLY }).getByText(`Оператор: ${user.email}`).waitFor();
      expect(await page.getByLabel('Ответ клиенту').inputValue()).toBe('');
      await waitFor(() => vk.sentMessages.some((m) => m.message === REPLY), 5000, 'the reply in VK');
      const queued = await app.sql<{ status: string }>("select status from outbox where agent_id = $1 and kind = 'social.message' and payload->>'text' = $2", [
        agentId,
        REPLY,
      ]);
      expect(queued.map((r) => r.status)).toEqual(['sent']);
      expect(vk.sentMessages.slice(before).filter((m) => m.message === REPLY)).toHaveLength(1);
      expect(vk.sentMessages.slice(before).every((m) => m.peerId === CLIENT)).toBe(true);
      await page.screenshot({ path: screenPath('dialogues'), fullPage: true });

      // Phone width: the transcript alone, then the list alone; nothing scrolls sideways.
      await page.setViewportSize(PHONE);
      await turns.getByText(REPLY).waitFor();
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: screenPath('dialogues-phone'), fullPage: true });
      await page.getByRole('link', { name: '← Все диалоги' }).click();
      await item.waitFor();
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: screenPath('dialogues-list-phone'), fullPage: true });
      await item.click();
      await turns.getByText(REPLY).waitFor();
      await page.setViewportSize(DESKTOP);

      // Release: the text the client will get is shown first; confirmed, back to the assistant, which answers the next message.
      await page.getByRole('button', { name: 'Вернуть ассистенту' }).click();
      const preview = page.getByTestId('release-preview');
      await preview.waitFor();
      const told = (await preview.textContent())!;
      expect(told).toContain('завершил разговор');
      await page.getByRole('button', { name: 'Вернуть и отправить' }).click();
      await page.getByTestId('dialogue-state').filter({ hasText: 'Отвечает ассистент' }).waitFor();
      await waitFor(() => vk.sentMessages.at(-1)?.message === told, 5000, 'the release message in VK');
      const [answer] = await sendAndWait(agentId, messageNew('Спасибо, а маникюр?'));
      expect(answer!.message).toBe('Echo: Спасибо, а маникюр?');
      await turns.getByText('Echo: Спасибо, а маникюр?').waitFor();
      expect(vk.sentMessages.filter((m) => m.message === REPLY)).toHaveLength(1);

      for (const name of SCREENS) expect(statSync(screenPath(name)).size).toBeGreaterThan(1000);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );

  test(
    'a tool the model called shows in the transcript with its name and result; the results split bookings by who made them',
    async () => {
      const jwt = await sessionToken(page);
      // The fake upstream's fake/escalate model answers with an escalate_to_human call.
      const created = await call(app.url, 'POST', '/api/agents', {
        token: jwt,
        body: { name: 'Салон «Лён»', type: 'service', model: 'fake/escalate', systemPrompt: 'Ты — администратор салона.' },
      });
      expect(created.status).toBe(201);
      const agentId = created.body.id as string;
      const saved = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
        token: jwt,
        body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
      });
      expect(saved.status).toBe(200);
      const [asked] = await sendAndWait(agentId, messageNew('Хочу вернуть деньги'));
      expect(asked!.message).toContain('номер телефона');

      await page.goto(`${app.url}/app/agents/${agentId}/results`);
      await page.getByTestId('results-bookings-by').filter({ hasText: 'моделью: 0, кнопками: 0' }).waitFor();
      await page.goto(`${app.url}/app/agents/${agentId}/dialogues`);
      const item = page.getByTestId('dialogue-list').getByTestId('dialogue-item').first();
      // The list's last message is what the client was told, not the tool call.
      await item.getByText(/^Ассистент: .*номер телефона/).waitFor();
      await item.click();
      const turns = page.getByTestId('turns');
      const tool = turns.locator('[data-author="tool"]');
      await tool.getByText('Инструмент: Передача сотруднику').waitFor();
      expect(await tool.textContent()).toContain('спрошен телефон');
      expect(await turns.getByTestId('turn').evaluateAll((els) => els.map((e) => e.getAttribute('data-author')))).toEqual(['client', 'tool', 'assistant']);
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
