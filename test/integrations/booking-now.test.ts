// Free times that have already passed today, in the company's time zone, are offered by nobody: not the
// REST slots endpoint, not the booking buttons, not the assistant's find_slots; and such a time is not booked.
//
// The company's zone is chosen so that it is between 12:00 and 13:00 there whenever the test runs: its
// morning (09:00–11:00) is over, its afternoon (15:00–17:00) is ahead, and its date is UTC's date, so the
// test needs no clock of its own.
import { afterAll, beforeAll, beforeEach, describe, expect, test, setDefaultTimeout } from 'bun:test';
import { startScriptedModelHost, toolResults, type ScriptedModelHost } from '../fakes/scripted-model';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { startFakeYclients, type FakeYclients } from '../fakes/yclients';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { buttonsOf, CODE, createSocialDriver, GROUP, payloadOf, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(30_000);

const PARTNER = 'partner-token-5f2a9c';
const LOGIN = 'irina@example.ru';
const PASSWORD = 'S3cret-pa55word';
const COMPANY = 4564;
const ANNA = 1601;
const HAIRCUT = 90211;

const offsetHours = 12 - new Date().getUTCHours();
const sign = offsetHours < 0 ? '-' : '+';
const UTC_OFFSET = `${sign}${String(Math.abs(offsetHours)).padStart(2, '0')}:00`;
// Etc/GMT names count the other way round: Etc/GMT-5 is UTC+05:00.
const TIME_ZONE = offsetHours === 0 ? 'Etc/UTC' : `Etc/GMT${offsetHours > 0 ? '-' : '+'}${Math.abs(offsetHours)}`;

function localDate(plusDays: number): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
  return new Date(Date.parse(`${today}T00:00:00Z`) + plusDays * 86_400_000).toISOString().slice(0, 10);
}
const YESTERDAY = localDate(-1);
const TODAY = localDate(0);
const TOMORROW = localDate(1);
const at = (date: string, time: string) => `${date}T${time}:00${UTC_OFFSET}`;

const PAST = ['09:00', '09:30', '10:00'];
const AHEAD = ['15:00', '15:30', '16:00'];

let host: ScriptedModelHost;
let vk: FakeVk;
let yc: FakeYclients;
let app: TestApp;

beforeAll(async () => {
  [host, vk, yc] = await Promise.all([startScriptedModelHost(), startFakeVk(), startFakeYclients()]);
  app = await startTestApp({
    env: { VK_API_BASE_URL: vk.url, UPSTREAM_BASE_URL: host.url, YCLIENTS_BASE_URL: yc.url, YCLIENTS_RATE_PER_MINUTE: '100000' },
  });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([host?.close(), vk?.close(), yc?.close()]);
});
beforeEach(() => {
  vk.reset();
  vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
  yc.reset();
  yc.addCompany({
    id: COMPANY,
    partnerToken: PARTNER,
    login: LOGIN,
    password: PASSWORD,
    utcOffset: UTC_OFFSET,
    timeZone: TIME_ZONE,
    staff: [{ id: ANNA, name: 'Анна', specialization: 'Парикмахер' }],
    services: [{ id: HAIRCUT, title: 'Стрижка', price_min: 1500, price_max: 2000, duration: 3600, staffIds: [ANNA] }],
    workingHours: [
      { staffId: ANNA, date: YESTERDAY, start: '15:00', end: '17:00' },
      { staffId: ANNA, date: TODAY, start: '09:00', end: '11:00' },
      { staffId: ANNA, date: TODAY, start: '15:00', end: '17:00' },
      { staffId: ANNA, date: TOMORROW, start: '09:00', end: '11:00' },
    ],
  });
});

const { messageNew, messageEvent, sendAndWait } = createSocialDriver(
  () => app,
  () => vk,
);

let modelCounter = 0;

/** A Service agent with YCLIENTS and the VK community, on a scripted model of its own. */
async function salonAgent() {
  const model = `salon-now/m${++modelCounter}`;
  const owner = await registerUser(app.url);
  const created = await call(app.url, 'POST', '/api/agents', {
    token: owner.token,
    body: { name: 'Салон «Лён»', type: 'service', model, systemPrompt: 'Ты — администратор салона «Лён».' },
  });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const social = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
    token: owner.token,
    body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
  });
  expect(social.status).toBe(200);
  const booking = await call(app.url, 'PUT', `/api/v1/booking/${agentId}/settings`, {
    token: owner.token,
    body: { partnerToken: PARTNER, login: LOGIN, password: PASSWORD, companyId: COMPANY, specialistMapping: { anna: ANNA }, serviceMapping: { haircut: HAIRCUT } },
  });
  expect(booking.status).toBe(200);
  return { owner, agentId, model, base: `/api/v1/booking/${agentId}` };
}

const bookTimesCalls = () => yc.calls.filter((c) => c.path.startsWith('/book_times/')).length;

describe('free times already past in the company’s zone', () => {
  test('REST slots: today only after now, tomorrow whole, yesterday none (YCLIENTS not asked)', async () => {
    const { owner, base } = await salonAgent();
    const slotsOf = async (date: string) => {
      const res = await call(app.url, 'GET', `${base}/slots?date=${date}&specialistId=anna&serviceId=haircut`, { token: owner.token });
      expect(res.status).toBe(200);
      return (res.body.slots as { datetime: string }[]).map((s) => s.datetime);
    };
    expect(await slotsOf(TODAY)).toEqual(AHEAD.map((t) => at(TODAY, t)));
    expect(await slotsOf(TOMORROW)).toEqual(PAST.map((t) => at(TOMORROW, t)));
    const asked = bookTimesCalls();
    expect(await slotsOf(YESTERDAY)).toEqual([]);
    expect(bookTimesCalls()).toBe(asked);
  });

  test('REST booking of a time that has passed is refused (409) and never reaches YCLIENTS; a later one is booked', async () => {
    const { owner, base } = await salonAgent();
    const body = { specialistId: 'anna', serviceId: 'haircut', clientName: 'Мария', clientPhone: '+7 916 111-22-33' };
    const past = await call(app.url, 'POST', `${base}/appointments`, { token: owner.token, body: { ...body, datetime: at(TODAY, '10:00') } });
    expect(past.status).toBe(409);
    expect(past.body.error).toMatchObject({ type: 'conflict', message: 'Это время уже прошло: выберите другое из свободных' });
    expect(yc.calls.filter((c) => c.path.startsWith('/book_record/'))).toHaveLength(0);
    const later = await call(app.url, 'POST', `${base}/appointments`, { token: owner.token, body: { ...body, datetime: at(TODAY, '15:30') } });
    expect(later.status).toBe(201);
    expect(yc.records.map((r) => r.datetime)).toEqual([at(TODAY, '15:30')]);
  });

  test('the assistant’s find_slots omits today’s past times and lists tomorrow’s morning', async () => {
    const agent = await salonAgent();
    host.script(agent.model, (body) => {
      if (toolResults(body).length === 0) {
        return {
          toolCalls: [
            { name: 'find_slots', arguments: { date: TODAY, serviceId: 'haircut', specialistId: 'anna' } },
            { name: 'find_slots', arguments: { date: TOMORROW, serviceId: 'haircut' } },
          ],
        };
      }
      return { text: 'Свободно сегодня после обеда и завтра утром.' };
    });
    const [answer] = await sendAndWait(agent.agentId, messageNew('Когда можно подстричься к Анне?'));
    expect(answer!.message).toBe('Свободно сегодня после обеда и завтра утром.');
    const sent = host.requestsFor(agent.model);
    expect(sent).toHaveLength(2);
    const [today, tomorrow] = toolResults(sent[1]!.body);
    const times = (r: { result: { slots: { datetime: string }[] } }) => r.result.slots.map((s) => s.datetime);
    expect(today!.name).toBe('find_slots');
    expect(times(today!)).toEqual(AHEAD.map((t) => at(TODAY, t)));
    expect(times(tomorrow!)).toEqual(PAST.map((t) => at(TOMORROW, t)));
  });

  test('book_appointment for a time that has passed: status passed, the next free times from now, nothing booked', async () => {
    const agent = await salonAgent();
    host.script(agent.model, (body) => {
      if (toolResults(body).length === 0) {
        return {
          toolCalls: [
            {
              name: 'book_appointment',
              arguments: { serviceId: 'haircut', specialistId: 'anna', datetime: at(TODAY, '10:00'), clientName: 'Мария', clientPhone: '+7 916 111-22-33' },
            },
          ],
        };
      }
      return { text: 'Это время уже прошло, есть сегодня в 15:00.' };
    });
    await sendAndWait(agent.agentId, messageNew('Запишите на 10:00 сегодня'));
    const [result] = toolResults(host.requestsFor(agent.model)[1]!.body);
    expect(result!.result).toMatchObject({ status: 'passed', error: expect.stringContaining('уже прошло'), datetime: at(TODAY, '10:00') });
    expect((result!.result as { nextFreeTimes: { datetime: string }[] }).nextFreeTimes[0]!.datetime).toBe(at(TODAY, '15:00'));
    expect(yc.records).toHaveLength(0);
  });

  test('a time pressed on a keyboard shown before it passed: «уже прошло», and today’s later times instead', async () => {
    const agent = await salonAgent();
    const [what] = await sendAndWait(agent.agentId, messageEvent({ action: 'book' }));
    const [when] = await sendAndWait(agent.agentId, messageEvent(payloadOf(what!, 'Стрижка')));
    // The payload of a time from an older keyboard: what the client would press on a stale message.
    const offered = buttonsOf(when!).map((b) => JSON.parse(b.action.payload) as { action: string; t?: string });
    const stale = { ...offered.find((p) => p.action === 'pick_slot')!, t: at(TODAY, '10:00') };
    const [askName] = await sendAndWait(agent.agentId, messageEvent(stale));
    expect(askName!.message).toContain('имя');
    await sendAndWait(agent.agentId, messageNew('Мария'));
    // Nothing is booked before the client confirms the summary; the confirmation finds the time passed.
    const [summary] = await sendAndWait(agent.agentId, messageNew('+7 916 111-22-33'));
    expect(summary!.message).toStartWith('Проверьте, пожалуйста, запись:');
    const [refused] = await sendAndWait(agent.agentId, messageEvent(payloadOf(summary!, 'Подтвердить')));
    expect(refused!.message).toBe('Это время уже прошло. Выберите, пожалуйста, другое:');
    expect(buttonsOf(refused!).some((b) => b.action.payload.includes(at(TODAY, '15:00')))).toBe(true);
    expect(yc.records).toHaveLength(0);
  });

  test('the booking buttons offer no time earlier than now: today’s afternoon, then tomorrow', async () => {
    const agent = await salonAgent();
    // One specialist: the flow asks for the service at once.
    const [what] = await sendAndWait(agent.agentId, messageEvent({ action: 'book' }));
    const [when] = await sendAndWait(agent.agentId, messageEvent(payloadOf(what!, 'Стрижка')));
    const offered = buttonsOf(when!)
      .map((b) => JSON.parse(b.action.payload) as { action: string; t?: string })
      .filter((p) => p.action === 'pick_slot')
      .map((p) => p.t);
    expect(offered).toEqual([...AHEAD.map((t) => at(TODAY, t)), ...PAST.map((t) => at(TOMORROW, t))]);
    // No model was asked: the buttons alone.
    expect(host.requestsFor(agent.model)).toHaveLength(0);
  });
});
