// Moving a visit (issue 39 row 7, point 5): reschedule_appointment moves the record in place with YCLIENTS'
// PUT /record/{company_id}/{record_id}, so 11:00 (60 min) → 11:30 works — where book-new-then-cancel-old is
// refused by the client's own visit — and a time another client holds is refused, the visit kept. VK
// webhook in, a scripted model, a fake YCLIENTS that refuses overlaps with OTHER records as the real one does.
import { describe, expect, test, setDefaultTimeout } from 'bun:test';
import { toolResults, type ScriptedModelHost } from '../fakes/scripted-model';
import type { FakeVk } from '../fakes/vk';
import type { FakeYclients } from '../fakes/yclients';
import { call, registerUser, type TestApp } from '../helpers/app';
import { buttonsOf, CLIENT, CODE, createSocialDriver, GROUP, payloadOf, SECRET, TOKEN } from '../helpers/social';
import { moscowDate, useSalonApp } from '../helpers/salon';

setDefaultTimeout(30_000);

const OTHER_CLIENT = 40911299;
const COMPANY = 4564;
const PARTNER = 'partner-token-5f2a9c';
const LOGIN = 'irina@example.ru';
const PASSWORD = 'S3cret-pa55word';
const ANNA = 1601;
const HAIRCUT = 90211;

const TOMORROW = moscowDate(1);
const at = (time: string) => `${TOMORROW}T${time}:00+03:00`;

let host: ScriptedModelHost;
let vk: FakeVk;
let yc: FakeYclients;
let app: TestApp;

useSalonApp({
  withoutTelegram: true,
  company: {
    id: COMPANY,
    partnerToken: PARTNER,
    login: LOGIN,
    password: PASSWORD,
    staff: [{ id: ANNA, name: 'Анна', specialization: 'Парикмахер' }],
    services: [{ id: HAIRCUT, title: 'Стрижка', price_min: 1500, price_max: 2000, duration: 3600, staffIds: [ANNA] }],
    workingHours: [{ staffId: ANNA, date: TOMORROW, start: '10:00', end: '15:00' }],
  },
  ready: (s) => ({ app, host, vk, yc } = s),
});

const { messageNew, messageEvent, sendAndWait } = createSocialDriver(
  () => app,
  () => vk,
);
let modelCounter = 0;

/** A salon whose model books `client` at `time` for the client's first message. */
async function salonWithVisit(client: { name: string; phone: string; peer: number; time: string }[]) {
  const model = `resched/m${++modelCounter}`;
  const owner = await registerUser(app.url);
  const created = await call(app.url, 'POST', '/api/agents', {
    token: owner.token,
    body: { name: 'Салон «Лён»', type: 'service', model, systemPrompt: 'Ты — администратор.' },
  });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  expect(
    (
      await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
        token: owner.token,
        body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
      })
    ).status,
  ).toBe(200);
  const booking = await call(app.url, 'PUT', `/api/v1/booking/${agentId}/settings`, {
    token: owner.token,
    body: { partnerToken: PARTNER, login: LOGIN, password: PASSWORD, companyId: COMPANY, specialistMapping: { anna: ANNA }, serviceMapping: { haircut: HAIRCUT } },
  });
  expect(booking.status).toBe(200);
  for (const c of client) {
    host.sequence(model, [
      {
        toolCalls: [
          { name: 'book_appointment', arguments: { serviceId: 'haircut', specialistId: 'anna', datetime: at(c.time), clientName: c.name, clientPhone: c.phone } },
        ],
      },
      { text: 'Записала.' },
    ]);
    // The system's notice of the booking, then the model's «Записала.»: both are in before the test goes on.
    await sendAndWait(agentId, messageNew('Запишите меня', { peerId: c.peer }), 2, c.peer);
  }
  expect(yc.records.filter((r) => !r.deleted)).toHaveLength(client.length);
  return { agentId, model };
}

/** The model of «Перенесите на 11:30»: its appointments, then reschedule_appointment, then a text. */
function moveTo(time: string) {
  return (body: Parameters<Parameters<ScriptedModelHost['script']>[1]>[0]) => {
    const last = toolResults(body).at(-1);
    if (!last) return { toolCalls: [{ name: 'list_my_appointments', arguments: {} }] };
    if (last.name === 'list_my_appointments') {
      return { toolCalls: [{ name: 'reschedule_appointment', arguments: { appointmentId: last.result.appointments[0].appointmentId, datetime: at(time) } }] };
    }
    return { text: last.result.status === 'rescheduled' ? `Перенесла на ${time}.` : 'Это время занято.' };
  };
}

describe('reschedule_appointment (row 7, point 5)', () => {
  test('11:00 (60 min) → 11:30, overlapping the visit itself: moved in place with PUT /record, nothing booked or deleted', async () => {
    const { agentId, model } = await salonWithVisit([{ name: 'Мария', phone: '+7 916 111-22-33', peer: CLIENT, time: '11:00' }]);
    const [record] = yc.records;
    const callsBefore = yc.calls.length;
    host.script(model, moveTo('11:30'));
    // The system says what was done first (ToolResult.announce), then the model's own words.
    const [notice, answer] = await sendAndWait(agentId, messageNew('Перенесите мою запись на 11:30'), 2);
    expect(notice!.message).toMatch(/^Запись перенесена: Стрижка, Анна, \d+ [а-я]+, 11:30 \(было \d+ [а-я]+, 11:00\)\.$/);
    expect(answer!.message).toBe('Перенесла на 11:30.');

    const sent = host.requestsFor(model);
    expect((sent[0]!.body.tools ?? []).map((t) => t.function.name)).toContain('reschedule_appointment');
    const moved = toolResults(sent.at(-1)!.body).at(-1)!;
    expect(moved.result).toMatchObject({
      status: 'rescheduled',
      previousDatetime: at('11:00'),
      datetime: at('11:30'),
      serviceTitle: 'Стрижка',
      specialistName: 'Анна',
    });

    const calls = yc.calls.slice(callsBefore).map((c) => `${c.method} ${c.path}`);
    expect(calls).toContain(`PUT /record/${COMPANY}/${record!.id}`);
    expect(calls.some((c) => c.startsWith('POST /book_record') || c.startsWith('DELETE'))).toBe(false);
    const put = yc.calls.find((c) => c.method === 'PUT')!;
    expect(put.body).toMatchObject({
      staff_id: ANNA,
      datetime: at('11:30'),
      seance_length: 3600,
      save_if_busy: false,
      client: { name: 'Мария', phone: '79161112233' },
    });
    expect(yc.records.filter((r) => !r.deleted)).toEqual([expect.objectContaining({ id: record!.id, datetime: at('11:30') })]);

    const rows = await app.sql<{ datetime: string; status: string }>('select datetime, status from appointments where agent_id = $1', [agentId]);
    expect(rows).toEqual([{ datetime: at('11:30'), status: 'booked' }]);
    // What the owner reads in the inbox.
    const [tool] = await app.sql<{ content: string }>(`select content from dialogue_messages where role = 'tool' and tool_name = 'reschedule_appointment'`);
    expect(tool!.content).toContain('→');
  });

  test('a time another client holds is refused by YCLIENTS: the visit keeps its time, the model gets the next free times', async () => {
    const { agentId, model } = await salonWithVisit([
      { name: 'Мария', phone: '+7 916 111-22-33', peer: CLIENT, time: '11:00' },
      { name: 'Олег', phone: '+7 916 444-55-66', peer: OTHER_CLIENT, time: '13:00' },
    ]);
    host.script(model, moveTo('12:30'));
    const [answer] = await sendAndWait(agentId, messageNew('Перенесите на 12:30'));
    expect(answer!.message).toBe('Это время занято.');
    const refused = toolResults(host.requestsFor(model).at(-1)!.body).at(-1)!;
    expect(refused.result).toMatchObject({ status: 'taken', datetime: at('12:30') });
    expect(refused.result.nextFreeTimes.length).toBeGreaterThan(0);
    expect(yc.calls.some((c) => c.method === 'PUT')).toBe(true);
    const mine = yc.records.find((r) => r.client.name === 'Мария')!;
    expect(mine).toMatchObject({ datetime: at('11:00'), deleted: false });
    const rows = await app.sql<{ datetime: string }>(`select datetime from appointments where agent_id = $1 and client_name = 'Мария'`, [agentId]);
    expect(rows).toEqual([{ datetime: at('11:00') }]);
  });

  test('another client’s appointment cannot be moved', async () => {
    const { agentId, model } = await salonWithVisit([
      { name: 'Мария', phone: '+7 916 111-22-33', peer: CLIENT, time: '11:00' },
      { name: 'Олег', phone: '+7 916 444-55-66', peer: OTHER_CLIENT, time: '13:00' },
    ]);
    const [oleg] = await app.sql<{ id: string }>(`select id from appointments where agent_id = $1 and client_name = 'Олег'`, [agentId]);
    host.sequence(model, [{ toolCalls: [{ name: 'reschedule_appointment', arguments: { appointmentId: oleg!.id, datetime: at('14:00') } }] }, { text: 'Не нашла.' }]);
    await sendAndWait(agentId, messageNew('Перенесите запись Олега на 14:00'));
    const refused = toolResults(host.requestsFor(model).at(-1)!.body).at(-1)!;
    expect(refused.result.error).toContain('Такой записи у этого клиента нет');
    expect(yc.calls.some((c) => c.method === 'PUT')).toBe(false);
    expect(yc.records.find((r) => r.client.name === 'Олег')).toMatchObject({ datetime: at('13:00') });
  });
});

describe('«Перенести» under a booking made with the buttons (point 5)', () => {
  test('booked at 11:00 → «Перенести» → 13:00 → the summary → «Подтвердить»: the same YCLIENTS record moved with PUT, the client told the old and new time', async () => {
    const { agentId } = await salonWithVisit([]);
    const slotButton = (m: Parameters<typeof buttonsOf>[0], time: string) => JSON.parse(buttonsOf(m).find((b) => b.action.label.endsWith(time))!.action.payload);
    const [what] = await sendAndWait(agentId, messageEvent({ action: 'book' }));
    const [when] = await sendAndWait(agentId, messageEvent(payloadOf(what!, 'Стрижка')));
    await sendAndWait(agentId, messageEvent(slotButton(when!, '11:00')));
    await sendAndWait(agentId, messageNew('Мария'));
    const [summary] = await sendAndWait(agentId, messageNew('+7 916 111-22-33'));
    const [booked] = await sendAndWait(agentId, messageEvent(payloadOf(summary!, 'Подтвердить')));
    expect(booked!.message).toContain('Вы записаны');
    expect(buttonsOf(booked!).map((b) => b.action.label)).toContain('Перенести');
    const [record] = yc.records;

    const [times] = await sendAndWait(agentId, messageEvent(payloadOf(booked!, 'Перенести')));
    expect(times!.message).toContain('На какое время перенести запись');
    expect(times!.message).toContain('11:00');
    const [move] = await sendAndWait(agentId, messageEvent(slotButton(times!, '13:00')));
    expect(move!.message).toContain('Перенести запись?');
    expect(move!.message).toContain('Было: ');
    expect(move!.message).toContain('Станет: ');
    expect(yc.calls.some((c) => c.method === 'PUT')).toBe(false);
    const [moved] = await sendAndWait(agentId, messageEvent(payloadOf(move!, 'Подтвердить')));
    expect(moved!.message).toContain('Запись перенесена: Стрижка, Анна');
    expect(moved!.message).toContain('13:00 (было');
    expect(yc.calls.filter((c) => c.method === 'PUT').map((c) => c.path)).toEqual([`/record/${COMPANY}/${record!.id}`]);
    expect(yc.calls.some((c) => c.method === 'DELETE')).toBe(false);
    expect(yc.records.filter((r) => !r.deleted)).toEqual([expect.objectContaining({ id: record!.id, datetime: at('13:00') })]);

    // The summary's button pressed again moves nothing twice.
    const [stale] = await sendAndWait(agentId, messageEvent(payloadOf(move!, 'Подтвердить')));
    expect(stale!.message).toContain('кнопка уже не действует');
    expect(yc.calls.filter((c) => c.method === 'PUT')).toHaveLength(1);
  });
});
