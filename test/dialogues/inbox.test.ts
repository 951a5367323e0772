// The owner's inbox over HTTP (issue 33): the transcript records what the client saw and did — the bot's
// keyboards under its messages, the client's taps by label, the notice sent when a person lets go — the
// agent's results list the bookings themselves, and one cheap count across the owner's agents feeds the
// main menu's badge (unread client messages, dialogues waiting for a person).
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { startFakeYclients, type FakeYclients } from '../fakes/yclients';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { buttonsOf, CLIENT, CODE, createSocialDriver, GROUP, payloadOf, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(30_000);

const COMPANY = 4571;
/** Two days ahead in the company's zone (Moscow), so the times offered are never in the past. */
const DAY = new Date(Date.now() + 3 * 3_600_000 + 2 * 86_400_000).toISOString().slice(0, 10);
const SHORT_DAY = `${Number(DAY.slice(8, 10))} ${['янв', 'фев', 'мар', 'апр', 'мая', 'июн', 'июл', 'авг', 'сен', 'окт', 'ноя', 'дек'][Number(DAY.slice(5, 7)) - 1]}`;

let vk: FakeVk;
let upstream: FakeUpstream;
let yc: FakeYclients;
let app: TestApp;

beforeAll(async () => {
  [vk, upstream, yc] = await Promise.all([startFakeVk(), startFakeUpstream(), startFakeYclients()]);
  app = await startTestApp({ env: { VK_API_BASE_URL: vk.url, UPSTREAM_BASE_URL: upstream.url, YCLIENTS_BASE_URL: yc.url, OUTBOX_POLL_INTERVAL_MS: '50' } });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([vk?.close(), upstream?.close(), yc?.close()]);
});
beforeEach(() => {
  vk.reset();
  vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
});

const { messageNew, messageEvent, sendAndWait } = createSocialDriver(
  () => app,
  () => vk,
);

async function connectedAgent(token: string, name = 'Салон «Лён»') {
  const created = await call(app.url, 'POST', '/api/agents', {
    token,
    body: { name, type: 'service', model: 'acme/chat', systemPrompt: 'Ты — администратор салона.' },
  });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const saved = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
    token,
    body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
  });
  expect(saved.status).toBe(200);
  return agentId;
}

type Turn = { id: number; author: string; text: string; buttons: string[][] | null; tap: boolean };

async function transcript(token: string, agentId: string): Promise<Turn[]> {
  const list = await call(app.url, 'GET', `/api/v1/agents/${agentId}/dialogues`, { token });
  expect(list.status).toBe(200);
  const dialogueId = list.body.dialogues[0].id as string;
  const res = await call(app.url, 'GET', `/api/v1/agents/${agentId}/dialogues/${dialogueId}/messages?limit=100`, { token });
  expect(res.status).toBe(200);
  return (res.body.messages as Turn[]).slice().reverse();
}

describe('the transcript shows what the client saw and did', () => {
  test('keyboards under the bot’s messages, taps by label, the release notice; the results list the booking by name', async () => {
    yc.reset();
    yc.addCompany({
      id: COMPANY,
      partnerToken: 'partner-token-inbox',
      login: 'anna@example.ru',
      password: 'S3cret-pa55word',
      staff: [
        { id: 901, name: 'Анна Иванова', specialization: 'Парикмахер' },
        { id: 902, name: 'Олег Петров', specialization: 'Барбер' },
      ],
      services: [{ id: 301, title: 'Стрижка', price_min: 1500, price_max: 2000, duration: 3600, staffIds: [901, 902] }],
      workingHours: [{ staffId: 901, date: DAY, start: '10:00', end: '12:00' }],
    });
    const owner = await registerUser(app.url);
    const agentId = await connectedAgent(owner.token);
    const saved = await call(app.url, 'PUT', `/api/v1/booking/${agentId}/settings`, {
      token: owner.token,
      body: {
        partnerToken: 'partner-token-inbox',
        login: 'anna@example.ru',
        password: 'S3cret-pa55word',
        companyId: COMPANY,
        specialistMapping: { '901': 901, '902': 902 },
        serviceMapping: { '301': 301 },
      },
    });
    expect(saved.status).toBe(200);

    const [menu] = await sendAndWait(agentId, messageNew('Меню'));
    const [who] = await sendAndWait(agentId, messageEvent(payloadOf(menu!, 'Записаться')));
    const [what] = await sendAndWait(agentId, messageEvent(payloadOf(who!, 'Анна Иванова')));
    const [when] = await sendAndWait(agentId, messageEvent(payloadOf(what!, 'Стрижка')));
    expect(when!.message).toBe('Свободное время — Стрижка, Анна Иванова:');
    // A text button (clients without callback buttons): the press arrives as message_new with its label.
    const slot = buttonsOf(when!).find((b) => b.action.label === `${SHORT_DAY} 11:00`)!;
    await sendAndWait(agentId, messageNew(slot.action.label, { payload: JSON.parse(slot.action.payload) }));
    await sendAndWait(agentId, messageNew('Ольга'));
    await sendAndWait(agentId, messageNew('+7 916 123-45-67'));
    // The summary's «Подтвердить», typed: the booking is made once the client confirms it.
    const [done] = await sendAndWait(agentId, messageNew('Подтвердить'));
    expect(done!.message).toContain('Вы записаны');

    const turns = await transcript(owner.token, agentId);
    const shown = turns.map((t) => ({ author: t.author, text: t.text, tap: t.tap }));
    expect(shown.slice(0, 10)).toEqual([
      { author: 'client', text: 'Меню', tap: false },
      { author: 'assistant', text: 'Выберите, что вас интересует:', tap: false },
      { author: 'client', text: 'Записаться', tap: true },
      { author: 'assistant', text: 'К кому хотите записаться?', tap: false },
      { author: 'client', text: 'Анна Иванова', tap: true },
      { author: 'assistant', text: 'Какая услуга нужна? Специалист: Анна Иванова.', tap: false },
      { author: 'client', text: 'Стрижка', tap: true },
      { author: 'assistant', text: 'Свободное время — Стрижка, Анна Иванова:', tap: false },
      { author: 'client', text: `${SHORT_DAY} 11:00`, tap: true },
      { author: 'assistant', text: 'Как вас записать? Напишите, пожалуйста, имя.', tap: false },
    ]);
    expect(turns[1]!.buttons).toEqual([['Записаться', 'Специалисты'], ['Мои записи'], ['Главное меню', 'Помощь']]);
    expect(turns[3]!.buttons!.flat()).toContain('Анна Иванова');
    expect(turns[7]!.buttons!.flat()).toEqual(expect.arrayContaining([`${SHORT_DAY} 10:00`, `${SHORT_DAY} 11:00`]));
    // What the client wrote is not a tap, and a message without a keyboard has no buttons.
    expect(turns.find((t) => t.text === 'Ольга')).toMatchObject({ tap: false, buttons: null });

    // Results: the booking itself, with the names YCLIENTS gave.
    const results = await call(app.url, 'GET', `/api/v1/agents/${agentId}/results`, { token: owner.token });
    expect(results.status).toBe(200);
    expect(results.body.bookings).toBe(1);
    expect(results.body.recentBookings).toEqual([
      expect.objectContaining({
        clientName: 'Ольга',
        clientPhone: '79161234567',
        specialist: 'Анна Иванова',
        service: 'Стрижка',
        source: 'button',
        datetime: expect.stringContaining(`${DAY}T11:00`),
      }),
    ]);
    expect(results.body.recentOrders).toEqual([]);
    // Another owner learns nothing of this agent's results.
    const stranger = await registerUser(app.url);
    expect((await call(app.url, 'GET', `/api/v1/agents/${agentId}/results`, { token: stranger.token })).status).toBe(403);
  });

  test('the results list the orders themselves: number, items, total, phone, status, who placed them', async () => {
    const owner = await registerUser(app.url);
    const agentId = await connectedAgent(owner.token);
    // Orders come from the shop's own flows (tested there); here they are rows to list.
    await app.sql(
      `insert into orders (agent_id, number, status, items, total_minor, currency, client_phone, payment_link, source, created_at)
       values ($1, 'ORD-1', 'paid', '[{"productId":"p1","title":"Платье","priceMinor":350000,"quantity":1}]', 350000, 'RUB', '79161234567', 'https://pay/1', 'buttons', now() - interval '2 hour'),
              ($1, 'ORD-2', 'pending', '[{"productId":"p2","title":"Шарф","priceMinor":99000,"quantity":2}]', 198000, 'RUB', null, 'https://pay/2', 'model', now() - interval '1 hour')`,
      [agentId],
    );
    const results = await call(app.url, 'GET', `/api/v1/agents/${agentId}/results`, { token: owner.token });
    expect(results.status).toBe(200);
    expect(results.body.recentOrders.map((o: Record<string, unknown>) => ({ ...o, id: undefined, createdAt: undefined }))).toEqual([
      { number: 'ORD-2', status: 'pending', items: [{ title: 'Шарф', quantity: 2 }], total: '1980.00', currency: 'RUB', clientPhone: null, source: 'model' },
      {
        number: 'ORD-1',
        status: 'paid',
        items: [{ title: 'Платье', quantity: 1 }],
        total: '3500.00',
        currency: 'RUB',
        clientPhone: '79161234567',
        source: 'buttons',
      },
    ]);
    expect(results.body.recentBookings).toEqual([]);
  });

  test('the notice sent when the owner releases the dialogue is in the transcript', async () => {
    const owner = await registerUser(app.url);
    const agentId = await connectedAgent(owner.token);
    await sendAndWait(agentId, messageNew('Привет'));
    const list = await call(app.url, 'GET', `/api/v1/agents/${agentId}/dialogues`, { token: owner.token });
    const dialogueId = list.body.dialogues[0].id as string;
    expect((await call(app.url, 'POST', `/api/v1/agents/${agentId}/dialogues/${dialogueId}/takeover`, { token: owner.token })).status).toBe(200);
    const before = vk.sentMessages.length;
    expect((await call(app.url, 'POST', `/api/v1/agents/${agentId}/dialogues/${dialogueId}/release`, { token: owner.token })).status).toBe(200);
    const turns = await transcript(owner.token, agentId);
    expect(turns.at(-1)).toMatchObject({ author: 'assistant', text: 'Сотрудник завершил разговор. Если появятся вопросы — пишите, я на связи.' });
    // The same text went to the client.
    for (let i = 0; i < 100 && vk.sentMessages.length === before; i++) await Bun.sleep(50);
    expect(vk.sentMessages.slice(before).map((m) => m.message)).toEqual([turns.at(-1)!.text]);
  });

  test('a press on a keyboard no longer known is still recorded as a tap', async () => {
    const owner = await registerUser(app.url);
    const agentId = await connectedAgent(owner.token);
    await sendAndWait(agentId, messageEvent({ action: 'pick_slot', id: 'gone' }));
    const turns = await transcript(owner.token, agentId);
    expect(turns[0]).toMatchObject({ author: 'client', text: '[нажата кнопка]', tap: true });
  });
});

describe('the main menu’s count of what waits for the owner', () => {
  test('unread client messages and dialogues waiting for a person, per agent and in total, only the owner’s own', async () => {
    const owner = await registerUser(app.url);
    const empty = await call(app.url, 'GET', '/api/v1/dialogues/counts', { token: owner.token });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ unread: 0, escalated: 0, agents: [] });

    const first = await connectedAgent(owner.token, 'Салон «Лён»');
    const second = await connectedAgent(owner.token, 'Барбершоп');
    await sendAndWait(first, messageNew('Привет'));
    await sendAndWait(first, messageNew('Сколько стоит стрижка?'));
    // A second client of the second agent asks for a person and gives a phone: handed over, held by nobody.
    const peer = CLIENT + 1;
    await sendAndWait(second, messageNew('оператор', { peerId: peer }), 1, peer);
    await sendAndWait(second, messageNew('+7 916 123-45-67', { peerId: peer }), 1, peer);

    const counts = await call(app.url, 'GET', '/api/v1/dialogues/counts', { token: owner.token });
    expect(counts.status).toBe(200);
    expect(counts.body).toEqual({
      unread: 4,
      escalated: 1,
      agents: [
        { agentId: first, name: 'Салон «Лён»', unread: 2, escalated: 0 },
        { agentId: second, name: 'Барбершоп', unread: 2, escalated: 1 },
      ],
    });

    // Read: the unread count drops; taken over: it no longer waits.
    const [dialogue] = (await call(app.url, 'GET', `/api/v1/agents/${second}/dialogues`, { token: owner.token })).body.dialogues;
    await call(app.url, 'POST', `/api/v1/agents/${second}/dialogues/${dialogue.id}/read`, { token: owner.token });
    await call(app.url, 'POST', `/api/v1/agents/${second}/dialogues/${dialogue.id}/takeover`, { token: owner.token });
    const after = await call(app.url, 'GET', '/api/v1/dialogues/counts', { token: owner.token });
    expect(after.body).toMatchObject({ unread: 2, escalated: 0 });

    const stranger = await registerUser(app.url);
    expect((await call(app.url, 'GET', '/api/v1/dialogues/counts', { token: stranger.token })).body).toEqual({ unread: 0, escalated: 0, agents: [] });
    const anonymous = await call(app.url, 'GET', '/api/v1/dialogues/counts');
    expect(anonymous.status).toBe(401);
  });
});
