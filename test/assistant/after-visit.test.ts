// After the visit (issue 42 point 2), piece by piece: the attendance sync (GET /record, a deleted record
// cancels the visit here, bounded lookback), the review request's quiet hours and its switch, a low score
// mailed or told in Telegram, the nudge skipped when a visit is booked ahead, the settings' validation, and
// the fake YCLIENTS' records list as the salon's administrator leaves it. VK webhook in, the fakes, an
// injected clock.
import { beforeEach, describe, expect, test, setDefaultTimeout } from 'bun:test';
import type { ScriptedModelHost } from '../fakes/scripted-model';
import type { FakeVk } from '../fakes/vk';
import type { FakeYclients } from '../fakes/yclients';
import { call, registerUser, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/messenger';
import { moscowDate, SALON, SALON_SETTINGS, salonCompany, salonAgent, useSalonApp } from '../helpers/salon';
import { CLIENT, createSocialDriver, GROUP, payloadOf, SECRET } from '../helpers/social';

setDefaultTimeout(30_000);

const { id: COMPANY, partnerToken: PARTNER, login: LOGIN, password: PASSWORD } = SALON;
const HOUR = 3600_000;
const DAY_MS = 24 * HOUR;

const DAY = moscowDate(3);
const NEXT = moscowDate(4);
const at = (time: string, day = DAY) => `${day}T${time}:00+03:00`;
const ms = (time: string, day = DAY) => Date.parse(at(time, day));

let host: ScriptedModelHost;
let vk: FakeVk;
let yc: FakeYclients;
let app: TestApp;

useSalonApp({
  withoutTelegram: true,
  company: salonCompany([DAY, NEXT]),
  ready: (s) => ({ app, host, vk, yc } = s),
});

beforeEach(async () => {
  if (app) await app.sql(`update appointments set status = 'canceled' where status = 'booked'`);
});

const { messageNew, messageEvent, sendAndWait } = createSocialDriver(
  () => app,
  () => vk,
);
let counter = 0;

/** A salon agent with VK and YCLIENTS, and visits at `times` booked through the dialogue (the model's tool). */
async function salon(times: { time: string; day?: string }[], settings: Record<string, unknown> = {}) {
  const model = `after/m${++counter}`;
  const { owner, agentId } = await salonAgent(app, model, settings);
  for (const { time, day } of times) {
    host.sequence(model, [
      {
        toolCalls: [
          {
            name: 'book_appointment',
            arguments: { serviceId: 'haircut', specialistId: 'anna', datetime: at(time, day), clientName: 'Мария', clientPhone: '+7 916 111-22-33' },
          },
        ],
      },
      { text: 'Записала.' },
    ]);
    const before = vk.sentMessages.length;
    await sendAndWait(agentId, messageNew('Запишите меня'));
    await waitFor(() => vk.sentMessages.slice(before).some((m) => m.message === 'Записала.'), 5000, 'the booking');
  }
  return { agentId, owner, records: yc.records.filter((r) => !r.deleted) };
}

const pass = (now: number) => app.instance.services.social.afterVisit(new Date(now));
const toClient = () => vk.sentMessages.filter((m) => m.peerId === CLIENT);
const isRequest = (m: { message: string }) => m.message.startsWith('Как прошёл визит');

describe('after the visit (issue 42 point 2)', () => {
  test('the sync reads attendance after the visit only, within its lookback; a record deleted in YCLIENTS cancels the visit', async () => {
    const { agentId, records } = await salon([{ time: '10:00' }, { time: '12:00' }]);
    const [first, second] = records;
    const reads = () => yc.calls.filter((c) => c.method === 'GET' && c.path.startsWith(`/record/${COMPANY}/`)).length;
    // Before the visits: nothing is asked.
    expect((await pass(ms('09:00'))).attendance.checked).toBe(0);
    expect(reads()).toBe(0);
    yc.setAttendance(first!.id, 1);
    second!.deleted = true;
    const done = await pass(ms('13:00'));
    expect(done.attendance).toMatchObject({ checked: 2, came: 1, canceled: 1 });
    const rows = await app.sql<{ status: string; attendance: number | null }>('select status, attendance from appointments where agent_id = $1 order by starts_at', [
      agentId,
    ]);
    expect(rows).toEqual([
      { status: 'booked', attendance: 1 },
      { status: 'canceled', attendance: null },
    ]);
    // A visit whose attendance is final is not asked again; one further back than the lookback neither.
    const before = reads();
    await pass(ms('13:30'));
    expect(reads()).toBe(before);
    await app.sql('update appointments set attendance = 0 where agent_id = $1', [agentId]);
    await pass(ms('10:00') + 4 * DAY_MS);
    expect(reads()).toBe(before);
  });

  test('the review request waits for the quiet hours to end; a delay of null asks nothing', async () => {
    // 17:00 + 1 h + 3 h = 21:00: in the default quiet hours 21:00–09:00, so it goes at 09:00 the next day.
    const { records } = await salon([{ time: '17:00' }], { reviewDelayMinutes: 180 });
    yc.setAttendance(records[0]!.id, 1);
    expect((await pass(ms('18:30'))).sent).toBe(0);
    expect((await pass(ms('22:00'))).sent).toBe(0);
    expect((await pass(ms('08:59', NEXT))).sent).toBe(0);
    expect((await pass(ms('09:00', NEXT))).sent).toBe(1);
    await waitFor(() => toClient().some(isRequest), 5000, 'the review request');

    const off = await salon([{ time: '11:00' }], { reviewDelayMinutes: null });
    yc.setAttendance(off.records.find((r) => r.datetime === at('11:00'))!.id, 1);
    expect((await pass(ms('16:00'))).sent).toBe(0);
    expect(await app.sql('select 1 from visit_followups f join appointments a on a.id = f.appointment_id where a.agent_id = $1', [off.agentId])).toEqual([]);
  });

  test('a high score without a review page thanks with the menu; a tap on another client’s visit does nothing', async () => {
    const { agentId, records } = await salon([{ time: '11:00' }]);
    yc.setAttendance(records[0]!.id, 1);
    expect((await pass(ms('14:01'))).sent).toBe(1);
    const request = await waitFor(() => toClient().find(isRequest), 5000, 'the review request');
    const [thanks] = await sendAndWait(agentId, messageEvent(payloadOf(request, '4')));
    expect(thanks!.message).toBe('Спасибо за оценку! Очень рады, что вам понравилось, — ждём вас снова.');
    const [foreign] = await sendAndWait(agentId, messageEvent({ action: 'visit_review', a: '00000000-0000-4000-8000-000000000000', n: 1 }));
    expect(foreign!.message).not.toContain('жаль');
    expect(await app.sql('select score from visit_reviews where agent_id = $1', [agentId])).toEqual([{ score: 4 }]);
  });

  test('«записаться снова» is skipped, once, when a visit is booked ahead', async () => {
    const { agentId } = await salon([{ time: '09:00' }, { time: '17:00', day: NEXT }], { rebookDays: { haircut: 1 } });
    const first = yc.records.find((r) => r.datetime === at('09:00'))!;
    yc.setAttendance(first.id, 1);
    await pass(ms('09:30'));
    // A day after the first visit the second is still ahead: no nudge, and none later.
    const nudge = await pass(ms('09:30', NEXT));
    expect(nudge.skipped).toBe(1);
    expect(toClient().filter((m) => m.message.includes('Пора записаться снова'))).toEqual([]);
    const rows = await app.sql<{ kind: string; outcome: string }>(
      "select f.kind, f.outcome from visit_followups f join appointments a on a.id = f.appointment_id where a.agent_id = $1 and f.kind = 'rebook'",
      [agentId],
    );
    expect(rows).toEqual([{ kind: 'rebook', outcome: 'skipped' }]);
  });

  test('a client who denied messages gets nothing after the visit', async () => {
    const { agentId, records } = await salon([{ time: '11:00' }], { noShowMessage: true });
    const deny = { type: 'message_deny', event_id: `deny-after-${++counter}`, v: '5.199', group_id: GROUP, secret: SECRET, object: { user_id: CLIENT } };
    expect((await call(app.url, 'POST', `/api/v1/social/webhook/${agentId}`, { body: deny })).status).toBe(200);
    await waitFor(async () => (await app.sql<{ m: boolean | null }>('select messaging_allowed as m from dialogues where agent_id = $1', [agentId]))[0]?.m === false);
    yc.setAttendance(records[0]!.id, -1);
    expect((await pass(ms('12:00'))).sent).toBe(0);
  });
});

describe('after-visit settings and the fake’s records (issue 42 point 2)', () => {
  test('saved and read back; wrong values refused in Russian; another owner refused', async () => {
    const { agentId, owner } = await salon([]);
    const url = `/api/v1/booking/${agentId}/settings`;
    const read = await call(app.url, 'GET', url, { token: owner.token });
    expect(read.body).toMatchObject({ reviewDelayMinutes: 120, reviewLowScore: 3, reviewUrl: null, rebookDays: {}, noShowMessage: false });
    const body = {
      ...SALON_SETTINGS,
      reviewDelayMinutes: 60,
      reviewLowScore: 2,
      reviewUrl: 'https://2gis.ru/reviews/1',
      rebookDays: { haircut: 30 },
      noShowMessage: true,
    };
    const saved = await call(app.url, 'PUT', url, { token: owner.token, body });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      reviewDelayMinutes: 60,
      reviewLowScore: 2,
      reviewUrl: 'https://2gis.ru/reviews/1',
      rebookDays: { haircut: 30 },
      noShowMessage: true,
    });
    // Left out: kept.
    expect((await call(app.url, 'PUT', url, { token: owner.token, body: SALON_SETTINGS })).body).toMatchObject({ reviewDelayMinutes: 60, noShowMessage: true });
    for (const [wrong, text] of [
      [{ reviewUrl: 'http://2gis.ru/reviews/1' }, 'https://'],
      [{ reviewUrl: 'javascript:alert(1)' }, 'https://'],
      [{ reviewLowScore: 5 }, 'не больше 4'],
      [{ rebookDays: { haircut: 0 } }, 'не меньше 1 дня'],
      [{ reviewDelayMinutes: -5 }, 'не меньше 0 минут'],
      [{ noShowMessage: 'да' }, 'ожидается да или нет'],
    ] as const) {
      const refused = await call(app.url, 'PUT', url, { token: owner.token, body: { ...SALON_SETTINGS, ...wrong } });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain(text);
    }
    const stranger = await registerUser(app.url);
    expect((await call(app.url, 'PUT', url, { token: stranger.token, body })).status).toBe(403);
  });

  test('the fake lists records with attendance and visit_attendance as the salon marks them (GET /records)', async () => {
    const { records } = await salon([{ time: '10:00' }, { time: '15:00' }]);
    yc.setAttendance(records[0]!.id, 1);
    yc.setAttendance(records[1]!.id, -1);
    // The salon's administrator logs in as the app does (§2), then reads the day's records (from the app's own address: no rate limit here).
    yc.settings = { ...yc.settings, rateLimit: null };
    const login = await fetch(`${yc.url}/auth`, {
      method: 'POST',
      headers: { authorization: `Bearer ${PARTNER}`, 'content-type': 'application/json' },
      body: JSON.stringify({ login: LOGIN, password: PASSWORD }),
    });
    const token = `Bearer ${PARTNER}, User ${((await login.json()) as { data: { user_token: string } }).data.user_token}`;
    const list = await fetch(`${yc.url}/records/${COMPANY}?start_date=${DAY}&end_date=${DAY}&count=50`, { headers: { authorization: token } });
    expect(list.status).toBe(200);
    const answer = (await list.json()) as { data: { id: number; attendance: number; visit_attendance: number }[]; meta: { total_count: number } };
    expect(answer).toMatchObject({ meta: { total_count: 2 } });
    // The list's order is not documented (the fake lists the newest first): compared in the records' order.
    expect(answer.data.map((r) => [r.id, r.attendance, r.visit_attendance]).sort((a, b) => a[0]! - b[0]!)).toEqual([
      [records[0]!.id, 1, 1],
      [records[1]!.id, -1, -1],
    ]);
    const one = await fetch(`${yc.url}/record/${COMPANY}/${records[1]!.id}`, { headers: { authorization: token } });
    expect(((await one.json()) as { data: { attendance: number } }).data.attendance).toBe(-1);
  });
});
