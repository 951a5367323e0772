// The button flows meet ordinary turns (issue 39 rows 1 and 2, point 1): a question in the middle of a
// booking is answered by the model and the booking resumes, never booked as a name; «передумала» ends the
// flow; a booking and an order are made only after the client confirms a summary; the hand-over's phone
// request can be skipped, refused or cancelled. VK webhook in, a scripted model, a fake YCLIENTS with a real
// schedule, a fake Telegram for hand-overs; what the client receives is read at the fake VK, in order.
import { describe, expect, test, setDefaultTimeout } from 'bun:test';
import { lastUserText, type ScriptedModelHost } from '../fakes/scripted-model';
import type { FakeTelegram } from '../fakes/telegram';
import type { FakeSentMessage, FakeVk } from '../fakes/vk';
import type { FakeYclients } from '../fakes/yclients';
import { call, registerUser, type TestApp } from '../helpers/app';
import { BOT_TOKEN, OPERATOR, waitFor } from '../helpers/messenger';
import { buttonsOf, CODE, createSocialDriver, GROUP, payloadOf, SECRET, TOKEN } from '../helpers/social';
import { moscowDate, useSalonApp } from '../helpers/salon';

setDefaultTimeout(30_000);

const COMPANY = 4564;
const PARTNER = 'partner-token-5f2a9c';
const LOGIN = 'irina@example.ru';
const PASSWORD = 'S3cret-pa55word';
const ANNA = 1601;
const HAIRCUT = 90211;
const TEMPLATE = 'https://pay.example.ru/checkout?order={orderNumber}&sum={amount}';
const PRICE_ANSWER = 'Стрижка стоит от 1 500 до 2 000 ₽.';

const TOMORROW = moscowDate(1);

let host: ScriptedModelHost;
let vk: FakeVk;
let telegram: FakeTelegram;
let yc: FakeYclients;
let app: TestApp;

useSalonApp({
  env: {
    // Answers to the model wait for a burst to end, as in production: row 10's late answer needs it.
    ASSISTANT_DEBOUNCE_MS: '600',
  },
  company: {
    id: COMPANY,
    partnerToken: PARTNER,
    login: LOGIN,
    password: PASSWORD,
    staff: [{ id: ANNA, name: 'Анна', specialization: 'Парикмахер' }],
    services: [{ id: HAIRCUT, title: 'Стрижка', price_min: 1500, price_max: 2000, duration: 3600, staffIds: [ANNA] }],
    workingHours: [{ staffId: ANNA, date: TOMORROW, start: '11:00', end: '14:00' }],
  },
  ready: (s) => ({ app, host, vk, telegram, yc } = s),
});

const { messageNew, messageEvent, sendAndWait, post, processed } = createSocialDriver(
  () => app,
  () => vk,
);

let modelCounter = 0;

/** An agent whose model answers a price question with a price and anything else with «Echo: …». */
async function agentOf(type: 'service' | 'ecommerce' | 'creator', options: { yclients?: boolean; bot?: boolean } = {}) {
  const model = `flows/m${++modelCounter}`;
  host.script(model, (body) => (lastUserText(body).includes('стоит') ? { text: PRICE_ANSWER } : { text: `Echo: ${lastUserText(body)}` }));
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
      body: { partnerToken: PARTNER, login: LOGIN, password: PASSWORD, companyId: COMPANY, specialistMapping: { anna: ANNA }, serviceMapping: { haircut: HAIRCUT } },
    });
    expect(booking.status).toBe(200);
  }
  if (options.bot) {
    const messenger = await call(app.url, 'PUT', `/api/v1/messenger/${agentId}/settings`, { token: owner.token, body: { botToken: BOT_TOKEN, userId: OPERATOR.id } });
    expect(messenger.status).toBe(200);
  }
  return { owner, agentId, model, sent: () => host.requestsFor(model) };
}

const labels = (m: FakeSentMessage) => buttonsOf(m).map((b) => b.action.label);
const flowOf = async (agentId: string) =>
  (
    await app.sql<{ flow: { step: string } | null; mode: string; client_phone: string | null }>(
      'select flow, mode, client_phone from dialogues where agent_id = $1',
      [agentId],
    )
  )[0]!;

/** «Записаться» → the one specialist's service → the first free time: the flow now asks for a name. */
async function upToName(agentId: string): Promise<FakeSentMessage> {
  const [what] = await sendAndWait(agentId, messageEvent({ action: 'book' }));
  const [when] = await sendAndWait(agentId, messageEvent(payloadOf(what!, 'Стрижка')));
  const [askName] = await sendAndWait(agentId, messageEvent(JSON.parse(buttonsOf(when!)[0]!.action.payload)));
  expect(askName!.message).toContain('имя');
  expect(labels(askName!)).toEqual(['Отмена']);
  return askName!;
}

describe('the booking flow understands ordinary turns (row 1)', () => {
  test('a price question at the name step is answered by the model and the name asked again; the booking is made only after «Подтвердить»', async () => {
    const agent = await agentOf('service', { yclients: true });
    await upToName(agent.agentId);

    // The question is not a name: the model answers it, knowing the client is mid-booking, then the step resumes.
    const [answer, again] = await sendAndWait(agent.agentId, messageNew('А сколько стоит стрижка?'), 2);
    expect(answer!.message).toBe(PRICE_ANSWER);
    expect(again!.message).toContain('Как вас записать?');
    expect(labels(again!)).toEqual(['Отмена']);
    const system = agent.sent()[0]!.body.messages[0]!.content as string;
    expect(system).toContain('ждём имя клиента');
    expect(yc.records).toHaveLength(0);

    // Not a name either: a sentence goes to the model too; digits are asked again without the model.
    const [digits] = await sendAndWait(agent.agentId, messageNew('12345'));
    expect(digits!.message).toContain('только имя');
    expect(agent.sent()).toHaveLength(1);

    const [askPhone] = await sendAndWait(agent.agentId, messageNew('Меня зовут Анна'));
    expect(askPhone!.message).toContain('номер телефона');
    const [summary] = await sendAndWait(agent.agentId, messageNew('+7 916 123-45-67'));
    expect(summary!.message).toContain('Проверьте, пожалуйста, запись');
    expect(summary!.message).toContain('Стрижка, Анна');
    expect(summary!.message).toContain('11:00');
    expect(summary!.message).toContain('Имя: Анна');
    expect(summary!.message).toContain('Телефон: +7 916 123-45-67');
    expect(labels(summary!)).toEqual(['Подтвердить', 'Изменить', 'Отмена']);
    expect(yc.records).toHaveLength(0);

    const [done] = await sendAndWait(agent.agentId, messageEvent(payloadOf(summary!, 'Подтвердить')));
    expect(done!.message).toContain('Готово, Анна! Вы записаны: Стрижка, Анна');
    expect(yc.records).toHaveLength(1);
    expect(yc.records[0]!.client).toMatchObject({ name: 'Анна', phone: '79161234567' });
    expect((await flowOf(agent.agentId)).flow).toBeNull();

    // The summary's button pressed again books nothing twice.
    const [stale] = await sendAndWait(agent.agentId, messageEvent(payloadOf(summary!, 'Подтвердить')));
    expect(stale!.message).toContain('кнопка уже не действует');
    expect(yc.records).toHaveLength(1);
  });

  test('«передумала» at the phone step ends the booking with the menu; a question there is answered and the phone asked again', async () => {
    const agent = await agentOf('service', { yclients: true });
    await upToName(agent.agentId);
    await sendAndWait(agent.agentId, messageNew('Ольга'));

    const [answer, again] = await sendAndWait(agent.agentId, messageNew('а сколько стоит стрижка у Анны'), 2);
    expect(answer!.message).toBe(PRICE_ANSWER);
    expect(again!.message).toContain('номер телефона');
    expect(agent.sent()[0]!.body.messages[0]!.content as string).toContain('ждём номер телефона');

    const [refused] = await sendAndWait(agent.agentId, messageNew('не хочу давать номер'));
    expect(refused!.message).toContain('Без телефона салон не может записать');

    const [canceled] = await sendAndWait(agent.agentId, messageNew('Я передумала'));
    expect(canceled!.message).toContain('запись не оформляю');
    expect(labels(canceled!)).toContain('Записаться');
    expect((await flowOf(agent.agentId)).flow).toBeNull();
    expect(yc.records).toHaveLength(0);
    expect(agent.sent()).toHaveLength(1);
  });

  test('«Изменить» under the summary starts the choice again; «да» typed under a summary confirms it; «Отмена» pressed ends the flow', async () => {
    const agent = await agentOf('service', { yclients: true });
    await app.sql(`insert into dialogues (agent_id, channel, peer_id, client_phone) values ($1, 'social', $2, '79161234567')`, [agent.agentId, String(40911233)]);
    await upToName(agent.agentId);
    const [summary] = await sendAndWait(agent.agentId, messageNew('Анна-Мария'));
    expect(summary!.message).toContain('Имя: Анна-Мария');
    const [restart] = await sendAndWait(agent.agentId, messageEvent(payloadOf(summary!, 'Изменить')));
    expect(labels(restart!)).toContain('Стрижка');
    expect(yc.records).toHaveLength(0);

    const askName = await upToName(agent.agentId);
    const [summary2] = await sendAndWait(agent.agentId, messageNew('Анна'));
    expect(summary2!.message).toContain('Проверьте');
    const [done] = await sendAndWait(agent.agentId, messageNew('Да, всё верно'));
    expect(done!.message).toContain('Вы записаны');
    expect(yc.records).toHaveLength(1);

    await upToName(agent.agentId);
    const [canceled] = await sendAndWait(agent.agentId, messageEvent(payloadOf(askName, 'Отмена')));
    expect(canceled!.message).toContain('запись не оформляю');
    expect(yc.records).toHaveLength(1);
  });
});

describe('check-out shows the order before placing it (point 1)', () => {
  async function shopWithCart() {
    const agent = await agentOf('ecommerce');
    const base = `/api/v1/commerce/${agent.agentId}`;
    expect((await call(app.url, 'PUT', `${base}/settings`, { token: agent.owner.token, body: { paymentLinkTemplate: TEMPLATE } })).status).toBe(200);
    const product = await call(app.url, 'POST', `${base}/products`, { token: agent.owner.token, body: { title: 'Плед', priceMinor: 250000 } });
    expect(product.status).toBe(201);
    await sendAndWait(agent.agentId, messageEvent({ action: 'cart_add', id: product.body.id }));
    const orders = async () => (await call(app.url, 'GET', `${base}/orders`, { token: agent.owner.token })).body.orders as { number: string; clientPhone: string }[];
    return { ...agent, orders };
  }

  test('phone → a question answered, the phone asked again → summary → «Подтвердить» → the order with its link', async () => {
    const s = await shopWithCart();
    const [askPhone] = await sendAndWait(s.agentId, messageNew('Оформить заказ'));
    expect(askPhone!.message).toContain('номер телефона');
    const [answer, again] = await sendAndWait(s.agentId, messageNew('А доставка сколько стоит?'), 2);
    expect(answer!.message).toBe(PRICE_ANSWER);
    expect(again!.message).toContain('номер телефона');
    const [summary] = await sendAndWait(s.agentId, messageNew('8 916 123 45 67'));
    expect(summary!.message).toContain('Проверьте, пожалуйста, заказ');
    expect(summary!.message).toContain('Плед × 1');
    expect(summary!.message).toContain('Телефон: +7 916 123-45-67');
    expect(labels(summary!)).toEqual(['Подтвердить', 'Изменить', 'Отмена']);
    expect(await s.orders()).toHaveLength(0);
    const [order] = await sendAndWait(s.agentId, messageEvent(payloadOf(summary!, 'Подтвердить')));
    const placed = await s.orders();
    expect(placed).toHaveLength(1);
    expect(order!.message).toContain(`Заказ ${placed[0]!.number} оформлен`);
    expect(order!.message).toContain('https://pay.example.ru/checkout?order=');
  });

  test('«отмена» at the phone step keeps the cart and orders nothing; «Изменить» under the summary shows the cart', async () => {
    const s = await shopWithCart();
    await sendAndWait(s.agentId, messageEvent({ action: 'checkout' }));
    const [canceled] = await sendAndWait(s.agentId, messageNew('отмена'));
    expect(canceled!.message).toContain('заказ не оформляю');
    expect(await s.orders()).toHaveLength(0);
    await sendAndWait(s.agentId, messageEvent({ action: 'checkout' }));
    const [summary] = await sendAndWait(s.agentId, messageNew('+7 916 123-45-67'));
    const [cart] = await sendAndWait(s.agentId, messageEvent(payloadOf(summary!, 'Изменить')));
    expect(cart!.message).toContain('Ваша корзина');
    expect(await s.orders()).toHaveLength(0);
  });
});

describe('the hand-over’s phone request is not a trap (row 2)', () => {
  test('«оператор» → the request with «Пропустить»; «Не хочу давать номер, ответьте тут» hands over without a phone', async () => {
    const agent = await agentOf('creator', { bot: true });
    const [ask] = await sendAndWait(agent.agentId, messageNew('оператор'));
    expect(ask!.message).toContain('номер телефона');
    expect(labels(ask!)).toEqual(['Пропустить', 'Отмена']);
    const [handed] = await sendAndWait(agent.agentId, messageNew('Не хочу давать номер, ответьте тут'));
    expect(handed!.message).toContain('передал ваш вопрос сотруднику');
    const notice = await waitFor(() => telegram.sent.find((m) => m.chatId === OPERATOR.id), 5000, 'the escalation notice');
    expect(notice.text).toContain('попросил связать его с человеком');
    expect(await flowOf(agent.agentId)).toMatchObject({ flow: null, mode: 'operator', client_phone: null });
    expect(agent.sent()).toHaveLength(0);
  });

  test('«Отмена» keeps the client with the bot, which answers the next message', async () => {
    const agent = await agentOf('creator', { bot: true });
    await sendAndWait(agent.agentId, messageNew('Позовите оператора'));
    const [back] = await sendAndWait(agent.agentId, messageNew('Отмена'));
    expect(back!.message).toContain('я продолжу отвечать сам');
    expect(await flowOf(agent.agentId)).toMatchObject({ flow: null, mode: 'assistant' });
    const [answer] = await sendAndWait(agent.agentId, messageNew('Вы работаете в воскресенье'));
    expect(answer!.message).toBe('Echo: Вы работаете в воскресенье');
    expect(telegram.sent.filter((m) => m.chatId === OPERATOR.id)).toHaveLength(0);
  });

  test('«где мой заказ?» is answered and the request made again; «Пропустить» pressed then hands over', async () => {
    const agent = await agentOf('creator', { bot: true });
    const [ask] = await sendAndWait(agent.agentId, messageNew('оператор'));
    const [answer, again] = await sendAndWait(agent.agentId, messageNew('где мой заказ?'), 2);
    expect(answer!.message).toBe('Echo: где мой заказ?');
    expect(again!.message).toContain('Пропустить');
    expect(labels(again!)).toEqual(['Пропустить', 'Отмена']);
    const [handed] = await sendAndWait(agent.agentId, messageEvent(payloadOf(ask!, 'Пропустить')));
    expect(handed!.message).toContain('передал ваш вопрос сотруднику');
    expect(await flowOf(agent.agentId)).toMatchObject({ flow: null, mode: 'operator' });
  });

  test('a phone typed still hands over with it', async () => {
    const agent = await agentOf('creator', { bot: true });
    await sendAndWait(agent.agentId, messageNew('оператор'));
    const event = messageNew('8 (916) 123-45-67');
    await post(agent.agentId, event);
    expect(await processed(agent.agentId, event.event_id as string)).toBe('escalated');
    expect(await flowOf(agent.agentId)).toMatchObject({ mode: 'operator', client_phone: '79161234567' });
  });
});

describe('a late model answer leaves the button reply’s keyboard in force (row 10)', () => {
  test('«А пледы есть?» (answered after the debounce), «Каталог» pressed meanwhile, then «➕ Плед» typed: the plaid goes to the cart, not to the model', async () => {
    const agent = await agentOf('ecommerce');
    const base = `/api/v1/commerce/${agent.agentId}`;
    const product = await call(app.url, 'POST', `${base}/products`, { token: agent.owner.token, body: { title: 'Плед', priceMinor: 250000 } });
    expect(product.status).toBe(201);
    const before = vk.sentMessages.length;
    // The question waits ASSISTANT_DEBOUNCE_MS for more messages of a burst; the press is answered at once.
    const asked = messageNew('А пледы есть?');
    expect((await post(agent.agentId, asked)).status).toBe(200);
    expect(await processed(agent.agentId, asked.event_id as string)).toBe('answer_deferred');
    const [catalog] = await sendAndWait(agent.agentId, messageEvent({ action: 'catalog' }));
    expect(labels(catalog!)).toContain('➕ Плед');
    await waitFor(() => vk.sentMessages.length >= before + 2, 5000, 'the late answer');
    expect(vk.sentMessages.at(-1)!.message).toStartWith('Echo:');
    const calls = agent.sent().length;

    const [added] = await sendAndWait(agent.agentId, messageNew('➕ Плед'));
    expect(added!.message).toContain('Добавлено: Плед');
    expect(agent.sent()).toHaveLength(calls);
  });
});
