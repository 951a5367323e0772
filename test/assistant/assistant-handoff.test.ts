// Nobody is parked (issue 39 rows 6, 8, 14a and point 4; issue 38's per-client message limit): scripted
// conversations through the VK callback with the fake model, Telegram and SMTP, as the client and the
// owner see them.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { call, registerAdmin, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { setBalanceNano } from '../helpers/gateway';
import { BOT_TOKEN, freePort, messengerEnv, OPERATOR, operatorText, seedTelegram, waitFor } from '../helpers/messenger';
import { CLIENT, CODE, createSocialDriver, GROUP, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(30_000);

const ADMIN_EMAIL = 'handoff-admin@example.com';
const UNAVAILABLE = 'Извините, ассистент временно недоступен. Пожалуйста, напишите чуть позже.';
// The hand-over's phone request, which can be skipped («Пропустить») since the flows learnt ordinary turns.
const ASK_PHONE =
  'Передаю ваш вопрос сотруднику. Если удобно, напишите номер телефона, чтобы с вами могли связаться, — или нажмите «Пропустить», и сотрудник ответит здесь.';
const ESCALATED = 'Спасибо! Я передал ваш вопрос сотруднику, он скоро ответит здесь же.';
const WITH_OPERATOR = 'Ваш вопрос уже у сотрудника, он ответит здесь же.';
const TIMED_OUT = 'Извините, сотрудник пока не смог ответить. Я снова на связи: напишите, чем помочь, а если нужен человек — напишите «оператор».';
const TOO_MANY = 'Вы пишете быстрее, чем я успеваю читать. Подождите, пожалуйста, минуту и напишите главное одним сообщением.';

let vk: FakeVk;
let telegram: FakeTelegram;
let upstream: FakeUpstream;
let smtp: FakeSmtp;
let app: TestApp;

beforeAll(async () => {
  [vk, telegram, upstream, smtp] = await Promise.all([startFakeVk(), startFakeTelegram(), startFakeUpstream(), startFakeSmtp()]);
  app = await startTestApp({
    env: { ...messengerEnv(telegram, freePort()), VK_API_BASE_URL: vk.url, UPSTREAM_BASE_URL: upstream.url, SMTP_URL: smtp.url, ADMIN_EMAILS: ADMIN_EMAIL },
  });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([vk?.close(), telegram?.close(), upstream?.close(), smtp?.close()]);
});
beforeEach(() => {
  vk.reset();
  vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
  telegram.reset();
  seedTelegram(telegram);
  upstream.reset();
});

const driver = createSocialDriver(
  () => app,
  () => vk,
);
const { post, messageNew, sendAndWait, processed } = driver;

async function connectedAgent(target: TestApp, options: { messenger?: boolean; model?: string } = {}) {
  const owner = await registerUser(target.url);
  const created = await call(target.url, 'POST', '/api/agents', {
    token: owner.token,
    body: { name: 'Салон «Лён»', type: 'creator', model: options.model ?? 'acme/chat', systemPrompt: 'Ты — администратор салона.' },
  });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const saved = await call(target.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
    token: owner.token,
    body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
  });
  expect(saved.status).toBe(200);
  if (options.messenger) {
    const res = await call(target.url, 'PUT', `/api/v1/messenger/${agentId}/settings`, { token: owner.token, body: { botToken: BOT_TOKEN, userId: OPERATOR.id } });
    expect(res.status).toBe(200);
  }
  return { owner, agentId };
}

/** What one client was sent, in order. */
const toClient = (peerId = CLIENT) => vk.sentMessages.filter((m) => m.peerId === peerId).map((m) => m.message);

/** Working hours that make today (UTC) a day off: only tomorrow, 10:00–19:00 UTC. */
function tomorrowOnly() {
  const tomorrow = (new Date().getUTCDay() + 1) % 7 || 7;
  return { days: [tomorrow], from: '10:00', to: '19:00', timeZone: 'UTC' };
}

describe('out of balance (row 6)', () => {
  test('each writing client is told once that the assistant is unavailable, the owner alerted once; after a top-up the bot answers', async () => {
    const admin = await registerAdmin(app, ADMIN_EMAIL);
    const agent = await connectedAgent(app, { messenger: true });
    await setBalanceNano(app, agent.owner.userId, 0n);
    const clients = [CLIENT, CLIENT + 1, CLIENT + 2];
    for (const peerId of clients) {
      const [notice] = await sendAndWait(agent.agentId, messageNew('Есть ли время завтра?', { peerId }), 1, peerId);
      expect(notice!.message).toBe(UNAVAILABLE);
    }
    // The first client again: nothing more is said (one notice per client and spell), no person is called.
    const again = messageNew('Ну что там?');
    await post(agent.agentId, again);
    expect(await processed(agent.agentId, again.event_id as string)).toBe('out_of_balance');

    // One alert for the owner, in Telegram and by mail — not one per client; nobody is escalated.
    const alert = await waitFor(() => telegram.sent.find((m) => m.chatId === OPERATOR.id), 5000, 'the owner alert');
    expect(alert.text).toContain('Ассистент не отвечает клиентам');
    expect(alert.text).toContain('Салон «Лён»');
    const mail = await smtp.waitFor(agent.owner.email);
    expect(mail.subject).toBe('Ассистент «Салон «Лён»» не отвечает клиентам: закончились средства');
    expect(mail.text).toContain('/app/topups');
    expect(await app.sql("select id from notifications where agent_id = $1 and kind = 'balance'", [agent.agentId])).toHaveLength(1);
    expect(await app.sql("select id from outbox where kind = 'alerts.mail' and recipient = $1", [agent.owner.email])).toHaveLength(1);
    expect(await app.sql('select id from escalations where agent_id = $1', [agent.agentId])).toHaveLength(0);
    expect(telegram.sent.filter((m) => m.text.includes('Нужен оператор'))).toHaveLength(0);
    const modes = await app.sql<{ mode: string }>('select mode from dialogues where agent_id = $1', [agent.agentId]);
    expect(modes.map((d) => d.mode)).toEqual(['assistant', 'assistant', 'assistant']);
    // The agent page says why the assistant is silent.
    expect((await call(app.url, 'GET', `/api/agents/${agent.agentId}`, { token: agent.owner.token })).body.unavailableReason).toBe('out_of_balance');

    // Money returns: the dialogue is still the bot's, and it answers.
    const credit = await call(app.url, 'POST', `/api/admin/users/${agent.owner.userId}/credit`, {
      token: admin.token,
      body: { amount: 10, reason: 'пополнение', reference: `topup-${agent.agentId}` },
    });
    expect(credit.status).toBe(200);
    const [answer] = await sendAndWait(agent.agentId, messageNew('Теперь ответите?'));
    expect(answer!.message).toBe('Echo: Теперь ответите?');
    expect(toClient()).toEqual([UNAVAILABLE, 'Echo: Теперь ответите?']);
    expect((await call(app.url, 'GET', `/api/agents/${agent.agentId}`, { token: agent.owner.token })).body.unavailableReason).toBeNull();

    // Out of money again: a new spell — the client is told again and the owner alerted again.
    await setBalanceNano(app, agent.owner.userId, 0n);
    const [told] = await sendAndWait(agent.agentId, messageNew('А в субботу?'));
    expect(told!.message).toBe(UNAVAILABLE);
    await waitFor(
      async () => (await app.sql("select id from notifications where agent_id = $1 and kind = 'balance'", [agent.agentId])).length === 2,
      5000,
      'the second alert',
    );
  });
});

describe('a person without a Telegram bot (row 8)', () => {
  test('the owner is mailed (outside working hours: in the morning), the client told when a person answers, «Ну что там?» acknowledged once', async () => {
    const agent = await connectedAgent(app);
    const hours = tomorrowOnly();
    const set = await call(app.url, 'PATCH', `/api/agents/${agent.agentId}`, { token: agent.owner.token, body: { workingHours: hours } });
    expect(set.status).toBe(200);
    expect(set.body.workingHours).toEqual(hours);

    expect((await sendAndWait(agent.agentId, messageNew('Позовите оператора')))[0]!.message).toBe(ASK_PHONE);
    const [handed] = await sendAndWait(agent.agentId, messageNew('+7 916 123-45-67'));
    expect(handed!.message).toBe('Спасибо! Я передал ваш вопрос сотруднику. Сейчас нерабочее время — он ответит здесь же завтра с 10:00.');

    // Outside working hours the owner is not mailed at once: the next working day's morning mail lists the client.
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.messages.filter((m) => m.to.includes(agent.owner.email))).toHaveLength(0);
    const now = new Date();
    await app.instance.services.messenger.morning.sendDue(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 10, 1)));
    const mail = await smtp.waitFor(agent.owner.email);
    expect(mail.subject).toBe('Утром ответа ждут 1 клиент — «Салон «Лён»»');
    expect(mail.text).toContain('79161234567');
    expect(mail.text).toContain(`/app/agents/${agent.agentId}/dialogues`);

    const [ack] = await sendAndWait(agent.agentId, messageNew('Ну что там?'));
    expect(ack!.message).toBe('Ваш вопрос уже у сотрудника. Сейчас нерабочее время — он ответит здесь же завтра с 10:00.');
    const quiet = messageNew('Алло?');
    await post(agent.agentId, quiet);
    expect(await processed(agent.agentId, quiet.event_id as string)).toBe('with_operator');

    // The owner answers from the dashboard; the client's next message is the owner's to answer, not the bot's.
    const [dialogue] = await app.sql<{ id: string }>('select id from dialogues where agent_id = $1', [agent.agentId]);
    const base = `/api/v1/agents/${agent.agentId}/dialogues/${dialogue!.id}`;
    expect((await call(app.url, 'POST', `${base}/takeover`, { token: agent.owner.token })).status).toBe(200);
    expect(
      (
        await call(app.url, 'POST', `${base}/messages`, {
          token: agent.owner.token,
          body: { text: 'Здравствуйте! Чем помочь?', clientMessageId: crypto.randomUUID() },
        })
      ).status,
    ).toBe(201);
    await waitFor(() => toClient().includes('Здравствуйте! Чем помочь?'), 5000, 'the owner’s reply');
    const after = messageNew('Хочу перенести запись');
    await post(agent.agentId, after);
    expect(await processed(agent.agentId, after.event_id as string)).toBe('with_operator');
    await vk.idle();
    expect(toClient()).toEqual([
      ASK_PHONE,
      'Спасибо! Я передал ваш вопрос сотруднику. Сейчас нерабочее время — он ответит здесь же завтра с 10:00.',
      'Ваш вопрос уже у сотрудника. Сейчас нерабочее время — он ответит здесь же завтра с 10:00.',
      'Здравствуйте! Чем помочь?',
    ]);
    expect(upstream.requests).toHaveLength(0);
  });

  test('no working hours set: no time is promised («в рабочее время»)', async () => {
    const agent = await connectedAgent(app, { model: 'fake/escalate' });
    await app.sql(`insert into dialogues (agent_id, channel, peer_id, client_phone) values ($1, 'social', $2, '79990001122')`, [agent.agentId, String(CLIENT)]);
    const [handed] = await sendAndWait(agent.agentId, messageNew('Хочу вернуть деньги'));
    expect(handed!.message).toBe('Спасибо! Я передал ваш вопрос сотруднику. Он ответит здесь же в рабочее время.');
    const [ack] = await sendAndWait(agent.agentId, messageNew('Ну что там?'));
    expect(ack!.message).toBe('Ваш вопрос уже у сотрудника, он ответит здесь же в рабочее время.');
    expect((await smtp.waitFor(agent.owner.email)).text).toContain('79990001122');
  });
});

describe('writing during a hand-over (row 14a)', () => {
  test('one acknowledgement per hand-over while no person has spoken; none after the operator answered; a new hand-over, a new one', async () => {
    const agent = await connectedAgent(app, { messenger: true });
    await sendAndWait(agent.agentId, messageNew('Позовите оператора'));
    expect((await sendAndWait(agent.agentId, messageNew('89161234567')))[0]!.message).toBe(ESCALATED);
    const notice = await waitFor(() => telegram.sent.find((m) => m.chatId === OPERATOR.id && m.text.includes('Нужен оператор')), 5000, 'the escalation notice');

    expect((await sendAndWait(agent.agentId, messageNew('Ну что там?')))[0]!.message).toBe(WITH_OPERATOR);
    const second = messageNew('Ау?');
    await post(agent.agentId, second);
    expect(await processed(agent.agentId, second.event_id as string)).toBe('with_operator');

    await waitFor(async () => (await app.sql('select 1 from escalation_messages where agent_id = $1', [agent.agentId])).length > 0, 5000, 'the recorded notice');
    await telegram.deliverUpdate(BOT_TOKEN, operatorText('Здравствуйте, это Анна. Слушаю вас.', { reply_to_message: notice.message }));
    await waitFor(() => toClient().includes('Здравствуйте, это Анна. Слушаю вас.'), 5000, 'the relayed reply');
    const talking = messageNew('Хочу записаться на субботу');
    await post(agent.agentId, talking);
    expect(await processed(agent.agentId, talking.event_id as string)).toBe('with_operator');

    await telegram.deliverUpdate(BOT_TOKEN, operatorText('/release', { reply_to_message: notice.message }));
    await waitFor(() => toClient().at(-1)?.includes('завершил разговор'), 5000, 'the release message');
    // Handed over again (the phone is known now): acknowledged once more.
    expect((await sendAndWait(agent.agentId, messageNew('оператор')))[0]!.message).toBe(ESCALATED);
    expect((await sendAndWait(agent.agentId, messageNew('Вы тут?')))[0]!.message).toBe(WITH_OPERATOR);
    await vk.idle();
    expect(toClient()).toEqual([
      ASK_PHONE,
      ESCALATED,
      WITH_OPERATOR,
      'Здравствуйте, это Анна. Слушаю вас.',
      'Сотрудник завершил разговор. Если появятся вопросы — пишите, я на связи.',
      ESCALATED,
      WITH_OPERATOR,
    ]);
  });
});

describe('working hours', () => {
  test('set, read back and cleared; bad days, times, order and zones are 400 naming the field', async () => {
    const agent = await connectedAgent(app);
    const path = `/api/agents/${agent.agentId}`;
    for (const workingHours of [
      { days: [0], from: '10:00', to: '19:00' },
      { days: [], from: '10:00', to: '19:00' },
      { days: [1], from: '25:00', to: '19:00' },
      { days: [1], from: '19:00', to: '10:00' },
      { days: [1], from: '10:00', to: '19:00', timeZone: 'Mars/Olympus' },
    ]) {
      const res = await call(app.url, 'PATCH', path, { token: agent.owner.token, body: { workingHours } });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
      expect(res.body.error.message).toContain('Рабочее время');
    }
    const ok = await call(app.url, 'PATCH', path, { token: agent.owner.token, body: { workingHours: { days: [5, 1, 2, 2], from: '09:30', to: '18:00' } } });
    expect(ok.status).toBe(200);
    expect(ok.body.workingHours).toEqual({ days: [1, 2, 5], from: '09:30', to: '18:00' });
    expect((await call(app.url, 'GET', path, { token: agent.owner.token })).body.workingHours).toEqual({ days: [1, 2, 5], from: '09:30', to: '18:00' });
    const cleared = await call(app.url, 'PATCH', path, { token: agent.owner.token, body: { workingHours: null } });
    expect(cleared.body.workingHours).toBeNull();
  });
});

describe('with a short hand-over timeout and a message limit', () => {
  let quick: TestApp;
  const quickDriver = createSocialDriver(
    () => quick,
    () => vk,
  );

  beforeAll(async () => {
    // 0.04 min = 2.4 s; 4 messages a client a minute.
    quick = await startTestApp({
      env: {
        ...messengerEnv(telegram, freePort()),
        VK_API_BASE_URL: vk.url,
        UPSTREAM_BASE_URL: upstream.url,
        HANDOFF_TIMEOUT_MINUTES: '0.04',
        ASSISTANT_CLIENT_MESSAGES_PER_MINUTE: '4',
      },
    });
  });
  afterAll(async () => {
    await quick?.close();
  });

  test('nobody answers a handed-over client: the dialogue returns to the bot, the client and the operator are told; a night hand-over waits for the morning', async () => {
    // Handed over on a day off first: its wait starts tomorrow at 10:00, so it is still the person's after the other returns.
    const night = await connectedAgent(quick, { messenger: true });
    await call(quick.url, 'PATCH', `/api/agents/${night.agentId}`, { token: night.owner.token, body: { workingHours: tomorrowOnly() } });
    const NIGHT_CLIENT = CLIENT + 7;
    await quickDriver.sendAndWait(night.agentId, quickDriver.messageNew('оператор', { peerId: NIGHT_CLIENT }), 1, NIGHT_CLIENT);
    await quickDriver.sendAndWait(night.agentId, quickDriver.messageNew('89160000001', { peerId: NIGHT_CLIENT }), 1, NIGHT_CLIENT);

    const agent = await connectedAgent(quick, { messenger: true });
    await quickDriver.sendAndWait(agent.agentId, quickDriver.messageNew('Позовите оператора'));
    expect((await quickDriver.sendAndWait(agent.agentId, quickDriver.messageNew('89161234567')))[0]!.message).toBe(ESCALATED);
    const notice = await waitFor(() => telegram.sent.find((m) => m.chatId === OPERATOR.id && m.text.includes('79161234567')), 5000, 'the escalation notice');

    await waitFor(() => toClient().includes(TIMED_OUT), 10_000, 'the dialogue returned to the bot');
    const [dialogue] = await quick.sql<{ mode: string }>('select mode from dialogues where agent_id = $1', [agent.agentId]);
    expect(dialogue!.mode).toBe('assistant');
    const told = await waitFor(() => telegram.sent.find((m) => m.text.includes('Клиенту никто не ответил')), 5000, 'the operator told');
    // Under the announcement, where a reply would now reach nobody.
    expect((told.message.reply_to_message as { message_id: number }).message_id).toBe(notice.message.message_id as number);
    // The bot answers again.
    expect((await quickDriver.sendAndWait(agent.agentId, quickDriver.messageNew('Спасибо, а ещё вопрос')))[0]!.message).toBe('Echo: Спасибо, а ещё вопрос');
    expect(toClient()).toEqual([ASK_PHONE, ESCALATED, TIMED_OUT, 'Echo: Спасибо, а ещё вопрос']);

    // The night client's wait has not begun: still with the person, told nothing more.
    const [nightDialogue] = await quick.sql<{ mode: string }>('select mode from dialogues where agent_id = $1', [night.agentId]);
    expect(nightDialogue!.mode).toBe('operator');
    expect(toClient(NIGHT_CLIENT)).toHaveLength(2);
  });

  test('the owner took the dialogue in the dashboard and never wrote: the client’s unanswered message brings the bot back', async () => {
    const agent = await connectedAgent(quick);
    const HELD = CLIENT + 5;
    const [hello] = await quickDriver.sendAndWait(agent.agentId, quickDriver.messageNew('Сколько стоит стрижка?', { peerId: HELD }), 1, HELD);
    expect(hello!.message).toBe('Echo: Сколько стоит стрижка?');
    const [dialogue] = await quick.sql<{ id: string }>('select id from dialogues where agent_id = $1', [agent.agentId]);
    const taken = await call(quick.url, 'POST', `/api/v1/agents/${agent.agentId}/dialogues/${dialogue!.id}/takeover`, { token: agent.owner.token });
    expect(taken.status).toBe(200);
    // Taken, nobody waits yet; the client writes and is acknowledged, and then waits for the person.
    const [ack] = await quickDriver.sendAndWait(agent.agentId, quickDriver.messageNew('Алло, вы тут?', { peerId: HELD }), 1, HELD);
    expect(ack!.message).toBe('Ваш вопрос уже у сотрудника, он ответит здесь же в рабочее время.');
    await waitFor(() => toClient(HELD).includes(TIMED_OUT), 10_000, 'the dialogue returned to the bot');
    expect(toClient(HELD)).toEqual(['Echo: Сколько стоит стрижка?', 'Ваш вопрос уже у сотрудника, он ответит здесь же в рабочее время.', TIMED_OUT]);
    const inbox = await call(quick.url, 'GET', `/api/v1/agents/${agent.agentId}/dialogues`, { token: agent.owner.token });
    expect(inbox.body.dialogues[0]).toMatchObject({ state: 'bot', heldBy: null });
  });

  test('a client over the message limit is told once, the rest kept but not sent to the model', async () => {
    const agent = await connectedAgent(quick);
    const LIMITED = CLIENT + 3;
    for (let i = 1; i <= 4; i++) {
      const [answer] = await quickDriver.sendAndWait(agent.agentId, quickDriver.messageNew(`Вопрос ${i}`, { peerId: LIMITED }), 1, LIMITED);
      expect(answer!.message).toBe(`Echo: Вопрос ${i}`);
    }
    const [slow] = await quickDriver.sendAndWait(agent.agentId, quickDriver.messageNew('Вопрос 5', { peerId: LIMITED }), 1, LIMITED);
    expect(slow!.message).toBe(TOO_MANY);
    const sixth = quickDriver.messageNew('Вопрос 6', { peerId: LIMITED });
    await quickDriver.post(agent.agentId, sixth);
    expect(await quickDriver.processed(agent.agentId, sixth.event_id as string)).toBe('rate_limited');
    expect(upstream.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(4);
    const kept = await quick.sql<{ content: string }>(
      `select m.content from dialogue_messages m join dialogues d on d.id = m.dialogue_id where d.agent_id = $1 and m.role = 'user' order by m.id`,
      [agent.agentId],
    );
    expect(kept.map((m) => m.content)).toEqual(['Вопрос 1', 'Вопрос 2', 'Вопрос 3', 'Вопрос 4', 'Вопрос 5', 'Вопрос 6']);
    await vk.idle();
    expect(toClient(LIMITED)).toEqual(['Echo: Вопрос 1', 'Echo: Вопрос 2', 'Echo: Вопрос 3', 'Echo: Вопрос 4', TOO_MANY]);
  });
});
