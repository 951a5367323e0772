import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { call, registerUser } from '../helpers/app';
import {
  BOT,
  BOT_TOKEN,
  CHANNEL,
  configuredAgent,
  createAgent,
  OPERATOR,
  seedTelegram,
  startMessengerWorld,
  waitFor,
  type MessengerWorld,
  operatorText,
} from '../helpers/messenger';
import type { DialogueRef } from '../../src/integrations/messenger/escalations';

let world: MessengerWorld;
beforeAll(async () => {
  world = await startMessengerWorld();
});
afterAll(() => world?.close());
beforeEach(() => {
  world.telegram.reset();
  seedTelegram(world.telegram);
});

const url = () => world.app.url;
const settingsPath = (agentId: string) => `/api/v1/messenger/${agentId}/settings`;
const checkPath = (agentId: string) => `/api/v1/messenger/${agentId}/check-channel-admin`;

describe('messenger settings', () => {
  test('round trip: the token is checked with getMe, stored sealed, read back masked; the webhook is registered', async () => {
    const { token } = await registerUser(url());
    const agent = await createAgent(url(), token);

    const empty = await call(url(), 'GET', settingsPath(agent.id), { token });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ configured: false, botToken: null, botTokenSet: false, userId: null, channelId: null });

    const saved = await call(url(), 'PUT', settingsPath(agent.id), {
      token,
      body: { botToken: BOT_TOKEN, userId: OPERATOR.id, channelId: `@${CHANNEL.username}` },
    });
    expect(saved.status).toBe(200);
    const webhookUrl = `${world.app.config.publicBaseUrl}/api/v1/messenger/${agent.id}/webhook`;
    expect(saved.body).toMatchObject({
      configured: true,
      botTokenSet: true,
      bot: { id: BOT.id, username: BOT.username },
      userId: String(OPERATOR.id),
      channelId: `@${CHANNEL.username}`,
      webhookUrl,
      webhook: { registered: true, error: null },
      problem: null,
    });
    expect(saved.text).not.toContain(BOT_TOKEN);
    expect(saved.text).not.toContain(BOT_TOKEN.split(':')[1]!);
    expect(saved.body.botToken).toMatch(/^•+$/);
    expect(world.telegram.calls.map((c) => c.method)).toEqual(['getMe', 'setWebhook']);

    // Telegram now holds our URL and a per-agent secret of the allowed alphabet.
    const hook = world.telegram.webhook(BOT_TOKEN)!;
    expect(hook.url).toBe(webhookUrl);
    expect(hook.secret_token).toMatch(/^[A-Za-z0-9_-]{20,256}$/);
    expect(hook.allowed_updates).toEqual(['message', 'channel_post']);

    const read = await call(url(), 'GET', settingsPath(agent.id), { token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ ...saved.body });
    expect(read.text).not.toContain(BOT_TOKEN.split(':')[1]!);

    // Stored sealed: neither the token nor the webhook secret is in the row in clear.
    const [row] = await world.app.sql<Record<string, unknown>>('select * from messenger_settings where agent_id = $1', [agent.id]);
    const stored = JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
    expect(stored).not.toContain(BOT_TOKEN.split(':')[1]!);
    expect(stored).not.toContain(hook.secret_token!);
    expect(String(row!.bot_token_sealed)).toMatch(/^v1\.[0-9a-f]{8}\./);

    // A save without botToken keeps the stored one (a form cannot send back what it never saw).
    const again = await call(url(), 'PUT', settingsPath(agent.id), { token, body: { userId: String(OPERATOR.id), channelId: null } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ channelId: null, userId: String(OPERATOR.id), webhook: { registered: true } });
    // The same secret stays registered, so updates already on their way are still accepted.
    expect(world.telegram.webhook(BOT_TOKEN)!.secret_token).toBe(hook.secret_token);
  });

  test('a wrong token is a 400 with a clear message: bad format without calling Telegram, unknown to Telegram after getMe', async () => {
    const { token } = await registerUser(url());
    const agent = await createAgent(url(), token);
    const badFormat = await call(url(), 'PUT', settingsPath(agent.id), { token, body: { botToken: 'not-a-token', userId: OPERATOR.id } });
    expect(badFormat.status).toBe(400);
    expect(badFormat.body.error.type).toBe('invalid_request_error');
    expect(badFormat.body.error.message).toContain('BotFather');
    expect(world.telegram.calls).toHaveLength(0);

    const unknown = `${BOT.id}:BBHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw9`;
    const rejected = await call(url(), 'PUT', settingsPath(agent.id), { token, body: { botToken: unknown, userId: OPERATOR.id } });
    expect(rejected.status).toBe(400);
    expect(rejected.body.error.type).toBe('invalid_request_error');
    expect(rejected.body.error.message).toMatch(/Telegram не принял токен/);
    expect(rejected.text).not.toContain(unknown);
    expect(world.telegram.calls.map((c) => c.method)).toEqual(['getMe']);
    expect((await call(url(), 'GET', settingsPath(agent.id), { token })).body.configured).toBe(false);

    const noToken = await call(url(), 'PUT', settingsPath(agent.id), { token, body: { userId: OPERATOR.id } });
    expect(noToken.status).toBe(400);
  });

  test('Telegram unreachable on save is 502 upstream_error, not a 500', async () => {
    const { token } = await registerUser(url());
    const agent = await createAgent(url(), token);
    world.telegram.down = true;
    const res = await call(url(), 'PUT', settingsPath(agent.id), { token, body: { botToken: BOT_TOKEN, userId: OPERATOR.id } });
    expect(res.status).toBe(502);
    expect(res.body.error.type).toBe('upstream_error');
    expect(res.body.error.message).toMatch(/Telegram/);
  });

  test('userId is a numeric chat id; channelId is @name or a numeric id (negative allowed)', async () => {
    const { token } = await registerUser(url());
    const agent = await createAgent(url(), token);
    const bad = [
      { botToken: BOT_TOKEN },
      { botToken: BOT_TOKEN, userId: 'anna' },
      { botToken: BOT_TOKEN, userId: 1.5 },
      { botToken: BOT_TOKEN, userId: OPERATOR.id, channelId: 'salon_len_news' },
      { botToken: BOT_TOKEN, userId: OPERATOR.id, channelId: '@ab' },
      { botToken: BOT_TOKEN, userId: OPERATOR.id, channelId: '@bad-name' },
      { botToken: BOT_TOKEN, userId: OPERATOR.id, channelId: '-100abc' },
    ];
    for (const body of bad) {
      const res = await call(url(), 'PUT', settingsPath(agent.id), { token, body });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
    }
    for (const channelId of [CHANNEL.id, String(CHANNEL.id), '@salon_len_news', -4001234567]) {
      const res = await call(url(), 'PUT', settingsPath(agent.id), { token, body: { botToken: BOT_TOKEN, userId: String(OPERATOR.id), channelId } });
      expect(res.status).toBe(200);
      expect(res.body.channelId).toBe(String(channelId));
    }
  });

  test('a webhook Telegram refuses is reported in the settings, which are still saved', async () => {
    world.telegram.settings.webhookRequiresHttps = true;
    const { token } = await registerUser(url());
    const agent = await createAgent(url(), token);
    const res = await call(url(), 'PUT', settingsPath(agent.id), { token, body: { botToken: BOT_TOKEN, userId: OPERATOR.id } });
    expect(res.status).toBe(200);
    expect(res.body.configured).toBe(true);
    expect(res.body.webhook).toMatchObject({ registered: false, error: expect.stringContaining('HTTPS') });
  });

  test("another user's agent is 403 on every messenger route, an unknown agent 404; a JWT is required", async () => {
    const { agent } = await configuredAgent(url());
    const stranger = await registerUser(url());
    world.telegram.calls.length = 0;
    const routes: [string, string, unknown?][] = [
      ['GET', settingsPath(agent.id)],
      ['PUT', settingsPath(agent.id), { botToken: BOT_TOKEN, userId: 1 }],
      ['GET', checkPath(agent.id)],
      ['GET', `/api/v1/messenger/${agent.id}/notifications`],
    ];
    for (const [method, path, body] of routes) {
      const res = await call(url(), method, path, { token: stranger.token, body });
      expect(res.status).toBe(403);
      expect(res.body.error.type).toBe('forbidden');
      const missing = await call(url(), method, path.replace(agent.id, '00000000-0000-4000-8000-000000000000'), { token: stranger.token, body });
      expect(missing.status).toBe(404);
      expect(missing.body.error.type).toBe('not_found');
      expect((await call(url(), method, path, { body })).status).toBe(401);
    }
    // The stranger's attempt changed nothing.
    expect(world.telegram.calls.filter((c) => c.method === 'getMe')).toHaveLength(0);
  });
});

describe('channel check', () => {
  async function agentWithChannel(channelId: string | number | null = `@${CHANNEL.username}`) {
    const user = await registerUser(url());
    const agent = await createAgent(url(), user.token);
    const res = await call(url(), 'PUT', settingsPath(agent.id), {
      token: user.token,
      body: { botToken: BOT_TOKEN, userId: OPERATOR.id, channelId },
    });
    expect(res.status).toBe(200);
    return { token: user.token, agent };
  }

  test('ok for an administrator allowed to post (by @name or by numeric id), and for the creator', async () => {
    world.telegram.setChatMember(CHANNEL.id, BOT.id, { status: 'administrator', can_post_messages: true });
    const { token, agent } = await agentWithChannel();
    const res = await call(url(), 'GET', checkPath(agent.id), { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, status: 'administrator', canPostMessages: true });
    const memberCall = world.telegram.calls.find((c) => c.method === 'getChatMember')!;
    expect(memberCall.body).toEqual({ chat_id: `@${CHANNEL.username}`, user_id: BOT.id });

    const byId = await agentWithChannel(CHANNEL.id);
    expect((await call(url(), 'GET', checkPath(byId.agent.id), { token: byId.token })).body.ok).toBe(true);

    world.telegram.setChatMember(CHANNEL.id, BOT.id, { status: 'creator' });
    expect((await call(url(), 'GET', checkPath(agent.id), { token })).body).toEqual({ ok: true, status: 'creator', canPostMessages: true });
  });

  const falseCases: [string, () => void, string | null, RegExp][] = [
    [
      'administrator without the right to post',
      () => world.telegram.setChatMember(CHANNEL.id, BOT.id, { status: 'administrator' }),
      'administrator',
      /без права публиковать/,
    ],
    ['plain member', () => world.telegram.setChatMember(CHANNEL.id, BOT.id, { status: 'member' }), 'member', /не является администратором/],
    ['bot not in the channel', () => world.telegram.setChatMember(CHANNEL.id, BOT.id, { status: 'left' }), 'left', /не состоит/],
    ['bot kicked', () => world.telegram.setChatMember(CHANNEL.id, BOT.id, { status: 'kicked' }), 'kicked', /удалён/],
    ['member list inaccessible', () => world.telegram.setChatMember(CHANNEL.id, BOT.id, 'inaccessible'), null, /не состоит/],
    ['Telegram answers 500', () => world.telegram.failNext('getChatMember', { error_code: 500, description: 'Internal Server Error' }), null, /недоступен/],
    ['Telegram down', () => (world.telegram.down = true), null, /недоступен/],
  ];
  for (const [name, arrange, status, reason] of falseCases) {
    test(`false with a Russian reason: ${name}`, async () => {
      const { token, agent } = await agentWithChannel();
      arrange();
      const res = await call(url(), 'GET', checkPath(agent.id), { token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: false, status, canPostMessages: false, reason: expect.stringMatching(reason) });
    });
  }

  test('false when the channel does not exist, when none is set, and when the messenger is not configured', async () => {
    const unknown = await agentWithChannel('@no_such_channel');
    const a = await call(url(), 'GET', checkPath(unknown.agent.id), { token: unknown.token });
    expect(a.body).toEqual({ ok: false, status: null, canPostMessages: false, reason: expect.stringMatching(/Канал не найден/) });

    const none = await agentWithChannel(null);
    const b = await call(url(), 'GET', checkPath(none.agent.id), { token: none.token });
    expect(b.body).toEqual({ ok: false, status: null, canPostMessages: false, reason: expect.stringMatching(/не указан/) });

    const user = await registerUser(url());
    const bare = await createAgent(url(), user.token);
    const c = await call(url(), 'GET', checkPath(bare.id), { token: user.token });
    expect(c.status).toBe(200);
    expect(c.body).toEqual({ ok: false, status: null, canPostMessages: false, reason: expect.stringMatching(/не настроен/) });
  });

  test('false when the token was revoked since it was saved', async () => {
    const { token, agent } = await agentWithChannel();
    // BotFather revoked the token: Telegram no longer knows it.
    world.telegram.reset();
    const res = await call(url(), 'GET', checkPath(agent.id), { token });
    expect(res.body).toEqual({ ok: false, status: null, canPostMessages: false, reason: expect.stringMatching(/токен/) });
  });
});

describe('messenger webhook', () => {
  const hookPath = (agentId: string) => `/api/v1/messenger/${agentId}/webhook`;
  const privateText = operatorText;

  test('a missing or wrong secret header is 403 and nothing is done; an unknown agent is 404', async () => {
    const { agent } = await configuredAgent(url());
    for (const secret of [null, 'wrong-secret', '']) {
      const res = await world.telegram.deliverUpdate(BOT_TOKEN, privateText('/start'), { secret });
      expect(res.status).toBe(403);
      expect(JSON.parse(res.text).error.type).toBe('forbidden');
    }
    await Bun.sleep(200);
    expect(world.telegram.sent).toHaveLength(0);
    const counted = await world.app.sql<{ n: number }>('select count(*)::int as n from messenger_updates where agent_id = $1', [agent.id]);
    expect(counted[0]!.n).toBe(0);

    const unknown = await call(url(), 'POST', hookPath('00000000-0000-4000-8000-000000000000'), { body: { update_id: 1 } });
    expect(unknown.status).toBe(404);
  });

  test('/start answers with the chat id to put in the settings', async () => {
    await configuredAgent(url());
    const res = await world.telegram.deliverUpdate(BOT_TOKEN, privateText('/start'));
    expect(res.status).toBe(200);
    const reply = await waitFor(() => world.telegram.sent.find((m) => m.chatId === OPERATOR.id), 5000, '/start answer');
    expect(reply.text).toContain(String(OPERATOR.id));
    // The field named as the agent's page labels it (web/src/integrations/Messenger.tsx), and as the API does.
    expect(reply.text).toContain('«ID пользователя для уведомлений» (в API — userId)');
  });

  test('the webhook is answered without waiting for the reply to reach Telegram', async () => {
    await configuredAgent(url());
    // Telegram takes the reply and holds it without answering, until the client's timeout gives up.
    world.telegram.hangNext('sendMessage');
    const res = await world.telegram.deliverUpdate(BOT_TOKEN, privateText('/start'));
    expect(res.status).toBe(200);
    // After the 200 the reply is still held open: the webhook answered without waiting for it (had it
    // waited, the only hanging call would have been given up before its answer, and the retry does not hang).
    await waitFor(() => world.telegram.hangingCalls() === 1, 5000, 'the /start reply held open by Telegram');
    const asked = world.telegram.calls.filter((c) => c.method === 'sendMessage');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.body.chat_id).toBe(OPERATOR.id);
    // The client's timeout gives up on it, the outbox sends it again, and it arrives.
    const reply = await waitFor(() => world.telegram.sent.find((m) => m.chatId === OPERATOR.id), 10_000, 'the reply, sent again');
    expect(reply.text).toContain(String(OPERATOR.id));
    expect(world.telegram.hangingCalls()).toBe(0);
  });

  test('a repeated update_id is acknowledged and ignored', async () => {
    const { agent } = await configuredAgent(url());
    const update = { update_id: 990001, ...privateText('/start') };
    const first = await world.telegram.deliverUpdate(BOT_TOKEN, update);
    const second = await world.telegram.deliverUpdate(BOT_TOKEN, update);
    expect([first.status, second.status]).toEqual([200, 200]);
    await waitFor(() => world.telegram.sent.length >= 1, 5000, 'the answer');
    await Bun.sleep(300);
    expect(world.telegram.sent).toHaveLength(1);
    const rows = await world.app.sql('select update_id::text as update_id, outcome from messenger_updates where agent_id = $1', [agent.id]);
    expect(rows).toEqual([{ update_id: '990001', outcome: 'start' }]);
  });

  test('malformed updates are 400 (after the secret check)', async () => {
    const { agent } = await configuredAgent(url());
    const secret = world.telegram.webhook(BOT_TOKEN)!.secret_token!;
    const headers = { 'x-telegram-bot-api-secret-token': secret };
    expect((await call(url(), 'POST', hookPath(agent.id), { headers, rawBody: '{"update_id":' })).status).toBe(400);
    expect((await call(url(), 'POST', hookPath(agent.id), { headers, body: { update_id: 'x' } })).status).toBe(400);
    expect((await call(url(), 'POST', hookPath(agent.id), { headers, body: [1] })).status).toBe(400);
    // Shapes the service does not act on are still acknowledged, so Telegram does not retry them.
    expect((await call(url(), 'POST', hookPath(agent.id), { headers, body: { update_id: 5, my_chat_member: {} } })).status).toBe(200);
  });

  async function escalateAndAwaitNotice(agentId: string, channel: string) {
    const escalation = await world.app.instance.services.messenger.escalations.escalate({
      agentId,
      channel,
      peerId: '2000000001',
      clientPhone: '+79161234567',
      reason: 'Клиент просит скидку',
    });
    expect(escalation.notification).not.toBeNull();
    const notice = await waitFor(() => world.telegram.sent.find((m) => m.chatId === OPERATOR.id && m.text.includes('скидку')), 5000, 'the escalation notice');
    // The reply can only be matched once the delivery (and its message id) is recorded.
    await waitFor(
      async () => {
        const rows = await world.app.sql('select 1 from escalation_messages where escalation_id = $1', [escalation.escalationId]);
        return rows.length > 0;
      },
      5000,
      'the recorded escalation message',
    );
    return { escalation, notice };
  }

  test("an operator's reply to an escalation is relayed to the client's dialogue; /release hands it back", async () => {
    const { agent } = await configuredAgent(url());
    const relayed: (DialogueRef & { text: string; operatorName: string | null })[] = [];
    const released: DialogueRef[] = [];
    world.app.instance.services.messenger.escalations.registerRelay('test-relay', {
      async relayOperatorReply(_tx, reply) {
        relayed.push(reply);
        return { delivered: true };
      },
      async release(_tx, dialogue) {
        released.push(dialogue);
      },
      releaseNotice: () => null,
    });
    const { escalation, notice } = await escalateAndAwaitNotice(agent.id, 'test-relay');
    expect(notice.text).toContain('Салон «Лён»');
    expect(notice.text).toContain('+79161234567');

    const botMessage = notice.message;
    const reply = await world.telegram.deliverUpdate(BOT_TOKEN, privateText('Здравствуйте! Скидка 10% ваша.', { reply_to_message: botMessage }));
    expect(reply.status).toBe(200);
    await waitFor(() => relayed.length === 1, 5000, 'the relay');
    expect(relayed[0]).toMatchObject({
      agentId: agent.id,
      dialogueId: escalation.dialogueId,
      escalationId: escalation.escalationId,
      channel: 'test-relay',
      peerId: '2000000001',
      text: 'Здравствуйте! Скидка 10% ваша.',
      operatorName: expect.stringContaining('Анна'),
    });
    await waitFor(() => world.telegram.sent.find((m) => m.text.includes('отправлен клиенту')), 5000, 'the confirmation');
    const [dialogue] = await world.app.sql<{ mode: string }>('select mode from dialogues where id = $1', [escalation.dialogueId]);
    expect(dialogue!.mode).toBe('operator');

    await world.telegram.deliverUpdate(BOT_TOKEN, privateText('/release', { reply_to_message: botMessage }));
    await waitFor(() => released.length === 1, 5000, 'the release');
    expect(released[0]!.dialogueId).toBe(escalation.dialogueId);
    await waitFor(() => world.telegram.sent.find((m) => m.text.includes('возвращён ассистенту')), 5000, 'the release answer');
    const [after] = await world.app.sql<{ mode: string }>('select mode from dialogues where id = $1', [escalation.dialogueId]);
    expect(after!.mode).toBe('assistant');
    const [esc] = await world.app.sql<{ released_at: Date | null }>('select released_at from escalations where id = $1', [escalation.escalationId]);
    expect(esc!.released_at).not.toBeNull();

    // After the release a reply is not relayed any more.
    await world.telegram.deliverUpdate(BOT_TOKEN, privateText('Ещё вопрос?', { reply_to_message: botMessage }));
    await waitFor(() => world.telegram.sent.find((m) => m.text.includes('ответ клиенту не отправлен')), 5000, 'the late-reply answer');
    expect(relayed).toHaveLength(1);
    const outcomes = await world.app.sql<{ outcome: string }>('select outcome from operator_replies where escalation_id = $1 order by created_at', [
      escalation.escalationId,
    ]);
    expect(outcomes.map((o) => o.outcome)).toEqual(['relayed', 'release', 'dialogue_released']);
  });

  test('with no relay for the dialogue, the reply is recorded and the operator is told it was not delivered', async () => {
    const { agent } = await configuredAgent(url());
    const { escalation, notice } = await escalateAndAwaitNotice(agent.id, 'nowhere');
    await world.telegram.deliverUpdate(BOT_TOKEN, privateText('Перезвоню через 5 минут', { reply_to_message: notice.message }));
    const answer = await waitFor(() => world.telegram.sent.find((m) => m.text.includes('не доставлен')), 5000, 'the answer');
    expect(answer.chatId).toBe(OPERATOR.id);
    const rows = await world.app.sql<{ text: string; outcome: string }>('select text, outcome from operator_replies where escalation_id = $1', [
      escalation.escalationId,
    ]);
    expect(rows).toEqual([{ text: 'Перезвоню через 5 минут', outcome: 'undeliverable' }]);
  });

  test('a reply to a message that announced no escalation is ignored', async () => {
    const { agent } = await configuredAgent(url());
    const res = await world.telegram.deliverUpdate(
      BOT_TOKEN,
      privateText('привет', { reply_to_message: { message_id: 1, date: 0, chat: { id: OPERATOR.id, type: 'private' }, text: 'x' } }),
    );
    expect(res.status).toBe(200);
    await waitFor(
      async () =>
        (await world.app.sql<{ outcome: string | null }>('select outcome from messenger_updates where agent_id = $1', [agent.id]))[0]?.outcome === 'ignored',
      5000,
      'handling',
    );
    expect(world.telegram.sent).toHaveLength(0);
  });
});
