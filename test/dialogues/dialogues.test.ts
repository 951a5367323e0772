// The owner's inbox over HTTP (issue 15): the list and transcripts of an agent's client dialogues, the
// owner stepping in from the dashboard with the state shared with the Telegram operator path, replies
// sent to VK once, deletion on request, and the agent's results. Fakes: VK, Telegram, the model upstream.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { randomUUID } from 'node:crypto';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { settleAll } from '../helpers/gateway';
import { BOT_TOKEN, freePort, messengerEnv, OPERATOR, operatorText, seedTelegram, waitFor } from '../helpers/messenger';
import { CLIENT, CODE, createSocialDriver, GROUP, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(30_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const OTHER_CLIENT = 40922344;

let vk: FakeVk;
let telegram: FakeTelegram;
let upstream: FakeUpstream;
let app: TestApp;

beforeAll(async () => {
  [vk, telegram, upstream] = await Promise.all([startFakeVk(), startFakeTelegram(), startFakeUpstream()]);
  const port = freePort();
  app = await startTestApp({ env: { ...messengerEnv(telegram, port), VK_API_BASE_URL: vk.url, UPSTREAM_BASE_URL: upstream.url } });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([vk?.close(), telegram?.close(), upstream?.close()]);
});
beforeEach(() => {
  vk.reset();
  vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
  telegram.reset();
  seedTelegram(telegram);
  upstream.reset();
});

const { post, messageNew, sendAndWait, processed } = createSocialDriver(
  () => app,
  () => vk,
);

interface Owner {
  token: string;
  userId: string;
  email: string;
}

async function connectedAgent(options: { messenger?: boolean } = {}) {
  const owner = (await registerUser(app.url)) as Owner;
  const created = await call(app.url, 'POST', '/api/agents', {
    token: owner.token,
    body: { name: 'Салон «Лён»', type: 'service', model: 'acme/chat', systemPrompt: 'Ты — администратор салона.' },
  });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const saved = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
    token: owner.token,
    body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
  });
  expect(saved.text).toContain('"configured":true');
  if (options.messenger) {
    const res = await call(app.url, 'PUT', `/api/v1/messenger/${agentId}/settings`, { token: owner.token, body: { botToken: BOT_TOKEN, userId: OPERATOR.id } });
    expect(res.status).toBe(200);
  }
  return { owner, agentId, base: `/api/v1/agents/${agentId}/dialogues` };
}

type Agent = Awaited<ReturnType<typeof connectedAgent>>;

async function inbox(agent: Agent, query = '') {
  const res = await call(app.url, 'GET', `${agent.base}${query}`, { token: agent.owner.token });
  expect(res.status).toBe(200);
  return res.body as { dialogues: any[]; nextCursor: string | null };
}

async function transcript(agent: Agent, dialogueId: string, query = '') {
  const res = await call(app.url, 'GET', `${agent.base}/${dialogueId}/messages${query}`, { token: agent.owner.token });
  expect(res.status).toBe(200);
  return res.body as { messages: any[]; nextCursor: string | null };
}

/** A client escalated to the operator (asked for a person, gave a phone); returns the Telegram notice. */
async function escalated(agent: Agent, peerId = CLIENT) {
  await sendAndWait(agent.agentId, messageNew('Позовите оператора', { peerId }), 1, peerId);
  await sendAndWait(agent.agentId, messageNew('+7 916 123-45-67', { peerId }), 1, peerId);
  const notice = await waitFor(() => telegram.sent.find((m) => m.chatId === OPERATOR.id && m.text.includes('Нужен оператор')), 5000, 'the escalation notice');
  await waitFor(async () => (await app.sql('select 1 from escalation_messages where agent_id = $1', [agent.agentId])).length > 0, 5000, 'the recorded notice');
  const [dialogue] = (await inbox(agent)).dialogues.filter((d) => d.client.vkUserId === peerId);
  return { notice, dialogueId: dialogue!.id as string };
}

const reply = (agent: Agent, dialogueId: string, text: string, clientMessageId: string = randomUUID()) =>
  call(app.url, 'POST', `${agent.base}/${dialogueId}/messages`, { token: agent.owner.token, body: { text, clientMessageId } });

describe('inbox', () => {
  test('dialogues newest first with the client, last message, unread count and state; the transcript with authors and the model’s cost', async () => {
    const agent = await connectedAgent();
    await sendAndWait(agent.agentId, messageNew('Привет'));
    const [answer] = await sendAndWait(agent.agentId, messageNew('Сколько стоит стрижка?'));
    expect(answer!.message).toBe('Echo: Сколько стоит стрижка?');
    await sendAndWait(agent.agentId, messageNew('Здравствуйте', { peerId: OTHER_CLIENT }), 1, OTHER_CLIENT);

    const list = await inbox(agent);
    expect(list.dialogues.map((d) => d.client.vkUserId)).toEqual([OTHER_CLIENT, CLIENT]);
    const first = list.dialogues[1];
    expect(first).toMatchObject({
      channel: 'social',
      client: { vkUserId: CLIENT, name: null, phone: null },
      state: 'bot',
      heldBy: null,
      lastMessage: { author: 'assistant', text: 'Echo: Сколько стоит стрижка?' },
      unread: 2,
    });

    await settleAll(app);
    const turns = await transcript(agent, first.id);
    expect(turns.messages.map((m) => m.author)).toEqual(['assistant', 'client', 'assistant', 'client']);
    expect(turns.messages[1]).toMatchObject({ text: 'Сколько стоит стрижка?', model: null, cost: null });
    const [usage] = await app.sql<{ model: string; prompt_tokens: string; completion_tokens: string; cost_nano: string }>(
      'select model, prompt_tokens::text, completion_tokens::text, cost_nano::text from usage_records where agent_id = $1',
      [agent.agentId],
    );
    expect(turns.messages[0]).toMatchObject({
      text: 'Echo: Сколько стоит стрижка?',
      model: usage!.model,
      promptTokens: Number(usage!.prompt_tokens),
      completionTokens: Number(usage!.completion_tokens),
      cost: Number(usage!.cost_nano) / 1e9,
    });
    expect(turns.messages[0].promptTokens).toBeGreaterThan(0);
    // The welcome is the assistant's, but no model wrote it.
    expect(turns.messages[2]).toMatchObject({ author: 'assistant', model: null, cost: null });

    // Read: the unread count drops; a new client message raises it again.
    const read = await call(app.url, 'POST', `${agent.base}/${first.id}/read`, { token: agent.owner.token });
    expect(read.status).toBe(200);
    expect(read.body.unread).toBe(0);
    await sendAndWait(agent.agentId, messageNew('И ещё вопрос'));
    const again = await inbox(agent);
    expect(again.dialogues[0]).toMatchObject({ client: { vkUserId: CLIENT }, unread: 1 });

    // Only turns newer than one already shown (how an open transcript catches up).
    const newer = await transcript(agent, first.id, `?afterId=${turns.messages[0].id}`);
    expect(newer.messages.map((m) => m.text)).toEqual(['Echo: И ещё вопрос', 'И ещё вопрос']);
  });

  test('keyset paging of the list and of a transcript: every row once, in order', async () => {
    const agent = await connectedAgent();
    for (const peer of [CLIENT, OTHER_CLIENT, OTHER_CLIENT + 1]) await sendAndWait(agent.agentId, messageNew('Привет', { peerId: peer }), 1, peer);
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: { dialogues: any[]; nextCursor: string | null } = await inbox(agent, `?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.dialogues.length).toBeLessThanOrEqual(1);
      seen.push(...page.dialogues.map((d) => d.client.vkUserId as number));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([OTHER_CLIENT + 1, OTHER_CLIENT, CLIENT]);

    await sendAndWait(agent.agentId, messageNew('Сколько стоит стрижка?'));
    const [mine] = (await inbox(agent, '?q=стрижка')).dialogues;
    const all = (await transcript(agent, mine.id)).messages.map((m) => m.id);
    const paged: number[] = [];
    cursor = null;
    do {
      const page: { messages: any[]; nextCursor: string | null } = await transcript(agent, mine.id, `?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      paged.push(...page.messages.map((m) => m.id as number));
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual(all);
    expect(all).toHaveLength(4);

    const bad = await call(app.url, 'GET', `${agent.base}?cursor=not-a-cursor`, { token: agent.owner.token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('invalid_request_error');
  });

  test('search by message text (patterns taken literally) and filter by state, validated', async () => {
    const agent = await connectedAgent({ messenger: true });
    await sendAndWait(agent.agentId, messageNew('Нужна стрижка на 50% дешевле'));
    await sendAndWait(agent.agentId, messageNew('Хочу маникюр', { peerId: OTHER_CLIENT }), 1, OTHER_CLIENT);

    expect((await inbox(agent, `?q=${encodeURIComponent('СТРИЖКА')}`)).dialogues.map((d) => d.client.vkUserId)).toEqual([CLIENT]);
    expect((await inbox(agent, `?q=${encodeURIComponent('50%')}`)).dialogues.map((d) => d.client.vkUserId)).toEqual([CLIENT]);
    expect((await inbox(agent, `?q=${encodeURIComponent('%')}`)).dialogues.map((d) => d.client.vkUserId)).toEqual([CLIENT]);
    expect((await inbox(agent, `?q=${encodeURIComponent('_аникюр')}`)).dialogues).toHaveLength(0);
    expect((await inbox(agent, `?q=${OTHER_CLIENT}`)).dialogues.map((d) => d.client.vkUserId)).toEqual([OTHER_CLIENT]);

    await escalated(agent, OTHER_CLIENT);
    expect((await inbox(agent, '?state=escalated')).dialogues.map((d) => d.client.vkUserId)).toEqual([OTHER_CLIENT]);
    expect((await inbox(agent, '?state=bot')).dialogues.map((d) => d.client.vkUserId)).toEqual([CLIENT]);
    expect((await inbox(agent, '?state=operator')).dialogues).toHaveLength(0);
    // The client shared a phone on the way: it is shown, and found.
    expect((await inbox(agent, '?q=79161234567')).dialogues[0]).toMatchObject({ client: { vkUserId: OTHER_CLIENT, phone: '79161234567' } });

    await post(agent.agentId, { type: 'message_deny', event_id: `deny-${randomUUID()}`, v: '5.199', group_id: GROUP, secret: SECRET, object: { user_id: CLIENT } });
    await waitFor(async () => (await inbox(agent, '?state=closed')).dialogues.length === 1, 5000, 'the closed dialogue');

    for (const query of ['?state=open', '?limit=0', '?limit=101', `?q=${'я'.repeat(201)}`]) {
      const res = await call(app.url, 'GET', `${agent.base}${query}`, { token: agent.owner.token });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
    }
  });

  test('ownership: another user’s agent is 403, an unknown or another agent’s dialogue 404, no token 401', async () => {
    const agent = await connectedAgent();
    await sendAndWait(agent.agentId, messageNew('Привет'));
    const [dialogue] = (await inbox(agent)).dialogues;
    const stranger = await connectedAgent();

    const foreign = await call(app.url, 'GET', agent.base, { token: stranger.owner.token });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.type).toBe('forbidden');
    for (const [method, suffix] of [
      ['GET', ''],
      ['GET', '/messages'],
      ['POST', '/takeover'],
      ['POST', '/release'],
      ['POST', '/read'],
      ['DELETE', ''],
    ] as const) {
      const viaOwnAgent = await call(app.url, method, `${stranger.base}/${dialogue.id}${suffix}`, { token: stranger.owner.token });
      expect(viaOwnAgent.status).toBe(404);
      expect(viaOwnAgent.body.error).toEqual({ type: 'not_found', message: 'Диалог не найден' });
      const unknown = await call(app.url, method, `${agent.base}/${randomUUID()}${suffix}`, { token: agent.owner.token });
      expect(unknown.status).toBe(404);
      const notAnId = await call(app.url, method, `${agent.base}/not-an-id${suffix}`, { token: agent.owner.token });
      expect(notAnId.status).toBe(404);
    }
    const sent = await reply(stranger, dialogue.id, 'Чужой ответ');
    expect(sent.status).toBe(404);
    expect((await call(app.url, 'GET', agent.base)).status).toBe(401);
    expect((await call(app.url, 'GET', `/api/v1/agents/${randomUUID()}/dialogues`, { token: agent.owner.token })).status).toBe(404);
  });
});

describe('stepping in', () => {
  test('takeover from the dashboard: Telegram is told, a Telegram reply is refused, the owner’s reply reaches VK once, release hands back', async () => {
    const agent = await connectedAgent({ messenger: true });
    const { notice, dialogueId } = await escalated(agent);
    expect((await inbox(agent)).dialogues[0]).toMatchObject({ state: 'escalated', heldBy: null, client: { phone: '79161234567' } });

    const taken = await call(app.url, 'POST', `${agent.base}/${dialogueId}/takeover`, { token: agent.owner.token });
    expect(taken.status).toBe(200);
    expect(taken.body).toMatchObject({ state: 'operator', heldBy: { name: agent.owner.email, byYou: true } });
    // The escalation's announcement itself now says who took it: edited in place, its own text kept.
    const told = await waitFor(
      () => telegram.edited.find((e) => e.chatId === OPERATOR.id && e.messageId === (notice.message.message_id as number)),
      5000,
      'the announcement edited in Telegram',
    );
    expect(told.text).toContain(agent.owner.email);
    expect(told.text.startsWith(notice.text)).toBe(true);
    expect(told.text).toContain('Диалог ведёт');
    // Taking it again is no news.
    expect((await call(app.url, 'POST', `${agent.base}/${dialogueId}/takeover`, { token: agent.owner.token })).status).toBe(200);

    // The Telegram operator cannot answer a dialogue the owner holds.
    const vkBefore = vk.sentMessages.length;
    await telegram.deliverUpdate(BOT_TOKEN, operatorText('Я отвечу!', { reply_to_message: notice.message }));
    const refused = await waitFor(() => telegram.sent.find((m) => m.text.includes('уже ведёт')), 5000, 'the refusal in Telegram');
    expect(refused.text).toContain(agent.owner.email);

    // The same reply posted three times (a retry, and two at once): VK gets it once.
    const id = randomUUID();
    const [a, b] = await Promise.all([reply(agent, dialogueId, 'Добрый день! Чем помочь?', id), reply(agent, dialogueId, 'Добрый день! Чем помочь?', id)]);
    const c = await reply(agent, dialogueId, 'Добрый день! Чем помочь?', id);
    for (const res of [a, b, c]) expect(res.status).toBe(201);
    expect([a, b, c].map((r) => r.body.repeated).sort()).toEqual([false, true, true]);
    expect(new Set([a, b, c].map((r) => r.body.message.id)).size).toBe(1);
    await waitFor(() => vk.sentMessages.some((m) => m.message === 'Добрый день! Чем помочь?'), 5000, 'the reply in VK');
    // One row was ever queued for it, and it is sent: nothing is left to send it again. (The outbox marks the
    // row sent once VK's answer is back, a moment after VK has the message.)
    const queued = () =>
      app.sql<{ status: string }>("select status from outbox where agent_id = $1 and kind = 'social.message' and payload->>'text' = 'Добрый день! Чем помочь?'", [
        agent.agentId,
      ]);
    await waitFor(async () => (await queued()).every((r) => r.status === 'sent'), 5000, 'the outbox row marked sent');
    expect((await queued()).map((r) => r.status)).toEqual(['sent']);
    expect(vk.sentMessages.slice(vkBefore).map((m) => m.message)).toEqual(['Добрый день! Чем помочь?']);
    const turns = await transcript(agent, dialogueId);
    expect(turns.messages[0]).toMatchObject({ author: 'operator', text: 'Добрый день! Чем помочь?', operatorName: agent.owner.email });
    expect(turns.messages.filter((m) => m.author === 'operator')).toHaveLength(1);

    // While the owner holds it the assistant keeps quiet.
    const quiet = messageNew('Хочу записаться');
    await post(agent.agentId, quiet);
    expect(await processed(agent.agentId, quiet.event_id as string)).toBe('with_operator');
    expect(upstream.requests).toHaveLength(0);

    const released = await call(app.url, 'POST', `${agent.base}/${dialogueId}/release`, { token: agent.owner.token });
    expect(released.status).toBe(200);
    expect(released.body).toMatchObject({ state: 'bot', heldBy: null });
    await waitFor(() => vk.sentMessages.at(-1)?.message.includes('завершил разговор'), 5000, 'the release message');
    await waitFor(() => telegram.sent.find((m) => m.text.includes('возвращён ассистенту из панели')), 5000, 'the release told in Telegram');
    const [answer] = await sendAndWait(agent.agentId, messageNew('Сколько стоит стрижка?'));
    expect(answer!.message).toBe('Echo: Сколько стоит стрижка?');
  });

  test('a Telegram operator who answered holds the dialogue: the dashboard sees who, its takeover and reply are 409; /release frees it', async () => {
    const agent = await connectedAgent({ messenger: true });
    const { notice, dialogueId } = await escalated(agent);
    await telegram.deliverUpdate(BOT_TOKEN, operatorText('Здравствуйте, это Анна.', { reply_to_message: notice.message }));
    await waitFor(() => vk.sentMessages.some((m) => m.message === 'Здравствуйте, это Анна.'), 5000, 'the relayed reply');

    const [held] = (await inbox(agent)).dialogues;
    expect(held).toMatchObject({ state: 'operator', heldBy: { name: 'Анна (@anna_k)', byYou: false } });
    const turns = await transcript(agent, dialogueId);
    expect(turns.messages[0]).toMatchObject({ author: 'operator', text: 'Здравствуйте, это Анна.', operatorName: 'Анна (@anna_k)' });

    const takeover = await call(app.url, 'POST', `${agent.base}/${dialogueId}/takeover`, { token: agent.owner.token });
    expect(takeover.status).toBe(409);
    expect(takeover.body.error.type).toBe('conflict');
    expect(takeover.body.error.message).toContain('Анна (@anna_k)');
    const sent = await reply(agent, dialogueId, 'Я тоже тут');
    expect(sent.status).toBe(409);
    expect(vk.sentMessages.some((m) => m.message === 'Я тоже тут')).toBe(false);

    await telegram.deliverUpdate(BOT_TOKEN, operatorText('/release', { reply_to_message: notice.message }));
    await waitFor(async () => (await inbox(agent)).dialogues[0].state === 'bot', 5000, 'the dialogue back with the assistant');
    expect((await inbox(agent)).dialogues[0].heldBy).toBeNull();
    expect((await call(app.url, 'POST', `${agent.base}/${dialogueId}/takeover`, { token: agent.owner.token })).status).toBe(200);
  });

  test('the dashboard and Telegram racing for one dialogue: exactly one of them holds it', async () => {
    const agent = await connectedAgent({ messenger: true });
    const { notice, dialogueId } = await escalated(agent);
    const vkBefore = vk.sentMessages.length;
    const [takeover] = await Promise.all([
      call(app.url, 'POST', `${agent.base}/${dialogueId}/takeover`, { token: agent.owner.token }),
      telegram.deliverUpdate(BOT_TOKEN, operatorText('Беру я', { reply_to_message: notice.message })),
    ]);
    const outcome = await waitFor(
      async () => {
        const [row] = await app.sql<{ outcome: string | null }>(
          "select outcome from messenger_updates where agent_id = $1 and payload->'message'->>'text' = 'Беру я'",
          [agent.agentId],
        );
        return row?.outcome ?? null;
      },
      5000,
      'the Telegram reply handled',
    );
    const [dialogue] = (await inbox(agent)).dialogues;
    if (takeover.status === 200) {
      expect(outcome).toBe('reply_held_by_other');
      expect(dialogue.heldBy).toMatchObject({ byYou: true });
      expect(vk.sentMessages.slice(vkBefore).some((m) => m.message === 'Беру я')).toBe(false);
    } else {
      expect(takeover.status).toBe(409);
      expect(outcome).toBe('reply_relayed');
      expect(dialogue.heldBy).toMatchObject({ byYou: false, name: 'Анна (@anna_k)' });
    }
  });

  test('reply input: text required and storable, a client message id required; a client who forbade messages gets nothing (409)', async () => {
    const agent = await connectedAgent();
    await sendAndWait(agent.agentId, messageNew('Привет'));
    const [dialogue] = (await inbox(agent)).dialogues;
    for (const body of [
      { text: '', clientMessageId: randomUUID() },
      { text: '   ', clientMessageId: randomUUID() },
      { text: 'а\u0000б', clientMessageId: randomUUID() },
      { text: 'Привет' },
      { text: 'Привет', clientMessageId: 'short' },
      { text: 'я'.repeat(4001), clientMessageId: randomUUID() },
    ]) {
      const res = await call(app.url, 'POST', `${agent.base}/${dialogue.id}/messages`, { token: agent.owner.token, body });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
    }
    // A reply without a takeover takes the dialogue (nobody held it).
    const first = await reply(agent, dialogue.id, 'Здравствуйте!');
    expect(first.status).toBe(201);
    expect((await inbox(agent)).dialogues[0]).toMatchObject({ state: 'operator', heldBy: { byYou: true } });

    await post(agent.agentId, { type: 'message_deny', event_id: `deny-${randomUUID()}`, v: '5.199', group_id: GROUP, secret: SECRET, object: { user_id: CLIENT } });
    await waitFor(async () => (await inbox(agent)).dialogues[0].state === 'closed', 5000, 'the closed dialogue');
    const denied = await reply(agent, dialogue.id, 'Вы тут?');
    expect(denied.status).toBe(409);
    expect(denied.body.error.type).toBe('conflict');
  });
});

describe('deletion and retention', () => {
  test('an owner deletes one client’s dialogue: its turns, escalations, notifications and VK events go; others stay', async () => {
    const agent = await connectedAgent({ messenger: true });
    const { dialogueId } = await escalated(agent);
    await sendAndWait(agent.agentId, messageNew('Привет', { peerId: OTHER_CLIENT }), 1, OTHER_CLIENT);
    const count = async (sqlText: string) => Number((await app.sql<{ n: string }>(sqlText, [agent.agentId]))[0]!.n);
    const turnsOf = `select count(*)::text as n from dialogue_messages m join dialogues d on d.id = m.dialogue_id where d.agent_id = $1 and d.peer_id = '${CLIENT}'`;
    const eventsOf = `select count(*)::text as n from social_events where agent_id = $1 and client_key = '${CLIENT}'`;
    expect(await count(turnsOf)).toBeGreaterThan(0);
    expect(await count(eventsOf)).toBeGreaterThan(0);
    expect(await count("select count(*)::text as n from notifications where agent_id = $1 and kind = 'escalation'")).toBe(1);

    const removed = await call(app.url, 'DELETE', `${agent.base}/${dialogueId}`, { token: agent.owner.token });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true });
    expect((await call(app.url, 'GET', `${agent.base}/${dialogueId}`, { token: agent.owner.token })).status).toBe(404);
    expect((await call(app.url, 'DELETE', `${agent.base}/${dialogueId}`, { token: agent.owner.token })).status).toBe(404);
    expect(await count(turnsOf)).toBe(0);
    expect(await count(eventsOf)).toBe(0);
    expect(await count('select count(*)::text as n from escalations where agent_id = $1')).toBe(0);
    expect(await count("select count(*)::text as n from notifications where agent_id = $1 and kind = 'escalation'")).toBe(0);
    expect(await count(`select count(*)::text as n from outbox where agent_id = $1 and recipient = '${CLIENT}'`)).toBe(0);
    expect((await inbox(agent)).dialogues.map((d) => d.client.vkUserId)).toEqual([OTHER_CLIENT]);

    // The client writing again starts a new dialogue.
    await sendAndWait(agent.agentId, messageNew('Снова я'));
    const list = await inbox(agent);
    expect(list.dialogues.map((d) => d.client.vkUserId)).toEqual([CLIENT, OTHER_CLIENT]);
    expect(list.dialogues[0].id).not.toBe(dialogueId);
  });

  test('turns past 90 days are pruned as documented; the inbox no longer shows them', async () => {
    const agent = await connectedAgent();
    await sendAndWait(agent.agentId, messageNew('Старое сообщение'));
    await sendAndWait(agent.agentId, messageNew('Новое сообщение'));
    const [dialogue] = (await inbox(agent)).dialogues;
    await app.sql(
      "update dialogue_messages set created_at = now() - interval '91 days' where dialogue_id = $1 and content in ('Старое сообщение', 'Echo: Старое сообщение')",
      [dialogue.id],
    );
    await app.instance.services.social.webhook.prune(); // the sweep's hourly pruning, run now
    const turns = await transcript(agent, dialogue.id);
    expect(turns.messages.map((m) => m.text)).toEqual(['Echo: Новое сообщение', 'Новое сообщение']);
  });
});

describe('results', () => {
  test('per agent and period: dialogues, messages, escalations, bookings, orders with the paid total, model spend', async () => {
    const agent = await connectedAgent({ messenger: true });
    await sendAndWait(agent.agentId, messageNew('Сколько стоит стрижка?'));
    await escalated(agent, OTHER_CLIENT);
    await settleAll(app);
    // Bookings and orders come from their own integrations (tested there); here they are rows to count.
    await app.sql(
      `insert into appointments (agent_id, specialist_id, service_id, staff_id, external_service_id, starts_at, datetime, client_name, client_phone, status, source)
       values ($1, 's1', 'v1', 1, 1, now() + interval '1 day', '2030-01-01T10:00:00+03:00', 'Анна', '79161234567', 'booked', 'assistant'),
              ($1, 's1', 'v1', 1, 1, now() + interval '2 day', '2030-01-02T10:00:00+03:00', 'Анна', '79161234567', 'pending', 'assistant')`,
      [agent.agentId],
    );
    await app.sql(
      `insert into orders (agent_id, number, status, items, total_minor, currency, payment_link, paid_at)
       values ($1, 'ORD-20300101-0001', 'paid', '[]', 150000, 'RUB', 'https://pay/1', now()),
              ($1, 'ORD-20300101-0002', 'paid', '[]', 99990, 'RUB', 'https://pay/2', now()),
              ($1, 'ORD-20300101-0003', 'pending', '[]', 5000, 'RUB', 'https://pay/3', null)`,
      [agent.agentId],
    );
    const [spend] = await app.sql<{ cost: string; tokens: string; n: string }>(
      'select sum(cost_nano)::text as cost, sum(total_tokens)::text as tokens, count(*)::text as n from usage_records where agent_id = $1',
      [agent.agentId],
    );

    const res = await call(app.url, 'GET', `/api/v1/agents/${agent.agentId}/results`, { token: agent.owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      dialogues: 2,
      // CLIENT: question, answer. OTHER_CLIENT: asks, phone asked, gives phone, handed over.
      messages: { total: 6, client: 3, assistant: 3, operator: 0 },
      escalations: 1,
      bookings: 1,
      orders: { created: 3, paid: 2, paidTotals: [{ currency: 'RUB', amount: '2499.90' }] },
      modelSpend: { requests: Number(spend!.n), tokens: Number(spend!.tokens), cost: Number(spend!.cost) / 1e9, currency: 'RUB' },
    });
    expect(res.body.modelSpend.cost).toBeGreaterThan(0);

    const past = await call(app.url, 'GET', `/api/v1/agents/${agent.agentId}/results?from=2020-01-01&to=2020-02-01`, { token: agent.owner.token });
    expect(past.status).toBe(200);
    expect(past.body).toMatchObject({ from: '2020-01-01T00:00:00.000Z', dialogues: 0, escalations: 0, bookings: 0, orders: { created: 0, paid: 0, paidTotals: [] } });
    expect(past.body.modelSpend.cost).toBe(0);

    // The default 30 days before `to` stop at year 0001 (where dates begin), never reach year 0.
    const earliest = await call(app.url, 'GET', `/api/v1/agents/${agent.agentId}/results?to=0001-01-10`, { token: agent.owner.token });
    expect(earliest.status).toBe(200);
    expect(earliest.body).toMatchObject({ from: '0001-01-01T00:00:00.000Z', to: '0001-01-10T00:00:00.000Z', dialogues: 0 });

    for (const query of ['?from=2026-02-01&to=2026-01-01', '?from=2020-01-01&to=2026-01-01', '?from=yesterday', '?to=0001-01-01']) {
      const bad = await call(app.url, 'GET', `/api/v1/agents/${agent.agentId}/results${query}`, { token: agent.owner.token });
      expect(bad.status).toBe(400);
      expect(bad.body.error.type).toBe('invalid_request_error');
    }
    const stranger = await registerUser(app.url);
    expect((await call(app.url, 'GET', `/api/v1/agents/${agent.agentId}/results`, { token: stranger.token })).status).toBe(403);
  });
});

describe('across instances', () => {
  test.skipIf(!onPostgres)('a client message taken by one instance is in the inbox another serves; a takeover there is seen here', async () => {
    const agent = await connectedAgent();
    const second = await startTestApp({ database: app.database, env: { VK_API_BASE_URL: vk.url, UPSTREAM_BASE_URL: upstream.url } });
    try {
      await sendAndWait(agent.agentId, messageNew('Привет'));
      const there = await call(second.url, 'GET', agent.base, { token: agent.owner.token });
      expect(there.body.dialogues.map((d: any) => d.client.vkUserId)).toEqual([CLIENT]);
      const id = there.body.dialogues[0].id;
      expect((await call(second.url, 'POST', `${agent.base}/${id}/takeover`, { token: agent.owner.token })).status).toBe(200);
      expect((await inbox(agent)).dialogues[0]).toMatchObject({ state: 'operator', heldBy: { byYou: true } });
    } finally {
      await second.stop();
    }
  });
});
