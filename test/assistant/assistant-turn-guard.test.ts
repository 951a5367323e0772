// The model's turn as a salon's and a shop's clients meet it when something ordinary happens around it
// (issue 39 rows 3, 4, 5, 9, 11, 12, 13, 14b; issue 38 row 6): the owner steps in while the model thinks,
// a booking or an order made by a tool, a model that loops, fails or sends odd calls, a returning client.
// VK webhook in, a scripted model host (which can be held "thinking" until the test lets it answer), fake
// YCLIENTS and Telegram; what the client receives is read at the fake VK, in order.
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { toolResults, type Script, type ScriptedModelHost, type ScriptedRequest } from '../fakes/scripted-model';
import type { FakeTelegram } from '../fakes/telegram';
import type { FakeVk } from '../fakes/vk';
import type { FakeYclients } from '../fakes/yclients';
import { call, registerUser, type TestApp } from '../helpers/app';
import { BOT_TOKEN, OPERATOR, waitFor } from '../helpers/messenger';
import { buttonsOf, CLIENT, CODE, createSocialDriver, GROUP, SECRET, TOKEN } from '../helpers/social';
import { moscowDate, useSalonApp } from '../helpers/salon';

setDefaultTimeout(30_000);

const MAX_STEPS = 4;
const MAX_TOOL_CALLS = 3;
const COMPANY = 4571;
const PARTNER = 'partner-token-turn-7c1d';
const LOGIN = 'olga@example.ru';
const PASSWORD = 'S3cret-pa55word';
const ANNA = 1701;
const HAIRCUT = 90311;
const TEMPLATE = 'https://pay.example.ru/checkout?order={orderNumber}&sum={amount}';

const TOMORROW = moscowDate(1);
const at = (time: string) => `${TOMORROW}T${time}:00+03:00`;
const [, TOMORROW_MONTH = '1', TOMORROW_DAY = '1'] = TOMORROW.split('-');
const MONTHS = ['января', 'февраля', 'марта', 'апреля', 'мая', 'июня', 'июля', 'августа', 'сентября', 'октября', 'ноября', 'декабря'];
/** How the client reads tomorrow's 15:00: «1 декабря, 15:00». */
const shown = (time: string) => `${Number(TOMORROW_DAY)} ${MONTHS[Number(TOMORROW_MONTH) - 1]}, ${time}`;

let host: ScriptedModelHost;
let vk: FakeVk;
let telegram: FakeTelegram;
let yc: FakeYclients;
let app: TestApp;

useSalonApp({
  env: {
    ASSISTANT_MAX_STEPS: String(MAX_STEPS),
    ASSISTANT_MAX_TOOL_CALLS: String(MAX_TOOL_CALLS),
    ASSISTANT_MAX_BOOKINGS_PER_CLIENT: '2',
    ASSISTANT_MAX_OPEN_ORDERS_PER_CLIENT: '1',
    ASSISTANT_DEBOUNCE_MS: '0',
  },
  company: {
    id: COMPANY,
    partnerToken: PARTNER,
    login: LOGIN,
    password: PASSWORD,
    staff: [{ id: ANNA, name: 'Анна', specialization: 'Парикмахер' }],
    services: [{ id: HAIRCUT, title: 'Стрижка', price_min: 1500, price_max: 2000, duration: 3600, staffIds: [ANNA] }],
    workingHours: [{ staffId: ANNA, date: TOMORROW, start: '10:00', end: '18:00' }],
  },
  ready: (s) => ({ app, host, vk, telegram, yc } = s),
});

const driver = createSocialDriver(
  () => app,
  () => vk,
);
const { messageNew, sendAndWait } = driver;

let modelCounter = 0;

/** A Service agent with YCLIENTS (and, with `bot`, a Telegram bot for hand-overs), or a shop. */
async function agentWith(type: 'service' | 'ecommerce', script: Script, options: { bot?: boolean } = {}) {
  const model = `turn/m${++modelCounter}`;
  host.script(model, script);
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
  let productId = '';
  if (type === 'service') {
    const booking = await call(app.url, 'PUT', `/api/v1/booking/${agentId}/settings`, {
      token: owner.token,
      body: { partnerToken: PARTNER, login: LOGIN, password: PASSWORD, companyId: COMPANY, specialistMapping: { anna: ANNA }, serviceMapping: { haircut: HAIRCUT } },
    });
    expect(booking.status).toBe(200);
  } else {
    const base = `/api/v1/commerce/${agentId}`;
    expect((await call(app.url, 'PUT', `${base}/settings`, { token: owner.token, body: { paymentLinkTemplate: TEMPLATE } })).status).toBe(200);
    const dress = await call(app.url, 'POST', `${base}/products`, { token: owner.token, body: { title: 'Платье летнее', priceMinor: 499000, stock: 20 } });
    expect(dress.status).toBe(201);
    productId = dress.body.id as string;
  }
  if (options.bot) {
    const messenger = await call(app.url, 'PUT', `/api/v1/messenger/${agentId}/settings`, { token: owner.token, body: { botToken: BOT_TOKEN, userId: OPERATOR.id } });
    expect(messenger.status).toBe(200);
  }
  return { owner, agentId, model, productId, sent: () => host.requestsFor(model) };
}

/** A promise the test resolves: the model "thinks" until then. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** Posts a client's message and waits until its handling is over; returns what it did. */
async function sendAndFinish(agentId: string, text: string, peerId = CLIENT): Promise<string | null> {
  const body = messageNew(text, { peerId }) as { event_id: string };
  const res = await driver.post(agentId, body);
  expect(res.status).toBe(200);
  return driver.processed(agentId, body.event_id);
}

async function dialogueOf(agentId: string, peerId = CLIENT): Promise<string> {
  const [row] = await waitFor(async () => {
    const rows = await app.sql<{ id: string }>('select id from dialogues where agent_id = $1 and peer_id = $2', [agentId, String(peerId)]);
    return rows.length > 0 ? rows : null;
  });
  return row!.id;
}

const toClient = (peerId = CLIENT) => vk.sentMessages.filter((m) => m.peerId === peerId).map((m) => m.message);
const lastResult = (body: ScriptedRequest['body']) => toolResults(body).at(-1);
const bookArgs = (time = '15:00') => ({ serviceId: 'haircut', specialistId: 'anna', datetime: at(time), clientName: 'Мария', clientPhone: '+7 916 111-22-33' });

describe('the owner’s word is final (row 3, point 2)', () => {
  test('the owner takes over and replies while the model thinks: the client gets the owner’s reply only; the bot’s answer is kept, marked unsent', async () => {
    const thinking = gate();
    const agent = await agentWith('service', async (_body, index) => {
      if (index > 0) return { text: 'второй вызов модели' };
      await thinking.opened;
      return { text: 'Анна свободна завтра в 15:00 — записать вас?' };
    });
    const handled = sendAndFinish(agent.agentId, 'Можно к Анне на завтра?');
    await waitFor(() => agent.sent().length === 1, 5000, 'the model to be asked');
    const dialogueId = await dialogueOf(agent.agentId);
    const base = `/api/v1/agents/${agent.agentId}/dialogues/${dialogueId}`;
    expect((await call(app.url, 'POST', `${base}/takeover`, { token: agent.owner.token })).status).toBe(200);
    const reply = await call(app.url, 'POST', `${base}/messages`, {
      token: agent.owner.token,
      body: { text: 'Здравствуйте! Это Ольга, сейчас подберу вам время.', clientMessageId: 'owner-reply-0001' },
    });
    expect(reply.status).toBe(201);
    await waitFor(() => toClient().length === 1, 5000, 'the owner’s reply in VK');
    thinking.open();

    expect(await handled).toBe('taken_over');
    expect(toClient()).toEqual(['Здравствуйте! Это Ольга, сейчас подберу вам время.']);
    expect(agent.sent()).toHaveLength(1);
    const transcript = await call(app.url, 'GET', `${base}/messages?limit=50`, { token: agent.owner.token });
    const turns = (transcript.body.messages as { author: string; text: string; unsent: boolean }[]).map((m) => ({
      author: m.author,
      text: m.text,
      unsent: m.unsent,
    }));
    expect(turns).toContainEqual({ author: 'assistant', text: 'Анна свободна завтра в 15:00 — записать вас?', unsent: true });
    expect(turns.filter((m) => m.author === 'operator')).toEqual([{ author: 'operator', text: 'Здравствуйте! Это Ольга, сейчас подберу вам время.', unsent: false }]);
    // The agent's results count what the client got: the owner's reply, not the bot's kept answer.
    const results = await call(app.url, 'GET', `/api/v1/agents/${agent.agentId}/results`, { token: agent.owner.token });
    expect(results.body.messages).toMatchObject({ total: 2, client: 1, assistant: 0, operator: 1 });
  });

  test('a booking the model asks for after the takeover is not made, and nothing is said', async () => {
    const thinking = gate();
    const agent = await agentWith('service', async (_body, index) => {
      if (index > 0) return { text: 'второй вызов модели' };
      await thinking.opened;
      return { text: 'Записываю вас.', toolCalls: [{ name: 'book_appointment', arguments: bookArgs() }] };
    });
    const handled = sendAndFinish(agent.agentId, 'Запишите меня к Анне на завтра в 15:00, Мария, +7 916 111-22-33');
    await waitFor(() => agent.sent().length === 1, 5000, 'the model to be asked');
    const dialogueId = await dialogueOf(agent.agentId);
    expect((await call(app.url, 'POST', `/api/v1/agents/${agent.agentId}/dialogues/${dialogueId}/takeover`, { token: agent.owner.token })).status).toBe(200);
    thinking.open();

    expect(await handled).toBe('taken_over');
    expect(yc.records).toHaveLength(0);
    expect(await app.sql('select 1 from appointments where agent_id = $1', [agent.agentId])).toHaveLength(0);
    expect(toClient()).toEqual([]);
    const rows = await app.sql<{ role: string; kind: string | null }>('select role, kind from dialogue_messages where dialogue_id = $1 order by id', [dialogueId]);
    expect(rows).toEqual([
      { role: 'user', kind: null },
      { role: 'assistant', kind: 'unsent' },
    ]);
  });
});

describe('what the system did, the system says (rows 4, 5, point 3)', () => {
  test('a booking on the second-to-last step: the system announces it, the last step offers no tools, and the model’s words follow — never «не смог разобраться»', async () => {
    const agent = await agentWith('service', (body, index) => {
      if (index === 0) return { toolCalls: [{ name: 'find_slots', arguments: { date: TOMORROW, serviceId: 'haircut', specialistId: 'anna' } }] };
      if (index === 1) return { toolCalls: [{ name: 'book_appointment', arguments: bookArgs() }] };
      // A model that wants to look once more whenever it may.
      if ((body.tools ?? []).length > 0) return { toolCalls: [{ name: 'list_my_appointments', arguments: {} }] };
      return { text: 'Ждём вас завтра!' };
    });
    expect(await sendAndFinish(agent.agentId, 'Запишите меня к Анне на завтра в 15:00, Мария, +7 916 111-22-33')).toBe('model_answer');
    await waitFor(() => toClient().length === 2, 5000, 'two messages');
    expect(toClient()).toEqual([`Готово, Мария! Вы записаны: Стрижка, Анна, ${shown('15:00')}.`, 'Ждём вас завтра!']);
    expect(yc.records).toHaveLength(1);
    const sent = agent.sent();
    expect(sent).toHaveLength(MAX_STEPS);
    expect(sent.map((r) => (r.body.tools ?? []).length > 0)).toEqual([true, true, true, false]);
    // The model is told the client already has the notice.
    expect(toolResults(sent[2]!.body).find((r) => r.name === 'book_appointment')!.result).toMatchObject({
      status: 'booked',
      note: expect.stringContaining('уже отправлено'),
    });
  });

  test('a model that still calls tools on the last step after booking: the client has the booking’s notice and no apology', async () => {
    const agent = await agentWith('service', (_body, index) =>
      index === 0 ? { toolCalls: [{ name: 'book_appointment', arguments: bookArgs('16:00') }] } : { toolCalls: [{ name: 'list_my_appointments', arguments: {} }] },
    );
    expect(await sendAndFinish(agent.agentId, 'Запишите на завтра 16:00, Мария, +7 916 111-22-33')).toBe('steps_exhausted_after_act');
    await waitFor(() => toClient().length >= 1, 5000, 'the notice');
    expect(toClient()).toEqual([`Готово, Мария! Вы записаны: Стрижка, Анна, ${shown('16:00')}.`]);
    expect(yc.records).toHaveLength(1);
  });

  test('cancelling by the model is announced with the service, the specialist and the time', async () => {
    const agent = await agentWith('service', (body, index) => {
      if (index === 0) return { toolCalls: [{ name: 'book_appointment', arguments: bookArgs('11:00') }] };
      if (index === 1) return { text: 'Записал.' };
      if (index === 2) return { toolCalls: [{ name: 'list_my_appointments', arguments: {} }] };
      if (index === 3) {
        const mine = lastResult(body)!.result as { appointments: { appointmentId: string }[] };
        return { toolCalls: [{ name: 'cancel_appointment', arguments: { appointmentId: mine.appointments[0]!.appointmentId } }] };
      }
      return { text: 'Будем рады видеть вас в другой раз.' };
    });
    await sendAndWait(agent.agentId, messageNew('Запишите на завтра 11:00, Мария, +7 916 111-22-33'), 2);
    const answers = await sendAndWait(agent.agentId, messageNew('Отмените, пожалуйста, мою запись'), 2);
    expect(answers.map((m) => m.message)).toEqual([`Запись отменена: Стрижка, Анна, ${shown('11:00')}.`, 'Будем рады видеть вас в другой раз.']);
    expect(yc.records.filter((r) => !r.deleted)).toHaveLength(0);
  });

  test('checkout by the model: the system sends the order number, the total and an «Оплатить» link button, whatever the model says', async () => {
    const agent = await agentWith('ecommerce', (_body, index) => {
      if (index === 0) return { toolCalls: [{ name: 'add_to_cart', arguments: { productId: agent.productId, quantity: 1 } }] };
      if (index === 1) return { toolCalls: [{ name: 'checkout', arguments: { clientPhone: '+7 916 123-45-67' } }] };
      return { text: 'Ваш заказ оформлен! Спасибо' };
    });
    const answers = await sendAndWait(agent.agentId, messageNew('Оформите платье, +7 916 123-45-67'), 2);
    const [order] = (await call(app.url, 'GET', `/api/v1/commerce/${agent.agentId}/orders`, { token: agent.owner.token })).body.orders as {
      number: string;
      paymentLink: string;
    }[];
    expect(order!.paymentLink).toContain(order!.number);
    expect(answers[0]!.message.replace(/[\u00a0\u202f]/g, ' ')).toBe(
      `Заказ ${order!.number} оформлен. Сумма: 4 990,00 ₽.\nОплатить: ${order!.paymentLink}\nПосле оплаты я пришлю подтверждение.`,
    );
    expect(buttonsOf(answers[0]!).map((b) => b.action)).toEqual([{ type: 'open_link', label: 'Оплатить', link: order!.paymentLink } as never]);
    expect(answers[1]!.message).toBe('Ваш заказ оформлен! Спасибо');
  });
});

describe('caps on what one model answer and one client may cause (issue 38 row 6)', () => {
  test(`five book_appointment calls in one answer: ${MAX_TOOL_CALLS} run (ASSISTANT_MAX_TOOL_CALLS), of those only 2 book (ASSISTANT_MAX_BOOKINGS_PER_CLIENT); the rest are error results`, async () => {
    const times = ['10:00', '11:00', '12:00', '13:00', '14:00'];
    const agent = await agentWith('service', (_body, index) =>
      index === 0 ? { toolCalls: times.map((time) => ({ name: 'book_appointment', arguments: bookArgs(time) })) } : { text: 'Записал на два времени.' },
    );
    const answers = await sendAndWait(agent.agentId, messageNew('Запишите меня на всё свободное завтра, Мария, +7 916 111-22-33'), 3);
    expect(answers.map((m) => m.message)).toEqual([
      `Готово, Мария! Вы записаны: Стрижка, Анна, ${shown('10:00')}.`,
      `Готово, Мария! Вы записаны: Стрижка, Анна, ${shown('11:00')}.`,
      'Записал на два времени.',
    ]);
    expect(yc.records).toHaveLength(2);
    const results = toolResults(agent.sent()[1]!.body).map((r) => r.result);
    expect(results).toHaveLength(5);
    expect(results.slice(0, 2).map((r) => r.status)).toEqual(['booked', 'booked']);
    expect(results[2]).toMatchObject({ status: 'limit', error: expect.stringContaining('2 предстоящих') });
    expect(results.slice(3).map((r) => r.error)).toEqual([
      expect.stringContaining(`не больше ${MAX_TOOL_CALLS}`),
      expect.stringContaining(`не больше ${MAX_TOOL_CALLS}`),
    ]);
  });

  test('a second unpaid order through the model is refused (ASSISTANT_MAX_OPEN_ORDERS_PER_CLIENT = 1)', async () => {
    const agent = await agentWith('ecommerce', (body) => {
      const last = lastResult(body);
      if (!last || last.name === '') return { toolCalls: [{ name: 'add_to_cart', arguments: { productId: agent.productId, quantity: 1 } }] };
      if (last.name === 'add_to_cart') return { toolCalls: [{ name: 'checkout', arguments: { clientPhone: '+7 916 123-45-67' } }] };
      return { text: last.result.ok ? 'Оформил.' : `Не вышло: ${last.result.error}` };
    });
    await sendAndWait(agent.agentId, messageNew('Оформите платье, +7 916 123-45-67'), 2);
    const [refused] = await sendAndWait(agent.agentId, messageNew('И ещё одно такое же, тоже оформите'));
    expect(refused!.message).toContain('неоплаченных заказа');
    const orders = (await call(app.url, 'GET', `/api/v1/commerce/${agent.agentId}/orders`, { token: agent.owner.token })).body.orders as unknown[];
    expect(orders).toHaveLength(1);
  });
});

describe('timing and robustness (rows 11, 12, 13, point 6)', () => {
  test('«печатает…» while the model and the tools work, and the model’s words beside its tool calls are sent before they run', async () => {
    const agent = await agentWith('service', (_body, index) =>
      index === 0 ? { text: 'Секунду, проверяю…', toolCalls: [{ name: 'list_services', arguments: {} }] } : { text: 'Стрижка стоит от 1500 до 2000 ₽.' },
    );
    const answers = await sendAndWait(agent.agentId, messageNew('Сколько стоит стрижка?'), 2);
    expect(answers.map((m) => m.message)).toEqual(['Секунду, проверяю…', 'Стрижка стоит от 1500 до 2000 ₽.']);
    const typing = vk.activities.filter((a) => a.peerId === CLIENT);
    // Before the first message (the model's first call) and again before the answer (the tool, the second call).
    expect(typing.some((a) => a.sentBefore === 0)).toBe(true);
    expect(typing.some((a) => a.sentBefore === 1)).toBe(true);
    expect(typing.every((a) => a.type === 'typing' && a.groupId === GROUP)).toBe(true);
    const call = vk.calls.find((c) => c.method === 'messages.setActivity')!;
    expect(call.params).toMatchObject({ peer_id: String(CLIENT), type: 'typing', group_id: String(GROUP) });
  });

  test('tool arguments sent as a JSON object (not a string) are taken as they are', async () => {
    const agent = await agentWith('service', (body, index) =>
      index === 0
        ? { toolCalls: [{ name: 'find_slots', arguments: { date: TOMORROW, serviceId: 'haircut', specialistId: 'anna' }, argumentsAsObject: true }] }
        : { text: `Свободно окон: ${(lastResult(body)!.result as { slots?: unknown[] }).slots?.length ?? 'ошибка'}` },
    );
    const [answer] = await sendAndWait(agent.agentId, messageNew('Когда можно к Анне завтра?'));
    const result = lastResult(agent.sent()[1]!.body)!.result as { slots: { datetime: string }[] };
    expect(result.slots.map((s) => s.datetime)).toContain(at('15:00'));
    expect(answer!.message).toBe(`Свободно окон: ${result.slots.length}`);
  });

  test('a tool call without a name is answered as an error result and the turn goes on', async () => {
    const agent = await agentWith('service', (body, index) =>
      index === 0 ? { toolCalls: [{ name: '', arguments: {} }] } : { text: `Ошибка: ${(lastResult(body)!.result as { error: string }).error}` },
    );
    const [answer] = await sendAndWait(agent.agentId, messageNew('Что у вас есть?'));
    expect(answer!.message).toContain('не указано имя инструмента');
    expect(answer!.message).toContain('list_services');
    expect(agent.sent()).toHaveLength(2);
  });

  test('shop and knowledge tools name the argument that is wrong', async () => {
    const agent = await agentWith('ecommerce', (body, index) => {
      if (index === 0) {
        return {
          toolCalls: [
            { name: 'add_to_cart', arguments: { productId: agent.productId, quantity: 'много' } },
            { name: 'search_knowledge', arguments: { query: 42 } },
            { name: 'order_status', arguments: {} },
          ],
        };
      }
      return {
        text: toolResults(body)
          .map((r) => (r.result as { error: string }).error)
          .join(' | '),
      };
    });
    const entry = await call(app.url, 'POST', `/api/v1/agents/${agent.agentId}/knowledge`, {
      token: agent.owner.token,
      body: { title: 'Доставка', content: 'Доставляем по Москве за 1–2 дня.' },
    });
    expect(entry.status).toBe(201);
    const [answer] = await sendAndWait(agent.agentId, messageNew('Положите платье в корзину'));
    const [add, knowledge, status] = answer!.message.split(' | ');
    expect(add).toContain('quantity');
    expect(knowledge).toContain('query');
    expect(status).toContain('orderNumber');
  });

  test('a model failing once is asked again and answers; failing twice in a row hands the client to a person when the owner has a Telegram bot', async () => {
    const once = await agentWith('service', (_body, index) => (index === 0 ? { status: 503, message: 'overloaded' } : { text: 'Работаем с 10 до 20.' }));
    const [answer] = await sendAndWait(once.agentId, messageNew('Когда вы работаете?'));
    expect(answer!.message).toBe('Работаем с 10 до 20.');

    const down = await agentWith('service', () => ({ status: 502, message: 'bad gateway' }), { bot: true });
    const peer = 40911501;
    const [handed] = await sendAndWait(down.agentId, messageNew('Когда вы работаете?', { peerId: peer }), 1, peer);
    expect(handed!.message).toBe('Извините, я не смог ответить прямо сейчас. Я передал ваш вопрос сотруднику — он ответит здесь же.');
    expect(down.sent()).toHaveLength(2);
    const [dialogue] = await app.sql<{ mode: string }>('select mode from dialogues where agent_id = $1 and peer_id = $2', [down.agentId, String(peer)]);
    expect(dialogue!.mode).toBe('operator');
    await waitFor(() => telegram.sent.some((m) => m.chatId === OPERATOR.id && m.text.includes('не ответила два раза подряд')), 5000, 'the operator’s notice');
  });

  test('a failed look-up of the company’s time zone is remembered: the next slot look-ups do not ask (and wait for) YCLIENTS again', async () => {
    const agent = await agentWith('service', (body) => {
      const last = lastResult(body);
      if (!last) return { toolCalls: [{ name: 'find_slots', arguments: { date: TOMORROW, serviceId: 'haircut', specialistId: 'anna' } }] };
      return { text: `Окон: ${(last.result as { slots: unknown[] }).slots.length}` };
    });
    const companyCalls = () => yc.calls.filter((c) => c.method === 'GET' && new RegExp(`^/company/${COMPANY}/?$`).test(c.path)).length;
    yc.failNext(new RegExp(`^/company/${COMPANY}/?$`), { status: 500, times: 20 });
    await sendAndWait(agent.agentId, messageNew('Когда можно к Анне завтра?'));
    const afterFirst = companyCalls();
    expect(afterFirst).toBeGreaterThan(0);
    await sendAndWait(agent.agentId, messageNew('А ещё раз посмотрите?'));
    expect(companyCalls()).toBe(afterFirst);
  });
});

describe('the model knows the client (row 14b, point 7)', () => {
  const systemOf = (request: ScriptedRequest) => String(request.body.messages[0]!.content);

  test('a returning client: the name, the phone and the upcoming visit of this dialogue are in the model’s context — and not in another client’s', async () => {
    const agent = await agentWith('service', (body) => {
      const last = lastResult(body);
      if (!last && body.messages.filter((m) => m.role === 'user').length === 1) return { toolCalls: [{ name: 'book_appointment', arguments: bookArgs('12:00') }] };
      return { text: 'Хорошо.' };
    });
    await sendAndWait(agent.agentId, messageNew('Запишите на завтра 12:00, Мария, +7 916 111-22-33'), 2);
    await sendAndWait(agent.agentId, messageNew('А можно ещё и маму записать?'));
    const returning = systemOf(agent.sent().at(-1)!);
    expect(returning).toContain('Имя: Мария.');
    expect(returning).toContain('Телефон: +7 916 111-22-33.');
    expect(returning).toContain(`Предстоящая запись: Стрижка, Анна, ${shown('12:00')}`);

    const other = 40911601;
    await sendAndWait(agent.agentId, messageNew('Здравствуйте, сколько стоит стрижка?', { peerId: other }), 1, other);
    const stranger = systemOf(agent.sent().at(-1)!);
    expect(stranger).not.toContain('Мария');
    expect(stranger).not.toContain('916');
    expect(stranger).not.toContain('Предстоящая запись');
  });

  test('a shop’s client with an unpaid order: its number, total and link are in the model’s context', async () => {
    const agent = await agentWith('ecommerce', (_body, index) => {
      if (index === 0) return { toolCalls: [{ name: 'add_to_cart', arguments: { productId: agent.productId, quantity: 1 } }] };
      if (index === 1) return { toolCalls: [{ name: 'checkout', arguments: { clientPhone: '+7 916 123-45-67' } }] };
      return { text: 'Спасибо!' };
    });
    await sendAndWait(agent.agentId, messageNew('Оформите платье, +7 916 123-45-67'), 2);
    await sendAndWait(agent.agentId, messageNew('А где мой заказ?'));
    const [order] = (await call(app.url, 'GET', `/api/v1/commerce/${agent.agentId}/orders`, { token: agent.owner.token })).body.orders as {
      number: string;
      paymentLink: string;
    }[];
    const context = systemOf(agent.sent().at(-1)!).replace(/[\u00a0\u202f]/g, ' ');
    expect(context).toContain('Телефон: +7 916 123-45-67.');
    expect(context).toContain(`Неоплаченный заказ ${order!.number} на 4 990,00 ₽, ссылка на оплату: ${order!.paymentLink}.`);
  });
});
