// The agent page's YCLIENTS section in chromium, for the browser tests of its settings (visit reminders, after
// the visit, client matching): a fake YCLIENTS company with one specialist and one service, an owner registered
// through the page, a Service agent connected to that company through the API, and the section opened — so a
// file states only what it checks.
import { expect } from 'bun:test';
import type { Locator, Page } from 'playwright-core';
import { startFakeYclients, type FakeYclients } from '../fakes/yclients';
import { call, uniqueEmail, type TestApp } from './app';
import { DESKTOP, horizontalOverflow, PHONE, registerThroughPage, screenPath, sessionToken, useBrowserApp } from './browser';

export const SALON_PAGE_COMPANY = {
  partnerToken: 'partner-token-web-b00k',
  login: 'admin@salon.example',
  password: 'Web-S3cret-pass',
  id: 7312,
  maria: 2101,
  haircut: 93001,
} as const;

export interface BookingPage {
  app: TestApp;
  page: Page;
  pageErrors: string[];
  yc: FakeYclients;
}

/** The file's app with chromium and the fake YCLIENTS company; `ready` receives them before the first test. */
export function useBookingPage(screens: readonly string[], ready: (setup: BookingPage) => void): void {
  let yc: FakeYclients | undefined;
  useBrowserApp({
    screens,
    before: async () => {
      yc = await startFakeYclients();
      const c = SALON_PAGE_COMPANY;
      yc.addCompany({
        id: c.id,
        partnerToken: c.partnerToken,
        login: c.login,
        password: c.password,
        staff: [{ id: c.maria, name: 'Мария', specialization: 'Парикмахер' }],
        services: [{ id: c.haircut, title: 'Стрижка', price_min: 1500, price_max: 2000, duration: 3600, staffIds: [c.maria] }],
      });
    },
    app: () => ({ env: { YCLIENTS_BASE_URL: yc!.url } }),
    ready: (s) => ready({ ...s, yc: yc! }),
    after: () => yc?.close(),
  });
}

/**
 * Registers an owner through the page (e-mail named after `who`), connects a new Service agent to the company
 * through the API, and opens its YCLIENTS section, waiting for «Подключено».
 */
export async function openBookingSection(s: BookingPage, who: string) {
  const { app, page } = s;
  await page.setViewportSize(DESKTOP);
  await registerThroughPage(page, app.url, { email: uniqueEmail(`web-${who}`), password: `${who}-secret-1` });
  const token = await sessionToken(page);
  const created = await call(app.url, 'POST', '/api/agents', { token, body: { name: 'Салон «Лён»', type: 'service', systemPrompt: 'Ты — администратор.' } });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const settingsUrl = `/api/v1/booking/${agentId}/settings`;
  const c = SALON_PAGE_COMPANY;
  const base = {
    partnerToken: c.partnerToken,
    login: c.login,
    password: c.password,
    companyId: c.id,
    specialistMapping: { maria: c.maria },
    serviceMapping: { haircut: c.haircut },
  };
  expect((await call(app.url, 'PUT', settingsUrl, { token, body: base })).status).toBe(200);
  await page.goto(`${app.url}/app/agents/${agentId}`);
  await page.getByRole('navigation', { name: 'Разделы агента' }).getByRole('link', { name: 'YCLIENTS' }).click();
  const booking: Locator = page.getByTestId('booking-settings');
  await booking.getByText('Подключено', { exact: true }).waitFor();
  return { token, agentId, settingsUrl, base, booking };
}

/** At 1280 and 390 px nothing is wider than the window; `target` is photographed at each as `names`. */
export async function atBothWidths(page: Page, target: Locator, names: readonly [desktop: string, phone: string]): Promise<void> {
  for (const [size, name] of [
    [DESKTOP, names[0]],
    [PHONE, names[1]],
  ] as const) {
    await page.setViewportSize(size);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await target.screenshot({ path: screenPath(name) });
  }
}
