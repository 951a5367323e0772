// Buttons in the model's answers (issue 42 point 3), as a salon's and a shop's clients meet them: VK webhook
// in, a scripted model that calls find_slots or offer_choices, a fake YCLIENTS keeping a real schedule.
// find_slots' free times ride on the model's answer as buttons (one message); a time tapped goes on to the
// name, the phone and the booking's summary, and books only on «Подтвердить»; a text choice reaches the
// model as the client's message; a product goes into the cart; an old or forged button re-offers the choice.
import { describe, expect, test, setDefaultTimeout } from 'bun:test';
import { lastUserText, toolResults, type ScriptedModelHost, type ScriptedRequest } from '../fakes/scripted-model';
import type { FakeSentMessage, FakeVk } from '../fakes/vk';
import type { FakeYclients } from '../fakes/yclients';
import { call, registerUser, type TestApp } from '../helpers/app';
import { buttonsOf, CODE, createSocialDriver, GROUP, payloadOf, SECRET, TOKEN } from '../helpers/social';
import { moscowDate, useSalonApp } from '../helpers/salon';
import { formatSlot, formatSlotShort } from '../../src/assistant/texts';

setDefaultTimeout(30_000);

const COMPANY = 4564;
const PARTNER = 'partner-token-5f2a9c';
const LOGIN = 'irina@example.ru';
const PASSWORD = 'S3cret-pa55word';
const ANNA = 1601;
const BORIS = 1602;
const HAIRCUT = 90211;
const COLORING = 90213;
const TOMORROW = moscowDate(1);
const at = (time: string) => `${TOMORROW}T${time}:00+03:00`;

let host: ScriptedModelHost;
let vk: FakeVk;
let yc: FakeYclients;
let app: TestApp;

useSalonApp({
  withoutTelegram: true,
  env: { ASSISTANT_DEBOUNCE_MS: '0' },
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
      { id: COLORING, title: 'Окрашивание', price_min: 4000, price_max: 6000, duration: 3600, staffIds: [ANNA] },
    ],
    workingHours: [
      { staffId: ANNA, date: TOMORROW, start: '14:00', end: '18:00' },
      { staffId: BORIS, date: TOMORROW, start: '10:00', end: '13:00' },
    ],
  },
  ready: (s) => ({ app, host, vk, yc } = s),
});

const { messageNew, messageEvent, sendAndWait, processed } = createSocialDriver(
  () => app,
  () => vk,
);
let counter = 0;
/** Each test's own client, so one test's dialogue never leaks into another's. */
const newPeer = () => 52000000 + ++counter;

const labels = (m: FakeSentMessage) => buttonsOf(m).map((b) => b.action.label);
const payloads = (m: FakeSentMessage) => buttonsOf(m).map((b) => JSON.parse(b.action.payload) as Record<string, unknown>);
const lastResult = (body: ScriptedRequest['body']) => toolResults(body).at(-1);

async function agent(type: 'service' | 'ecommerce', options: { yclients?: boolean } = {}) {
  const model = `choices/m${++counter}`;
  const owner = await registerUser(app.url);
  const created = await call(app.url, 'POST', '/api/agents', {
    token: owner.token,
    body: { name: type === 'service' ? 'Салон «Лён»' : 'Магазин «Лён»', type, model, systemPrompt: 'Ты — администратор.' },
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
  return { owner, agentId, model };
}

/** Makes the dialogue know the client's name and phone, as an earlier booking would have. */
async function knownClient(agentId: string, peer: number, name: string, phone: string) {
  await app.sql('update dialogues set client_name = $1, client_phone = $2 where agent_id = $3 and peer_id = $4', [name, phone, agentId, String(peer)]);
}

describe('find_slots: the free times ride on the model’s answer', () => {
  test('one message — the text and the times; a time tapped → name → phone → summary → «Подтвердить» → booked in YCLIENTS', async () => {
    const salon = await agent('service', { yclients: true });
    const peer = newPeer();
    host.sequence(salon.model, [
      { toolCalls: [{ name: 'find_slots', arguments: { date: TOMORROW, serviceId: 'haircut', specialistId: 'anna' } }] },
      { text: 'Завтра у Анны есть свободное время, выберите удобное:' },
    ]);
    const [answer, extra] = await sendAndWait(salon.agentId, messageNew('Хочу к Анне на стрижку завтра', { peerId: peer }), 1, peer);
    expect(extra).toBeUndefined();
    expect(answer!.message).toBe('Завтра у Анны есть свободное время, выберите удобное:');
    // Anna works 14:00–18:00, the haircut takes an hour: 14:00 … 17:00 every 30 minutes.
    expect(labels(answer!)).toEqual(['14:00', '14:30', '15:00', '15:30', '16:00', '16:30', '17:00'].map((t) => formatSlotShort(at(t))));
    expect(payloadOf(answer!, formatSlotShort(at('15:00')))).toEqual({ action: 'choice_slot', s: 'anna', v: 'haircut', t: at('15:00') });
    // The model was told the times are buttons, so it need not list them.
    const found = toolResults(host.requestsFor(salon.model)[1]!.body).at(-1)!;
    expect(found.name).toBe('find_slots');
    expect(found.result.note).toMatch(/кнопками/);
    // Still only the one message: no buttons message beside the model's text.
    await Bun.sleep(150);
    expect(vk.sentMessages.filter((m) => m.peerId === peer)).toHaveLength(1);

    const [askName] = await sendAndWait(salon.agentId, messageEvent(payloadOf(answer!, formatSlotShort(at('15:00'))), peer), 1, peer);
    expect(askName!.message).toBe('Как вас записать? Напишите, пожалуйста, имя.');
    const [askPhone] = await sendAndWait(salon.agentId, messageNew('Мария', { peerId: peer }), 1, peer);
    expect(askPhone!.message).toMatch(/номер телефона/);
    const [summary] = await sendAndWait(salon.agentId, messageNew('+7 916 111-22-33', { peerId: peer }), 1, peer);
    expect(summary!.message).toContain('Стрижка');
    expect(summary!.message).toContain(formatSlot(at('15:00')));
    expect(labels(summary!)).toContain('Подтвердить');
    // Nothing is booked before the client confirms.
    expect(yc.records).toHaveLength(0);

    const [booked] = await sendAndWait(salon.agentId, messageEvent(payloadOf(summary!, 'Подтвердить'), peer), 1, peer);
    expect(booked!.message).toBe(`Готово, Мария! Вы записаны: Стрижка, Анна, ${formatSlot(at('15:00'))}.`);
    expect(yc.records.filter((r) => !r.deleted)).toEqual([expect.objectContaining({ datetime: at('15:00') })]);
    const rows = await app.sql<{ source: string }>('select source from appointments where agent_id = $1', [salon.agentId]);
    expect(rows).toEqual([{ source: 'button' }]);
    // Only the model's answer turned into a request: the taps and the flow cost no model call.
    expect(host.requestsFor(salon.model)).toHaveLength(2);
  });

  test('several specialists: each time names who; a booking made in the turn takes the times back', async () => {
    const salon = await agent('service', { yclients: true });
    const peer = newPeer();
    host.sequence(salon.model, [
      { toolCalls: [{ name: 'find_slots', arguments: { date: TOMORROW, serviceId: 'haircut' } }] },
      { text: 'Вот свободное время на завтра.' },
    ]);
    const [answer] = await sendAndWait(salon.agentId, messageNew('Когда можно постричься завтра?', { peerId: peer }), 1, peer);
    // Boris 10:00–12:00 and Anna 14:00–17:00: 12 times, the first 10 shown, two to a row.
    expect(buttonsOf(answer!)).toHaveLength(10);
    expect(labels(answer!)[0]).toBe(`${formatSlotShort(at('10:00'))} Борис`);
    expect(labels(answer!)).toContain(`${formatSlotShort(at('14:00'))} Анна`);
    expect((answer!.keyboard as { buttons: unknown[][] }).buttons.every((row) => row.length <= 2)).toBe(true);

    host.sequence(salon.model, [
      { toolCalls: [{ name: 'find_slots', arguments: { date: TOMORROW, serviceId: 'haircut', specialistId: 'anna' } }] },
      {
        toolCalls: [
          {
            name: 'book_appointment',
            arguments: { serviceId: 'haircut', specialistId: 'anna', datetime: at('16:00'), clientName: 'Ольга', clientPhone: '+7 916 222-33-44' },
          },
        ],
      },
      { text: 'Записала вас.' },
    ]);
    const [notice, words] = await sendAndWait(salon.agentId, messageNew('Запишите к Анне на 16:00, Ольга, +7 916 222-33-44', { peerId: peer }), 2, peer);
    expect(notice!.message).toMatch(/^Готово, Ольга!/);
    expect(words!.message).toBe('Записала вас.');
    expect(buttonsOf(words!)).toEqual([]);
  });
});

describe('offer_choices', () => {
  test('times for a client the dialogue knows → the summary at once → booked; a text choice reaches the model as the client’s words', async () => {
    const salon = await agent('service', { yclients: true });
    const peer = newPeer();
    host.sequence(salon.model, [{ text: 'Здравствуйте!' }]);
    await sendAndWait(salon.agentId, messageNew('Добрый день', { peerId: peer }), 1, peer);
    await knownClient(salon.agentId, peer, 'Мария', '+79161112233');

    host.sequence(salon.model, [
      {
        toolCalls: [
          {
            name: 'offer_choices',
            arguments: {
              text: 'Могу предложить окрашивание у Анны:',
              choices: [
                { label: 'Завтра 14:00', value: { serviceId: 'coloring', specialistId: 'anna', datetime: at('14:00') } },
                { label: 'Завтра 16:30', value: { serviceId: 'coloring', specialistId: 'anna', datetime: at('16:30') } },
                { label: 'Нет, другое время', value: 'Нет, другое время' },
              ],
            },
          },
        ],
      },
    ]);
    const [answer, extra] = await sendAndWait(salon.agentId, messageNew('Хочу покраситься завтра', { peerId: peer }), 1, peer);
    expect(answer!.message).toBe('Могу предложить окрашивание у Анны:');
    expect(labels(answer!)).toEqual(['Завтра 14:00', 'Завтра 16:30', 'Нет, другое время']);
    expect(payloads(answer!)[2]).toEqual({ action: 'choice_text', x: 'Нет, другое время' });
    expect(extra).toBeUndefined();
    // The answer is the model's: it carries the turn's request id, and the turn ended with it (one model call).
    expect(host.requestsFor(salon.model)).toHaveLength(1);
    const [row] = await app.sql<{ request_id: string | null }>(
      "select request_id from dialogue_messages where role = 'assistant' and content = 'Могу предложить окрашивание у Анны:'",
    );
    expect(row!.request_id).toBeTruthy();
    const [tool] = await app.sql<{ content: string }>("select content from dialogue_messages where role = 'tool' and tool_name = 'offer_choices'");
    expect(tool!.content).toBe('кнопки под ответом: «Завтра 14:00», «Завтра 16:30», «Нет, другое время»');

    // A text choice: the model gets it as the client's message, the tap costs one model turn.
    host.sequence(salon.model, [{ text: 'На какой день посмотреть?' }]);
    const [reply] = await sendAndWait(salon.agentId, messageEvent(payloadOf(answer!, 'Нет, другое'), peer), 1, peer);
    expect(reply!.message).toBe('На какой день посмотреть?');
    expect(lastUserText(host.requestsFor(salon.model)[0]!.body)).toBe('Нет, другое время');

    // A time: name and phone known → the summary straight away; «Подтвердить» books it.
    const [summary] = await sendAndWait(salon.agentId, messageEvent(payloadOf(answer!, 'Завтра 16:30'), peer), 1, peer);
    expect(summary!.message).toContain('Окрашивание');
    expect(summary!.message).toContain('Мария');
    expect(labels(summary!)).toEqual(['Подтвердить', 'Изменить', 'Отмена']);
    const [booked] = await sendAndWait(salon.agentId, messageEvent(payloadOf(summary!, 'Подтвердить'), peer), 1, peer);
    expect(booked!.message).toBe(`Готово, Мария! Вы записаны: Окрашивание, Анна, ${formatSlot(at('16:30'))}.`);
    expect(yc.records.filter((r) => !r.deleted)).toEqual([expect.objectContaining({ datetime: at('16:30') })]);
    // «Подтвердить» pressed again: nothing more is booked.
    const [again] = await sendAndWait(salon.agentId, messageEvent(payloadOf(summary!, 'Подтвердить'), peer), 1, peer);
    expect(again!.message).not.toMatch(/^Готово/);
    expect(yc.records.filter((r) => !r.deleted)).toHaveLength(1);
  });

  test('a time taken since the buttons were shown: told so, with the nearest free times; never two records', async () => {
    const salon = await agent('service', { yclients: true });
    const peer = newPeer();
    const other = newPeer();
    host.sequence(salon.model, [
      {
        toolCalls: [
          {
            name: 'offer_choices',
            arguments: { text: 'Есть 15:00 у Анны.', choices: [{ label: '15:00', value: { serviceId: 'haircut', specialistId: 'anna', datetime: at('15:00') } }] },
          },
        ],
      },
    ]);
    const [answer] = await sendAndWait(salon.agentId, messageNew('Можно к Анне завтра?', { peerId: peer }), 1, peer);
    await knownClient(salon.agentId, peer, 'Мария', '+79161112233');

    // Another client takes 15:00 through the model meanwhile.
    host.sequence(salon.model, [
      {
        toolCalls: [
          {
            name: 'book_appointment',
            arguments: { serviceId: 'haircut', specialistId: 'anna', datetime: at('15:00'), clientName: 'Ольга', clientPhone: '+7 916 222-33-44' },
          },
        ],
      },
      { text: 'Готово.' },
    ]);
    await sendAndWait(salon.agentId, messageNew('Запишите к Анне на 15:00', { peerId: other }), 2, other);
    expect(yc.records.filter((r) => !r.deleted)).toHaveLength(1);

    const [taken] = await sendAndWait(salon.agentId, messageEvent(payloadOf(answer!, '15:00'), peer), 1, peer);
    expect(taken!.message).toBe('Это время только что заняли. Выберите, пожалуйста, другое:');
    const offered = payloads(taken!).filter((p) => p.action === 'pick_slot');
    expect(offered.length).toBeGreaterThan(0);
    expect(offered.map((p) => p.t)).not.toContain(at('15:00'));
    expect(yc.records.filter((r) => !r.deleted)).toHaveLength(1);
    const dialogue = await app.sql<{ flow: unknown }>('select flow from dialogues where agent_id = $1 and peer_id = $2', [salon.agentId, String(peer)]);
    expect(dialogue[0]!.flow).toBeNull();
  });

  test('book_appointment refused for a taken time: the nearest free times ride on the model’s answer', async () => {
    const salon = await agent('service', { yclients: true });
    const book = (name: string, phone: string) => ({
      toolCalls: [
        { name: 'book_appointment', arguments: { serviceId: 'haircut', specialistId: 'anna', datetime: at('16:00'), clientName: name, clientPhone: phone } },
      ],
    });
    const first = newPeer();
    host.sequence(salon.model, [book('Ольга', '+7 916 222-33-44'), { text: 'Записала.' }]);
    await sendAndWait(salon.agentId, messageNew('Запишите к Анне на 16:00', { peerId: first }), 2, first);
    const peer = newPeer();
    host.sequence(salon.model, [book('Мария', '+7 916 111-22-33'), { text: 'Это время уже занято, выберите другое:' }]);
    const [answer] = await sendAndWait(salon.agentId, messageNew('Запишите к Анне на 16:00', { peerId: peer }), 1, peer);
    expect(answer!.message).toBe('Это время уже занято, выберите другое:');
    // 16:00–17:00 is Olga's now: 16:30 overlaps it; Anna works until 18:00.
    expect(payloads(answer!).map((p) => p.t)).toEqual([at('17:00')]);
    expect(toolResults(host.requestsFor(salon.model)[1]!.body).at(-1)!.result).toMatchObject({ status: 'taken', note: expect.stringMatching(/кнопками/) });
    expect(yc.records.filter((r) => !r.deleted)).toHaveLength(1);
  });

  test('a client with a visit taps a time of the same service and specialist: move it (in place) or book one more', async () => {
    const salon = await agent('service', { yclients: true });
    const peer = newPeer();
    host.sequence(salon.model, [
      {
        toolCalls: [
          {
            name: 'book_appointment',
            arguments: { serviceId: 'haircut', specialistId: 'anna', datetime: at('14:00'), clientName: 'Мария', clientPhone: '+7 916 111-22-33' },
          },
        ],
      },
      { text: 'Записала.' },
    ]);
    await sendAndWait(salon.agentId, messageNew('Запишите к Анне на 14:00', { peerId: peer }), 2, peer);
    const [record] = yc.records;

    // «Перенесите на попозже»: the model looks for times, and they come as buttons as ever.
    host.sequence(salon.model, [
      { toolCalls: [{ name: 'find_slots', arguments: { date: TOMORROW, serviceId: 'haircut', specialistId: 'anna' } }] },
      { text: 'На какое время перенести?' },
    ]);
    const [answer] = await sendAndWait(salon.agentId, messageNew('Перенесите мою запись на попозже', { peerId: peer }), 1, peer);
    const [ask] = await sendAndWait(salon.agentId, messageEvent(payloadOf(answer!, formatSlotShort(at('17:00'))), peer), 1, peer);
    expect(ask!.message).toBe(`У вас уже есть запись: Стрижка, Анна, ${formatSlot(at('14:00'))}. Перенести её на ${formatSlot(at('17:00'))} или записаться ещё раз?`);
    expect(labels(ask!)).toEqual(['Перенести запись', 'Записаться ещё раз', 'Отмена']);

    // «Записаться ещё раз»: the summary of a new booking (name and phone known), nothing booked yet.
    const [another] = await sendAndWait(salon.agentId, messageEvent(payloadOf(ask!, 'Записаться ещё раз'), peer), 1, peer);
    expect(another!.message).toMatch(/^Проверьте, пожалуйста, запись:/);
    // «Перенести запись»: the move's summary, then the record moved in place — still one visit.
    const [move] = await sendAndWait(salon.agentId, messageEvent(payloadOf(ask!, 'Перенести запись'), peer), 1, peer);
    expect(move!.message).toMatch(/^Перенести запись\?/);
    const [moved] = await sendAndWait(salon.agentId, messageEvent(payloadOf(move!, 'Подтвердить'), peer), 1, peer);
    expect(moved!.message).toMatch(/^Готово! Запись перенесена/);
    expect(yc.records.filter((r) => !r.deleted)).toEqual([expect.objectContaining({ id: record!.id, datetime: at('17:00') })]);
  });

  test('a service choice → who provides it → their free times', async () => {
    const salon = await agent('service', { yclients: true });
    const peer = newPeer();
    host.sequence(salon.model, [
      {
        toolCalls: [
          {
            name: 'offer_choices',
            arguments: {
              text: 'Что хотите?',
              choices: [
                { label: 'Стрижка', value: { serviceId: 'haircut' } },
                { label: 'Окрашивание', value: { serviceId: 'coloring' } },
              ],
            },
          },
        ],
      },
    ]);
    const [answer] = await sendAndWait(salon.agentId, messageNew('Какие у вас услуги?', { peerId: peer }), 1, peer);
    expect(payloads(answer!)).toEqual([
      { action: 'choice_service', v: 'haircut' },
      { action: 'choice_service', v: 'coloring' },
    ]);
    // The haircut: Anna and Boris provide it — the client chooses.
    const [who] = await sendAndWait(salon.agentId, messageEvent(payloadOf(answer!, 'Стрижка'), peer), 1, peer);
    expect(who!.message).toBe('«Стрижка»: к кому хотите записаться?');
    expect(labels(who!)).toEqual(['Анна', 'Борис', 'Главное меню']);
    const [times] = await sendAndWait(salon.agentId, messageEvent(payloadOf(who!, 'Борис'), peer), 1, peer);
    expect(times!.message).toBe('Свободное время — Стрижка, Борис:');
    expect(labels(times!)).toContain(formatSlotShort(at('10:00')));
    // Colouring: only Anna — her times at once.
    const [anna] = await sendAndWait(salon.agentId, messageEvent(payloadOf(answer!, 'Окрашивание'), peer), 1, peer);
    expect(anna!.message).toBe('Свободное время — Окрашивание, Анна:');
  });

  test('refused: more than ten choices, an unknown id, a time not free, a text too long for a payload; labels cut to VK’s 40 characters', async () => {
    const salon = await agent('service', { yclients: true });
    const peer = newPeer();
    const eleven = Array.from({ length: 11 }, (_, i) => ({ label: `Вариант ${i + 1}`, value: `Вариант ${i + 1}` }));
    const long = 'Очень длинная надпись на кнопке, которая не помещается в сорок знаков';
    host.sequence(salon.model, [
      { toolCalls: [{ name: 'offer_choices', arguments: { text: 'Выберите:', choices: eleven } }] },
      { toolCalls: [{ name: 'offer_choices', arguments: { text: 'Выберите:', choices: [{ label: 'Маникюр', value: { serviceId: 'manicure' } }] } }] },
      {
        toolCalls: [
          {
            name: 'offer_choices',
            arguments: { text: 'Выберите:', choices: [{ label: '03:00', value: { serviceId: 'haircut', specialistId: 'anna', datetime: at('03:00') } }] },
          },
        ],
      },
      { toolCalls: [{ name: 'offer_choices', arguments: { text: 'Выберите:', choices: [{ label: 'Да', value: 'x'.repeat(101) }] } }] },
      {
        toolCalls: [
          {
            name: 'offer_choices',
            arguments: {
              text: 'Выберите:',
              choices: [
                { label: long, value: 'Да' },
                { label: 'Нет', value: 'Нет' },
              ],
            },
          },
        ],
      },
    ]);
    const [answer] = await sendAndWait(salon.agentId, messageNew('Помогите выбрать', { peerId: peer }), 1, peer);
    const sent = host.requestsFor(salon.model);
    // Five calls: the sixth and last allowed (ASSISTANT_MAX_STEPS) would be offered no tools.
    expect(sent).toHaveLength(5);
    const errors = sent.slice(1).map((r) => lastResult(r.body)!.result);
    expect(errors.every((e) => e.ok === false)).toBe(true);
    expect(errors[0].error).toMatch(/больше 10/);
    expect(errors[1].error).toMatch(/услуги «manicure» нет/);
    expect(errors[2].error).toMatch(/не свободно/);
    expect(errors[3].error).toMatch(/слишком длинный/);
    // The last call went through: the long label is cut with «…» to VK's 40 characters.
    expect(answer!.message).toBe('Выберите:');
    const [first, second] = labels(answer!);
    expect(first).toHaveLength(40);
    expect(first!.endsWith('…')).toBe(true);
    expect(long.startsWith(first!.slice(0, 30))).toBe(true);
    expect(second).toBe('Нет');
  });

  test('old and forged buttons: another salon’s ids, a service gone from the settings, junk — a sensible answer, never an error or a booking', async () => {
    const salon = await agent('service', { yclients: true });
    const peer = newPeer();
    host.sequence(salon.model, [{ text: 'Здравствуйте!' }]);
    await sendAndWait(salon.agentId, messageNew('Привет', { peerId: peer }), 1, peer);

    // Ids this salon does not have: the choice starts again.
    const [forged] = await sendAndWait(salon.agentId, messageEvent({ action: 'choice_slot', s: '9999', v: 'other-salon', t: at('15:00') }, peer), 1, peer);
    expect(forged!.message).toBe('Этот вариант уже недоступен. Выберите, пожалуйста, заново — к кому хотите записаться?');
    expect(labels(forged!)).toEqual(['Анна', 'Борис', 'Главное меню']);

    // Junk in the fields: the same.
    const [junk] = await sendAndWait(salon.agentId, messageEvent({ action: 'choice_slot', s: 7, t: 'завтра' }, peer), 1, peer);
    expect(junk!.message).toMatch(/уже недоступен/);
    const [junkText] = await sendAndWait(salon.agentId, messageEvent({ action: 'choice_text', x: { not: 'text' } }, peer), 1, peer);
    expect(junkText!.message).toBeTruthy();
    const [junkService] = await sendAndWait(salon.agentId, messageEvent({ action: 'choice_service' }, peer), 1, peer);
    expect(junkService!.message).toMatch(/уже недоступен/);

    // A service the owner took out of the settings since the button was shown.
    const update = await call(app.url, 'PUT', `/api/v1/booking/${salon.agentId}/settings`, {
      token: salon.owner.token,
      body: {
        partnerToken: PARTNER,
        login: LOGIN,
        password: PASSWORD,
        companyId: COMPANY,
        specialistMapping: { anna: ANNA, boris: BORIS },
        serviceMapping: { haircut: HAIRCUT },
      },
    });
    expect(update.status).toBe(200);
    const [gone] = await sendAndWait(salon.agentId, messageEvent({ action: 'choice_slot', s: 'anna', v: 'coloring', t: at('15:00') }, peer), 1, peer);
    expect(gone!.message).toMatch(/уже недоступен/);
    const [goneService] = await sendAndWait(salon.agentId, messageEvent({ action: 'choice_service', v: 'coloring' }, peer), 1, peer);
    expect(goneService!.message).toMatch(/уже недоступен/);
    expect(yc.records).toHaveLength(0);

    // A time in the past: told it has passed, with the free times from today.
    const past = `${moscowDate(-1)}T15:00:00+03:00`;
    const [passed] = await sendAndWait(salon.agentId, messageEvent({ action: 'choice_slot', s: 'anna', v: 'haircut', t: past }, peer), 1, peer);
    expect(passed!.message).toBe('Это время уже прошло. Выберите, пожалуйста, другое:');
    expect(yc.records).toHaveLength(0);
  });

  test('a time button pressed in a shop (the agent’s type changed since): the booking is not there, the menu is', async () => {
    const shop = await agent('ecommerce');
    const peer = newPeer();
    const body = messageEvent({ action: 'choice_slot', s: 'anna', v: 'haircut', t: at('15:00') }, peer);
    const [answer] = await sendAndWait(shop.agentId, body, 1, peer);
    expect(answer!.message).toBeTruthy();
    expect(await processed(shop.agentId, body.event_id)).toBe('booking_unavailable');
  });
});

describe('offer_choices in a shop', () => {
  test('a product choice → into the cart, as the catalog’s «➕»; a product of another shop or out of stock is refused', async () => {
    const shop = await agent('ecommerce');
    const base = `/api/v1/commerce/${shop.agentId}`;
    const dress = await call(app.url, 'POST', `${base}/products`, { token: shop.owner.token, body: { title: 'Платье летнее', priceMinor: 499000, stock: 2 } });
    const gone = await call(app.url, 'POST', `${base}/products`, { token: shop.owner.token, body: { title: 'Шарф', priceMinor: 99000, stock: 0 } });
    const other = await agent('ecommerce');
    const foreign = await call(app.url, 'POST', `/api/v1/commerce/${other.agentId}/products`, {
      token: other.owner.token,
      body: { title: 'Рубашка', priceMinor: 299000 },
    });
    expect([dress.status, gone.status, foreign.status]).toEqual([201, 201, 201]);
    const peer = newPeer();
    host.sequence(shop.model, [
      { toolCalls: [{ name: 'offer_choices', arguments: { text: 'Вот:', choices: [{ label: 'Рубашка', value: { productId: foreign.body.id } }] } }] },
      { toolCalls: [{ name: 'offer_choices', arguments: { text: 'Вот:', choices: [{ label: 'Шарф', value: { productId: gone.body.id } }] } }] },
      { toolCalls: [{ name: 'offer_choices', arguments: { text: 'Вот:', choices: [{ label: 'Время', value: { serviceId: 'haircut' } }] } }] },
      {
        toolCalls: [
          {
            name: 'offer_choices',
            arguments: {
              text: 'Нашла платье:',
              choices: [
                { label: 'В корзину: Платье', value: { productId: dress.body.id } },
                { label: 'Другое', value: 'Покажите другое' },
              ],
            },
          },
        ],
      },
    ]);
    const [answer] = await sendAndWait(shop.agentId, messageNew('Есть летнее платье?', { peerId: peer }), 1, peer);
    const errors = host
      .requestsFor(shop.model)
      .slice(1)
      .map((r) => lastResult(r.body)!.result.error as string);
    expect(errors[0]).toMatch(/товара «.+» нет/);
    expect(errors[1]).toMatch(/нет в наличии/);
    expect(errors[2]).toMatch(/только у салона/);
    expect(answer!.message).toBe('Нашла платье:');
    expect(payloadOf(answer!, 'В корзину')).toEqual({ action: 'cart_add', id: dress.body.id });

    const [added] = await sendAndWait(shop.agentId, messageEvent(payloadOf(answer!, 'В корзину'), peer), 1, peer);
    expect(added!.message).toBe('Добавлено: Платье летнее. Товаров в корзине: 1.');
    expect(labels(added!)).toContain('Корзина');
    const cart = await app.sql<{ quantity: number }>(
      'select c.quantity from cart_items c join dialogues d on d.id = c.dialogue_id where d.agent_id = $1 and d.peer_id = $2',
      [shop.agentId, String(peer)],
    );
    expect(cart).toEqual([{ quantity: 1 }]);
    // The text choice typed instead of pressed is just the client's words for the model.
    host.sequence(shop.model, [{ text: 'Смотрите каталог.' }]);
    const [typed] = await sendAndWait(shop.agentId, messageNew('Покажите другое', { peerId: peer }), 1, peer);
    expect(typed!.message).toBe('Смотрите каталог.');
  });
});
