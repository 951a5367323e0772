// The assistant's tool loop and booking tools, as a salon's clients meet them: VK webhook in, a scripted
// model host that plays the model's tool calls and records what it was sent, a fake YCLIENTS that keeps a
// real schedule, a fake Telegram for hand-overs. What the model was given (tools, tool results) is
// asserted at the model host; what the client, the salon and the owner see, at VK, YCLIENTS and the API.
import { describe, expect, test, setDefaultTimeout } from 'bun:test';
import { lastUserText, toolResults, type ScriptedModelHost, type Script, type ScriptedRequest } from '../fakes/scripted-model';
import type { FakeTelegram } from '../fakes/telegram';
import type { FakeVk } from '../fakes/vk';
import type { FakeYclients } from '../fakes/yclients';
import { call, registerUser, type TestApp } from '../helpers/app';
import { settleAll } from '../helpers/gateway';
import { BOT_TOKEN, OPERATOR, waitFor } from '../helpers/messenger';
import { CLIENT, CODE, createSocialDriver, GROUP, payloadOf, SECRET, TOKEN } from '../helpers/social';
import { moscowDate, useSalonApp } from '../helpers/salon';
import { formatSlot } from '../../src/assistant/texts';

setDefaultTimeout(30_000);

const MAX_STEPS = 4;
const OTHER_CLIENT = 40911299;
const COMPANY = 4564;
const PARTNER = 'partner-token-5f2a9c';
const LOGIN = 'irina@example.ru';
const PASSWORD = 'S3cret-pa55word';
const ANNA = 1601;
const BORIS = 1602;
const HAIRCUT = 90211;
const COLORING = 90213;

const TOMORROW = moscowDate(1);
const DAY_AFTER = moscowDate(2);
const at = (time: string, date = TOMORROW) => `${date}T${time}:00+03:00`;

let host: ScriptedModelHost;
let vk: FakeVk;
let telegram: FakeTelegram;
let yc: FakeYclients;
let app: TestApp;

useSalonApp({
  env: {
    ASSISTANT_MAX_STEPS: String(MAX_STEPS),
  },
  company: {
    id: COMPANY,
    partnerToken: PARTNER,
    login: LOGIN,
    password: PASSWORD,
    staff: [
      { id: ANNA, name: 'Анна', specialization: 'Парикмахер' },
      { id: BORIS, name: 'Борис', specialization: 'Барбер' },
    ],
    services: [
      { id: HAIRCUT, title: 'Стрижка', price_min: 1500, price_max: 2000, duration: 3600, staffIds: [ANNA, BORIS] },
      { id: COLORING, title: 'Окрашивание', price_min: 4000, price_max: 6000, duration: 7200, staffIds: [ANNA] },
    ],
    workingHours: [
      { staffId: ANNA, date: TOMORROW, start: '14:00', end: '18:00' },
      { staffId: BORIS, date: TOMORROW, start: '10:00', end: '13:00' },
      { staffId: ANNA, date: DAY_AFTER, start: '10:00', end: '12:00' },
    ],
  },
  ready: (s) => ({ app, host, vk, telegram, yc } = s),
});

const { messageNew, messageEvent, sendAndWait } = createSocialDriver(
  () => app,
  () => vk,
);

let modelCounter = 0;

/** An agent of `type` on the scripted host under a model id of its own, with the VK community connected. */
async function agentWith(type: 'service' | 'creator', script: Script, options: { yclients?: boolean; bot?: boolean } = {}) {
  const model = `salon/m${++modelCounter}`;
  host.script(model, script);
  const owner = await registerUser(app.url);
  const created = await call(app.url, 'POST', '/api/agents', {
    token: owner.token,
    body: { name: 'Салон «Лён»', type, model, systemPrompt: 'Ты — администратор салона «Лён».' },
  });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const social = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
    token: owner.token,
    body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
  });
  expect(social.status).toBe(200);
  if (options.yclients) {
    const booking = await call(app.url, 'PUT', `/api/v1/booking/${agentId}/settings`, {
      token: owner.token,
      body: {
        partnerToken: PARTNER,
        login: LOGIN,
        password: PASSWORD,
        companyId: COMPANY,
        specialistMapping: { anna: ANNA, boris: BORIS },
        serviceMapping: { haircut: HAIRCUT, coloring: COLORING },
      },
    });
    expect(booking.status).toBe(200);
  }
  if (options.bot) {
    const messenger = await call(app.url, 'PUT', `/api/v1/messenger/${agentId}/settings`, { token: owner.token, body: { botToken: BOT_TOKEN, userId: OPERATOR.id } });
    expect(messenger.status).toBe(200);
  }
  return { owner, agentId, model, sent: () => host.requestsFor(model) };
}

const toolNames = (request: ScriptedRequest) => (request.body.tools ?? []).map((t) => t.function.name);
const lastResult = (body: ScriptedRequest['body']) => toolResults(body).at(-1);

/** The model of «Запишите меня к Анне на завтра в 15:00»: find_slots, then book_appointment, then a text. */
function bookingScript(client: { name: string; phone: string }, time = '15:00'): Script {
  return (body) => {
    const last = lastResult(body);
    if (!last) return { toolCalls: [{ name: 'find_slots', arguments: { date: TOMORROW, serviceId: 'haircut', specialistId: 'anna' } }] };
    if (last.name === 'find_slots') {
      // As a model would: the time the client asked for, whether or not it is among the free ones.
      return {
        toolCalls: [
          {
            name: 'book_appointment',
            arguments: { serviceId: 'haircut', specialistId: 'anna', datetime: at(time), clientName: client.name, clientPhone: client.phone },
          },
        ],
      };
    }
    if (last.name === 'book_appointment' && last.result.status === 'booked') return { text: `Готово, ${client.name}! Вы записаны к Анне на ${time}.` };
    return { text: 'Это время уже занято, могу предложить другое.' };
  };
}

async function dialogueOf(agentId: string, peerId: number): Promise<string> {
  const [row] = await app.sql<{ id: string }>('select id from dialogues where agent_id = $1 and peer_id = $2', [agentId, String(peerId)]);
  return row!.id;
}

describe('booking in plain words', () => {
  test('«Запишите меня к Анне на завтра в 15:00»: find_slots, then book_appointment → one record in YCLIENTS, made by the model', async () => {
    const agent = await agentWith('service', bookingScript({ name: 'Мария', phone: '+7 916 111-22-33' }), { yclients: true });
    // The system announces the booking it made (issue 39 point 3); the model's words follow.
    const [announced, answer] = await sendAndWait(agent.agentId, messageNew('Запишите меня к Анне на завтра в 15:00'), 2);
    expect(announced!.message).toBe(`Готово, Мария! Вы записаны: Стрижка, Анна, ${formatSlot(at('15:00'))}.`);
    expect(answer!.message).toBe('Готово, Мария! Вы записаны к Анне на 15:00.');

    const sent = agent.sent();
    expect(sent).toHaveLength(3);
    expect(toolNames(sent[0]!)).toEqual([
      'escalate_to_human',
      'list_services',
      'list_specialists',
      'find_slots',
      'book_appointment',
      'list_my_appointments',
      'cancel_appointment',
      'reschedule_appointment',
      'offer_choices',
    ]);
    expect(lastUserText(sent[0]!.body)).toBe('Запишите меня к Анне на завтра в 15:00');
    // The model knows what «завтра» is.
    expect(sent[0]!.body.messages[0]!.content).toContain(`Сегодня ${moscowDate(0)}`);
    const [slots] = toolResults(sent[1]!.body);
    expect(slots!.name).toBe('find_slots');
    expect(slots!.result.slots).toContainEqual({ serviceId: 'haircut', specialistId: 'anna', specialistName: 'Анна', datetime: at('15:00') });
    expect(slots!.result.slots.every((s: { specialistId: string }) => s.specialistId === 'anna')).toBe(true);
    const booked = lastResult(sent[2]!.body)!;
    expect(booked.name).toBe('book_appointment');
    expect(booked.result).toMatchObject({ status: 'booked', serviceId: 'haircut', specialistId: 'anna', datetime: at('15:00'), clientName: 'Мария' });

    expect(yc.records).toHaveLength(1);
    expect(yc.records[0]).toMatchObject({
      staffId: ANNA,
      serviceIds: [HAIRCUT],
      datetime: at('15:00'),
      client: { name: 'Мария', phone: '79161112233' },
      deleted: false,
    });
    const dialogueId = await dialogueOf(agent.agentId, CLIENT);
    const rows = await app.sql('select source, status, dialogue_id, client_phone from appointments where agent_id = $1', [agent.agentId]);
    expect(rows).toEqual([{ source: 'model', status: 'booked', dialogue_id: dialogueId, client_phone: '79161112233' }]);
    // The phone the client gave is the dialogue's now, as with the buttons.
    const [dialogue] = await app.sql('select client_phone, client_name from dialogues where id = $1', [dialogueId]);
    expect(dialogue).toEqual({ client_phone: '79161112233', client_name: 'Мария' });
  });

  test('a second client asking for the same time gets a "taken" result with the next free times, and nothing is booked twice', async () => {
    const agent = await agentWith('service', bookingScript({ name: 'Мария', phone: '+7 916 111-22-33' }), { yclients: true });
    await sendAndWait(agent.agentId, messageNew('Запишите меня к Анне на завтра в 15:00'));
    host.script(agent.model, bookingScript({ name: 'Олег', phone: '+7 903 555-44-33' }));
    const [answer] = await sendAndWait(agent.agentId, messageNew('Запишите меня к Анне на завтра в 15:00', { peerId: OTHER_CLIENT }), 1, OTHER_CLIENT);
    expect(answer!.message).toBe('Это время уже занято, могу предложить другое.');

    const [, , third] = agent.sent();
    // The free times the model saw no longer hold 15:00; the booking's answer says it is taken and what is free.
    expect(toolResults(third!.body)[0]!.result.slots.map((s: { datetime: string }) => s.datetime)).not.toContain(at('15:00'));
    const taken = lastResult(third!.body)!;
    expect(taken.name).toBe('book_appointment');
    expect(taken.result.status).toBe('taken');
    expect(taken.result.error).toContain('занято');
    expect(taken.result.nextFreeTimes).toEqual([
      { serviceId: 'haircut', specialistId: 'anna', datetime: at('16:00') },
      { serviceId: 'haircut', specialistId: 'anna', datetime: at('16:30') },
      { serviceId: 'haircut', specialistId: 'anna', datetime: at('17:00') },
      { serviceId: 'haircut', specialistId: 'anna', datetime: at('10:00', DAY_AFTER) },
      { serviceId: 'haircut', specialistId: 'anna', datetime: at('10:30', DAY_AFTER) },
    ]);
    expect(yc.records).toHaveLength(1);
    expect(yc.records[0]!.client.name).toBe('Мария');
    const [count] = await app.sql<{ n: number }>('select count(*)::int as n from appointments where agent_id = $1', [agent.agentId]);
    expect(count!.n).toBe(1);
  });
});

/** A model that calls `first` (arguments from the turn's own tool results), then answers with the results as JSON. */
function oneToolScript(calls: (body: ScriptedRequest['body']) => { name: string; arguments: Record<string, unknown> }[]): Script {
  return (body) => (toolResults(body).length === 0 ? { toolCalls: calls(body) } : { text: JSON.stringify(toolResults(body).map((r) => r.result)) });
}

describe("a client's own appointments", () => {
  async function salonWithTwoClients() {
    const agent = await agentWith('service', bookingScript({ name: 'Мария', phone: '+7 916 111-22-33' }), { yclients: true });
    // Each booking: the system's notice, then the model's words.
    await sendAndWait(agent.agentId, messageNew('Запишите меня к Анне на завтра в 15:00'), 2);
    host.script(agent.model, bookingScript({ name: 'Олег', phone: '+7 903 555-44-33' }, '17:00'));
    await sendAndWait(agent.agentId, messageNew('А меня к Анне на 17:00', { peerId: OTHER_CLIENT }), 2, OTHER_CLIENT);
    expect(yc.records.map((r) => r.client.name)).toEqual(['Мария', 'Олег']);
    const [maria, oleg] = await app.sql<{ id: string }>('select id from appointments where agent_id = $1 order by starts_at', [agent.agentId]);
    return { agent, maria: maria!.id, oleg: oleg!.id };
  }

  test('list_my_appointments shows only the client’s own', async () => {
    const { agent, maria } = await salonWithTwoClients();
    // The owner's own booking for Мария's phone, not made in her dialogue, is not hers to see from VK.
    const byApi = await call(app.url, 'POST', `/api/v1/booking/${agent.agentId}/appointments`, {
      token: agent.owner.token,
      body: { specialistId: 'boris', serviceId: 'haircut', datetime: at('11:00'), clientName: 'Мария', clientPhone: '+79161112233' },
    });
    expect(byApi.status).toBe(201);
    host.script(
      agent.model,
      oneToolScript(() => [{ name: 'list_my_appointments', arguments: {} }]),
    );
    await sendAndWait(agent.agentId, messageNew('На когда я записана?'));
    const mine = lastResult(agent.sent()[1]!.body)!;
    expect(mine.name).toBe('list_my_appointments');
    expect(mine.result.appointments).toEqual([
      {
        appointmentId: maria,
        serviceId: 'haircut',
        serviceTitle: 'Стрижка',
        specialistId: 'anna',
        specialistName: 'Анна',
        datetime: at('15:00'),
        clientName: 'Мария',
      },
    ]);
  });

  test('cancel_appointment: another client’s record is refused and stays; the client’s own is deleted in YCLIENTS and its time is free again', async () => {
    const { agent, maria, oleg } = await salonWithTwoClients();
    host.script(
      agent.model,
      oneToolScript(() => [{ name: 'cancel_appointment', arguments: { appointmentId: oleg } }]),
    );
    await sendAndWait(agent.agentId, messageNew(`Отмените запись ${oleg}`));
    const refused = lastResult(agent.sent()[1]!.body)!;
    expect(refused.result).toEqual({ error: expect.stringContaining('нет') });
    expect(JSON.stringify(refused.result)).not.toContain('Олег');
    expect(yc.calls.filter((c) => c.method === 'DELETE')).toHaveLength(0);
    expect(yc.records.every((r) => !r.deleted)).toBe(true);

    host.script(
      agent.model,
      oneToolScript(() => [{ name: 'cancel_appointment', arguments: { appointmentId: maria } }]),
    );
    const [notice] = await sendAndWait(agent.agentId, messageNew('Отмените мою запись'), 2);
    expect(notice!.message).toBe(`Запись отменена: Стрижка, Анна, ${formatSlot(at('15:00'))}.`);
    const canceled = lastResult(agent.sent()[1]!.body)!;
    expect(canceled.result).toMatchObject({ status: 'canceled', appointmentId: maria, datetime: at('15:00') });
    const deletes = yc.calls.filter((c) => c.method === 'DELETE');
    expect(deletes.map((c) => c.path)).toEqual([`/record/${COMPANY}/${yc.records[0]!.id}`]);
    expect(deletes[0]!.headers.authorization).toMatch(/^Bearer partner-token-5f2a9c, User \S+$/);
    expect(yc.records.map((r) => r.deleted)).toEqual([true, false]);
    const rows = await app.sql('select id, status from appointments where agent_id = $1 order by starts_at', [agent.agentId]);
    expect(rows).toEqual([
      { id: maria, status: 'canceled' },
      { id: oleg, status: 'booked' },
    ]);

    // The canceled time is offered and bookable again (the slot guard holds only live bookings).
    host.script(agent.model, bookingScript({ name: 'Ирина', phone: '+7 925 000-11-22' }));
    const [again] = await sendAndWait(agent.agentId, messageNew('Запишите к Анне на 15:00', { peerId: 40911300 }), 2, 40911300);
    expect(again!.message).toContain('Вы записаны');
    expect(
      yc.records
        .filter((r) => !r.deleted)
        .map((r) => r.client.name)
        .sort(),
    ).toEqual(['Ирина', 'Олег']);
  });

  test('YCLIENTS refusing the deletion (no rights) is an error result: the appointment stays booked here and there', async () => {
    const { agent, maria } = await salonWithTwoClients();
    yc.failNext('/record/', { status: 403, method: 'DELETE' });
    host.script(
      agent.model,
      oneToolScript(() => [{ name: 'cancel_appointment', arguments: { appointmentId: maria } }]),
    );
    const [answer] = await sendAndWait(agent.agentId, messageNew('Отмените мою запись'));
    const failed = lastResult(agent.sent()[1]!.body)!;
    expect(failed.result.error).toContain('сотрудник');
    expect(answer!.message).toBe(JSON.stringify([failed.result]));
    expect(yc.records.every((r) => !r.deleted)).toBe(true);
    const [row] = await app.sql('select status from appointments where id = $1', [maria]);
    expect(row).toEqual({ status: 'booked' });
  });

  test('rescheduling books the new time first, then cancels the old one', async () => {
    const { agent, maria } = await salonWithTwoClients();
    host.script(agent.model, (body) => {
      const results = toolResults(body);
      const last = results.at(-1);
      if (!last) return { toolCalls: [{ name: 'list_my_appointments', arguments: {} }] };
      if (last.name === 'list_my_appointments') {
        return {
          toolCalls: [
            {
              name: 'book_appointment',
              arguments: { serviceId: 'haircut', specialistId: 'anna', datetime: at('16:00'), clientName: 'Мария', clientPhone: '79161112233' },
            },
            { name: 'cancel_appointment', arguments: { appointmentId: last.result.appointments[0].appointmentId } },
          ],
        };
      }
      return { text: 'Перенесла на 16:00.' };
    });
    const answers = await sendAndWait(agent.agentId, messageNew('Перенесите мою запись на 16:00'), 3);
    expect(answers.map((m) => m.message)).toEqual([
      `Готово, Мария! Вы записаны: Стрижка, Анна, ${formatSlot(at('16:00'))}.`,
      `Запись отменена: Стрижка, Анна, ${formatSlot(at('15:00'))}.`,
      'Перенесла на 16:00.',
    ]);
    const [booked, canceled] = toolResults(agent.sent()[2]!.body).slice(-2);
    expect(booked!.result.status).toBe('booked');
    expect(canceled!.result).toMatchObject({ status: 'canceled', appointmentId: maria, datetime: at('15:00') });
    const order = yc.calls.map((c) => `${c.method} ${c.path}`).filter((c) => c.startsWith('POST /book_record') || c.startsWith('DELETE'));
    expect(order.slice(-2)).toEqual([`POST /book_record/${COMPANY}`, `DELETE /record/${COMPANY}/${yc.records[0]!.id}`]);
    expect(yc.records.filter((r) => !r.deleted && r.client.name === 'Мария').map((r) => r.datetime)).toEqual([at('16:00')]);
  });
});

describe('the loop', () => {
  test('bad arguments, an unknown tool and a good call in one answer: run in order, errors are results, and the turn goes on', async () => {
    const agent = await agentWith(
      'service',
      oneToolScript(() => [
        { name: 'find_slots', arguments: { date: 'завтра' } },
        { name: 'do_magic', arguments: {} },
        { name: 'list_services', arguments: {} },
      ]),
      { yclients: true },
    );
    const [answer] = await sendAndWait(agent.agentId, messageNew('Сколько стоит стрижка?'));
    const results = toolResults(agent.sent()[1]!.body);
    expect(results.map((r) => r.name)).toEqual(['find_slots', 'do_magic', 'list_services']);
    expect(results[0]!.result.error).toContain('YYYY-MM-DD');
    expect(results[1]!.result.error).toContain('do_magic');
    expect(results[2]!.result.services).toContainEqual({
      serviceId: 'haircut',
      title: 'Стрижка',
      priceMin: 1500,
      priceMax: 2000,
      durationMinutes: 60,
      specialistIds: ['anna', 'boris'],
    });
    // The model's text after the tool results is what the client gets.
    expect(answer!.message).toBe(JSON.stringify(results.map((r) => r.result)));
  });

  test('arguments that are not JSON are an error result the model can correct', async () => {
    const agent = await agentWith(
      'service',
      (body) => {
        const last = lastResult(body);
        if (!last) return { toolCalls: [{ name: 'list_specialists', arguments: '{serviceId: haircut' }] };
        if (last.result.error) return { toolCalls: [{ name: 'list_specialists', arguments: { serviceId: 'coloring' } }] };
        return { text: last.result.specialists.map((s: { name: string }) => s.name).join(', ') };
      },
      { yclients: true },
    );
    const [answer] = await sendAndWait(agent.agentId, messageNew('Кто делает окрашивание?'));
    expect(answer!.message).toBe('Анна');
    expect(toolResults(agent.sent()[1]!.body)[0]!.result.error).toContain('JSON');
  });

  test(`ASSISTANT_MAX_STEPS (${MAX_STEPS}) model calls without an answer → a polite fallback; no bot: the assistant stays on`, async () => {
    const agent = await agentWith('service', () => ({ toolCalls: [{ name: 'list_services', arguments: {} }] }), { yclients: true });
    const [answer] = await sendAndWait(agent.agentId, messageNew('Что у вас есть?'));
    expect(answer!.message).toContain('не смог сразу разобраться');
    expect(agent.sent()).toHaveLength(MAX_STEPS);
    const [dialogue] = await app.sql('select mode from dialogues where agent_id = $1', [agent.agentId]);
    expect(dialogue).toEqual({ mode: 'assistant' });
    expect(telegram.sent).toHaveLength(0);
  });

  test('ASSISTANT_MAX_STEPS reached with a Telegram bot set: the client is handed to a person', async () => {
    const agent = await agentWith('creator', () => ({ toolCalls: [{ name: 'no_such_tool', arguments: {} }] }), { bot: true });
    const [answer] = await sendAndWait(agent.agentId, messageNew('Сложный вопрос'));
    expect(answer!.message).toContain('передал его сотруднику');
    expect(agent.sent()).toHaveLength(MAX_STEPS);
    const notice = await waitFor(() => telegram.sent.find((m) => m.chatId === OPERATOR.id), 5000, 'the escalation notice');
    expect(notice.text).toContain('отведённое число шагов');
    const [dialogue] = await app.sql('select mode from dialogues where agent_id = $1', [agent.agentId]);
    expect(dialogue).toEqual({ mode: 'operator' });
  });

  test('the model failing twice in a row after a tool call (tried again once): no bot → the usual apology, the tool call stays in the record', async () => {
    const agent = await agentWith(
      'service',
      (body) => (toolResults(body).length === 0 ? { toolCalls: [{ name: 'list_services', arguments: {} }] } : { status: 503, message: 'overloaded' }),
      { yclients: true },
    );
    const [answer] = await sendAndWait(agent.agentId, messageNew('Сколько стоит окрашивание?'));
    expect(answer!.message).toBe('Извините, я не смог ответить прямо сейчас. Попробуйте, пожалуйста, ещё раз чуть позже.');
    expect(agent.sent()).toHaveLength(3);
    const turns = await app.sql('select role, tool_name from dialogue_messages where dialogue_id = $1 order by id', [await dialogueOf(agent.agentId, CLIENT)]);
    expect(turns).toEqual([
      { role: 'user', tool_name: null },
      { role: 'tool', tool_name: 'list_services' },
      { role: 'assistant', tool_name: null },
    ]);
  });

  test('escalate_to_human from the loop ends the turn: a phone is asked for when none is known', async () => {
    const agent = await agentWith(
      'service',
      () => ({
        toolCalls: [
          { name: 'escalate_to_human', arguments: { reason: 'жалоба на мастера' } },
          { name: 'list_services', arguments: {} },
        ],
      }),
      {
        yclients: true,
        bot: true,
      },
    );
    const [answer] = await sendAndWait(agent.agentId, messageNew('Мне не понравилась стрижка'));
    expect(answer!.message).toContain('номер телефона');
    expect(agent.sent()).toHaveLength(1);
    const turns = await app.sql('select role, tool_name from dialogue_messages where dialogue_id = $1 order by id', [await dialogueOf(agent.agentId, CLIENT)]);
    expect(turns).toEqual([
      { role: 'user', tool_name: null },
      { role: 'tool', tool_name: 'escalate_to_human' },
      { role: 'assistant', tool_name: null },
    ]);
  });

  test('a Service agent without YCLIENTS, and a Creator agent, are offered escalation and answer buttons only', async () => {
    for (const type of ['service', 'creator'] as const) {
      const agent = await agentWith(type, () => ({ text: 'Здравствуйте!' }));
      await sendAndWait(agent.agentId, messageNew('Хочу записаться'));
      expect(toolNames(agent.sent()[0]!)).toEqual(['escalate_to_human', 'offer_choices']);
      // What the agent's page shows: the booking tools a Service agent lacks, and why; both lack the
      // knowledge search until the owner writes an entry.
      const offered = await app.instance.services.social.assistant.toolsFor((await app.instance.services.agents.find(agent.agentId))!);
      const booking = ['list_services', 'list_specialists', 'find_slots', 'book_appointment', 'list_my_appointments', 'cancel_appointment', 'reschedule_appointment'];
      expect(offered.missing).toEqual([
        ...(type === 'service' ? booking.map((name) => ({ name, reason: 'подключите YCLIENTS' })) : []),
        { name: 'search_knowledge', reason: 'Добавьте записи в базу знаний' },
      ]);
    }
  });

  test('the images of a message go to the model as image_url parts of the last user message', async () => {
    const agent = await agentWith('creator', () => ({ text: 'Красивое фото!' }));
    await sendAndWait(agent.agentId, messageNew('Привет'));
    const { services } = app.instance;
    const loaded = await services.agents.find(agent.agentId);
    const dialogue = await services.social.assistant.dialogueById(services.db, await dialogueOf(agent.agentId, CLIENT));
    await app.sql(`insert into dialogue_messages (dialogue_id, role, content) values ($1, 'user', 'Как вам моя стрижка?')`, [dialogue!.id]);
    const outcome = await services.social.assistant.runModelTurn(loaded!, dialogue!, 'req-images-1', {
      clientText: 'Как вам моя стрижка?',
      images: ['https://sun9-1.userapi.com/photo-1.jpg', 'https://sun9-1.userapi.com/photo-2.jpg'],
    });
    expect(outcome).toBe('model_answer');
    const last = agent.sent().at(-1)!.body.messages.at(-1)!;
    expect(last).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Как вам моя стрижка?' },
        { type: 'image_url', image_url: { url: 'https://sun9-1.userapi.com/photo-1.jpg' } },
        { type: 'image_url', image_url: { url: 'https://sun9-1.userapi.com/photo-2.jpg' } },
      ],
    });
  });
});

describe('the owner sees it', () => {
  test('one request id for the turn’s calls, each billed; the inbox shows the tool calls and the turn’s summed cost; results count the model’s bookings apart', async () => {
    const agent = await agentWith('service', bookingScript({ name: 'Мария', phone: '+7 916 111-22-33' }), { yclients: true });
    await sendAndWait(agent.agentId, messageNew('Запишите меня к Анне на завтра в 15:00'), 2);
    await settleAll(app);
    const usage = await app.sql<{ request_id: string; cost_nano: string; prompt_tokens: string; completion_tokens: string }>(
      'select request_id, cost_nano::text, prompt_tokens::text, completion_tokens::text from usage_records where agent_id = $1 order by id',
      [agent.agentId],
    );
    expect(usage).toHaveLength(3);
    expect(new Set(usage.map((u) => u.request_id)).size).toBe(1);
    const costNano = usage.reduce((sum, u) => sum + BigInt(u.cost_nano), 0n);
    expect(usage.every((u) => BigInt(u.cost_nano) > 0n)).toBe(true);
    const balance = await call(app.url, 'GET', '/api/balance', { token: agent.owner.token });
    expect(balance.body.balance).toBe(Number(3_000_000_000n - costNano) / 1e9);

    const dialogueId = await dialogueOf(agent.agentId, CLIENT);
    const transcript = await call(app.url, 'GET', `/api/v1/agents/${agent.agentId}/dialogues/${dialogueId}/messages`, { token: agent.owner.token });
    expect(transcript.status).toBe(200);
    const turns = [...transcript.body.messages].reverse();
    expect(turns.map((m: { author: string; toolName: string | null }) => [m.author, m.toolName])).toEqual([
      ['client', null],
      ['tool', 'find_slots'],
      ['tool', 'book_appointment'],
      // The system's notice of the booking (no model, no cost), then the model's answer.
      ['assistant', null],
      ['assistant', null],
    ]);
    expect(turns[1].text).toContain('свободных окон');
    expect(turns[2].text).toContain('Мария');
    expect(turns[2].text).toContain('15:00');
    expect(turns[3]).toMatchObject({ text: expect.stringContaining('Вы записаны: Стрижка'), model: null, cost: null });
    expect(turns[4]).toMatchObject({
      model: agent.model,
      promptTokens: usage.reduce((sum, u) => sum + Number(u.prompt_tokens), 0),
      completionTokens: usage.reduce((sum, u) => sum + Number(u.completion_tokens), 0),
      cost: Number(costNano) / 1e9,
    });
    // The dialogue list shows what was said last, not a tool call.
    const list = await call(app.url, 'GET', `/api/v1/agents/${agent.agentId}/dialogues`, { token: agent.owner.token });
    expect(list.body.dialogues[0].lastMessage).toMatchObject({ author: 'assistant', text: 'Готово, Мария! Вы записаны к Анне на 15:00.' });

    // A second client books through the buttons.
    const peer = 40911301;
    const [who] = await sendAndWait(agent.agentId, messageEvent({ action: 'book' }, peer), 1, peer);
    const [what] = await sendAndWait(agent.agentId, messageEvent(payloadOf(who!, 'Борис'), peer), 1, peer);
    const [when] = await sendAndWait(agent.agentId, messageEvent(payloadOf(what!, 'Стрижка'), peer), 1, peer);
    await sendAndWait(agent.agentId, messageEvent(payloadOf(when!, '10:00'), peer), 1, peer);
    await sendAndWait(agent.agentId, messageNew('Пётр', { peerId: peer }), 1, peer);
    const [summary] = await sendAndWait(agent.agentId, messageNew('+7 916 000-00-01', { peerId: peer }), 1, peer);
    const [done] = await sendAndWait(agent.agentId, messageEvent(payloadOf(summary!, 'Подтвердить'), peer), 1, peer);
    expect(done!.message).toContain('Вы записаны');

    const results = await call(app.url, 'GET', `/api/v1/agents/${agent.agentId}/results`, { token: agent.owner.token });
    expect(results.status).toBe(200);
    expect(results.body).toMatchObject({ bookings: 2, bookingsByModel: 1, bookingsByButtons: 1 });
    // Tool turns are not messages: the client wrote 1 + 2 (button presses are no turns), the assistant answered
    // 2 (the system's notice of the booking and the model's words) + 7 (the buttons' booking shows its summary
    // before it is made).
    expect(results.body.messages).toMatchObject({ total: 12, client: 3, assistant: 9 });
  });
});
