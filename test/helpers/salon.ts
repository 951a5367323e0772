// The salon's setting for assistant conversations: the scripted model host, the VK community, the Telegram
// bot and the YCLIENTS company, each a fake, in front of one app. A file names its own environment and
// its company (staff, services, working hours); the fakes forget everything before each test and the
// community, the bot and the company are put back.
import { afterAll, beforeAll, beforeEach, expect } from 'bun:test';
import { startScriptedModelHost, type ScriptedModelHost } from '../fakes/scripted-model';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { startFakeYclients, type FakeCompanySpec, type FakeYclients } from '../fakes/yclients';
import { call, registerUser, startTestApp, type TestApp } from './app';
import { freePort, messengerEnv, seedTelegram } from './messenger';
import { CODE, GROUP, SECRET, TOKEN } from './social';

/** A date `daysAhead` days after today in Moscow (the company's and the app's zone), YYYY-MM-DD. */
export function moscowDate(daysAhead: number): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Moscow', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
  return new Date(Date.parse(`${today}T00:00:00Z`) + daysAhead * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The salon «Лён» in the fake YCLIENTS, as the assistant's tests know it: the company's credentials, the
 * specialist Анна and her haircut (1 hour).
 */
export const SALON = {
  id: 4564,
  partnerToken: 'partner-token-5f2a9c',
  login: 'irina@example.ru',
  password: 'S3cret-pa55word',
  anna: 1601,
  haircut: 90211,
};

/** The booking settings that connect an agent to SALON: Анна as `anna`, the haircut as `haircut`. */
export const SALON_SETTINGS = {
  partnerToken: SALON.partnerToken,
  login: SALON.login,
  password: SALON.password,
  companyId: SALON.id,
  specialistMapping: { anna: SALON.anna },
  serviceMapping: { haircut: SALON.haircut },
};

/** SALON for the fake: Анна (and `others`, who do the haircut too) working `start`–`end` on each of `days`. */
export function salonCompany(days: string[], options: { start?: string; end?: string; others?: { id: number; name: string }[] } = {}): FakeCompanySpec {
  const staff = [{ id: SALON.anna, name: 'Анна' }, ...(options.others ?? [])];
  return {
    id: SALON.id,
    partnerToken: SALON.partnerToken,
    login: SALON.login,
    password: SALON.password,
    staff: staff.map((p) => ({ ...p, specialization: 'Парикмахер' })),
    services: [{ id: SALON.haircut, title: 'Стрижка', price_min: 1500, price_max: 2000, duration: 3600, staffIds: staff.map((p) => p.id) }],
    workingHours: days.flatMap((date) => staff.map((p) => ({ staffId: p.id, date, start: options.start ?? '09:00', end: options.end ?? '18:00' }))),
  };
}

/**
 * A new owner's Service agent on `model` with the VK community connected and YCLIENTS set to SALON_SETTINGS
 * (and `settings` over them): the salon's assistant as a client of the community meets it.
 */
export async function salonAgent(app: TestApp, model: string, settings: Record<string, unknown> = {}) {
  const owner = await registerUser(app.url);
  const created = await call(app.url, 'POST', '/api/agents', {
    token: owner.token,
    body: { name: 'Салон «Лён»', type: 'service', model, systemPrompt: 'Ты — администратор.' },
  });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const social = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
    token: owner.token,
    body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
  });
  expect(social.status).toBe(200);
  const booking = await call(app.url, 'PUT', `/api/v1/booking/${agentId}/settings`, { token: owner.token, body: { ...SALON_SETTINGS, ...settings } });
  expect(booking.status).toBe(200);
  return { owner, agentId };
}

export interface SalonSetup {
  app: TestApp;
  host: ScriptedModelHost;
  vk: FakeVk;
  telegram: FakeTelegram;
  yc: FakeYclients;
}

export interface SalonOptions {
  /** The app's environment beside the fakes' addresses (the assistant's limits, the debounce…). */
  env?: Record<string, string>;
  /** The YCLIENTS company put back before each test. */
  company: FakeCompanySpec;
  /** Without the Telegram bot's environment (the fake still runs, unconfigured): hand-overs go nowhere. */
  withoutTelegram?: boolean;
  /** Receives the app and the fakes once they run, before the file's first test. */
  ready: (setup: SalonSetup) => void;
}

export function useSalonApp(options: SalonOptions): void {
  let setup: SalonSetup | undefined;
  beforeAll(async () => {
    const [host, vk, telegram, yc] = await Promise.all([startScriptedModelHost(), startFakeVk(), startFakeTelegram(), startFakeYclients()]);
    const app = await startTestApp({
      env: {
        ...(options.withoutTelegram ? {} : messengerEnv(telegram, freePort())),
        VK_API_BASE_URL: vk.url,
        UPSTREAM_BASE_URL: host.url,
        YCLIENTS_BASE_URL: yc.url,
        YCLIENTS_RATE_PER_MINUTE: '100000',
        ...options.env,
      },
    });
    setup = { app, host, vk, telegram, yc };
    options.ready(setup);
  });
  afterAll(async () => {
    await setup?.app.close();
    await Promise.all([setup?.host.close(), setup?.vk.close(), setup?.telegram.close(), setup?.yc.close()]);
  });
  beforeEach(() => {
    if (!setup) return;
    const { vk, telegram, yc } = setup;
    vk.reset();
    vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
    telegram.reset();
    if (!options.withoutTelegram) seedTelegram(telegram);
    yc.reset();
    yc.addCompany(options.company);
  });
}
