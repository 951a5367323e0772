// «Рассылки» on the agent's page in chromium (issue 42 point 7): the owner writes a text, sees it exactly as
// the clients will with «Отписаться» and the number of recipients, sends it, and the broadcast's row shows
// its delivered / not delivered counts once the outbox is done. At 1280 and 390 px nothing is wider than the
// window. Screenshots: test-artifacts/screens/broadcasts-desktop|phone.png.
import { expect, setDefaultTimeout, test } from 'bun:test';
import type { Page } from 'playwright-core';
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
import { CODE, createSocialDriver, GROUP, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(60_000);

const SCREENS = ['broadcasts-desktop', 'broadcasts-desktop-preview', 'broadcasts-phone'] as const;
const browserSuite = browserDescribe('web-broadcasts.test.ts');
const CLIENTS = [40911233, 40911234, 40911235];

let app: TestApp;
let page: Page;
let pageErrors: string[] = [];
let vk: FakeVk;

const driver = createSocialDriver(
  () => app,
  () => vk,
);

browserSuite('broadcasts on the agent page', () => {
  useBrowserApp({
    screens: SCREENS,
    before: async () => {
      vk = await startFakeVk();
      vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
    },
    app: () => ({ env: { VK_API_BASE_URL: vk.url } }),
    ready: (s) => ({ app, page, pageErrors } = s),
    after: () => vk?.close(),
  });

  test(
    'preview with the exact text and recipients, send, counts; both widths',
    async () => {
      await page.setViewportSize(DESKTOP);
      await registerThroughPage(page, app.url, { email: uniqueEmail('web-broadcasts'), password: 'broadcasts-secret-1' });
      const token = await sessionToken(page);
      const created = await call(app.url, 'POST', '/api/agents', { token, body: { name: 'Салон «Лён»', type: 'service' } });
      const agentId = created.body.id as string;
      const saved = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
        token,
        body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
      });
      expect(saved.status).toBe(200);
      // Three clients allowed messages; the third then denied them.
      for (const [peer, allowed] of [...CLIENTS.map((p) => [p, true] as const), [CLIENTS[2]!, false] as const]) {
        const event = driver.consent(allowed, peer);
        expect(await (await driver.post(agentId, event)).text()).toBe('ok');
        await driver.processed(agentId, event.event_id);
      }

      await page.goto(`${app.url}/app/agents/${agentId}`);
      await page.getByRole('navigation', { name: 'Разделы агента' }).getByRole('link', { name: 'Рассылки' }).click();
      await page.waitForURL(`${app.url}/app/agents/${agentId}/broadcasts`);
      const section = page.getByTestId('agent-broadcasts');
      await section.getByText(/сейчас их 2/).waitFor();

      // Nothing typed: the form says so before any request.
      await section.getByRole('button', { name: 'Посмотреть перед отправкой' }).click();
      await section.getByText('напишите текст рассылки').waitFor();

      const text = 'Скидка 20% на стрижки до воскресенья!\nЗапишитесь прямо в сообщениях сообщества — ответим в течение часа.';
      await section.getByLabel('Текст рассылки').fill(`  ${text}  `);
      await section.getByRole('button', { name: 'Посмотреть перед отправкой' }).click();
      const preview = section.getByTestId('broadcast-preview');
      await preview.waitFor();
      expect(await preview.getByTestId('broadcast-preview-text').textContent()).toBe(text);
      expect(await preview.getByText('Отписаться', { exact: true }).count()).toBe(1);
      expect(await preview.getByTestId('broadcast-recipients').textContent()).toBe('Получателей: 2');
      expect(vk.sentMessages).toHaveLength(0);

      for (const [size, name] of [
        [DESKTOP, 'broadcasts-desktop'],
        [PHONE, 'broadcasts-phone'],
      ] as const) {
        await page.setViewportSize(size);
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        if (name === 'broadcasts-desktop') await section.screenshot({ path: screenPath(`${name}-preview`) });
      }

      // Sent from the phone width: the row shows 2 delivered, 0 failed once the outbox is done.
      await preview.getByRole('button', { name: 'Отправить 2 клиентам' }).click();
      await section
        .getByRole('status')
        .getByText(/Рассылка поставлена в очередь/)
        .waitFor();
      const row = section.getByTestId('broadcast').first();
      await row.getByTestId('broadcast-delivered').getByText('2', { exact: true }).waitFor({ timeout: 15_000 });
      expect(await row.getByTestId('broadcast-failed').textContent()).toBe('0');
      expect(vk.sentMessages.map((m) => m.peerId).sort()).toEqual(CLIENTS.slice(0, 2));
      expect(vk.sentMessages.every((m) => m.message === text)).toBe(true);

      for (const [size, name] of [
        [DESKTOP, 'broadcasts-desktop'],
        [PHONE, 'broadcasts-phone'],
      ] as const) {
        await page.setViewportSize(size);
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        await section.screenshot({ path: screenPath(name) });
      }
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
