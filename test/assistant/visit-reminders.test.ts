// Visit reminders (issue 42 point 1): a visit booked through the dialogue is reminded of 24 h and 2 h before
// it, once each even when the job runs twice at once, with «Подтвердить» (YCLIENTS attendance 2 through
// PUT /record), «Перенести» (the reschedule flow) and «Отменить» (asked first, then the record deleted);
// a record the salon cancelled or moved in YCLIENTS meanwhile (GET /record before sending) gets no stale one;
// never to a client who denied messages, never in the salon's quiet hours. The clock is injected into the
// reminder pass; VK webhook in, a scripted model, the fake YCLIENTS.
import { beforeEach, describe, expect, test, setDefaultTimeout } from 'bun:test';
import type { ScriptedModelHost } from '../fakes/scripted-model';
import type { FakeSentMessage, FakeVk } from '../fakes/vk';
import type { FakeYclients } from '../fakes/yclients';
import { call, registerUser, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/messenger';
import { moscowDate, SALON, SALON_SETTINGS, salonCompany, salonAgent, useSalonApp } from '../helpers/salon';
import { buttonsOf, CLIENT, createSocialDriver, GROUP, payloadOf, SECRET } from '../helpers/social';

setDefaultTimeout(30_000);

const { id: COMPANY, anna: ANNA } = SALON;
const HOUR = 3600_000;

// Three days ahead: both reminders' times are still to come when the test runs.
const DAY = moscowDate(3);
const at = (time: string) => `${DAY}T${time}:00+03:00`;
const ms = (time: string) => Date.parse(at(time));

let host: ScriptedModelHost;
let vk: FakeVk;
let yc: FakeYclients;
let app: TestApp;

useSalonApp({
  withoutTelegram: true,
  company: salonCompany([DAY]),
  ready: (s) => ({ app, host, vk, yc } = s),
});

// Each test's visit alone: the earlier tests' visits (other agents, the same day) are not reminded of here.
beforeEach(async () => {
  if (app) await app.sql(`update appointments set status = 'canceled' where status = 'booked'`);
});

const { messageNew, messageEvent, sendAndWait, post } = createSocialDriver(
  () => app,
  () => vk,
);
let counter = 0;

/** A salon agent with VK and YCLIENTS, and a visit at `time` booked through the dialogue (the model's tool). */
async function salonWithVisit(time: string, settings: Record<string, unknown> = {}) {
  const model = `remind/m${++counter}`;
  const { owner, agentId } = await salonAgent(app, model, settings);
  host.sequence(model, [
    {
      toolCalls: [
        {
          name: 'book_appointment',
          arguments: { serviceId: 'haircut', specialistId: 'anna', datetime: at(time), clientName: 'Мария', clientPhone: '+7 916 111-22-33' },
        },
      ],
    },
    { text: 'Записала.' },
  ]);
  await sendAndWait(agentId, messageNew('Запишите меня'), 2);
  const [record] = yc.records.filter((r) => !r.deleted);
  expect(record).toBeDefined();
  return { agentId, owner, record: record! };
}

const reminders = (now: number) => app.instance.services.social.sendReminders(new Date(now));
const toClient = () => vk.sentMessages.filter((m) => m.peerId === CLIENT);
const isReminder = (m: FakeSentMessage) => m.message.startsWith('Напоминаем о вашей записи');

/** Runs the reminder pass twice at once (as two instances would) and waits for what it sent to reach VK. */
async function remindAt(now: number, expected: number): Promise<FakeSentMessage[]> {
  const before = toClient().length;
  const [a, b] = await Promise.all([reminders(now), reminders(now)]);
  expect(a.sent + b.sent).toBe(expected);
  if (expected > 0) await waitFor(() => toClient().length >= before + expected, 5000, 'the reminder in VK');
  await Bun.sleep(100);
  return toClient().slice(before);
}

describe('visit reminders (issue 42 point 1)', () => {
  test('a scripted day: 24 h and 2 h before, once each with their buttons, even run twice at once and again', async () => {
    const { agentId } = await salonWithVisit('11:00');
    const visit = ms('11:00');
    // Not yet.
    expect(await remindAt(visit - 24 * HOUR - 60_000, 0)).toEqual([]);
    const [first] = await remindAt(visit - 24 * HOUR + 60_000, 1);
    expect(first!.message).toMatch(/^Напоминаем о вашей записи: \d+ [а-я]+, 11:00\.\nСтрижка, Анна\.\n/);
    expect(buttonsOf(first!).map((b) => b.action.label)).toEqual(['Подтвердить', 'Перенести', 'Отменить']);
    expect(buttonsOf(first!).every((b) => b.action.type === 'callback')).toBe(true);
    // The same hour again, and later that day: nothing new.
    // YCLIENTS was asked for the record before it went, and is not asked again for a reminder already sent.
    const recordReads = () => yc.calls.filter((c) => c.method === 'GET' && c.path.startsWith(`/record/${COMPANY}/`)).length;
    const readsAfterFirst = recordReads();
    expect(readsAfterFirst).toBeGreaterThan(0);
    expect(await remindAt(visit - 24 * HOUR + 5 * 60_000, 0)).toEqual([]);
    expect(recordReads()).toBe(readsAfterFirst);
    expect(await remindAt(visit - 3 * HOUR, 0)).toEqual([]);
    const [second] = await remindAt(visit - 2 * HOUR + 60_000, 1);
    expect(isReminder(second!)).toBe(true);
    expect(await remindAt(visit - HOUR, 0)).toEqual([]);
    expect(toClient().filter(isReminder)).toHaveLength(2);
    const rows = await app.sql<{ offset_minutes: number; outcome: string }>(
      'select r.offset_minutes, r.outcome from appointment_reminders r join appointments a on a.id = r.appointment_id where a.agent_id = $1 order by r.offset_minutes desc',
      [agentId],
    );
    expect(rows).toEqual([
      { offset_minutes: 1440, outcome: 'sent' },
      { offset_minutes: 120, outcome: 'sent' },
    ]);
  });

  test('«Подтвердить» marks the record confirmed in YCLIENTS (attendance 2) and thanks the client', async () => {
    const { agentId, record } = await salonWithVisit('12:00');
    const [reminder] = await remindAt(ms('12:00') - 24 * HOUR + 60_000, 1);
    const [answer] = await sendAndWait(agentId, messageEvent(payloadOf(reminder!, 'Подтвердить')));
    expect(answer!.message).toMatch(/^Спасибо! Визит \d+ [а-я]+, 12:00 подтверждён — ждём вас\.$/);
    expect(yc.records.find((r) => r.id === record.id)).toMatchObject({ attendance: 2, deleted: false, datetime: at('12:00') });
    const put = yc.calls.find((c) => c.method === 'PUT' && c.path === `/record/${COMPANY}/${record.id}`);
    expect(put?.body).toMatchObject({ attendance: 2, datetime: at('12:00'), staff_id: ANNA });
  });

  test('«Перенести» starts the reschedule flow; the moved visit is reminded of its new time', async () => {
    const { agentId, record } = await salonWithVisit('13:00');
    const [reminder] = await remindAt(ms('13:00') - 24 * HOUR + 60_000, 1);
    const [times] = await sendAndWait(agentId, messageEvent(payloadOf(reminder!, 'Перенести')));
    expect(times!.message).toMatch(/^На какое время перенести запись \(Стрижка, Анна, сейчас \d+ [а-я]+, 13:00\)\?$/);
    const [summary] = await sendAndWait(agentId, messageEvent(payloadOf(times!, '14:00')));
    expect(summary!.message).toContain('Перенести запись?');
    const [moved] = await sendAndWait(agentId, messageEvent(payloadOf(summary!, 'Подтвердить')));
    expect(moved!.message).toMatch(/^Готово! Запись перенесена/);
    expect(yc.records.find((r) => r.id === record.id)).toMatchObject({ datetime: at('14:00') });
    // The new time's reminders go (the move came before their time); the old time's 2 h one never does.
    const [again] = await remindAt(ms('14:00') - 24 * HOUR + 60_000, 1);
    expect(again!.message).toMatch(/^Напоминаем о вашей записи: \d+ [а-я]+, 14:00\./);
    expect(await remindAt(ms('13:00') - 2 * HOUR + 60_000, 0)).toEqual([]);
    const [last] = await remindAt(ms('14:00') - 2 * HOUR + 60_000, 1);
    expect(last!.message).toMatch(/^Напоминаем о вашей записи: \d+ [а-я]+, 14:00\./);
  });

  test('«Отменить» asks first; «Нет, оставить» keeps it, «Да, отменить» deletes the record; no reminder after', async () => {
    const { agentId, record } = await salonWithVisit('14:00');
    const [reminder] = await remindAt(ms('14:00') - 24 * HOUR + 60_000, 1);
    const [ask] = await sendAndWait(agentId, messageEvent(payloadOf(reminder!, 'Отменить')));
    expect(ask!.message).toMatch(/^Отменить запись \d+ [а-я]+, 14:00 \(Стрижка, Анна\)\?$/);
    expect(yc.records.find((r) => r.id === record.id)?.deleted).toBe(false);
    const [kept] = await sendAndWait(agentId, messageEvent(payloadOf(ask!, 'Нет, оставить')));
    expect(kept!.message).toMatch(/^Хорошо, запись \d+ [а-я]+, 14:00 остаётся/);
    expect(yc.records.find((r) => r.id === record.id)?.deleted).toBe(false);
    const [canceled] = await sendAndWait(agentId, messageEvent(payloadOf(ask!, 'Да, отменить')));
    expect(canceled!.message).toMatch(/^Запись \d+ [а-я]+, 14:00 отменена\./);
    expect(yc.records.find((r) => r.id === record.id)?.deleted).toBe(true);
    expect(yc.calls.some((c) => c.method === 'DELETE' && c.path === `/record/${COMPANY}/${record.id}`)).toBe(true);
    // Pressed again: the visit is gone, and its 2 h reminder never comes.
    const [gone] = await sendAndWait(agentId, messageEvent(payloadOf(reminder!, 'Подтвердить')));
    expect(gone!.message).toBe('Этой записи уже нет или её время прошло. Выберите, пожалуйста, что сделать:');
    expect(await remindAt(ms('14:00') - 2 * HOUR + 60_000, 0)).toEqual([]);
  });

  test('cancelled in YCLIENTS by the salon: no reminder, and the visit is cancelled here too', async () => {
    const { agentId, record } = await salonWithVisit('11:00');
    yc.records.find((r) => r.id === record.id)!.deleted = true;
    expect(await remindAt(ms('11:00') - 24 * HOUR + 60_000, 0)).toEqual([]);
    expect(yc.calls.some((c) => c.method === 'GET' && c.path === `/record/${COMPANY}/${record.id}`)).toBe(true);
    expect(await app.sql('select status from appointments where agent_id = $1', [agentId])).toEqual([{ status: 'canceled' }]);
    expect(await remindAt(ms('11:00') - 2 * HOUR + 60_000, 0)).toEqual([]);
  });

  test('moved in YCLIENTS by the salon: no reminder of the old time, the new time reminded of', async () => {
    const { agentId, record } = await salonWithVisit('11:00');
    yc.records.find((r) => r.id === record.id)!.datetime = at('16:00');
    expect(await remindAt(ms('11:00') - 24 * HOUR + 60_000, 0)).toEqual([]);
    expect(await app.sql('select datetime, status from appointments where agent_id = $1', [agentId])).toEqual([{ datetime: at('16:00'), status: 'booked' }]);
    const [moved] = await remindAt(ms('16:00') - 24 * HOUR + 60_000, 1);
    expect(moved!.message).toMatch(/^Напоминаем о вашей записи: \d+ [а-я]+, 16:00\./);
    expect(toClient().filter(isReminder)).toHaveLength(1);
  });

  test('a client who denied messages gets no reminder', async () => {
    const { agentId } = await salonWithVisit('11:00');
    const deny = { type: 'message_deny', event_id: `deny-${++counter}`, v: '5.199', group_id: GROUP, secret: SECRET, object: { user_id: CLIENT } };
    expect((await post(agentId, deny)).status).toBe(200);
    await waitFor(async () => {
      const [row] = await app.sql<{ messaging_allowed: boolean | null }>('select messaging_allowed from dialogues where agent_id = $1', [agentId]);
      return row?.messaging_allowed === false;
    });
    expect(await remindAt(ms('11:00') - 24 * HOUR + 60_000, 0)).toEqual([]);
    expect(await remindAt(ms('11:00') - 2 * HOUR + 60_000, 0)).toEqual([]);
    expect(await app.sql('select 1 from appointment_reminders r join appointments a on a.id = r.appointment_id where a.agent_id = $1', [agentId])).toEqual([]);
  });

  test('quiet hours: a reminder due at night goes when they end, if the visit is still ahead', async () => {
    // 10:00: the 2 h reminder falls at 08:00, in the default 21:00–09:00, and goes at 09:00.
    await salonWithVisit('10:00');
    await remindAt(ms('10:00') - 24 * HOUR + 60_000, 1);
    expect(await remindAt(ms('08:30'), 0)).toEqual([]);
    const [late] = await remindAt(ms('09:00'), 1);
    expect(isReminder(late!)).toBe(true);
  });

  test("quiet hours are the agent's own zone when its working hours name one", async () => {
    const { agentId, owner } = await salonWithVisit('10:00', { reminderOffsetsMinutes: [120] });
    const hours = await call(app.url, 'PATCH', `/api/agents/${agentId}`, {
      token: owner.token,
      body: { workingHours: { days: [1, 2, 3, 4, 5, 6, 7], from: '09:00', to: '20:00', timeZone: 'Asia/Vladivostok' } },
    });
    expect(hours.status).toBe(200);
    // 08:00 in Moscow is 15:00 in Vladivostok: not quiet there, so it goes at once.
    const [sent] = await remindAt(ms('08:00') + 60_000, 1);
    expect(isReminder(sent!)).toBe(true);
  });

  test('quiet hours set to end after the visit: that reminder is skipped, not sent late', async () => {
    const { agentId } = await salonWithVisit('10:00', { reminderOffsetsMinutes: [120], quietFrom: '20:00', quietTo: '11:00' });
    expect(await remindAt(ms('08:30'), 0)).toEqual([]);
    expect(await remindAt(ms('09:59'), 0)).toEqual([]);
    expect(toClient().filter(isReminder)).toEqual([]);
    const rows = await app.sql<{ outcome: string }>(
      'select r.outcome from appointment_reminders r join appointments a on a.id = r.appointment_id where a.agent_id = $1',
      [agentId],
    );
    expect(rows).toEqual([{ outcome: 'skipped' }]);
  });
});

describe('reminder settings (issue 42 point 1)', () => {
  test('saved and read back; wrong values refused in Russian', async () => {
    const { agentId, owner } = await salonWithVisit('16:00');
    const url = `/api/v1/booking/${agentId}/settings`;
    const read = await call(app.url, 'GET', url, { token: owner.token });
    expect(read.body).toMatchObject({ reminderOffsetsMinutes: [1440, 120], quietFrom: '21:00', quietTo: '09:00' });
    const saved = await call(app.url, 'PUT', url, {
      token: owner.token,
      body: { ...SALON_SETTINGS, reminderOffsetsMinutes: [180, 2880], quietFrom: '22:30', quietTo: '08:00' },
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ reminderOffsetsMinutes: [2880, 180], quietFrom: '22:30', quietTo: '08:00' });
    // Left out: kept.
    const again = await call(app.url, 'PUT', url, { token: owner.token, body: SALON_SETTINGS });
    expect(again.body).toMatchObject({ reminderOffsetsMinutes: [2880, 180], quietFrom: '22:30', quietTo: '08:00' });
    for (const [body, text] of [
      [{ reminderOffsetsMinutes: [5] }, 'не раньше чем за 15 минут'],
      [{ reminderOffsetsMinutes: [60, 60] }, 'два напоминания'],
      [{ quietFrom: '25:00' }, 'ЧЧ:ММ'],
    ] as const) {
      const refused = await call(app.url, 'PUT', url, { token: owner.token, body: { ...SALON_SETTINGS, ...body } });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain(text);
    }
    const stranger = await registerUser(app.url);
    expect((await call(app.url, 'PUT', url, { token: stranger.token, body: SALON_SETTINGS })).status).toBe(403);
  });
});
