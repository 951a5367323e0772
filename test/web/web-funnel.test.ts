// The funnel on the agent's «Итоги» in chromium (issue 42 point 8): per week of the client's first message,
// dialogues → bookings → visits with each step's share of the one before, the total at the foot; at 1280 and
// 390 px nothing is wider than the window. Screenshots: test-artifacts/screens/funnel-desktop|phone.png.
import { expect, setDefaultTimeout, test } from 'bun:test';
import type { Page } from 'playwright-core';
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

setDefaultTimeout(60_000);

const SCREENS = ['funnel-desktop', 'funnel-phone'] as const;
const browserSuite = browserDescribe('web-funnel.test.ts');
const DAY_MS = 86_400_000;
const MSK_MS = 3 * 3_600_000;

let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

/** Wednesday noon in Moscow of the week `back` weeks before this one, and that week's Monday as the page writes it. */
function week(back: number) {
  const nowMsk = Date.now() + MSK_MS;
  const mondayMsk = Math.floor(nowMsk / DAY_MS) * DAY_MS - ((new Date(nowMsk).getUTCDay() + 6) % 7) * DAY_MS - back * 7 * DAY_MS;
  const [y, m, d] = new Date(mondayMsk).toISOString().slice(0, 10).split('-');
  return { label: `с ${d}.${m}.${y}`, date: `${y}-${m}-${d}`, wednesday: new Date(mondayMsk - MSK_MS + 2.5 * DAY_MS).toISOString() };
}

browserSuite('the funnel on the agent results', () => {
  useBrowserApp({ screens: SCREENS, app: () => ({ env: { YCLIENTS_TIME_ZONE: 'Europe/Moscow' } }), ready: (s) => ({ app, page, pageErrors } = s) });

  test(
    'weeks with their steps and conversions, the total; both widths',
    async () => {
      await page.setViewportSize(DESKTOP);
      await registerThroughPage(page, app.url, { email: uniqueEmail('web-funnel'), password: 'funnel-secret-1' });
      const token = await sessionToken(page);
      const created = await call(app.url, 'POST', '/api/agents', { token, body: { name: 'Салон «Лён»', type: 'service' } });
      const agentId = created.body.id as string;
      // Last week three clients wrote: two booked, one of them has been; two weeks ago one client, booked and came.
      const plan: [number, 'none' | 'past' | 'future'][] = [
        [1, 'past'],
        [1, 'future'],
        [1, 'none'],
        [2, 'past'],
      ];
      for (const [i, [back, booked]] of plan.entries()) {
        const [d] = await app.sql<{ id: string }>(`insert into dialogues (agent_id, channel, peer_id) values ($1, 'social', $2) returning id`, [
          agentId,
          String(60_000_000 + i),
        ]);
        await app.sql(`insert into dialogue_messages (dialogue_id, role, content, created_at) values ($1, 'user', 'Здравствуйте', $2)`, [
          d!.id,
          week(back).wednesday,
        ]);
        if (booked === 'none') continue;
        await app.sql(
          `insert into appointments (agent_id, specialist_id, service_id, staff_id, external_service_id, starts_at, datetime, client_name, client_phone, status, source, dialogue_id)
           values ($1, 's1', 'v1', $2, 1, now() + $3::interval, '2030-01-01T10:00:00+03:00', 'Анна', '79161234567', 'booked', 'button', $4)`,
          [agentId, i + 1, booked === 'past' ? '-1 day' : '1 day', d!.id],
        );
      }

      await page.goto(`${app.url}/app/agents/${agentId}/results`);
      const funnel = page.getByTestId('agent-funnel');
      await funnel.getByRole('heading', { name: 'Воронка по неделям' }).waitFor();
      const rows = funnel.getByTestId('funnel-week');
      await rows.first().waitFor();
      expect(await funnel.getByRole('columnheader').allTextContents()).toEqual(['Неделя', 'Диалоги', 'Записи', 'Визиты', 'Отзывы', 'Средняя оценка']);
      expect(await rows.count()).toBe(8);
      // Newest first: this week, then last week with its figures.
      expect(await rows.nth(0).getAttribute('data-week')).toBe(week(0).date);
      const last = rows.nth(1);
      expect(await last.getByRole('cell').allTextContents()).toEqual([week(1).label, '3', '2 66,7\u00a0%', '1 50\u00a0%', '0 0\u00a0%', '—']);
      const twoAgo = rows.nth(2);
      expect(await twoAgo.getByRole('cell').allTextContents()).toEqual([week(2).label, '1', '1 100\u00a0%', '1 100\u00a0%', '0 0\u00a0%', '—']);
      const total = funnel.getByTestId('funnel-total');
      expect(await total.getByRole('cell').allTextContents()).toEqual(['Всего', '4', '3 75\u00a0%', '2 66,7\u00a0%', '0 0\u00a0%', '—']);
      await funnel.getByText(/Отзыв — клиент оценил визит после него/).waitFor();

      for (const [size, name] of [
        [DESKTOP, 'funnel-desktop'],
        [PHONE, 'funnel-phone'],
      ] as const) {
        await page.setViewportSize(size);
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        await funnel.screenshot({ path: screenPath(name) });
      }
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
