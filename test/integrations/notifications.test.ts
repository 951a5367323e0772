import { afterAll, beforeAll, beforeEach, describe, expect, test, setDefaultTimeout } from 'bun:test';
import { call, registerUser, startTestApp } from '../helpers/app';
import {
  BOT,
  BOT_TOKEN,
  CHANNEL,
  configuredAgent,
  createAgent,
  messengerEnv,
  OPERATOR,
  seedTelegram,
  startMessengerWorld,
  waitFor,
  type MessengerWorld,
} from '../helpers/messenger';
import { formatOrderNumber } from '../../src/integrations/messenger/notify';

// Starting an app on a fresh database takes longer than bun's 5 s default (a bare `bun test` has no --timeout).
setDefaultTimeout(30_000);

let world: MessengerWorld;
beforeAll(async () => {
  world = await startMessengerWorld();
});
afterAll(() => world?.close());
beforeEach(() => {
  world.telegram.reset();
  seedTelegram(world.telegram);
  world.telegram.setChatMember(CHANNEL.id, BOT.id, { status: 'administrator', can_post_messages: true });
});

const services = () => world.app.instance.services;
const sends = () => world.telegram.calls.filter((c) => c.method === 'sendMessage');

async function escalate(agentId: string, reason = 'Клиент просит оператора') {
  return services().messenger.escalations.escalate({
    agentId,
    channel: 'social',
    peerId: String(Math.floor(Math.random() * 1e9)),
    clientPhone: '+79161234567',
    reason,
  });
}

async function listNotifications(agentId: string, token: string) {
  const res = await call(world.app.url, 'GET', `/api/v1/messenger/${agentId}/notifications`, { token });
  expect(res.status).toBe(200);
  return res.body as { notifications: any[]; count: number };
}

async function outboxRows(notificationId: string) {
  return world.app.sql<{ recipient: string; status: string; attempts: number; last_error: string | null }>(
    'select recipient, status, attempts, last_error from outbox where notification_id = $1 order by id',
    [notificationId],
  );
}

describe('notifications', () => {
  test('an escalation goes to the user and is duplicated to the channel, and is listed with its delivery state', async () => {
    const { agent, user } = await configuredAgent(world.app.url, { channel: true });
    const { notification } = await escalate(agent.id, 'Не знаю ответа про абонемент');
    expect(notification!.recipients).toEqual([
      { target: 'user', recipient: String(OPERATOR.id) },
      { target: 'channel', recipient: `@${CHANNEL.username}` },
    ]);
    await waitFor(() => world.telegram.sent.length === 2, 5000, 'both deliveries');
    const [toUser, toChannel] = [...world.telegram.sent].sort((a, b) => b.chatId - a.chatId);
    expect(toUser!.chatId).toBe(OPERATOR.id);
    expect(toChannel!.chatId).toBe(CHANNEL.id);
    for (const message of [toUser!, toChannel!]) {
      expect(message.text).toContain('Салон «Лён»');
      expect(message.text).toContain('+79161234567');
      expect(message.text).toContain('Не знаю ответа про абонемент');
    }

    await waitFor(async () => (await listNotifications(agent.id, user.token)).notifications[0]?.status === 'sent', 5000, 'sent state');
    const list = await listNotifications(agent.id, user.token);
    expect(list.count).toBe(1);
    expect(list.notifications[0]).toMatchObject({
      kind: 'escalation',
      status: 'sent',
      text: toUser!.text,
      deliveries: [
        { target: 'user', recipient: String(OPERATOR.id), status: 'sent', attempts: 1, lastError: null, sentAt: expect.any(String) },
        { target: 'channel', recipient: `@${CHANNEL.username}`, status: 'sent', attempts: 1, lastError: null, sentAt: expect.any(String) },
      ],
    });
  });

  test('a payment notice carries the order number and the amount with its currency; without a channel only the user gets it', async () => {
    const { agent, user } = await configuredAgent(world.app.url);
    const orderNumber = formatOrderNumber(new Date('2026-03-05T10:00:00Z'), 42);
    expect(orderNumber).toBe('ORD-20260305-0042');
    const queued = await services().db.transaction((tx) =>
      services().messenger.notifier.enqueuePayment(tx, { agentId: agent.id, orderNumber, amount: '1500.00', currency: 'RUB' }),
    );
    expect(queued!.recipients).toEqual([{ target: 'user', recipient: String(OPERATOR.id) }]);
    const message = await waitFor(() => world.telegram.sent[0], 5000, 'the payment notice');
    expect(message.chatId).toBe(OPERATOR.id);
    expect(message.text).toContain('ORD-20260305-0042');
    expect(message.text.replace(/\s/g, ' ')).toContain('1 500,00 ₽');
    await waitFor(async () => (await listNotifications(agent.id, user.token)).notifications[0]?.status === 'sent', 5000, 'sent state');
    expect((await listNotifications(agent.id, user.token)).notifications[0]).toMatchObject({ kind: 'payment', reference: orderNumber });
  });

  test("notices are written in the caller's transaction: a rolled-back cause sends nothing", async () => {
    const { agent, user } = await configuredAgent(world.app.url, { channel: true });
    const rollback = new Error('payment not confirmed after all');
    const failed = await services()
      .db.transaction(async (tx) => {
        await services().messenger.notifier.enqueuePayment(tx, { agentId: agent.id, orderNumber: 'ORD-20260305-0043', amount: 99, currency: 'RUB' });
        throw rollback;
      })
      .catch((error: unknown) => error);
    expect(failed).toBe(rollback);
    await Bun.sleep(300);
    expect(world.telegram.sent).toHaveLength(0);
    expect((await listNotifications(agent.id, user.token)).count).toBe(0);
  });

  test('429 then success: the worker waits at least retry_after before sending again, for every message of the bot', async () => {
    const { agent } = await configuredAgent(world.app.url, { channel: true });
    world.telegram.failNext('sendMessage', { error_code: 429, description: 'Too Many Requests: retry after 1', retry_after: 1 });
    const { notification } = await escalate(agent.id);
    await waitFor(() => world.telegram.sent.length === 2, 8000, 'delivery after the wait');
    const times = world.telegram.calls.map((c, i) => ({ method: c.method, at: world.telegram.callTimes[i]! })).filter((c) => c.method === 'sendMessage');
    expect(times.length).toBe(3);
    for (const later of times.slice(1)) expect(later.at - times[0]!.at).toBeGreaterThanOrEqual(1000);
    await waitFor(async () => (await outboxRows(notification!.notificationId)).every((r) => r.status === 'sent'), 5000, 'sent rows');
    // The wait Telegram asked for is not a failed attempt.
    expect((await outboxRows(notification!.notificationId)).map((r) => r.attempts)).toEqual([1, 1]);
  });

  test('a 5xx is retried with back-off; a permanent refusal is given up and shown', async () => {
    const { agent, user } = await configuredAgent(world.app.url, { channel: true });
    world.telegram.failNext('sendMessage', { error_code: 502, description: 'Bad Gateway' });
    const first = await escalate(agent.id);
    await waitFor(async () => (await outboxRows(first.notification!.notificationId)).every((r) => r.status === 'sent'), 5000, 'retried delivery');
    const rows = await outboxRows(first.notification!.notificationId);
    expect(rows.map((r) => r.attempts).sort()).toEqual([1, 2]);
    expect(rows.every((r) => r.last_error === null)).toBe(true);

    // The bot is no longer an administrator of the channel: the channel copy cannot be delivered.
    world.telegram.setChatMember(CHANNEL.id, BOT.id, { status: 'left' });
    const second = await escalate(agent.id, 'Второй вопрос');
    await waitFor(async () => (await outboxRows(second.notification!.notificationId)).every((r) => r.status !== 'pending'), 5000, 'settled rows');
    const list = await listNotifications(agent.id, user.token);
    const latest = list.notifications[0];
    expect(latest.status).toBe('partially_failed');
    expect(latest.deliveries).toEqual([
      expect.objectContaining({ target: 'user', status: 'sent' }),
      expect.objectContaining({ target: 'channel', status: 'failed', attempts: 1, lastError: expect.stringContaining('403') }),
    ]);
  });

  test('an agent without messenger settings queues nothing; the escalation itself is kept', async () => {
    const { user } = await configuredAgent(world.app.url);
    const bare = await call(world.app.url, 'POST', '/api/agents', { token: user.token, body: { name: 'Без бота', type: 'creator' } });
    const result = await escalate(bare.body.id);
    expect(result.notification).toBeNull();
    const [dialogue] = await world.app.sql<{ mode: string }>('select mode from dialogues where id = $1', [result.dialogueId]);
    expect(dialogue!.mode).toBe('operator');
  });
});

describe('a group upgraded to a supergroup', () => {
  test('a notice to the old group id is resent to the supergroup Telegram names, and the settings keep the new ids', async () => {
    const OPERATORS = -4001234567;
    const OPERATORS_SUPER = -1004001234567;
    const ROOM = -4007654321;
    const ROOM_SUPER = -1004007654321;
    for (const id of [OPERATORS, ROOM]) world.telegram.addChat({ id, type: 'group', title: `Группа ${id}` });
    const user = await registerUser(world.app.url);
    const agent = await createAgent(world.app.url, user.token);
    const saved = await call(world.app.url, 'PUT', `/api/v1/messenger/${agent.id}/settings`, {
      token: user.token,
      body: { botToken: BOT_TOKEN, userId: OPERATORS, channelId: String(ROOM) },
    });
    expect(saved.status).toBe(200);
    world.telegram.migrateChat(OPERATORS, OPERATORS_SUPER);
    world.telegram.migrateChat(ROOM, ROOM_SUPER);

    const { notification } = await escalate(agent.id, 'Клиент просит перезвонить');
    await waitFor(() => world.telegram.sent.length === 2, 5000, 'both notices in the supergroups');
    expect(world.telegram.sent.map((m) => m.chatId).sort()).toEqual([OPERATORS_SUPER, ROOM_SUPER].sort());
    expect(sends().map((c) => c.body.chat_id)).toEqual(expect.arrayContaining([OPERATORS, ROOM, OPERATORS_SUPER, ROOM_SUPER]));

    const settings = await call(world.app.url, 'GET', `/api/v1/messenger/${agent.id}/settings`, { token: user.token });
    expect(settings.body).toMatchObject({ userId: String(OPERATORS_SUPER), channelId: String(ROOM_SUPER) });
    await waitFor(async () => (await outboxRows(notification!.notificationId)).every((r) => r.status === 'sent'), 5000, 'both rows sent');

    // The next notice goes to the supergroups at once.
    world.telegram.calls.length = 0;
    await escalate(agent.id, 'Ещё вопрос');
    await waitFor(() => world.telegram.sent.length === 4, 5000, 'the next notices');
    expect(
      sends()
        .map((c) => c.body.chat_id)
        .sort(),
    ).toEqual([OPERATORS_SUPER, ROOM_SUPER].sort());
  });
});

describe('notifications across restarts', () => {
  test('Telegram down, then a restart, then delivered exactly once per recipient', async () => {
    const { agent, user } = await configuredAgent(world.app.url, { channel: true });
    world.telegram.down = true;
    const { notification } = await escalate(agent.id, 'Телеграм лежит');
    const id = notification!.notificationId;
    await waitFor(async () => (await outboxRows(id)).every((r) => r.attempts >= 2), 5000, 'failed attempts');
    const down = await listNotifications(agent.id, user.token);
    expect(down.notifications[0].status).toBe('pending');
    expect(down.notifications[0].deliveries[0].lastError).toContain('502');

    await world.app.stop();
    world.telegram.down = false;
    await world.start();
    await waitFor(async () => (await outboxRows(id)).every((r) => r.status === 'sent'), 8000, 'delivery after the restart');
    await Bun.sleep(400);
    expect(world.telegram.sent.filter((m) => m.chatId === OPERATOR.id)).toHaveLength(1);
    expect(world.telegram.sent.filter((m) => m.chatId === CHANNEL.id)).toHaveLength(1);
    expect((await listNotifications(agent.id, user.token)).notifications[0].status).toBe('sent');
  });

  test('a recipient served before a restart is not served again after it', async () => {
    const { agent } = await configuredAgent(world.app.url, { channel: true });
    // Retries far in the future: the user copy stays pending until the restart moves it along.
    await world.app.stop();
    await world.start({ OUTBOX_RETRY_BASE_MS: '600000' });
    world.telegram.failNext('sendMessage', { error_code: 500, description: 'Internal Server Error' });
    const { notification } = await escalate(agent.id, 'Половина доставлена');
    const id = notification!.notificationId;
    await waitFor(
      async () => {
        const rows = await outboxRows(id);
        return rows.some((r) => r.status === 'sent') && rows.some((r) => r.status === 'pending' && r.last_error);
      },
      5000,
      'one copy sent, one pending',
    );
    const servedFirst = world.telegram.sent.map((m) => m.chatId);
    expect(servedFirst).toHaveLength(1);

    await world.app.stop();
    await world.start();
    // Due at once after the restart for the test: the stored back-off would otherwise wait ten minutes.
    await world.app.sql("update outbox set next_attempt_at = now() where notification_id = $1 and status = 'pending'", [id]);
    services().outbox.wake();
    await waitFor(async () => (await outboxRows(id)).every((r) => r.status === 'sent'), 5000, 'the second copy');
    await Bun.sleep(300);
    const served = world.telegram.sent.map((m) => m.chatId).sort();
    expect(served).toEqual([CHANNEL.id, OPERATOR.id].sort());
  });

  test.skipIf(!process.env.DATABASE_URL)('two instances on one database never send the same row', async () => {
    const { agent } = await configuredAgent(world.app.url);
    const second = await startTestApp({ env: { ...messengerEnv(world.telegram, world.port), PORT: '0' }, database: world.database });
    try {
      const orders = Array.from({ length: 30 }, (_, i) => `ORD-20260305-${String(i + 1).padStart(4, '0')}`);
      await services().db.transaction(async (tx) => {
        for (const orderNumber of orders) {
          await services().messenger.notifier.enqueuePayment(tx, { agentId: agent.id, orderNumber, amount: 10, currency: 'RUB' });
        }
      });
      second.instance.services.outbox.wake();
      await waitFor(() => world.telegram.sent.length >= 30, 10_000, 'all payments');
      await Bun.sleep(400);
      const numbers = world.telegram.sent.map((m) => m.text.match(/ORD-\d{8}-\d{4}/)![0]).sort();
      expect(numbers).toEqual(orders);
      expect(sends()).toHaveLength(30);
    } finally {
      await second.stop();
    }
  });
});
